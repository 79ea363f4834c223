# Shared set-up of the agent end-to-end VM checks (agent-iio-bmi160, agent-i2c-mpu6050-drdy, and
# under lib/chip-check.sh the chip-engine checks): a private broker with a subscriber capturing
# `edgemotion/vm/#` (or the topics given), the agent's VM config with a
# state directory of its own, and the verdict on the agent's exit. Source it after setting NAME
# (prefix of the /tmp logs) and PORT (the broker's). Skips (exit 77) without mosquitto.
# Verdicts on the capture: lib/capture.py (imported by the checks' Python).
#
#   e2e_broker SECONDS [TOPIC…] broker + subscriber on TOPIC… (default edgemotion/vm/#; capture in
#                             $SUB_TXT, ends after SECONDS)
#   e2e_config FILE           prints the path of a copy of FILE with a fresh writable state_directory
#                             (the guest sees the host root read-only; the agent refuses to start
#                             without a writable one)
#   e2e_agent_verdict RC KIND stops the subscriber, prints the agent's log ($AGENT_LOG), skips when
#                             source type KIND is not wired into this build, fails when RC is not 0
set -u
BIN=${EDGEMOTION_BIN:?}
: "${NAME:?}" "${PORT:?}"
command -v mosquitto >/dev/null || { echo "mosquitto not installed"; exit 77; }
AGENT_LOG=/tmp/$NAME-agent.log
SUB_TXT=/tmp/$NAME-sub.txt
broker=""; sub=""
trap 'kill $broker $sub 2>/dev/null' EXIT

e2e_broker() {
  mosquitto -p "$PORT" >"/tmp/$NAME-broker.log" 2>&1 &
  broker=$!
  # Wait until the broker accepts connections (TCG on a loaded host can take seconds).
  for i in $(seq 1 100); do mosquitto_pub -h 127.0.0.1 -p "$PORT" -t edgemotion/ping -m 1 2>/dev/null && break; sleep 0.2; done
  local seconds=$1 topic args=()
  shift
  (($#)) || set -- 'edgemotion/vm/#'
  for topic in "$@"; do args+=(-t "$topic"); done
  mosquitto_sub -h 127.0.0.1 -p "$PORT" "${args[@]}" -v -W "$seconds" >"$SUB_TXT" 2>/dev/null &
  sub=$!
  sleep 1
}

e2e_config() {
  local config
  config=$(mktemp /tmp/vm-config.XXXXXX.yaml)
  { cat "$1"; echo "state_directory: $(mktemp -d /tmp/vm-state.XXXXXX)"; } > "$config"
  echo "$config"
}

e2e_agent_verdict() {
  sleep 0.5
  kill "$sub" 2>/dev/null
  cat "$AGENT_LOG"
  if grep -q "is not available in this build yet" "$AGENT_LOG"; then
    echo "source.type $2 is not wired into the agent's SourceFactory yet"; exit 77
  fi
  [ "$1" = 0 ] || { echo "edgemotion run exited $1"; exit 1; }
}

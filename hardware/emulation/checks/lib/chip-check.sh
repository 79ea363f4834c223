# Shared set-up of the chip-engine VM checks (agent-i2c-mpu6050-motion, agent-i2c-lsm6dsox-wakeup,
# -freefall-tap, -6d, agent-i2c-bmi160-engines): a private broker with a subscriber capturing
# events/motion and the phase markers, the agent on a VM config, register read-back and data-ready
# edges on the gpio-sim line "imu-drdy". Source it after setting NAME (prefix of the /tmp logs),
# PORT (the broker's) and A (the chip's I2C address on the i2c-stub bus). Skips (exit 77) without
# mosquitto or i2c-tools.
#
#   chip_check_broker SECONDS      broker + subscriber (capture in $SUB_TXT, ends after SECONDS)
#   chip_check_agent CONFIG SECS   `edgemotion run` on CONFIG for SECS, waits for event=running
#   rd REG / expect REG NAME VALUE WHY / fail WHY
#   edges N                        N data-ready edges, 0.1 s apart
#   marker PHASE                   publishes the marker that starts a phase (event-phases.py)
#   chip_check_end                 waits for the agent, runs chip_check_restore if the check
#                                  defines it (put the stub's registers back), stops the
#                                  subscriber, prints the agent's log, fails if the agent failed
set -u
BIN=${EDGEMOTION_BIN:?}
PULL=${EDGEMOTION_VM_GPIO_PULL:?}
I2CBUS=${EDGEMOTION_VM_I2C_BUS:-0}
: "${NAME:?}" "${PORT:?}" "${A:?}"
command -v mosquitto >/dev/null || { echo "mosquitto not installed"; exit 77; }
command -v i2cget >/dev/null || { echo "i2c-tools not installed"; exit 77; }
AGENT_LOG=/tmp/$NAME-agent.log
SUB_TXT=/tmp/$NAME-sub.txt
broker=""; sub=""; agent=""
trap 'kill $broker $sub $agent 2>/dev/null' EXIT

chip_check_broker() {
  mosquitto -p "$PORT" >"/tmp/$NAME-broker.log" 2>&1 &
  broker=$!
  for i in $(seq 1 100); do mosquitto_pub -h 127.0.0.1 -p "$PORT" -t edgemotion/ping -m 1 2>/dev/null && break; sleep 0.2; done
  mosquitto_sub -h 127.0.0.1 -p "$PORT" -t 'edgemotion/vm/events/motion' -t 'edgemotion/vm/marker' -v -W "$1" >"$SUB_TXT" 2>/dev/null &
  sub=$!
  sleep 1
}

chip_check_agent() {
  local config
  config=$(mktemp /tmp/vm-config.XXXXXX.yaml)
  { cat "$1"; echo "state_directory: $(mktemp -d /tmp/vm-state.XXXXXX)"; } > "$config"
  "$BIN/edgemotion" run --config "$config" --broker "mqtt://127.0.0.1:$PORT" \
    --device-id vm --duration "$2" >"$AGENT_LOG" 2>&1 &
  agent=$!
  for i in $(seq 1 150); do grep -q 'event=running' "$AGENT_LOG" && break; sleep 0.1; done
  sleep 0.5
}

fail() { echo "FAIL: $*"; cat "$AGENT_LOG"; exit 1; }
rd() { i2cget -y "$I2CBUS" "$A" "$1" b; }
expect() { local v; v=$(rd "$1"); echo "$2=$v"; [ "$v" = "$3" ] || fail "$2 is $v, expected $3 ($4)"; }
edges() { for i in $(seq 1 "$1"); do echo pull-up > "$PULL"; echo pull-down > "$PULL"; sleep 0.1; done; }
marker() { sleep 1; mosquitto_pub -h 127.0.0.1 -p "$PORT" -t edgemotion/vm/marker -m "$1"; sleep 0.5; }

chip_check_end() {
  local rc
  wait "$agent"
  rc=$?
  agent=""
  sleep 0.5
  if declare -F chip_check_restore >/dev/null; then chip_check_restore; fi
  kill "$sub" 2>/dev/null
  cat "$AGENT_LOG"
  [ "$rc" = 0 ] || { echo "edgemotion run exited $rc"; exit 1; }
}

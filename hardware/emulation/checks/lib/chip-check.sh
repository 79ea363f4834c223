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
#                                  subscriber, prints the agent's log, fails if the agent failed (e2e_agent_verdict)
: "${A:?}"
. "$(dirname "${BASH_SOURCE[0]}")/agent-e2e.sh"
PULL=${EDGEMOTION_VM_GPIO_PULL:?}
I2CBUS=${EDGEMOTION_VM_I2C_BUS:-0}
command -v i2cget >/dev/null || { echo "i2c-tools not installed"; exit 77; }
agent=""
trap 'kill $broker $sub $agent 2>/dev/null' EXIT

chip_check_broker() { e2e_broker "$1" 'edgemotion/vm/events/motion' 'edgemotion/vm/marker'; }

chip_check_agent() {
  "$BIN/edgemotion" run --config "$(e2e_config "$1")" --broker "mqtt://127.0.0.1:$PORT" \
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
  if declare -F chip_check_restore >/dev/null; then chip_check_restore; fi
  e2e_agent_verdict "$rc" i2c
}

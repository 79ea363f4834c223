#!/bin/bash
# Fault end to end in the VM: `edgemotion run` on the kernel's bmi160 (i2c-stub) through IIOSource,
# publishing to a mosquitto started here. The bmi160_i2c driver is unbound while the agent runs:
# health (retained) turns degraded with the error, events/status says sourceFailed, the agent
# retries with backoff (one log line per attempt). The driver is bound again: the same agent process
# resumes sampling, events/status says sourceRecovered, the accelerometer seq continues.
# Exit 0 pass, 77 skip, else fail. Runs chrooted into the host root (see run-vm-tests).
set -u
BIN=${EDGEMOTION_BIN:?}
PORT=18831
DRIVER=/sys/bus/i2c/drivers/bmi160_i2c
CLIENT="${EDGEMOTION_VM_I2C_BUS:?}-0069"
P=edgemotion/vmfault
command -v mosquitto >/dev/null || { echo "mosquitto not installed"; exit 77; }
[ -e "$DRIVER/$CLIENT" ] || { echo "bmi160 is not bound to $DRIVER ($CLIENT)"; exit 77; }
broker=""; sub=""; agent=""
cleanup() {
  [ -n "$agent" ] && kill "$agent" 2>/dev/null
  [ -n "$sub" ] && kill "$sub" 2>/dev/null
  [ -n "$broker" ] && kill "$broker" 2>/dev/null
  # Leave the fixture as found: the driver bound.
  [ -e "$DRIVER/$CLIENT" ] || echo "$CLIENT" > "$DRIVER/bind" 2>/dev/null
}
trap cleanup EXIT
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# wait_for SECONDS DESCRIPTION COMMAND...: runs COMMAND every 0.2 s until it succeeds; fails the
# check on timeout. (COMMAND is re-run each time: pass functions, not "$(…)" values.)
wait_for() {
  local limit=$1 what=$2; shift 2
  local end=$(( $(now_ms) + limit * 1000 ))
  until "$@"; do
    if [ "$(now_ms)" -ge "$end" ]; then
      echo "FAIL: timed out after ${limit} s waiting for: $what"
      echo "--- agent log (tail)"; tail -30 /tmp/fault-agent.log
      echo "--- subscriber (tail)"; tail -10 /tmp/fault-sub.txt | cut -c1-300
      exit 1
    fi
    sleep 0.2
  done
}
count() { grep -c "$1" "$2" 2>/dev/null || true; }
acc_count() { count "^$P/sensor/accelerometer " /tmp/fault-sub.txt; }
acc_at_least() { [ "$(acc_count)" -ge "$1" ]; }
failed_attempts_at_least() { [ "$(count 'source re-open failed' /tmp/fault-agent.log)" -ge "$1" ]; }
broker_up() { mosquitto_pub -h 127.0.0.1 -p $PORT -t edgemotion/ping -m 1 2>/dev/null; }

mosquitto -p $PORT >/tmp/fault-broker.log 2>&1 &
broker=$!
wait_for 30 "the broker" broker_up
mosquitto_sub -h 127.0.0.1 -p $PORT -t "$P/#" -v >/tmp/fault-sub.txt 2>/dev/null &
sub=$!
state=$(mktemp -d /tmp/fault-state.XXXXXX)
cat > /tmp/fault.yaml <<YAML
device: { id: vmfault }
source:
  type: iio
  rate: 200
  retry_max_s: 1
  iio: { uri: "local:", device: bmi160, trigger: hrtimer, buffer: true, buffer_length: 4 }
streams:
  accelerometer: { rate: 200, publish_rate: 10 }
  gyroscope: { enabled: false }
  magnetometer: { enabled: false }
  motion: { enabled: false }
activity: { enabled: false }
state_directory: $state
YAML
"$BIN/edgemotion" run --config /tmp/fault.yaml --broker mqtt://127.0.0.1:$PORT >/tmp/fault-agent.log 2>&1 &
agent=$!
wait_for 60 "accelerometer batches before the fault" acc_at_least 5

t_unbind=$(now_ms)
echo "$CLIENT" > "$DRIVER/unbind" || { echo "FAIL: cannot unbind $CLIENT"; exit 1; }
wait_for 30 "health degraded" grep -q "^$P/health .*\"status\":\"degraded\"" /tmp/fault-sub.txt
t_degraded=$(now_ms)
wait_for 30 "events/status sourceFailed" grep -q "^$P/events/status .*sourceFailed" /tmp/fault-sub.txt
# The retry loop: at least two re-open attempts fail while the device is away.
wait_for 30 "two failed re-open attempts in the agent log" failed_attempts_at_least 2
before=$(acc_count)

t_bind=$(now_ms)
echo "$CLIENT" > "$DRIVER/bind" || { echo "FAIL: cannot bind $CLIENT again"; exit 1; }
wait_for 30 "events/status sourceRecovered" grep -q "^$P/events/status .*sourceRecovered" /tmp/fault-sub.txt
wait_for 30 "accelerometer batches after the rebind" acc_at_least $((before + 5))
t_resumed=$(now_ms)
kill -0 "$agent" 2>/dev/null || { echo "FAIL: the agent process is gone"; cat /tmp/fault-agent.log; exit 1; }
wait_for 30 "health ok again" sh -c "grep '^$P/health ' /tmp/fault-sub.txt | tail -1 | grep -q '\"status\":\"ok\"'"
kill -TERM "$agent"
wait "$agent"; rc=$?
agent=""
sleep 0.5
kill "$sub" 2>/dev/null; sub=""
[ $rc = 0 ] || { echo "FAIL: edgemotion run exited $rc after SIGTERM"; tail -30 /tmp/fault-agent.log; exit 1; }
attempts=$(count 'source re-open failed' /tmp/fault-agent.log)
echo "unbind -> health degraded: $((t_degraded - t_unbind)) ms; rebind -> 5 more batches: $((t_resumed - t_bind)) ms; failed re-open attempts logged: $attempts"
grep -E 'source (failed|re-open|re-opened|recovered)' /tmp/fault-agent.log | cut -c1-400
python3 - /tmp/fault-sub.txt "$attempts" <<'PY'
import json, sys
P = "edgemotion/vmfault/"
msgs = []
for line in open(sys.argv[1], encoding="utf-8"):
    topic, _, payload = line.rstrip("\n").partition(" ")
    msgs.append((topic, payload))
def fail(msg):
    print("FAIL:", msg); sys.exit(1)
def on(t): return [json.loads(p) for topic, p in msgs if topic == P + t]
health = on("health")
degraded = [h for h in health if h.get("status") == "degraded"]
if not degraded: fail("no degraded health")
d = degraded[0]
if d.get("source") != "failing": fail(f"degraded health does not say source failing: {d}")
err = d.get("source_error", "")
if "bmi160" not in err and "iio" not in err: fail(f"source_error does not name the device: {err!r}")
if health[-1].get("status") != "ok": fail(f"last health is not ok: {health[-1]}")
if err.split(":")[0] not in health[-1].get("last_error", ""): fail(f"last health lost the error: {health[-1]}")
events = [e for e in on("events/status") if e.get("event", "").startswith("source")]
if [e["event"] for e in events] != ["sourceFailed", "sourceRecovered"]: fail(f"events/status: {events}")
retries = events[1].get("retries", 0)
if retries < 2: fail(f"recovered after {retries} re-open attempts; expected the retry loop to have run")
# One log line per failed attempt, not per sample: the failed attempts are the retries but the last.
if int(sys.argv[2]) > retries: fail(f"{sys.argv[2]} failed-attempt log lines for {retries} attempts")
acc = on("sensor/accelerometer")
seqs = [m["seq"] for m in acc]
if seqs != list(range(seqs[0], seqs[0] + len(seqs))): fail("accelerometer seq has a gap or restarted")
i_rec = next(i for i, (t, p) in enumerate(msgs) if t == P + "events/status" and "sourceRecovered" in p)
i_fail = next(i for i, (t, p) in enumerate(msgs) if t == P + "events/status" and "sourceFailed" in p)
pre = [json.loads(p) for t, p in msgs[:i_fail] if t == P + "sensor/accelerometer"]
post = [json.loads(p) for t, p in msgs[i_rec:] if t == P + "sensor/accelerometer"]
if len(post) < 3: fail(f"only {len(post)} accelerometer batches after the recovery")
z0, z1 = pre[0]["z"][-1], post[-1]["z"][-1]
if abs(z0 - z1) > 1e-6: fail(f"accelerometer z before ({z0}) and after ({z1}) the rebind differ")
print(f"ok: {len(acc)} batches, seq {seqs[0]}..{seqs[-1]} without a gap, {len(pre)} before the fault, {len(post)} after the recovery, "
      f"down {events[1].get('down_s')} s, {retries} re-open attempts, error: {err}")
PY

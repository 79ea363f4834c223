#!/bin/bash
# End to end in the VM: `edgemotion run` on the kernel's bmi160 (i2c-stub) through IIOSource,
# publishing to a mosquitto started here; a subscriber checks topics, counts and units.
# Exit 0 pass, 77 skip, else fail. Runs chrooted into the host root (see run-vm-tests).
set -u
BIN=${EDGEMOTION_BIN:?}
PORT=18830
command -v mosquitto >/dev/null || { echo "mosquitto not installed"; exit 77; }
mosquitto -p $PORT >/tmp/e2e-broker.log 2>&1 &
broker=$!
trap 'kill $broker $sub 2>/dev/null' EXIT
# Wait until the broker accepts connections (TCG on a loaded host can take seconds).
for i in $(seq 1 100); do mosquitto_pub -h 127.0.0.1 -p $PORT -t edgemotion/ping -m 1 2>/dev/null && break; sleep 0.2; done
mosquitto_sub -h 127.0.0.1 -p $PORT -t 'edgemotion/vm/#' -v -W 15 >/tmp/e2e-sub.txt 2>/dev/null &
sub=$!
sleep 1
# The guest sees the host root read-only: the agent keeps its spool and history in a state
# directory of its own (it refuses to start without a writable one).
config=$(mktemp /tmp/vm-config.XXXXXX.yaml)
{ cat config/iio-vm-bmi160.yaml; echo "state_directory: $(mktemp -d /tmp/vm-state.XXXXXX)"; } > "$config"
"$BIN/edgemotion" run --config "$config" --broker mqtt://127.0.0.1:$PORT \
  --device-id vm --duration 4 >/tmp/e2e-agent.log 2>&1
rc=$?
sleep 0.5
kill $sub 2>/dev/null
cat /tmp/e2e-agent.log
if grep -q "is not available in this build yet" /tmp/e2e-agent.log; then
  echo "source.type iio is not wired into the agent's SourceFactory yet"; exit 77
fi
[ $rc = 0 ] || { echo "edgemotion run exited $rc"; exit 1; }
python3 - /tmp/e2e-sub.txt <<'PY'
import json, sys
topics = {}
for line in open(sys.argv[1], encoding="utf-8"):
    topic, _, payload = line.rstrip("\n").partition(" ")
    topics.setdefault(topic, []).append(payload)
def fail(msg):
    print("FAIL:", msg); print("topics:", {t: len(v) for t, v in topics.items()}); sys.exit(1)
p = "edgemotion/vm/"
if "online" not in topics.get(p + "status", []): fail("no status online")
meta = topics.get(p + "meta")
if not meta or "iio" not in meta[0]: fail("meta does not name the iio source")
acc = [json.loads(m) for m in topics.get(p + "sensor/accelerometer", [])]
if not acc: fail("no sensor/accelerometer messages")
n = sum(m["n"] for m in acc)
# bmi160-stub.regs: accel z raw 16384 at 0.000598 m/s² per LSB; Core Motion sign and g: z = −raw·scale/g0.
z = acc[-1]["z"][-1]
expected = -16384 * 0.000598 / 9.80665
print(f"accelerometer: {len(acc)} messages, {n} samples, unit {acc[0]['unit']}, last z {z} (expected {expected:.5f})")
if acc[0]["unit"] != "g": fail("accelerometer unit is not g")
if abs(z - expected) > 1e-3: fail("accelerometer z not scaled as expected")
if n < 200: fail(f"only {n} samples in 4 s at 200 Hz")
seqs = [m["seq"] for m in acc]
if seqs != list(range(seqs[0], seqs[0] + len(seqs))): fail("gap in sensor/accelerometer seq")
print("ok")
PY

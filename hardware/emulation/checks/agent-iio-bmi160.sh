#!/bin/bash
# End to end in the VM: `edgemotion run` on the kernel's bmi160 (i2c-stub) through IIOSource,
# publishing to a mosquitto started here; a subscriber checks topics, counts and units.
# Exit 0 pass, 77 skip, else fail. Runs chrooted into the host root (see run-vm-tests).
NAME=e2e PORT=18830
. "$(dirname "$0")/lib/agent-e2e.sh"
e2e_broker 15
config=$(e2e_config config/iio-vm-bmi160.yaml)
"$BIN/edgemotion" run --config "$config" --broker mqtt://127.0.0.1:$PORT \
  --device-id vm --duration 4 >"$AGENT_LOG" 2>&1
e2e_agent_verdict $? iio
PYTHONPATH="$(dirname "$0")/lib" python3 - "$SUB_TXT" <<'PY'
import json, sys
import capture
topics = capture.read(sys.argv[1])
def fail(msg): capture.fail(msg, topics)
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

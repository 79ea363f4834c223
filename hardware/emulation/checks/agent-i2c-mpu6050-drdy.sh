#!/bin/bash
# End to end in the VM: `edgemotion run` on the MPU-6050 register map (i2c-stub, direct I2C over
# SMBus) timed by data-ready edges on the gpio-sim line "imu-drdy", pulsed here at 10 Hz.
# Exit 0 pass, 77 skip, else fail.
NAME=e2e2 PORT=18831
. "$(dirname "$0")/lib/agent-e2e.sh"
PULL=${EDGEMOTION_VM_GPIO_PULL:?}
pulser=""
trap 'kill $broker $sub $pulser 2>/dev/null' EXIT
e2e_broker 25
# The Swift VM suites before this check poke other values into the stub's registers: restore the
# MPU-6050 identity and a device lying flat (z = +16384 = +1 g at ±2 g, everything else 0).
I2CBUS=${EDGEMOTION_VM_I2C_BUS:-0}
i2cset -y "$I2CBUS" 0x68 0x75 0x68 b
for r in 0x3B 0x3C 0x3D 0x3E 0x41 0x42 0x43 0x44 0x45 0x46 0x47 0x48; do i2cset -y "$I2CBUS" 0x68 $r 0x00 b; done
i2cset -y "$I2CBUS" 0x68 0x3F 0x40 b
i2cset -y "$I2CBUS" 0x68 0x40 0x00 b
# Start the agent, wait until it runs (it has requested the data-ready line: under TCG start-up
# takes a variable time), then drive 30 pulses at 10 Hz (the config's rate).
config=$(e2e_config config/i2c-vm-mpu6050.yaml)
"$BIN/edgemotion" run --config "$config" --broker mqtt://127.0.0.1:$PORT \
  --device-id vm --duration 12 >"$AGENT_LOG" 2>&1 &
agent=$!
for i in $(seq 1 100); do grep -q 'event=running' "$AGENT_LOG" && break; sleep 0.1; done
sleep 0.5
( for i in $(seq 1 30); do echo pull-up > "$PULL"; echo pull-down > "$PULL"; sleep 0.1; done ) &
pulser=$!
wait $agent
rc=$?
wait $pulser 2>/dev/null
e2e_agent_verdict $rc i2c
PYTHONPATH="$(dirname "$0")/lib" python3 - "$SUB_TXT" <<'PY'
import json, sys
import capture
topics = capture.read(sys.argv[1])
def fail(msg): capture.fail(msg, topics)
p = "edgemotion/vm/"
meta = topics.get(p + "meta")
if not meta or "i2c" not in meta[0]: fail("meta does not name the i2c source")
print("meta:", meta[0][:300])
acc = [json.loads(m) for m in topics.get(p + "sensor/accelerometer", [])]
if not acc: fail("no sensor/accelerometer messages")
n = sum(m["n"] for m in acc)
dts = [d for m in acc for d in m["dt_us"][1:]]
# Consecutive samples inside batches: one per 100 ms pulse (the sleep in the pulse loop).
steps = [b - a for m in acc for a, b in zip(m["dt_us"], m["dt_us"][1:])]
z = acc[-1]["z"][-1]
print(f"accelerometer: {len(acc)} messages, {n} samples, z {z}, sample spacing µs {sorted(steps)[len(steps)//2] if steps else None} (median)")
if n < 15 or n > 31: fail(f"{n} samples for ≤ 30 pulses")
if abs(z - (-1.0)) > 1e-6: fail("z is not -1 g (stub: +16384 at ±2 g)")
if steps and not 80_000 <= sorted(steps)[len(steps)//2] <= 160_000: fail("samples not spaced by the pulse period")
print("ok")
PY

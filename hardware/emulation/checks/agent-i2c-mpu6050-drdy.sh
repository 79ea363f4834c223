#!/bin/bash
# End to end in the VM: `edgemotion run` on the MPU-6050 register map (i2c-stub, direct I2C over
# SMBus) timed by data-ready edges on the gpio-sim line "imu-drdy", pulsed here at 10 Hz.
# Exit 0 pass, 77 skip, else fail.
set -u
BIN=${EDGEMOTION_BIN:?}
PORT=18831
PULL=${EDGEMOTION_VM_GPIO_PULL:?}
command -v mosquitto >/dev/null || { echo "mosquitto not installed"; exit 77; }
mosquitto -p $PORT >/tmp/e2e2-broker.log 2>&1 &
broker=$!
pulser=""
trap 'kill $broker $sub $pulser 2>/dev/null' EXIT
# Wait until the broker accepts connections (TCG on a loaded host can take seconds).
for i in $(seq 1 100); do mosquitto_pub -h 127.0.0.1 -p $PORT -t edgemotion/ping -m 1 2>/dev/null && break; sleep 0.2; done
mosquitto_sub -h 127.0.0.1 -p $PORT -t 'edgemotion/vm/#' -v -W 25 >/tmp/e2e2-sub.txt 2>/dev/null &
sub=$!
sleep 1
# The Swift VM suites before this check poke other values into the stub's registers: restore the
# MPU-6050 identity and a device lying flat (z = +16384 = +1 g at ±2 g, everything else 0).
I2CBUS=${EDGEMOTION_VM_I2C_BUS:-0}
i2cset -y "$I2CBUS" 0x68 0x75 0x68 b
for r in 0x3B 0x3C 0x3D 0x3E 0x41 0x42 0x43 0x44 0x45 0x46 0x47 0x48; do i2cset -y "$I2CBUS" 0x68 $r 0x00 b; done
i2cset -y "$I2CBUS" 0x68 0x3F 0x40 b
i2cset -y "$I2CBUS" 0x68 0x40 0x00 b
# Start the agent, wait until it runs (it has requested the data-ready line: under TCG start-up
# takes a variable time), then drive 30 pulses at 10 Hz (the config's rate).
# The guest sees the host root read-only: the agent keeps its spool and history in a state
# directory of its own (it refuses to start without a writable one).
config=$(mktemp /tmp/vm-config.XXXXXX.yaml)
{ cat config/i2c-vm-mpu6050.yaml; echo "state_directory: $(mktemp -d /tmp/vm-state.XXXXXX)"; } > "$config"
"$BIN/edgemotion" run --config "$config" --broker mqtt://127.0.0.1:$PORT \
  --device-id vm --duration 12 >/tmp/e2e2-agent.log 2>&1 &
agent=$!
for i in $(seq 1 100); do grep -q 'event=running' /tmp/e2e2-agent.log && break; sleep 0.1; done
sleep 0.5
( for i in $(seq 1 30); do echo pull-up > "$PULL"; echo pull-down > "$PULL"; sleep 0.1; done ) &
pulser=$!
wait $agent
rc=$?
wait $pulser 2>/dev/null
sleep 0.5
kill $sub 2>/dev/null
cat /tmp/e2e2-agent.log
if grep -q "is not available in this build yet" /tmp/e2e2-agent.log; then
  echo "source.type i2c is not wired into the agent's SourceFactory yet"; exit 77
fi
[ $rc = 0 ] || { echo "edgemotion run exited $rc"; exit 1; }
python3 - /tmp/e2e2-sub.txt <<'PY'
import json, sys
topics = {}
for line in open(sys.argv[1], encoding="utf-8"):
    topic, _, payload = line.rstrip("\n").partition(" ")
    topics.setdefault(topic, []).append(payload)
def fail(msg):
    print("FAIL:", msg); print("topics:", {t: len(v) for t, v in topics.items()}); sys.exit(1)
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

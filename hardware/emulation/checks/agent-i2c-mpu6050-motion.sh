#!/bin/bash
# End to end in the VM: the MPU-6050's motion-detection interrupt (events.chip_motion: on) on the
# i2c-stub register map, its INT pin the gpio-sim line "imu-drdy" shared with data-ready.
# Checks that the agent programs MOT_THR / MOT_DUR / ACCEL_CONFIG.ACCEL_HPF / INT_ENABLE (read back
# with i2cget), that edges with INT_STATUS = 0x01 (data ready only) give no `motion` event, and that
# edges with INT_STATUS = 0x41 (MOT_INT + DATA_RDY) give one `motion` event with "source":"chip".
# What it cannot check (the stub is a plain register file): docs/events.md, Chip interrupt engines.
# Exit 0 pass, 77 skip, else fail.
set -u
BIN=${EDGEMOTION_BIN:?}
PORT=18834
PULL=${EDGEMOTION_VM_GPIO_PULL:?}
command -v mosquitto >/dev/null || { echo "mosquitto not installed"; exit 77; }
command -v i2cget >/dev/null || { echo "i2c-tools not installed"; exit 77; }
mosquitto -p $PORT >/tmp/motion-broker.log 2>&1 &
broker=$!
sub=""; pulser=""; agent=""
trap 'kill $broker $sub $pulser $agent 2>/dev/null' EXIT
for i in $(seq 1 100); do mosquitto_pub -h 127.0.0.1 -p $PORT -t edgemotion/ping -m 1 2>/dev/null && break; sleep 0.2; done
mosquitto_sub -h 127.0.0.1 -p $PORT -t 'edgemotion/vm/events/motion' -t 'edgemotion/vm/marker' -v -W 40 >/tmp/motion-sub.txt 2>/dev/null &
sub=$!
sleep 1
# Restore the MPU-6050 identity, a device lying flat (z = +1 g at ±2 g), the motion registers
# cleared (so the read-back proves the agent wrote them) and INT_STATUS = data ready only.
I2CBUS=${EDGEMOTION_VM_I2C_BUS:-0}
i2cset -y "$I2CBUS" 0x68 0x75 0x68 b
for r in 0x3B 0x3C 0x3D 0x3E 0x41 0x42 0x43 0x44 0x45 0x46 0x47 0x48 0x1F 0x20 0x38; do i2cset -y "$I2CBUS" 0x68 $r 0x00 b; done
i2cset -y "$I2CBUS" 0x68 0x3F 0x40 b
i2cset -y "$I2CBUS" 0x68 0x40 0x00 b
i2cset -y "$I2CBUS" 0x68 0x3A 0x01 b
config=$(mktemp /tmp/vm-config.XXXXXX.yaml)
{ cat config/i2c-vm-mpu6050-motion.yaml; echo "state_directory: $(mktemp -d /tmp/vm-state.XXXXXX)"; } > "$config"
"$BIN/edgemotion" run --config "$config" --broker mqtt://127.0.0.1:$PORT \
  --device-id vm --duration 16 >/tmp/motion-agent.log 2>&1 &
agent=$!
for i in $(seq 1 150); do grep -q 'event=running' /tmp/motion-agent.log && break; sleep 0.1; done
sleep 0.5
fail() { echo "FAIL: $*"; cat /tmp/motion-agent.log; exit 1; }
# Register read-back (values written by hand from the register map, see the config's comment).
thr=$(i2cget -y "$I2CBUS" 0x68 0x1F b); dur=$(i2cget -y "$I2CBUS" 0x68 0x20 b)
acfg=$(i2cget -y "$I2CBUS" 0x68 0x1C b); ien=$(i2cget -y "$I2CBUS" 0x68 0x38 b)
echo "MOT_THR=$thr MOT_DUR=$dur ACCEL_CONFIG=$acfg INT_ENABLE=$ien"
[ "$thr" = 0x03 ] || fail "MOT_THR is $thr, expected 0x03 (1.0 m/s² = 102 mg at 32 mg/LSB)"
[ "$dur" = 0x64 ] || fail "MOT_DUR is $dur, expected 0x64 (100 ms)"
[ "$acfg" = 0x04 ] || fail "ACCEL_CONFIG is $acfg, expected 0x04 (±2 g, ACCEL_HPF 0.63 Hz)"
[ "$ien" = 0x41 ] || fail "INT_ENABLE is $ien, expected 0x41 (MOT_EN | DATA_RDY_EN)"
# Phase A: 20 edges at 10 Hz with data ready only.
for i in $(seq 1 20); do echo pull-up > "$PULL"; echo pull-down > "$PULL"; sleep 0.1; done
sleep 2
mosquitto_pub -h 127.0.0.1 -p $PORT -t edgemotion/vm/marker -m phase-b
sleep 0.5
# Phase B: the motion engine's bit set too (the stub keeps it: no clear-on-read).
i2cset -y "$I2CBUS" 0x68 0x3A 0x41 b
for i in $(seq 1 20); do echo pull-up > "$PULL"; echo pull-down > "$PULL"; sleep 0.1; done
wait $agent
rc=$?
agent=""
sleep 0.5
i2cset -y "$I2CBUS" 0x68 0x3A 0x00 b
kill $sub 2>/dev/null
cat /tmp/motion-agent.log
[ $rc = 0 ] || { echo "edgemotion run exited $rc"; exit 1; }
python3 "$(dirname "$0")/lib/motion-phases.py" /tmp/motion-sub.txt "INT_STATUS 0x01" "INT_STATUS 0x41" INT_STATUS MOT_INT

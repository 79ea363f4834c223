#!/bin/bash
# End to end in the VM: the MPU-6050's motion-detection interrupt (events.chip_motion: on) on the
# i2c-stub register map, its INT pin the gpio-sim line "imu-drdy" shared with data-ready.
# Checks that the agent programs MOT_THR / MOT_DUR / ACCEL_CONFIG.ACCEL_HPF / INT_ENABLE (read back
# with i2cget), that edges with INT_STATUS = 0x01 (data ready only) give no `motion` event, and that
# edges with INT_STATUS = 0x41 (MOT_INT + DATA_RDY) give one `motion` event with "source":"chip".
# What it cannot check (the stub is a plain register file): docs/chip-engines.md.
# Exit 0 pass, 77 skip, else fail.
NAME=motion PORT=18834 A=0x68
source "$(dirname "$0")/lib/chip-check.sh"
chip_check_restore() { i2cset -y "$I2CBUS" $A 0x3A 0x00 b; }
chip_check_broker 40
# Restore the MPU-6050 identity, a device lying flat (z = +1 g at ±2 g), the motion registers
# cleared (so the read-back proves the agent wrote them) and INT_STATUS = data ready only.
i2cset -y "$I2CBUS" $A 0x75 0x68 b
for r in 0x3B 0x3C 0x3D 0x3E 0x41 0x42 0x43 0x44 0x45 0x46 0x47 0x48 0x1F 0x20 0x38; do i2cset -y "$I2CBUS" $A $r 0x00 b; done
i2cset -y "$I2CBUS" $A 0x3F 0x40 b
i2cset -y "$I2CBUS" $A 0x40 0x00 b
i2cset -y "$I2CBUS" $A 0x3A 0x01 b
chip_check_agent config/i2c-vm-mpu6050-motion.yaml 16
# Register read-back (values written by hand from the register map, see the config's comment).
thr=$(rd 0x1F); dur=$(rd 0x20)
acfg=$(rd 0x1C); ien=$(rd 0x38)
echo "MOT_THR=$thr MOT_DUR=$dur ACCEL_CONFIG=$acfg INT_ENABLE=$ien"
[ "$thr" = 0x03 ] || fail "MOT_THR is $thr, expected 0x03 (1.0 m/s² = 102 mg at 32 mg/LSB)"
[ "$dur" = 0x64 ] || fail "MOT_DUR is $dur, expected 0x64 (100 ms)"
[ "$acfg" = 0x04 ] || fail "ACCEL_CONFIG is $acfg, expected 0x04 (±2 g, ACCEL_HPF 0.63 Hz)"
[ "$ien" = 0x41 ] || fail "INT_ENABLE is $ien, expected 0x41 (MOT_EN | DATA_RDY_EN)"
# Phase A: 20 edges at 10 Hz with data ready only.
edges 20
sleep 2
mosquitto_pub -h 127.0.0.1 -p $PORT -t edgemotion/vm/marker -m phase-b
sleep 0.5
# Phase B: the motion engine's bit set too (the stub keeps it: no clear-on-read).
i2cset -y "$I2CBUS" $A 0x3A 0x41 b
edges 20
chip_check_end
python3 "$(dirname "$0")/lib/motion-phases.py" "$SUB_TXT" "INT_STATUS 0x01" "INT_STATUS 0x41" INT_STATUS MOT_INT

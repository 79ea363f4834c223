#!/bin/bash
# End to end in the VM: the LSM6DSOX's wake-up interrupt (events.chip_motion: on) on the i2c-stub
# register map at 0x6b, its INT1 the gpio-sim line "imu-drdy" shared with data-ready.
# Checks that the agent programs WAKE_UP_THS / WAKE_UP_DUR / TAP_CFG0 / TAP_CFG2 / MD1_CFG /
# INT1_CTRL (read back with i2cget), that edges with WAKE_UP_SRC = 0x00 (data ready only) give no
# `motion` event, and that edges with WAKE_UP_SRC = 0x08 (WU_IA) give one `motion` event with
# "source":"chip". What it cannot check (the stub is a plain register file, WAKE_UP_SRC is not
# cleared by the read, nothing computes a wake-up): docs/chip-engines.md.
# Exit 0 pass, 77 skip, else fail.
NAME=wakeup PORT=18835 A=0x6b
source "$(dirname "$0")/lib/chip-check.sh"
chip_check_restore() { for r in 0x1b 0x56 0x58 0x5b 0x5c 0x5e; do i2cset -y "$I2CBUS" $A $r 0x00 b; done; }
chip_check_broker 40
# The LSM6DSOX identity, the wake-up registers cleared (so the read-back proves the agent wrote
# them) and WAKE_UP_SRC = no wake-up. The sample registers keep the fixture's preload.
i2cset -y "$I2CBUS" $A 0x0f 0x6c b
for r in 0x0d 0x1b 0x56 0x58 0x5b 0x5c 0x5e; do i2cset -y "$I2CBUS" $A $r 0x00 b; done
chip_check_agent config/i2c-vm-lsm6dsox-motion.yaml 16
# Register read-back (values written by hand from the data sheet's LSB, see the config's comment).
ths=$(rd 0x5b); dur=$(rd 0x5c); cfg0=$(rd 0x56); cfg2=$(rd 0x58); md1=$(rd 0x5e); int1=$(rd 0x0d)
echo "WAKE_UP_THS=$ths WAKE_UP_DUR=$dur TAP_CFG0=$cfg0 TAP_CFG2=$cfg2 MD1_CFG=$md1 INT1_CTRL=$int1"
[ "$ths" = 0x0d ] || fail "WAKE_UP_THS is $ths, expected 0x0d (1.0 m/s² = 102 mg at ±2 g/2^8 = 7.8125 mg/LSB → 13)"
[ "$dur" = 0x30 ] || fail "WAKE_UP_DUR is $dur, expected 0x30 (WAKE_DUR 1 << 5 | WAKE_THS_W)"
[ "$cfg0" = 0x41 ] || fail "TAP_CFG0 is $cfg0, expected 0x41 (INT_CLR_ON_RD | LIR)"
[ "$cfg2" = 0x80 ] || fail "TAP_CFG2 is $cfg2, expected 0x80 (INTERRUPTS_ENABLE)"
[ "$md1" = 0x20 ] || fail "MD1_CFG is $md1, expected 0x20 (INT1_WU)"
[ "$int1" = 0x01 ] || fail "INT1_CTRL is $int1, expected 0x01 (INT1_DRDY_XL)"
# Phase A: 20 edges at 10 Hz with data ready only.
edges 20
sleep 2
mosquitto_pub -h 127.0.0.1 -p $PORT -t edgemotion/vm/marker -m phase-b
sleep 0.5
# Phase B: WU_IA set (the stub keeps it: no clear-on-read).
i2cset -y "$I2CBUS" $A 0x1b 0x08 b
edges 20
chip_check_end
python3 "$(dirname "$0")/lib/motion-phases.py" "$SUB_TXT" "WAKE_UP_SRC 0x00" "WAKE_UP_SRC 0x08" WAKE_UP_SRC WU_IA

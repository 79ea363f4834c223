#!/bin/bash
# End to end in the VM: the BMI160's any-motion, low-g (free fall) and single/double-tap engines
# (events.chip_motion: on, chip_engines: [motion, free_fall, tap]) on an i2c-stub register map at
# 0x6a (CHIP_ID 0xD1 set here), INT1 (data-ready only) the gpio-sim line "imu-drdy".
# Checks that the agent programs INT_MOTION_0/1, INT_LOWHIGH_0/1/2, INT_TAP_0/1, INT_MAP_0/1/2,
# INT_OUT_CTRL, INT_LATCH, INT_EN_0/1 (read back with i2cget; codes worked by hand in the
# config's comment), and that edges give exactly the expected "source":"chip" events from the
# INT_STATUS_0/1 pair read per edge:
#   a: INT_STATUS_0 = 0x00, INT_STATUS_1 = 0x10 (drdy only): no motion, free_fall, tap, double_tap;
#   b: INT_STATUS_0 = 0x20 (s_tap) on 2 edges (the temporary latch holds a tap over ~2 samples),
#      then 0x00: 1 tap (counted where the bit rises), no double_tap;
#   c: INT_STATUS_0 = 0x10 (d_tap) on 1 edge: 1 double_tap, no tap;
#   d: INT_STATUS_1 = 0x18 (low_g | drdy) on 5 edges, then 0x10: 1 free_fall (sent when it ends);
#   e: INT_STATUS_0 = 0x04 (anym) on 5 edges, then 0x00: 1 motion.
# What it cannot check (a register file computes nothing: no slope, no latch timing, whether a
# chip sets status bits for interrupts mapped only to its disabled INT2): docs/chip-engines.md.
# Exit 0 pass, 77 skip, else fail.
NAME=bmi160eng PORT=18838 A=0x6a
source "$(dirname "$0")/lib/chip-check.sh"
# Every register the driver writes, plus CHIP_ID, the accel z data and the status pair: cleared
# first (so the read-back proves the agent wrote them) and after (the 0x6a map is all zero but
# WHO_AM_I 0x75, which this check leaves alone).
REGS="0x00 0x16 0x17 0x1c 0x1d 0x40 0x41 0x42 0x43 0x50 0x51 0x53 0x54 0x55 0x56 0x57 0x5a 0x5b 0x5c 0x5f 0x60 0x63 0x64 0x7e"
chip_check_restore() { for r in $REGS; do i2cset -y "$I2CBUS" $A $r 0x00 b; done; }
chip_check_restore
i2cset -y "$I2CBUS" $A 0x00 0xd1 b                  # CHIP_ID
i2cset -y "$I2CBUS" $A 0x17 0x40 b                  # accel z = 0x4000 = +1 g at ±2 g: at rest
i2cset -y "$I2CBUS" $A 0x1d 0x10 b                  # INT_STATUS_1: drdy
chip_check_broker 50
chip_check_agent config/i2c-vm-bmi160-engines.yaml 26
expect 0x40 ACC_CONF 0x26 "acc_bwp normal 0x20 | odr 6 (25 Hz)"
expect 0x41 ACC_RANGE 0x03 "±2 g"
expect 0x5f INT_MOTION_0 0x02 "anym_dur: 3 slope samples − 1"
expect 0x60 INT_MOTION_1 0x1a "anym_th 26 (1.0 m/s² / 3.91 mg)"
expect 0x5a INT_LOWHIGH_0 0x4f "low_dur 79 ((79 + 1) × 2.5 ms = 200 ms)"
expect 0x5b INT_LOWHIGH_1 0x26 "low_th 38 (300 mg / 7.81 mg)"
expect 0x5c INT_LOWHIGH_2 0x85 "reset 0x81 | low_mode sum"
expect 0x63 INT_TAP_0 0x46 "shock 75 ms | tap_dur 500 ms (6), quiet 30 ms"
expect 0x64 INT_TAP_1 0x10 "tap_th 16 (1 g / 62.5 mg)"
expect 0x57 INT_MAP_2 0x35 "INT2: s_tap | d_tap | anymotion | low_g"
expect 0x55 INT_MAP_0 0x00 "nothing of the engines on INT1"
expect 0x56 INT_MAP_1 0x80 "drdy → INT1"
expect 0x53 INT_OUT_CTRL 0x0a "INT1 output enabled, active high, push-pull; INT2 output off"
expect 0x54 INT_LATCH 0x09 "temporary latch 80 ms (two samples at 25 Hz)"
expect 0x50 INT_EN_0 0x37 "s_tap | d_tap | anymotion x, y, z"
expect 0x51 INT_EN_1 0x18 "drdy | low_g"
grep -q 'chip_engines=motion, free_fall, tap\|chip_engines="motion, free_fall, tap"' "$AGENT_LOG" || fail "the started line does not say chip_engines: motion, free_fall, tap"
st0() { i2cset -y "$I2CBUS" $A 0x1c "$1" b; }
st1() { i2cset -y "$I2CBUS" $A 0x1d "$1" b; }
edges 20                                            # a
marker b; st0 0x20; edges 2; st0 0x00; edges 5
marker c; st0 0x10; edges 1; st0 0x00; edges 5
marker d; st1 0x18; edges 5; st1 0x10; edges 5
marker e; st0 0x04; edges 5; st0 0x00; edges 5
chip_check_end
python3 "$(dirname "$0")/lib/event-phases.py" "$SUB_TXT" \
  a=motion:0,free_fall:0,tap:0,double_tap:0 b=tap:1,double_tap:0,free_fall:0,motion:0 \
  c=double_tap:1,tap:0,free_fall:0,motion:0 d=free_fall:1,tap:0,double_tap:0,motion:0 \
  e=motion:1,tap:0,double_tap:0,free_fall:0

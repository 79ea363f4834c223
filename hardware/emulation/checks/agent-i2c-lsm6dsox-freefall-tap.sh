#!/bin/bash
# End to end in the VM: the LSM6DSOX's free-fall and single/double-tap interrupts
# (events.chip_motion: on, chip_engines: [free_fall, tap]) on the i2c-stub register map at 0x6b,
# INT1 the gpio-sim line "imu-drdy" shared with data-ready.
# Checks that the agent programs FREE_FALL / WAKE_UP_DUR / WAKE_UP_THS / TAP_CFG0-2 / TAP_THS_6D /
# INT_DUR2 / MD1_CFG / INT1_CTRL (read back with i2cget; codes worked by hand in the config's
# comment), and that edges give exactly the expected "source":"chip" events:
#   a: WAKE_UP_SRC = TAP_SRC = 0x00 (data ready only): no free_fall, tap or double_tap;
#   b: TAP_SRC = 0x60 (TAP_IA | SINGLE_TAP) on 3 edges: 3 tap (the stub does not clear on read,
#      so each edge is one latched tap), no double_tap;
#   c: TAP_SRC = 0x50 (TAP_IA | DOUBLE_TAP) on 1 edge: 1 double_tap, no tap;
#   d: WAKE_UP_SRC = 0x20 (FF_IA) on 5 edges, then 0x00: 1 free_fall (one fall, sent when it ends).
# What it cannot check (nothing computes a tap or a fall, no clear-on-read): docs/chip-engines.md.
# Exit 0 pass, 77 skip, else fail.
NAME=fftap PORT=18836 A=0x6b
source "$(dirname "$0")/lib/chip-check.sh"
REGS="0x0d 0x1b 0x1c 0x56 0x57 0x58 0x59 0x5a 0x5b 0x5c 0x5d 0x5e"
chip_check_restore() { for r in $REGS; do i2cset -y "$I2CBUS" $A $r 0x00 b; done; }
chip_check_broker 45
i2cset -y "$I2CBUS" $A 0x0f 0x6c b
chip_check_restore
chip_check_agent config/i2c-vm-lsm6dsox-freefall-tap.yaml 20
expect 0x5d FREE_FALL 0x1b "FF_DUR 3 << 3 | FF_THS 3"
expect 0x5c WAKE_UP_DUR 0x00 "no wake-up, FF_DUR5 0"
expect 0x5b WAKE_UP_THS 0x80 "SINGLE_DOUBLE_TAP, no WK_THS"
expect 0x56 TAP_CFG0 0x4f "INT_CLR_ON_RD | TAP_X_EN | TAP_Y_EN | TAP_Z_EN | LIR"
expect 0x57 TAP_CFG1 0x10 "TAP_THS_X 16, priority XYZ"
expect 0x58 TAP_CFG2 0x90 "INTERRUPTS_ENABLE | TAP_THS_Y 16"
expect 0x59 TAP_THS_6D 0x10 "TAP_THS_Z 16"
expect 0x5a INT_DUR2 0x10 "DUR 1, QUIET 0, SHOCK 0"
expect 0x5e MD1_CFG 0x58 "INT1_SINGLE_TAP | INT1_FF | INT1_DOUBLE_TAP"
expect 0x0d INT1_CTRL 0x01 "INT1_DRDY_XL"
grep -q 'chip_engines=free_fall, tap\|chip_engines="free_fall, tap"' "$AGENT_LOG" || fail "the started line does not say chip_engines: free_fall, tap"
edges 20                                            # a
marker b; i2cset -y "$I2CBUS" $A 0x1c 0x60 b; edges 3; i2cset -y "$I2CBUS" $A 0x1c 0x00 b; edges 5
marker c; i2cset -y "$I2CBUS" $A 0x1c 0x50 b; edges 1; i2cset -y "$I2CBUS" $A 0x1c 0x00 b; edges 5
marker d; i2cset -y "$I2CBUS" $A 0x1b 0x20 b; edges 5; i2cset -y "$I2CBUS" $A 0x1b 0x00 b; edges 5
chip_check_end
python3 "$(dirname "$0")/lib/event-phases.py" "$SUB_TXT" \
  a=free_fall:0,tap:0,double_tap:0 b=tap:3,double_tap:0,free_fall:0 c=double_tap:1,tap:0,free_fall:0 d=free_fall:1,tap:0,double_tap:0

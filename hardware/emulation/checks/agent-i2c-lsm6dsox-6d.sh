#!/bin/bash
# End to end in the VM: the LSM6DSOX's 6D orientation interrupt beside its tap interrupt
# (events.chip_motion: on, chip_engines: [tap, orientation], source.mount.accel_gyro: identity)
# on the i2c-stub register map at 0x6b, INT1 the gpio-sim line "imu-drdy" shared with data-ready.
# Checks that the agent programs TAP_THS_6D (SIXD_THS beside TAP_THS_Z), MD1_CFG (INT1_6D beside
# the tap routing), CTRL8_XL (LOW_PASS_ON_6D, HPCF_XL) and INT1_CTRL (read back with i2cget; codes worked by
# hand in the config's comment), that the started line lists the engines, and that D6D_SRC (0x1d,
# the third byte of the per-edge burst) gives exactly the expected "source":"chip" orientation
# events (dwell 0.5 s; the stub's accelerometer reads 0, so the software detector sees no face):
#   a: D6D_SRC = 0x20 (ZH without D6D_IA) on 10 edges: no orientation;
#   b: 0x60 (D6D_IA | ZH) on 1 edge, then 0x20 (ZH held) on 10: 1 orientation face_up (previous unknown);
#   c: 0x48 (D6D_IA | YH) on 1 edge, then 0x08 on 10: 1 orientation portrait (previous face_up);
#   d: 0x48 again (the face held) on 1 edge, then 0x08: none;
#   e: 0x40 (D6D_IA, no single position bit) on 1 edge, then 0x00: none;
#   f: TAP_SRC = 0x60 (TAP_IA | SINGLE_TAP) on 1 edge: 1 tap, no orientation (the burst's 2nd byte).
# What it cannot check (nothing computes a position, no clear-on-read, no LPF2): docs/chip-engines.md.
# Exit 0 pass, 77 skip, else fail.
NAME=sixd PORT=18837 A=0x6b
source "$(dirname "$0")/lib/chip-check.sh"
REGS="0x0d 0x17 0x1b 0x1c 0x1d 0x56 0x57 0x58 0x59 0x5a 0x5b 0x5c 0x5d 0x5e"
chip_check_restore() { for r in $REGS; do i2cset -y "$I2CBUS" $A $r 0x00 b; done; }
chip_check_broker 55
i2cset -y "$I2CBUS" $A 0x0f 0x6c b
chip_check_restore
chip_check_agent config/i2c-vm-lsm6dsox-6d.yaml 30
expect 0x59 TAP_THS_6D 0x50 "SIXD_THS 2 (60°) << 5 | TAP_THS_Z 16"
expect 0x5e MD1_CFG 0x4c "INT1_SINGLE_TAP | INT1_DOUBLE_TAP | INT1_6D"
expect 0x17 CTRL8_XL 0x21 "HPCF_XL 1 (ODR/10 at 12.5 Hz) | LOW_PASS_ON_6D"
expect 0x58 TAP_CFG2 0x90 "INTERRUPTS_ENABLE | TAP_THS_Y 16"
expect 0x0d INT1_CTRL 0x01 "INT1_DRDY_XL"
grep -q 'chip_engines=tap, orientation\|chip_engines="tap, orientation"' "$AGENT_LOG" || fail "the started line does not say chip_engines: tap, orientation"
d6d() { i2cset -y "$I2CBUS" $A 0x1d "$1" b; }
d6d 0x20; edges 10                                  # a
marker b; d6d 0x60; edges 1; d6d 0x20; edges 10
marker c; d6d 0x48; edges 1; d6d 0x08; edges 10
marker d; d6d 0x48; edges 1; d6d 0x08; edges 10
marker e; d6d 0x40; edges 1; d6d 0x00; edges 10
marker f; i2cset -y "$I2CBUS" $A 0x1c 0x60 b; edges 1; i2cset -y "$I2CBUS" $A 0x1c 0x00 b; edges 5
chip_check_end
python3 "$(dirname "$0")/lib/event-phases.py" "$SUB_TXT" \
  a=orientation:0,tap:0 b=orientation:1,tap:0 c=orientation:1,tap:0 d=orientation:0 e=orientation:0 f=tap:1,orientation:0 || exit 1
# The faces, in order: face_up from unknown, then portrait from face_up.
python3 - "$SUB_TXT" <<'PY'
import json, sys
faces = []
for line in open(sys.argv[1], encoding="utf-8"):
    topic, _, payload = line.rstrip("\n").partition(" ")
    if topic.endswith("/marker"): continue
    e = json.loads(payload)
    if e.get("type") == "orientation": faces.append((e.get("face"), e.get("previous")))
print("orientation faces:", faces)
sys.exit(0 if faces == [("face_up", "unknown"), ("portrait", "face_up")] else 1)
PY

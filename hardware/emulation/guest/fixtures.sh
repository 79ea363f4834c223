#!/bin/sh
# Device fixtures inside the test VM (busybox). Writes /mnt/tmp/fixtures.env for the tests:
#  - i2c-stub at 0x68 (MPU-6050 map, direct-I2C path), 0x69 (BMI160, bound to bmi160_i2c -> IIO),
#    0x6a (MPU-6050 map with a wrong WHO_AM_I), 0x6b (LSM6DSOX map, direct-I2C path and its FIFO),
#    0x0c (AK8963 map), 0x1e (LSM6DSOX map bound to st_lsm6dsx_i2c -> two IIO devices),
#    0x76 (BMP280, data-sheet calibration, bound to bmp280_i2c), 0x39 (TSL2563 light, bound to tsl2563);
#  - IIO triggers: hrtimer "edgemotion-hrt", sysfs "sysfstrig7";
#  - gpio-sim chip labelled "edgemotion-sim" with line 3 named "imu-drdy".
set -e
modprobe configfs
mount -t configfs none /sys/kernel/config
modprobe i2c-dev
modprobe i2c-stub chip_addr=0x0c,0x68,0x69,0x6a,0x6b,0x1e,0x76,0x39
BUS=""
for a in /sys/bus/i2c/devices/i2c-*; do
  if grep -q 'SMBus stub' "$a/name"; then BUS=${a##*/i2c-}; fi
done
[ -n "$BUS" ] || { echo "no i2c-stub adapter"; exit 1; }
# Register files: "<addr> <reg> <byte> [byte ...]" (hex), '#' comments.
load_regs() {
  grep -v '^[[:space:]]*#' "$1" | while read -r addr reg vals; do
    [ -n "$addr" ] || continue
    set -- $vals
    if [ $# -eq 1 ]; then i2cset -y "$BUS" "$addr" "$reg" "$1"
    else i2cset -y "$BUS" "$addr" "$reg" $vals i; fi
  done
}
load_regs /etc/mpu6050-stub.regs
load_regs /etc/bmi160-stub.regs
load_regs /etc/wrong-whoami-stub.regs
load_regs /etc/lsm6dsox-stub.regs
load_regs /etc/ak8963-stub.regs
load_regs /etc/lsm6dsox-iio-stub.regs
load_regs /etc/bmp280-stub.regs
modprobe bmi160_i2c
echo bmi160 0x69 > "/sys/bus/i2c/devices/i2c-$BUS/new_device"
# LSM6DSOX at 0x1e bound to st_lsm6dsx_i2c: two IIO devices lsm6dsox_accel/_gyro; without an IRQ
# each has a triggered buffer for software triggers (hrtimer) and polled _raw reads.
modprobe st_lsm6dsx_i2c
echo lsm6dsox 0x1e > "/sys/bus/i2c/devices/i2c-$BUS/new_device"
# Environmental sensors (config auxiliary:): BMP280 and TSL2563. The TSL2563 reads 16-bit words
# (SMBus word data at CMD|reg, CMD = 0x80): ID 0x8A, ADC0 (broadband) 0x8C = 1000, ADC1 (IR) 0x8E = 0.
modprobe bmp280-i2c
echo bmp280 0x76 > "/sys/bus/i2c/devices/i2c-$BUS/new_device"
i2cset -y "$BUS" 0x39 0x8a 0x50
i2cset -y "$BUS" 0x39 0x8c 0x03e8 w
i2cset -y "$BUS" 0x39 0x8e 0x0000 w
modprobe tsl2563
echo tsl2563 0x39 > "/sys/bus/i2c/devices/i2c-$BUS/new_device"
modprobe industrialio-configfs
modprobe iio-trig-hrtimer
modprobe iio-trig-sysfs
mkdir /sys/kernel/config/iio/triggers/hrtimer/edgemotion-hrt
echo 7 > /sys/bus/iio/devices/iio_sysfs_trigger/add_trigger
modprobe gpio-sim
C=/sys/kernel/config/gpio-sim/edgemotion
mkdir $C $C/bank0
echo 8 > $C/bank0/num_lines
echo edgemotion-sim > $C/bank0/label
mkdir $C/bank0/line3
echo imu-drdy > $C/bank0/line3/name
echo 1 > $C/live
CHIP=$(cat $C/bank0/chip_name)
DEV=$(cat $C/dev_name)
IIODEV=""
for d in /sys/bus/iio/devices/iio:device*; do
  [ "$(cat "$d/name")" = bmi160 ] && IIODEV=${d##*/}
done
[ -n "$IIODEV" ] || { echo "bmi160 did not bind"; dmesg | tail -20; exit 1; }
cat > /mnt/tmp/fixtures.env <<ENV
EDGEMOTION_VM_I2C_BUS=$BUS
EDGEMOTION_VM_GPIO_CHIP=$CHIP
EDGEMOTION_VM_GPIO_LABEL=edgemotion-sim
EDGEMOTION_VM_GPIO_LINE=imu-drdy
EDGEMOTION_VM_GPIO_OFFSET=3
EDGEMOTION_VM_GPIO_PULL=/sys/devices/platform/$DEV/$CHIP/sim_gpio3/pull
EDGEMOTION_VM_IIO_DEVICE=$IIODEV
EDGEMOTION_VM_HRTIMER=edgemotion-hrt
EDGEMOTION_VM_SYSFS_TRIGGER=sysfstrig7
ENV
cat /mnt/tmp/fixtures.env

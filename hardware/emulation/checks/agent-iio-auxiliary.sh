#!/bin/bash
# End to end in the VM: `edgemotion run` on the kernel's bmi160 with `auxiliary:` reading the
# kernel's bmp280 (pressure, temperature) and tsl2563 (light) drivers on i2c-stub, publishing to
# a mosquitto started here. A subscriber checks `sensor/pressure`, `sensor/temperature`,
# `sensor/light` and `altitude` against the data sheets' worked examples; the stub's pressure is
# then raised and the altitude must fall by what the U.S. Standard Atmosphere gives; a SIGHUP that
# changes the auxiliary rates must keep every `seq` running and the altitude reference.
# Exit 0 pass, 77 skip, else fail. Runs chrooted into the host root (see run-vm-tests).
set -u
BIN=${EDGEMOTION_BIN:?}
PORT=18832
I2CBUS=${EDGEMOTION_VM_I2C_BUS:-0}
command -v mosquitto >/dev/null || { echo "mosquitto not installed"; exit 77; }
[ -e /sys/bus/iio/devices ] && grep -qx bmp280 /sys/bus/iio/devices/iio:device*/name 2>/dev/null \
  || { echo "no bmp280 IIO device in this VM"; exit 77; }
mosquitto -p $PORT >/tmp/aux-broker.log 2>&1 &
broker=$!
sub=""
trap 'kill $broker $sub 2>/dev/null' EXIT
for i in $(seq 1 100); do mosquitto_pub -h 127.0.0.1 -p $PORT -t edgemotion/ping -m 1 2>/dev/null && break; sleep 0.2; done

# The data sheet's worked example (BST-BMP280-DS001 §8.2): adc_P 415148, adc_T 519888.
poke_pressure() {  # ADC_P: 20-bit raw pressure into 0xF7..0xF9
  local a=$1
  i2cset -f -y "$I2CBUS" 0x76 0xF7 $(( a >> 12 )) b
  i2cset -f -y "$I2CBUS" 0x76 0xF8 $(( (a >> 4) & 0xFF )) b
  i2cset -f -y "$I2CBUS" 0x76 0xF9 $(( (a & 0xF) << 4 )) b
}
poke_pressure 415148
i2cset -f -y "$I2CBUS" 0x76 0xFA 0x7E b; i2cset -f -y "$I2CBUS" 0x76 0xFB 0xED b; i2cset -f -y "$I2CBUS" 0x76 0xFC 0x00 b

mosquitto_sub -h 127.0.0.1 -p $PORT -t 'edgemotion/vm/sensor/+' -t 'edgemotion/vm/altitude' -v -W 30 >/tmp/aux-sub.txt 2>/dev/null &
sub=$!
sleep 1
state=$(mktemp -d /tmp/vm-state.XXXXXX)
config=$(mktemp /tmp/vm-aux.XXXXXX.yaml)
write_config() {  # RATE PUBLISH_RATE
  { cat config/iio-vm-bmi160.yaml
    printf 'state_directory: %s\nauxiliary:\n  devices: [bmp280, tsl2563]\n  rate: %s\n  publish_rate: %s\n' "$state" "$1" "$2"
    printf 'streams:\n  accelerometer: {enabled: false}\n  gyroscope: {enabled: false}\n  magnetometer: {enabled: false}\n  motion: {enabled: false}\n'
  } > "$config"
}
write_config 4 2
"$BIN/edgemotion" check-config "$config" || { echo "the check's config is invalid"; exit 1; }
"$BIN/edgemotion" run --config "$config" --broker mqtt://127.0.0.1:$PORT \
  --device-id vm --duration 14 >/tmp/aux-agent.log 2>&1 &
agent=$!
for i in $(seq 1 100); do grep -q 'event=running' /tmp/aux-agent.log && break; sleep 0.1; done
sleep 4
# A higher pressure: adc_P 1600 counts lower (the compensation's sign), the board went down.
poke_pressure $(( 415148 - 1600 ))
sleep 3
write_config 10 10
kill -HUP $agent
sleep 4
wait $agent
rc=$?
sleep 0.5
kill $sub 2>/dev/null
poke_pressure 415148
cat /tmp/aux-agent.log
[ $rc = 0 ] || { echo "edgemotion run exited $rc"; exit 1; }
grep -q 'configuration reloaded.*auxiliary' /tmp/aux-agent.log || { echo "FAIL: the reload did not apply the auxiliary change"; exit 1; }
python3 - /tmp/aux-sub.txt <<'PY'
import json, sys
topics = {}
for line in open(sys.argv[1], encoding="utf-8"):
    topic, _, payload = line.rstrip("\n").partition(" ")
    topics.setdefault(topic.rsplit("/vm/", 1)[1], []).append(json.loads(payload))
def fail(msg):
    print("FAIL:", msg); print("topics:", {t: len(v) for t, v in topics.items()}); sys.exit(1)
for t in ("sensor/pressure", "sensor/temperature", "sensor/light", "altitude"):
    if len(topics.get(t, [])) < 4: fail(f"too few {t} messages")
p, temp, light, alt = (topics[t] for t in ("sensor/pressure", "sensor/temperature", "sensor/light", "altitude"))
print("first pressure:", p[0]); print("first temperature:", temp[0]); print("first light:", light[0])
# Data sheets: BMP280 worked example 100653.27 Pa and 25.08 °C; TSL2563 CH0 1000, CH1 0 → 30.4 lx.
if p[0]["unit"] != "kPa" or abs(p[0]["value"] - 100.65327) > 0.002: fail(f"pressure {p[0]} is not the data sheet's 100.653 kPa")
if temp[0]["unit"] != "°C" or abs(temp[0]["value"] - 25.08) > 0.02: fail(f"temperature {temp[0]} is not 25.08 °C")
if light[0]["unit"] != "lx" or not 29 <= light[0]["value"] <= 31: fail(f"light {light[0]} is not about 30.4 lx")
if alt[0]["relative_altitude_m"] != 0: fail(f"the first altitude is not 0 m: {alt[0]}")
# After the poke: pressure up by dp, altitude down by about dp / 1.196 kPa per 100 m (U.S. Standard
# Atmosphere 1976 near sea level), whatever the code's own formula.
high = [m for m in p if m["value"] > 100.65327 + 0.01 and m["min"] == m["max"]]
if not high: fail("the raised pressure never showed up on sensor/pressure")
dp = high[-1]["value"] - p[0]["value"]
low = [m for m in alt if abs(m["pressure_kpa"] - high[-1]["value"]) < 1e-6]
if not low: fail("no altitude message at the raised pressure")
expected = -dp / 1.196 * 100
print(f"pressure +{dp:.4f} kPa → altitude {low[-1]['relative_altitude_m']} m (standard atmosphere: {expected:.2f} m)")
if abs(low[-1]["relative_altitude_m"] - expected) > 0.05 * abs(expected) + 0.5: fail("altitude does not follow the pressure")
# The reload: seq continues on every topic, the altitude reference stays, messages come faster.
for t, ms in topics.items():
    seqs = [m["seq"] for m in ms]
    if seqs != list(range(seqs[0], seqs[0] + len(seqs))): fail(f"{t}: seq restarted or skipped: {seqs}")
if len({m["reference_kpa"] for m in alt}) != 1: fail("the altitude reference changed: " + str({m["reference_kpa"] for m in alt}))
# 4 Hz reads, 2 Hz messages before (n = 2), 10 Hz and 10 Hz after (n = 1).
if not any(m["n"] == 2 for m in p[:5]) or p[-1]["n"] != 1: fail("reads per message are not rate / publish_rate: " + str([m["n"] for m in p]))
print("ok: pressure, temperature, light and altitude end to end; reload kept seq and reference")
PY

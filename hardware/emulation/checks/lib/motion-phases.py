"""Verdict of a chip-engine VM check: reads a `mosquitto_sub -v` capture of `edgemotion/vm/#`
in which a `…/marker` message separates phase A (the engine's bit clear) from phase B (set),
and requires no `motion` event in A and exactly one, with `source: chip`, in B.

usage: motion-phases.py CAPTURE "LABEL A" "LABEL B" REGISTER BIT
"""
import json
import sys

capture, label_a, label_b, register, bit = sys.argv[1:6]
phase, events = "a", {"a": [], "b": []}
for line in open(capture, encoding="utf-8"):
    topic, _, payload = line.rstrip("\n").partition(" ")
    if topic.endswith("/marker"):
        phase = "b"; continue
    e = json.loads(payload)
    if e.get("type") == "motion": events[phase].append(e)
print(f"phase A ({label_a}) motion events:", events["a"])
print(f"phase B ({label_b}) motion events:", events["b"])
if phase != "b": print("FAIL: the phase marker never arrived"); sys.exit(1)
if events["a"]: print(f"FAIL: motion reported while {register} had no {bit}"); sys.exit(1)
if len(events["b"]) != 1: print(f"FAIL: expected one motion event for one episode of {bit} edges, got {len(events['b'])}"); sys.exit(1)
if events["b"][0].get("source") != "chip": print("FAIL: the motion event does not say source: chip"); sys.exit(1)
print("ok")

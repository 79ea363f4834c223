"""Verdict of a chip-engine VM check with several phases: reads a `mosquitto_sub -v` capture of
`edgemotion/vm/#` in which each `…/marker` message (payload: the phase's name) starts a phase,
and requires, per phase, exactly the expected number of events of each type, every one with
`source: chip`. Events before the first marker belong to phase "a".

usage: event-phases.py CAPTURE PHASE=TYPE:COUNT[,TYPE:COUNT…] …
  e.g. event-phases.py sub.txt a=tap:0,free_fall:0 b=tap:3
"""
import json
import sys

capture, specs = sys.argv[1], sys.argv[2:]
expected = {}
for spec in specs:
    name, _, counts = spec.partition("=")
    expected[name] = {t: int(n) for t, _, n in (c.partition(":") for c in counts.split(","))}
phase, seen = "a", {}
for line in open(capture, encoding="utf-8"):
    topic, _, payload = line.rstrip("\n").partition(" ")
    if topic.endswith("/marker"):
        phase = payload.strip(); continue
    e = json.loads(payload)
    seen.setdefault(phase, []).append(e)
ok = True
for name, counts in expected.items():
    events = seen.get(name, [])
    print(f"phase {name}:", [(e.get("type"), e.get("source")) for e in events])
    for t, n in counts.items():
        of_type = [e for e in events if e.get("type") == t]
        if len(of_type) != n:
            print(f"FAIL: phase {name}: expected {n} {t} event(s), got {len(of_type)}"); ok = False
        if any(e.get("source") != "chip" for e in of_type):
            print(f"FAIL: phase {name}: a {t} event does not say source: chip"); ok = False
missing = [n for n in expected if n != "a" and n not in seen and any(expected[n].values())]
if missing: print("FAIL: no events at all in phase(s)", missing); ok = False
print("ok" if ok else "failed")
sys.exit(0 if ok else 1)

"""A `mosquitto_sub -v` capture of `edgemotion/vm/#` for the agent end-to-end VM checks
(lib/agent-e2e.sh): `read(path)` gives {topic: [payload, ...]} in arrival order; `fail(why, topics)`
prints the verdict with the message count per topic and exits 1."""
import sys


def read(path):
    topics = {}
    for line in open(path, encoding="utf-8"):
        topic, _, payload = line.rstrip("\n").partition(" ")
        topics.setdefault(topic, []).append(payload)
    return topics


def fail(why, topics):
    print("FAIL:", why)
    print("topics:", {t: len(v) for t, v in topics.items()})
    sys.exit(1)

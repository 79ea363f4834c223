"""The activity development recordings and the cross-validation protocols over them.

Shared by scripts/fit-activity-model and scripts/activity-accuracy. Every recording of
../shared/data/activity gets a dataset, a subject and a placement (from the data sets' manifests);
a protocol is a list of folds, each fold a name and the recordings it holds out. A model scored on
a fold is fitted on the other recordings only.
"""
import csv, glob, gzip, os

DATASETS = ["st_har", "driver_behavior", "dsa", "oxford_steps"]
# st_har names no subject and varies the placement per recording (wrist, hand, arm, pocket):
# it is split into this many pseudo-groups by recording (round-robin per class), which is
# optimistic (a person may be in several groups); said so in the report.
ST_HAR_GROUPS = 5


def default_shared():
    for cand in ("../shared", "../../shared"):
        if os.path.isdir(os.path.join(cand, "data", "activity")):
            return cand
    return "../shared"


def open_text(path):
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


def _manifest(path):
    with open(path) as fh:
        return {r["file"]: r for r in csv.DictReader(fh, delimiter="\t")}


def recordings(data):
    """[{id, path, dataset, subject, placement, label}] for every recording, sorted by id."""
    out = []
    dsa = _manifest(os.path.join(data, "dsa", "manifest.tsv")) if os.path.exists(os.path.join(data, "dsa", "manifest.tsv")) else {}
    ox = _manifest(os.path.join(data, "oxford_steps", "manifest.tsv")) if os.path.exists(os.path.join(data, "oxford_steps", "manifest.tsv")) else {}
    files = sorted(glob.glob(os.path.join(data, "**", "*.csv"), recursive=True)
                   + glob.glob(os.path.join(data, "**", "*.csv.gz"), recursive=True))
    st_counter = {}
    for f in files:
        rel = os.path.relpath(f, data)
        rid = rel[:-7] if rel.endswith(".csv.gz") else rel[:-4]
        ds = rel.split("/")[0]
        with open_text(f) as fh:
            header = fh.readline().strip().split(",")
            first = fh.readline().strip().split(",")
        label = first[header.index("label")]
        if ds == "dsa":
            m = dsa[rel[len("dsa/"):]]
            subject, placement = m["subject"], "dsa_" + m["placement"]
        elif ds == "oxford_steps":
            m = ox[rel[len("oxford_steps/"):]]
            subject, placement = m["subject"], "oxford_" + m["placement"].lower()
        elif ds == "driver_behavior":
            subject, placement = first[header.index("subject")], "car_windshield"
        else:
            k = st_counter.get(label, 0)
            st_counter[label] = k + 1
            subject, placement = f"st_har_group{k % ST_HAR_GROUPS}", f"st_har_group{k % ST_HAR_GROUPS}"
        out.append({"id": rid, "path": f, "dataset": ds, "subject": subject, "placement": placement, "label": label})
    return out


def protocols(recs):
    """{protocol: [(fold name, [held-out ids])]} for LOSO, LOPO and LODO."""
    def by(key):
        groups = {}
        for r in recs:
            groups.setdefault(r[key], []).append(r["id"])
        return [(k, v) for k, v in sorted(groups.items())]
    return {"loso": by("subject"), "lopo": by("placement"), "lodo": by("dataset")}

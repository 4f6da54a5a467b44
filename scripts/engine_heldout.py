#!/usr/bin/env python3
"""Checks the layout engine's criteria on a corpus it has never seen.

    python3 gen_engine_oracle.py --seed N --out heldout.jsonl    # ../shared/engine-oracle
    linlayout engine --compare heldout.jsonl --json > total.jsonl
    linlayout engine --compare heldout.jsonl --json --objective conversions > conv.jsonl
    python3 scripts/engine_heldout.py heldout.jsonl total.jsonl conv.jsonl

Prints, per objective, on how many records our cost is below, equal to or above Triton's
pre-pipeline assignment (the total objective on the total, the conversions objective on the
conversions' cost), and exits 1 naming every record where a criterion fails: an error line, an
assignment (ours or Triton's) the checker refused, a Triton conversion count other than the
record's `facts_pre_pipeline.n_convert_layout`, a total above Triton's under the total
objective, or a conversion cost above Triton's under the conversions objective.
"""
import gzip
import json
import sys

EPS = 1e-6


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def tally(rows, key):
    below = sum(r["ours"][key] < r["triton"][key] - EPS for r in rows)
    above = sum(r["ours"][key] > r["triton"][key] + EPS for r in rows)
    return below, len(rows) - below - above, above


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    records = {r["id"]: r for r in load(sys.argv[1])}
    total, conv = load(sys.argv[2]), load(sys.argv[3])
    problems = []
    for name, rows, key in (("total", total, "total"), ("conversions", conv, "cost")):
        if {r["id"] for r in rows} != set(records):
            problems.append(f"{name}: the compare lines are not one per record")
        ok = []
        for r in rows:
            if "error" in r:
                problems.append(f"{name}: {r['id']}: {r['error']}")
                continue
            if not (r["ours"]["checked"] and r["triton"]["checked"]):
                problems.append(f"{name}: {r['id']}: an assignment failed the checker")
            want = records[r["id"]]["facts_pre_pipeline"]["n_convert_layout"]
            if r["triton"]["conversions"] != want:
                problems.append(
                    f"{name}: {r['id']}: Triton's conversions {r['triton']['conversions']}, "
                    f"the record says {want}"
                )
            if r["ours"][key] > r["triton"][key] + EPS:
                problems.append(
                    f"{name}: {r['id']}: ours {r['ours'][key]} above Triton's {r['triton'][key]}"
                )
            ok.append(r)
        below, equal, above = tally(ok, key)
        ours = sum(r["ours"][key] for r in ok)
        theirs = sum(r["triton"][key] for r in ok)
        print(
            f"{name} objective, {key}: {len(ok)} records; below Triton {below}, equal {equal}, "
            f"above {above}; summed ours {ours:.1f}, Triton {theirs:.1f}"
        )
    for p in problems:
        print(p, file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()

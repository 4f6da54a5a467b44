#!/usr/bin/env python3
"""The per-record table of BENCHMARKS.md's engine section, from the engine's own output.

    linlayout engine --compare crates/layout-engine/tests/data/sample.jsonl.gz --json > cmp.jsonl
    linlayout engine --compare crates/layout-engine/tests/data/sample.jsonl.gz --json --objective conversions > conv.jsonl
    python3 scripts/engine_table.py cmp.jsonl [scripts/engine_reasons.tsv] [--conversions conv.jsonl]

Prints one markdown row per record: Triton's conversions (moving ones in brackets), their cost,
and the same for ours, then the other terms of the total (reductions, gathers and, where the
engine reports it, compute) and both totals, and why they differ. A record whose costs differ
must have a reason in the TSV (`id<TAB>why`), or the script exits 1 naming it: the table cannot
call two different assignments the same. With `--conversions`, one more column: ours under
`--objective conversions` (conversions, their cost, total), and a line saying on how many records
its conversions are below, equal to or above Triton's.
"""
import json
import sys


def fmt(x):
    return f"{x:.1f}"


def main():
    args = sys.argv[1:]
    conv = None
    if "--conversions" in args:
        k = args.index("--conversions")
        if k + 1 >= len(args):
            sys.exit(__doc__)
        conv = {j["id"]: j for j in map(json.loads, open(args[k + 1], encoding="utf-8"))}
        del args[k:k + 2]
    if len(args) not in (1, 2):
        sys.exit(__doc__)
    reasons_path = args[1] if len(args) == 2 else "scripts/engine_reasons.tsv"
    conv_count = [0, 0, 0]
    reasons = {}
    for line in open(reasons_path, encoding="utf-8"):
        if line.strip() and not line.startswith("#"):
            rid, why = line.rstrip("\n").split("\t", 1)
            reasons[rid] = why
    rows, missing, unused = [], [], set(reasons)
    tot = {"t": 0.0, "o": 0.0, "tc": 0.0, "oc": 0.0, "tn": 0, "on": 0, "tm": 0}
    lower = equal = higher = 0
    for line in open(args[0], encoding="utf-8"):
        r = json.loads(line)
        rid = r["id"]
        if "error" in r:
            rows.append(f"| `{rid}` | error: {r['error']} | | | | | | |")
            continue
        t, o = r["triton"], r["ours"]
        other = lambda s: s.get("reduction_cost", 0.0) + s.get("gather_cost", 0.0) + s.get("compute_cost", 0.0)
        differ = abs(t["total"] - o["total"]) > 1e-9 or abs(t["cost"] - o["cost"]) > 1e-9
        if differ:
            why = reasons.get(rid)
            if why is None:
                missing.append(rid)
                why = "?"
        else:
            why = reasons.get(rid, "equal cost")
        unused.discard(rid)
        if o["total"] < t["total"] - 1e-9:
            lower += 1
        elif o["total"] > t["total"] + 1e-9:
            higher += 1
        else:
            equal += 1
        for k, s in (("t", t), ("o", o)):
            tot[k] += s["total"]
            tot[k + "c"] += s["cost"]
            tot[k + "n"] += s["conversions"]
        tot["tm"] += t.get("nontrivial", t["conversions"])
        extra = ""
        if conv is not None:
            c = conv.get(rid, {}).get("ours")
            if c is None:
                sys.exit(f"{rid}: not in the --conversions file")
            conv_count[(c["cost"] > t["cost"] + 1e-9) - (c["cost"] < t["cost"] - 1e-9) + 1] += 1
            extra = f" {c['conversions']}, {fmt(c['cost'])}, {fmt(c['total'])} |"
        rows.append(
            f"| `{rid}` | {t['conversions']} ({t.get('nontrivial', t['conversions'])}) | {fmt(t['cost'])} | "
            f"{fmt(other(t))} | **{fmt(t['total'])}** | {o['conversions']} | {fmt(o['cost'])} | "
            f"{fmt(other(o))} | **{fmt(o['total'])}** |{extra} {why} |"
        )
    head = ("| record | Triton: conversions (moving) | Triton: their cost | Triton: other terms | "
            "Triton: total | ours: conversions | ours: their cost | ours: other terms | ours: total |")
    if conv is not None:
        head += " ours, `--objective conversions`: conversions, their cost, total |"
    print(head + " why they differ |")
    print("|---" * (head.count("|")) + "|")
    print("\n".join(rows))
    print()
    print(f"Totals: Triton {tot['tn']} conversions ({tot['tm']} moving), conversion cost {fmt(tot['tc'])}, "
          f"total {fmt(tot['t'])}; ours {tot['on']} conversions, conversion cost {fmt(tot['oc'])}, "
          f"total {fmt(tot['o'])}; ours lower on {lower} records, equal on {equal}, higher on {higher}.")
    if conv is not None:
        print()
        print(f"With `--objective conversions`, our conversions' cost is below Triton's on {conv_count[0]} "
              f"records, equal on {conv_count[1]}, above on {conv_count[2]}.")
    if unused:
        print(f"reasons for records not in the file: {sorted(unused)}", file=sys.stderr)
    if missing:
        print(f"records that differ without a reason: {missing}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()

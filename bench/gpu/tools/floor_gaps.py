#!/usr/bin/env python3
"""How far the planner's plan of every suite pair is from its floor.

For each [[conversion]] and [[partial]] of bench/gpu/cases.toml, runs
`linlayout convert --best --json` (layouts resolved through [layouts]) and
prints name, plan kind, plan cycles, floor cycles and their ratio
(`best.above_bound`), largest ratio first; `--over R` keeps the rows above
R (issue #20's item 7 asks for 1.1). Needs a built CLI:
`cargo build --release -p linlayout`.

    python3 bench/gpu/tools/floor_gaps.py --over 1.1
"""
import argparse
import json
import subprocess
import sys
import tomllib


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="bench/gpu/cases.toml")
    ap.add_argument("--cli", default="target/release/linlayout")
    ap.add_argument("--over", type=float, default=0.0)
    a = ap.parse_args()
    with open(a.cases, "rb") as f:
        cases = tomllib.load(f)
    layouts = cases.get("layouts", {})
    rows = []
    for kind in ("conversion", "partial"):
        for e in cases.get(kind, []):
            src = layouts.get(e["src"], e["src"])
            dst = layouts.get(e["dst"], e["dst"])
            shape = "x".join(str(x) for x in e["shape"])
            r = subprocess.run(
                [a.cli, "convert", "--best", "--json", "--shape", shape,
                 "--dtype", e["dtype"], src, dst],
                capture_output=True, text=True)
            if r.returncode:
                print(f"{e['name']}: {r.stderr.strip()}", file=sys.stderr)
                return 1
            b = json.loads(r.stdout)["best"]
            rows.append((e["name"], b["kind"], b["cost"],
                         b["lower_bound"]["cycles"], b["above_bound"]))
    rows.sort(key=lambda x: -x[4])
    for name, kind, cost, floor, ratio in rows:
        if ratio > a.over:
            print(f"{name}\t{kind}\t{cost:g}\t{floor:g}\t{ratio:.3f}")
    print(f"{sum(1 for r in rows if r[4] > a.over)} of {len(rows)} above {a.over}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

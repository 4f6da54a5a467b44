#!/usr/bin/env python3
"""Tables from `run.py`'s results: `python3 bench/engine-gpu/report.py RESULTS.jsonl`.

Per case: the model's totals (conversions + reductions, loop-weighted) of
Triton's assignment and ours, the measured µs per launch of both (and of
Triton's whole pipeline), Triton / ours, and the output checks. Summary:
geometric means of Triton / ours over the cases whose outputs agree, split
by whether the model's costs differ, and the spread of the same kernel
timed twice.
"""
import json
import math
import sys


def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main(path):
    rows, ratios, spread, skipped = [], {True: [], False: []}, [], []
    for line in open(path):
        r = json.loads(line)
        if "us" not in r:
            why = r.get("error") or r.get("compile_error")
            skipped.append((r["dir"], r["id"], str(why).splitlines()[0][:90]))
            continue
        us = r["us"]
        ck = r["check"]
        ok = ck.get("ours~triton_pre", {}).get("ok") or ck.get("ours~triton_full", {}).get("ok")
        harness = ck.get("triton_full~triton_pre", {}).get("ok")
        m = r["model"]
        ratio = us["triton_pre"] / us["ours"]
        spread.append(max(us["triton_pre"], us["triton_pre_again"])
                      / min(us["triton_pre"], us["triton_pre_again"]))
        if ok:
            ratios[r["differs"]].append(ratio)
        rows.append((r["dir"], r["id"], m["triton"]["total"], m["ours"]["total"],
                     us["triton_pre"], us["ours"], ratio, us.get("triton_full"),
                     "yes" if ok else "NO", "yes" if harness else "no"))
    print("| case | record | model: Triton | model: ours | Triton µs | ours µs | Triton / ours"
          " | Triton whole pipeline µs | ours agrees | Triton's two agree |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for d, i, mt, mo, ut, uo, ra, uf, ok, h in rows:
        uf = f"{uf:.1f}" if uf else "n/a"
        print(f"| {d} | `{i}` | {mt:.0f} | {mo:.0f} | {ut:.1f} | {uo:.1f} | {ra:.3f} | {uf} | {ok} | {h} |")
    print()
    for differs, xs in ratios.items():
        label = "model costs differ" if differs else "model costs equal (controls)"
        if xs:
            print(f"- {label}: {len(xs)} cases with agreeing outputs, Triton / ours geomean "
                  f"{gmean(xs):.3f}, min {min(xs):.3f}, max {max(xs):.3f}")
    print(f"- the same Triton kernel timed twice: largest ratio {max(spread):.3f}, "
          f"median {sorted(spread)[len(spread) // 2]:.3f}")
    if skipped:
        print(f"- not run ({len(skipped)}):")
        for d, i, why in skipped:
            print(f"  - {d} `{i}`: {why}")


if __name__ == "__main__":
    main(sys.argv[1])

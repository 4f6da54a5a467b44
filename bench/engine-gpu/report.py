#!/usr/bin/env python3
"""Tables from `run.py`'s results: `python3 bench/engine-gpu/report.py RESULTS.jsonl`.

`report.py --versus A.jsonl B.jsonl`: two runs of our engine (e.g. two
objectives, `export.py --objective`) on the same cases, each against
Triton's kernel timed in its own run: per case Triton / ours in A and in
B, and A's speed over B's (Triton / ours in A divided by that in B, so
that the drift between the runs cancels).

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
                     "yes" if ok else "NO",
                     "n/a" if harness is None else "yes" if harness else "no"))
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


def versus(path_a, path_b):
    load = lambda p: {r["dir"]: r for r in map(json.loads, open(p)) if "us" in r}
    a, b = load(path_a), load(path_b)
    print(f"| case | record | model A: conv / total | model B: conv / total | Triton / A"
          f" | Triton / B | A over B | A, B agree with Triton |")
    print("|---|---|---|---|---|---|---|---|")
    ra, rb, rab = [], [], []
    for d in sorted(set(a) & set(b)):
        x, y = a[d], b[d]
        ta = x["us"]["triton_pre"] / x["us"]["ours"]
        tb = y["us"]["triton_pre"] / y["us"]["ours"]
        ok = all(r["check"].get("ours~triton_pre", {}).get("ok") for r in (x, y))
        ma, mb = x["model"]["ours"], y["model"]["ours"]
        print(f"| {d} | `{x['id']}` | {ma['cost']:.0f} / {ma['total']:.0f} | {mb['cost']:.0f} / "
              f"{mb['total']:.0f} | {ta:.3f} | {tb:.3f} | {ta / tb:.3f} | {'yes' if ok else 'NO'} |")
        if ok:
            ra.append(ta), rb.append(tb), rab.append(ta / tb)
    print()
    print(f"- {len(rab)} cases whose outputs agree: Triton / A geomean {gmean(ra):.3f} (min "
          f"{min(ra):.3f}), Triton / B geomean {gmean(rb):.3f} (min {min(rb):.3f}); A over B "
          f"geomean {gmean(rab):.3f}, min {min(rab):.3f}, max {max(rab):.3f}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--versus"]:
        versus(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv[1])

#!/usr/bin/env python3
"""Per-call time of building the linear layout of each oracle sample case:
ours (`linear_layouts.from_mlir`, Rust) against Triton 3.9's
`GluonOpBuilder.to_linear_layout` (C++ through gluon_ir, CPU only), in the
same process. Not a test: prints a table and the median ratio.

    python3 bench/python/bench_vs_triton.py [--oracle tests/data/triton-oracle/sample-layouts.jsonl]
                                            [--min-time 0.002] [--repeat 5] [--cold] [--json out.json]

Cases: every record for which Triton has a `to_linear_layout` (generic_linear
aborts in Triton and padded_shared has none; those are left out), and for
which ours succeeds. Each side is timed with `timeit` on the same inputs:

* ours / text:   from_mlir(record["mlir"], shape)         memo hit (as Triton's cache) + wrap
* ours / text, no cache: from_mlir(..., cache=False)     parse + build + wrap, every call
* ours / gluon:  from_gluon(gluon_object, shape)          Python text building + the above
* triton / attr: b.to_linear_layout(attr, shape)          attribute prebuilt
* triton / gluon: b.to_linear_layout(obj._to_ir(b), shape) Gluon object → attribute → layout

`--cold`: cache misses on both sides. Each case is scaled to up to 36
distinct shapes (each dim times 2^i, at most 2^20 elements), each shape
converted once by Triton (so never from its cache) and by ours with
`cache=False`; the ratio is of the totals. Triton aborts the process on
some inputs, so this mode runs in a child process that is restarted past a
case that kills it (such cases are counted as skipped).

Triton keeps a per-context cache of linear layouts keyed by (attribute,
shape), so after the first call its figures are cache hits plus the
conversion of the result to Python objects. `from_mlir` memoises the same
way by default; the "no cache" column rebuilds from the text on every call.
"""

import argparse
import json
import os
import pathlib
import platform
import statistics
import sys
import timeit

ROOT = pathlib.Path(__file__).resolve().parents[2]


def per_call(fn, min_time, repeat):
    """Best-of-`repeat` seconds per call, each repeat running at least `min_time`."""
    n = 1
    while True:
        t = timeit.timeit(fn, number=n)
        if t >= min_time:
            break
        n *= 4 if t < min_time / 8 else 2
    times = [t / n] + [timeit.timeit(fn, number=n) / n for _ in range(repeat - 1)]
    return min(times)


def scaled_shapes(shape, limit_log2=20, per_dim=6):
    """Distinct shapes: every dim multiplied by 2^i, i < per_dim, total ≤ 2^limit_log2 (at most 36)."""
    import itertools

    out = []
    for exps in itertools.product(range(per_dim), repeat=len(shape)):
        s = [d << e for d, e in zip(shape, exps)]
        total = 1
        for d in s:
            total *= d
        if total <= 1 << limit_log2:
            out.append(s)
    return out[:36]


def setup(oracle):
    """Triton's builder and the (record, Gluon object) cases both sides handle."""
    import linear_layouts as ll
    import triton
    from triton._C.libtriton import gluon_ir, ir
    import triton.experimental.gluon.language as ttgl
    from triton.experimental.gluon.language.amd import AMDMFMALayout, AMDWMMALayout
    from triton.experimental.gluon.language.amd.cdna5 import PartitionedSharedLayout
    from triton.experimental.gluon.language.nvidia.blackwell import TensorMemoryLayout, TensorMemoryScalesLayout
    from triton.experimental.gluon.language.nvidia.rubin import TensorMemoryScalesLayout as RubinScales

    ctx = ir.context()
    ir.load_dialects(ctx)
    b = gluon_ir.GluonOpBuilder(ctx)
    classes = {
        "BlockedLayout": ttgl.BlockedLayout, "SliceLayout": ttgl.SliceLayout,
        "DotOperandLayout": ttgl.DotOperandLayout, "NVMMADistributedLayout": ttgl.NVMMADistributedLayout,
        "DistributedLinearLayout": ttgl.DistributedLinearLayout, "AMDMFMALayout": AMDMFMALayout,
        "AMDWMMALayout": AMDWMMALayout, "NVMMASharedLayout": ttgl.NVMMASharedLayout,
        "SwizzledSharedLayout": ttgl.SwizzledSharedLayout, "PaddedSharedLayout": ttgl.PaddedSharedLayout,
        "SharedLinearLayout": ttgl.SharedLinearLayout, "PartitionedSharedLayout": PartitionedSharedLayout,
        "TensorMemoryLayout": TensorMemoryLayout, "TensorMemoryScalesLayout": TensorMemoryScalesLayout,
    }
    cases, skipped = [], {}
    for line in open(oracle):
        if not line.strip():
            continue
        rec = json.loads(line)
        if rec["attr"] in ("ttg.generic_linear", "ttg.padded_shared") or "padded_shared" in rec["mlir"]:
            skipped["no Triton to_linear_layout"] = skipped.get("no Triton to_linear_layout", 0) + 1
            continue
        ns = dict(classes)
        if rec["params"].get("cls") == "RubinTensorMemoryScalesLayout":
            ns["TensorMemoryScalesLayout"] = RubinScales
        obj = eval(rec["gluon"], {"__builtins__": {}, "True": True, "False": False, **ns})
        try:
            ll.from_mlir(rec["mlir"], rec["shape"])
            ll.from_gluon(obj, rec["shape"])
        except ll.LayoutError as e:
            key = "ours failed: " + str(e)[:60]
            skipped[key] = skipped.get(key, 0) + 1
            continue
        cases.append((rec, obj))
    # ctx must outlive the builder (Triton segfaults otherwise)
    return {"ll": ll, "b": b, "ctx": ctx, "cases": cases, "skipped": skipped, "triton": triton}


def warm(args):
    env = setup(args.oracle)
    ll, b = env["ll"], env["b"]
    rows = []
    for rec, obj in env["cases"]:
        shape, text = list(rec["shape"]), rec["mlir"]
        attr = obj._to_ir(b)
        b.to_linear_layout(attr, shape)
        t = lambda f: per_call(f, args.min_time, args.repeat)  # noqa: E731
        rows.append({
            "id": rec["id"],
            "kind": rec["kind"],
            "ours_text": t(lambda: ll.from_mlir(text, shape)),
            "ours_nocache": t(lambda: ll.from_mlir(text, shape, cache=False)),
            "ours_gluon": t(lambda: ll.from_gluon(obj, shape)),
            "triton_attr": t(lambda: b.to_linear_layout(attr, shape)),
            "triton_gluon": t(lambda: b.to_linear_layout(obj._to_ir(b), shape)),
        })
    return env, rows


def cold_child(args, start):
    """Child process: cold timings from case `start` on, one JSON line per case
    (an `@start i` line before each, so the parent knows which case killed it)."""
    env = setup(args.oracle)
    ll, b = env["ll"], env["b"]
    for i, (rec, obj) in enumerate(env["cases"]):
        if i < start:
            continue
        print(f"@start {i}", flush=True)
        text, shapes = rec["mlir"], scaled_shapes(list(rec["shape"]))
        attr = obj._to_ir(b)
        t0 = timeit.default_timer()
        for s in shapes:
            b.to_linear_layout(attr, s)
        triton_t = timeit.default_timer() - t0
        ours_t, failed = float("inf"), 0
        for _ in range(3):
            failed = 0
            t0 = timeit.default_timer()
            for s in shapes:
                try:
                    ll.from_mlir(text, s, cache=False)
                except ll.LayoutError:
                    failed += 1
            ours_t = min(ours_t, timeit.default_timer() - t0)
        print(json.dumps({"i": i, "id": rec["id"], "kind": rec["kind"], "n": len(shapes), "ours_failed": failed,
                          "triton_cold": triton_t / len(shapes), "ours_cold": ours_t / len(shapes)}), flush=True)


def cold(args):
    import subprocess

    rows, crashed, start = [], [], 0
    while True:
        cmd = [sys.executable, __file__, "--oracle", args.oracle, "--cold-child", str(start)]
        p = subprocess.run(cmd, capture_output=True, text=True)
        last = None
        for line in p.stdout.splitlines():
            if line.startswith("@start "):
                last = int(line.split()[1])
            elif line.startswith("{"):
                rows.append(json.loads(line))
                last = None
        if p.returncode == 0:
            break
        if last is None:
            sys.exit(f"cold child failed outside a case (rc {p.returncode}):\n{p.stderr[-2000:]}")
        crashed.append(last)
        start = last + 1
    return rows, crashed


def table(rows, cols):
    """Per kind: median microseconds of each timed column and the median per-case ratio of each (num, den) pair."""
    kinds = sorted({r["kind"] for r in rows})
    head = f"| kind | n | " + " | ".join(c if isinstance(c, str) else f"{c[0]} / {c[1]}" for c in cols) + " |"
    lines = [head, "|" + "---|" * (len(cols) + 2)]
    for k in kinds + ["ALL"]:
        rs = [r for r in rows if k in ("ALL", r["kind"])]
        cells = []
        for c in cols:
            if isinstance(c, str):
                cells.append(f"{statistics.median(r[c] for r in rs) * 1e6:.2f} µs")
            else:
                cells.append(f"{statistics.median(r[c[0]] / r[c[1]] for r in rs):.1f}×")
        lines.append(f"| {'**all**' if k == 'ALL' else k} | {len(rs)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--oracle", default=str(ROOT / "tests/data/triton-oracle/sample-layouts.jsonl"))
    ap.add_argument("--min-time", type=float, default=0.002)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cold", action="store_true", help="also time cache misses (see the module docstring)")
    ap.add_argument("--cold-child", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--json", help="write per-case figures here")
    args = ap.parse_args()
    if args.cold_child is not None:
        cold_child(args, args.cold_child)
        return 0

    env, rows = warm(args)
    print(f"python {platform.python_version()}, triton {env['triton'].__version__}, {platform.machine()}, "
          f"{os.cpu_count()} CPUs; {len(rows)} cases; left out: {env['skipped']}\n")
    print("Warm (both sides cached: Triton's per-context cache, our from_mlir memo):\n")
    print(table(rows, ["ours_text", "triton_attr", ("triton_attr", "ours_text"),
                       "ours_nocache", ("triton_attr", "ours_nocache"),
                       "ours_gluon", "triton_gluon", ("triton_gluon", "ours_gluon")]))
    med = lambda a, b_: statistics.median(r[a] / r[b_] for r in rows)  # noqa: E731
    out = {"rows": rows, "skipped": env["skipped"],
           "median_ratio_text": med("triton_attr", "ours_text"),
           "median_ratio_text_nocache": med("triton_attr", "ours_nocache"),
           "median_ratio_gluon": med("triton_gluon", "ours_gluon")}
    print(f"\nmedian per-case ratio Triton / ours: text {out['median_ratio_text']:.1f}× "
          f"(ours uncached {out['median_ratio_text_nocache']:.1f}×), Gluon objects {out['median_ratio_gluon']:.1f}×")
    if args.cold:
        crows, crashed = cold(args)
        print(f"\nCold (cache misses on both sides; {len(crows)} cases, Triton aborted on {len(crashed)}):\n")
        print(table(crows, ["ours_cold", "triton_cold", ("triton_cold", "ours_cold")]))
        out["cold_rows"], out["cold_crashed"] = crows, crashed
        out["median_ratio_cold"] = statistics.median(r["triton_cold"] / r["ours_cold"] for r in crows)
        print(f"\nmedian per-case ratio Triton / ours, cold: {out['median_ratio_cold']:.1f}×")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Triton/Gluon baseline for the conversion benchmark (same kernel as ours).

Each program loads one M x N tile (row-major in global memory) in layout SRC,
then R times: y = convert_layout(x, DST) + 1; x = convert_layout(y, SRC) + 1,
then stores x. Cost per conversion = (t(R) - t(0)) / (2R).

Usage: python3 triton_baseline.py cases.json [--compile-only] [--out results.json]
`--compile-only` compiles for sm_90 without a GPU and reports the PTX
instruction counts (shfl.sync, st.shared, ld.shared, stmatrix, ldmatrix, bar.sync).
"""
import argparse
import json
import re
import sys

import triton
from triton.experimental import gluon
import triton.experimental.gluon.language as gl

DTYPES = {8: gl.int8, 16: gl.int16, 32: gl.int32, 64: gl.int64}


@gluon.jit
def cvt_bench(in_ptr, out_ptr, R, M: gl.constexpr, N: gl.constexpr,
              SRC: gl.constexpr, DST: gl.constexpr, IDX: gl.constexpr):
    pid = gl.program_id(0)
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, IDX))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, IDX))
    offs = gl.expand_dims(rows, 1) * N + gl.expand_dims(cols, 0)
    offs = gl.convert_layout(offs, SRC)
    base = pid * (M * N)
    x = gl.load(in_ptr + base + offs)
    for _ in range(R):
        y = gl.convert_layout(x, DST)
        y = y + 1
        x = gl.convert_layout(y, SRC)
        x = x + 1
    gl.store(out_ptr + base + offs, x)


def linear_layout(bases, shape):
    return gl.DistributedLinearLayout(
        reg_bases=bases["register"], lane_bases=bases["lane"],
        warp_bases=bases["warp"], block_bases=bases.get("block", []), shape=shape)


def idx_layout(num_warps, shape):
    # any valid blocked layout for the index computation
    return gl.BlockedLayout([1, 1], [1, 32], [num_warps, 1], [1, 0])


def count_ptx(ptx):
    keys = ["shfl.sync", "st.shared", "ld.shared", "stmatrix", "ldmatrix", "bar.sync", "prmt"]
    return {k: len(re.findall(re.escape(k), ptx)) for k in keys}


def compile_case(case):
    from triton.backends.compiler import GPUTarget
    M, N = case["shape"]
    nw = case["num_warps"]
    src = linear_layout(case["src"], [M, N])
    dst = linear_layout(case["dst"], [M, N])
    dt = DTYPES[case["bits"]]
    sig = {"in_ptr": f"*{_tyname(case['bits'])}", "out_ptr": f"*{_tyname(case['bits'])}", "R": "i32",
           "M": "constexpr", "N": "constexpr", "SRC": "constexpr", "DST": "constexpr", "IDX": "constexpr"}
    consts = {"M": M, "N": N, "SRC": src, "DST": dst, "IDX": idx_layout(nw, [M, N])}
    from triton.experimental.gluon._runtime import GluonASTSource
    srcobj = GluonASTSource(fn=cvt_bench, signature=sig, constexprs=consts)
    k = triton.compile(srcobj, target=GPUTarget("cuda", 90, 32), options={"num_warps": nw})
    return k, dt


def _tyname(bits):
    return {8: "i8", 16: "i16", 32: "i32", 64: "i64"}[bits]


def run_case(case, reps):
    import torch
    from triton.testing import do_bench
    M, N = case["shape"]
    nw = case["num_warps"]
    tiles = case["tiles"]
    tdt = {8: torch.int8, 16: torch.int16, 32: torch.int32, 64: torch.int64}[case["bits"]]
    src = linear_layout(case["src"], [M, N])
    dst = linear_layout(case["dst"], [M, N])
    idx = idx_layout(nw, [M, N])
    x = torch.randint(1, 100, (tiles * M * N,), device="cuda", dtype=tdt)
    out = torch.full_like(x, -1)
    R = case["R"]
    cvt_bench[(tiles,)](x, out, R, M, N, src, dst, idx, num_warps=nw)
    torch.cuda.synchronize()
    ok = bool(torch.equal(out, (x.to(torch.int64) + 2 * R).to(tdt)))
    t0 = do_bench(lambda: cvt_bench[(tiles,)](x, out, 0, M, N, src, dst, idx, num_warps=nw), warmup=25, rep=reps, return_mode="median")
    tr = do_bench(lambda: cvt_bench[(tiles,)](x, out, R, M, N, src, dst, idx, num_warps=nw), warmup=25, rep=reps, return_mode="median")
    k = cvt_bench.warmup(x, out, R, M, N, src, dst, idx, num_warps=nw, grid=(tiles,))
    counts = count_ptx(k.asm["ptx"])
    return {"case": case["name"], "ok": ok, "t0_ms": t0, "tR_ms": tr, "R": R,
            "per_cvt_us": (tr - t0) * 1e3 / (2 * R), "ptx": counts}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cases")
    ap.add_argument("--compile-only", action="store_true")
    ap.add_argument("--out")
    ap.add_argument("--rep", type=int, default=200)
    ap.add_argument("--R", type=int, help="iterations per kernel (default: each case's R)")
    ap.add_argument("--only", help="comma-separated case names to run (default: all)")
    a = ap.parse_args()
    cases = json.load(open(a.cases))
    if a.R is not None:
        for c in cases:
            c["R"] = a.R
    if a.only:
        keep = set(a.only.split(","))
        cases = [c for c in cases if c["name"] in keep or c.get("base") in keep]
    results = []
    for c in cases:
        if c.get("kind") == "gather":
            continue
        try:
            if a.compile_only:
                k, _ = compile_case(c)
                r = {"case": c["name"], "ptx": count_ptx(k.asm["ptx"])}
            else:
                r = run_case(c, a.rep)
        except Exception as e:  # report and continue
            r = {"case": c["name"], "error": f"{type(e).__name__}: {str(e)[:300]}"}
        print(json.dumps(r), flush=True)
        results.append(r)
    if a.out:
        json.dump(results, open(a.out, "w"), indent=1)


if __name__ == "__main__":
    sys.exit(main())

"""Triton/Gluon baseline for the gather benchmark (the paper's Figure 6).

Same kernel as ours (crates/layout-cuda/src/gather.rs): each program loads
one M x N source tile and one M x N int32 index tile (row-major in global
memory) in the case's distributed layout L, then R times:
y = gl.gather(x, idx, AXIS); x = y + 1, then stores x.
Cost per gather = (t(R) - t(0)) / R.

One result per gather case pair (keyed by the case's `base` name; the
`_shfl`/`_smem` variants are ours). Triton picks its own lowering: the
PTX instruction counts say which (shfl.sync: warp shuffles; st/ld.shared:
shared memory).

Usage: python3 triton_gather_baseline.py cases.json [--compile-only] [--out results.json]
`--compile-only` compiles for sm_90 (GPUTarget("cuda", 90, 32)) without a GPU.
"""
import argparse
import json
import re
import sys

import triton
from triton.experimental import gluon
import triton.experimental.gluon.language as gl


@gluon.jit
def gather_bench(in_ptr, idx_ptr, out_ptr, R, M: gl.constexpr, N: gl.constexpr,
                 L: gl.constexpr, AXIS: gl.constexpr, IDX: gl.constexpr):
    pid = gl.program_id(0)
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, IDX))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, IDX))
    offs = gl.expand_dims(rows, 1) * N + gl.expand_dims(cols, 0)
    offs = gl.convert_layout(offs, L)
    base = pid * (M * N)
    x = gl.load(in_ptr + base + offs)
    ix = gl.load(idx_ptr + base + offs)
    for _ in range(R):
        y = gl.gather(x, ix, AXIS)
        x = y + 1
    gl.store(out_ptr + base + offs, x)


def linear_layout(bases, shape):
    return gl.DistributedLinearLayout(
        reg_bases=bases["register"], lane_bases=bases["lane"],
        warp_bases=bases["warp"], block_bases=bases.get("block", []), shape=shape)


def idx_layout(num_warps):
    # any valid blocked layout for the offset computation
    return gl.BlockedLayout([1, 1], [1, 32], [num_warps, 1], [1, 0])


def count_ptx(ptx):
    keys = ["shfl.sync", "st.shared", "ld.shared", "bar.sync", "selp"]
    return {k: len(re.findall(re.escape(k), ptx)) for k in keys}


def _tyname(bits):
    return {8: "i8", 16: "i16", 32: "i32"}[bits]


def compile_case(case):
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource
    M, N = case["shape"]
    nw = case["num_warps"]
    sig = {"in_ptr": f"*{_tyname(case['bits'])}", "idx_ptr": "*i32",
           "out_ptr": f"*{_tyname(case['bits'])}", "R": "i32",
           "M": "constexpr", "N": "constexpr", "L": "constexpr", "AXIS": "constexpr", "IDX": "constexpr"}
    consts = {"M": M, "N": N, "L": linear_layout(case["layout"], [M, N]), "AXIS": case["axis"],
              "IDX": idx_layout(nw)}
    srcobj = GluonASTSource(fn=gather_bench, signature=sig, constexprs=consts)
    return triton.compile(srcobj, target=GPUTarget("cuda", 90, 32), options={"num_warps": nw})


def run_case(case, reps):
    import torch
    from triton.testing import do_bench
    M, N = case["shape"]
    nw = case["num_warps"]
    tiles = case["tiles"]
    axis = case["axis"]
    tdt = {8: torch.int8, 16: torch.int16, 32: torch.int32}[case["bits"]]
    L = linear_layout(case["layout"], [M, N])
    idx_l = idx_layout(nw)
    x = torch.randint(1, 100, (tiles * M * N,), device="cuda", dtype=tdt)
    ix = torch.randint(0, case["shape"][axis], (tiles * M * N,), device="cuda", dtype=torch.int32)
    out = torch.full_like(x, -1)
    R = case["R"]
    args = (M, N, L, axis, idx_l)
    gather_bench[(tiles,)](x, ix, out, R, *args, num_warps=nw)
    torch.cuda.synchronize()
    # Reference: R times x = gather(x, idx, axis) + 1, tile by tile.
    ref = x.view(tiles, M, N).to(torch.int64)
    ixl = ix.view(tiles, M, N).to(torch.int64)
    for _ in range(R):
        ref = torch.gather(ref, axis + 1, ixl) + 1
    ok = bool(torch.equal(out.view(tiles, M, N), ref.to(tdt)))
    t0 = do_bench(lambda: gather_bench[(tiles,)](x, ix, out, 0, *args, num_warps=nw),
                  warmup=25, rep=reps, return_mode="median")
    tr = do_bench(lambda: gather_bench[(tiles,)](x, ix, out, R, *args, num_warps=nw),
                  warmup=25, rep=reps, return_mode="median")
    k = gather_bench.warmup(x, ix, out, R, *args, num_warps=nw, grid=(tiles,))
    return {"case": case["base"], "ok": ok, "t0_ms": t0, "tR_ms": tr, "R": R,
            "per_gather_us": (tr - t0) * 1e3 / R, "ptx": count_ptx(k.asm["ptx"])}


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
    seen = set()
    for c in cases:
        if c.get("kind") != "gather" or c["base"] in seen:
            continue
        seen.add(c["base"])
        try:
            if a.compile_only:
                k = compile_case(c)
                r = {"case": c["base"], "ptx": count_ptx(k.asm["ptx"])}
            else:
                r = run_case(c, a.rep)
        except Exception as e:  # report and continue
            r = {"case": c["base"], "error": f"{type(e).__name__}: {str(e)[:300]}"}
        print(json.dumps(r), flush=True)
        results.append(r)
    if a.out:
        json.dump(results, open(a.out, "w"), indent=1)


if __name__ == "__main__":
    sys.exit(main())

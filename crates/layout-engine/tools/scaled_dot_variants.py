#!/usr/bin/env python3
"""Triton 3.9's decomposed dot for `tl.dot_scaled` kernels of every element
kind it compiles (the engine-oracle corpora hold only `bf16 x e2m1`).

For each variant (lhs and rhs kinds, which side is scaled, target, warps,
tile), compile a small kernel (a loop of `tl.dot_scaled` into an fp32
accumulator) with Triton 3.9 on a CPU and print one JSON line: the variant,
its TTIR as Triton prints it, and the type signature of the dot Triton's
TTGIR computes it with (`tt.dot` or `ttng.warp_group_dot`, after its
`: `), its layout aliases resolved. `tests/scaled_dot_variants.rs` runs
the engine on each TTIR and compares the dot it prints.

    pip install triton==3.9.0
    python tools/scaled_dot_variants.py > tests/data/scaled_dot_variants.ndjson
"""
import json
import os
import re
import sys

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402

# (lhs, rhs, lhs scaled, rhs scaled, target, warps, BM, BN, BK)
VARIANTS = [
    ("bf16", "e2m1", 0, 1, "sm80", 4, 128, 64, 64),
    ("bf16", "e2m1", 0, 1, "sm90", 8, 128, 128, 128),
    ("e2m1", "bf16", 1, 0, "sm80", 4, 128, 64, 64),
    ("e2m1", "bf16", 1, 0, "sm80", 8, 64, 128, 128),
    ("e2m1", "bf16", 1, 0, "sm90", 4, 128, 64, 64),
    ("bf16", "e4m3", 0, 1, "sm90", 4, 128, 64, 64),
    ("e4m3", "bf16", 1, 0, "sm90", 4, 128, 64, 64),
    ("e5m2", "bf16", 1, 0, "sm80", 4, 128, 64, 64),
    ("bf16", "e5m2", 0, 1, "sm80", 4, 64, 64, 64),
    ("e5m2", "bf16", 1, 0, "sm90", 8, 128, 128, 64),
    # Kinds the engine anchors but prints as `tt.dot_scaled` itself.
    ("e4m3", "e4m3", 1, 1, "sm90", 4, 128, 64, 64),
    ("e2m1", "e2m1", 1, 1, "sm80", 4, 128, 64, 64),
    ("fp16", "e2m1", 0, 1, "sm90", 4, 128, 64, 64),
]


@triton.jit
def kernel(a_ptr, b_ptr, as_ptr, bs_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
           LHS: tl.constexpr, RHS: tl.constexpr, SA: tl.constexpr, SB: tl.constexpr, AK: tl.constexpr,
           BKP: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    ra = tl.arange(0, AK)
    rb = tl.arange(0, BKP)
    rs = tl.arange(0, BK // 32)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kk in range(0, 4):
        a = tl.load(a_ptr + rm[:, None] * AK + ra[None, :] + kk)
        b = tl.load(b_ptr + rb[:, None] * BN + rn[None, :] + kk)
        if SA:
            sa = tl.load(as_ptr + rm[:, None] * (BK // 32) + rs[None, :] + kk)
        else:
            sa = None
        if SB:
            sb = tl.load(bs_ptr + rn[:, None] * (BK // 32) + rs[None, :] + kk)
        else:
            sb = None
        acc = tl.dot_scaled(a, sa, LHS, b, sb, RHS, acc)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


def pointer(kind):
    return {"bf16": "*bf16", "fp16": "*fp16"}.get(kind, "*u8")


def strip_locations(ttir):
    """The TTIR without source locations (they name this file's path)."""
    lines = [l for l in ttir.split("\n") if not l.startswith("#loc")]
    text = re.sub(r' ?loc\("[^"]*"\(#loc\d*\)\)', "", "\n".join(lines))
    return re.sub(r" ?loc\(#loc\d*\)", "", text)


def resolve(text, line):
    aliases = dict(re.findall(r"^(#\w+) = (.*)$", text, re.M))
    for _ in range(4):
        line = re.sub(r"#\w+\b(?![<.])", lambda m: aliases.get(m.group(0), m.group(0)), line)
    return line


def main():
    for lhs, rhs, sa, sb, target, warps, bm, bn, bk in VARIANTS:
        consts = dict(BM=bm, BN=bn, BK=bk, LHS=lhs, RHS=rhs, SA=sa, SB=sb,
                      AK=bk // 2 if lhs == "e2m1" else bk, BKP=bk // 2 if rhs == "e2m1" else bk)
        sig = {"a_ptr": pointer(lhs), "b_ptr": pointer(rhs), "as_ptr": "*u8", "bs_ptr": "*u8",
               "c_ptr": "*fp32", **{c: "constexpr" for c in consts}}
        src = triton.compiler.ASTSource(fn=kernel, signature=sig, constexprs=consts)
        tgt = GPUTarget("cuda", 80 if target == "sm80" else 90, 32)
        k = triton.compile(src, target=tgt, options=dict(num_warps=warps, num_stages=1))
        ttgir = k.asm["ttgir"]
        dot = next(re.sub(r" loc\(.*", "", l.strip()) for l in ttgir.split("\n")
                   if re.search(r"= (tt\.dot|ttng\.warp_group_dot) ", l))
        types = resolve(ttgir, dot.split(" : ", 1)[1])
        print(json.dumps({"lhs": lhs, "rhs": rhs, "lhs_scaled": bool(sa), "rhs_scaled": bool(sb),
                          "target": target, "num_warps": warps, "tile": [bm, bn, bk],
                          "ttir": strip_locations(k.asm["ttir"]), "dot": dot.split(" = ", 1)[1].split(" ", 1)[0],
                          "dot_types": types}))


if __name__ == "__main__":
    sys.exit(main())

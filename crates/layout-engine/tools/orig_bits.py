#!/usr/bin/env python3
"""The kWidth Triton 3.9 gives the operands of an mma v2 dot whose operands were loaded narrower.

AccelerateMatmul sizes both operands of an sm80 `tt.dot` by the narrowest element type either
was loaded as (`computeOrigBitWidth`). Each kernel below feeds a bf16 dot one operand made from
loads through a different chain (a cast, a broadcast scale, a `join` of two i8 loads, a `join`
of two bf16 loads); Triton compiles it for sm80 with 4 warps on a CPU, and one JSON line per
kernel records its TTIR and the kWidth of the dot's operands in Triton's TTGIR.
`tests/orig_bits.rs` runs the engine on each TTIR and compares.

Not part of CI (it needs Triton; 3.9.0 made the committed file):

    /tmp/venv-triton/bin/python crates/layout-engine/tools/orig_bits.py \
        > crates/layout-engine/tests/data/orig_bits.ndjson
"""
import json
import os
import re
import re

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402


@triton.jit
def join_i8(a_ptr, b_ptr, c_ptr):
    rm = tl.arange(0, 64)
    rn = tl.arange(0, 64)
    rh = tl.arange(0, 32)
    a = tl.load(a_ptr + rm[:, None] * 64 + rn[None, :])
    lo = tl.load(b_ptr + rh[:, None] * 64 + rn[None, :])
    hi = tl.load(b_ptr + 4096 + rh[:, None] * 64 + rn[None, :])
    b = tl.join(lo.to(tl.bfloat16), hi.to(tl.bfloat16))
    b = tl.permute(b, (0, 2, 1)).reshape(64, 64)
    tl.store(c_ptr + rm[:, None] * 64 + rn[None, :], tl.dot(a, b))


@triton.jit
def join_bf16(a_ptr, b_ptr, c_ptr):
    rm = tl.arange(0, 64)
    rn = tl.arange(0, 64)
    rh = tl.arange(0, 32)
    a = tl.load(a_ptr + rm[:, None] * 64 + rn[None, :])
    lo = tl.load(b_ptr + rh[:, None] * 64 + rn[None, :])
    hi = tl.load(b_ptr + 4096 + rh[:, None] * 64 + rn[None, :])
    b = tl.permute(tl.join(lo, hi), (0, 2, 1)).reshape(64, 64)
    tl.store(c_ptr + rm[:, None] * 64 + rn[None, :], tl.dot(a, b))


@triton.jit
def cast_i8(a_ptr, b_ptr, c_ptr):
    rm = tl.arange(0, 64)
    rn = tl.arange(0, 64)
    a = tl.load(a_ptr + rm[:, None] * 64 + rn[None, :])
    b = tl.load(b_ptr + rm[:, None] * 64 + rn[None, :]).to(tl.bfloat16)
    tl.store(c_ptr + rm[:, None] * 64 + rn[None, :], tl.dot(a, b))


@triton.jit
def scale_i8(a_ptr, b_ptr, s_ptr, c_ptr):
    rm = tl.arange(0, 64)
    rn = tl.arange(0, 64)
    a = tl.load(a_ptr + rm[:, None] * 64 + rn[None, :])
    b = tl.load(b_ptr + rm[:, None] * 64 + rn[None, :])
    s = tl.load(s_ptr + rn).to(tl.bfloat16)
    tl.store(c_ptr + rm[:, None] * 64 + rn[None, :], tl.dot(a, b * s[None, :]))


@triton.jit
def plain_bf16(a_ptr, b_ptr, c_ptr):
    rm = tl.arange(0, 64)
    rn = tl.arange(0, 64)
    a = tl.load(a_ptr + rm[:, None] * 64 + rn[None, :])
    b = tl.load(b_ptr + rm[:, None] * 64 + rn[None, :])
    tl.store(c_ptr + rm[:, None] * 64 + rn[None, :], tl.dot(a, b))


KERNELS = [
    ("join_i8", join_i8, {"a_ptr": "*bf16", "b_ptr": "*i8", "c_ptr": "*fp32"}),
    ("join_bf16", join_bf16, {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp32"}),
    ("cast_i8", cast_i8, {"a_ptr": "*bf16", "b_ptr": "*i8", "c_ptr": "*fp32"}),
    ("scale_i8", scale_i8, {"a_ptr": "*bf16", "b_ptr": "*bf16", "s_ptr": "*i8", "c_ptr": "*fp32"}),
    ("plain_bf16", plain_bf16, {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp32"}),
]

for name, fn, sig in KERNELS:
    src = triton.compiler.ASTSource(fn=fn, signature=sig, constexprs={})
    cc = triton.compile(src, target=GPUTarget("cuda", 80, 32), options={"num_warps": 4})
    dot = [line for line in cc.asm["ttgir"].splitlines() if "tt.dot " in line][0]
    widths = sorted({int(k) for k in re.findall(r"kWidth = (\d+)", dot)})
    assert len(widths) == 1, dot
    print(json.dumps({"name": name, "triton": triton.__version__, "k_width": widths[0],
                      # Locations name files by base name, not this machine's paths.
                      "ttir": re.sub(r'"[^"]*/([^"/]+\.py)"', r'"\1"', cc.asm["ttir"])}))

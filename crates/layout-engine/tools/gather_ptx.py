#!/usr/bin/env python3
"""What Triton's lowering of `tt.gather` emits, counted in its PTX.

For each case below (source and index layouts in Triton's attribute
syntax, shapes, axis, element type, warps) this writes a minimal TTGIR
kernel: load the source and the index (each in its own layout), gather,
store the result (the index's layout). Triton compiles it to PTX for sm90
on a CPU, and one TSV line per case records the gather's instructions:
`shfl.sync.idx`, `setp.eq` and `selp` (warp-local path), `st.shared` and
`ld.shared` and `bar.sync` (shared-memory path), and the scratch bytes.
The kernels have no masks, loops or conversions, so every one of those
instructions is the gather's. `tests/gather_lowering.rs` compares the
engine's model of the lowering (`engine::gather_lowering`) with them.

Not part of CI (it needs Triton; 3.9.0 made the committed file):

    python3 -m venv /tmp/venv-triton && /tmp/venv-triton/bin/pip install triton==3.9.0
    /tmp/venv-triton/bin/python crates/layout-engine/tools/gather_ptx.py \
        > crates/layout-engine/tests/data/gather_ptx.tsv
"""
import collections
import os
import re
import sys
import tempfile

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402


def blocked(spt, tpw, wpc, order=(1, 0)):
    return (f"#ttg.blocked<{{sizePerThread = [{spt[0]}, {spt[1]}], threadsPerWarp = "
            f"[{tpw[0]}, {tpw[1]}], warpsPerCTA = [{wpc[0]}, {wpc[1]}], order = "
            f"[{order[0]}, {order[1]}]}}>")


# name, dtype, warps, axis, src shape, src layout, idx shape, idx layout
CASES = [
    ("fp16_32x32_regs8", "f16", 1, 1, (32, 32), blocked((1, 8), (8, 4), (1, 1)), (32, 32), None),
    ("fp16_32x32_lanes", "f16", 1, 1, (32, 32), blocked((1, 1), (1, 32), (1, 1)), (32, 32), None),
    ("fp32_32x32_regs4", "f32", 1, 1, (32, 32), blocked((1, 4), (4, 8), (1, 1)), (32, 32), None),
    ("fp32_64x32_regs4_w2", "f32", 2, 1, (64, 32), blocked((1, 4), (8, 4), (2, 1)), (64, 32), None),
    ("fp16_16x64_lanes_bcast_idx", "f16", 2, 1, (16, 64), blocked((1, 2), (1, 32), (2, 1)),
     (16, 32), None),
    ("fp16_16x64_lane_mismatch", "f16", 2, 1, (16, 64), blocked((1, 8), (4, 8), (2, 1)),
     (16, 32), blocked((1, 8), (8, 4), (2, 1))),
    ("fp32_128x32_lane_mismatch_w4", "f32", 4, 1, (128, 32), blocked((1, 4), (4, 8), (4, 1)),
     (128, 8), blocked((1, 4), (16, 2), (4, 1))),
    ("fp16_32x32_axis0_lanes", "f16", 2, 0, (32, 32), blocked((1, 1), (32, 1), (1, 2), (0, 1)),
     (32, 32), None),
    ("fp32_64x32_axis0_warps_on_axis", "f32", 2, 0, (64, 32), blocked((1, 1), (1, 32), (2, 1)),
     (64, 32), None),
    ("f64_32x32_regs2", "f64", 1, 1, (32, 32), blocked((1, 2), (2, 16), (1, 1)), (32, 32), None),
    ("i8_32x64_regs4", "i8", 1, 1, (32, 64), blocked((1, 4), (2, 16), (1, 1)), (32, 64), None),
    ("fp32_4x16_register_broadcast", "f32", 1, 1, (4, 16),
     "#ttg.linear<{register = [[0, 1], [0, 0]], lane = [[0, 2], [0, 4], [0, 8], [1, 0], [2, 0]], "
     "warp = [], block = []}>", (4, 16), None),
    ("fp32_8x16_register_broadcast_shared", "f32", 2, 0, (8, 16),
     "#ttg.linear<{register = [[0, 1], [0, 0]], lane = [[0, 2], [0, 4], [0, 8], [1, 0], [2, 0]], "
     "warp = [[4, 0]], block = []}>", (8, 16), None),
    ("fp32_4x8_warp_broadcast", "f32", 2, 1, (4, 8), blocked((1, 1), (4, 8), (2, 1)), (4, 8), None),
]

KERNEL = """#src = {src_layout}
#idx = {idx_layout}
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = {warps} : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32}} {{
  tt.func public @gather_ptx(%sp: !tt.ptr<{t}> {{tt.divisibility = 16 : i32}}, %ip: !tt.ptr<i32> {{tt.divisibility = 16 : i32}}, %op: !tt.ptr<{t}> {{tt.divisibility = 16 : i32}}) attributes {{noinline = false}} {{
{src_ptrs}    %src = tt.load %src_p : tensor<{ss}x!tt.ptr<{t}>, #src>
{idx_ptrs}    %idx = tt.load %idx_p : tensor<{si}x!tt.ptr<i32>, #idx>
{out_ptrs}    %g = tt.gather %src[%idx] {{axis = {axis} : i32}} : (tensor<{ss}x{t}, #src>, tensor<{si}xi32, #idx>) -> tensor<{si}x{t}, #idx>
    tt.store %out_p, %g : tensor<{si}x!tt.ptr<{t}>, #idx>
    tt.return
  }}
}}
"""


def pointers(name, base, elem, shape, enc):
    """`%{name}_p`: row-major pointers of a 2-D tensor in `enc`."""
    m, n = shape
    s0 = f"#ttg.slice<{{dim = 1, parent = {enc}}}>"
    s1 = f"#ttg.slice<{{dim = 0, parent = {enc}}}>"
    return (
        f"    %{name}_r0 = tt.make_range {{end = {m} : i32, start = 0 : i32}} : tensor<{m}xi32, {s0}>\n"
        f"    %{name}_e0 = tt.expand_dims %{name}_r0 {{axis = 1 : i32}} : tensor<{m}xi32, {s0}> -> tensor<{m}x1xi32, {enc}>\n"
        f"    %{name}_c = arith.constant dense<{n}> : tensor<{m}x1xi32, {enc}>\n"
        f"    %{name}_m0 = arith.muli %{name}_e0, %{name}_c : tensor<{m}x1xi32, {enc}>\n"
        f"    %{name}_r1 = tt.make_range {{end = {n} : i32, start = 0 : i32}} : tensor<{n}xi32, {s1}>\n"
        f"    %{name}_e1 = tt.expand_dims %{name}_r1 {{axis = 0 : i32}} : tensor<{n}xi32, {s1}> -> tensor<1x{n}xi32, {enc}>\n"
        f"    %{name}_b0 = tt.broadcast %{name}_m0 : tensor<{m}x1xi32, {enc}> -> tensor<{m}x{n}xi32, {enc}>\n"
        f"    %{name}_b1 = tt.broadcast %{name}_e1 : tensor<1x{n}xi32, {enc}> -> tensor<{m}x{n}xi32, {enc}>\n"
        f"    %{name}_o = arith.addi %{name}_b0, %{name}_b1 : tensor<{m}x{n}xi32, {enc}>\n"
        f"    %{name}_s = tt.splat {base} : !tt.ptr<{elem}> -> tensor<{m}x{n}x!tt.ptr<{elem}>, {enc}>\n"
        f"    %{name}_p = tt.addptr %{name}_s, %{name}_o : tensor<{m}x{n}x!tt.ptr<{elem}>, {enc}>, tensor<{m}x{n}xi32, {enc}>\n"
    )


def count(ptx):
    ops = collections.Counter()
    for line in ptx.splitlines():
        s = line.strip()
        if not s or s.startswith(("//", ".", "{", "}", "$")) or s.endswith(":"):
            continue
        s = re.sub(r"^@!?%p\d+\s+", "", s)
        ops[s.split()[0].rstrip(";")] += 1
    return ops


def main():
    cols = ["name", "dtype", "warps", "axis", "src_shape", "src_layout", "idx_shape",
            "idx_layout", "scratch_bytes", "shfl", "setp_eq", "selp", "st_shared",
            "ld_shared", "bar_sync"]
    print("\t".join(cols))
    with tempfile.TemporaryDirectory() as tmp:
        for name, t, warps, axis, ss, sl, si, il in CASES:
            il = il or sl
            text = KERNEL.format(
                src_layout=sl, idx_layout=il, warps=warps, t=t, axis=axis,
                ss=f"{ss[0]}x{ss[1]}", si=f"{si[0]}x{si[1]}",
                src_ptrs=pointers("src", "%sp", t, ss, "#src"),
                idx_ptrs=pointers("idx", "%ip", "i32", si, "#idx"),
                out_ptrs=pointers("out", "%op", t, si, "#idx"))
            path = os.path.join(tmp, f"{name}.ttgir")
            with open(path, "w") as f:
                f.write(text)
            k = triton.compile(path, target=GPUTarget("cuda", 90, 32))
            ops = count(k.asm["ptx"])
            pick = lambda p: sum(v for o, v in ops.items() if o.startswith(p))  # noqa: E731
            row = [name, t, warps, axis, f"{ss[0]}x{ss[1]}", sl, f"{si[0]}x{si[1]}", il,
                   k.metadata.shared, pick("shfl.sync.idx"), pick("setp.eq"), pick("selp"),
                   pick("st.shared"), pick("ld.shared"), pick("bar.sync")]
            print("\t".join(str(x) for x in row), flush=True)


if __name__ == "__main__":
    sys.exit(main())

"""Writes shared-grid-{layouts,rejects}.jsonl: random NVMMA / swizzled /
tensor-memory / scales layouts and shapes (Triton 3.9.0, CPU only) with
Triton's printed attribute and linear layout, or its error. Triton aborts
the process on some bad inputs: run it in a loop that restarts at the first
missing index (see `run` at the end) and records a crash as a reject."""
import json
import random
import sys

from triton._C.libtriton import ir, gluon_ir
import triton.experimental.gluon.language as ttgl
from triton.experimental.gluon.language.nvidia.blackwell import TensorMemoryLayout, TensorMemoryScalesLayout

N = 5000
ctx = ir.context()
ir.load_dialects(ctx)
b = gluon_ir.GluonOpBuilder(ctx)
ETY = {8: b.get_int8_ty, 16: b.get_half_ty, 32: b.get_float_ty, 64: b.get_double_ty}


def case(i):
    rng = random.Random(1000 + i)
    kind = rng.choice(["nvmma_shared"] * 6 + ["swizzled_shared"] * 2 + ["tensor_memory", "tensor_memory_scales"])
    if kind == "nvmma_shared":
        rank = rng.choice([2, 2, 3, 3, 4])
        sw = rng.choice([0, 32, 64, 128])
        ebw = rng.choice([8, 16, 32, 64])
        fp4 = sw == 128 and ebw == 8 and rng.random() < 0.3
        cga = rng.choice([[], [], [[1] + [0] * (rank - 1)], [[0] * (rank - 1) + [1]], [[0] * rank]])
        obj = ttgl.NVMMASharedLayout(sw, ebw, rank=rank, transposed=rng.random() < 0.5, fp4_padded=fp4,
                                     cga_layout=cga)
        shape = [1 << rng.randint(0, 9) for _ in range(rank)]
        return kind, obj, shape, ebw, "shared"
    if kind == "swizzled_shared":
        rank = rng.choice([1, 2, 3, 4])
        order = list(range(rank))
        rng.shuffle(order)
        cga = rng.choice([[], [], [[1] + [0] * (rank - 1)], [[0] * (rank - 1) + [1]], [[0] * rank]])
        obj = ttgl.SwizzledSharedLayout(1 << rng.randint(0, 4), 1 << rng.randint(0, 3), 1 << rng.randint(0, 4),
                                        order, cga_layout=cga)
        shape = [1 << rng.randint(0, 7) for _ in range(rank)]
        return kind, obj, shape, 16, "shared"
    if kind == "tensor_memory":
        ebw = rng.choice([8, 16, 32])
        cga, two = rng.choice([([], False), ([[1, 0]], True), ([[1, 0]], False), ([[0, 1]], False),
                               ([[1, 0], [0, 1]], True), ([[0, 0]], False)])
        obj = TensorMemoryLayout((rng.choice([64, 128]), 1 << rng.randint(0, 9)), rng.choice([1, 32 // ebw]), cga, two)
        shape = [1 << rng.randint(5, 10), 1 << rng.randint(0, 10)]
        return kind, obj, shape, ebw, "tmem"
    cga = rng.choice([[], [], [[1, 0]], [[0, 1]], [[0, 0]], [[1, 0], [0, 1]]])
    obj = TensorMemoryScalesLayout(cga)
    shape = [1 << rng.randint(4, 10), 1 << rng.randint(0, 6)]
    return kind, obj, shape, 8, "tmem"


def one(i):
    kind, obj, shape, ebw, space = case(i)
    rec = {"id": "sgrid-%d" % i, "kind": kind, "shape": shape, "elem_bitwidth": ebw, "query": "layout"}
    try:
        attr = obj._to_ir(b)
        # The attribute text, printed with a shape every layout accepts.
        safe = [256] * len(shape) if space == "shared" else [1024, 1024]
        if space == "shared":
            ty = str(b.get_shared_mem_desc_ty(ETY[ebw](), safe, attr, safe))
            rec["mlir"] = ty[ty.index(", ") + 2:ty.rindex(", #ttg.shared_memory")]
        else:
            ty = str(b.get_tensor_mem_desc_ty(ETY[ebw](), safe, attr, safe))
            rec["mlir"] = ty[ty.index(", ") + 2:ty.rindex(", #ttng.tensor_memory")]
        print("@@MLIR " + rec["mlir"], file=sys.stderr, flush=True)
    except Exception as e:
        rec["error"] = "%s: %s" % (type(e).__name__, str(e)[:200])
        return rec
    try:
        if space == "shared":
            ty = str(b.get_shared_mem_desc_ty(ETY[ebw](), shape, attr, shape))
            rec["mlir"] = ty[ty.index(", ") + 2:ty.rindex(", #ttg.shared_memory")]
        else:
            ty = str(b.get_tensor_mem_desc_ty(ETY[ebw](), shape, attr, shape))
            rec["mlir"] = ty[ty.index(", ") + 2:ty.rindex(", #ttng.tensor_memory")]
        print("@@MLIR " + rec["mlir"], file=sys.stderr, flush=True)
        ll = b.to_linear_layout(attr, shape)
        if space == "shared":
            rec["linear"] = {"offset": ll.offset_bases, "block": ll.block_bases}
        else:
            rec["linear"] = {"row": ll.rows, "col": ll.cols}
    except Exception as e:
        rec["error"] = "%s: %s" % (type(e).__name__, str(e)[:200])
    return rec


if __name__ == "__main__":
    start = int(sys.argv[1])
    with open("shared-grid-raw.jsonl", "a") as out:
        for i in range(start, N):
            print("@@CASE %d" % i, file=sys.stderr, flush=True)
            out.write(json.dumps(one(i)) + "\n")
            out.flush()

"""Writes shared-grid2-raw.jsonl: random partitioned (around swizzled, NVMMA,
shared_linear, padded), padded (identity / permuted, CGA) and shared_linear
layouts and shapes (Triton 3.9.0, CPU only) with
Triton's printed attribute and linear layout, or its error. Triton aborts
the process on some bad inputs: run it in a loop that restarts at the first
missing index (see `run` at the end) and records a crash as a reject."""
import json
import random
import sys

from triton._C.libtriton import ir, gluon_ir
import triton.experimental.gluon.language as ttgl
from triton.experimental.gluon.language.nvidia.blackwell import TensorMemoryLayout, TensorMemoryScalesLayout
from triton.experimental.gluon.language.amd.cdna5 import PartitionedSharedLayout

N = 2000
ctx = ir.context()
ir.load_dialects(ctx)
b = gluon_ir.GluonOpBuilder(ctx)
ETY = {8: b.get_int8_ty, 16: b.get_half_ty, 32: b.get_float_ty, 64: b.get_double_ty}


def rand_shape(rng, rank, lo=0, hi=6):
    return [1 << rng.randint(lo, hi) for _ in range(rank)]


def perm_bases(rng, shape, permute):
    rank = len(shape)
    order = list(range(rank))
    rng.shuffle(order)
    offs = []
    for d in order:
        s = 1
        while s < shape[d]:
            v = [0] * rank
            v[d] = s
            offs.append(v)
            s *= 2
    if permute:
        rng.shuffle(offs)
    return offs


def inner_layout(rng, rank, piece):
    k = rng.choice(["swizzled", "swizzled", "nvmma", "linear", "padded"])
    if k == "swizzled":
        order = list(range(rank))
        rng.shuffle(order)
        cga = rng.choice([[], [], [[1] + [0] * (rank - 1)], [[0] * (rank - 1) + [1]], [[0] * rank]])
        return ttgl.SwizzledSharedLayout(1 << rng.randint(0, 3), 1 << rng.randint(0, 2), 1 << rng.randint(0, 3),
                                         order, cga_layout=cga)
    if k == "nvmma":
        return ttgl.NVMMASharedLayout(rng.choice([0, 32, 64, 128]), rng.choice([8, 16, 32]), rank=rank,
                                      transposed=rng.random() < 0.3)
    if k == "linear":
        offs = perm_bases(rng, piece, True) or [[0] * rank]
        return ttgl.SharedLinearLayout(offs, [], 16)
    pairs = [[1 << rng.randint(1, 8), 1 << rng.randint(0, 3)]]
    return ttgl.PaddedSharedLayout(pairs, perm_bases(rng, piece, rng.random() < 0.5), [], piece)


def case(i):
    rng = random.Random(7000 + i)
    kind = rng.choice(["partitioned_shared"] * 3 + ["padded_shared"] * 2 + ["shared_linear"])
    rank = rng.choice([1, 2, 2, 3])
    if kind == "partitioned_shared":
        rank = max(rank, 2)
        piece = rand_shape(rng, rank, 0, 5)
        np_, ng = rng.choice([2, 4]), rng.choice([1, 2, 4])
        d = rng.randrange(rank)
        shape = list(piece)
        shape[d] *= np_ * ng
        obj = PartitionedSharedLayout(np_, ng, d, inner_layout(rng, rank, piece))
        return kind, obj, shape, 16, "shared"
    if kind == "padded_shared":
        per = rand_shape(rng, rank, 0, 5)
        cga = []
        grid = [1] * rank
        if rng.random() < 0.3:
            d = rng.randrange(rank)
            cga = [[0] * rank]
            if rng.random() < 0.7:
                cga[0][d] = 1
                grid[d] = 2
        shape = [p * g for p, g in zip(per, grid)]
        npairs = rng.choice([1, 1, 2, 3])
        ivs = sorted(rng.sample([1 << k for k in range(1, 11)], npairs))
        pairs = [[iv, 1 << rng.randint(0, 4)] for iv in ivs]
        obj = ttgl.PaddedSharedLayout(pairs, perm_bases(rng, per, rng.random() < 0.5), cga, shape)
        return kind, obj, shape, 16, "shared"
    shape = rand_shape(rng, rank, 0, 5)
    offs = perm_bases(rng, shape, True)
    nblk = rng.randint(0, min(2, len(offs)))
    blk = offs[len(offs) - nblk:] if nblk else []
    offs = offs[:len(offs) - nblk] or [[0] * rank]
    if rng.random() < 0.2:
        blk = blk + [[0] * rank]
    obj = ttgl.SharedLinearLayout(offs, blk, rng.choice([8, 16, 128, 1024]))
    return kind, obj, shape, 16, "shared"


def one(i):
    kind, obj, shape, ebw, space = case(i)
    rec = {"id": "sgrid2-%d" % i, "kind": kind, "shape": shape, "elem_bitwidth": ebw, "query": "layout"}
    try:
        attr = obj._to_ir(b)
        # The attribute text, printed with a shape every layout accepts.
        safe = [256] * len(shape) if space == "shared" else [1024, 1024]
        if kind in ("padded_shared", "shared_linear"):
            safe = shape  # these state their shape
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
        if isinstance(obj, ttgl.PaddedSharedLayout) or (isinstance(obj, PartitionedSharedLayout) and isinstance(obj.partition_layout, ttgl.PaddedSharedLayout)):
            rec["linear"] = {"offset": obj.offset_bases, "block": obj.cga_layout} if isinstance(obj, ttgl.PaddedSharedLayout) else None
            if rec["linear"] is None:
                del rec["linear"]
                rec["error"] = "partitioned around padded: no linear layout in Triton"
            else:
                rec["linear_source"] = "gluon_params"
            return rec
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
    with open("shared-grid2-raw.jsonl", "a") as out:
        for i in range(start, N):
            print("@@CASE %d" % i, file=sys.stderr, flush=True)
            out.write(json.dumps(one(i)) + "\n")
            out.flush()

"""Writes shared-tmem-reg-grid-{layouts,rejects}.jsonl: 4000 random parameter
sets of Gluon's _compute_tmem_reg_layout (Triton 3.9.0, CPU only) with
Triton's answer (the register layout's bases) or its error message."""
import json
import random

import triton.experimental.gluon.language as ttgl
from triton.experimental.gluon.language._semantic import _compute_tmem_reg_layout
from triton.experimental.gluon.language.nvidia.blackwell import TensorMemoryLayout

DT = {8: ttgl.int8, 16: ttgl.float16, 32: ttgl.float32}
rng = random.Random(12345)
layouts = open("shared-tmem-reg-grid-layouts.jsonl", "w")
rejects = open("shared-tmem-reg-grid-rejects.jsonl", "w")
for i in range(4000):
    ebw = rng.choice([8, 16, 32])
    bm = rng.choice([64, 128])
    bn = rng.choice([8, 16, 32, 64, 128, 256])
    cs = rng.choice([1, 32 // ebw])
    cga, two = rng.choice([([], False), ([[1, 0]], True), ([[1, 0]], False), ([[0, 1]], False),
                           ([[1, 0], [0, 1]], False), ([[1, 0], [0, 1]], True), ([[0, 0]], False)])
    gm = 2 if any(b[0] for b in cga) else 1
    gn = 2 if any(b[1] for b in cga) else 1
    m = bm * rng.choice([1, 2, 4]) * gm
    n = min(bn * rng.choice([1, 2, 4]) * gn, 1024)
    if rng.random() < 0.15:
        n = max(8, n // 4)
    nw = rng.choice([4, 8, 16])
    atom = rng.choice(["32x32b", "16x64b", "16x128b", "16x256b", "32x32b_splitn"])
    params = {"cls": "tmem_reg", "element_bitwidth": ebw, "shape": [m, n], "alloc_shape": [m, n],
              "tmem_layout": {"cls": "TensorMemoryLayout", "block": [bm, bn], "col_stride": cs,
                              "cga_layout": cga, "two_ctas": two},
              "num_warps": nw, "atom": atom}
    rec = {"id": "grid-%d" % i, "kind": "tmem_reg", "shape": [m, n], "params": params}
    try:
        lo = _compute_tmem_reg_layout(DT[ebw], [m, n], [m, n], TensorMemoryLayout((bm, bn), cs, cga, two), nw, atom)
        rec["linear"] = {"register": lo.reg_bases, "lane": lo.lane_bases, "warp": lo.warp_bases,
                         "block": lo.block_bases}
        layouts.write(json.dumps(rec) + "\n")
    except Exception as e:
        rec.update(query="layout", stage="gluon_python", error="%s: %s" % (type(e).__name__, str(e)[:200]))
        rejects.write(json.dumps(rec) + "\n")

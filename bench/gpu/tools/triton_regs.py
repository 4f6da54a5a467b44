"""Registers per thread of Triton's kernel for each conversion case (device
machine): python3 bench/gpu/tools/triton_regs.py bench/gpu/generated/cases.json"""
import json
import sys

import torch

sys.path.insert(0, "bench/gpu")
import triton_baseline as tb  # noqa: E402

for c in json.load(open(sys.argv[1])):
    if c.get("kind") == "gather" or c["name"].endswith(("_mx", "_smem", "_full")):
        continue
    M, N = c["shape"]
    nw = c["num_warps"]
    tdt = {8: torch.int8, 16: torch.int16, 32: torch.int32, 64: torch.int64}[c["bits"]]
    x = torch.ones(M * N, device="cuda", dtype=tdt)
    k = tb.cvt_bench.warmup(x, x, 64, M, N, tb.linear_layout(c["src"], [M, N]),
                            tb.linear_layout(c["dst"], [M, N]), tb.idx_layout(nw, [M, N]),
                            num_warps=nw, grid=(1,))
    k._init_handles()
    print(c["name"], "registers", k.n_regs, "spills", k.n_spills, flush=True)

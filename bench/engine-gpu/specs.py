"""Launch specs: for each kernel family of the engine oracle, the grid, the
scalar arguments and the elements of every pointer buffer, from the
record's `params` (the generator's names: BM, BN, BK, BLOCK_SIZE, ...).

Each spec returns `(grid, scalars, elems)`: `grid` is (x, y, z); `scalars`
maps every runtime integer/float argument name to its value (integers are
multiples of 16, as the TTIR's `tt.divisibility = 16` may promise);
`elems` is the number of elements allocated for every pointer argument,
enough for the largest index the kernel forms with these values (read off
the kernel bodies in `../shared/engine-oracle/gen_engine_oracle.py`).
Grids fill the H200's 132 SMs several times over.
"""

WAVES = 1056  # 8 CTAs per SM on 132 SMs


def rows_tile(p, rows="BM", cols="BN"):
    bm, bn = p[rows], p[cols]
    g = WAVES
    return (g, 1, 1), {"stride": bn}, g * bm * bn


def softmax_online(p):
    bm, bn = p["BM"], p["BN"]
    m, n = WAVES * bm, 4 * bn
    return (WAVES, 1, 1), {"M": m, "N": n, "stride": n}, m * n


def qk_norm(p):
    bt = p["BLOCK_T"]
    h, d = p["HD"]
    t = WAVES * bt
    return (WAVES, 1, 1), {"T": t, "stride_t": h * d, "eps": 1e-6}, t * h * d


def layernorm_fwd(p):
    bs = p["BLOCK_SIZE"]
    n = 2 * bs
    return (WAVES, 1, 1), {"stride": n, "N": n, "eps": 1e-5}, WAVES * n


def rmsnorm_fwd(p):
    bs = p["BLOCK_SIZE"]
    rows = 528 if bs >= 8192 else WAVES
    return (rows, 1, 1), {"stride": bs, "N": bs, "eps": 1e-6}, rows * bs


def rmsnorm_bwd(p):
    bs = p["BLOCK_SIZE"]
    g, rpp = 132, 16
    rows = g * rpp
    return ((g, 1, 1), {"stride": bs, "n_rows": rows, "n_cols": bs,
                        "rows_per_program": rpp}, rows * bs)


def two_d(p, gm=64, gn=16):
    m, n = gm * p["BM"], gn * p["BN"]
    return (gm, gn, 1), m, n


def dequant_rowcol(p):
    grid, m, n = two_d(p)
    return grid, {"M": m, "N": n, "stride_m": n}, m * n


def outer_bias(p):
    grid, m, n = two_d(p)
    return grid, {"M": m, "N": n, "stride_om": n}, m * n


def pairwise_dist(p):
    grid, m, n = two_d(p)
    d = p["D"]
    return (grid, {"M": m, "N": n, "stride_x": d, "stride_y": d, "stride_o": n},
            max(m * n, (m + n) * d))


def mxfp4_dequant(p):
    gm, gk = 64, 16
    m, k = gm * p["BM"], gk * p["BK"]
    return ((gm, gk, 1), {"M": m, "stride_qm": k // 2, "stride_sm": max(k // 32, 16),
                          "stride_om": k}, m * k)


def matmul_bias_act(p):
    grid, m, n = two_d(p, 16, 16)
    k = 8 * p["BK"]
    return (grid, {"M": m, "N": n, "K": k, "stride_am": k, "stride_bk": n, "stride_cm": n},
            max(m * k, k * n, m * n))


def int4_gemm(p):
    grid, m, n = two_d(p, 32, 16)
    k = 4 * p["BK"]
    return (grid, {"M": m, "N": n, "K": k, "stride_am": k, "stride_qk": n, "stride_cm": n},
            max(m * k, k * n, m * n))


def dot_scaled(p):
    grid, m, n = two_d(p, 16, 16)
    k = 4 * p["BK"]
    return (grid, {"K": k, "stride_am": k, "stride_bk": n, "stride_sn": max(k // 32, 16),
                   "stride_cm": n}, max(m * k, k * n, m * n))


def mxfp4_matmul(p):
    grid, m, n = two_d(p, 16, 16)
    k = 4 * p["BK"]
    return (grid, {"K": k, "stride_am": k, "stride_bn": k // 2, "stride_sn": max(k // 32, 16),
                   "stride_cm": n}, max(m * k, k * n, m * n))


def flash_attn_fwd(p):
    d, n_ctx, zh = p["HEAD_DIM"], 1024, 32
    s = {"sm_scale": 0.125, "N_CTX": n_ctx}
    for t in "qkvo":
        s[f"stride_{t}h"] = n_ctx * d
    s.update({"stride_qm": d, "stride_kn": d, "stride_vn": d, "stride_om": d})
    return (n_ctx // p["BM"], zh, 1), s, zh * n_ctx * d


def attn_bwd_dkdv(p):
    d, n_ctx, bh = p["HEAD_DIM"], 1024, 16
    return ((n_ctx // p["BN1"], bh, 1), {"sm_scale": 0.125, "stride_tok": d, "N_CTX": n_ctx},
            bh * n_ctx * d)


def gather(p):
    m, n, k = p["MNK"]
    return (WAVES, 1, 1), {}, WAVES * m * max(n, k)


SPECS = {
    "flip": rows_tile,
    "sort": rows_tile,
    "topk": rows_tile,
    "linear_scan": lambda p: rows_tile(p, "BM", "BT"),
    "softmax_online": softmax_online,
    "qk_norm": qk_norm,
    "layernorm_fwd": layernorm_fwd,
    "rmsnorm_fwd": rmsnorm_fwd,
    "rmsnorm_bwd": rmsnorm_bwd,
    "dequant_rowcol": dequant_rowcol,
    "outer_bias": outer_bias,
    "pairwise_dist": pairwise_dist,
    "mxfp4_dequant": mxfp4_dequant,
    "matmul_bias_act": matmul_bias_act,
    "int4_gemm": int4_gemm,
    "dot_scaled": dot_scaled,
    "mxfp4_matmul": mxfp4_matmul,
    "flash_attn_fwd": flash_attn_fwd,
    "attn_bwd_dkdv": attn_bwd_dkdv,
    "gather": gather,
}

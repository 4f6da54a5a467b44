//! Anchor layouts: what the hardware wants of global-memory ops and dots.
//!
//! - [`default_blocked`]: Triton's default for a shape (`sizePerThread`
//!   all 1, row-major order, lanes then warps along the fastest dims).
//! - [`coalesced`]: Coalesce's rule from the [`crate::axis`] facts of the
//!   pointer: `order` = dims by contiguity, largest first (ties: last dim
//!   first); `perThread = min(max(div[o0] / bytes, 1), min(contig[o0],
//!   shape[o0]), 128 / bits)`, clamped to `max(numel / threads, 1)`; then
//!   [`blocked_for`] fills lanes and warps along `order`. Coalesce also
//!   takes the maximum over memory ops of the same shape and order
//!   ([`memory_anchors`]: in the function, Triton looks in the op's
//!   slice), and then clamps a store to its own width.
//! - [`dot_layout`]: mma v2 (sm80, and sm90 tiles wgmma cannot take),
//!   wgmma v3 (sm90: rank 2, warps % 4 == 0, M % 64 == 0, N % 8 == 0,
//!   16/8-bit or tf32 operands), mfma 32x32x8 (gfx942), FMA (fp32 `ieee`);
//!   warps as AccelerateMatmul balances them, `[numWarps, 1]` for a dot
//!   whose result feeds another dot (chained dots share their rows).

use crate::axis::{analyse, AxisInfo};
use crate::ir::{OpId, OpKind, Program};
use hw_layouts::amd::Mfma;
use hw_layouts::blocked::{Blocked, Cga};
use hw_layouts::dot_operand::DotOperand;
use hw_layouts::nvidia_mma::NvidiaMma;
use hw_layouts::Encoding;

/// A compilation target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Target {
    /// NVIDIA Ampere (mma v2).
    Sm80,
    /// NVIDIA Hopper (wgmma).
    Sm90,
    /// AMD CDNA3 (mfma, 64-lane wavefronts).
    Gfx942,
}

impl Target {
    /// Parses `sm80`, `sm90`, `gfx942` (also `cuda:80`, `cuda:90`, `hip:gfx942`).
    pub fn parse(s: &str) -> Option<Target> {
        match s.trim() {
            "sm80" | "sm86" | "sm89" | "cuda:80" | "80" => Some(Target::Sm80),
            "sm90" | "sm90a" | "cuda:90" | "90" => Some(Target::Sm90),
            "gfx942" | "hip:gfx942" => Some(Target::Gfx942),
            _ => None,
        }
    }

    /// Lanes per warp.
    pub fn threads_per_warp(self) -> u64 {
        match self {
            Target::Gfx942 => 64,
            _ => 32,
        }
    }
}

/// Triton's `BlockedEncodingAttr::get(shape, sizePerThread, order,
/// numWarps, threadsPerWarp)`: along `order`, each dim takes
/// `clamp(shape / sizePerThread)` of the remaining threads (lanes first),
/// and the slowest dim takes what is left.
pub fn blocked_for(
    shape: &[u64],
    size_per_thread: &[u64],
    order: &[usize],
    num_warps: u64,
    lanes: u64,
) -> Blocked {
    let rank = shape.len();
    let mut tpw = vec![1u64; rank];
    let mut wpc = vec![1u64; rank];
    let (mut rem_lanes, mut rem_threads, mut rem_warps) = (lanes, lanes * num_warps, num_warps);
    let (mut prev_lanes, mut prev_warps) = (1u64, 1u64);
    for &d in order.iter().take(rank.saturating_sub(1)) {
        let want = (shape[d] / size_per_thread[d].max(1)).max(1);
        let threads = rem_threads.clamp(1, want);
        tpw[d] = threads.clamp(1, rem_lanes);
        wpc[d] = (threads / tpw[d]).clamp(1, rem_warps);
        rem_warps /= wpc[d];
        rem_lanes /= tpw[d];
        rem_threads /= threads;
        prev_lanes *= tpw[d];
        prev_warps *= wpc[d];
    }
    if let Some(&last) = order.last() {
        tpw[last] = (lanes / prev_lanes).max(1);
        wpc[last] = (num_warps / prev_warps).max(1);
    }
    Blocked {
        size_per_thread: size_per_thread.to_vec(),
        threads_per_warp: tpw,
        warps_per_cta: wpc,
        order: order.to_vec(),
        cga: Cga::default(),
    }
}

/// Row-major order `[rank-1, …, 0]`.
pub fn row_major(rank: usize) -> Vec<usize> {
    (0..rank).rev().collect()
}

/// Triton's default blocked layout for `shape`.
pub fn default_blocked(shape: &[u64], num_warps: u64, lanes: u64) -> Encoding {
    Encoding::Blocked(blocked_for(
        shape,
        &vec![1; shape.len()],
        &row_major(shape.len()),
        num_warps,
        lanes,
    ))
}

/// A coalesced access: its order and vector width.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Coalesced {
    /// Dims from fastest to slowest.
    pub order: Vec<usize>,
    /// Elements per thread along `order[0]`.
    pub per_thread: u64,
}

/// Coalesce's order and width for a pointer tensor of `shape` with axis
/// facts `info` and `elem_bits`-bit elements (see the module doc); `store`
/// marks writes (no extra clamp here, as the per-op width is already the
/// op's own).
pub fn coalesced(
    shape: &[u64],
    info: &AxisInfo,
    elem_bits: u32,
    num_warps: u64,
    lanes: u64,
) -> Coalesced {
    let rank = shape.len();
    let mut order: Vec<usize> = row_major(rank);
    let contig = |d: usize| info.contiguity.get(d).copied().unwrap_or(1);
    order.sort_by_key(|&d| std::cmp::Reverse(contig(d)));
    let o0 = order[0];
    let bytes = (elem_bits as u64 / 8).max(1);
    let div = info.divisibility.get(o0).copied().unwrap_or(1);
    let align = (div / bytes).max(1);
    let per_thread = align
        .min(contig(o0).min(shape[o0]))
        .min((128 / elem_bits.max(1)) as u64)
        .max(1);
    let numel: u64 = shape.iter().product();
    let per_thread = per_thread.min((numel / (num_warps * lanes)).max(1));
    Coalesced { order, per_thread }
}

/// Coalesce's order and width for a tensor-descriptor load on sm90 (TMA):
/// the tile is row-major and its base 16-byte aligned, so the last dim is
/// fastest and `perThread = min(shape[last], 128 / bits)`, clamped to
/// `max(numel / threads, 1)` (Triton 3.9's after-Coalesce TTGIR of the
/// oracle's `matmul_tma`: `64x128` and `128x128` f16 on 8 warps,
/// `sizePerThread = [1, 8]`, `threadsPerWarp = [2, 16]`).
pub fn descriptor_coalesced(
    shape: &[u64],
    elem_bits: u32,
    num_warps: u64,
    lanes: u64,
) -> Coalesced {
    let rank = shape.len();
    let last = shape.last().copied().unwrap_or(1);
    let numel: u64 = shape.iter().product();
    let per_thread = last
        .min((128 / elem_bits.max(1)) as u64)
        .min((numel / (num_warps * lanes)).max(1))
        .max(1);
    Coalesced {
        order: row_major(rank),
        per_thread,
    }
}

/// The blocked layout of a coalesced access.
pub fn coalesced_layout(shape: &[u64], c: &Coalesced, num_warps: u64, lanes: u64) -> Encoding {
    let mut spt = vec![1u64; shape.len()];
    spt[c.order[0]] = c.per_thread;
    Encoding::Blocked(blocked_for(shape, &spt, &c.order, num_warps, lanes))
}

/// How a dot is computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DotChoice {
    /// The accumulator (= result) layout.
    pub result: Encoding,
    /// Operand layouts in registers (`None`: read from shared memory, as
    /// wgmma's B, and its A unless that comes from registers).
    pub a: Option<Encoding>,
    /// B in registers (`None` for wgmma).
    pub b: Option<Encoding>,
    /// wgmma may read A from registers (`dot_op(opIdx 0, parent)`).
    pub a_in_registers: Option<Encoding>,
}

impl DotChoice {
    /// The choice with mma v2 operands of `kWidth = 32 / orig_bits`, where
    /// `orig_bits` is `min(orig_bit_width(A), orig_bit_width(B))`
    /// ([`orig_bit_width`]): AccelerateMatmul sizes both operands of an
    /// mma v2 dot by the narrowest element either was loaded as (a bf16 B
    /// dequantised from i8 gives `kWidth = 4` to A and B alike). wgmma,
    /// mfma and FMA choices are returned unchanged.
    pub fn with_mma_v2_operand_bits(mut self, orig_bits: u32) -> Self {
        let v2 = matches!(&self.result, Encoding::NvidiaMma(m) if m.version_major == 2);
        if v2 && (1..=32).contains(&orig_bits) {
            for e in [&mut self.a, &mut self.b].into_iter().flatten() {
                if let Encoding::DotOperand(d) = e {
                    d.k_width = 32 / orig_bits;
                }
            }
        }
        self
    }
}

/// The bit width `v` was loaded with, as AccelerateMatmul's
/// `computeOrigBitWidth` finds it (Triton 3.9): the backward slice of `v`
/// through elementwise ops, views (`expand_dims`, `reshape`, `trans`,
/// `join`, `split`), `broadcast`, `convert_layout`, `fp4_to_fp` and loads
/// (`tt.load`, `tt.descriptor_load`; their pointer, mask and other operands
/// included), stopping at block arguments and every other op; 4 when the
/// slice holds an `fp4_to_fp`, else the minimum of `v`'s element bits and
/// the element bits of every load in the slice. A `join` does not halve it
/// (Triton 3.9 compiled for sm80: a bf16 B made by `join` of two i8 loads
/// gets `kWidth = 4`, of two bf16 loads `kWidth = 2`; `tests/orig_bits.rs`).
pub fn orig_bit_width(p: &Program, v: crate::ir::ValueId) -> u32 {
    let passes = |o: OpId| {
        let op = &p.ops[o];
        matches!(
            op.kind,
            OpKind::Elementwise
                | OpKind::ExpandDims { .. }
                | OpKind::Reshape
                | OpKind::Trans { .. }
                | OpKind::Join
                | OpKind::Split
                | OpKind::Broadcast
                | OpKind::ConvertLayout
                | OpKind::Load
        ) || op.name == "tt.descriptor_load"
            || op.name == "ttg.fp4_to_fp"
    };
    let mut bits = p.values[v].ty.elem_bits();
    let mut seen = vec![false; p.ops.len()];
    let mut stack = vec![v];
    while let Some(x) = stack.pop() {
        let Some(o) = p.def_op(x) else { continue };
        if seen[o] || !passes(o) {
            continue;
        }
        seen[o] = true;
        let op = &p.ops[o];
        if op.name == "ttg.fp4_to_fp" {
            return 4;
        }
        if op.kind == OpKind::Load || op.name == "tt.descriptor_load" {
            if let Some(&r) = op.results.first() {
                bits = bits.min(p.values[r].ty.elem_bits());
            }
        }
        stack.extend(op.operands.iter().copied());
    }
    bits
}

fn v2_warps(shape: &[u64], num_warps: u64, strict: bool, per_warp: [u64; 2]) -> Vec<u64> {
    let r = shape.len();
    let (m, n) = (shape[r - 2], shape[r - 1]);
    let mut ret = vec![1u64; r];
    let mut left = num_warps;
    if r == 3 {
        ret[0] = shape[0].min(num_warps).max(1);
        left = (num_warps / ret[0]).max(1);
    }
    let (mut wm, mut wn) = (1u64, 1u64);
    while wm * wn < left {
        let rm = m / (per_warp[0] * wm).max(1);
        let rn = n / (per_warp[1] * wn).max(1);
        let m_side = if strict { rm > rn } else { rm >= rn };
        if m_side && wm < (m / per_warp[0]).max(1) {
            wm *= 2;
        } else {
            wn *= 2;
        }
    }
    ret[r - 2] = wm;
    ret[r - 1] = wn;
    ret
}

/// Warps of an unchained rank-2 mfma dot `M × N` (32×32 instructions),
/// as Triton 3.9 arranges them on gfx942: double the warps on M while
/// `M / (64·wM) ≥ N / (32·wN)` and `wM < M / 32`, else on N; when the
/// warps on N then cover more than N (`32·wN > N`), swap the two. The
/// oracle's five gfx942 matmuls fix it: `128×256`/8 → `[2, 4]`,
/// `128×128`/4 → `[2, 2]`, `64×128`/4 → `[1, 4]`, `64×64`/4 → `[2, 2]`,
/// `64×64`/8 → `[4, 2]` (the swap).
fn mfma_warps(m: u64, n: u64, num_warps: u64) -> Vec<u64> {
    let (mut wm, mut wn) = (1u64, 1u64);
    while wm * wn < num_warps {
        if m / (64 * wm) >= n / (32 * wn) && wm < m / 32 {
            wm *= 2;
        } else {
            wn *= 2;
        }
    }
    if 32 * wn > n {
        vec![wn, wm]
    } else {
        vec![wm, wn]
    }
}

/// The blocked accumulator of an FMA dot (Triton's dot conversion into
/// TTGIR): with `e = M·N / (num_warps · lanes)` result elements per
/// thread, each thread holds a `4 × 4` tile of `(M, N)` when `e ≥ 16`,
/// `2 × 2` when `e ≥ 4`, else one element; row-major order, leading
/// (batch) dims one element per thread. Fewer register tiles mean more
/// lanes and warps on the operands' outer dims and cheaper operand
/// conversions (`matmul_f32` IEEE: `64×64` on 4 warps gives `[4, 4]`,
/// `64×32` on 8 warps `[2, 2]`, both Triton's).
pub fn fma_accumulator(shape: &[u64], num_warps: u64, lanes: u64) -> Encoding {
    let rank = shape.len();
    if rank < 2 {
        return default_blocked(shape, num_warps, lanes);
    }
    let per_thread = shape[rank - 2] * shape[rank - 1] / (num_warps * lanes).max(1);
    let tile = match per_thread {
        16.. => 4,
        4..=15 => 2,
        _ => 1,
    };
    let mut spt = vec![1; rank];
    spt[rank - 2] = tile;
    spt[rank - 1] = tile;
    Encoding::Blocked(blocked_for(shape, &spt, &row_major(rank), num_warps, lanes))
}

/// How a dot is chained to other dots of its region (attention's `Q·Kᵀ`
/// feeding `P·V`): the warp arrangement of chained dots follows rules of
/// their own (see [`dot_layout`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DotChain {
    /// Its result reaches another dot's A or B operand (the chain's head).
    pub head: bool,
    /// Its A or B operand comes from another dot (the chain's tail).
    pub tail: bool,
    /// The result `[M, N]` of the last dot of its chain in program order
    /// (itself included).
    pub last: [u64; 2],
}

/// The anchor layouts of a dot `[.., M, K] x [.., K, N]` with operand
/// element bits `bits` (A's), `fp32_ieee` for fp32 dots with IEEE
/// precision, and its [`DotChain`].
///
/// Warps of chained rank-2 dots (Triton 3.9's AccelerateMatmul, as the
/// oracle's records show): wgmma (sm90) puts all warps on M for a chain's
/// head; mma v2 gives every dot of a chain the arrangement of its last
/// dot, all warps on M when that dot's `M ≥ N`, else all on N (flash
/// attention on sm80 with `BM = 64`, `HEAD_DIM = 128`: `[1, 4]`); mfma
/// (gfx942) puts all warps on M for the head and, for the tail,
/// `min(num_warps, ⌈M / 32⌉)` on M and the rest on N (`128×64` on 8 warps:
/// `[4, 2]`; `64×64` on 8: `[2, 4]`).
pub fn dot_layout(
    target: Target,
    shape: &[u64],
    k: u64,
    bits: u32,
    fp32_ieee: bool,
    chain: DotChain,
    num_warps: u64,
) -> DotChoice {
    dot_layout_with_warps(target, shape, k, bits, fp32_ieee, chain, num_warps, None)
}

/// [`dot_layout`] with the warp arrangement `warps` (`warpsPerCTA` of the
/// accumulator, from [`legal_dot_warps`]) in place of AccelerateMatmul's
/// rule; `None` keeps the rule. FMA dots ignore it (their blocked
/// accumulator is [`fma_accumulator`]'s).
#[allow(clippy::too_many_arguments)]
pub fn dot_layout_with_warps(
    target: Target,
    shape: &[u64],
    k: u64,
    bits: u32,
    fp32_ieee: bool,
    chain: DotChain,
    num_warps: u64,
    warps: Option<&[u64]>,
) -> DotChoice {
    let chained = chain.head;
    let rank = shape.len();
    let lanes = target.threads_per_warp();
    if fp32_ieee || rank < 2 {
        let parent = fma_accumulator(shape, num_warps, lanes);
        let op = |i| {
            Encoding::DotOperand(DotOperand {
                op_idx: i,
                parent: Box::new(parent.clone()),
                k_width: 0,
            })
        };
        return DotChoice {
            a: Some(op(0)),
            b: Some(op(1)),
            result: parent,
            a_in_registers: None,
        };
    }
    let (m, n) = (shape[rank - 2], shape[rank - 1]);
    match target {
        Target::Sm90
            if rank == 2
                && num_warps & 3 == 0
                && m % 64 == 0
                && n % 8 == 0
                && k >= 256 / bits.max(1) as u64
                && bits <= 32 =>
        {
            let mut w = [4u64, 1];
            if chained {
                w = [num_warps, 1];
            } else {
                while w[0] * w[1] < num_warps {
                    if m > 16 * w[0] {
                        w[0] *= 2;
                    } else {
                        w[1] *= 2;
                    }
                }
            }
            if let Some(&[wm, wn]) = warps {
                w = [wm, wn];
            }
            let cap = (n / w[1]).max(8);
            let inst_n = (1..=32u64)
                .rev()
                .map(|x| x * 8)
                .find(|&x| n % x == 0 && x <= cap)
                .unwrap_or(8);
            let kk = 256 / bits.max(1) as u64;
            let mma = Encoding::NvidiaMma(NvidiaMma {
                version_major: 3,
                version_minor: 0,
                warps_per_cta: w.to_vec(),
                instr_shape: vec![16, inst_n, kk],
                cga: Cga::default(),
            });
            let a_reg = Encoding::DotOperand(DotOperand {
                op_idx: 0,
                parent: Box::new(mma.clone()),
                k_width: (32 / bits.max(1)).max(1),
            });
            DotChoice {
                result: mma,
                a: None,
                b: None,
                a_in_registers: Some(a_reg),
            }
        }
        Target::Gfx942 => {
            let w = if let Some(w) = warps.filter(|w| w.len() == rank) {
                w.to_vec()
            } else if chain.head && rank == 2 {
                vec![num_warps, 1]
            } else if chain.tail && rank == 2 {
                let on_m = num_warps.min(shape[0].div_ceil(32)).max(1);
                vec![on_m, num_warps / on_m]
            } else if rank == 2 {
                mfma_warps(shape[0], shape[1], num_warps)
            } else {
                v2_warps(shape, num_warps, true, [32, 32])
            };
            let mfma = Encoding::AmdMfma(Mfma {
                version: 3,
                warps_per_cta: w,
                instr_shape: vec![32, 32, 8],
                is_transposed: true,
                tiles_per_warp: None,
                element_bit_width: 32,
                cga_bases: vec![],
            });
            let kw = (64 / bits.max(1)).max(1);
            let op = |i| {
                Encoding::DotOperand(DotOperand {
                    op_idx: i,
                    parent: Box::new(mfma.clone()),
                    k_width: kw,
                })
            };
            DotChoice {
                a: Some(op(0)),
                b: Some(op(1)),
                result: mfma,
                a_in_registers: None,
            }
        }
        _ => {
            let w = if let Some(w) = warps.filter(|w| w.len() == rank) {
                w.to_vec()
            } else if (chain.head || chain.tail) && rank == 2 {
                if chain.last[0] >= chain.last[1] {
                    vec![num_warps, 1]
                } else {
                    vec![1, num_warps]
                }
            } else {
                v2_warps(shape, num_warps, false, [16, 8])
            };
            let instr = if rank == 3 {
                vec![1, 16, 8]
            } else {
                vec![16, 8]
            };
            let mma = Encoding::NvidiaMma(NvidiaMma {
                version_major: 2,
                version_minor: 0,
                warps_per_cta: w,
                instr_shape: instr,
                cga: Cga::default(),
            });
            let kw = (32 / bits.max(1)).max(1);
            let op = |i| {
                Encoding::DotOperand(DotOperand {
                    op_idx: i,
                    parent: Box::new(mma.clone()),
                    k_width: kw,
                })
            };
            DotChoice {
                a: Some(op(0)),
                b: Some(op(1)),
                result: mma,
                a_in_registers: None,
            }
        }
    }
}

/// The legal warp arrangements `[wM, wN]` (`warpsPerCTA`, `wM · wN =
/// num_warps`, powers of two) of a rank-2 dot `M × N` (reduction length
/// `k`, operand bits `bits`) that [`dot_layout`] would make an mma v2,
/// wgmma or mfma dot, in increasing `wM`; empty for FMA dots and rank 3.
///
/// An arrangement is legal when the warps tile the accumulator without
/// replication, one instruction tile per warp at least: mma v2 `16 × 8`
/// (`16·wM ≤ M`, `8·wN ≤ N`); wgmma warp groups of 4 consecutive warps
/// along M (`wM % 4 == 0`, each warp 16 rows: `16·wM ≤ M`; `8·wN ≤ N`,
/// the smallest instruction N); mfma `32 × 32` (`32·wM ≤ M`,
/// `32·wN ≤ N`). Triton's own rule ([`dot_layout`]) may replicate (all
/// warps on M for a chain whatever M is); callers keep it as a candidate
/// besides these.
pub fn legal_dot_warps(
    target: Target,
    shape: &[u64],
    k: u64,
    bits: u32,
    fp32_ieee: bool,
    num_warps: u64,
) -> Vec<[u64; 2]> {
    if fp32_ieee || shape.len() != 2 || !num_warps.is_power_of_two() {
        return Vec::new();
    }
    let (m, n) = (shape[0], shape[1]);
    let wgmma = target == Target::Sm90
        && num_warps & 3 == 0
        && m % 64 == 0
        && n % 8 == 0
        && k >= 256 / bits.max(1) as u64
        && bits <= 32;
    let (tm, tn) = match target {
        Target::Gfx942 => (32, 32),
        _ => (16, 8),
    };
    let mut out = Vec::new();
    let mut wm = 1;
    while wm <= num_warps {
        let wn = num_warps / wm;
        if (!wgmma || wm % 4 == 0) && tm * wm <= m && tn * wn <= n {
            out.push([wm, wn]);
        }
        wm *= 2;
    }
    out
}

/// Coalesce's decision for every global load/store/atomic of `p` (in
/// program order): the op, its line, the pointer's shape and the
/// [`Coalesced`] order and width.
pub fn memory_anchors(
    p: &Program,
    target: Target,
    num_warps: u64,
) -> Vec<(OpId, Vec<u64>, Coalesced)> {
    memory_anchors_with(p, target, num_warps, &analyse(p))
}

pub(crate) fn memory_anchors_with(
    p: &Program,
    target: Target,
    num_warps: u64,
    info: &[AxisInfo],
) -> Vec<(OpId, Vec<u64>, Coalesced)> {
    let lanes = target.threads_per_warp();
    let mut out = Vec::new();
    for o in p.walk() {
        let op = &p.ops[o];
        if !matches!(op.kind, OpKind::Load | OpKind::Store | OpKind::Atomic) {
            continue;
        }
        let Some(&ptr) = op.operands.first() else {
            continue;
        };
        let Some(s) = p.values[ptr].ty.tensor_shape().map(<[u64]>::to_vec) else {
            continue;
        };
        let elem = p.values[ptr].ty.elem();
        let pointee = elem
            .strip_prefix("!tt.ptr<")
            .and_then(|x| x.strip_suffix('>'))
            .unwrap_or(elem);
        let c = coalesced(
            &s,
            &info[ptr],
            crate::ir::elem_bits(pointee),
            num_warps,
            lanes,
        );
        out.push((o, s, c));
    }
    // Coalesce's same-order rule: a load or store takes the widest width
    // of the memory ops of its shape and order (Triton looks in the op's
    // slice; we look in the function), within the elements per thread.
    // A write then keeps no more than its own width (Coalesce clamps every
    // op but a load: a wider store leaves gaps in each warp's write; the
    // oracle's `per_thread` is logged before that clamp, its
    // `per_thread_op` is the op's own width). Measured on the H200
    // (2026-11-25, `bench/engine-gpu`, case 059: `rmsnorm_fwd` with an
    // unaligned row, 16384 f16): storing 8 elements per thread where the
    // pointer allows 1 took 50.0 µs, Triton's 1-wide store 16.5 µs.
    // The widest width of each shape and order (comparing every op with
    // every other took time quadratic in the number of memory ops).
    let mut widths: std::collections::HashMap<(Vec<u64>, Vec<usize>), u64> =
        std::collections::HashMap::new();
    for (_, s, c) in &out {
        let w = widths.entry((s.clone(), c.order.clone())).or_insert(0);
        *w = (*w).max(c.per_thread);
    }
    for (o, s, c) in &mut out {
        let own = c.per_thread;
        // Atomics: one element per thread, except a floating-point add on
        // sm90, which keeps its own width (PTX's vector `red.global.add`
        // of f32, f16x2 and bf16x2 needs sm_90): the sm90 split-K matmul
        // of the corpora with aligned pointers adds 4 f32 per thread in
        // Triton's TTGIR; every other atomic of the oracle's corpora
        // (sm80, integer adds, exchanges, unaligned pointers) has width 1.
        if p.ops[*o].kind == OpKind::Atomic {
            let vector_fadd = target == Target::Sm90
                && p.ops[*o].name == "tt.atomic_rmw"
                && p.ops[*o].text.trim_start().starts_with("fadd");
            if !vector_fadd {
                c.per_thread = 1;
            }
        }
        if matches!(p.ops[*o].kind, OpKind::Load | OpKind::Store) {
            if let Some(&w) = widths.get(&(s.clone(), c.order.clone())) {
                c.per_thread = c.per_thread.max(w);
            }
        }
        if p.ops[*o].kind == OpKind::Store {
            c.per_thread = c.per_thread.min(own);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Triton's default layouts, read from the oracle's initial TTGIR
    /// (`transpose.sm80.w4`, 32x128 at 4 warps: lanes along the fast dim).
    #[test]
    fn default_blocked_fills_lanes_along_the_fast_dim() {
        let b = default_blocked(&[32, 128], 4, 32);
        assert_eq!(
            b.to_mlir(),
            "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>"
        );
        let b = default_blocked(&[128, 32], 4, 32);
        assert_eq!(
            b.to_mlir(),
            "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>"
        );
    }

    /// Legal warp arrangements: mma v2 `16 × 8` tiles without replication,
    /// wgmma warp groups of 4 along M, mfma `32 × 32` tiles.
    #[test]
    fn legal_dot_warps_follow_the_instruction_tiles() {
        let l = |t, m, n, w| legal_dot_warps(t, &[m, n], 64, 16, false, w);
        assert_eq!(l(Target::Sm80, 64, 64, 4), [[1, 4], [2, 2], [4, 1]]);
        // 16 rows: one warp on M at most.
        assert_eq!(l(Target::Sm80, 16, 64, 4), [[1, 4]]);
        assert_eq!(l(Target::Sm90, 128, 128, 8), [[4, 2], [8, 1]]);
        assert_eq!(l(Target::Sm90, 64, 128, 4), [[4, 1]]);
        // M = 32 is no wgmma tile: mma v2's arrangements.
        assert_eq!(l(Target::Sm90, 32, 64, 4), [[1, 4], [2, 2]]);
        assert_eq!(l(Target::Gfx942, 128, 128, 8), [[2, 4], [4, 2]]);
        assert!(l(Target::Gfx942, 64, 64, 8).is_empty());
        // FMA and rank 3: none.
        assert!(legal_dot_warps(Target::Sm80, &[64, 64], 64, 32, true, 4).is_empty());
        assert!(legal_dot_warps(Target::Sm80, &[2, 64, 64], 64, 16, false, 4).is_empty());
    }

    /// The same record's coalesced load (from its `coalesce_decisions`:
    /// contiguity [1, 128], divisibility [2, 16] bytes, f16): 8 per thread.
    #[test]
    fn coalesced_matches_a_recorded_decision() {
        let info = AxisInfo {
            contiguity: vec![1, 128],
            divisibility: vec![2, 16],
            constancy: vec![1, 1],
            constant: None,
        };
        let c = coalesced(&[32, 128], &info, 16, 4, 32);
        assert_eq!(
            c,
            Coalesced {
                order: vec![1, 0],
                per_thread: 8
            }
        );
        assert_eq!(
            coalesced_layout(&[32, 128], &c, 4, 32).to_mlir(),
            "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>"
        );
    }
}

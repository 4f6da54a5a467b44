//! How Triton 3.9 lowers one `tt.gather` to the GPU (its
//! `GatherOpToLLVM.cpp`), counted and priced in the plan cost model's
//! units. The engine's TTGIR is lowered by Triton, so this, not a model of
//! our own emitter (`layout_codegen::gather_cost`), is what a gather in a
//! given pair of layouts costs.
//!
//! `out[c] = src[c with c[axis] := index[c]]`; `S` is the source's layout,
//! `I` the index's (the result's too).
//!
//! ## Which path
//! Triton takes the **warp-local** path whenever its test holds
//! (`GatherLoweringHelper::isWarpLocal`, here
//! [`layout_codegen::gather::is_warp_local`]: the `(block, warp)` bases of
//! `S` and `I` have no axis component, and `S` and `I` agree on the
//! non-axis dims as functions of `(block, warp)` and of `lane`); otherwise
//! the **shared-memory** path. It never weighs one against the other, so
//! neither does this model.
//!
//! ## Warp-local: counts per thread
//! `R` = the source registers one column along the axis spans: `2^k`, `k`
//! the axis bits whose image under the pseudo-inverse `S⁺` has a non-zero
//! register part (Triton removes the zero ones and takes the size that
//! is left). For every index register Triton emits `R` `shfl.sync.idx`
//! (one per candidate source register, all to the lane `S⁺` names) and `R`
//! compare-and-selects on the source register `S⁺` names; the first select
//! is against `undef` and folds away, leaving `R − 1`. A 64-bit element is
//! shuffled and selected as two 32-bit words. Replicated index registers
//! (register bases dependent on earlier ones, e.g. zero) compute the same
//! values and are merged by LLVM, so the count is over the `2^rank`
//! distinct registers.
//!
//! ## Shared memory: counts per thread
//! Every distinct source register is stored with a scalar `st.shared` at
//! the row-major offset of its coordinate (the whole source tensor, last
//! dim fastest), one barrier, then every distinct index register is read
//! with a scalar `ld.shared` at the offset of `c with c[axis] := index`.
//!
//! All of the above agree with Triton 3.9's PTX for 14 kernels
//! (`tools/gather_ptx.py`, `tests/gather_lowering.rs`).
//!
//! ## Cost
//! The roofline of [`layout_codegen::cost`], in cycles of one SM per warp:
//! `max(shuffles + store wavefronts + load wavefronts, (compares +
//! selects) / ALU_PER_CYCLE) + BARRIER_COST · barriers`. Store wavefronts
//! are exact (the 32 lanes' addresses of each scalar store, counted by
//! [`layout_codegen::wavefront::access_wavefronts`], averaged over warps);
//! load wavefronts are their expectation when index values are uniform on
//! the axis ([`layout_codegen::gather_cost::gather_cost`], which draws each
//! lane's index independently, an overestimate where lanes replicate an
//! index). The index arithmetic (a few ALU instructions per index
//! register on either path) and the unpacking of sub-32-bit elements are
//! left out.

use crate::error::{EngineError, Result};
use layout_codegen::cost::{ALU_PER_CYCLE, BARRIER_COST};
use layout_codegen::gather::{gather_shared_plan, is_warp_local, GatherError};
use layout_codegen::gather_cost::gather_cost;
use layout_codegen::wavefront::access_wavefronts;
use linear_layout::gf2::EchelonBasis;
use linear_layout::{DimName, LinearLayout};

/// The path Triton takes (module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GatherPath {
    /// Shuffles within each warp and selects.
    WarpLocal,
    /// The source through shared memory.
    Shared,
}

/// Triton's lowering of one gather: its counts and its predicted cost.
#[derive(Clone, Debug, PartialEq)]
pub struct TritonGather {
    /// The path.
    pub path: GatherPath,
    /// Distinct index registers per thread.
    pub index_registers: u64,
    /// Distinct source registers per thread.
    pub source_registers: u64,
    /// `R`: source registers per column along the axis (warp-local; 1 on
    /// the shared path).
    pub regs_per_column: u64,
    /// `shfl.sync.idx` per thread (= warp instructions per warp).
    pub shuffles: u64,
    /// Compares per thread.
    pub compares: u64,
    /// Selects per thread (32-bit words).
    pub selects: u64,
    /// Scalar `st.shared` per thread.
    pub stores: u64,
    /// Scalar `ld.shared` per thread.
    pub loads: u64,
    /// Barriers.
    pub barriers: u64,
    /// Store wavefronts per warp (exact).
    pub store_wavefronts: f64,
    /// Load wavefronts per warp (expected, uniform index values).
    pub load_wavefronts: f64,
}

impl TritonGather {
    /// Predicted cycles per warp (module doc).
    pub fn cycles(&self) -> f64 {
        let mio = self.shuffles as f64 + self.store_wavefronts + self.load_wavefronts;
        let alu = (self.compares + self.selects) as f64 / ALU_PER_CYCLE;
        mio.max(alu) + BARRIER_COST * self.barriers as f64
    }

    /// One line for `--explain`.
    pub fn describe(&self) -> String {
        match self.path {
            GatherPath::WarpLocal => format!(
                "Triton: warp-local, {} shfl + {} selects per thread ({} index registers x {} candidates)",
                self.shuffles, self.selects, self.index_registers, self.regs_per_column
            ),
            GatherPath::Shared => format!(
                "Triton: through shared memory, {} stores ({} wavefronts/warp), barrier, {} loads ({:.1} expected wavefronts/warp)",
                self.stores, self.store_wavefronts, self.loads, self.load_wavefronts
            ),
        }
    }
}

/// Triton's lowering of a gather along `axis` of `bits`-bit elements with
/// the source in `src` and the index in `idx` (module doc).
pub fn triton_gather(
    src: &LinearLayout,
    idx: &LinearLayout,
    axis: usize,
    bits: u32,
) -> Result<TritonGather> {
    let err = |e: GatherError| EngineError::Plan {
        value: String::new(),
        shape: crate::shape_ops::out_shape(idx),
        message: format!("gather along axis {axis}: {e}"),
    };
    let words = u64::from(bits.div_ceil(32).max(1));
    let index_registers = distinct_registers(idx).len() as u64;
    let source_registers = distinct_registers(src).len() as u64;
    let zero = TritonGather {
        path: GatherPath::WarpLocal,
        index_registers,
        source_registers,
        regs_per_column: 1,
        shuffles: 0,
        compares: 0,
        selects: 0,
        stores: 0,
        loads: 0,
        barriers: 0,
        store_wavefronts: 0.0,
        load_wavefronts: 0.0,
    };
    if is_warp_local(src, idx, axis).map_err(err)? {
        let r = regs_per_column(src, axis)?;
        return Ok(TritonGather {
            regs_per_column: r,
            shuffles: index_registers * r * words,
            compares: index_registers * (r - 1),
            selects: index_registers * (r - 1) * words,
            ..zero
        });
    }
    let plan = gather_shared_plan(src, &dedup_registers(idx)?, axis, bits).map_err(err)?;
    let loads = gather_cost(&dedup_registers(idx)?, &plan, None, bits).shared_load;
    Ok(TritonGather {
        path: GatherPath::Shared,
        stores: source_registers,
        loads: index_registers,
        barriers: 1,
        store_wavefronts: store_wavefronts(src, &plan.strides, bits),
        load_wavefronts: loads,
        ..zero
    })
}

/// `R` of the module doc: `2^k`, `k` the bits of dim `axis` whose image
/// under `src`'s pseudo-inverse has a non-zero register part.
pub fn regs_per_column(src: &LinearLayout, axis: usize) -> Result<u64> {
    let inv = src.pseudoinvert().map_err(|e| EngineError::Plan {
        value: String::new(),
        shape: crate::shape_ops::out_shape(src),
        message: format!("gather source layout has no pseudo-inverse: {e}"),
    })?;
    let reg = inv.out_dims().iter().position(|d| d.0 == DimName::REGISTER);
    let k = inv
        .packed_bases(DimName::dim(axis))
        .iter()
        .filter(|&&b| reg.is_some_and(|i| inv.unpack(b)[i] != 0))
        .count();
    Ok(1 << k)
}

/// One register index per distinct register of `l`: the span of its
/// independent register bases (earlier bases first), in increasing order.
pub fn distinct_registers(l: &LinearLayout) -> Vec<u64> {
    let mut basis = EchelonBasis::new();
    let pivots: Vec<u64> = l
        .packed_bases(DimName::REGISTER)
        .iter()
        .enumerate()
        .filter(|&(_, &b)| basis.insert_if_independent(b))
        .map(|(k, _)| 1u64 << k)
        .collect();
    let mut regs: Vec<u64> = (0..1u64 << pivots.len())
        .map(|m| {
            pivots
                .iter()
                .enumerate()
                .filter(|&(j, _)| m >> j & 1 == 1)
                .fold(0, |acc, (_, &p)| acc | p)
        })
        .collect();
    regs.sort_unstable();
    regs
}

/// `l` with its dependent register bases dropped (the distinct registers).
fn dedup_registers(l: &LinearLayout) -> Result<LinearLayout> {
    let mut basis = EchelonBasis::new();
    let bases = l
        .all_bases()
        .into_iter()
        .map(|(d, bs)| {
            if d != DimName::REGISTER {
                return (d, bs);
            }
            let keep = l
                .packed_bases(d)
                .iter()
                .zip(bs)
                .filter(|&(&p, _)| basis.insert_if_independent(p))
                .map(|(_, b)| b)
                .collect();
            (d, keep)
        })
        .collect();
    LinearLayout::new(bases, l.out_dims(), false).map_err(|e| EngineError::Plan {
        value: String::new(),
        shape: crate::shape_ops::out_shape(l),
        message: format!("index layout without its replicated registers: {e}"),
    })
}

/// Store wavefronts per warp of the shared path: every distinct source
/// register stored by the 32 lanes of each warp at the row-major offset
/// (`strides`) of its coordinate, averaged over warps.
fn store_wavefronts(src: &LinearLayout, strides: &[u64], bits: u32) -> f64 {
    let bytes = u64::from(bits.max(8)) / 8;
    let lanes = src.in_dim_size(DimName::LANE);
    let warps = src.in_dim_size(DimName::WARP).max(1);
    let regs = distinct_registers(src);
    let offset = |r: u64, l: u64, w: u64| -> u64 {
        let c = src.unpack(layout_codegen::bank_conflicts::hw_apply(src, r, l, w, 0));
        c.iter().zip(strides).map(|(&x, &s)| x * s).sum::<u64>() * bytes
    };
    let mut total = 0u64;
    let mut addresses = Vec::with_capacity(lanes as usize);
    for w in 0..warps {
        for &r in &regs {
            addresses.clear();
            addresses.extend((0..lanes).map(|l| offset(r, l, w)));
            total += access_wavefronts(&addresses, bytes).iter().sum::<u64>();
        }
    }
    total as f64 / warps as f64
}

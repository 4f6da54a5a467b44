//! The tcgen05.ld / tcgen05.st register layouts (Triton's
//! `getDistributedLayoutForTmemLdSt`, behind Gluon's
//! `_compute_tmem_reg_layout`).

use super::TensorMemory;
use crate::error::{invalid, Result};
use linear_layout::LinearLayout;

/// A tcgen05 message shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TmemAtom {
    /// 32 lanes × 32 bits.
    I32x32b,
    /// 16 lanes × 64 bits.
    I16x64b,
    /// 16 lanes × 128 bits.
    I16x128b,
    /// 16 lanes × 256 bits.
    I16x256b,
}

/// The arguments of Gluon's `_compute_tmem_reg_layout` (the oracle's
/// `tmem_reg` records' `params`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TmemRegParams {
    /// Element bitwidth (8, 16, 32).
    pub element_bitwidth: u64,
    /// Tensor shape `[M, N]`.
    pub shape: Vec<u64>,
    /// Allocation shape (its last two dims are used).
    pub alloc_shape: Vec<u64>,
    /// The tensor-memory layout.
    pub tmem_layout: TensorMemory,
    /// Warps (power of two ≥ 4).
    pub num_warps: u64,
    /// `"32x32b"`, `"16x64b"`, `"16x128b"`, `"16x256b"` or `"32x32b_splitn"`.
    pub atom: String,
}

/// The register layout (`register, lane, warp, block → dim0, dim1`).
pub fn tmem_reg_layout(p: &TmemRegParams) -> Result<LinearLayout> {
    Err(invalid("tmem_reg", format!("not implemented: {}", p.atom)))
}

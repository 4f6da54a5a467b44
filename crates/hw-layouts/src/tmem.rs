//! Blackwell tensor memory layouts and the tcgen05 register-message layouts.
//!
//! A tensor-memory layout maps TMEM coordinates to the tensor: input dims
//! `row` (TMEM lane, 0..127; rows 32 and 64 select the 32-lane
//! sub-partition a warp can reach) and `col` (TMEM column, 32-bit units
//! times `colStride`) → `(dim0 = M, dim1 = N)`, plus `block` (CTA) when
//! several CTAs share the tensor. Zero bases in `row` 32/64 mean broadcast;
//! zero bases elsewhere mean an unused (undefined) slot.

use crate::error::{invalid, HwError, Result};
use crate::shape::check_shape;
use crate::shared::common::*;
use crate::syntax::{Attribute, Value};
use linear_layout::utils::ensure_layout_not_larger_than;
use linear_layout::{DimName, LinearLayout};

mod reg;
pub use reg::{tmem_reg_layout, TmemAtom, TmemRegParams};

const TMEM: &str = "tensor_memory_encoding";
const SCALES: &str = "tensor_memory_scales_encoding";

/// Multiplies a per-CTA layout (out sizes = per-CTA shape) by the CGA layout
/// (tile units): block bases become `basis · perCTA` elements.
fn with_cga(per_cta: LinearLayout, cga: &[Vec<u64>], shape: &[u64]) -> Result<LinearLayout> {
    let rank = shape.len();
    // CTAs beyond the tensor's extent broadcast (ensureLayoutNotLargerThan).
    let cga = ensure_layout_not_larger_than(&cga_layout(cga, rank)?, &shape_pairs(shape), true)?;
    let l = per_cta.try_mul(&cga)?;
    Ok(l.transpose_outs(&DimName::standard_out_dims(rank))?)
}

/// `per_cta × CGA` without clipping the CGA to the shape: tensor-memory
/// scales keep a CTA split of a dimension the tensor does not fill (Triton
/// 3.9: shape `[256, 1]` with `CGALayout = [[0, 1]]` has out dims
/// `[256, 2]`; seed-53 oracle record `s53-L00835`).
fn with_cga_unclipped(
    per_cta: LinearLayout,
    cga: &[Vec<u64>],
    rank: usize,
) -> Result<LinearLayout> {
    let l = per_cta.try_mul(&cga_layout(cga, rank)?)?;
    Ok(l.transpose_outs(&DimName::standard_out_dims(rank))?)
}

/// Checks a 2-D power-of-two shape and returns the per-CTA shape.
fn per_cta_2d(shape: &[u64], cga: &[Vec<u64>], layout: &'static str) -> Result<Vec<u64>> {
    check_shape(shape)?;
    if shape.len() != 2 {
        return Err(HwError::InvalidShape {
            shape: shape.to_vec(),
            message: format!("{layout} needs a rank-2 shape"),
        });
    }
    let cga_ll = cga_layout(cga, 2)?;
    Ok(shape_per_cta(&cga_ll, shape))
}

/// `#ttng.tensor_memory_encoding<blockM = M, blockN = N, colStride = S[,
/// fp4Padded = true][, CGALayout = ..][, twoCTAs = true]>`.
///
/// Per CTA (shape `[m, n]` = shape / CGA), with `bN = min(N, n)`:
/// `zeros1D(S, col, dim1)` (each element takes `S` columns), `×
/// zeros1D(2, col, dim1)` with fp4Padded, then
/// * `M = 128`: `identity1D(128, row, dim0) × identity1D(bN, col, dim1)`;
/// * `M = 64`: rows 1..8 → `(r, 0)`, then row 16 → `(64, 0)` if `m > 64`,
///   else `(0, bN)` if `n > bN`, else `(0, 0)` (unused), then rows 32, 64 →
///   `(16, 0)`, `(32, 0)` (the two 16-row halves of 32 rows interleave);
///   with `twoCTAs`: rows are `identity1D(64)` and the last column basis
///   so far (a column bit, or a `colStride` zero basis when `bN = 1`)
///   moves to row 64;
///
/// then repetitions `identity1D(m / tileM, col, dim0) × identity1D(n /
/// tileN, col, dim1)` (M first). Finally `× CGA` (in dim `block`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorMemory {
    /// 64 or 128.
    pub block_m: u64,
    /// Power of two ≤ 512.
    pub block_n: u64,
    /// 1, 2 or 4 (32-bit columns per element).
    pub col_stride: u64,
    /// CGA bases in tile units.
    pub cga: Vec<Vec<u64>>,
    /// Two-CTA MMA mode (first CGA basis `[1, 0]`).
    pub two_ctas: bool,
    /// FP4 operand padded to one byte per element.
    pub fp4_padded: bool,
}

impl TensorMemory {
    /// Builds and checks the encoding (Triton's verifier).
    pub fn new(
        block_m: u64,
        block_n: u64,
        col_stride: u64,
        cga: Vec<Vec<u64>>,
        two_ctas: bool,
        fp4_padded: bool,
    ) -> Result<Self> {
        let t = TensorMemory {
            block_m,
            block_n,
            col_stride,
            cga,
            two_ctas,
            fp4_padded,
        };
        t.validate()?;
        Ok(t)
    }

    fn validate(&self) -> Result<()> {
        if let Some(b) = self.cga.iter().find(|b| b.len() != 2) {
            return Err(invalid(
                TMEM,
                format!("CGALayout must have rank 2, got basis {b:?}"),
            ));
        }
        if self.two_ctas && self.cga.first().map(|b| b.as_slice()) != Some(&[1, 0][..]) {
            return Err(invalid(
                TMEM,
                "twoCTAs layout requires the first CGALayout block basis to be [1, 0]",
            ));
        }
        if self.block_m != 64 && self.block_m != 128 {
            return Err(invalid(
                TMEM,
                format!("blockM must be 64 or 128 but got {}", self.block_m),
            ));
        }
        if self.block_n == 0 || !self.block_n.is_power_of_two() {
            return Err(invalid(
                TMEM,
                format!("blockN must be a power of 2 but got {}", self.block_n),
            ));
        }
        if self.block_n > 512 {
            return Err(invalid(
                TMEM,
                format!(
                    "blockN must be less than or equal to 512 but got {}",
                    self.block_n
                ),
            ));
        }
        if !matches!(self.col_stride, 1 | 2 | 4) {
            return Err(invalid(
                TMEM,
                format!("colStride must be 1, 2, or 4 but got {}", self.col_stride),
            ));
        }
        if self.fp4_padded && self.col_stride != 1 {
            return Err(invalid(
                TMEM,
                format!(
                    "fp4Padded tensor memory layout requires colStride 1 but got {}",
                    self.col_stride
                ),
            ));
        }
        Ok(())
    }

    /// Triton's type check: `bitwidth · colStride ≤ 32`.
    pub fn check_element_bitwidth(&self, bitwidth: u64) -> Result<()> {
        if bitwidth * self.col_stride > 32 {
            return Err(invalid(
                TMEM,
                format!(
                    "bitwidth * colStride must be less than or equal to 32. Got {bitwidth} and {}",
                    self.col_stride
                ),
            ));
        }
        Ok(())
    }

    /// Reads `#ttng.tensor_memory_encoding<...>` (also the older
    /// `unpacked = false` for `colStride = 1` and `CTASplitM`/`CTASplitN`,
    /// read as CGA bases along M then N).
    pub fn from_attr(a: &Attribute) -> Result<Self> {
        if (a.dialect.as_str(), a.name.as_str()) != ("ttng", "tensor_memory_encoding") {
            return Err(HwError::UnknownAttribute(a.full_name()));
        }
        check_fields(
            a,
            TMEM,
            &[
                "blockM",
                "blockN",
                "colStride",
                "unpacked",
                "CTASplitM",
                "CTASplitN",
                "CGALayout",
                "twoCTAs",
                "fp4Padded",
            ],
        )?;
        let col_stride = match (
            opt_u64(a, TMEM, "colStride")?,
            opt_bool(a, TMEM, "unpacked")?,
        ) {
            (Some(c), None) => c,
            (None, Some(false)) => 1,
            (None, Some(true)) => return Err(invalid(
                TMEM,
                "unpacked = true depends on the element bitwidth; write colStride = 32 / bitwidth",
            )),
            (Some(_), Some(_)) => {
                return Err(invalid(TMEM, "give colStride or unpacked, not both"))
            }
            (None, None) => return Err(invalid(TMEM, "missing field 'colStride'")),
        };
        let mut cga = parse_cga(a, TMEM)?.unwrap_or_default();
        let split_m = opt_u64(a, TMEM, "CTASplitM")?.unwrap_or(1);
        let split_n = opt_u64(a, TMEM, "CTASplitN")?.unwrap_or(1);
        for (k, s) in [("CTASplitM", split_m), ("CTASplitN", split_n)] {
            if s == 0 || !s.is_power_of_two() {
                return Err(invalid(
                    TMEM,
                    format!("{k} must be a power of two, got {s}"),
                ));
            }
        }
        if (split_m > 1 || split_n > 1) && !cga.is_empty() {
            return Err(invalid(
                TMEM,
                "give CGALayout or CTASplitM/CTASplitN, not both",
            ));
        }
        let mut s = 1;
        while s < split_m {
            cga.push(vec![s, 0]);
            s *= 2;
        }
        let mut s = 1;
        while s < split_n {
            cga.push(vec![0, s]);
            s *= 2;
        }
        Self::new(
            req_u64(a, TMEM, "blockM")?,
            req_u64(a, TMEM, "blockN")?,
            col_stride,
            cga,
            opt_bool(a, TMEM, "twoCTAs")?.unwrap_or(false),
            opt_bool(a, TMEM, "fp4Padded")?.unwrap_or(false),
        )
    }

    /// The per-CTA layout `row, col → dim0, dim1` for a per-CTA shape.
    pub(crate) fn per_cta_layout(&self, m: u64, n: u64) -> Result<LinearLayout> {
        let (row, col) = (DimName::ROW, DimName::COL);
        let (d0, d1) = (DimName::dim(0), DimName::dim(1));
        let block_n = self.block_n.min(n);
        let mut col_bases: Vec<Vec<u64>> =
            vec![vec![0, 0]; self.col_stride.trailing_zeros() as usize];
        if self.fp4_padded {
            col_bases.push(vec![0, 0]);
        }
        let mut c = 1;
        while c < block_n {
            col_bases.push(vec![0, c]);
            c *= 2;
        }
        let mut row_bases: Vec<Vec<u64>> = Vec::new();
        if self.block_m == 64 {
            if self.two_ctas {
                for r in [1, 2, 4, 8, 16, 32] {
                    row_bases.push(vec![r, 0]);
                }
                // The last column basis of the block (a colStride zero
                // basis when blockN = 1) moves to row 64.
                let Some(last) = col_bases.pop() else {
                    return Err(invalid(
                        TMEM,
                        "twoCTAs with blockM = 64 needs a column basis to move to row 64 (blockN = 1, colStride = 1)",
                    ));
                };
                row_bases.push(last);
            } else {
                for r in [1, 2, 4, 8] {
                    row_bases.push(vec![r, 0]);
                }
                if m > 64 {
                    row_bases.push(vec![64, 0]);
                } else if n > block_n {
                    row_bases.push(vec![0, block_n]);
                } else {
                    row_bases.push(vec![0, 0]);
                }
                row_bases.push(vec![16, 0]);
                row_bases.push(vec![32, 0]);
            }
        } else {
            let mut r = 1;
            while r < 128 {
                row_bases.push(vec![r, 0]);
                r *= 2;
            }
        }
        let bases = vec![(row, row_bases), (col, col_bases)];
        let sizes = inferred_sizes(&bases, 2);
        let (tile_m, tile_n) = (sizes[0], sizes[1]);
        let tile = LinearLayout::new(bases, vec![(d0, tile_m), (d1, tile_n)], false)?;
        let reps_m = m / tile_m;
        let reps_n = n / tile_n;
        if reps_m == 0 || reps_n == 0 {
            return Err(HwError::InvalidShape {
                shape: vec![m, n],
                message: format!(
                    "per-CTA shape is smaller than the tensor-memory tile [{tile_m}, {tile_n}] of blockM = {}, blockN = {}",
                    self.block_m, self.block_n
                ),
            });
        }
        Ok(tile
            .try_mul(&LinearLayout::try_identity_1d(reps_m, col, d0)?)?
            .try_mul(&LinearLayout::try_identity_1d(reps_n, col, d1)?)?)
    }

    /// Triton's type check: the tensor covers at least `blockM · splitM` rows
    /// and `min(blockN, N) · splitN` columns (`split*` = CTAs along M / N).
    fn check_min_shape(&self, shape: &[u64]) -> Result<()> {
        let cga = cga_layout(&self.cga, 2)?;
        let split = |d: usize| cga.out_dim_size(DimName::dim(d));
        let min_m = self.block_m * split(0);
        let min_n = self.block_n.min(shape[1]) * split(1);
        if shape[0] < min_m || shape[1] < min_n {
            return Err(HwError::InvalidShape {
                shape: shape.to_vec(),
                message: format!(
                    "the tensor shape must be at least {min_m}x{min_n}. Got {}, {}",
                    shape[0], shape[1]
                ),
            });
        }
        Ok(())
    }

    /// The full layout `row, col, block → dim0, dim1` of `shape`.
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        self.validate()?;
        let pc = per_cta_2d(shape, &self.cga, TMEM)?;
        self.check_min_shape(shape)?;
        let l = self.per_cta_layout(pc[0], pc[1])?;
        with_cga(l, &self.cga, shape)
    }

    /// What Triton 3.9's `to_linear_layout` binding reports: the `row, col`
    /// part only (the `block` dim is dropped).
    pub fn to_triton_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        without_block(&self.to_linear_layout(shape)?)
    }

    /// Triton's printed form.
    pub fn to_mlir(&self) -> String {
        let mut s = format!(
            "#ttng.tensor_memory_encoding<blockM = {}, blockN = {}, colStride = {}",
            self.block_m, self.block_n, self.col_stride
        );
        if self.fp4_padded {
            s.push_str(", fp4Padded = true");
        }
        if !self.cga.is_empty() {
            s.push_str(&format!(", CGALayout = {}", fmt_matrix(&self.cga)));
        }
        if self.two_ctas {
            s.push_str(", twoCTAs = true");
        }
        s.push('>');
        s
    }
}

/// Scale-block repetition order of [`TensorMemoryScales`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BlockRepOrder {
    /// All M repetitions, then K (the default).
    #[default]
    MnThenK,
    /// M repetitions inside a 128-row block, then K, then the other M
    /// blocks (Rubin).
    KThenMn,
}

/// `#ttng.tensor_memory_scales_encoding<[blockRepOrder = kThenMn][,
/// CGALayout = ..]>`: the tcgen05.mma scale-factor layout. Per CTA:
/// `identity1D(32, row, dim0) × zeros1D(4, row, dim0)` (the 4 sub-partitions
/// hold copies) `× identity1D(4, col, dim1) × identity1D(2, col, dim0)`
/// (a 64 × 4 tile), then column repetitions along dim0 and dim1
/// (`⌈m/64⌉`, `⌈k/4⌉`; see [`BlockRepOrder`]), then clipped to the shape
/// (`ensureLayoutNotLargerThan`); then `× CGA`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorMemoryScales {
    /// Repetition order.
    pub block_rep_order: BlockRepOrder,
    /// CGA bases in tile units.
    pub cga: Vec<Vec<u64>>,
}

/// The `row, col → dim0, dim1` part of a tensor-memory layout: what
/// Triton 3.9's `to_linear_layout` binding reports (it drops `block`).
fn without_block(l: &LinearLayout) -> Result<LinearLayout> {
    Ok(l.sublayout(
        &[DimName::ROW, DimName::COL],
        &DimName::standard_out_dims(2),
    )?)
}

impl TensorMemoryScales {
    /// Reads `#ttng.tensor_memory_scales_encoding<...>`.
    pub fn from_attr(a: &Attribute) -> Result<Self> {
        if (a.dialect.as_str(), a.name.as_str()) != ("ttng", "tensor_memory_scales_encoding") {
            return Err(HwError::UnknownAttribute(a.full_name()));
        }
        check_fields(a, SCALES, &["blockRepOrder", "CGALayout"])?;
        let block_rep_order = match a.get("blockRepOrder") {
            None => BlockRepOrder::MnThenK,
            Some(Value::Ident(s)) if s == "mnThenK" => BlockRepOrder::MnThenK,
            Some(Value::Ident(s)) if s == "kThenMn" => BlockRepOrder::KThenMn,
            Some(v) => {
                return Err(invalid(
                    SCALES,
                    format!("blockRepOrder must be mnThenK or kThenMn, got {v}"),
                ))
            }
        };
        let cga = parse_cga(a, SCALES)?.unwrap_or_default();
        if let Some(b) = cga.iter().find(|b| b.len() != 2) {
            return Err(invalid(
                SCALES,
                format!("CGALayout must have rank 2, got basis {b:?}"),
            ));
        }
        Ok(TensorMemoryScales {
            block_rep_order,
            cga,
        })
    }

    /// The full layout `row, col, block → dim0, dim1` of `shape`.
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        let pc = per_cta_2d(shape, &self.cga, SCALES)?;
        let (row, col) = (DimName::ROW, DimName::COL);
        let (d0, d1) = (DimName::dim(0), DimName::dim(1));
        let tile = LinearLayout::try_identity_1d(32, row, d0)?
            .try_mul(&LinearLayout::try_zeros_1d(4, row, d0, 1)?)?
            .try_mul(&LinearLayout::try_identity_1d(4, col, d1)?)?
            .try_mul(&LinearLayout::try_identity_1d(2, col, d0)?)?;
        let reps_m = pc[0].div_ceil(tile.out_dim_size(d0));
        let reps_k = pc[1].div_ceil(tile.out_dim_size(d1));
        let l = match self.block_rep_order {
            BlockRepOrder::MnThenK => tile
                .try_mul(&LinearLayout::try_identity_1d(reps_m, col, d0)?)?
                .try_mul(&LinearLayout::try_identity_1d(reps_k, col, d1)?)?,
            BlockRepOrder::KThenMn => {
                let inner_m = reps_m.min(2);
                tile.try_mul(&LinearLayout::try_identity_1d(inner_m, col, d0)?)?
                    .try_mul(&LinearLayout::try_identity_1d(reps_k, col, d1)?)?
                    .try_mul(&LinearLayout::try_identity_1d(reps_m / inner_m, col, d0)?)?
            }
        };
        let l = ensure_layout_not_larger_than(&l, &[(d0, pc[0]), (d1, pc[1])], true)?;
        with_cga_unclipped(l, &self.cga, shape.len())
    }

    /// What Triton 3.9's `to_linear_layout` binding reports: `row, col`
    /// only.
    pub fn to_triton_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        without_block(&self.to_linear_layout(shape)?)
    }

    /// Triton's printed form.
    pub fn to_mlir(&self) -> String {
        let mut parts = Vec::new();
        if !self.cga.is_empty() {
            parts.push(format!("CGALayout = {}", fmt_matrix(&self.cga)));
        }
        if self.block_rep_order == BlockRepOrder::KThenMn {
            parts.push("blockRepOrder = kThenMn".to_string());
        }
        format!("#ttng.tensor_memory_scales_encoding<{}>", parts.join(", "))
    }
}

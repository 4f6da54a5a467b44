//! `#ttg.nvmma_shared`: the TMA / wgmma / tcgen05 operand layout.

use super::common::*;
use crate::cga::combine_cta_cga_with_shape;
use crate::error::{invalid, HwError, Result};
use crate::shape::check_shape;
use crate::syntax::Attribute;
use linear_layout::utils::{
    ensure_layout_not_smaller_than, reshape_layout, transpose_linear_layout,
};
use linear_layout::{DimName, LinearLayout};

const NVMMA: &str = "nvmma_shared";

/// `#ttg.nvmma_shared<{swizzlingByteWidth = S, transposed = T,
/// elementBitWidth = E[, fp4Padded = true][, rank = R][, CGALayout = ..]}>`.
///
/// Derived swizzle parameters: `vec = 128 / E` elements (one 16-byte
/// chunk), `perPhase = 128 / S`, `maxPhase = S / 16`.
///
/// The layout (`offset, block → dim0..`) is built on the TMA block
/// ([`Self::tma_block_shape`]): with `S = 0` a row-major identity over the
/// block (last dim fastest); otherwise the core matrix
/// ([`Self::core_matrix_layout`], 8 rows × `8·S/E` columns) grown to the
/// block collapsed to 2-D (`[Π dims 0..r-2, dim r-1]`, swapped when
/// `transposed`: rows first, then columns), reshaped row-major back to the
/// block (rotated when transposed, then transposed with order `[r-1, 0, 1,
/// ..]`). Blocks then repeat to the per-CTA shape, and the CGA is applied.
/// `transposed` makes dim 0 the contiguous dim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NvmmaShared {
    /// 0, 32, 64 or 128.
    pub swizzling_byte_width: u64,
    /// Dim 0 contiguous instead of the last dim.
    pub transposed: bool,
    /// 8, 16, 32 or 64.
    pub element_bit_width: u64,
    /// FP4 data padded to one byte per element pair slot (8-bit, 128B).
    pub fp4_padded: bool,
    /// Tensor rank.
    pub rank: usize,
    /// CGA bases in CTA-tile units.
    pub cga: Vec<Vec<u64>>,
}

impl NvmmaShared {
    /// A one-CTA layout, checked as [`Self::from_attr`] does.
    pub fn new(
        swizzling_byte_width: u64,
        transposed: bool,
        element_bit_width: u64,
        fp4_padded: bool,
        rank: usize,
    ) -> Result<Self> {
        let s = NvmmaShared {
            swizzling_byte_width,
            transposed,
            element_bit_width,
            fp4_padded,
            rank,
            cga: vec![],
        };
        s.validate()?;
        Ok(s)
    }

    fn validate(&self) -> Result<()> {
        if !matches!(self.swizzling_byte_width, 0 | 32 | 64 | 128) {
            return Err(invalid(
                NVMMA,
                format!(
                    "swizzlingByteWidth must be 0, 32, 64 or 128, got {}",
                    self.swizzling_byte_width
                ),
            ));
        }
        if !matches!(self.element_bit_width, 8 | 16 | 32 | 64) {
            return Err(invalid(
                NVMMA,
                format!(
                    "elementBitWidth must be 8, 16, 32 or 64, got {}",
                    self.element_bit_width
                ),
            ));
        }
        if self.rank == 0 {
            return Err(invalid(NVMMA, "rank must be at least 1"));
        }
        if let Some(b) = self.cga.iter().find(|b| b.len() != self.rank) {
            return Err(invalid(
                NVMMA,
                format!("CGALayout basis {b:?} does not have rank {}", self.rank),
            ));
        }
        Ok(())
    }

    /// Reads `#ttg.nvmma_shared<{...}>`.
    pub fn from_attr(a: &Attribute) -> Result<Self> {
        if (a.dialect.as_str(), a.name.as_str()) != ("ttg", "nvmma_shared") {
            return Err(HwError::UnknownAttribute(a.full_name()));
        }
        check_fields(
            a,
            NVMMA,
            &[
                "swizzlingByteWidth",
                "transposed",
                "elementBitWidth",
                "fp4Padded",
                "rank",
                "CGALayout",
                "CTAsPerCGA",
                "CTASplitNum",
                "CTAOrder",
            ],
        )?;
        let cga = parse_cga(a, NVMMA)?;
        let explicit_rank = opt_u64(a, NVMMA, "rank")?.map(|r| r as usize);
        let cga_rank = cga.as_ref().and_then(|c| c.first().map(|b| b.len()));
        let rank = match (explicit_rank, cga_rank) {
            (Some(r), Some(c)) if r != c => {
                return Err(invalid(
                    NVMMA,
                    format!("rank = {r} but the CGA layout has rank {c}"),
                ))
            }
            (Some(r), _) => r,
            (None, Some(c)) => c,
            (None, None) => 2,
        };
        let s = NvmmaShared {
            swizzling_byte_width: req_u64(a, NVMMA, "swizzlingByteWidth")?,
            transposed: opt_bool(a, NVMMA, "transposed")?.unwrap_or(false),
            element_bit_width: opt_u64(a, NVMMA, "elementBitWidth")?.unwrap_or(16),
            fp4_padded: opt_bool(a, NVMMA, "fp4Padded")?.unwrap_or(false),
            rank,
            cga: cga.unwrap_or_default(),
        };
        s.validate()?;
        Ok(s)
    }

    /// `128 / elementBitWidth`.
    pub fn vec(&self) -> u64 {
        128 / self.element_bit_width
    }

    /// `128 / swizzlingByteWidth` (0 without swizzle).
    pub fn per_phase(&self) -> u64 {
        128u64.checked_div(self.swizzling_byte_width).unwrap_or(0)
    }

    /// `swizzlingByteWidth / 16`.
    pub fn max_phase(&self) -> u64 {
        self.swizzling_byte_width / 16
    }

    /// Triton's `getCoreMatrixLinearLayout`: `offset → (dim0 = row, dim1 =
    /// col)` of one core matrix, 8 rows × `8·max(16, S)/E` columns. Column
    /// bits first (`(0, c)`), then row bits `(r, vec·((r/perPhase) mod
    /// maxPhase))` (or `(r, 0)` with `disable_swizzle`). With `fp4Padded`,
    /// column `c` (and the swizzle value) is packed to `(c/16)·8 + c mod 8`,
    /// so the padding offsets alias real coordinates.
    pub fn core_matrix_layout(&self, disable_swizzle: bool) -> Result<LinearLayout> {
        let tile_rows = 8u64;
        let tile_cols = 8 * self.swizzling_byte_width.max(16) / self.element_bit_width;
        let pack = |c: u64| c / 16 * 8 + c % 8;
        let mut bases = Vec::new();
        let mut c = 1;
        while c < tile_cols {
            bases.push(vec![0, if self.fp4_padded { pack(c) } else { c }]);
            c *= 2;
        }
        let mut r = 1;
        while r < tile_rows {
            if disable_swizzle || self.swizzling_byte_width == 0 {
                bases.push(vec![r, 0]);
            } else {
                let sw = self.vec() * ((r / self.per_phase()) % self.max_phase());
                bases.push(vec![r, if self.fp4_padded { pack(sw) } else { sw }]);
            }
            r *= 2;
        }
        Ok(LinearLayout::with_inferred_out_sizes(
            vec![(DimName::OFFSET, bases)],
            DimName::standard_out_dims(2),
        )?)
    }

    /// Triton's `getTMABlockShape(shapePerCTA, packedSize = true)`: every dim
    /// capped at 256; the contiguous dim (last, or 0 when transposed; doubled
    /// for fp4Padded first) set to `8·S/E` when swizzling, which it must
    /// reach; halved again for fp4Padded.
    pub fn tma_block_shape(&self, shape_per_cta: &[u64]) -> Result<Vec<u64>> {
        let mut block = shape_per_cta.to_vec();
        let contig = if self.transposed { 0 } else { block.len() - 1 };
        if self.fp4_padded {
            block[contig] *= 2;
        }
        for s in &mut block {
            *s = (*s).min(256);
        }
        if self.swizzling_byte_width != 0 {
            let need = 8 * self.swizzling_byte_width / self.element_bit_width;
            if block[contig] < need {
                return Err(HwError::InvalidShape {
                    shape: shape_per_cta.to_vec(),
                    message: format!(
                        "block shape along the contiguous dimension {contig} is too small for the swizzle byte size {} in an NVMMASharedLayout, got {} but expected at least {need}",
                        self.swizzling_byte_width, block[contig]
                    ),
                });
            }
            block[contig] = need;
        }
        if self.fp4_padded {
            block[contig] /= 2;
        }
        Ok(block)
    }

    /// The `offset, block → dim0..` layout for the allocation `shape`.
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        check_shape(shape)?;
        self.validate()?;
        let rank = shape.len();
        if rank != self.rank {
            return Err(HwError::InvalidShape {
                shape: shape.to_vec(),
                message: format!("rank {rank} does not match the layout's rank {}", self.rank),
            });
        }
        let off = DimName::OFFSET;
        let cga = cga_layout(&self.cga, rank)?;
        let per_cta = shape_per_cta(&cga, shape);
        if self.swizzling_byte_width != 0 && rank < 2 {
            return Err(HwError::InvalidShape {
                shape: shape.to_vec(),
                message: "a swizzled NVMMA shared layout needs rank >= 2".into(),
            });
        }
        let tma = self.tma_block_shape(&per_cta)?;
        if self.swizzling_byte_width == 0 {
            // Row-major identity over the block (rotated when transposed),
            // built last dim first, so its out dims are in the order
            // dim{r-1}, .., dim0.
            let mut block = tma.clone();
            if self.transposed {
                block.rotate_left(1);
            }
            let mut l = LinearLayout::empty();
            for d in (0..rank).rev() {
                l = l.try_mul(&LinearLayout::try_identity_1d(
                    block[d],
                    off,
                    DimName::dim(d),
                )?)?;
            }
            if self.transposed {
                // Triton 3.9 applies its *positional* transposeLinearLayout
                // to this reversed-order layout: for rank >= 3 sizes and
                // names no longer line up, and the clipping below then
                // gives zero (broadcast) offset bases, exactly as Triton.
                let mut order = vec![rank - 1];
                order.extend(0..rank - 1);
                l = transpose_positional(&l, &order)?;
            }
            let l = ensure_layout_not_smaller_than(&l, &shape_pairs(&per_cta))?;
            return combine_cta_cga_with_shape(&l, &cga, shape);
        }
        let mut collapsed = [tma[..rank - 1].iter().product::<u64>(), tma[rank - 1]];
        if self.transposed {
            collapsed.swap(0, 1);
        }
        let tile = self.core_matrix_layout(false)?;
        let (d0, d1) = (DimName::dim(0), DimName::dim(1));
        let tile_rows = tile.out_dim_size(d0);
        let tile_cols = tile.out_dim_size(d1);
        let packing = if self.fp4_padded { 2 } else { 1 };
        if collapsed[1] * packing < tile_cols || collapsed[0] < tile_rows {
            return Err(HwError::InvalidShape {
                shape: shape.to_vec(),
                message: format!(
                    "Illegal shared layout; expected collapsed shapePerCTA to be at least [{tile_rows}, {}], collapsedTmaShape: [{}, {}]",
                    tile_cols / packing,
                    collapsed[0],
                    collapsed[1]
                ),
            });
        }
        let l = ensure_layout_not_smaller_than(&tile, &[(d0, collapsed[0]), (d1, collapsed[1])])?;
        let mut block = tma.clone();
        if self.transposed {
            block.rotate_left(1);
        }
        let mut l = reshape_layout(&l, &block)?;
        if self.transposed {
            let mut order = vec![rank - 1];
            order.extend(0..rank - 1);
            l = transpose_linear_layout(&l, &order)?;
        }
        let l = ensure_layout_not_smaller_than(&l, &shape_pairs(&per_cta))?;
        combine_cta_cga_with_shape(&l, &cga, shape)
    }

    /// Base alignment of the allocation in bytes: 128 without swizzle, else
    /// 8 × the swizzle width (one full 8-row swizzle pattern): 256, 512, 1024.
    pub fn alignment(&self) -> u64 {
        (8 * self.swizzling_byte_width).max(128)
    }

    /// Triton's printed form: `rank` only when it differs from 2 and no CGA
    /// layout states it, `fp4Padded` only when true.
    pub fn to_mlir(&self) -> String {
        let mut s = format!(
            "#ttg.nvmma_shared<{{swizzlingByteWidth = {}, transposed = {}, elementBitWidth = {}",
            self.swizzling_byte_width, self.transposed, self.element_bit_width
        );
        if self.fp4_padded {
            s.push_str(", fp4Padded = true");
        }
        if self.cga.is_empty() {
            if self.rank != 2 {
                s.push_str(&format!(", rank = {}", self.rank));
            }
        } else {
            s.push_str(&format!(", CGALayout = {}", fmt_matrix(&self.cga)));
        }
        s.push_str("}>");
        s
    }
}

/// Triton's `transposeLinearLayout`: the out dim at *position* `i` (in the
/// layout's current out-dim order, whatever its name) takes the components
/// of position `order[i]`; the names stay in place and the out sizes are
/// inferred from the new bases. (Unlike `linear_layout::utils::
/// transpose_linear_layout`, which permutes by out-dim *names*; the two
/// agree when the out dims are in standard order.)
fn transpose_positional(l: &LinearLayout, order: &[usize]) -> Result<LinearLayout> {
    let outs = l.out_dims();
    if order.len() != outs.len() {
        return Err(invalid(
            NVMMA,
            format!("transpose order {order:?} for {} out dims", outs.len()),
        ));
    }
    let bases = l
        .all_bases()
        .into_iter()
        .map(|(d, bs)| {
            let nb = bs
                .into_iter()
                .map(|b| order.iter().map(|&k| b[k]).collect())
                .collect();
            (d, nb)
        })
        .collect();
    let names = outs.iter().map(|&(name, _)| name).collect();
    Ok(LinearLayout::with_inferred_out_sizes(bases, names)?)
}

//! `#ttg.swizzled_shared` (legacy `#ttg.shared`) and `#ttg.shared_linear`.

use super::common::*;
use crate::cga::combine_cta_cga_with_shape;
use crate::error::{invalid, HwError, Result};
use crate::shape::check_shape;
use crate::syntax::Attribute;
use linear_layout::{DimName, LinearLayout};

const SWIZZLED: &str = "swizzled_shared";

/// `#ttg.swizzled_shared<{vec = V, perPhase = P, maxPhase = M, order = [..]
/// [, CGALayout = [..]]}>`: the classic XOR swizzle.
///
/// With `col = order[0]`, `row = order[1]` and the per-CTA extents
/// `numCols`, `numRows`, the offset bits are, low to high: the column bits
/// (`offset 2^i → (row 0, col 2^i)`), then the row bits (`offset → (r,
/// (V·((r / P) mod M)) mod numCols)` for `r = 2^j`), then identity bits of the
/// remaining dims in `order` order. So the element at (row r, col c) is
/// stored at column `c ⊕ V·((r/P) mod M)` of row r. Then the CGA is applied
/// (`combineCtaCgaWithShape`). Rank 1 is the identity.
///
/// The legacy `#ttg.shared<{..., hasLeadingOffset = true}>` form (the
/// pre-NVMMA wgmma layout) is kept as `leading_offset`: an 8-row tile of
/// `tileWidthBytes / elementBytes` columns with (perPhase, maxPhase) one of
/// (4, 2), (2, 4), (1, 8), element width `128 / vec` bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwizzledShared {
    /// Elements per swizzle unit.
    pub vec: u64,
    /// Rows sharing one phase.
    pub per_phase: u64,
    /// Number of distinct phases.
    pub max_phase: u64,
    /// Dims from fastest to slowest.
    pub order: Vec<usize>,
    /// CGA bases in CTA-tile units (empty: one CTA).
    pub cga: Vec<Vec<u64>>,
    /// Legacy `hasLeadingOffset = true`.
    pub leading_offset: bool,
}

impl SwizzledShared {
    /// A swizzled layout with one CTA, checked as [`Self::from_attr`] does.
    pub fn new(vec: u64, per_phase: u64, max_phase: u64, order: Vec<usize>) -> Result<Self> {
        let s = SwizzledShared {
            vec,
            per_phase,
            max_phase,
            order,
            cga: vec![],
            leading_offset: false,
        };
        s.validate()?;
        Ok(s)
    }

    fn validate(&self) -> Result<()> {
        for (k, v) in [
            ("vec", self.vec),
            ("perPhase", self.per_phase),
            ("maxPhase", self.max_phase),
        ] {
            if v == 0 || v > u32::MAX as u64 {
                return Err(invalid(
                    SWIZZLED,
                    format!("{k} must be in 1..2^32, got {v}"),
                ));
            }
        }
        check_perm(&self.order, SWIZZLED, "order")?;
        if self.order.is_empty() {
            return Err(invalid(SWIZZLED, "order must not be empty"));
        }
        if let Some(b) = self.cga.iter().find(|b| b.len() != self.order.len()) {
            return Err(invalid(
                SWIZZLED,
                format!(
                    "CGALayout basis {b:?} has rank {}, but order has rank {}",
                    b.len(),
                    self.order.len()
                ),
            ));
        }
        if self.leading_offset {
            if !matches!((self.per_phase, self.max_phase), (4, 2) | (2, 4) | (1, 8)) {
                return Err(invalid(
                    SWIZZLED,
                    format!(
                        "Illegal shared encoding. If hasLeadingOffset is true, then (perPhase, maxPhase) must be either (4,2), (2,4), or (1,8); got ({}, {})",
                        self.per_phase, self.max_phase
                    ),
                ));
            }
            if !matches!(self.vec, 2 | 4 | 8 | 16) {
                return Err(invalid(
                    SWIZZLED,
                    format!(
                        "hasLeadingOffset needs vec = 128 / elementBitWidth in 2, 4, 8, 16; got {}",
                        self.vec
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Reads `#ttg.swizzled_shared<{...}>` or legacy `#ttg.shared<{...}>` /
    /// `#triton_gpu.shared<{...}>`.
    pub fn from_attr(a: &Attribute) -> Result<Self> {
        let legacy = match (a.dialect.as_str(), a.name.as_str()) {
            ("ttg", "swizzled_shared") => false,
            ("ttg", "shared") => true,
            _ => return Err(HwError::UnknownAttribute(a.full_name())),
        };
        let mut allowed = vec!["vec", "perPhase", "maxPhase", "order", "CGALayout"];
        if legacy {
            allowed.extend(["hasLeadingOffset", "CTAsPerCGA", "CTASplitNum", "CTAOrder"]);
        } else {
            allowed.extend(["CTAsPerCGA", "CTASplitNum", "CTAOrder"]);
        }
        check_fields(a, SWIZZLED, &allowed)?;
        let s = SwizzledShared {
            vec: req_u64(a, SWIZZLED, "vec")?,
            per_phase: req_u64(a, SWIZZLED, "perPhase")?,
            max_phase: req_u64(a, SWIZZLED, "maxPhase")?,
            order: order_field(a, SWIZZLED, "order")?,
            cga: parse_cga(a, SWIZZLED)?.unwrap_or_default(),
            leading_offset: opt_bool(a, SWIZZLED, "hasLeadingOffset")?.unwrap_or(false),
        };
        s.validate()?;
        Ok(s)
    }

    /// The `offset, block → dim0..` layout of a tensor of `shape` (the
    /// allocation shape).
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        check_shape(shape)?;
        self.validate()?;
        let rank = shape.len();
        if rank != self.order.len() {
            return Err(HwError::InvalidShape {
                shape: shape.to_vec(),
                message: format!("rank {rank} does not match order {:?}", self.order),
            });
        }
        let cga = cga_layout(&self.cga, rank)?;
        let per_cta = shape_per_cta(&cga, shape);
        let off = DimName::OFFSET;
        if rank == 1 {
            let cta = LinearLayout::try_identity_1d(per_cta[0], off, DimName::dim(0))?;
            return combine_cta_cga_with_shape(&cta, &cga, shape);
        }
        let (col_dim, row_dim) = (self.order[0], self.order[1]);
        let (mut num_cols, mut num_rows) = (per_cta[col_dim], per_cta[row_dim]);
        let mut bases2d: Vec<Vec<u64>> = Vec::new();
        if self.leading_offset {
            let tile_width_bytes = match (self.per_phase, self.max_phase) {
                (4, 2) => 32,
                (2, 4) => 64,
                _ => 128,
            };
            let elem_bits = 128 / self.vec;
            let tile_cols = 8 * tile_width_bytes / elem_bits;
            if num_cols < tile_cols || num_rows < 8 {
                return Err(HwError::InvalidShape {
                    shape: shape.to_vec(),
                    message: format!(
                        "Illegal shared layout; expected shape to be at least [8, {tile_cols}], shape: [{num_rows}, {num_cols}]"
                    ),
                });
            }
            num_cols = tile_cols;
            num_rows = 8;
        }
        let mut c = 1;
        while c < num_cols {
            bases2d.push(vec![0, c]);
            c *= 2;
        }
        let mut r = 1;
        while r < num_rows {
            // u128: vec and maxPhase may each be up to 2^32.
            let sw = self.vec as u128 * ((r / self.per_phase) % self.max_phase) as u128;
            let sw = if self.leading_offset {
                sw
            } else {
                sw % num_cols as u128
            };
            let sw = u64::try_from(sw).map_err(|_| {
                invalid(SWIZZLED, format!("swizzle value {sw} of row {r} overflows"))
            })?;
            bases2d.push(vec![r, sw]);
            r *= 2;
        }
        let mut cta = LinearLayout::with_inferred_out_sizes(
            vec![(off, bases2d)],
            vec![DimName::dim(row_dim), DimName::dim(col_dim)],
        )?;
        for &d in &self.order[2..] {
            cta = cta.try_mul(&LinearLayout::try_identity_1d(
                per_cta[d],
                off,
                DimName::dim(d),
            )?)?;
        }
        combine_cta_cga_with_shape(&cta, &cga, shape)
    }

    /// Base alignment of the allocation in bytes (Triton: 16).
    pub fn alignment(&self) -> u64 {
        16
    }

    /// Triton's printed form (`#ttg.swizzled_shared`; the legacy
    /// leading-offset form prints as `#ttg.shared<{..., hasLeadingOffset =
    /// true}>`).
    pub fn to_mlir(&self) -> String {
        let cga = if self.cga.is_empty() {
            String::new()
        } else {
            format!(", CGALayout = {}", fmt_matrix(&self.cga))
        };
        if self.leading_offset {
            return format!(
                "#ttg.shared<{{vec = {}, perPhase = {}, maxPhase = {}, order = {}, hasLeadingOffset = true{cga}}}>",
                self.vec,
                self.per_phase,
                self.max_phase,
                fmt_list(&self.order)
            );
        }
        format!(
            "#ttg.swizzled_shared<{{vec = {}, perPhase = {}, maxPhase = {}, order = {}{cga}}}>",
            self.vec,
            self.per_phase,
            self.max_phase,
            fmt_list(&self.order)
        )
    }
}

const SHARED_LINEAR: &str = "shared_linear";

/// `#ttg.shared_linear<{offset = [[..]], block = [[..]]}, alignment = N>`:
/// an explicit `offset, block → dim0..` map (bases as given; out sizes are
/// the smallest powers of two covering every component) plus the base
/// alignment in bytes. Triton requires the map to be a bijection once zero
/// bases are dropped, and the alignment to be a positive power of two.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedLinear {
    /// Offset bases, one per offset bit, low bit first.
    pub offset: Vec<Vec<u64>>,
    /// Block (CTA) bases, in tensor elements.
    pub block: Vec<Vec<u64>>,
    /// Alignment of the allocation in bytes.
    pub alignment: u64,
    layout: LinearLayout,
}

impl SharedLinear {
    /// Builds and validates the layout.
    pub fn new(offset: Vec<Vec<u64>>, block: Vec<Vec<u64>>, alignment: u64) -> Result<Self> {
        if alignment == 0 || !alignment.is_power_of_two() {
            return Err(invalid(
                SHARED_LINEAR,
                format!("alignment must be a positive power of two, got {alignment}"),
            ));
        }
        let Some(rank) = offset.first().or(block.first()).map(|b| b.len()) else {
            return Err(invalid(
                SHARED_LINEAR,
                "no offset or block bases: cannot tell the rank",
            ));
        };
        if rank == 0 {
            return Err(invalid(SHARED_LINEAR, "bases of rank 0"));
        }
        if let Some(b) = offset.iter().chain(block.iter()).find(|b| b.len() != rank) {
            return Err(invalid(
                SHARED_LINEAR,
                format!(
                    "basis {b:?} has {} components, expected rank {rank}",
                    b.len()
                ),
            ));
        }
        let bases = vec![
            (DimName::OFFSET, offset.clone()),
            (DimName::BLOCK, block.clone()),
        ];
        let sizes = inferred_sizes(&bases, rank);
        let layout = LinearLayout::new(bases, shape_pairs(&sizes), false)?;
        let stripped = layout
            .remove_zero_bases_along_dim(DimName::OFFSET)
            .remove_zero_bases_along_dim(DimName::BLOCK);
        if !stripped.is_invertible() {
            return Err(invalid(
                SHARED_LINEAR,
                format!(
                    "After removing the zero bases the layout must be bijective: offset = {}, block = {}",
                    fmt_matrix(&offset),
                    fmt_matrix(&block)
                ),
            ));
        }
        Ok(SharedLinear {
            offset,
            block,
            alignment,
            layout,
        })
    }

    /// Reads `#ttg.shared_linear<{offset = .., block = ..}, alignment = N>`.
    pub fn from_attr(a: &Attribute) -> Result<Self> {
        if (a.dialect.as_str(), a.name.as_str()) != ("ttg", "shared_linear") {
            return Err(HwError::UnknownAttribute(a.full_name()));
        }
        check_fields(a, SHARED_LINEAR, &["offset", "block", "alignment"])?;
        let offset = match a.get("offset") {
            Some(v) => u64_matrix(v, SHARED_LINEAR, "offset")?,
            None => return Err(invalid(SHARED_LINEAR, "missing field 'offset'")),
        };
        let block = match a.get("block") {
            Some(v) => u64_matrix(v, SHARED_LINEAR, "block")?,
            None => vec![],
        };
        let alignment = opt_u64(a, SHARED_LINEAR, "alignment")?.unwrap_or(16);
        Self::new(offset, block, alignment)
    }

    /// The rank (components per basis).
    pub fn rank(&self) -> usize {
        self.layout.num_out_dims()
    }

    /// The stored layout; `shape` must equal its out sizes (Triton: "Mismatch
    /// in expected shape for dimension d").
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        stored_layout(&self.layout, shape)
    }

    /// Triton's printed form (`block` omitted when empty).
    pub fn to_mlir(&self) -> String {
        let block = if self.block.is_empty() {
            String::new()
        } else {
            format!(", block = {}", fmt_matrix(&self.block))
        };
        format!(
            "#ttg.shared_linear<{{offset = {}{block}}}, alignment = {}>",
            fmt_matrix(&self.offset),
            self.alignment
        )
    }
}

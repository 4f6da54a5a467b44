//! `#ttg.linear` and `#ttg.generic_linear`: a distributed layout given by its
//! bases, `register × lane × warp × block → dim0 × … × dim{r-1}` (basis `i`
//! of an input dim is the image of input `2^i`; images of other inputs are
//! XORs of bases). Also the printers of linear layouts in Triton's syntax.
//!
//! Parsing infers each out size as the smallest power of two above every
//! component and requires the map to be surjective onto those sizes (as
//! Triton's parser). For a tensor `shape` equal to those sizes the layout is
//! its bases; otherwise Triton's `LinearEncodingAttr::toLinearLayout` re-fit
//! applies: dims smaller than the shape get extra `register` bases (dims in
//! the layout's order: by first register basis, then row-major), dims larger
//! than the shape are clipped with the registers that fall off dropped.

use crate::blocked::{check_fields, fmt_matrix, matrix_order};
use crate::error::{invalid, HwError, Result};
use crate::syntax::Attribute;
use linear_layout::utils::{ensure_layout_not_larger_than, ensure_layout_not_smaller_than};
use linear_layout::{DimName, LinearLayout};

const L: &str = "linear";

/// `#ttg.linear<{register, lane, warp, block}>` (or `generic_linear`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Linear {
    /// The layout with inferred out sizes (`dim0..`, standard order).
    pub layout: LinearLayout,
}

impl Linear {
    /// Reads the attribute: the four input dims' bases (`block` may be
    /// omitted), every basis with `rank` non-negative components, register,
    /// lane and block bases zero or a single power of two (warp bases may
    /// mix, as Triton 3.9 allows); 32 or 64 lanes; surjective.
    pub fn from_attr(a: &Attribute) -> Result<Self> {
        check_fields(a, &["register", "lane", "warp", "block"], L)?;
        let mut mats = Vec::with_capacity(4);
        for key in ["register", "lane", "warp", "block"] {
            mats.push(match a.get(key) {
                Some(v) => v.as_int_matrix().ok_or_else(|| {
                    invalid(L, format!("'{key}' must be a list of bases, got {v}"))
                })?,
                None if key == "block" => vec![],
                None => return Err(invalid(L, format!("expected basis of '{key}' not found"))),
            });
        }
        Self::build(&mats, None)
    }

    /// Gluon's `DistributedLinearLayout(reg_bases, lane_bases, warp_bases,
    /// block_bases, shape)`: the same checks as [`Linear::from_attr`], but the
    /// out sizes are `shape` (every component below its dim's size, the map
    /// surjective onto `shape`) instead of inferred from the bases.
    pub fn from_bases(bases: [&[Vec<i64>]; 4], shape: &[u64]) -> Result<Self> {
        let mats: Vec<Vec<Vec<i64>>> = bases.iter().map(|m| m.to_vec()).collect();
        Self::build(&mats, Some(shape))
    }

    /// `mats` = register, lane, warp, block bases.
    fn build(mats: &[Vec<Vec<i64>>], shape: Option<&[u64]>) -> Result<Self> {
        let names = [
            ("register", DimName::REGISTER),
            ("lane", DimName::LANE),
            ("warp", DimName::WARP),
            ("block", DimName::BLOCK),
        ];
        let mut rank: Option<usize> = shape.map(|s| s.len());
        let mut bases = Vec::new();
        for ((key, d), m) in names.into_iter().zip(mats) {
            if m.len() > 30 {
                return Err(invalid(
                    L,
                    format!("'{key}' has too many bases ({})", m.len()),
                ));
            }
            let mut bs = Vec::with_capacity(m.len());
            for (i, b) in m.iter().enumerate() {
                match rank {
                    None => rank = Some(b.len()),
                    Some(r) if r != b.len() => {
                        return Err(invalid(
                            L,
                            format!(
                                "{key} basis {i} {b:?} has {} entries, expected rank {r}",
                                b.len()
                            ),
                        ))
                    }
                    _ => {}
                }
                // Triton 3.9 aborts (orderPerDim) unless register, lane and
                // block bases are zero or one power of two in one dim.
                let nonzero: Vec<i64> = b.iter().copied().filter(|&c| c != 0).collect();
                if key != "warp"
                    && (nonzero.len() > 1 || nonzero.iter().any(|&c| c > 0 && c & (c - 1) != 0))
                {
                    return Err(invalid(
                        L,
                        format!(
                            "{key} basis {i} {b:?} must be zero or a single power of two in one dim (only warp bases may mix)"
                        ),
                    ));
                }
                let mut ub = Vec::with_capacity(b.len());
                for (k, &c) in b.iter().enumerate() {
                    let limit = shape.map_or(1 << 30, |s| s[k].min(1 << 30) as i64);
                    if !(0..limit).contains(&c) {
                        let bound = match shape {
                            Some(s) => format!("dim {k} has size {}", s[k]),
                            None => "entries are below 2^30".to_string(),
                        };
                        return Err(invalid(
                            L,
                            format!("{key} basis {i} {b:?}: entry {c} is out of range ({bound})"),
                        ));
                    }
                    ub.push(c as u64);
                }
                bs.push(ub);
            }
            bases.push((d, bs));
        }
        let Some(rank) = rank.filter(|&r| r > 0) else {
            return Err(invalid(
                L,
                "no basis gives the rank (every input dim is empty or rank 0)",
            ));
        };
        let lanes = bases[1].1.len();
        if lanes != 5 && lanes != 6 {
            return Err(invalid(
                L,
                format!(
                    "{lanes} lane bases make {} threads per warp, expected 32 or 64",
                    1u64 << lanes
                ),
            ));
        }
        let outs = DimName::standard_out_dims(rank);
        let layout = match shape {
            None => LinearLayout::with_inferred_out_sizes(bases, outs),
            Some(s) => {
                crate::shape::check_shape(s)?;
                LinearLayout::new(
                    bases,
                    outs.into_iter().zip(s.iter().copied()).collect(),
                    true,
                )
            }
        }
        .map_err(|e| invalid(L, format!("bases do not form a surjective layout: {e}")))?;
        Ok(Linear { layout })
    }

    /// Wraps a layout (`register, lane, warp, block → dim0..`).
    pub fn from_layout(layout: LinearLayout) -> Linear {
        Linear { layout }
    }

    /// Rank of the layout.
    pub fn rank(&self) -> usize {
        self.layout.num_out_dims()
    }

    /// Triton's `getOrder()` of a linear encoding: dims in the order the
    /// register bases first touch them (first non-zero component), then the
    /// rest in row-major order.
    pub fn order(&self) -> Vec<usize> {
        let rank = self.rank();
        let mut order: Vec<usize> = Vec::new();
        for b in self.layout.bases(DimName::REGISTER) {
            if let Some(i) = b.iter().position(|&c| c != 0) {
                if !order.contains(&i) {
                    order.push(i);
                }
            }
        }
        for i in matrix_order(rank, true) {
            if !order.contains(&i) {
                order.push(i);
            }
        }
        order
    }

    /// The linear layout for a tensor of `shape` (see the module doc).
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        let rank = self.rank();
        if shape.len() != rank {
            return Err(HwError::InvalidShape {
                shape: shape.to_vec(),
                message: format!(
                    "rank {} does not match the linear layout's rank {rank}",
                    shape.len()
                ),
            });
        }
        let std_dims = DimName::standard_out_dims(rank);
        let sizes: Vec<u64> = std_dims
            .iter()
            .map(|&d| self.layout.out_dim_size(d))
            .collect();
        if sizes == shape {
            return Ok(self.layout.clone());
        }
        let order: Vec<DimName> = self.order().into_iter().map(DimName::dim).collect();
        let named: Vec<(DimName, u64)> = std_dims
            .iter()
            .copied()
            .zip(shape.iter().copied())
            .collect();
        let l = self.layout.transpose_outs(&order)?;
        let l = ensure_layout_not_smaller_than(&l, &named)?;
        let l = ensure_layout_not_larger_than(&l, &named, false)?;
        Ok(l.transpose_outs(&std_dims)?)
    }

    /// Triton's printed form: `#ttg.linear` when the non-zero bases are
    /// distinct single bits (a permutation once broadcasts are dropped),
    /// `#ttg.generic_linear` otherwise.
    pub fn to_mlir(&self) -> String {
        let text = distributed_linear_mlir(&self.layout);
        if is_permutation_like(&self.layout) {
            text
        } else {
            text.replacen("#ttg.linear<", "#ttg.generic_linear<", 1)
        }
    }
}

/// Whether every non-zero basis (over all input dims) has exactly one set
/// bit in one component, and no two are equal.
fn is_permutation_like(l: &LinearLayout) -> bool {
    let mut seen = Vec::new();
    for (_, bs) in l.all_bases() {
        for b in bs {
            let nz: Vec<u64> = b.iter().copied().filter(|&c| c != 0).collect();
            if nz.is_empty() {
                continue;
            }
            if nz.len() != 1 || !nz[0].is_power_of_two() || seen.contains(&b) {
                return false;
            }
            seen.push(b);
        }
    }
    true
}

/// `#ttg.linear<{register = [[..]], lane = [..], warp = [..], block = [..]}>`
/// for a distributed layout (in dims `register, lane, warp, block`; missing
/// ones print `[]`), bases listed dim0 first. Parses back with
/// [`crate::Encoding::parse`].
pub fn distributed_linear_mlir(l: &LinearLayout) -> String {
    let part = |d: DimName| -> String {
        if l.has_in_dim(d) {
            fmt_matrix(&l.bases(d))
        } else {
            "[]".to_string()
        }
    };
    format!(
        "#ttg.linear<{{register = {}, lane = {}, warp = {}, block = {}}}>",
        part(DimName::REGISTER),
        part(DimName::LANE),
        part(DimName::WARP),
        part(DimName::BLOCK)
    )
}

/// `#ttg.shared_linear<{offset = [..], block = [..]}, alignment = N>` for a
/// shared layout (in dims `offset`, `block`; `block` omitted when it has no
/// bases, as Triton prints it).
pub fn shared_linear_mlir(l: &LinearLayout, alignment: u64) -> String {
    let offset = if l.has_in_dim(DimName::OFFSET) {
        fmt_matrix(&l.bases(DimName::OFFSET))
    } else {
        "[]".to_string()
    };
    let block = if l.has_in_dim(DimName::BLOCK) {
        l.bases(DimName::BLOCK)
    } else {
        vec![]
    };
    let block = if block.is_empty() {
        String::new()
    } else {
        format!(", block = {}", fmt_matrix(&block))
    };
    format!("#ttg.shared_linear<{{offset = {offset}{block}}}, alignment = {alignment}>")
}

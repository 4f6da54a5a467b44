//! CGA (cluster) layouts and Triton's `combineCtaCgaWithShape`.
//!
//! A CGA layout maps the `block` input dim (CTA id in the cluster) to tensor
//! dims **in units of one CTA tile**: basis `[0, 1]` means "the next CTA
//! holds the next tile along dim1"; a zero basis means the CTAs replicate.

use crate::error::{invalid, HwError, Result};
use crate::syntax::{Attribute, Value};
use linear_layout::utils::{ensure_layout_not_larger_than, ensure_layout_not_smaller_than};
use linear_layout::{DimName, LinearLayout};

/// The fields of the legacy CGA form (Triton's `fromSplitParams`).
pub(crate) const LEGACY_CGA_FIELDS: [&str; 3] = ["CTAsPerCGA", "CTASplitNum", "CTAOrder"];

/// Which form of CGA layout an attribute gives.
pub(crate) enum CgaField<'a> {
    /// Neither form: one CTA.
    Absent,
    /// `CGALayout = [[..], ..]`, one basis per `block` bit.
    Bases(&'a Value),
    /// At least one of [`LEGACY_CGA_FIELDS`].
    Legacy,
}

/// The CGA form of `a`; giving both `CGALayout` and a legacy field is an
/// error (naming `layout`).
pub(crate) fn cga_field<'a>(a: &'a Attribute, layout: &'static str) -> Result<CgaField<'a>> {
    let has_legacy = LEGACY_CGA_FIELDS.iter().any(|k| a.get(k).is_some());
    match a.get("CGALayout") {
        Some(_) if has_legacy => Err(invalid(
            layout,
            "give either CGALayout or CTAsPerCGA/CTASplitNum/CTAOrder, not both",
        )),
        Some(v) => Ok(CgaField::Bases(v)),
        None if has_legacy => Ok(CgaField::Legacy),
        None => Ok(CgaField::Absent),
    }
}

/// The CGA layout with explicit `block` bases (one per block bit, `rank`
/// components each, in CTA-tile units). No bases = one CTA.
pub fn cga_from_bases(bases: &[Vec<u64>], rank: usize) -> Result<LinearLayout> {
    for (i, b) in bases.iter().enumerate() {
        if b.len() != rank {
            return Err(HwError::InvalidParam {
                layout: "CGA",
                message: format!(
                    "CGALayout basis {i} has {} entries, expected rank {rank}",
                    b.len()
                ),
            });
        }
    }
    let mut sizes = vec![1u64; rank];
    for b in bases {
        for (k, &c) in b.iter().enumerate() {
            if c != 0 {
                sizes[k] = sizes[k].max((c + 1).next_power_of_two());
            }
        }
    }
    let outs = sizes
        .into_iter()
        .enumerate()
        .map(|(i, s)| (DimName::dim(i), s))
        .collect();
    Ok(LinearLayout::new(
        vec![(DimName::BLOCK, bases.to_vec())],
        outs,
        false,
    )?)
}

/// The CGA layout of the legacy triple (`CTAsPerCGA`, `CTASplitNum`,
/// `CTAOrder`): for each dim in `CTAOrder` (minor first),
/// `identity_1d(split, block, d) * zeros_1d(ctas / split, block, d)`.
pub fn cga_from_split_params(
    ctas_per_cga: &[u64],
    cta_split_num: &[u64],
    cta_order: &[usize],
) -> Result<LinearLayout> {
    let rank = ctas_per_cga.len();
    if cta_split_num.len() != rank || cta_order.len() != rank {
        return Err(HwError::InvalidParam {
            layout: "CTA",
            message: format!(
                "CTAsPerCGA, CTASplitNum and CTAOrder need the same length, got {}, {}, {}",
                rank,
                cta_split_num.len(),
                cta_order.len()
            ),
        });
    }
    linear_layout::utils::check_order(cta_order, rank)?;
    let mut l = LinearLayout::empty();
    for &d in cta_order {
        let (ctas, split) = (ctas_per_cga[d], cta_split_num[d]);
        if split == 0 || ctas % split != 0 {
            return Err(HwError::InvalidParam {
                layout: "CTA",
                message: format!("CTASplitNum[{d}] = {split} must divide CTAsPerCGA[{d}] = {ctas}"),
            });
        }
        let o = DimName::dim(d);
        l = l.try_mul(&LinearLayout::try_identity_1d(split, DimName::BLOCK, o)?)?;
        l = l.try_mul(&LinearLayout::try_zeros_1d(
            ctas / split,
            DimName::BLOCK,
            o,
            1,
        )?)?;
    }
    if rank == 0 {
        return Ok(l);
    }
    let l = with_all_out_dims(&l, rank)?;
    Ok(l.transpose_outs(&DimName::standard_out_dims(rank))?)
}

/// Adds missing standard out dims (size 1) and a `block` in dim if absent.
fn with_all_out_dims(l: &LinearLayout, rank: usize) -> Result<LinearLayout> {
    let mut l = l.clone();
    if !l.has_in_dim(DimName::BLOCK) {
        l = l.try_mul(&LinearLayout::try_identity_1d(
            1,
            DimName::BLOCK,
            DimName::dim(0),
        )?)?;
    }
    for d in 0..rank {
        if !l.has_out_dim(DimName::dim(d)) {
            l = l.try_mul(&LinearLayout::try_identity_1d(
                1,
                DimName::BLOCK,
                DimName::dim(d),
            )?)?;
        }
    }
    Ok(l)
}

/// Triton's `combineCtaCgaWithShape`: fits a per-CTA layout (`register`/
/// `lane`/`warp` or `offset` → dims, in any out-dim order) and a CGA layout
/// (`block` → dims, tile units) to `shape`:
/// 1. the CGA layout is clipped to `shape` (broadcast where it overshoots);
/// 2. the CTA shape is `max(1, shape[d] / cga size[d])`;
/// 3. the CTA layout is grown (repetitions in the first in dim, out dims in
///    the CTA layout's order) then clipped (broadcast) to the CTA shape;
/// 4. the result is `cta * cga`, out dims in standard order `dim0..`.
pub fn combine_cta_cga_with_shape(
    cta: &LinearLayout,
    cga: &LinearLayout,
    shape: &[u64],
) -> Result<LinearLayout> {
    let rank = shape.len();
    for &s in shape {
        if s == 0 || !s.is_power_of_two() {
            return Err(HwError::InvalidShape {
                shape: shape.to_vec(),
                message: format!("dimension {s} is not a power of two"),
            });
        }
    }
    let cta = with_out_dims(cta, rank)?;
    let cga = with_all_out_dims(cga, rank)?;
    let shape_pairs: Vec<(DimName, u64)> = (0..rank).map(|d| (DimName::dim(d), shape[d])).collect();
    let cta_order: Vec<DimName> = cta.out_dim_names().collect();
    let cga =
        ensure_layout_not_larger_than(&cga, &shape_pairs, true)?.transpose_outs(&cta_order)?;
    let cta_shape: Vec<(DimName, u64)> = (0..rank)
        .map(|d| {
            let o = DimName::dim(d);
            (o, (shape[d] / cga.out_dim_size(o)).max(1))
        })
        .collect();
    let cta = ensure_layout_not_smaller_than(&cta, &cta_shape)?;
    let cta = ensure_layout_not_larger_than(&cta, &cta_shape, true)?;
    let l = cta.try_mul(&cga)?;
    Ok(l.transpose_outs(&DimName::standard_out_dims(rank))?)
}

/// Adds missing standard out dims (size 1) to a CTA layout, at the end.
fn with_out_dims(l: &LinearLayout, rank: usize) -> Result<LinearLayout> {
    let mut l = l.clone();
    let first = l.in_dim_names().next().unwrap_or(DimName::REGISTER);
    for d in 0..rank {
        if !l.has_out_dim(DimName::dim(d)) {
            l = l.try_mul(&LinearLayout::try_identity_1d(1, first, DimName::dim(d))?)?;
        }
    }
    Ok(l)
}

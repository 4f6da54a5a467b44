//! Helpers shared by the shared-memory and tensor-memory families: field
//! readers with errors that name the layout, the field and the value, CGA
//! parsing and Triton's list printing.

use crate::cga::{cga_from_bases, cga_from_split_params};
use crate::error::{invalid, Result};
use crate::syntax::{Attribute, Value};
use linear_layout::{DimName, LinearLayout};

/// Rejects fields other than `allowed`.
pub(crate) fn check_fields(a: &Attribute, layout: &'static str, allowed: &[&str]) -> Result<()> {
    a.check_fields(layout, allowed, Some("allowed"))
}

/// An optional non-negative integer field.
pub(crate) fn opt_u64(a: &Attribute, layout: &'static str, key: &str) -> Result<Option<u64>> {
    match a.get(key) {
        None => Ok(None),
        Some(v) => match v.as_int() {
            Some(x) if x >= 0 => Ok(Some(x as u64)),
            Some(x) => Err(invalid(
                layout,
                format!("{key} must be non-negative, got {x}"),
            )),
            None => Err(invalid(
                layout,
                format!("{key} must be an integer, got {v}"),
            )),
        },
    }
}

/// A required non-negative integer field.
pub(crate) fn req_u64(a: &Attribute, layout: &'static str, key: &str) -> Result<u64> {
    opt_u64(a, layout, key)?.ok_or_else(|| invalid(layout, format!("missing field '{key}'")))
}

/// An optional boolean field ([`Attribute::bool_field`]).
pub(crate) fn opt_bool(a: &Attribute, layout: &'static str, key: &str) -> Result<Option<bool>> {
    a.bool_field(layout, key)
}

/// A list of non-negative integers.
pub(crate) fn u64_list(v: &Value, layout: &'static str, key: &str) -> Result<Vec<u64>> {
    let l = v
        .as_int_list()
        .ok_or_else(|| invalid(layout, format!("{key} must be a list of integers, got {v}")))?;
    l.into_iter()
        .map(|x| {
            u64::try_from(x).map_err(|_| {
                invalid(
                    layout,
                    format!("{key} entries must be non-negative, got {x}"),
                )
            })
        })
        .collect()
}

/// A list of lists of non-negative integers (bases).
pub(crate) fn u64_matrix(v: &Value, layout: &'static str, key: &str) -> Result<Vec<Vec<u64>>> {
    let m = v.as_int_matrix().ok_or_else(|| {
        invalid(
            layout,
            format!("{key} must be a list of integer lists, got {v}"),
        )
    })?;
    m.into_iter()
        .map(|row| {
            row.into_iter()
                .map(|x| {
                    // Triton stores bases as int32.
                    if !(0..=i32::MAX as i64).contains(&x) {
                        return Err(invalid(
                            layout,
                            format!("{key} basis components must be in 0..2^31, got {x}"),
                        ));
                    }
                    Ok(x as u64)
                })
                .collect()
        })
        .collect()
}

/// A required `order` permutation of `0..rank` (rank = its length).
pub(crate) fn order_field(a: &Attribute, layout: &'static str, key: &str) -> Result<Vec<usize>> {
    let v = a
        .get(key)
        .ok_or_else(|| invalid(layout, format!("missing field '{key}'")))?;
    let o: Vec<usize> = u64_list(v, layout, key)?
        .into_iter()
        .map(|x| x as usize)
        .collect();
    check_perm(&o, layout, key)?;
    Ok(o)
}

/// `order` must be a permutation of `0..len`.
pub(crate) fn check_perm(o: &[usize], layout: &'static str, key: &str) -> Result<()> {
    let mut seen = vec![false; o.len()];
    for &x in o {
        if x >= o.len() || seen[x] {
            return Err(invalid(
                layout,
                format!("{key} = {o:?} is not a permutation of 0..{}", o.len()),
            ));
        }
        seen[x] = true;
    }
    Ok(())
}

/// The CGA bases (tile units) of an attribute: `CGALayout = [[..], ..]`, or
/// the legacy triple `CTAsPerCGA`, `CTASplitNum`, `CTAOrder` converted by
/// `fromSplitParams`. `None` when the attribute has neither (one CTA).
pub(crate) fn parse_cga(a: &Attribute, layout: &'static str) -> Result<Option<Vec<Vec<u64>>>> {
    if let Some(v) = a.get("CGALayout") {
        let bases = u64_matrix(v, layout, "CGALayout")?;
        if let Some(r) = bases.first().map(|b| b.len()) {
            if bases.iter().any(|b| b.len() != r) {
                return Err(invalid(
                    layout,
                    format!("CGALayout bases have different lengths: {bases:?}"),
                ));
            }
        }
        for b in &bases {
            for &c in b {
                if c != 0 && !c.is_power_of_two() {
                    return Err(invalid(
                        layout,
                        format!("CGALayout basis {b:?} has a component that is not a power of two"),
                    ));
                }
            }
        }
        if let Some(r) = bases.first().map(|b| b.len()) {
            cga_layout(&bases, r).map_err(|e| invalid(layout, e.to_string()))?;
        }
        return Ok(Some(bases));
    }
    let (c, s, o) = (a.get("CTAsPerCGA"), a.get("CTASplitNum"), a.get("CTAOrder"));
    if c.is_none() && s.is_none() && o.is_none() {
        return Ok(None);
    }
    let (Some(c), Some(s), Some(o)) = (c, s, o) else {
        return Err(invalid(
            layout,
            "legacy CTA layout needs all of CTAsPerCGA, CTASplitNum and CTAOrder",
        ));
    };
    let c = u64_list(c, layout, "CTAsPerCGA")?;
    let s = u64_list(s, layout, "CTASplitNum")?;
    let o: Vec<usize> = u64_list(o, layout, "CTAOrder")?
        .into_iter()
        .map(|x| x as usize)
        .collect();
    for (k, &x) in c.iter().chain(s.iter()).enumerate() {
        if x == 0 || !x.is_power_of_two() {
            return Err(invalid(
                layout,
                format!("CTAsPerCGA / CTASplitNum entry {k} = {x} is not a power of two"),
            ));
        }
    }
    let ll = cga_from_split_params(&c, &s, &o)?;
    Ok(Some(ll.bases(DimName::BLOCK)))
}

/// The CGA layout of `bases` (tile units) for rank `rank`.
/// Triton requires the CGA layout to be surjective onto its extent.
pub(crate) fn cga_layout(bases: &[Vec<u64>], rank: usize) -> Result<LinearLayout> {
    let l = cga_from_bases(bases, rank)?;
    if !l.is_surjective() {
        return Err(invalid(
            "CGA",
            format!(
                "CGALayout {} is not surjective onto its extent {:?}",
                fmt_matrix(bases),
                l.out_dims()
            ),
        ));
    }
    Ok(l)
}

/// Triton's `getShapePerCTA`: `shape[d] / min(shape[d], split[d])`, where
/// `split[d]` is the CGA layout's extent along `d` in tiles.
pub(crate) fn shape_per_cta(cga: &LinearLayout, shape: &[u64]) -> Vec<u64> {
    shape
        .iter()
        .enumerate()
        .map(|(d, &s)| {
            let split = if cga.has_out_dim(DimName::dim(d)) {
                cga.out_dim_size(DimName::dim(d))
            } else {
                1
            };
            s / s.min(split).max(1)
        })
        .collect()
}

/// `[a, b, c]`.
pub(crate) fn fmt_list<T: std::fmt::Display>(v: &[T]) -> String {
    let parts: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// `[[a, b], [c, d]]`.
pub(crate) fn fmt_matrix(m: &[Vec<u64>]) -> String {
    let parts: Vec<String> = m.iter().map(|r| fmt_list(r)).collect();
    format!("[{}]", parts.join(", "))
}

/// `(dim{i}, shape[i])` pairs.
pub(crate) fn shape_pairs(shape: &[u64]) -> Vec<(DimName, u64)> {
    shape
        .iter()
        .enumerate()
        .map(|(i, &s)| (DimName::dim(i), s))
        .collect()
}

/// The smallest power of two strictly above every component along each of
/// `rank` out dims (1 for a dim no basis moves), i.e. the out sizes Triton
/// infers from bases.
pub(crate) fn inferred_sizes(bases: &[(DimName, Vec<Vec<u64>>)], rank: usize) -> Vec<u64> {
    let mut sizes = vec![1u64; rank];
    for (_, bs) in bases {
        for b in bs {
            for (k, &c) in b.iter().enumerate().take(rank) {
                if c != 0 {
                    sizes[k] = sizes[k].max((c + 1).next_power_of_two());
                }
            }
        }
    }
    sizes
}

/// A layout stored with its out sizes (shared_linear, padded): `shape` must
/// have its rank and equal its out sizes (Triton: "Mismatch in expected
/// shape for dimension d"); returns a copy.
pub(crate) fn stored_layout(layout: &LinearLayout, shape: &[u64]) -> Result<LinearLayout> {
    crate::shape::check_shape(shape)?;
    let rank = layout.num_out_dims();
    if shape.len() != rank {
        return Err(crate::error::HwError::InvalidShape {
            shape: shape.to_vec(),
            message: format!(
                "rank {} does not match the layout's rank {rank}",
                shape.len()
            ),
        });
    }
    for (d, &s) in shape.iter().enumerate() {
        let got = layout.out_dim_size(DimName::dim(d));
        if got != s {
            return Err(crate::error::HwError::InvalidShape {
                shape: shape.to_vec(),
                message: format!(
                    "Mismatch in expected shape for dimension {d}. Expected: {s}, got: {got}"
                ),
            });
        }
    }
    Ok(layout.clone())
}

//! AMD layouts: `#ttg.amd_mfma` (CDNA matrix cores, 64-lane wavefronts),
//! `#ttg.amd_wmma` (RDNA / gfx1250 matrix cores, 32-lane wavefronts) and
//! their dot operands (`#ttg.dot_op` with one of them as parent).
//!
//! Every layout here is a distributed layout: the linear map
//! `(register, lane, warp, block) -> (dim0, ..., dim{rank-1})` over GF(2),
//! where bit `i` of an input index selects basis `i` of that input dim and
//! the selected bases are XOR-ed (the oracle's convention). The tensor's
//! last two dims are (M, N) for the accumulator, (M, K) for operand A
//! (`op_idx = 0`) and (K, N) for operand B (`op_idx = 1`); a rank-3 tensor
//! has a leading batch dim.
//!
//! The constructions follow Triton 3.9's `LinearLayoutConversions.cpp`
//! (`AMDMfmaEncodingAttr::toLinearLayout`, `mfmaDotToLinearLayout`,
//! `AMDWmmaEncodingAttr::toLinearLayout`, `wmmaDotOperandToLinearLayout`)
//! step by step, because the order of the products decides which register
//! bit maps where. Two helpers mirror Triton where the algebra crate
//! differs: `identity_nd` keeps the out dims in `order` order (Triton's
//! `identityStandardND` does not transpose them back) and `mul` merges
//! out-dim orders as Triton's `supremum` does (first operand wins on a
//! conflict instead of failing).
//!
//! Checked against Triton 3.9: every AMD record of the shared oracle and
//! 1900 more generated ones (`tests/amd_oracle.rs`), Triton's own unit tests
//! (`tests/amd_triton_unit.rs`) and its refusals (`tests/amd_rejects.rs`).
//!
//! Where we knowingly differ from Triton 3.9's *parser* (the layouts are
//! the same):
//! * legacy text is accepted: MFMA `versionMajor`/`versionMinor` (Triton
//!   3.9 ignores these keys and reads version 0; the version does not
//!   change the layout), WMMA `warpsPerCTA` (+ `tilesPerWarp`), the CTA
//!   triple `CTAsPerCGA`/`CTASplitNum`/`CTAOrder`;
//! * Triton's own WMMA printer output is accepted (it omits `warp = []` and
//!   `rank = 3`, which Triton's parser then demands);
//! * unknown keys are an error (Triton silently ignores them), and a
//!   missing `isTransposed` is an error (undefined in Triton).
//!
//! Where Triton accepts odd values we follow it: a 0 warp count or tile
//! count acts like 1 where Triton only multiplies by it (its
//! `identity1D(0)` is the empty layout) and is an error where Triton
//! divides by it (it crashes there); `tilesPerWarp` entries Triton never
//! reads are not checked; WMMA `ctaLayout` bases need not be single powers
//! of two (only surjective, as Triton's parser demands).

mod mfma;
mod wmma;

pub use mfma::Mfma;
pub use wmma::Wmma;

use crate::cga::{
    cga_field, cga_from_bases, cga_from_split_params, combine_cta_cga_with_shape, CgaField,
};
use crate::error::{invalid, Result};
use crate::syntax::{Attribute, Value};
use linear_layout::{DimName, LinearLayout};

/// `dim{i}`.
pub(crate) fn dim(i: usize) -> DimName {
    DimName::dim(i)
}

/// Triton's `getMatrixOrder(rank, rowMajor)`: minor-to-major order of the
/// dims; row-major is `[rank-1, rank-2, ..., 0]`, column-major swaps the two
/// minor entries (`[rank-2, rank-1, rank-3, ..., 0]`).
pub(crate) fn matrix_order(rank: usize, row_major: bool) -> Vec<usize> {
    let mut o: Vec<usize> = (0..rank).rev().collect();
    if !row_major && rank >= 2 {
        o.swap(0, 1);
    }
    o
}

/// Triton's `getOrderForDotOperand(opIdx, rank, kContig)`: with `k_contig`
/// the K dim of the operand (dim `rank-1` for A, `rank-2` for B) comes
/// first, then the non-K dim, then the batch dim.
pub(crate) fn order_for_dot_operand(op_idx: u32, rank: usize, k_contig: bool) -> Vec<usize> {
    let row_major = (op_idx != 0) != k_contig;
    matrix_order(rank, row_major)
}

/// Triton's `identityStandardND(in_dim, shape, order)`: the product over
/// `order` (minor first) of `identity_1d(shape[d], in_dim, dim{d})`. The out
/// dims stay in `order`'s order (Triton does not transpose them back to
/// `dim0..`; the out-dim order later decides where repetitions go).
pub(crate) fn identity_nd(in_dim: DimName, shape: &[u64], order: &[usize]) -> Result<LinearLayout> {
    let mut l = LinearLayout::empty();
    for &d in order {
        l = mul(
            &l,
            &LinearLayout::try_identity_1d(shape[d], in_dim, dim(d))?,
        )?;
    }
    Ok(l)
}

/// Triton's `operator*(inner, outer)` with Triton's lenient out-dim merge
/// (see [`linear_layout::product_dim_order`]): `inner`'s bases are the low bits of each
/// shared input dim, `outer`'s components sit above `inner`'s size on each
/// shared output dim. The result's out dims are in merged order.
pub(crate) fn mul(inner: &LinearLayout, outer: &LinearLayout) -> Result<LinearLayout> {
    let a: Vec<DimName> = inner.out_dim_names().collect();
    let b: Vec<DimName> = outer.out_dim_names().collect();
    let sup = linear_layout::product_dim_order(&a, &b);
    let restrict = |names: &[DimName]| -> Vec<DimName> {
        sup.iter().copied().filter(|d| names.contains(d)).collect()
    };
    let inner = inner.transpose_outs(&restrict(&a))?;
    let outer = outer.transpose_outs(&restrict(&b))?;
    Ok(inner.try_mul(&outer)?.transpose_outs(&sup)?)
}

/// A non-negative integer field.
pub(crate) fn get_uint(a: &Attribute, layout: &'static str, key: &str) -> Result<Option<u64>> {
    match a.get(key) {
        None => Ok(None),
        Some(v) => match v.as_int() {
            Some(i) if i >= 0 => Ok(Some(i as u64)),
            _ => Err(invalid(
                layout,
                format!("{key} must be a non-negative integer, got {v}"),
            )),
        },
    }
}

/// A boolean field ([`Attribute::bool_field`]).
pub(crate) fn get_bool(a: &Attribute, layout: &'static str, key: &str) -> Result<Option<bool>> {
    a.bool_field(layout, key)
}

/// A list of non-negative integers.
pub(crate) fn get_uint_list(
    a: &Attribute,
    layout: &'static str,
    key: &str,
) -> Result<Option<Vec<u64>>> {
    match a.get(key) {
        None => Ok(None),
        Some(v) => uint_list(v, layout, key).map(Some),
    }
}

fn uint_list(v: &Value, layout: &'static str, key: &str) -> Result<Vec<u64>> {
    let l = v
        .as_int_list()
        .ok_or_else(|| invalid(layout, format!("{key} must be a list of integers, got {v}")))?;
    l.into_iter()
        .map(|i| {
            u64::try_from(i)
                .map_err(|_| invalid(layout, format!("{key} has a negative entry {i} in {v}")))
        })
        .collect()
}

/// A list of bases (lists of non-negative integers).
pub(crate) fn uint_matrix(v: &Value, layout: &'static str, key: &str) -> Result<Vec<Vec<u64>>> {
    match v {
        Value::List(rows) => rows.iter().map(|r| uint_list(r, layout, key)).collect(),
        _ => Err(invalid(
            layout,
            format!("{key} must be a list of bases, got {v}"),
        )),
    }
}

/// The CGA layout's `block` bases (CTA-tile units), from `CGALayout =
/// [[...], ...]` or from the legacy `CTAsPerCGA` / `CTASplitNum` /
/// `CTAOrder` triple (Triton's `fromSplitParams`). One CTA = no bases.
pub(crate) fn read_cga(a: &Attribute, layout: &'static str, rank: usize) -> Result<Vec<Vec<u64>>> {
    let v = match cga_field(a, layout)? {
        CgaField::Absent => return Ok(vec![]),
        CgaField::Legacy => None,
        CgaField::Bases(v) => Some(v),
    };
    if let Some(v) = v {
        let bases = uint_matrix(v, layout, "CGALayout")?;
        for (i, b) in bases.iter().enumerate() {
            if b.len() != rank {
                return Err(invalid(
                    layout,
                    format!(
                        "CGALayout basis {i} {b:?} has {} entries, the layout has rank {rank}",
                        b.len()
                    ),
                ));
            }
        }
        return Ok(bases);
    }
    let ones = vec![1u64; rank];
    let ctas = get_uint_list(a, layout, "CTAsPerCGA")?.unwrap_or_else(|| ones.clone());
    let split = get_uint_list(a, layout, "CTASplitNum")?.unwrap_or_else(|| ctas.clone());
    let order: Vec<usize> = match get_uint_list(a, layout, "CTAOrder")? {
        Some(o) => o.into_iter().map(|x| x as usize).collect(),
        None => (0..rank).rev().collect(),
    };
    if ctas.len() != rank || split.len() != rank || order.len() != rank {
        return Err(invalid(
            layout,
            format!(
                "CTAsPerCGA {ctas:?}, CTASplitNum {split:?} and CTAOrder {order:?} must have rank {rank} entries"
            ),
        ));
    }
    for (k, &c) in ctas.iter().chain(split.iter()).enumerate() {
        if c == 0 || !c.is_power_of_two() {
            let key = if k < rank {
                "CTAsPerCGA"
            } else {
                "CTASplitNum"
            };
            return Err(invalid(
                layout,
                format!("{key} entries must be powers of two, got {c}"),
            ));
        }
    }
    let l = cga_from_split_params(&ctas, &split, &order)?;
    Ok(if l.has_in_dim(DimName::BLOCK) {
        l.bases(DimName::BLOCK)
    } else {
        vec![]
    })
}

/// `a, b, c` (Triton's `ArrayRef` printing).
pub(crate) fn fmt_list(v: &[u64]) -> String {
    v.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
}

/// `[[a, b], [c, d]]`.
pub(crate) fn fmt_bases(v: &[Vec<u64>]) -> String {
    let rows: Vec<String> = v.iter().map(|b| format!("[{}]", fmt_list(b))).collect();
    format!("[{}]", rows.join(", "))
}

/// Checks that every field of `a` is one of `allowed`.
pub(crate) fn check_fields(a: &Attribute, layout: &'static str, allowed: &[&str]) -> Result<()> {
    a.check_fields(layout, allowed, Some("known"))
}

/// Checks that `a` is `#ttg.<layout>` (`what` names it in the error, e.g.
/// "an MFMA") and that every field is one of `allowed`: the opening of both
/// `Mfma::from_attr` and `Wmma::from_attr`.
pub(crate) fn check_attr(
    a: &Attribute,
    layout: &'static str,
    what: &str,
    allowed: &[&str],
) -> Result<()> {
    if a.name != layout {
        return Err(invalid(
            layout,
            format!("not {what} attribute: #{}", a.full_name()),
        ));
    }
    check_fields(a, layout, allowed)
}

/// The checks every MFMA / WMMA dot operand starts with: `shape` has the
/// parent's `rank` ([`check_rank`]) and `op_idx` is 0 (A) or 1 (B).
pub(crate) fn check_operand(
    layout: &'static str,
    shape: &[u64],
    rank: usize,
    op_idx: u32,
) -> Result<()> {
    check_rank(layout, shape, rank)?;
    if op_idx > 1 {
        return Err(invalid(
            "dot_op",
            format!("opIdx must be 0 or 1, got {op_idx}"),
        ));
    }
    Ok(())
}

/// A dot operand's `kWidth` must be a power of two (both parents build
/// `identity1D(kWidth, register, K)`).
pub(crate) fn check_k_width_power_of_two(k_width: u32) -> Result<()> {
    if !k_width.is_power_of_two() {
        return Err(invalid(
            "dot_op",
            format!("kWidth must be a power of two, got {k_width}"),
        ));
    }
    Ok(())
}

/// Appends the batch dim `batch` to a rank-3 tile as Triton does: size-1
/// `register` and `lane` identities along it (no bases; they only place
/// `batch` in the out-dim order, after the tile's own dims).
pub(crate) fn with_batch_dim(tile: &LinearLayout, batch: DimName) -> Result<LinearLayout> {
    let id = LinearLayout::try_identity_1d;
    let tile = mul(tile, &id(1, DimName::REGISTER, batch)?)?;
    mul(&tile, &id(1, DimName::LANE, batch)?)
}

/// Triton's `combineCtaCgaWithShape(cta, CGALayout(cga_bases), shape)`: the
/// closing step of every MFMA / WMMA layout (repetitions in `register`,
/// broadcast where the tensor is smaller, `block` from the CGA bases given
/// in CTA-tile units).
pub(crate) fn with_cga(
    cta: &LinearLayout,
    cga_bases: &[Vec<u64>],
    rank: usize,
    shape: &[u64],
) -> Result<LinearLayout> {
    let cga = cga_from_bases(cga_bases, rank)?;
    combine_cta_cga_with_shape(cta, &cga, shape)
}

/// `, CGALayout = [[..], ..]` when there are block bases, else nothing: how
/// Triton prints the CGA of both MFMA and WMMA attributes.
pub(crate) fn fmt_cga(cga_bases: &[Vec<u64>]) -> String {
    if cga_bases.is_empty() {
        String::new()
    } else {
        format!(", CGALayout = {}", fmt_bases(cga_bases))
    }
}

/// Checks `shape` (powers of two) and that its rank is `rank` (2 or 3).
pub(crate) fn check_rank(layout: &'static str, shape: &[u64], rank: usize) -> Result<()> {
    crate::shape::check_shape(shape)?;
    if shape.len() != rank {
        return Err(crate::error::HwError::InvalidShape {
            shape: shape.to_vec(),
            message: format!(
                "the {layout} layout has rank {rank}, the shape has rank {}",
                shape.len()
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn supremum_is_lenient_like_triton() {
        let [a, b, c] = ["a", "b", "c"].map(DimName::new);
        // Hand-traced through Triton's LayoutUtils.cpp loop.
        assert_eq!(
            linear_layout::product_dim_order(&[a, b], &[b, a]),
            vec![a, b]
        );
        assert_eq!(
            linear_layout::product_dim_order(&[a, b], &[a, c]),
            vec![a, b, c]
        );
        assert_eq!(
            linear_layout::product_dim_order(&[a, b], &[b, c]),
            vec![a, b, c]
        );
        assert_eq!(
            linear_layout::product_dim_order(&[c, b], &[a, b, c]),
            vec![a, b, c]
        );
    }

    #[test]
    fn orders() {
        assert_eq!(matrix_order(2, true), vec![1, 0]);
        assert_eq!(matrix_order(3, false), vec![1, 2, 0]);
        // A with K contiguous: [K = rank-1, M, batch]; B: [K = rank-2, N, batch].
        assert_eq!(order_for_dot_operand(0, 3, true), vec![2, 1, 0]);
        assert_eq!(order_for_dot_operand(1, 3, true), vec![1, 2, 0]);
    }
}

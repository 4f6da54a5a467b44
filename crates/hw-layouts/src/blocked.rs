//! `#ttg.blocked` as a linear layout, plus the field readers and printers the
//! other distributed families share (`pub(crate)`).
//!
//! A blocked layout tiles the tensor with one CTA tile of
//! `sizePerThread[d] * threadsPerWarp[d] * warpsPerCTA[d]` elements per dim.
//! As a linear map `register × lane × warp × block → dim0 × … × dim{r-1}`
//! (in-dim bit `i` is basis `i`, lowest bit first):
//!
//! ```text
//! L = identity_nd(register, sizePerThread, order)
//!   * identity_nd(lane, threadsPerWarp, order)
//!   * identity_nd(warp, warpsPerCTA, order)
//! ```
//!
//! then fitted to the shape with the CGA layout by
//! [`combine_cta_cga_with_shape`]: a larger tensor gets extra `register`
//! bases (the tile repeats, dims taken in `order`, minor first), a smaller
//! one gets zero bases (broadcast) for the lanes/warps that would run off
//! the tensor, and the registers that would run off it are removed.

use crate::cga::{
    cga_field, cga_from_bases, cga_from_split_params, combine_cta_cga_with_shape, CgaField,
    LEGACY_CGA_FIELDS,
};
use crate::error::{invalid, HwError, Result};
use crate::syntax::{Attribute, Value};
use linear_layout::{DimName, LinearLayout};

/// `#ttg.blocked<{sizePerThread, threadsPerWarp, warpsPerCTA, order[, CGALayout]}>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocked {
    /// Consecutive elements one thread holds, per dim.
    pub size_per_thread: Vec<u64>,
    /// Threads of a warp along each dim (product 32 or 64).
    pub threads_per_warp: Vec<u64>,
    /// Warps of a CTA along each dim.
    pub warps_per_cta: Vec<u64>,
    /// Dims from fastest to slowest varying (a permutation of `0..rank`).
    pub order: Vec<usize>,
    /// The CGA layout (`block` bases in CTA-tile units); empty = one CTA.
    pub cga: Cga,
}

/// A CGA layout: one basis (rank components, CTA-tile units) per `block`
/// bit. Empty = one CTA. Printed as `CGALayout = [[..], ..]` when non-empty.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Cga {
    /// `block` bases, each with `rank` components.
    pub bases: Vec<Vec<u64>>,
}

impl Cga {
    /// The `block → dims` linear layout (tile units).
    pub fn layout(&self, rank: usize) -> Result<LinearLayout> {
        cga_from_bases(&self.bases, rank)
    }

    /// `, CGALayout = [[..]]` or the empty string for one CTA.
    pub fn mlir_suffix(&self) -> String {
        if self.bases.is_empty() {
            String::new()
        } else {
            format!(", CGALayout = {}", fmt_matrix(&self.bases))
        }
    }

    /// Reads `CGALayout = [[..]]` or the legacy `CTAsPerCGA`, `CTASplitNum`,
    /// `CTAOrder` triple (converted to bases as Triton's `makeCgaLayout`).
    pub fn from_attr(a: &Attribute, rank: usize, layout: &'static str) -> Result<Cga> {
        let v = match cga_field(a, layout)? {
            CgaField::Absent => return Ok(Cga::default()),
            CgaField::Legacy => None,
            CgaField::Bases(v) => Some(v),
        };
        if let Some(v) = v {
            let m = v.as_int_matrix().ok_or_else(|| {
                invalid(
                    layout,
                    format!("CGALayout must be a list of bases, got {v}"),
                )
            })?;
            let mut bases = Vec::with_capacity(m.len());
            for (i, b) in m.iter().enumerate() {
                if b.len() != rank {
                    return Err(invalid(
                        layout,
                        format!(
                            "CGALayout basis {i} {b:?} has {} entries, expected rank {rank}",
                            b.len()
                        ),
                    ));
                }
                let mut ub = Vec::with_capacity(rank);
                for &c in b {
                    if !(0..1 << 30).contains(&c) {
                        return Err(invalid(
                            layout,
                            format!("CGALayout basis {i} {b:?} has an out-of-range entry {c}"),
                        ));
                    }
                    ub.push(c as u64);
                }
                bases.push(ub);
            }
            if bases.len() > 16 {
                return Err(invalid(layout, "CGALayout has more than 16 bases"));
            }
            // Triton's CGA verifier: "After removing broadcast bases the CGA
            // encoding must be a permutation matrix" (distinct single bits).
            let mut seen: Vec<&Vec<u64>> = Vec::new();
            for b in &bases {
                let nonzero: Vec<u64> = b.iter().copied().filter(|&c| c != 0).collect();
                if nonzero.is_empty() {
                    continue;
                }
                if nonzero.len() > 1 || !nonzero[0].is_power_of_two() || seen.contains(&b) {
                    return Err(invalid(
                        layout,
                        format!(
                            "CGALayout = {}: after removing broadcast bases the CGA encoding must be a permutation matrix",
                            fmt_matrix(&bases)
                        ),
                    ));
                }
                seen.push(b);
            }
            let cga = Cga { bases };
            // Triton builds the CGA layout surjective onto its inferred sizes.
            if !cga.layout(rank)?.is_surjective() {
                return Err(invalid(
                    layout,
                    format!(
                        "CGALayout = {} is not surjective onto the CTA grid it spans",
                        fmt_matrix(&cga.bases)
                    ),
                ));
            }
            return Ok(cga);
        }
        let mut lists = Vec::new();
        for k in LEGACY_CGA_FIELDS {
            let l = match a.get(k) {
                Some(v) => uint_list_value(v, k, layout)?,
                None => return Err(invalid(layout, format!("legacy CGA parameters need {k}"))),
            };
            if l.len() != rank {
                return Err(invalid(
                    layout,
                    format!("{k} = {l:?} has {} entries, expected rank {rank}", l.len()),
                ));
            }
            lists.push(l);
        }
        for (k, l) in LEGACY_CGA_FIELDS.iter().zip(&lists).take(2) {
            check_pow2_list(l, k, layout)?;
        }
        let order: Vec<usize> = lists[2]
            .iter()
            .map(|&x| usize::try_from(x).unwrap_or(usize::MAX))
            .collect();
        check_permutation(&order, rank, "CTAOrder", layout)?;
        Cga::from_split_params(&lists[0], &lists[1], &order)
    }

    /// The CGA of the legacy triple (`CTAsPerCGA`, `CTASplitNum`,
    /// `CTAOrder`, as Triton's `makeCgaLayout`): for each dim in `CTAOrder`
    /// (minor first), `split` CTAs tile the dim and `ctas / split` more
    /// replicate (zero bases).
    pub fn from_split_params(
        ctas_per_cga: &[u64],
        cta_split_num: &[u64],
        cta_order: &[usize],
    ) -> Result<Cga> {
        const L: &str = "CGA";
        check_pow2_list(ctas_per_cga, "CTAsPerCGA", L)?;
        check_pow2_list(cta_split_num, "CTASplitNum", L)?;
        check_total_bits(ctas_per_cga, "CTAsPerCGA", L)?;
        check_permutation(cta_order, ctas_per_cga.len(), "CTAOrder", L)?;
        let l = cga_from_split_params(ctas_per_cga, cta_split_num, cta_order)?;
        Ok(Cga {
            bases: l.bases(DimName::BLOCK),
        })
    }

    /// Number of CTAs.
    pub fn num_ctas(&self) -> u64 {
        1 << self.bases.len()
    }
}

impl Blocked {
    /// Reads the attribute; checks Triton's verifier rules (same ranks,
    /// powers of two, `order` a permutation, 32 or 64 threads per warp).
    pub fn from_attr(a: &Attribute) -> Result<Self> {
        const L: &str = "blocked";
        check_fields(
            a,
            &[
                "sizePerThread",
                "threadsPerWarp",
                "warpsPerCTA",
                "order",
                "CGALayout",
                "CTAsPerCGA",
                "CTASplitNum",
                "CTAOrder",
            ],
            L,
        )?;
        let size_per_thread = uint_list(a, "sizePerThread", L)?;
        let threads_per_warp = uint_list(a, "threadsPerWarp", L)?;
        let warps_per_cta = uint_list(a, "warpsPerCTA", L)?;
        let order_raw = uint_list(a, "order", L)?;
        let rank = size_per_thread.len();
        let order: Vec<usize> = order_raw
            .iter()
            .map(|&x| usize::try_from(x).unwrap_or(usize::MAX))
            .collect();
        let cga = Cga::from_attr(a, rank, L)?;
        let b = Blocked::new(size_per_thread, threads_per_warp, warps_per_cta, order, cga)?;
        check_threads_per_warp(&b.threads_per_warp, L)?;
        Ok(b)
    }

    /// A blocked layout from its parameters, checked as Triton's attribute
    /// verifier does (same ranks, powers of two, `order` a permutation, CGA
    /// rank). The warp size (product of `threadsPerWarp`, 32 or 64) is a
    /// module-level check in Triton, done by [`Blocked::from_attr`] only, so
    /// that layouts of Triton's unit tests with small warps can be built.
    pub fn new(
        size_per_thread: Vec<u64>,
        threads_per_warp: Vec<u64>,
        warps_per_cta: Vec<u64>,
        order: Vec<usize>,
        cga: Cga,
    ) -> Result<Self> {
        const L: &str = "blocked";
        let rank = size_per_thread.len();
        if rank == 0 {
            return Err(invalid(L, "sizePerThread is empty (rank 0)"));
        }
        for (k, n) in [
            ("threadsPerWarp", threads_per_warp.len()),
            ("warpsPerCTA", warps_per_cta.len()),
            ("order", order.len()),
        ] {
            if n != rank {
                return Err(invalid(
                    L,
                    format!("{k} has {n} entries but sizePerThread {size_per_thread:?} has {rank}"),
                ));
            }
        }
        check_pow2_list(&size_per_thread, "sizePerThread", L)?;
        check_pow2_list(&threads_per_warp, "threadsPerWarp", L)?;
        check_pow2_list(&warps_per_cta, "warpsPerCTA", L)?;
        check_permutation(&order, rank, "order", L)?;
        check_total_bits(&size_per_thread, "sizePerThread", L)?;
        check_total_bits(&threads_per_warp, "threadsPerWarp", L)?;
        check_total_bits(&warps_per_cta, "warpsPerCTA", L)?;
        if let Some(b) = cga.bases.iter().find(|b| b.len() != rank) {
            return Err(invalid(
                L,
                format!("CGALayout basis {b:?} does not have rank {rank}"),
            ));
        }
        Ok(Blocked {
            size_per_thread,
            threads_per_warp,
            warps_per_cta,
            order,
            cga,
        })
    }

    /// Rank of the layout.
    pub fn rank(&self) -> usize {
        self.order.len()
    }

    /// The per-CTA layout `register × lane × warp → dims` (out dims in
    /// `order` order), before fitting to a shape.
    pub fn cta_layout(&self) -> Result<LinearLayout> {
        let r = identity_nd(DimName::REGISTER, &self.size_per_thread, &self.order)?;
        let l = identity_nd(DimName::LANE, &self.threads_per_warp, &self.order)?;
        let w = identity_nd(DimName::WARP, &self.warps_per_cta, &self.order)?;
        Ok(r.try_mul(&l)?.try_mul(&w)?)
    }

    /// The linear layout for a tensor of `shape`.
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        check_rank(shape, self.rank(), "blocked")?;
        let l =
            combine_cta_cga_with_shape(&self.cta_layout()?, &self.cga.layout(self.rank())?, shape)?;
        // Triton 3.9 drops the registers that fall off a smaller tensor
        // (checked against its output: blocked `sizePerThread = [8, 1]`,
        // shape [4, 2] has registers (1,0), (2,0) only), whereas MMA and
        // dot-operand layouts keep them as zero bases.
        Ok(l.remove_zero_bases_along_dim(DimName::REGISTER))
    }

    /// Triton's printed form.
    pub fn to_mlir(&self) -> String {
        format!(
            "#ttg.blocked<{{sizePerThread = {}, threadsPerWarp = {}, warpsPerCTA = {}, order = {}{}}}>",
            fmt_list(&self.size_per_thread),
            fmt_list(&self.threads_per_warp),
            fmt_list(&self.warps_per_cta),
            fmt_list(&self.order),
            self.cga.mlir_suffix()
        )
    }
}

// ----- shared helpers of the distributed families ------------------------

/// `[a, b, c]`.
pub(crate) fn fmt_list<T: std::fmt::Display>(v: &[T]) -> String {
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("[{}]", items.join(", "))
}

/// `[[a, b], [c, d]]`.
pub(crate) fn fmt_matrix<T: std::fmt::Display>(m: &[Vec<T>]) -> String {
    let items: Vec<String> = m.iter().map(|b| fmt_list(b)).collect();
    format!("[{}]", items.join(", "))
}

/// Rejects fields not in `allowed`.
pub(crate) fn check_fields(a: &Attribute, allowed: &[&str], layout: &'static str) -> Result<()> {
    a.check_fields(layout, allowed, None)?;
    if a.padding.is_some() {
        return Err(invalid(layout, "unexpected padding list"));
    }
    Ok(())
}

/// A required list of non-negative integers.
pub(crate) fn uint_list(a: &Attribute, key: &str, layout: &'static str) -> Result<Vec<u64>> {
    let v = a
        .get(key)
        .ok_or_else(|| invalid(layout, format!("missing field '{key}'")))?;
    uint_list_value(v, key, layout)
}

/// A list of non-negative integers from a value.
pub(crate) fn uint_list_value(v: &Value, key: &str, layout: &'static str) -> Result<Vec<u64>> {
    let l = v
        .as_int_list()
        .ok_or_else(|| invalid(layout, format!("{key} must be a list of integers, got {v}")))?;
    l.iter()
        .map(|&x| {
            if x < 0 {
                Err(invalid(
                    layout,
                    format!("{key} = {l:?} has a negative entry {x}"),
                ))
            } else {
                Ok(x as u64)
            }
        })
        .collect()
}

/// A required non-negative integer field.
pub(crate) fn uint_field(a: &Attribute, key: &str, layout: &'static str) -> Result<u64> {
    let v = a
        .get(key)
        .ok_or_else(|| invalid(layout, format!("missing field '{key}'")))?;
    let x = v
        .as_int()
        .ok_or_else(|| invalid(layout, format!("{key} must be an integer, got {v}")))?;
    if x < 0 {
        return Err(invalid(layout, format!("{key} = {x} is negative")));
    }
    Ok(x as u64)
}

/// Every entry a power of two ≥ 1 (Triton: "Every element in X must be a
/// power of two").
pub(crate) fn check_pow2_list(l: &[u64], key: &str, layout: &'static str) -> Result<()> {
    for &x in l {
        if x == 0 || !x.is_power_of_two() {
            return Err(invalid(
                layout,
                format!("every element in {key} must be a power of two, got {x} in {l:?}"),
            ));
        }
    }
    Ok(())
}

/// At most 2^20 in total (keeps every product in range; Triton's limits are
/// far below).
pub(crate) fn check_total_bits(l: &[u64], key: &str, layout: &'static str) -> Result<()> {
    let bits: u32 = l.iter().map(|x| x.trailing_zeros()).sum();
    if bits > 20 {
        return Err(invalid(layout, format!("{key} = {l:?} is too large")));
    }
    Ok(())
}

/// `order` is a permutation of `0..rank`.
pub(crate) fn check_permutation(
    order: &[usize],
    rank: usize,
    key: &str,
    layout: &'static str,
) -> Result<()> {
    let mut s = order.to_vec();
    s.sort_unstable();
    if order.len() != rank || s != (0..rank).collect::<Vec<_>>() {
        return Err(invalid(
            layout,
            format!("{key} must be a permutation of 0..{rank}, but was {order:?}"),
        ));
    }
    Ok(())
}

/// The product of `threadsPerWarp` is a warp size: 32 (NVIDIA, RDNA) or 64
/// (CDNA).
pub(crate) fn check_threads_per_warp(tpw: &[u64], layout: &'static str) -> Result<()> {
    let p: u64 = tpw.iter().product();
    if p != 32 && p != 64 {
        return Err(invalid(
            layout,
            format!("threadsPerWarp = {tpw:?} multiplies to {p}, expected 32 or 64"),
        ));
    }
    Ok(())
}

/// The shape has the layout's rank.
pub(crate) fn check_rank(shape: &[u64], rank: usize, layout: &str) -> Result<()> {
    if shape.len() != rank {
        return Err(HwError::InvalidShape {
            shape: shape.to_vec(),
            message: format!(
                "rank {} does not match the {layout} layout's rank {rank}",
                shape.len()
            ),
        });
    }
    Ok(())
}

/// Triton's `getMatrixOrder(rank, rowMajor)`: `[rank-1, …, 0]`, with the two
/// minor entries swapped when not row-major.
pub(crate) fn matrix_order(rank: usize, row_major: bool) -> Vec<usize> {
    let mut o: Vec<usize> = (0..rank).rev().collect();
    if !row_major && rank >= 2 {
        o.swap(0, 1);
    }
    o
}

/// Triton's `getOrderForDotOperand(opIdx, rank, kContig)`.
pub(crate) fn order_for_dot_operand(op_idx: u32, rank: usize, k_contig: bool) -> Vec<usize> {
    let row_major = (op_idx == 1) != k_contig;
    matrix_order(rank, row_major)
}

/// The `dims` in `order` (as `DimName`s).
pub(crate) fn dims_in_order(order: &[usize]) -> Vec<DimName> {
    order.iter().map(|&d| DimName::dim(d)).collect()
}

/// Triton's `identityStandardND(in_dim, shape, order)`: the product over
/// `order` (minor first) of `identity_1d(shape[d], in_dim, dim{d})`, with the
/// out dims left **in `order` order** (Triton does not transpose them; the
/// out-dim order decides where `combineCtaCgaWithShape` puts repetitions).
pub(crate) fn identity_nd(in_dim: DimName, shape: &[u64], order: &[usize]) -> Result<LinearLayout> {
    let mut l = LinearLayout::empty();
    for &d in order {
        let size = *shape
            .get(d)
            .ok_or_else(|| invalid("layout", format!("order entry {d} out of range")))?;
        l = l.try_mul(&LinearLayout::try_identity_1d(
            size,
            in_dim,
            DimName::dim(d),
        )?)?;
    }
    Ok(l)
}

/// `zeros_1d` of `size` inputs onto a size-1 out dim (Triton's `zeros1D`).
pub(crate) fn zeros_1d(size: u64, in_dim: DimName, out: DimName) -> Result<LinearLayout> {
    if size == 1 {
        return Ok(LinearLayout::try_identity_1d(1, in_dim, out)?);
    }
    Ok(LinearLayout::try_zeros_1d(size, in_dim, out, 1)?)
}

/// Triton's `broadcastedDotOperandLayout`: for each dim in `order`,
/// `identity_1d(shape[d])`, or `zeros_1d(shape[d])` for the K dim (the
/// lanes/warps that differ along K hold the same data).
pub(crate) fn broadcasted_dot_operand_layout(
    shape: &[u64],
    order: &[usize],
    k_dim: usize,
    in_dim: DimName,
) -> Result<LinearLayout> {
    let mut l = LinearLayout::empty();
    for &d in order {
        let part = if d == k_dim {
            zeros_1d(shape[d], in_dim, DimName::dim(d))?
        } else {
            LinearLayout::try_identity_1d(shape[d], in_dim, DimName::dim(d))?
        };
        l = l.try_mul(&part)?;
    }
    Ok(l)
}

/// `l` with its out dims reordered as `like`'s.
pub(crate) fn transpose_like(l: &LinearLayout, like: &LinearLayout) -> Result<LinearLayout> {
    let names: Vec<DimName> = like.out_dim_names().collect();
    Ok(l.transpose_outs(&names)?)
}

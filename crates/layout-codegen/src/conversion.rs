//! Classifying a layout conversion (Triton's `minimalCvtLayout` and the
//! `cvtReordersRegisters` / `cvtNeedsWarpShuffle` / `cvtNeedsSharedMemory`
//! predicates of `lib/Analysis/Utility.cpp`).
//!
//! For distributed layouts `src`, `dst` (hardware → tensor), the conversion
//! map is `comp = dst.invert_and_compose(src)`: it sends a *destination*
//! hardware coordinate (register, lane, warp, block) to the *source*
//! hardware coordinate holding the same element (`src(comp(x)) = dst(x)`).
//! Going from the slowest level (block, then warp, lane, register), every
//! level on which `comp` is the identity (and independent of the others) is
//! quotiented away; the in dims that remain are the levels across which data
//! must move.

use crate::bank_conflicts::remove_broadcast_registers;
use crate::error::{CodegenError, Result};
use linear_layout::{DimName, LinearLayout};

/// What a conversion needs, cheapest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ConversionKind {
    /// The layouts are equivalent: nothing moves.
    NoOp,
    /// Each thread renames its own registers.
    RegisterPermutation,
    /// Data moves between lanes of a warp only, and at most one
    /// register↔lane transposition is needed (Triton's shuffle criterion).
    WarpShuffle,
    /// Data moves between warps (or between lanes with a costly shuffle):
    /// a round trip through shared memory.
    SharedMemory,
    /// Data moves between CTAs (the `block` level is not trivial).
    CrossCta,
}

impl ConversionKind {
    /// The short name used by the CLI's JSON (`noop`, `register`, `shuffle`,
    /// `shared`, `cross_cta`).
    pub fn short_name(self) -> &'static str {
        match self {
            ConversionKind::NoOp => "noop",
            ConversionKind::RegisterPermutation => "register",
            ConversionKind::WarpShuffle => "shuffle",
            ConversionKind::SharedMemory => "shared",
            ConversionKind::CrossCta => "cross_cta",
        }
    }
}

fn check_distributed(l: &LinearLayout, which: &str) -> Result<()> {
    for d in [DimName::REGISTER, DimName::LANE] {
        if !l.has_in_dim(d) {
            return Err(CodegenError::Invalid(format!(
                "{which} layout is not distributed: it has no '{d}' in dim"
            )));
        }
    }
    Ok(())
}

/// `dst.invert_and_compose(src)`: destination hardware coordinate → source
/// hardware coordinate of the same element.
pub fn conversion_layout(src: &LinearLayout, dst: &LinearLayout) -> Result<LinearLayout> {
    check_distributed(src, "source")?;
    check_distributed(dst, "destination")?;
    if src.out_dims() != dst.out_dims() {
        return Err(CodegenError::Invalid(format!(
            "source and destination cover different tensors: {:?} vs {:?}",
            src.out_dims(),
            dst.out_dims()
        )));
    }
    if src == dst {
        // The same layout: every element stays where it is. (Triton answers
        // "trivial" for identical encodings before solving; the solver's
        // identity-dim rule need not give the identity for layouts with
        // mixed-bit warp bases.)
        return Ok(identity_on_in_dims(src)?);
    }
    invert_and_compose_robust(dst, src)
}

/// The identity map from `l`'s in dims to themselves (same sizes).
fn identity_on_in_dims(l: &LinearLayout) -> linear_layout::Result<LinearLayout> {
    let dims = l.in_dims();
    let bases = dims
        .iter()
        .enumerate()
        .map(|(i, &(d, size))| {
            let n = size.trailing_zeros();
            let bs = (0..n)
                .map(|k| {
                    let mut v = vec![0u64; dims.len()];
                    v[i] = 1 << k;
                    v
                })
                .collect();
            (d, bs)
        })
        .collect();
    LinearLayout::new(bases, dims, false)
}

/// `a.invert_and_compose(b)` (`b(C(x)) = a(x)`). Kept as a named entry
/// point: the algebra itself now handles the case Triton asserts on (its
/// identity-dim shortcut taking columns the other dims need) by releasing
/// identity dims from the fastest up.
pub fn invert_and_compose_robust(a: &LinearLayout, b: &LinearLayout) -> Result<LinearLayout> {
    Ok(a.invert_and_compose(b)?)
}

/// Triton's `minimalCvtLayout(src, dst)`: `comp = dst.invert_and_compose(src)`,
/// then quotient by the common trailing in dims (block, warp, lane,
/// register, slowest first) while `comp` is the identity on them.
pub fn minimal_cvt_layout(src: &LinearLayout, dst: &LinearLayout) -> Result<LinearLayout> {
    let mut comp = conversion_layout(src, dst)?;
    let s: Vec<DimName> = src.in_dim_names().collect();
    let d: Vec<DimName> = dst.in_dim_names().collect();
    let mut dims = Vec::new();
    for i in 0..s.len().min(d.len()) {
        let (a, b) = (s[s.len() - 1 - i], d[d.len() - 1 - i]);
        if a != b {
            break;
        }
        dims.push(a);
    }
    for dim in dims {
        match comp.quotient(&[dim]) {
            Some(q) => comp = q,
            None => break,
        }
    }
    Ok(comp)
}

/// The in dims of the minimal conversion layout, e.g. `[register, lane]`.
pub fn moved_levels(src: &LinearLayout, dst: &LinearLayout) -> Result<Vec<DimName>> {
    Ok(minimal_cvt_layout(src, dst)?.in_dim_names().collect())
}

/// `cvtReordersRegisters`: the minimal layout has no in dim or only `register`.
pub fn cvt_reorders_registers(src: &LinearLayout, dst: &LinearLayout) -> Result<bool> {
    let dims = moved_levels(src, dst)?;
    Ok(dims.is_empty() || dims == [DimName::REGISTER])
}

/// Gluon's `is_convert_layout_trivial`: the encodings are identical
/// (`same_encoding`, a property of the attribute text that linear layouts
/// cannot see) or [`cvt_reorders_registers`].
pub fn is_convert_layout_trivial(
    src: &LinearLayout,
    dst: &LinearLayout,
    same_encoding: bool,
) -> Result<bool> {
    if same_encoding {
        return Ok(true);
    }
    cvt_reorders_registers(src, dst)
}

/// The number of register↔lane transpositions in the decomposition of a
/// warp-local conversion into (register permutation) ∘ (lane permutation) ∘
/// transpositions (Triton's `getWarpLayoutConvertDecomposition`, counted
/// from the bit permutation `P = src.invert_and_compose(dst)` restricted to
/// register and lane bits: the number of destination register bits that `P`
/// sends to source lane bits, after broadcast registers are removed, both
/// sides padded with zero bases to the same sizes, and unmatched zero bits
/// paired in order). `None` when `P` is not a bit permutation (the data
/// cannot be exchanged by shuffles of whole registers).
pub fn mixed_transpositions(src: &LinearLayout, dst: &LinearLayout) -> Result<Option<usize>> {
    let (reg, lane) = (DimName::REGISTER, DimName::LANE);
    let s = remove_broadcast_registers(src)?;
    let t = remove_broadcast_registers(dst)?;
    let outs: Vec<DimName> = s.out_dim_names().collect();
    let pad = |l: &LinearLayout, nreg: u32, nlane: u32| -> Result<LinearLayout> {
        let mut bases = Vec::new();
        for d in [reg, lane] {
            let mut b = l.bases(d);
            let want = if d == reg { nreg } else { nlane } as usize;
            while b.len() < want {
                b.push(vec![0; outs.len()]);
            }
            bases.push((d, b));
        }
        Ok(LinearLayout::new(bases, l.out_dims(), false)?)
    };
    let nreg = s.in_dim_size_log2(reg).max(t.in_dim_size_log2(reg));
    let nlane = s.in_dim_size_log2(lane).max(t.in_dim_size_log2(lane));
    let s = pad(&s, nreg, nlane)?;
    let t = pad(&t, nreg, nlane)?;
    let Ok(p) = invert_and_compose_robust(&s, &t) else {
        return Ok(None);
    };
    // Columns of P over the (register, lane) bits of t, values packed over
    // (register, lane) bits of s: register bits low.
    let cols: Vec<u64> = p.columns().to_vec();
    let n = cols.len();
    let mut image = vec![None; n];
    let mut hit = 0u64;
    for (i, &c) in cols.iter().enumerate() {
        if c == 0 {
            continue;
        }
        if !c.is_power_of_two() || hit & c != 0 {
            return Ok(None);
        }
        hit |= c;
        image[i] = Some(c.trailing_zeros() as usize);
    }
    // Fixed points for bits zero on both sides, then pair the rest in order.
    for (i, slot) in image.iter_mut().enumerate() {
        if slot.is_none() && hit & (1 << i) == 0 {
            *slot = Some(i);
            hit |= 1 << i;
        }
    }
    let mut free = (0..n).filter(|&j| hit & (1 << j) == 0);
    for slot in image.iter_mut() {
        if slot.is_none() {
            *slot = free.next();
        }
    }
    let nreg = nreg as usize;
    Ok(Some(
        image
            .iter()
            .take(nreg)
            .filter(|j| j.is_some_and(|j| j >= nreg))
            .count(),
    ))
}

/// `cvtNeedsWarpShuffle`: the minimal layout moves exactly registers and
/// lanes, with fewer than two register↔lane transpositions.
pub fn cvt_needs_warp_shuffle(src: &LinearLayout, dst: &LinearLayout) -> Result<bool> {
    let dims = moved_levels(src, dst)?;
    if dims != [DimName::REGISTER, DimName::LANE] {
        return Ok(false);
    }
    Ok(mixed_transpositions(src, dst)?.is_some_and(|m| m < 2))
}

/// `cvtNeedsSharedMemory`: neither a register permutation nor a shuffle.
pub fn cvt_needs_shared_memory(src: &LinearLayout, dst: &LinearLayout) -> Result<bool> {
    Ok(!cvt_reorders_registers(src, dst)? && !cvt_needs_warp_shuffle(src, dst)?)
}

/// The class of the conversion (Triton's lowering dispatch).
pub fn classify(src: &LinearLayout, dst: &LinearLayout) -> Result<ConversionKind> {
    let dims = moved_levels(src, dst)?;
    Ok(if dims.contains(&DimName::BLOCK) {
        ConversionKind::CrossCta
    } else if dims.is_empty() {
        ConversionKind::NoOp
    } else if dims == [DimName::REGISTER] {
        ConversionKind::RegisterPermutation
    } else if cvt_needs_warp_shuffle(src, dst)? {
        ConversionKind::WarpShuffle
    } else {
        ConversionKind::SharedMemory
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dist(reg: Vec<Vec<u64>>, lane: Vec<Vec<u64>>, warp: Vec<Vec<u64>>) -> LinearLayout {
        LinearLayout::new(
            vec![
                (DimName::REGISTER, reg),
                (DimName::LANE, lane),
                (DimName::WARP, warp),
                (DimName::BLOCK, vec![]),
            ],
            vec![(DimName::dim(0), 64)],
            true,
        )
        .unwrap()
    }

    // 1-D, 64 elements: 2 registers, 8 lanes, 4 warps.
    fn base() -> LinearLayout {
        dist(
            vec![vec![1]],
            vec![vec![2], vec![4], vec![8]],
            vec![vec![16], vec![32]],
        )
    }

    #[test]
    fn identical_layouts_are_a_no_op() {
        assert_eq!(classify(&base(), &base()).unwrap(), ConversionKind::NoOp);
        assert!(minimal_cvt_layout(&base(), &base())
            .unwrap()
            .in_dims()
            .is_empty());
    }

    /// Swapping a lane bit with the register bit: one transposition, a shuffle.
    #[test]
    fn one_register_lane_swap_is_a_shuffle() {
        let dst = dist(
            vec![vec![2]],
            vec![vec![1], vec![4], vec![8]],
            vec![vec![16], vec![32]],
        );
        assert_eq!(mixed_transpositions(&base(), &dst).unwrap(), Some(1));
        assert_eq!(
            classify(&base(), &dst).unwrap(),
            ConversionKind::WarpShuffle
        );
    }

    /// Swapping two warp bases: data crosses warps.
    #[test]
    fn warp_swap_needs_shared_memory() {
        let dst = dist(
            vec![vec![16]],
            vec![vec![2], vec![4], vec![8]],
            vec![vec![1], vec![32]],
        );
        assert_eq!(
            moved_levels(&base(), &dst).unwrap(),
            vec![DimName::REGISTER, DimName::LANE, DimName::WARP]
        );
        assert_eq!(
            classify(&base(), &dst).unwrap(),
            ConversionKind::SharedMemory
        );
    }

    /// Two registers and two lanes exchanged: two transpositions, shared.
    #[test]
    fn two_transpositions_need_shared_memory() {
        let src = dist(
            vec![vec![1], vec![2]],
            vec![vec![4], vec![8]],
            vec![vec![16], vec![32]],
        );
        let dst = dist(
            vec![vec![4], vec![8]],
            vec![vec![1], vec![2]],
            vec![vec![16], vec![32]],
        );
        assert_eq!(mixed_transpositions(&src, &dst).unwrap(), Some(2));
        assert_eq!(classify(&src, &dst).unwrap(), ConversionKind::SharedMemory);
    }
}

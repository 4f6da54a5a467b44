//! The optimal swizzled shared-memory layout for a conversion through shared
//! memory (the paper's §5.4 and §9.2; Triton's `optimalSwizzlingLdSt` in
//! `lib/Tools/GenericSwizzling.cpp`).
//!
//! ## The construction
//! Work on flattened tensor coordinates (out dims concatenated, dim0 in the
//! low bits: `d` bits in all). A shared layout is built as a basis of
//! `GF(2)^d` split into three parts, read as the bits of the element offset
//! from low to high:
//!
//! - `V` (*vector*): bases that are registers of **both** layouts (their
//!   intersection), up to 128 bits per access, extended on one side to fill a
//!   32-bit word; each thread stores and loads `2^|V|` consecutive elements.
//! - `B` (*bank*): enough bits to cover one 128-byte row of the 32 banks.
//! - `S` (*segment*, `ℓ` bits): the row index. Two lanes of one access whose
//!   coordinates differ by a vector of `span(S)` hit the same bank in different
//!   rows. With `T_src`, `T_dst` the lane bases of one phase of the store and
//!   of the load, the write and read conflicts are
//!   `2^dim(span(S) ∩ span(T_src)) − 1` and `2^dim(span(S) ∩ span(T_dst)) − 1`.
//!
//! `S` takes first the unit vectors in neither tile (conflict-free for both
//! sides), then `a_i ⊕ b_i` for `a_i ∈ T_src \ T_dst`, `b_i ∈ T_dst \ T_src`
//! (in neither span), and only then, when `ℓ` is still not reached, plain
//! tile vectors, which cost conflicts. `B` completes `V ∪ S` to a basis.
//!
//! ## Optimality (Lemma 9.5)
//! For subspaces `U`, `W` of `GF(2)^d`, the largest subspace meeting
//! `U ∪ W` only in 0 has dimension `d − max(dim U, dim W)`. With
//! `U = span(V ∪ T_src)`, `W = span(V ∪ T_dst)`, any choice of `ℓ` segment
//! bits therefore has, on the worse side, at least
//! `ℓ − (d − max(dim U, dim W))` conflicting dimensions
//! ([`SwizzleResult::lower_bound_log2`], measured by
//! [`paper_conflicts_log2`]). The construction meets the bound; the tests
//! check it, and that no other segment space does better on either the
//! worse side or the sum of both sides, by exhaustive search (single-bit
//! and mixed bases).
//!
//! Deviations from Triton (for optimality, see [`compute_segment`]): the
//! segment is always `ℓ` long, unpaired lane vectors are used before pairs
//! are split, and non-single-bit bases are handled with span arithmetic.

use crate::bank_conflicts::{
    bank_dim, remove_broadcast_registers, reps_dim, segment_dim, span_intersection_dim, vector_dim,
};
use crate::error::{check_bitwidth, CodegenError, Result};
use linear_layout::{gf2, DimName, LinearLayout};

/// The result of [`optimal_swizzling`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwizzleResult {
    /// The shared layout: in dims `offset` (elements) [, `block`], out dims
    /// the tensor dims.
    pub shared: LinearLayout,
    /// The same layout with in dims `vector`, `bank`, `segment`, `reps`
    /// (segment bases that are registers of both sides moved to `reps`: they
    /// can be handled in separate store/load rounds).
    pub shared_split: LinearLayout,
    /// Flattened vector bases `V`.
    pub vector_bases: Vec<u64>,
    /// Flattened bank bases `B`.
    pub bank_bases: Vec<u64>,
    /// Flattened segment bases `S` (including those moved to `reps`).
    pub segment_bases: Vec<u64>,
    /// Flattened bases of every offset bit above one 128-byte row: the bank
    /// bases past the first row (when `S` came out shorter than `ℓ`), then
    /// `S` (reps included). Conflicts are measured against these, reps
    /// excluded (they are stored and loaded in separate rounds).
    pub row_bases: Vec<u64>,
    /// Lane bases of one store phase (`T_src`).
    pub tile_src: Vec<u64>,
    /// Lane bases of one load phase (`T_dst`).
    pub tile_dst: Vec<u64>,
    /// Elements per vector (`2^|V|`).
    pub vector_elems: u64,
    /// Store (write) conflicts: extra wavefronts per phase.
    pub write_conflicts: u64,
    /// Load (read) conflicts.
    pub read_conflicts: u64,
    /// The paper's lower bound on `log2` of the wavefronts of the worse side.
    pub lower_bound_log2: u32,
    /// Element bit width.
    pub bitwidth: u32,
}

/// Lead (lowest) bits of a reduced echelon form of `vectors`: an invariant
/// of their span.
fn lead_bits(vectors: &[u64]) -> u64 {
    let mut rows: Vec<u64> = Vec::new();
    for &v in vectors {
        let mut x = v;
        for &r in &rows {
            if x & (r & r.wrapping_neg()) != 0 {
                x ^= r;
            }
        }
        if x != 0 {
            // Keep rows reduced at the new lead bit.
            let lead = x & x.wrapping_neg();
            for r in rows.iter_mut() {
                if *r & lead != 0 {
                    *r ^= x;
                }
            }
            rows.push(x);
        }
    }
    rows.iter().fold(0, |m, r| m | (r & r.wrapping_neg()))
}

/// Triton's `complementBasis`: the unit vectors at the non-lead columns.
pub fn complement_basis(vectors: &[u64], dim: u32) -> Vec<u64> {
    let leads = lead_bits(vectors);
    (0..dim)
        .map(|i| 1u64 << i)
        .filter(|e| leads & e == 0)
        .collect()
}

/// Triton's `intersectionBasis`: for powers of two, the elements of `b1` (in
/// `b1`'s order) also in `b2`; otherwise a basis of the span intersection.
pub fn intersection_basis(b1: &[u64], b2: &[u64]) -> Vec<u64> {
    if b1.iter().chain(b2).all(|x| x.is_power_of_two()) {
        b1.iter().filter(|x| b2.contains(x)).copied().collect()
    } else {
        gf2::span_intersection(b1, b2)
    }
}

/// The segment bases (see the module doc): `len` vectors, independent of
/// `V`, meeting `U = span(V ∪ T_src)` and `W = span(V ∪ T_dst)` as little as
/// possible (the construction of Lemma 9.5, for arbitrary vectors).
///
/// With `I = U ∩ W`, `E` completing `I` to `U` and `F` completing it to `W`
/// (generators in ascending order, `|E| ≤ |F|` after a swap) and `C` the unit
/// vectors completing `U + W` to the whole space, the candidates are, in
/// order: `C` (in neither), `e_i ⊕ f_i` (in neither span), the unpaired
/// `f_j` (a conflict on one side each), the `e_i` (one on each side, since
/// `e_i ⊕ f_i` is already in), then `I`. Every candidate dependent on `V`
/// and the vectors already taken is skipped.
///
/// For layouts whose bases are single bits this is Triton's
/// `computeSegment`, except that Triton uses the `e_i` and `f_i` of split
/// pairs before the unpaired `f_j` (same worse side, more total conflicts)
/// and can return fewer than `len` vectors (the missing row bits then fall
/// in the bank bases, with conflicts its count does not see).
pub fn compute_segment(
    v: &[u64],
    tile_src: &[u64],
    tile_dst: &[u64],
    dim: u32,
    len: usize,
) -> Vec<u64> {
    let nz = |xs: &[u64]| -> Vec<u64> { dedup(xs.iter().copied().filter(|&x| x != 0)) };
    let (v, t_src, t_dst) = (nz(v), nz(tile_src), nz(tile_dst));
    let u: Vec<u64> = v.iter().chain(&t_src).copied().collect();
    let w: Vec<u64> = v.iter().chain(&t_dst).copied().collect();
    let both: Vec<u64> = u.iter().chain(&w).copied().collect();
    let inter = gf2::span_intersection(&u, &w);
    // Complete `inter` to a basis of span(gens) with generators.
    let complete = |gens: &[u64]| -> Vec<u64> {
        let mut out = gf2::extend_basis(&inter, gens);
        out.sort_unstable();
        out
    };
    let mut a = complete(&t_src);
    let mut b = complete(&t_dst);
    if a.len() > b.len() {
        std::mem::swap(&mut a, &mut b);
    }
    let c = complement_basis(&both, dim);
    let candidates = c
        .iter()
        .copied()
        .chain(a.iter().zip(&b).map(|(x, y)| x ^ y))
        .chain(b[a.len()..].iter().copied())
        .chain(a.iter().copied())
        .chain(inter.iter().copied())
        .chain(t_src.iter().copied())
        .chain(t_dst.iter().copied());
    let mut seg = Vec::new();
    for x in candidates {
        if seg.len() >= len {
            break;
        }
        let taken: Vec<u64> = v.iter().chain(&seg).copied().collect();
        if !gf2::in_span(&taken, x) {
            seg.push(x);
        }
    }
    seg
}

fn dedup(it: impl Iterator<Item = u64>) -> Vec<u64> {
    let mut v = Vec::new();
    for x in it {
        if !v.contains(&x) {
            v.push(x);
        }
    }
    v
}

/// Triton's `getVbasis`: the vector bases (see the module doc).
pub fn vector_basis(
    reg_src: &[u64],
    reg_dst: &[u64],
    lane_src: &[u64],
    lane_dst: &[u64],
    bitwidth: u32,
) -> Vec<u64> {
    let mut reg_src = reg_src.to_vec();
    let mut reg_dst = reg_dst.to_vec();
    // Register bases that repeat (or depend on) earlier ones are replicas
    // of already-held elements (a non-injective layout may spell broadcast
    // that way instead of with zero bases): keep the independent ones.
    let mut v: Vec<u64> = Vec::new();
    for x in intersection_basis(&reg_src, &reg_dst) {
        if x != 0 && !gf2::in_span(&v, x) {
            v.push(x);
        }
    }
    let max_vec = (128 / bitwidth).trailing_zeros() as usize;
    v.truncate(max_vec);
    let per_bank = if bitwidth > 32 {
        0
    } else {
        (32 / bitwidth).trailing_zeros() as usize
    };
    let after_bank0 = |regs: &[u64], v: &[u64], other_lanes: &[u64]| -> Vec<u64> {
        let max = (128 / bitwidth.max(32)).trailing_zeros() as usize;
        let mut out = Vec::new();
        for &r in regs {
            if out.len() == max {
                break;
            }
            let cur: Vec<u64> = v.iter().chain(&out).copied().collect();
            if v.contains(&r) || gf2::in_span(&cur, r) {
                continue;
            }
            if other_lanes.contains(&r) {
                out.push(r);
            }
        }
        out
    };
    let mut vec_src = true;
    if (1u64 << v.len()) * (bitwidth as u64) < 32 {
        let is_prefix = |p: &[u64], regs: &[u64]| p.len() <= regs.len() && regs[..p.len()] == *p;
        let mut src_prefix = is_prefix(&v, &reg_src);
        let mut dst_prefix = is_prefix(&v, &reg_dst);
        let to_front = |regs: &[u64], v: &[u64]| -> Vec<u64> {
            v.iter()
                .copied()
                .chain(regs.iter().copied().filter(|r| !v.contains(r)))
                .collect()
        };
        if !v.is_empty() && !src_prefix && !dst_prefix {
            reg_src = to_front(&reg_src, &v);
            reg_dst = to_front(&reg_dst, &v);
            src_prefix = true;
            dst_prefix = true;
        }
        let fill = |regs: &[u64], v: &[u64]| -> Vec<u64> {
            let mut out = v.to_vec();
            let mut i = v.len();
            while i < per_bank && i < regs.len() {
                if !gf2::in_span(&out, regs[i]) {
                    out.push(regs[i]);
                }
                i += 1;
            }
            out
        };
        if src_prefix && dst_prefix {
            let es = after_bank0(&reg_src, &fill(&reg_src, &v), lane_dst).len();
            let ed = after_bank0(&reg_dst, &fill(&reg_dst, &v), lane_src).len();
            src_prefix = es >= ed;
        }
        vec_src = src_prefix;
        v = fill(if vec_src { &reg_src } else { &reg_dst }, &v);
    }
    let extra = if vec_src {
        after_bank0(&reg_src, &v, lane_dst)
    } else {
        after_bank0(&reg_dst, &v, lane_src)
    };
    v.extend(extra);
    // Triton never issues an access wider than 128 bits: its newer
    // `getVecBasisLdSt` keeps only the intersection (truncated to
    // log2(128 / bitwidth) bases) and the fill up to one 32-bit word, and
    // its lowering (`largestVectorisation`) caps every `ld/st.shared` at
    // 128 bits. The older `intersectAfterBank0` extension above can push
    // `V` past 128 bits (e.g. 8-bit elements: 16 common registers, then 2
    // more registers of one side that are lanes of the other), which no
    // instruction can move at once; cap `V` at 128 bits as Triton does.
    v.truncate(max_vec);
    v
}

/// The length of the common prefix of `regs` and `v` (the vector width, as
/// log2 elements, a side can use without reordering its registers).
fn prefix_len(regs: &[u64], v: &[u64]) -> usize {
    regs.iter().zip(v).take_while(|(a, b)| a == b).count()
}

/// Checks the pair and returns the block-free register/lane sublayouts.
fn prepare(src: &LinearLayout, dst: &LinearLayout) -> Result<(LinearLayout, LinearLayout)> {
    for (l, which) in [(src, "source"), (dst, "destination")] {
        for d in [DimName::REGISTER, DimName::LANE] {
            if !l.has_in_dim(d) {
                return Err(CodegenError::Invalid(format!(
                    "{which} layout has no '{d}' in dim"
                )));
            }
        }
        if l.has_in_dim(DimName::BLOCK) && l.in_dim_size(DimName::BLOCK) > 1 {
            return Err(CodegenError::Unsupported(format!(
                "{which} layout spans {} CTAs; swizzling is computed per CTA",
                l.in_dim_size(DimName::BLOCK)
            )));
        }
        if !l.is_surjective() {
            return Err(CodegenError::Invalid(format!(
                "{which} layout does not cover the whole tensor"
            )));
        }
    }
    if src.out_dims() != dst.out_dims() {
        return Err(CodegenError::Invalid(format!(
            "source and destination cover different tensors: {:?} vs {:?}",
            src.out_dims(),
            dst.out_dims()
        )));
    }
    Ok((
        remove_broadcast_registers(src)?,
        remove_broadcast_registers(dst)?,
    ))
}

/// The optimal swizzled shared layout for storing `src` and loading `dst`
/// (both distributed, same tensor, one CTA) with `bitwidth`-bit elements.
pub fn optimal_swizzling(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<SwizzleResult> {
    check_bitwidth(bitwidth)?;
    let (s, t) = prepare(src, dst)?;
    let (reg, lane) = (DimName::REGISTER, DimName::LANE);
    let reg_src = s.packed_bases(reg).to_vec();
    let reg_dst = t.packed_bases(reg).to_vec();
    let lane_src = s.packed_bases(lane).to_vec();
    let lane_dst = t.packed_bases(lane).to_vec();
    let dim = s.total_out_dim_size_log2();
    let v = vector_basis(&reg_src, &reg_dst, &lane_src, &lane_dst, bitwidth);
    let phase_tile = |regs: &[u64], lanes: &[u64]| -> Vec<u64> {
        let n = prefix_len(regs, &v);
        let bits = (1u64 << n) * bitwidth as u64;
        let mut tile = lanes.to_vec();
        if bits > 32 {
            let drop = (bits / 32).trailing_zeros() as usize;
            tile.truncate(tile.len().saturating_sub(drop));
        }
        tile.retain(|x| !v.contains(x));
        tile
    };
    let tile_src = phase_tile(&reg_src, &lane_src);
    let tile_dst = phase_tile(&reg_dst, &lane_dst);
    let len_b = ((1024 / ((1u64 << v.len()) * bitwidth as u64)).trailing_zeros())
        .min(dim - v.len() as u32) as usize;
    let len_s = dim as usize - len_b - v.len();
    let seg = compute_segment(&v, &tile_src, &tile_dst, dim, len_s);
    let vs: Vec<u64> = v.iter().chain(&seg).copied().collect();
    let bank = complement_basis(&vs, dim);
    if gf2::rank(&vs) as usize != vs.len() || vs.len() + bank.len() != dim as usize {
        return Err(CodegenError::Invalid(format!(
            "the vector bases {v:?} are not independent"
        )));
    }
    let outs = s.out_dims();
    let flat_out = vec![(DimName::OFFSET, 1u64 << dim)];
    let unflat = |xs: &[u64]| -> Vec<Vec<u64>> { xs.iter().map(|&x| vec![x]).collect() };
    let flat = LinearLayout::new(
        vec![
            (vector_dim(), unflat(&v)),
            (bank_dim(), unflat(&bank)),
            (segment_dim(), unflat(&seg)),
        ],
        flat_out.clone(),
        true,
    )?;
    let shared = flat
        .reshape_ins(&[(DimName::OFFSET, 1u64 << dim)])?
        .reshape_outs(&outs)?;
    // Reps: segment bases that are registers of both sides.
    let (reps, seg_rest): (Vec<u64>, Vec<u64>) = seg
        .iter()
        .partition(|x| reg_src.contains(x) && reg_dst.contains(x));
    let shared_split = LinearLayout::new(
        vec![
            (vector_dim(), unflat(&v)),
            (bank_dim(), unflat(&bank)),
            (segment_dim(), unflat(&seg_rest)),
            (reps_dim(), unflat(&reps)),
        ],
        flat_out,
        true,
    )?
    .reshape_outs(&outs)?;
    // Row bits: Triton's segment may come out shorter than ℓ (too few
    // candidates); the bank bases past the first `len_b` then also select
    // 128-byte rows and count as segment for conflicts.
    let row_bases: Vec<u64> = bank[len_b.min(bank.len())..]
        .iter()
        .chain(&seg)
        .copied()
        .collect();
    let row_no_reps: Vec<u64> = row_bases
        .iter()
        .copied()
        .filter(|x| !reps.contains(x))
        .collect();
    let cost = |tile: &[u64]| (1u64 << span_intersection_dim(&row_no_reps, tile)) - 1;
    let dim_with = |t: &[u64]| gf2::rank(&v.iter().chain(t).copied().collect::<Vec<_>>());
    let worst = dim_with(&tile_src).max(dim_with(&tile_dst));
    let lower_bound_log2 = (len_s as i64 - (dim as i64 - worst as i64)).max(0) as u32;
    Ok(SwizzleResult {
        shared,
        shared_split,
        vector_elems: 1u64 << v.len(),
        write_conflicts: cost(&tile_src),
        read_conflicts: cost(&tile_dst),
        vector_bases: v,
        bank_bases: bank,
        segment_bases: seg,
        row_bases,
        tile_src,
        tile_dst,
        lower_bound_log2,
        bitwidth,
    })
}

/// The shared layout whose offset bits map, from the lowest, to the
/// independent vectors of `order` in turn (packed tensor coordinates,
/// dependent and zero vectors skipped), completed with unit vectors from
/// the lowest: `offset → tensor`, out dims `outs`.
pub fn layout_from_order(order: &[u64], outs: &[(DimName, u64)]) -> Result<LinearLayout> {
    let n: u32 = outs.iter().map(|o| o.1.trailing_zeros()).sum();
    let mut cols: Vec<u64> = Vec::new();
    for v in order.iter().copied().chain((0..n).map(|i| 1u64 << i)) {
        if cols.len() == n as usize {
            break;
        }
        if v != 0 && v >> n == 0 && !gf2::in_span(&cols, v) {
            cols.push(v);
        }
    }
    let outs_log2 = outs
        .iter()
        .map(|&(d, size)| (d, size.trailing_zeros()))
        .collect();
    Ok(LinearLayout::from_packed(
        vec![(DimName::OFFSET, cols)],
        outs_log2,
        true,
    )?)
}

/// The paper's construction of a swizzled shared layout (§5.4), as
/// candidates to score (see [`crate::choice`]): the offset bits are, from
/// the lowest,
///
/// 1. `V`: vector bases: the first `c` common register bases of the two
///    sides (`c` up to the 128-bit cap), optionally widened with `e` more
///    registers of one side only (that side's accesses get wider, the other
///    side's narrower);
/// 2. `I = span(A) ∩ span(B)`, where `A` and `B` are the first `k` lane bases
///    of the two sides (the lanes of one phase; `k = 0..=5`): lanes of both
///    phases that differ by `I` fall in distinct banks on both sides;
/// 3. `A'`: `A` completed from `I` (distinct banks for the first side);
/// 4. `A'_i ⊕ B'_i`: as the segment (row) bits. With offset bit `j` of the
///    bank part carrying `a_j`, the vector `b_j = a_j ⊕ (a_j ⊕ b_j)` lands in
///    bank `j` too, so the second side's phase also spreads over distinct
///    banks;
/// 5. then the remaining registers, lanes and warps of the source, and unit
///    vectors ([`layout_from_order`]).
///
/// Both role orders (`A` from the source or from the destination) are
/// produced. `src` and `dst` must be CTA-local (one CTA) and cover the same
/// tensor; broadcast register bases are ignored. Duplicates are removed.
/// Every candidate is a bijection `offset → tensor`, so any of them gives a
/// correct plan; they differ in cost only.
pub fn paper_swizzle_candidates(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<Vec<LinearLayout>> {
    check_bitwidth(bitwidth)?;
    let (s, t) = prepare(src, dst)?;
    let (reg, lane) = (DimName::REGISTER, DimName::LANE);
    let rs = s.packed_bases(reg).to_vec();
    let rd = t.packed_bases(reg).to_vec();
    let (ls, ld) = (s.packed_bases(lane).to_vec(), t.packed_bases(lane).to_vec());
    let warps: Vec<u64> = if s.has_in_dim(DimName::WARP) {
        s.packed_bases(DimName::WARP).to_vec()
    } else {
        vec![]
    };
    let outs = s.out_dims();
    let common: Vec<u64> = rs.iter().copied().filter(|x| rd.contains(x)).collect();
    let max_vec = (128 / bitwidth).trailing_zeros() as usize;
    let mut seen: Vec<Vec<u64>> = Vec::new();
    let mut out = Vec::new();
    for take_common in 0..=common.len().min(max_vec) {
        for (side, regs) in [(0, &rs), (1, &rd)] {
            let extras: Vec<u64> = regs
                .iter()
                .copied()
                .filter(|x| !common.contains(x))
                .collect();
            for take_extra in 0..=extras.len().min(max_vec - take_common) {
                if take_extra == 0 && side == 1 {
                    continue;
                }
                let mut vec: Vec<u64> = common[..take_common].to_vec();
                vec.extend(&extras[..take_extra]);
                for (first, second) in [(&ls, &ld), (&ld, &ls)] {
                    for k in 0..=5usize {
                        let a: Vec<u64> = first.iter().take(k).copied().collect();
                        let b: Vec<u64> = second.iter().take(k).copied().collect();
                        let inter = gf2::span_intersection(&a, &b);
                        let extend = |from: &[u64]| -> Vec<u64> {
                            let mut taken = inter.clone();
                            let mut rest = Vec::new();
                            for &x in from {
                                if x != 0 && !gf2::in_span(&taken, x) {
                                    taken.push(x);
                                    rest.push(x);
                                }
                            }
                            rest
                        };
                        let (a_rest, b_rest) = (extend(&a), extend(&b));
                        let mut order = vec.clone();
                        order.extend(&inter);
                        order.extend(&a_rest);
                        order.extend(a_rest.iter().zip(&b_rest).map(|(x, y)| x ^ y));
                        order.extend(&rs);
                        order.extend(&ls);
                        order.extend(&warps);
                        let layout = layout_from_order(&order, &outs)?;
                        let cols = layout.packed_bases(DimName::OFFSET).to_vec();
                        if !seen.contains(&cols) {
                            seen.push(cols);
                            out.push(layout);
                        }
                    }
                }
            }
        }
    }
    Ok(out)
}

/// The paper's conflict measure of a segment choice (Lemma 9.4),
/// `dim(span(V ∪ S) ∩ span(T))`, less `dim(span(V) ∩ span(T))`: lanes
/// that differ by a vector of `span(V)` only touch the same vectors
/// (the same words or other banks), not other rows. For layouts whose
/// bases are single bits `span(V) ∩ span(T) = 0` and this is the paper's
/// measure.
pub fn paper_conflicts_log2(v: &[u64], seg: &[u64], tile: &[u64]) -> u32 {
    let vs: Vec<u64> = v.iter().chain(seg).copied().collect();
    crate::bank_conflicts::span_intersection_dim(&vs, tile)
        - crate::bank_conflicts::span_intersection_dim(v, tile)
}

/// Exhaustive search over every `len`-dimensional segment space `S`
/// complementary to `span(V)` (in the coordinates of the unit-vector
/// complement of `V`): the minimum over `S` of `(max, sum)` of the paper's
/// write and read conflict measures. Exponential: for tests with at most
/// ~10 offset bits.
pub fn exhaustive_min_conflicts(
    v: &[u64],
    tile_src: &[u64],
    tile_dst: &[u64],
    dim: u32,
    len: usize,
) -> (u32, u32) {
    let q = complement_basis(v, dim);
    let m = q.len();
    let mut best = (u32::MAX, u32::MAX);
    // Enumerate reduced echelon forms of len × m matrices (lead = lowest
    // bit): a set of pivot columns, then for each row any values at the
    // non-pivot columns above its pivot. Each subspace appears once.
    fn combos(m: usize, len: usize, start: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if cur.len() == len {
            out.push(cur.clone());
            return;
        }
        for p in start..m {
            cur.push(p);
            combos(m, len, p + 1, cur, out);
            cur.pop();
        }
    }
    let mut pivot_sets = Vec::new();
    combos(m, len, 0, &mut Vec::new(), &mut pivot_sets);
    for pivots in pivot_sets {
        let pmask: u64 = pivots.iter().fold(0, |a, &p| a | 1 << p);
        let free: Vec<Vec<usize>> = pivots
            .iter()
            .map(|&p| (p + 1..m).filter(|c| pmask & (1 << c) == 0).collect())
            .collect();
        let total: u32 = free.iter().map(|f| f.len() as u32).sum();
        for assignment in 0..(1u64 << total) {
            let mut at = 0;
            let seg: Vec<u64> = pivots
                .iter()
                .zip(&free)
                .map(|(&p, f)| {
                    let mut x = q[p];
                    for &c in f {
                        if assignment >> at & 1 == 1 {
                            x ^= q[c];
                        }
                        at += 1;
                    }
                    x
                })
                .collect();
            let w = paper_conflicts_log2(v, &seg, tile_src);
            let r = paper_conflicts_log2(v, &seg, tile_dst);
            best.0 = best.0.min(w.max(r));
            best.1 = best.1.min(w + r);
        }
    }
    if len == 0 {
        best = (0, 0);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compute_segment_prefers_free_units_then_pairs() {
        // dim 4; src tile {1, 2}, dst tile {4, 8}: no free unit vector, pairs
        // 1^4, 2^8 are conflict-free for both.
        assert_eq!(compute_segment(&[], &[1, 2], &[4, 8], 4, 2), vec![5, 10]);
        // len 3 > 2 pairs: one unavoidable conflict on each side: A[0], B[0].
        // len 3 > 2 pairs: one unavoidable conflict on each side: A[0]
        // (with 1^4 already in, 4 is in the span too).
        assert_eq!(compute_segment(&[], &[1, 2], &[4, 8], 4, 3), vec![5, 10, 1]);
    }

    #[test]
    fn complement_basis_uses_non_lead_columns() {
        // span{0b11}: lead bit 0, so the complement is e1 (Triton's choice).
        assert_eq!(complement_basis(&[0b11], 2), vec![0b10]);
    }
}

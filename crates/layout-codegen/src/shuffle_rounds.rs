//! Warp-shuffle rounds inside [`crate::plan::ConversionPlan`] (the plan the
//! CTA simulator proves) for warp-local conversions (data moves between
//! lanes of a warp only).
//!
//! ## One planning path, two output forms
//! `plan_shuffle` asks both shuffle planners and keeps the cheaper plan
//! under the cost model of [`crate::choice::plan_cost`] (`max(shuffles,
//! (selects + prmt) / 2)` per thread; a shuffle from one's own lane is a
//! free register move):
//!
//! * [`crate::shuffle::shuffle_plan`] → `ConversionPlan::WarpProgram`:
//!   Triton's `P_mixed ∘ P_lane ∘ P_reg` decomposition with *Ship* / *Swap*
//!   and packing of sub-32-bit elements (`prmt`), else the paper's coset
//!   rounds with explicit `selp`, else the general `shfl.idx` rounds;
//! * `rounds_plan` here → `ConversionPlan::WarpShuffle`
//!   ([`crate::plan::Shuffle`]: one step from a source register to a
//!   destination register): the paper's coset rounds (§5.4) without
//!   broadcast, else one `shfl.idx` per destination register and value of
//!   `B·l`. It is the fallback (64-bit elements, which the program planner
//!   does not pack or split) and is kept only when strictly cheaper.
//!
//! Both forms are executed and proved by [`crate::simulator::simulate`]
//! (the program form through [`crate::simulator::execute_warp`], written
//! apart from [`crate::shuffle::run_warp_program`]; tests/unify_*.rs check
//! that the two executors agree).

use crate::conversion::conversion_layout;
use crate::cost::shuffle_cycles;
use crate::error::{CodegenError, Result};
use crate::plan::{Address, ConversionPlan, Shuffle};
use crate::shuffle::{shuffle_plan, ShflMode, WarpInstr, WarpProgram};
use linear_layout::{gf2, DimName, LinearLayout};

/// A warp-local conversion of `bitwidth`-bit elements as warp shuffles:
/// the cheaper of [`crate::shuffle::shuffle_plan`]'s program and
/// [`rounds_plan`]'s shuffles (module doc; the program wins ties,
/// program-planner failures keep the rounds plan). Errors only when both planners fail
/// (the rounds planner's error is returned).
pub(crate) fn plan_shuffle(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<ConversionPlan> {
    let program = shuffle_plan(src, dst, bitwidth).ok().map(|p| p.program);
    match (rounds_plan(src, dst), program) {
        (Ok(shuffles), Some(p)) if program_cost(&p) <= shuffles_cost(&shuffles) => {
            Ok(ConversionPlan::WarpProgram(Box::new(p)))
        }
        (Ok(shuffles), _) => Ok(ConversionPlan::WarpShuffle { shuffles }),
        (Err(_), Some(p)) => Ok(ConversionPlan::WarpProgram(Box::new(p))),
        (Err(e), None) => Err(e),
    }
}

/// [`crate::cost::shuffle_cycles`] of a program, counted as the simulator
/// counts it.
pub(crate) fn program_cost(p: &WarpProgram) -> f64 {
    let (mut shfl, mut sel, mut prmt) = (0u64, 0u64, 0u64);
    for ins in &p.instrs {
        match ins {
            WarpInstr::Shuffle {
                mode: ShflMode::Idx { src_lane },
                ..
            } if src_lane.is_identity() => {}
            WarpInstr::Shuffle { .. } => shfl += 1,
            WarpInstr::Select { .. } => sel += 1,
            WarpInstr::Pack { .. } | WarpInstr::Unpack { .. } => prmt += 1,
            WarpInstr::Copy { .. } => {}
        }
    }
    shuffle_cycles(shfl, sel, prmt)
}

/// [`crate::cost::shuffle_cycles`] of a rounds plan, counted as the
/// simulator counts it.
pub(crate) fn shuffles_cost(shuffles: &[Shuffle]) -> f64 {
    let shfl = shuffles
        .iter()
        .filter(|s| !s.src_lane.is_identity_lane())
        .count() as u64;
    let sel = shuffles.iter().map(Shuffle::selects).sum();
    shuffle_cycles(shfl, sel, 0)
}

/// The rounds plan (the `WarpShuffle` form). With `comp` =
/// `dst.invert_and_compose(src)` restricted to registers and lanes,
/// `(r', l') = (A r ⊕ B l, C r ⊕ D l)` is the source of destination
/// register `r` of lane `l`. For each `r` and each `b ∈ span(B)`: every lane
/// sends register `A r ⊕ b`, lane `l` reads lane `C r ⊕ D l` and keeps the
/// value iff `B l = b`. That is `R · 2^rank(B)` shuffles (`rank(B) ≤ 1` for
/// Triton's shuffle class) and as many selects when `B ≠ 0`.
pub(crate) fn rounds_plan(src: &LinearLayout, dst: &LinearLayout) -> Result<Vec<Shuffle>> {
    if let Some(shuffles) = shuffle_rounds(src, dst) {
        return Ok(shuffles);
    }
    let comp = conversion_layout(src, dst)?;
    let outs: Vec<DimName> = comp.out_dim_names().collect();
    let part = |v: &[u64], d: DimName| outs.iter().position(|&o| o == d).map_or(0, |k| v[k]);
    let split = |d: DimName| -> Result<(Vec<u64>, Vec<u64>)> {
        let mut regs = Vec::new();
        let mut lanes = Vec::new();
        for b in comp.bases(d) {
            if part(&b, DimName::WARP) != 0 || part(&b, DimName::BLOCK) != 0 {
                return Err(CodegenError::Invalid(
                    "shuffle plan for a conversion that crosses warps".into(),
                ));
            }
            regs.push(part(&b, DimName::REGISTER));
            lanes.push(part(&b, DimName::LANE));
        }
        Ok((regs, lanes))
    };
    let (a, c) = split(DimName::REGISTER)?;
    let (b, d) = split(DimName::LANE)?;
    let span_b: Vec<u64> = {
        let basis = gf2::independent_basis(&b).basis();
        (0..1u64 << basis.len())
            .map(|k| gf2::xor_columns(&basis, k))
            .collect()
    };
    let mut shuffles = Vec::new();
    for r in 0..dst.in_dim_size(DimName::REGISTER) {
        let (ar, cr) = (gf2::xor_columns(&a, r), gf2::xor_columns(&c, r));
        for &bv in &span_b {
            shuffles.push(Shuffle {
                src_register: Address::constant(ar ^ bv),
                src_lane: Address {
                    constant: cr,
                    lane: d.clone(),
                    warp: vec![],
                },
                dst_register: Address::constant(r),
                select: (span_b.len() > 1).then(|| (b.clone(), bv)),
            });
        }
    }
    Ok(shuffles)
}

/// The paper's intra-warp exchange (§5.4) for layouts without broadcast:
/// with `I = span(T_src) ∩ span(T_dst)` (lane bases), `E`, `F` completing
/// `I` to each side's lanes and `G = {e_i ⊕ f_i}`, the subspace
/// `K = span(I ∪ G)` meets each side's register span only in 0, so every
/// coset `o_i ⊕ K` (one per register, `o_i` ranging over a complement `Rc`)
/// holds exactly one element of every lane on both sides. Round `i` is one
/// shuffle: each lane sends its element of the coset (a register affine in
/// its lane id) and receives the one its destination wants there. `R`
/// shuffles in all (against `R · 2^rank(B)` for the simple scheme); `None`
/// when the preconditions fail (broadcast, unequal register counts).
fn shuffle_rounds(src: &LinearLayout, dst: &LinearLayout) -> Option<Vec<Shuffle>> {
    let (reg, lane) = (DimName::REGISTER, DimName::LANE);
    let ra = src.packed_bases(reg).to_vec();
    let ta = src.packed_bases(lane).to_vec();
    let rb = dst.packed_bases(reg).to_vec();
    let tb = dst.packed_bases(lane).to_vec();
    let injective = |r: &[u64], t: &[u64]| {
        let all: Vec<u64> = r.iter().chain(t).copied().collect();
        gf2::rank(&all) as usize == all.len()
    };
    if ra.len() != rb.len() || ta.len() != tb.len() || !injective(&ra, &ta) || !injective(&rb, &tb)
    {
        return None;
    }
    let inter = gf2::span_intersection(&ta, &tb);
    let complete = |gens: &[u64]| gf2::extend_basis(&inter, gens);
    let (e, f) = (complete(&ta), complete(&tb));
    if e.len() != f.len() {
        return None;
    }
    let k: Vec<u64> = inter
        .iter()
        .copied()
        .chain(e.iter().zip(&f).map(|(x, y)| x ^ y))
        .collect();
    // Solvers: (registers ++ K) for each side, (registers ++ lanes) of src.
    let solver = |r: &[u64]| -> Option<gf2::EchelonBasis> {
        let cols: Vec<u64> = r.iter().chain(&k).copied().collect();
        (gf2::rank(&cols) as usize == cols.len()).then(|| gf2::EchelonBasis::from_columns(&cols))
    };
    let (sa, sb) = (solver(&ra)?, solver(&rb)?);
    let src_hw: Vec<u64> = ra.iter().chain(&ta).copied().collect();
    let sh = gf2::EchelonBasis::from_columns(&src_hw);
    // Rc: complete K to span(ra ∪ k) with register vectors of src.
    let mut rc = Vec::new();
    let mut taken = k.clone();
    for &x in &ra {
        if !gf2::in_span(&taken, x) {
            taken.push(x);
            rc.push(x);
        }
    }
    let nreg = ra.len();
    let reg_mask = (1u64 << nreg) - 1;
    let mut out = Vec::new();
    for i in 0..(1u64 << rc.len()) {
        let o = gf2::xor_columns(&rc, i);
        // Register holding the coset element, affine in the lane.
        let reg_of = |s: &gf2::EchelonBasis, t: &[u64]| -> Option<Address> {
            Some(Address {
                constant: s.solve(o)? & reg_mask,
                lane: t
                    .iter()
                    .map(|&c| s.solve(c).map(|m| m & reg_mask))
                    .collect::<Option<Vec<u64>>>()?,
                warp: vec![],
            })
        };
        let src_register = reg_of(&sa, &ta)?;
        let dst_register = reg_of(&sb, &tb)?;
        // Element wanted by lane l: x(l) = rb·dst_register(l) ⊕ tb·l; its src lane.
        let x0 = gf2::xor_columns(&rb, dst_register.constant);
        let lane_of = |x: u64| sh.solve(x).map(|m| m >> nreg);
        let src_lane = Address {
            constant: lane_of(x0)?,
            lane: (0..tb.len())
                .map(|j| lane_of(gf2::xor_columns(&rb, dst_register.lane[j]) ^ tb[j]))
                .collect::<Option<Vec<u64>>>()?,
            warp: vec![],
        };
        out.push(Shuffle {
            src_register,
            src_lane,
            dst_register,
            select: None,
        });
    }
    Some(out)
}

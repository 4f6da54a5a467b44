//! Partial cross-warp plans whose staying set depends on the lane
//! ([`plan_split_predicated`]): conditions 1 and 2 of the [module
//! doc](super) dropped.
//!
//! With `C: (r, l, w) ↦ (r', l', w')` as in the module doc, the element of
//! destination `(r, l, w)` stays in its warp iff `C_wr(r) ⊕ C_wl(l) ⊕
//! C_ww(w) = w`. When `C_wl ≠ 0` that set of lanes is, per register, a coset
//! of `ker C_wl` (or empty, or all lanes); when `C_rl ≠ 0` the source
//! register of a staying element depends on the reading lane. The plan
//! keeps the partial class's shape (per warp class: stores and staying
//! moves, one barrier, loads) and adds lane predicates:
//!
//! - **loads**: destination vector group `g` of warp `w` is loaded by the
//!   lanes `{l : ∃ r ∈ g, (r, l) crosses}` (a predicated `ld.shared`; a
//!   phase with no active lane is not issued, and inactive lanes take no
//!   bank, see [`crate::wavefront::predicated_access_wavefronts`]);
//! - **stores**: source vector group `g'` of warp `w'` is stored by the
//!   lanes holding an element some load reads;
//! - **staying**: for every destination register `r`, the lanes that do not
//!   load it receive it by shuffles from lane `l' = C_l(r, l, w)` (affine
//!   in `l`). Each shuffle sends, from each lane, one register chosen by the
//!   sending lane (a select chain over the distinct registers) and is kept
//!   by the lanes whose element it carries (a select on the reader); lanes
//!   whose element the first shuffle does not carry (two readers of one
//!   sender needing different registers) are served by further shuffles of
//!   the same register. A shuffle whose keeping lanes all read their own
//!   lane is a register move.
//!
//! Every lane of a warp runs each shuffle (`shfl.sync` with the full
//! mask), so the staying moves stay warp-uniform code; only accesses and
//! the reader's writes are predicated.
//!
//! **Transposed staying moves** ([`plan_split_transposed`]): where the
//! staying registers are a register ↔ lane transpose, the schedule above
//! sends one register to several readers that each need a different one (a
//! 2-bit transpose: 4 shuffles per register, each kept by a quarter of the
//! lanes). Mixing destination registers across readers instead, reader `l`
//! of round `r` takes register `r ⊕ F(l)`, with `F` chosen so that the
//! source lane is a bijection of the reader: every shuffle serves every
//! lane ([`transposed_staying`]), at the price of a select chain on the
//! sender and one predicated write per candidate register on the reader.
//! Where the sender's register is `base_r ⊕ H(m)` with one linear `H` for
//! all rounds (and the reader's `r ⊕ F(l)`), the class instead permutes
//! once ([`super::LaneXor`]): each lane's copy of the sent registers by
//! `H`, before the rounds, and its staying destination registers by `F`,
//! after them, two selects per register pair and lane bit; taken where
//! that is fewer selects than the chains.
//!
//! **Crossing reads.** An element that crosses warps is read from its
//! first source holder (lowest warp, lane, register), whichever warp reads
//! it: with a broadcast source each such element is stored once, by one
//! replica, where the linear choice of `C` could make two readers read
//! (and two warps store) two replicas.

use super::class::Hw;
use super::{prepare, LaneXor, PartialCrossWarpPlan, Prepared, StayingMove, WarpClass};
use crate::error::{CodegenError, Result};
use crate::plan::{Access, Address};
use linear_layout::gf2::EchelonBasis;
use linear_layout::LinearLayout;

/// Some elements cross warps and some stay (else the conversion is the
/// shuffle or the full shared-memory class).
fn mixed(s: &Hw, d: &Hw, c: &[u64]) -> Option<String> {
    let crossing = (0..d.count())
        .filter(|&f| d.split(f).2 != s.split(c[f as usize]).2)
        .count() as u64;
    if crossing == 0 {
        Some("no element crosses warps (register or shuffle class)".into())
    } else if crossing == d.count() {
        Some("every element crosses warps (full shared-memory class)".into())
    } else {
        None
    }
}

/// Plans `src → dst` of `bitwidth`-bit elements as a partial cross-warp
/// conversion through `smem` (offset → tensor, a bijection onto the tile)
/// with lane-predicated accesses and lane-dependent staying moves (module
/// doc). Refused when no element crosses warps or none stays (the shuffle
/// and full shared-memory classes), for layouts beyond 64 lanes, and for
/// inputs [`super::plan_split`] refuses. Conversions that satisfy the
/// partial class's conditions 1 and 2 get no predicates.
///
/// ```
/// use layout_codegen::partial::{plan_split_predicated, simulate_partial};
/// use layout_codegen::swizzle::optimal_swizzling;
/// use hw_layouts::Encoding;
/// let shape = [64, 64];
/// let l = |t: &str| Encoding::parse(t).unwrap().to_linear_layout(&shape).unwrap();
/// // Half of each warp's elements stay, in lanes that depend on the lane id.
/// let src = l("#ttg.linear<{register = [[0, 1], [8, 0], [0, 16], [32, 0]], lane = [[1, 0], [0, 2], [2, 0], [0, 4], [4, 0]], warp = [[0, 8], [16, 0]], block = []}>");
/// let dst = l("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>");
/// let smem = optimal_swizzling(&src, &dst, 32)?.shared;
/// let p = plan_split_predicated(&src, &dst, &smem, 32)?;
/// simulate_partial(&p, &src, &dst)?;
/// assert_eq!(p.cost.staying_elements * 2, p.cost.elements);
/// assert!(p.classes.iter().any(|k| !k.load_lanes.is_empty()));
/// # Ok::<(), layout_codegen::CodegenError>(())
/// ```
pub fn plan_split_predicated(
    src: &LinearLayout,
    dst: &LinearLayout,
    smem: &LinearLayout,
    bitwidth: u32,
) -> Result<PartialCrossWarpPlan> {
    plan_predicated(src, dst, smem, bitwidth, false)
}

/// [`plan_split_predicated`] with the staying moves of every warp whose
/// staying registers are kept by all its lanes *transposed* (module doc,
/// the private `transposed_staying`): one shuffle per staying register and lane, each
/// lane's destination register chosen by the lane. Refused where no warp
/// admits a transposed schedule different from the direct one.
///
/// ```
/// use layout_codegen::partial::{plan_split_transposed, simulate_partial};
/// use layout_codegen::choice::plan_paper_swizzle;
/// use hw_layouts::Encoding;
/// let l = |t: &str| Encoding::parse(t).unwrap().to_linear_layout(&[64, 64]).unwrap();
/// // wgmma accumulators to a blocked layout: in warps 0 and 3 half of the
/// // registers stay, a 2-bit register <-> lane transpose.
/// let src = l("#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>");
/// let dst = l("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>");
/// let smem = plan_paper_swizzle(&src, &dst, 16)?.shared_layout;
/// let p = plan_split_transposed(&src, &dst, &smem, 16)?;
/// simulate_partial(&p, &src, &dst)?;
/// // Each lane writes registers chosen by its lane: here as one permutation
/// // of the staying registers per class (cheaper than per-move writes).
/// assert!(p.classes.iter().filter(|k| !k.staying.is_empty()).all(|k| k.lane_xor.is_some()));
/// # Ok::<(), layout_codegen::CodegenError>(())
/// ```
pub fn plan_split_transposed(
    src: &LinearLayout,
    dst: &LinearLayout,
    smem: &LinearLayout,
    bitwidth: u32,
) -> Result<PartialCrossWarpPlan> {
    plan_predicated(src, dst, smem, bitwidth, true)
}

fn plan_predicated(
    src: &LinearLayout,
    dst: &LinearLayout,
    smem: &LinearLayout,
    bitwidth: u32,
    transposed: bool,
) -> Result<PartialCrossWarpPlan> {
    let p = prepare(src, dst, smem, bitwidth, mixed)?;
    let (s, d, c) = (&p.s, &p.d, &p.c);
    let (st, ld, c_ll, c_lw) = (&p.st, &p.ld, &p.c_ll, &p.c_lw);
    let (st_groups, ld_groups) = (&p.st_groups, &p.ld_groups);
    if d.nl > 6 {
        return Err(CodegenError::Unsupported(format!(
            "{} lanes: lane predicates are 64-bit masks",
            1u64 << d.nl
        )));
    }
    let (nlanes, nwarps) = (1u64 << d.nl, 1u64 << d.nw);
    let all_lanes = if nlanes == 64 {
        u64::MAX
    } else {
        (1u64 << nlanes) - 1
    };
    let (nsr, ndr) = (1u64 << s.nr, 1u64 << d.nr);
    // needed[w'][r'] = lanes of source warp w' whose register r' a load reads.
    let mut needed = vec![vec![0u64; nsr as usize]; nwarps as usize];
    type PerWarp = (Vec<Access>, Vec<u64>, Vec<StayingMove>, Option<LaneXor>);
    let mut per_warp: Vec<PerWarp> = Vec::new();
    let mut any_transposed = false;
    // Crossing elements read from one holder each; staying ones as `C`.
    let holder = p.with_canonical_crossing()?;
    for w in 0..nwarps {
        let src_of = |r: u64, l: u64| s.split(holder[d.flat(r, l, w) as usize]);
        let mut loaded = vec![0u64; ndr as usize];
        let (mut loads, mut load_lanes) = (Vec::new(), Vec::new());
        for g in ld_groups {
            let lanes = (0..nlanes)
                .filter(|&l| g.iter().any(|&r| src_of(r, l).2 != w))
                .fold(0u64, |m, l| m | 1 << l);
            if lanes == 0 {
                continue;
            }
            for &r in g {
                loaded[r as usize] |= lanes;
                for l in (0..nlanes).filter(|l| lanes >> l & 1 == 1) {
                    let (r2, l2, w2) = src_of(r, l);
                    needed[w2 as usize][r2 as usize] |= 1 << l2;
                }
            }
            loads.push(Access {
                registers: g.clone(),
                address: ld.address(g[0]),
                matrix: None,
            });
            load_lanes.push(lanes);
        }
        let mut staying = Vec::new();
        if transposed {
            if let Some((t, x)) = transposed_staying(&p, w, &loaded, all_lanes) {
                any_transposed = true;
                per_warp.push((loads, load_lanes, t, x));
                continue;
            }
        }
        for r in 0..ndr {
            let mut remaining = all_lanes & !loaded[r as usize];
            // l' = C_l(r, 0, 0) ⊕ C_ll(l) ⊕ C_lw(w).
            let src_lane = Address {
                constant: s.split(c[d.flat(r, 0, 0) as usize]).1,
                lane: c_ll.clone(),
                warp: c_lw.clone(),
            };
            while remaining != 0 {
                staying.push(next_shuffle(
                    r,
                    &mut remaining,
                    (nlanes, all_lanes),
                    &src_lane,
                    |l| src_of(r, l),
                ));
            }
        }
        per_warp.push((loads, load_lanes, staying, None));
    }
    if transposed && !any_transposed {
        return Err(CodegenError::Unsupported(
            "no warp has a transposed staying schedule other than the direct one".into(),
        ));
    }
    let mut classes: Vec<WarpClass> = Vec::new();
    for (w, (loads, load_lanes, staying, lane_xor)) in per_warp.into_iter().enumerate() {
        let (mut stores, mut store_lanes) = (Vec::new(), Vec::new());
        for g in st_groups {
            let lanes = g.iter().fold(0u64, |m, &r| m | needed[w][r as usize]);
            if lanes != 0 {
                stores.push(Access {
                    registers: g.clone(),
                    address: st.address(g[0]),
                    matrix: None,
                });
                store_lanes.push(lanes);
            }
        }
        // Masks of every lane are left out (unpredicated).
        let unless_full = |m: Vec<u64>| {
            if m.iter().all(|&x| x == all_lanes) {
                vec![]
            } else {
                m
            }
        };
        let class = WarpClass {
            warps: vec![w as u64],
            stores,
            staying,
            loads,
            lane_xor,
            store_lanes: unless_full(store_lanes),
            load_lanes: unless_full(load_lanes),
        };
        match classes.iter_mut().find(|k| {
            (
                &k.stores,
                &k.staying,
                &k.loads,
                &k.store_lanes,
                &k.load_lanes,
                &k.lane_xor,
            ) == (
                &class.stores,
                &class.staying,
                &class.loads,
                &class.store_lanes,
                &class.load_lanes,
                &class.lane_xor,
            )
        }) {
            Some(k) => k.warps.push(w as u64),
            None => classes.push(class),
        }
    }
    Ok(p.finish(bitwidth, smem, classes))
}

/// One shuffle of destination register `r` for the lanes in `remaining`
/// (bit `l`: lane `l` still needs it): each sending lane sends the register
/// the lowest remaining lane reading it needs; the lanes it serves keep the
/// value and leave `remaining`. `src_of(l)` is the source `(register, lane,
/// warp)` of destination `(r, l)`; `src_lane` its lane as an address.
fn next_shuffle(
    r: u64,
    remaining: &mut u64,
    (nlanes, all_lanes): (u64, u64),
    src_lane: &Address,
    src_of: impl Fn(u64) -> (u64, u64, u64),
) -> StayingMove {
    let readers: Vec<(u64, u64, u64)> = (0..nlanes)
        .filter(|&l| *remaining >> l & 1 == 1)
        .map(|l| {
            let (r2, l2, _) = src_of(l);
            (l, l2, r2)
        })
        .collect();
    let mut sends: Vec<Option<u64>> = vec![None; nlanes as usize];
    for &(_, l2, r2) in &readers {
        sends[l2 as usize].get_or_insert(r2);
    }
    let mut kept = 0u64;
    for &(l, l2, r2) in &readers {
        if sends[l2 as usize] == Some(r2) {
            kept |= 1 << l;
        }
    }
    *remaining &= !kept;
    // Lanes nobody reads send the first register sent (no extra select).
    let first = readers[0].2;
    let table: Vec<u64> = sends.iter().map(|x| x.unwrap_or(first)).collect();
    let constant = table.iter().all(|&x| x == first);
    StayingMove {
        dst_register: r,
        src_register: table[0],
        src_lane: src_lane.clone(),
        src_register_by_lane: if constant { vec![] } else { table },
        keep_lanes: (kept != all_lanes).then_some(kept),
        dst_register_by_lane: vec![],
    }
}

/// The transposed staying moves of warp `w` (module doc), or `None` where
/// the schedule does not apply or equals the direct one.
///
/// Applies when every destination register of the warp is either loaded by
/// all lanes or stays in all lanes (`loaded[r]` is `all_lanes` or 0). Let
/// `S` be the staying registers and `K = {v : S ⊕ v = S}` its stabiliser.
/// With `C` as in the module doc, the reader `l` of round `r ∈ S` takes
/// destination register `r ⊕ F(l)` for a linear `F: lane → K`; its source
/// lane is `C_l(r, 0, w) ⊕ M(l)` with `M = C_lr ∘ F ⊕ C_ll`. `F` is chosen
/// column by column (lane bit `i`: `0` if `C_ll(e_i)` is independent of the
/// columns so far, else the first `v ∈ K` making `C_lr(v) ⊕ C_ll(e_i)`
/// independent), so that `M` is invertible: every lane is read by exactly
/// one reader per round, which needs one register from it (a select chain
/// on the sender). As `r` runs over `S`, so does `r ⊕ F(l)`: each reader
/// gets each of its staying registers once, in `|S|` shuffles, against up
/// to `|S| · 2^rank(ker C_ll)` for the direct schedule.
fn transposed_staying(
    p: &Prepared,
    w: u64,
    loaded: &[u64],
    all_lanes: u64,
) -> Option<(Vec<StayingMove>, Option<LaneXor>)> {
    let (s, d, c) = (&p.s, &p.d, &p.c);
    if loaded.iter().any(|&m| m != 0 && m != all_lanes) {
        return None;
    }
    let staying: Vec<u64> = (0..loaded.len() as u64)
        .filter(|&r| loaded[r as usize] == 0)
        .collect();
    let member = |r: u64| loaded.get(r as usize) == Some(&0);
    let stabiliser: Vec<u64> = staying
        .iter()
        .map(|&r| r ^ staying[0])
        .filter(|&v| v != 0 && staying.iter().all(|&r| member(r ^ v)))
        .collect();
    let lane_of = |r: u64, l: u64| s.split(c[d.flat(r, l, 0) as usize]).1;
    // F column by column, keeping M's columns independent.
    let mut cols = EchelonBasis::new();
    let mut f = Vec::new();
    for i in 0..d.nl {
        let base = p.c_ll[i as usize];
        let v = std::iter::once(0)
            .chain(stabiliser.iter().copied())
            .find(|&v| !cols.contains(lane_of(v, 0) ^ base))?;
        cols.insert(lane_of(v, 0) ^ base);
        f.push(v);
    }
    if f.iter().all(|&v| v == 0) {
        return None;
    }
    let nlanes = 1u64 << d.nl;
    let f_of = |l: u64| linear_layout::gf2::xor_columns(&f, l);
    let lanes_m: Vec<u64> = (0..d.nl).map(|i| lane_of(f[i as usize], 1 << i)).collect();
    let mut moves: Vec<StayingMove> = Vec::new();
    for &r in &staying {
        let dst_regs: Vec<u64> = (0..nlanes).map(|l| r ^ f_of(l)).collect();
        let src_lane = Address {
            constant: s.split(c[d.flat(r, 0, 0) as usize]).1,
            lane: lanes_m.clone(),
            warp: p.c_lw.clone(),
        };
        let mut sends: Vec<Option<u64>> = vec![None; nlanes as usize];
        for l in 0..nlanes {
            let (r2, l2, w2) = s.split(c[d.flat(dst_regs[l as usize], l, w) as usize]);
            if w2 != w || src_lane.eval(l, w) != l2 || sends[l2 as usize].is_some() {
                return None;
            }
            sends[l2 as usize] = Some(r2);
        }
        let table: Vec<u64> = sends.into_iter().collect::<Option<_>>()?;
        let constant = table.iter().all(|&x| x == table[0]);
        moves.push(StayingMove {
            dst_register: r,
            src_register: table[0],
            src_lane,
            src_register_by_lane: if constant { vec![] } else { table },
            keep_lanes: None,
            dst_register_by_lane: dst_regs,
        });
    }
    let xor = lane_xor(&moves, &f, &staying, d.nl);
    let chained: u64 = moves.iter().map(StayingMove::selects).sum();
    match xor {
        Some(x) if x.selects() < chained => {
            for m in &mut moves {
                m.src_register_by_lane.clear();
                m.dst_register_by_lane.clear();
            }
            Some((moves, Some(x)))
        }
        _ => Some((moves, None)),
    }
}

/// The [`LaneXor`] form of transposed staying moves: `F` is the schedule's
/// (move `r` writes `r ⊕ F(l)` in lane `l`); `H` is read off the moves,
/// which must each send `sent_by(0) ⊕ H(m)` from lane `m` (the schedule's
/// source register is affine in the sender, with a linear part common to
/// all moves); `None` where they do not, or a register set is not closed.
fn lane_xor(moves: &[StayingMove], f: &[u64], staying: &[u64], lane_bits: u32) -> Option<LaneXor> {
    let first = moves.first()?;
    let sender: Vec<u64> = (0..lane_bits)
        .map(|i| first.sent_by(1 << i) ^ first.sent_by(0))
        .collect();
    let mut sent = Vec::new();
    for m in moves {
        for lane in 0..1u64 << lane_bits {
            let x = m.sent_by(lane);
            if x != m.sent_by(0) ^ linear_layout::gf2::xor_columns(&sender, lane) {
                return None;
            }
            sent.push(x);
        }
    }
    sent.sort_unstable();
    sent.dedup();
    let mut received = staying.to_vec();
    received.sort_unstable();
    let closed = |set: &[u64], images: &[u64]| {
        images
            .iter()
            .all(|&v| set.iter().all(|&x| set.binary_search(&(x ^ v)).is_ok()))
    };
    (closed(&sent, &sender) && closed(&received, f)).then(|| LaneXor {
        sender,
        sent,
        receiver: f.to_vec(),
        received,
    })
}

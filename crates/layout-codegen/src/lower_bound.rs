//! The floor of a conversion ([`lower_bound`]): what any plan of this
//! crate's machine model must pay, on the one cost scale of [`crate::cost`].
//!
//! ## The model of what can move data
//! * A destination element its thread already holds (some replica of the
//!   source) costs nothing: a register move.
//! * One whose nearest source copy is in another **warp** must cross shared
//!   memory: stored once, loaded by each reader, at most `4 · banks` bytes per
//!   wavefront (128 B on compute capability 9.0: 128 B/clk/SM).
//! * One held by another **lane of the same warp** moves by `shfl.sync` (one
//!   32-bit word per lane: every lane sends at most 4 bytes and receives at
//!   most 4 bytes per warp instruction) or through shared memory (stored
//!   and loaded, as above; no CTA barrier).
//!
//! ## The in-warp floor, per warp
//! Let `recv(l)` be the bytes lane `l` needs from other lanes of its warp
//! (distinct elements), and, when the source layout is injective (every
//! element has one holder), `sent(l)` the bytes of distinct elements lane
//! `l` holds that another lane of the warp needs and that no other warp
//! needs (an element another warp needs is stored for it anyway, and a
//! reader of this warp may load it without a further store).
//! With `t` shuffles (a fraction: a floor) at most `4t` of each lane's
//! `sent` and `recv` bytes move by shuffle; the rest goes through shared
//! memory: `S(t) = Σ_l (sent(l) − 4t)⁺` bytes stored and at least
//! `max(R(t), S(t))` loaded, `R(t) = Σ_l (recv(l) − 4t)⁺` (every stored byte
//! is loaded at least once).
//! A broadcast source may send an element from any of its holders, so
//! there no lane's sending is bounded; but an element no other warp needs
//! that a reader loads was still stored, once for all of its `N_e` readers
//! (the threads, of any warp, that take it from another lane of their own
//! warp). Lane `l` loads at least `(only(l) − 4t)⁺` bytes of such elements
//! (`only(l)` of them it needs), each with a share `≥ 1 / max N_e` of a
//! store, so there `S(t) = Σ_l (only(l) − 4t)⁺ / max_{e of l} N_e`: summed
//! over the CTA, no more than the distinct bytes stored.
//! The warp's in-warp cost is
//!
//! ```text
//! min over t ≥ 0 of  t + (S(t) + max(R(t), S(t))) / (4 · banks)
//! ```
//!
//! a convex piecewise-linear function of `t` whose minimum lies at `t = 0`,
//! at a breakpoint `sent(l) / 4`, `recv(l) / 4`, or where `R(t) = S(t)`;
//! each is evaluated. When both layouts are injective, two more facts
//! hold: every in-warp byte has one reader, so a loaded byte is a distinct
//! byte some lane of the warp stored (the stores are at least `max(R(t),
//! S(t))` as well, and the cost's numerator `2 · max(R(t), S(t))`); and
//! the relay bound below raises `R(t)` to `max(R(t), Σ_l recv(l) − (4 +
//! m) / 2 · lanes · t)` (both for warps of at most 64 lanes, where the
//! pair counts are kept). Counting the total bytes only (`Σ recv / (4 · lanes)` shuffles) is implied
//! (`Σ_l min(recv(l), 4t) ≤ 4 · lanes · t`) and looser: it misses that a
//! warp whose in-warp data is held by half of its lanes moves at most
//! `4 · lanes / 2` bytes per shuffle (a register ↔ lane transpose of an mma
//! accumulator into a blocked layout is one).
//!
//! ## Shuffle slots between lanes that share few bytes (the relay bound)
//! Let both layouts be injective and `m` the most bytes of distinct
//! elements that one lane of a warp holds and one other lane of the same
//! warp needs (`pair_bytes` of the report). A *slot* is one lane of one
//! shuffle: 4 bytes into the reading lane `r` from the sending lane `y`.
//! Call a byte *delivered* in a slot if `r` needs it and receives it there
//! for the first time. Of the bytes delivered in one slot, at most `m` were
//! in `y` from the start; every other one reached `y` earlier, by a slot
//! or a load into `y`, as a byte `y` does not need (no byte has two
//! readers): a *relay* arrival, which serves one delivery (the byte has
//! one reader, delivered once). So with `T` slots, `B` bytes delivered,
//! `N` relay arrivals by slot and `N'` by load:
//!
//! ```text
//! B ≤ m·T + N + N',   B + N ≤ 4T   (a slot carries 4 bytes),
//! loads ≥ (Σ recv − B) + N'
//! ```
//!
//! and eliminating `B` and `N` (`2B ≤ (4 + m)·T + N'`) gives `loads ≥ Σ recv
//! − (4 + m)/2 · T`: a slot delivers `(4 + m) / 2` needed bytes on average
//! at most, counting what relays cost. With `t` shuffles per warp, `T =
//! lanes · t`. For `m ≥ 4` this is the per-lane count's `4t` again; for a
//! 16-bit `[1, 16]` row per thread to a `[16, 1]` column (each pair of
//! lanes shares one element, `m = 2`) a slot is worth 3 bytes, not 4.
//! Nothing here uses how an instruction is formed, so it holds for every
//! plan of shuffles, loads, stores and in-lane ALU instructions.
//!
//! Not modelled, so not floors of: `movmatrix` (a 16-bit 8 × 8 transpose
//! inside a warp), which no plan of this crate emits.
//!
//! ## What the floor does not count (so plans can sit above it)
//! The floor is a sum of byte and shuffle capacities; three costs that every
//! known plan of some conversions pays are not in it, for want of a proof
//! that every plan pays them:
//! * **Lane-dependent register choice.** A `shfl.sync` reads one register
//!   name in every lane and writes one; where the element a lane sends or
//!   keeps sits in a register that depends on the lane (a register ↔ lane
//!   exchange), some plan step must select per lane (`selp`/`prmt` on the
//!   ALU pipe) or shuffle twice. The balanced programs
//!   (the planner's `balanced_program` candidate) trade the two at about `4/3` shuffles
//!   per exchanged register pair of 32-bit data; the floor counts `1`,
//!   except for the one-bit exchange below, where it counts what every
//!   plan pays.
//! * **Sub-word data.** 8- and 16-bit elements move through shared memory
//!   at the floor's 128 bytes per wavefront only in whole 4-byte words per
//!   lane; where a thread's bytes do not form words on one side, a plan
//!   regroups them first (staged plans, [`crate::regroup`]) or stores them
//!   narrower. Counted for one family of 8-bit conversions, below.
//! * **Phases of guarded accesses.** A store in which only some lanes of a
//!   phase take part costs the phase's wavefronts (measured with ncu on an
//!   H200, 2026-11-29, `tests/predicated_wavefronts_ncu.rs`), so elements a
//!   thread already holds at lane-dependent registers save nothing on the
//!   store side of a shared-memory plan unless the stored registers are
//!   chosen per lane (selects again).
//!
//! ## The one-bit register ↔ lane exchange ([`exchange_floor`])
//! Selects are counted for one family, where the argument below proves
//! what they cost: `dst` is `src` with register basis `i` and lane basis
//! `j` exchanged, everything else equal up to a renaming of registers that
//! keeps the elements of each word together (`swap1_*` and
//! `ho_swap_r1l2_*` of the GPU suite; a renaming costs nothing and changes
//! nothing below). With `W` 32-bit words per thread the floor is `2W / 3`
//! cycles per warp instead of the bytes' `W / 2` (each lane receives half
//! its words); the planner's balanced programs cost 21.5 for `W = 32` and
//! 11 for `W = 16` (against 21.33 and 10.67). The argument covers every
//! plan whose instructions are shuffles, ALU instructions that pick bytes
//! of their inputs (`selp`, `prmt`), shared-memory accesses (predicated or
//! not) and register moves: every plan of this crate.
//!
//! Count *slots*: one lane of one instruction (a shuffle or an ALU
//! instruction has 32; a wavefront moves 32 words, so an access costs 32
//! slots per phase it touches). Cycles are at least `max(MIO, ALU / 2) ≥
//! (MIO + ALU) / 3` instructions per warp, so `S` slots per warp cost at
//! least `S / 96`: the claim is `S ≥ 64 W`, 2 slots for each of the `32 W`
//! destination words of a warp. A chain of shuffles and moves copies one
//! register name in every lane, so a register reached from source word `R`
//! by such a chain holds copies of `R`'s words.
//!
//! *Whole words* (`i ≥ log2(32 / bits)`, and `j < 3`). Destination word `d`
//! keeps source word `d` in 16 lanes `K_d` and needs source word `e = d ⊕
//! 2^i` of the partner lane `l ⊕ 2^j` in the other 16, `M_d = K_e`; both
//! sets meet every aligned group of 8 lanes, so every phase of every
//! access. So the words of `R_d` are `d`'s kept words (in `K_d`) and the
//! words `e` needs (elsewhere), and those of `R_e` the reverse. Take the
//! pair `d, e`: 64 words, 32 of which must change lane. Each word that
//! changes lane arrives in its lane by a shuffle slot or a load slot; a
//! loaded word was stored (a slot). A shuffle or store whose source is a
//! chain from `R_d` holds `d`'s kept words in half its lanes (useless
//! there unless reloaded) and the words `e` needs in the other half, and a
//! load into `d` predicated on `M_d` (so `d`'s kept words stay) runs every
//! phase for half of the lanes; each such access costs 2 slots per word it
//! moves where it is needed. The other ways cost a slot of an ALU
//! instruction: a word that picks, per lane, the word to send or store
//! (then 1 + 1 slots per moved word), or the last instruction writing `d`
//! in every lane (its 32 slots, beside the 2 slots each of `d`'s arriving
//! words took). By the way `d` gets its last value (the same for `e`):
//!
//! | last write of `d` | slots for `d`'s 32 words |
//! |---|---|
//! | an ALU instruction | 32 for it, and 2 per word arriving in `M_d`: 64 |
//! | a shuffle of a register holding `K_d`'s and `M_d`'s words (different source words: a select or a load made it) | 32 + 32 = 64 |
//! | a shuffle of a copy of one source word, the other half loaded over it | 32 for the shuffle (half of it useful) and, for the 16 loaded words, a predicated load (2 each) and their stores (at least 1 each): at least 80 |
//! | none (`d` is source word `d`): `M_d` loaded over it | predicated load 32, and the stores of the 16 words |
//! | a load of all lanes | 32, and the stores of its 32 words |
//!
//! The stores of the last two rows come from a chain of `R_e` (or `R_d`),
//! 2 slots per useful word, or from a select, 1 + 1: so 32 per 16 stored
//! words, 64 and 96 in all; unless a store of a whole chain is useful twice,
//! to `d` and to a reload of the other register's kept words, and the
//! register reloading its kept words pays a load of them (at least 32)
//! besides its own arrivals. Every combination for `d` and `e` therefore
//! costs the pair at least 128 slots. The planner's balanced programs mix
//! two ways per pair: 2 shuffles of the source words and 2 selects
//! (`4 · 32` slots), or a select that picks the word to send, 1 shuffle
//! and 2 selects (`4 · 32` slots).
//!
//! *Inside words* (`i < log2(32 / bits)`: 8- or 16-bit elements). Every
//! destination word of every lane holds half its bytes from its own lane's
//! source word and half from its partner's (the same word name). No
//! register holds such a word at the start, so some instruction makes it:
//! an ALU instruction (a slot holding exactly that word), or a load of it
//! from shared memory where sub-word stores put its halves side by side (a
//! load slot and, from two lanes, at least a store slot more). And the
//! half from the partner arrives in its lane by a slot of a shuffle or a
//! load; a shuffle slot carries 4 bytes, of which a source word copied by
//! a chain has 2 this lane needs, so either 1 slot per destination word or
//! half a shuffle slot and half an ALU slot that packed two halves.
//! Either way 2 slots per destination word of every lane, with no phase
//! condition.
//!
//! The tests hold the family's floor to account: the premises are checked
//! by enumerating the suite's pair (`tests/lower_bound.rs`), and no plan
//! of the planner, over random exchanges of random layouts at 8, 16 and 32
//! bits, costs less. Exchanges of more bits, lane bits `j ≥ 3` with whole
//! words, and exchanges mixed with shared-memory traffic are not covered:
//! there the floor counts no selects, and plans stay above it
//! (`swap2_64x64_f32`: 43 against 24).

//! ## Bytes that pair threads one to one ([`subword_units`])
//! Take 8-bit elements, both layouts injective, and suppose no two moved
//! bytes (destination elements not already in their thread) share both
//! their source thread and their destination thread (`m = 1`: a
//! `[1, 16]` row per thread to a `[16, 1]` column per thread is one).
//! Then every plan that moves each byte through shared memory at most
//! once (every plan of this crate) costs at least `(5/2 · L + I) / 128`
//! units (wavefronts and shuffles) for `L` bytes that cross warps and `I`
//! that change lane inside one, where the byte floor counts `2L / 128`
//! for the crossing bytes.
//!
//! *Pieces.* Count a shared-memory access per *piece*, one lane's one
//! 32-bit register: the crate's wavefront counter ([`crate::wavefront`],
//! equal to ncu's on every program of the GPU suite) serves at most 32
//! pieces per wavefront (32 lanes of 1 to 4 bytes, 16 of 8, 8 of 16, an
//! `ldmatrix`/`stmatrix` `.x4` in 4), so each piece costs at least 1/32
//! unit, 4/128. A piece touches at most two aligned 2-byte *halves* of
//! shared memory (a word; two halves of two words for a transposing
//! matrix access; one half for a 1- or 2-byte access): charge it 2/128
//! to each of two halves, or 4/128 to its one half. A shuffle piece
//! carries at most 4 bytes: 1/128 unit per byte it moves.
//!
//! *Halves.* A half *instance* is a half between two writes. Each byte
//! moved through shared memory is written into one instance by a store
//! piece and read from it by a load piece; call it *direct* when the store
//! piece is its source thread's and the load piece its destination
//! thread's, else it changes thread elsewhere, by a shuffle (the plan
//! crosses shared memory once): at least 1/128 more. Two direct bytes of
//! one instance with the same store and load piece would share both
//! threads (excluded by `m = 1`); of two store pieces that both leave a
//! byte in one instance, the later writes one byte only (a 2-byte write
//! covers the half), so it is a 1-byte access charged 4/128 to it. With
//! `y` moved bytes in an instance, its charges and shuffles are at least
//!
//! | `y` | bytes | at least | per byte |
//! |---|---|---|---|
//! | 2 | both direct, two load pieces | 2 + 2 + 2 | 3 / 128 |
//! | 2 | both direct, two store pieces | 4 + 2 + 2 | 4 / 128 |
//! | 2 | one changed thread before or after | 2 + 2 + 1 | 5/2 / 128 |
//! | 2 | both changed thread | 2 + 2 + 2 | 3 / 128 |
//! | 1 | | 2 + 2 | 4 / 128 |
//!
//! so at least 5/2 / 128 per byte through shared memory: every crossing
//! byte, and an in-warp byte that goes that way; an in-warp byte by
//! shuffles alone costs at least 1/128. The charges of different
//! instances come from disjoint parts of pieces, and the shuffle bytes of
//! different bytes are disjoint: summed, `(5/2 · L + I) / 128`. The floor
//! is this over the warps plus the barrier, where it is above the byte
//! floor. Only `m = 1` gains: with two direct bytes allowed in one cell a
//! half costs 2 + 2 for 2 bytes, the byte floor. Sixteen-bit elements
//! move whole halves, so they never pay it.

use crate::cost::{LowerBound, BARRIER_COST};
use crate::error::{check_bitwidth, CodegenError, Result};
use crate::target::Target;
use linear_layout::gf2::{self, EchelonBasis};
use linear_layout::{DimName, LinearLayout};
use std::collections::{HashMap, HashSet};

fn size(l: &LinearLayout, d: DimName) -> u64 {
    if l.has_in_dim(d) {
        l.in_dim_size(d)
    } else {
        1
    }
}

/// The floor of the conversion `src → dst` of `elem_bits`-bit elements (the
/// module doc), by enumeration of every destination register of every
/// thread, summed over all warps of all CTAs:
///
/// * `cross_warp_bytes` (`L`): bytes of destination elements whose source
///   has no replica in the reader's warp; the `S` bytes of distinct such
///   elements are stored once and the readers load `L`: at least
///   `(S + L) / (4 · banks)` wavefronts and one barrier;
/// * `in_warp_bytes`: bytes of destination elements the reader's warp holds
///   in another lane; their floor is the module doc's per-warp minimum,
///   split into `shuffles` and (in `wavefronts`) shared-memory wavefronts.
///
/// The counts are fractions, summed over the CTA before dividing: one
/// wavefront may carry bytes of several warps or kinds, so per-warp
/// ceilings would not be floors. Broadcast destination registers (zero
/// register bases) are counted once per thread: their copies are register
/// moves.
///
/// ```
/// use layout_codegen::planner::{lower_bound, Target};
/// use hw_layouts::Encoding;
/// let l = |t: &str| Encoding::parse(t).unwrap().to_linear_layout(&[32, 32]).unwrap();
/// let src = l("#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>");
/// // The same layout: nothing moves.
/// assert_eq!(lower_bound(&src, &src, 32, &Target::SM90)?.cycles, 0.0);
/// # Ok::<(), layout_codegen::CodegenError>(())
/// ```
pub fn lower_bound(
    src: &LinearLayout,
    dst: &LinearLayout,
    elem_bits: u32,
    target: &Target,
) -> Result<LowerBound> {
    check_bitwidth(elem_bits)?;
    target.check()?;
    let wavefront_bytes = 4 * target.banks;
    let bytes = u64::from(elem_bits) / 8;
    let nl = size(dst, DimName::LANE);
    let (nw, nb) = (size(dst, DimName::WARP), size(dst, DimName::BLOCK));
    if (
        size(src, DimName::LANE),
        size(src, DimName::WARP),
        size(src, DimName::BLOCK),
    ) != (nl, nw, nb)
    {
        return Err(CodegenError::Invalid(
            "source and destination use different thread counts".into(),
        ));
    }
    // Both layouts are XOR-linear: layout(r, l, w, b) = R(r) ⊕ L(l) ⊕
    // W(w) ⊕ B(b). Thread (b, w, l) holds element e in the source iff
    // e ⊕ L(l) ⊕ W(w) ⊕ B(b) ∈ span(R); its warp does iff e ⊕ W(w) ⊕ B(b)
    // ∈ span(R ∪ L).
    let bases = |l: &LinearLayout, d: DimName| l.packed_bases(d).to_vec();
    let table = |cols: &[u64]| -> Vec<u64> {
        (0..1u64 << cols.len())
            .map(|x| gf2::bits(x).fold(0, |a, i| a ^ cols[i as usize]))
            .collect()
    };
    let s_reg = bases(src, DimName::REGISTER);
    let s_lane = bases(src, DimName::LANE);
    let in_thread = EchelonBasis::from_columns(&s_reg);
    let reg_lane = [s_reg.clone(), s_lane.clone()].concat();
    let in_warp = EchelonBasis::from_columns(&reg_lane);
    // With an injective source the columns of R ∪ L are independent, so an
    // element of the warp has one holder lane: the lane part of the
    // solution (columns after the register ones).
    let holder = src.is_injective().then_some(s_reg.len());
    let (sl, sw, sb) = (
        table(&s_lane),
        table(&bases(src, DimName::WARP)),
        table(&bases(src, DimName::BLOCK)),
    );
    let d_reg: Vec<u64> = bases(dst, DimName::REGISTER)
        .into_iter()
        .filter(|&c| c != 0)
        .collect();
    // Registers of one thread hold distinct elements unless their bases
    // are dependent; then each thread's elements are deduplicated.
    let distinct_regs = gf2::rank(&d_reg) as usize == d_reg.len();
    let (dr, dl, dw, db) = (
        table(&d_reg),
        table(&bases(dst, DimName::LANE)),
        table(&bases(dst, DimName::WARP)),
        table(&bases(dst, DimName::BLOCK)),
    );
    if dr.len() as u64 * nl * nw * nb > 1 << 26 {
        return Err(CodegenError::Invalid(format!(
            "{} destination elements are too many to enumerate for a lower bound",
            dr.len() as u64 * nl * nw * nb
        )));
    }
    let mut bound = LowerBound {
        warps: nw * nb,
        ..Default::default()
    };
    let mut crossing = ElementSet::new(dst.total_out_dim_size());
    let mut warps_in: Vec<InWarp> = Vec::new();
    // The relay bound (module doc) needs one holder and one reader per
    // element: then `pairs[holder · lanes + reader]` counts the elements
    // the holder lane has that the reader lane needs. Counted for warps of
    // at most `MAX_PAIR_LANES` lanes (the table is `lanes²`); wider
    // layouts get the floor without it.
    let count_pairs = holder.is_some() && dst.is_injective() && nl <= MAX_PAIR_LANES;
    let mut pair_elems = 0u64;
    for b in 0..nb as usize {
        for w in 0..nw as usize {
            let mut recv = vec![0u64; nl as usize];
            let mut held = Vec::new();
            let mut pairs = vec![0u64; if count_pairs { (nl * nl) as usize } else { 0 }];
            for l in 0..nl as usize {
                let mut seen = HashSet::new();
                for &r in &dr {
                    let e = r ^ dl[l] ^ dw[w] ^ db[b];
                    if !distinct_regs && !seen.insert(e) {
                        continue;
                    }
                    let x = e ^ sw[w] ^ sb[b];
                    if in_thread.contains(x ^ sl[l]) {
                        continue;
                    }
                    if let Some(c) = in_warp.solve(x) {
                        bound.in_warp_bytes += bytes;
                        recv[l] += bytes;
                        // The holder lane (injective source), else the
                        // reader lane.
                        let h = holder.map_or(l as u64, |nreg| c >> nreg);
                        if count_pairs {
                            let p = &mut pairs[(h * nl) as usize + l];
                            *p += 1;
                            pair_elems = pair_elems.max(*p);
                        }
                        held.push((h, e));
                    } else {
                        bound.cross_warp_bytes += bytes;
                        crossing.insert(e);
                    }
                }
            }
            warps_in.push((recv, held));
        }
    }
    // An element some other warp needs is stored anyway: an in-warp reader
    // may load it without a further store, so it does not load its holder's
    // sending capacity. With a broadcast source, every in-warp element no
    // other warp needs that a reader loads was stored by some holder: once
    // for all its readers `N_e` (threads of any warp that take it from
    // another lane of their own warp), so a reader's share is `1 / N_e`.
    let readers: Option<HashMap<u64, u64>> = holder.is_none().then(|| {
        let mut n = HashMap::new();
        for (_, held) in &warps_in {
            for &(_, e) in held {
                if !crossing.contains(e) {
                    *n.entry(e).or_insert(0) += 1;
                }
            }
        }
        n
    });
    if count_pairs {
        bound.pair_bytes = pair_elems * bytes;
    }
    // Needed bytes a shuffle slot delivers on average, at most (module doc).
    let slot_bytes = bound.slot_bytes();
    let mut in_warp_wavefronts = 0.0;
    for (recv, held) in warps_in {
        let stored: Vec<(u64, f64)> = match &readers {
            None => {
                let mut sent_elems: Vec<HashSet<u64>> = vec![HashSet::new(); nl as usize];
                for (lane, e) in held {
                    if !crossing.contains(e) {
                        sent_elems[lane as usize].insert(e);
                    }
                }
                sent_elems
                    .iter()
                    .map(|s| (s.len() as u64 * bytes, 1.0))
                    .collect()
            }
            Some(n) => {
                // Per reader lane: its bytes of such elements, and the
                // least share among them.
                let mut only = vec![(0u64, 1.0f64); nl as usize];
                for (lane, e) in held {
                    if let Some(&k) = n.get(&e) {
                        let o = &mut only[lane as usize];
                        o.0 += bytes;
                        o.1 = o.1.min(1.0 / k as f64);
                    }
                }
                only
            }
        };
        let (t, wf) = in_warp_floor(&stored, &recv, slot_bytes, count_pairs, wavefront_bytes);
        bound.shuffles += t;
        in_warp_wavefronts += wf;
    }
    let stored = crossing.len * bytes;
    bound.wavefronts =
        (stored + bound.cross_warp_bytes) as f64 / wavefront_bytes as f64 + in_warp_wavefronts;
    let barrier = if bound.cross_warp_bytes > 0 {
        BARRIER_COST
    } else {
        0.0
    };
    bound.cycles = (bound.wavefronts + bound.shuffles) / bound.warps.max(1) as f64 + barrier;
    if let Some(x) = exchange_floor(src, dst, elem_bits, target) {
        bound.exchange_cycles = x;
        bound.cycles = bound.cycles.max(x);
    }
    if let Some(u) = subword_units(
        src,
        dst,
        elem_bits,
        target,
        bound.cross_warp_bytes,
        bound.in_warp_bytes,
    ) {
        bound.subword_units = u;
        bound.cycles = bound.cycles.max(u / bound.warps.max(1) as f64 + barrier);
    }
    Ok(bound)
}

/// The widest warp (lanes) for which [`lower_bound`] counts the bytes each
/// pair of lanes shares (the relay bound): 64, a wave64 warp. Layouts with
/// more lanes are not hardware warps; their floor omits the bound rather
/// than build a table of `lanes²` counts.
const MAX_PAIR_LANES: u64 = 64;

/// Tiles above this many elements are not enumerated for
/// [`subword_units`] (its floor is then not applied; the others stand).
const SUBWORD_MAX_ELEMENTS: u64 = 1 << 20;

/// The sub-word floor (module doc), in units (wavefronts and shuffles)
/// summed over all warps: `(5/2 · L + I) / (4 · banks)` for `L` bytes
/// that cross warps and `I` bytes that change lane inside a warp, when
/// the elements are 8-bit, both layouts injective, no two moved bytes
/// share both their source thread and their destination thread, and the
/// target has 32 lanes and 32 banks; `None` otherwise (or when nothing
/// crosses warps).
///
/// ```
/// use layout_codegen::lower_bound::subword_units;
/// use layout_codegen::planner::Target;
/// use hw_layouts::Encoding;
/// let l = |t: &str| Encoding::parse(t).unwrap().to_linear_layout(&[128, 64]).unwrap();
/// // Rows of 64 bytes per thread to columns of 16: each source thread
/// // meets each destination thread in one byte.
/// let rows = l("#ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>");
/// let cols = l("#ttg.blocked<{sizePerThread = [16, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 4], order = [0, 1]}>");
/// // 6144 bytes cross warps, 2048 change lane: (2.5 · 6144 + 2048) / 128.
/// assert_eq!(subword_units(&rows, &cols, 8, &Target::SM90, 6144, 2048), Some(136.0));
/// assert_eq!(subword_units(&rows, &cols, 16, &Target::SM90, 6144, 2048), None);
/// ```
pub fn subword_units(
    src: &LinearLayout,
    dst: &LinearLayout,
    elem_bits: u32,
    target: &Target,
    cross_warp_bytes: u64,
    in_warp_bytes: u64,
) -> Option<f64> {
    if elem_bits != 8
        || (target.warp_size, target.banks) != (32, 32)
        || cross_warp_bytes == 0
        || src.out_dims() != dst.out_dims()
        || dst.total_out_dim_size() > SUBWORD_MAX_ELEMENTS
        || !src.is_injective()
        || !dst.is_injective()
    {
        return None;
    }
    // The source's holder of each element (injective: one).
    let (holder, dt) = (crate::replica::first_holders(src).ok()?, dst.table().ok()?);
    let (sr, dr) = (
        src.in_dim_size_log2(DimName::REGISTER),
        dst.in_dim_size_log2(DimName::REGISTER),
    );
    // Threads are numbered alike on both sides (lane, then warp, then
    // block: the layouts' thread counts agree, checked by the caller).
    let mut pairs: HashSet<(u64, u64)> = HashSet::new();
    for (f, &e) in dt.iter().enumerate() {
        let h = *holder.get(e as usize)?;
        if h == u64::MAX {
            return None;
        }
        let (from, to) = (h >> sr, (f as u64) >> dr);
        if from != to && !pairs.insert((from, to)) {
            return None;
        }
    }
    let bytes = (2.5 * cross_warp_bytes as f64 + in_warp_bytes as f64) / (4 * target.banks) as f64;
    Some(bytes)
}

/// The floor of a one-bit register ↔ lane exchange (the module doc's
/// argument), in cycles per warp: `2W / 3` for `W` 32-bit words per
/// thread, when `dst` is `src` with register basis `i` and lane basis `j`
/// exchanged and every other basis equal, up to a renaming of the word
/// registers (the register bases above the `log2 k` bits inside a word in
/// any order, `k = 32 / elem_bits` elements per word; both layouts
/// injective, the same warps and blocks), on 32 lanes and 32 banks, for
/// 8-, 16- and 32-bit elements; `None` otherwise. Register bit
/// `i < log2 k` exchanges elements inside words (every destination word is
/// assembled from two lanes' words); `i ≥ log2 k` exchanges whole words
/// and needs lane bit `j < 3`, so that the lanes keeping and the lanes
/// receiving a word meet every phase of every access.
///
/// ```
/// use layout_codegen::lower_bound::exchange_floor;
/// use layout_codegen::planner::Target;
/// use hw_layouts::Encoding;
/// let l = |t: &str| Encoding::parse(t).unwrap().to_linear_layout(&[64, 64]).unwrap();
/// let blocked = l("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>");
/// // Register basis 0 ([0, 1]) and lane basis 0 ([0, 4]) exchanged.
/// let swapped = l("#ttg.linear<{register = [[0, 4], [0, 2], [0, 16], [0, 32], [32, 0]], lane = [[0, 1], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]], block = []}>");
/// // 32 f32 words per thread: at least 2 · 32 / 3 cycles per warp.
/// assert_eq!(exchange_floor(&blocked, &swapped, 32, &Target::SM90), Some(64.0 / 3.0));
/// // 32 f16 elements are 16 words, exchanged inside the words.
/// assert_eq!(exchange_floor(&blocked, &swapped, 16, &Target::SM90), Some(32.0 / 3.0));
/// assert_eq!(exchange_floor(&blocked, &blocked, 32, &Target::SM90), None);
/// ```
pub fn exchange_floor(
    src: &LinearLayout,
    dst: &LinearLayout,
    elem_bits: u32,
    target: &Target,
) -> Option<f64> {
    // Cheap tests first: this runs inside every `lower_bound`.
    if (target.warp_size, target.banks) != (32, 32)
        || ![8, 16, 32].contains(&elem_bits)
        || src.out_dims() != dst.out_dims()
    {
        return None;
    }
    let bases = |l: &LinearLayout, d: DimName| {
        if l.has_in_dim(d) {
            l.packed_bases(d).to_vec()
        } else {
            Vec::new()
        }
    };
    for d in [DimName::WARP, DimName::BLOCK] {
        if bases(src, d) != bases(dst, d) {
            return None;
        }
    }
    let (sr, dr) = (bases(src, DimName::REGISTER), bases(dst, DimName::REGISTER));
    let (sl, dl) = (bases(src, DimName::LANE), bases(dst, DimName::LANE));
    if sr.len() != dr.len() || sl.len() != dl.len() || sl.len() != 5 {
        return None;
    }
    // The one lane basis that differs: source lane basis `j` is a
    // destination register basis and the other way round.
    let lj: Vec<usize> = (0..sl.len()).filter(|&x| sl[x] != dl[x]).collect();
    let &[j] = &lj[..] else {
        return None;
    };
    let (is, id) = (
        sr.iter().position(|&b| b == dl[j])?,
        dr.iter().position(|&b| b == sl[j])?,
    );
    // Registers: the bits inside a word are the same bases on both sides
    // (the exchanged one at the same position), and the word bits the
    // same bases in any order (a renaming of registers).
    let log_k = (32 / elem_bits).trailing_zeros() as usize;
    if sr.len() < log_k || (is.min(id) < log_k && is != id) {
        return None;
    }
    if (0..log_k).any(|p| p != is && sr[p] != dr[p]) {
        return None;
    }
    let words_of = |r: &[u64], skip: usize| -> Vec<u64> {
        let mut v: Vec<u64> = (log_k..r.len())
            .filter(|&p| p != skip)
            .map(|p| r[p])
            .collect();
        v.sort_unstable();
        v
    };
    if words_of(&sr, is) != words_of(&dr, id)
        || (is >= log_k && j >= 3)
        || !src.is_injective()
        || !dst.is_injective()
    {
        return None;
    }
    let words = 1u64 << (sr.len() - log_k);
    Some(2.0 * words as f64 / 3.0)
}

/// The floor of every plan that moves the **whole** tile through shared
/// memory (Triton's plan, the paper's swizzled plan, the searched swizzle
/// of [`crate::planner::plan`], in one round or several), in the cycles per
/// warp of [`crate::cost`], for the destination `dst` of `elem_bits`-bit
/// elements (at least one byte each, as the planners store them) on
/// `target`:
///
/// ```text
/// floor = (E + warps · 2^rank(R ∪ L)) · bytes / (4 · banks · warps) + BARRIER_COST
/// ```
///
/// with `E` the tensor's elements, `warps` those of all CTAs
/// ([`crate::choice::total_warps`]) and `R ∪ L` the register and lane
/// columns of `dst` (warp `w` holds the coset `W(w) ⊕ span(R ∪ L)`, so
/// `2^rank(R ∪ L)` distinct elements). Such a plan loads every destination
/// element from shared memory: each element is stored at least once (a
/// broadcast source stores one replica), each warp loads at least the
/// distinct elements it holds, and one wavefront serves at most one 4-byte
/// word per bank (`4 · banks` distinct bytes: [`crate::cost::WAVEFRONT_BYTES`] on 32
/// banks), so the stores take at least `E · bytes / (4 · banks)`
/// wavefronts and the loads `warps · 2^rank(R ∪ L) · bytes / (4 · banks)`;
/// and every such plan has a barrier between its stores and its loads.
/// Unlike [`lower_bound`] it is no floor of plans that keep data in the
/// warp (shuffles, register moves, partial plans): it bounds the full
/// plans only, so that a cheaper partial plan can be taken without
/// planning them ([`crate::planner::plan_at_floor`]).
///
/// ```
/// use layout_codegen::lower_bound::full_shared_floor;
/// use layout_codegen::planner::Target;
/// use hw_layouts::Encoding;
/// let l = Encoding::parse("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>")
///     .unwrap()
///     .to_linear_layout(&[8, 256])
///     .unwrap();
/// // 2048 i32 (8192 bytes) stored; each of the 4 warps loads its 512
/// // (2048 bytes); 128 bytes a wavefront: 128 wavefronts over 4 warps
/// // (32 cycles), plus one barrier (4).
/// assert_eq!(full_shared_floor(&l, 32, &Target::SM90), 36.0);
/// ```
pub fn full_shared_floor(dst: &LinearLayout, elem_bits: u32, target: &Target) -> f64 {
    let bytes = u64::from(elem_bits.max(8) / 8) as f64;
    let warps = crate::choice::total_warps(dst).max(1) as f64;
    let in_warp = [
        dst.packed_bases(DimName::REGISTER),
        dst.packed_bases(DimName::LANE),
    ]
    .concat();
    let held = (1u64 << gf2::rank(&in_warp)) as f64;
    let moved = (dst.total_out_dim_size() as f64 + warps * held) * bytes;
    moved / ((4 * target.banks.max(1)) as f64 * warps) + BARRIER_COST
}

/// A set of packed tensor coordinates: a bit per element where the tensor
/// has at most 2^26 of them (the bound's hot path), else a hash set.
struct ElementSet {
    bits: Vec<u64>,
    sparse: HashSet<u64>,
    dense: bool,
    len: u64,
}

impl ElementSet {
    fn new(elements: u64) -> ElementSet {
        let dense = elements <= 1 << 26;
        ElementSet {
            bits: vec![
                0;
                if dense {
                    elements.div_ceil(64) as usize
                } else {
                    0
                }
            ],
            sparse: HashSet::new(),
            dense,
            len: 0,
        }
    }

    fn insert(&mut self, e: u64) {
        let new = if self.dense {
            let (w, b) = ((e / 64) as usize, e % 64);
            let new = self.bits[w] >> b & 1 == 0;
            self.bits[w] |= 1 << b;
            new
        } else {
            self.sparse.insert(e)
        };
        self.len += u64::from(new);
    }

    fn contains(&self, e: u64) -> bool {
        if self.dense {
            self.bits[(e / 64) as usize] >> (e % 64) & 1 == 1
        } else {
            self.sparse.contains(&e)
        }
    }
}

/// One warp's in-warp traffic: the bytes each lane receives from other
/// lanes, and per such element the pair (holder lane, element) for an
/// injective source, (reader lane, element) for a broadcast one.
type InWarp = (Vec<u64>, Vec<(u64, u64)>);

/// One warp's in-warp floor (module doc): `(t, wavefronts)` at the `t`
/// minimising `f(t) = t + (S(t) + max(R(t), S(t))) / wavefront_bytes`,
/// given per lane `stored = (x, w)`: bytes `x` of which all but the `4t` a
/// lane moves by shuffles are stored, each byte counting `w` (the
/// injective source's `sent` bytes at `w = 1`; a broadcast source's
/// loaded bytes at their least reader share), so `S(t) = Σ w · (x − 4t)⁺`;
/// and each lane's `recv` bytes, `R(t) = max(Σ (recv − 4t)⁺, Σ recv −
/// slot_bytes · lanes · t)` (the relay bound: `slot_bytes` needed bytes
/// per shuffle slot; at 4 the second term never binds). With
/// `one_reader` (both layouts injective) every loaded byte is a distinct
/// byte that some lane stored, so the stores are `max(R(t), S(t))` too.
/// `S` and `R` are convex and piecewise linear, with kinks at the
/// breakpoints `x / 4`, at `Σ recv / (slot_bytes · lanes)` and where the
/// two terms of `R` cross;
/// `f` is linear between those except where `R − S` changes sign: the
/// minimum is at `t = 0`, a kink or such a crossing, and each is
/// evaluated. Ties go to the smaller `t`.
fn in_warp_floor(
    stored: &[(u64, f64)],
    recv: &[u64],
    slot_bytes: f64,
    one_reader: bool,
    wavefront_bytes: u64,
) -> (f64, f64) {
    let over = |v: &[u64], t: f64| {
        v.iter()
            .map(|&x| (x as f64 - 4.0 * t).max(0.0))
            .sum::<f64>()
    };
    let total = recv.iter().sum::<u64>() as f64;
    let per_slot = slot_bytes * recv.len() as f64;
    let relayed = |t: f64| (total - per_slot * t).max(0.0);
    let loaded = |t: f64| over(recv, t).max(relayed(t));
    let store = |t: f64| {
        stored
            .iter()
            .map(|&(x, w)| w * (x as f64 - 4.0 * t).max(0.0))
            .sum::<f64>()
    };
    let smem = |t: f64| {
        let (s, r) = (store(t), loaded(t));
        let stores = if one_reader { r.max(s) } else { s };
        (stores + r.max(s)) / wavefront_bytes as f64
    };
    // Where `a − b` changes sign between consecutive points (both linear
    // there), added to the points.
    let with_crossings = |mut ts: Vec<f64>, a: &dyn Fn(f64) -> f64, b: &dyn Fn(f64) -> f64| {
        ts.sort_by(f64::total_cmp);
        ts.dedup();
        let crossings: Vec<f64> = ts
            .windows(2)
            .filter_map(|p| {
                let (ga, gb) = (a(p[0]) - b(p[0]), a(p[1]) - b(p[1]));
                (ga * gb < 0.0).then(|| p[0] + (p[1] - p[0]) * ga / (ga - gb))
            })
            .collect();
        ts.extend(crossings);
        ts.sort_by(f64::total_cmp);
        ts
    };
    let mut ts: Vec<f64> = std::iter::once(0.0)
        .chain(
            stored
                .iter()
                .map(|&(x, _)| x)
                .chain(recv.iter().copied())
                .map(|x| x as f64 / 4.0),
        )
        .collect();
    if per_slot > 0.0 {
        ts.push(total / per_slot);
    }
    let ts = with_crossings(ts, &|t| over(recv, t), &relayed);
    let ts = with_crossings(ts, &loaded, &store);
    let mut best = (0.0, smem(0.0));
    for t in ts {
        let wf = smem(t);
        if t + wf < best.0 + best.1 {
            best = (t, wf);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::in_warp_floor;

    /// Bytes counted once each.
    fn unit(x: &[u64]) -> Vec<(u64, f64)> {
        x.iter().map(|&b| (b, 1.0)).collect()
    }

    /// 16 of 32 lanes each send 64 bytes, every lane receives 32: shuffles
    /// alone need 16 (the senders' capacity), shared memory alone 2048 / 128
    /// = 16 wavefronts; every mixture costs 16 too, and ties keep `t = 0`.
    #[test]
    fn half_the_lanes_send() {
        let sent: Vec<u64> = (0..32).map(|l| if l < 16 { 64 } else { 0 }).collect();
        assert_eq!(
            in_warp_floor(&unit(&sent), &[32; 32], 4.0, false, 128),
            (0.0, 16.0)
        );
    }

    /// Every lane sends and receives 32 bytes: 8 shuffles beat 8 + 8
    /// wavefronts.
    #[test]
    fn every_lane_sends() {
        assert_eq!(
            in_warp_floor(&unit(&[32; 32]), &[32; 32], 4.0, false, 128),
            (8.0, 0.0)
        );
    }

    /// 8 lanes send 64 bytes each (`S(t) = 512 − 32t`), 32 lanes receive
    /// 32 bytes each (`R(t) = 1024 − 128t`, a broadcast destination). While
    /// `R > S`, `f(t) = t + (S + R) / 128 = 12 − t/4`; after `R = S` at `t =
    /// 16/3`, `f(t) = t + 2S / 128 = 8 + t/2`. The minimum, `32/3`, is at
    /// the crossing, not at a breakpoint (`f(0) = f(8) = 12`, `f(16) = 16`).
    #[test]
    fn minimum_where_loads_meet_stores() {
        let sent: Vec<u64> = (0..32).map(|l| if l < 8 { 64 } else { 0 }).collect();
        let (t, wf) = in_warp_floor(&unit(&sent), &[32; 32], 4.0, false, 128);
        assert!((t - 16.0 / 3.0).abs() < 1e-9 && (wf - 16.0 / 3.0).abs() < 1e-9);
    }

    /// A broadcast source (sent unconstrained): every receiver's 32 bytes
    /// by shuffles (8) or loads (1024 / 128 = 8 wavefronts; the stores are
    /// not constrained): `f` is flat at 8 and the tie keeps `t = 0`.
    #[test]
    fn unconstrained_senders() {
        assert_eq!(
            in_warp_floor(&unit(&[0; 32]), &[32; 32], 4.0, false, 128),
            (0.0, 8.0)
        );
    }
}

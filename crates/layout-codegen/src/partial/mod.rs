//! # Partial cross-warp conversions
//!
//! A plan class neither the paper nor Triton has: when only *part* of the
//! data of a conversion has to leave its warp, only that part goes through
//! shared memory; the rest stays in the warp (register moves, or
//! `shfl.sync.idx` when the lane changes).
//!
//! ## The math
//! Both layouts are CTA-local surjections `(register, lane, warp) → tensor`
//! (block dim of size 1; broadcast allowed). Let
//! `C: (r, l, w) ↦ (r', l', w')` map a destination hardware index to a
//! source hardware index holding the same element (GF(2)-linear, register
//! bit `i` of the input is `r >> i & 1`): `src⁻¹ ∘ dst` for an injective
//! source; for a broadcast source, the map of
//! [`crate::replica::local_conversion_layout`], which reads the replica in
//! the reader's own warp (then lane) whenever there is one. Write its warp
//! output as
//! `w' = C_wr(r) ⊕ C_wl(l) ⊕ C_ww(w)`. The element of destination `(r, l, w)`
//! stays in its warp iff `w' = w`. The class requires
//!
//! 1. `C_wl = 0`: the source warp never depends on the destination lane, so
//!    "stays" is warp-uniform: in warp `w` the staying destination registers
//!    are the coset `{r : C_wr(r) = (C_ww ⊕ I)(w)}` of `ker C_wr` (empty
//!    when `(C_ww ⊕ I)(w) ∉ im C_wr`);
//! 2. `C_rl = 0`: the source register never depends on the destination lane,
//!    so a staying destination register `r` of warp `w` is one warp-wide
//!    `shfl.sync.idx` of the *static* source register
//!    `r' = C_rr(r) ⊕ C_rw(w)` from the source lane
//!    `l' = C_lr(r) ⊕ C_ll(l) ⊕ C_lw(w)` (affine in the reading lane), or a
//!    plain register move when `l' = l` for every lane;
//! 3. at least one element crosses warps and at least one stays (otherwise
//!    the conversion is the shuffle class or the full shared-memory class).
//!
//! ## The plan
//! Shared memory uses the caller's shared layout `smem: offset → tensor`
//! (the one the full conversion would use), so every address is the full
//! plan's address: `offset(r, l, w) = smem⁻¹(layout(r, l, w))`, XOR-linear.
//! Accesses are vectorised exactly like the full plan (register bits mapping
//! to offsets `1, 2, 4, …` that no other basis touches, ≤ 16 bytes).
//! Per warp:
//! - **loads**: every destination vector group with at least one register
//!   whose element arrives from another warp (a group is loaded whole);
//! - **stores**: every source vector group holding at least one element some
//!   load reads (so loads never read unwritten slots);
//! - **staying**: every other destination register, by a register move or a
//!   shuffle as in condition 2 (these read only source registers, so they
//!   run before the barrier, overlapping the stores).
//!
//! Warps with identical instruction lists form a [`WarpClass`]; a kernel
//! branches once per class on the (warp-uniform) warp id and runs static,
//! unrolled code, so register arrays are indexed by constants only.
//!
//! [`simulate_partial`] proves a plan by execution on tagged values for every
//! thread of the CTA.
//!
//! ## Limits
//! - Staying sets differ between warps (for a bijection, `C_ww = I` would
//!   make every element warp-local), so the work is unbalanced: e.g. blocked
//!   `warpsPerCTA = [2, 2]` → `[4, 1]` keeps half of the data of warps 0 and 3 and
//!   none of warps 1 and 2. Shared memory is a per-SM resource, so the
//!   wavefront total is what the prediction counts.
//! - Lane-dependent staying (`C_wl ≠ 0`, e.g. mma v2 `[2, 2]` ↔ blocked) and
//!   lane-dependent source registers (`C_rl ≠ 0`) are refused here;
//!   [`plan_split_predicated`] plans them with per-lane predicated accesses,
//!   keep masks and sender-side selects. Predication saves wavefronts only
//!   where the active lanes fill or empty whole phases (staying decided by
//!   high lane bits); where it is decided by low lane bits every phase
//!   still runs, and the full plan is cheaper (the planner costs both).
//! - Multi-CTA layouts and layouts that do not cover the tile are refused.
//!   Broadcast layouts are planned: a replicated destination is loaded by
//!   every warp that holds it (e.g. mma v2 `[2, 2]` → its A operand keeps
//!   the half of each warp's rows it computed and loads the other half), a
//!   broadcast source stores one replica.
//! - [`plan_split`] drops condition 3, so that a benchmark can run a pair of
//!   conversions where one direction stays in every warp (the A operand back
//!   to the accumulators: register moves whose source register depends on
//!   the warp, which Triton sends through shared memory).
//! - The scratch buffer is the full conversion's (same addresses), though
//!   only the crossing part of it is used.

mod class;
mod cost;
mod predicated;
mod simulate;

pub use predicated::{plan_split_predicated, plan_split_transposed};

pub use class::{shared_instruction_floor, why_not_partial};
pub use simulate::{simulate_partial, PartialReport};

use crate::error::{check_bitwidth, CodegenError, Result};
use crate::plan::{Access, Address};
use class::{check_class, check_split, conversion_table, tables, Hw};
use cost::cost_of;
use linear_layout::{gf2, LinearLayout};
use serde::Serialize;

/// One in-warp move of a staying element: destination register
/// `dst_register` of lane `l` takes source register
/// [`StayingMove::sent_by`]`(l')` of lane `l' = src_lane.eval(l, warp)`,
/// in the lanes [`StayingMove::keeps`]. When `src_lane` is the identity (no
/// lane change for any lane) it is a register move, else one
/// `shfl.sync.idx`.
///
/// Plans of [`plan_split`] and [`plan_partial`] send a static register and
/// every lane keeps the value; plans of [`plan_split_predicated`] may send
/// a register that depends on the sending lane (`src_register_by_lane`,
/// a select chain on the sender) and keep it in some lanes only
/// (`keep_lanes`, a select on the reader); plans of
/// [`plan_split_transposed`] also write a destination register that
/// depends on the reading lane (`dst_register_by_lane`, one predicated
/// write per distinct register on the reader).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StayingMove {
    /// Destination register written.
    pub dst_register: u64,
    /// Source register sent (static for the warp class), or the one lane 0
    /// sends when `src_register_by_lane` is set.
    pub src_register: u64,
    /// Source lane, affine in the reading lane (and the warp id).
    pub src_lane: Address,
    /// The register each sending lane sends, when it depends on the lane
    /// (empty: `src_register` in every lane).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub src_register_by_lane: Vec<u64>,
    /// The lanes (bit `l` for lane `l`) that write the received value to
    /// `dst_register`, when not all (`None`: every lane).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub keep_lanes: Option<u64>,
    /// The destination register each reading lane writes, when it depends
    /// on the lane (empty: `dst_register` in every lane; when set,
    /// `dst_register` is lane 0's).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub dst_register_by_lane: Vec<u64>,
}

impl StayingMove {
    /// Whether every lane that keeps the value reads its own lane (a
    /// register move) in `warp`.
    pub fn is_register_move(&self, warp: u64, lanes: u64) -> bool {
        (0..lanes)
            .filter(|&l| self.keeps(l))
            .all(|l| self.src_lane.eval(l, warp) == l)
    }

    /// The register lane `lane` sends.
    pub fn sent_by(&self, lane: u64) -> u64 {
        self.src_register_by_lane
            .get(lane as usize)
            .copied()
            .unwrap_or(self.src_register)
    }

    /// Whether lane `lane` writes the received value.
    pub fn keeps(&self, lane: u64) -> bool {
        self.keep_lanes.is_none_or(|m| m >> lane & 1 == 1)
    }

    /// The destination register lane `lane` writes.
    pub fn written_by(&self, lane: u64) -> u64 {
        self.dst_register_by_lane
            .get(lane as usize)
            .copied()
            .unwrap_or(self.dst_register)
    }

    /// Selects this move costs per thread: a multiplexer over the distinct
    /// registers a lane may send (`n − 1` for `n` of them); on the reader,
    /// one predicated write per distinct destination register when that
    /// depends on the lane, else one select when only some lanes keep the
    /// value.
    pub fn selects(&self) -> u64 {
        let distinct = |v: &[u64]| {
            let mut v = v.to_vec();
            v.sort_unstable();
            v.dedup();
            v.len() as u64
        };
        let reader = if self.dst_register_by_lane.is_empty() {
            self.keep_lanes.is_some() as u64
        } else {
            distinct(&self.dst_register_by_lane)
        };
        distinct(&self.src_register_by_lane).saturating_sub(1) + reader
    }
}

/// Lane-dependent register choices of transposed staying moves made once
/// per class instead of once per move: before the moves, each lane `m`
/// permutes its copy of the source registers `sent`, `a'[x] = a[x ⊕
/// H(m)]`, so that every move sends one register name in every lane; after
/// them, each lane `l` permutes the staying destination registers
/// `received`, `b'[x] = b[x ⊕ F(l)]`, so that every move writes one name.
/// `H` and `F` are linear (`sender[i]`, `receiver[i]`: the image of lane
/// bit `i`); each permutation is a conditional swap of the register pairs
/// `{x, x ⊕ image}` per lane bit with a non-zero image, two selects per
/// pair: `|sent| · rank H + |received| · rank F` selects per thread,
/// against `2^rank H − 1 + 2^rank F` per move as select chains and
/// predicated writes ([`StayingMove::selects`]). Both register sets are
/// closed under the XOR with their map's images.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LaneXor {
    /// `H` on lane bits (source-register offsets).
    pub sender: Vec<u64>,
    /// The source registers permuted, ascending.
    pub sent: Vec<u64>,
    /// `F` on lane bits (destination-register offsets).
    pub receiver: Vec<u64>,
    /// The destination registers permuted, ascending.
    pub received: Vec<u64>,
}

impl LaneXor {
    /// The source register lane `lane` holds in its permuted register `x`.
    pub fn source_of(&self, x: u64, lane: u64) -> u64 {
        x ^ gf2::xor_columns(&self.sender, lane)
    }

    /// The destination register that a value lane `lane` wrote to `x`
    /// ends in after the permutation.
    pub fn destination_of(&self, x: u64, lane: u64) -> u64 {
        x ^ gf2::xor_columns(&self.receiver, lane)
    }

    /// Selects per thread: one per register of a permuted set and
    /// non-zero lane image.
    pub fn selects(&self) -> u64 {
        let nz = |v: &[u64]| v.iter().filter(|&&b| b != 0).count() as u64;
        self.sent.len() as u64 * nz(&self.sender) + self.received.len() as u64 * nz(&self.receiver)
    }
}

/// The code run by a set of warps.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WarpClass {
    /// The warps running it.
    pub warps: Vec<u64>,
    /// `st.shared` of source registers (before the barrier).
    pub stores: Vec<Access>,
    /// In-warp moves and shuffles of staying elements (before the barrier).
    pub staying: Vec<StayingMove>,
    /// `ld.shared` into destination registers (after the barrier).
    pub loads: Vec<Access>,
    /// The staying moves' lane-dependent registers as two permutations
    /// (after the stores: before the moves, and after them), where that
    /// costs fewer selects; `None`: each move chooses its own registers.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub lane_xor: Option<LaneXor>,
    /// The lanes (bit `l` for lane `l`) that execute each store, one mask
    /// per entry of `stores`; empty: every lane executes every store.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub store_lanes: Vec<u64>,
    /// The same for `loads`.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub load_lanes: Vec<u64>,
}

impl WarpClass {
    /// Whether some staying move writes a destination register chosen by
    /// the reading lane (transposed staying moves: per move, or by the
    /// class's [`LaneXor`]).
    pub fn is_transposed(&self) -> bool {
        self.lane_xor
            .as_ref()
            .is_some_and(|x| x.receiver.iter().any(|&b| b != 0))
            || self
                .staying
                .iter()
                .any(|m| !m.dst_register_by_lane.is_empty())
    }

    /// Whether lane `lane` executes store `i`.
    pub fn stores_in(&self, i: usize, lane: u64) -> bool {
        self.store_lanes.get(i).is_none_or(|m| m >> lane & 1 == 1)
    }

    /// Whether lane `lane` executes load `i`.
    pub fn loads_in(&self, i: usize, lane: u64) -> bool {
        self.load_lanes.get(i).is_none_or(|m| m >> lane & 1 == 1)
    }
}

/// Costs of the partial plan and of the full shared-memory plan through the
/// same shared layout (wavefronts summed over all warps of one CTA).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PartialCost {
    /// Destination elements (of the CTA) that stay in their warp.
    pub staying_elements: u64,
    /// All destination elements of the CTA.
    pub elements: u64,
    /// Store wavefronts of the partial plan.
    pub store_wavefronts: u64,
    /// Load wavefronts of the partial plan.
    pub load_wavefronts: u64,
    /// Store wavefronts of the full plan.
    pub full_store_wavefronts: u64,
    /// Load wavefronts of the full plan.
    pub full_load_wavefronts: u64,
    /// Store instructions summed over warps (partial plan).
    pub store_instructions: u64,
    /// Load instructions summed over warps.
    pub load_instructions: u64,
    /// `shfl.sync` instructions summed over warps, one per staying element
    /// register that changes lane.
    pub shuffles: u64,
    /// The same after packing `32 / bitwidth` narrow elements that read the
    /// same source lane into one 32-bit `shfl.sync` (what the CUDA emitter
    /// does).
    pub packed_shuffles: u64,
    /// Register moves summed over warps.
    pub register_moves: u64,
    /// Selects summed over warps ([`StayingMove::selects`]; 0 for plans of
    /// [`plan_split`]).
    #[serde(skip_serializing_if = "is_zero", default)]
    pub selects: u64,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

/// A partial cross-warp conversion plan (see the module doc).
#[derive(Clone, Debug, Serialize)]
pub struct PartialCrossWarpPlan {
    /// Element bit width.
    pub bitwidth: u32,
    /// Lanes per warp.
    pub num_lanes: u64,
    /// Warps per CTA.
    pub num_warps: u64,
    /// Source registers per thread.
    pub src_registers: u64,
    /// Destination registers per thread.
    pub dst_registers: u64,
    /// Scratch buffer size in elements (the shared layout's offsets).
    pub scratch_elems: u64,
    /// The shared layout (offset → tensor).
    #[serde(skip)]
    pub shared_layout: LinearLayout,
    /// The warp classes (every warp in exactly one).
    pub classes: Vec<WarpClass>,
    /// Costs.
    pub cost: PartialCost,
}

impl PartialCost {
    /// Predicted issue slots of the shared-memory pipe (MIO) for one CTA:
    /// shared-memory wavefronts plus packed shuffles, counting one 32-lane
    /// `shfl.sync` like one wavefront (both move at most 128 bytes per warp
    /// through the same pipe; an assumption of this model that the GPU run
    /// checks). Register moves cost nothing in the warp-specialised program
    /// (renamings).
    pub fn partial_units(&self) -> u64 {
        self.store_wavefronts + self.load_wavefronts + self.packed_shuffles
    }

    /// The same for the full shared-memory plan through the same layout.
    pub fn full_units(&self) -> u64 {
        self.full_store_wavefronts + self.full_load_wavefronts
    }

    /// Whether the partial plan is predicted cheaper than the full one.
    pub fn cheaper_than_full(&self) -> bool {
        self.partial_units() < self.full_units()
    }
}

impl PartialCrossWarpPlan {
    /// The class index of `warp`.
    pub fn class_of(&self, warp: u64) -> Option<usize> {
        self.classes.iter().position(|c| c.warps.contains(&warp))
    }

    /// The same data movement with every class's [`LaneXor`] written out
    /// per move: move `m` sends `m.src_register ⊕ H(lane)` and writes
    /// `m.dst_register ⊕ F(lane)` (select chains and predicated writes,
    /// [`StayingMove::selects`]). `cost` is left as planned.
    pub fn with_chained_staying(&self) -> PartialCrossWarpPlan {
        let mut p = self.clone();
        for k in &mut p.classes {
            let Some(x) = k.lane_xor.take() else { continue };
            for m in &mut k.staying {
                m.src_register_by_lane = (0..self.num_lanes)
                    .map(|l| x.source_of(m.src_register, l))
                    .collect();
                m.dst_register_by_lane = (0..self.num_lanes)
                    .map(|l| x.destination_of(m.dst_register, l))
                    .collect();
            }
        }
        p
    }
}

/// An XOR-linear offset map `(r, l, w) → element offset`: basis images.
struct OffsetMap {
    reg: Vec<u64>,
    lane: Vec<u64>,
    warp: Vec<u64>,
}

impl OffsetMap {
    fn new(hw: &Hw, offset_of: &[u64]) -> OffsetMap {
        let at = |r, l, w| offset_of[hw.coord(r, l, w) as usize];
        OffsetMap {
            reg: (0..hw.nr).map(|i| at(1 << i, 0, 0)).collect(),
            lane: (0..hw.nl).map(|i| at(0, 1 << i, 0)).collect(),
            warp: (0..hw.nw).map(|i| at(0, 0, 1 << i)).collect(),
        }
    }

    fn reg_offset(&self, r: u64) -> u64 {
        gf2::xor_columns(&self.reg, r)
    }

    fn address(&self, r: u64) -> Address {
        Address {
            constant: self.reg_offset(r),
            lane: self.lane.clone(),
            warp: self.warp.clone(),
        }
    }

    /// The vector groups (registers in offset order), widest vectors of at
    /// most 16 bytes ([`crate::vectorize::vector_groups`], as the emitter
    /// forms them).
    fn groups(&self, bits: u32) -> Vec<Vec<u64>> {
        crate::vectorize::vector_groups(&self.reg, &self.lane, &self.warp, bits).1
    }
}

/// Plans the conversion `src → dst` of `bitwidth`-bit elements as a partial
/// cross-warp conversion through the shared layout `smem` (offset → tensor,
/// a bijection onto the tile, the layout the full conversion would use).
/// Errors name the failed condition of the class (module doc).
pub fn plan_partial(
    src: &LinearLayout,
    dst: &LinearLayout,
    smem: &LinearLayout,
    bitwidth: u32,
) -> Result<PartialCrossWarpPlan> {
    plan_with(src, dst, smem, bitwidth, true)
}

/// The plan of [`plan_partial`] without condition 3 of the class: a
/// conversion where every element stays in its warp gives warp classes
/// with staying moves only (no shared memory, no barrier; e.g. a
/// broadcast source whose source register depends on the warp, which
/// Triton sends through shared memory), and one where every element
/// crosses gives the full shared-memory plan in this form. Lets a
/// benchmark run both directions of a conversion pair in one program.
pub fn plan_split(
    src: &LinearLayout,
    dst: &LinearLayout,
    smem: &LinearLayout,
    bitwidth: u32,
) -> Result<PartialCrossWarpPlan> {
    plan_with(src, dst, smem, bitwidth, false)
}

/// What both partial planners start from: the layouts as hardware tables,
/// the map `C` as a table, the store/load offset maps through the shared
/// layout, their vector groups and `C`'s lane and warp parts of the source
/// lane (`C_ll`, `C_lw`, as address bases).
struct Prepared {
    s: Hw,
    d: Hw,
    c: Vec<u64>,
    nsmem: u64,
    st: OffsetMap,
    ld: OffsetMap,
    st_groups: Vec<Vec<u64>>,
    ld_groups: Vec<Vec<u64>>,
    c_ll: Vec<u64>,
    c_lw: Vec<u64>,
}

/// Checks the inputs of a partial planner and builds its [`Prepared`]
/// tables; `class` (given `(s, d, C)`) names a failed class condition.
fn prepare(
    src: &LinearLayout,
    dst: &LinearLayout,
    smem: &LinearLayout,
    bitwidth: u32,
    class: impl Fn(&Hw, &Hw, &[u64]) -> Option<String>,
) -> Result<Prepared> {
    prepare_with(src, dst, smem, bitwidth, None, class)
}

/// [`prepare`], with the hardware tables and `C` of `src → dst` when the
/// caller has them already ([`tables`]), so that they are built once.
fn prepare_with(
    src: &LinearLayout,
    dst: &LinearLayout,
    smem: &LinearLayout,
    bitwidth: u32,
    given: Option<(Hw, Hw, Vec<u64>)>,
    class: impl Fn(&Hw, &Hw, &[u64]) -> Option<String>,
) -> Result<Prepared> {
    check_bitwidth(bitwidth)?;
    let (s, d, given_c) = match given {
        Some((s, d, c)) => (s, d, Some(c)),
        None => (Hw::new(src, "source")?, Hw::new(dst, "destination")?, None),
    };
    if (s.nl, s.nw) != (d.nl, d.nw) {
        return Err(CodegenError::Invalid(
            "source and destination differ in lanes or warps".into(),
        ));
    }
    if src.out_dims() != dst.out_dims() || smem.out_dims() != src.out_dims() {
        return Err(CodegenError::Invalid(format!(
            "tensor dims differ: source {:?}, destination {:?}, shared {:?}",
            src.out_dims(),
            dst.out_dims(),
            smem.out_dims()
        )));
    }
    if smem.num_in_dims() != 1 || !smem.is_injective() || !smem.is_surjective() {
        return Err(CodegenError::Invalid(
            "the shared layout must be one offset dim, a bijection onto the tile".into(),
        ));
    }
    let c = match given_c {
        Some(c) => c,
        None => conversion_table(&s, &d)?,
    };
    if let Some(why) = class(&s, &d, &c) {
        return Err(CodegenError::Unsupported(format!(
            "not a partial cross-warp conversion: {why}"
        )));
    }
    let nsmem = smem.total_in_dim_size();
    // `smem⁻¹` as a table (packed tensor coordinate → offset): `smem`'s
    // function table, built by doubling, inverted in place (a bijection
    // onto the tile, checked above).
    let mut offset_of = vec![0u64; nsmem as usize];
    for (o, &e) in smem.table()?.iter().enumerate() {
        offset_of[e as usize] = o as u64;
    }
    let st = OffsetMap::new(&s, &offset_of);
    let ld = OffsetMap::new(&d, &offset_of);
    let (st_groups, ld_groups) = (st.groups(bitwidth), ld.groups(bitwidth));
    // Lane part of C (C_ll), as the lane bases of the source-lane address.
    let c_ll: Vec<u64> = (0..d.nl)
        .map(|i| s.split(c[d.flat(0, 1 << i, 0) as usize]).1)
        .collect();
    let c_lw: Vec<u64> = (0..d.nw)
        .map(|i| s.split(c[d.flat(0, 0, 1 << i) as usize]).1)
        .collect();
    Ok(Prepared {
        s,
        d,
        c,
        nsmem,
        st,
        ld,
        st_groups,
        ld_groups,
        c_ll,
        c_lw,
    })
}

impl Prepared {
    /// `C` with each crossing entry (source warp ≠ reader's warp) sent to
    /// the element's first source holder (lowest flat `(register, lane,
    /// warp)` index, warp most significant): every reader of an element
    /// that must cross warps loads the one copy that copy's warp stores.
    /// [`local_conversion_layout`](crate::replica::local_conversion_layout)
    /// picks the crossing replica linearly in the reader, so that two
    /// readers of a broadcast destination in different warps may read (and
    /// make two warps store) two replicas of one element; the lowest
    /// holder is in another warp too, since `C` takes a replica in the
    /// reader's own warp wherever there is one. Staying entries are kept.
    fn with_canonical_crossing(&self) -> Result<Vec<u64>> {
        let (first, dt) = (
            crate::replica::first_holders(&self.s.layout)?,
            self.d.layout.table()?,
        );
        Ok(self
            .c
            .iter()
            .enumerate()
            .map(|(i, &g)| match first.get(dt[i] as usize) {
                Some(&h) if h != u64::MAX && self.s.split(g).2 != self.d.split(i as u64).2 => h,
                _ => g,
            })
            .collect())
    }

    /// The plan of `classes` through `smem`, with its costs.
    fn finish(
        &self,
        bitwidth: u32,
        smem: &LinearLayout,
        classes: Vec<WarpClass>,
    ) -> PartialCrossWarpPlan {
        let (s, d) = (&self.s, &self.d);
        let mut plan = PartialCrossWarpPlan {
            bitwidth,
            num_lanes: 1 << d.nl,
            num_warps: 1 << d.nw,
            src_registers: 1 << s.nr,
            dst_registers: 1 << d.nr,
            scratch_elems: self.nsmem,
            shared_layout: smem.clone(),
            classes,
            cost: PartialCost::default(),
        };
        plan.cost = cost_of(
            &plan,
            &self.st,
            &self.ld,
            &self.st_groups,
            &self.ld_groups,
            &self.c,
            s,
            d,
        );
        plan
    }
}

fn plan_with(
    src: &LinearLayout,
    dst: &LinearLayout,
    smem: &LinearLayout,
    bitwidth: u32,
    require_mixed: bool,
) -> Result<PartialCrossWarpPlan> {
    let class = if require_mixed {
        check_class
    } else {
        check_split
    };
    plan_prepared(prepare(src, dst, smem, bitwidth, class)?, bitwidth, smem)
}

/// The plain partial plan of [`Prepared`] tables through `smem`.
fn plan_prepared(p: Prepared, bitwidth: u32, smem: &LinearLayout) -> Result<PartialCrossWarpPlan> {
    let (s, d, c) = (&p.s, &p.d, &p.c);
    let (st, ld, c_ll, c_lw) = (&p.st, &p.ld, &p.c_ll, &p.c_lw);
    let (st_groups, ld_groups) = (&p.st_groups, &p.ld_groups);
    let nwarps = 1u64 << d.nw;
    let (nsr, ndr) = (1u64 << s.nr, 1u64 << d.nr);
    // Per destination warp: loaded groups, staying moves; needed source regs.
    let mut needed: Vec<Vec<bool>> = vec![vec![false; nsr as usize]; nwarps as usize];
    let mut loads_of: Vec<Vec<Access>> = Vec::new();
    let mut staying_of: Vec<Vec<StayingMove>> = Vec::new();
    for w in 0..nwarps {
        let src_of = |r: u64| s.split(c[d.flat(r, 0, w) as usize]);
        let mut loaded = vec![false; ndr as usize];
        let mut loads = Vec::new();
        for g in ld_groups {
            if g.iter().any(|&r| src_of(r).2 != w) {
                for &r in g {
                    loaded[r as usize] = true;
                    let (r2, _, w2) = src_of(r);
                    needed[w2 as usize][r2 as usize] = true;
                }
                loads.push(Access {
                    registers: g.clone(),
                    address: ld.address(g[0]),
                    matrix: None,
                });
            }
        }
        let mut staying = Vec::new();
        for r in 0..ndr {
            if !loaded[r as usize] {
                let (r2, _, _) = src_of(r);
                // l' = C_l(r, 0, 0) ⊕ C_ll(l) ⊕ C_lw(w).
                let (_, l0, _) = s.split(c[d.flat(r, 0, 0) as usize]);
                staying.push(StayingMove {
                    dst_register: r,
                    src_register: r2,
                    src_lane: Address {
                        constant: l0,
                        lane: c_ll.clone(),
                        warp: c_lw.clone(),
                    },
                    src_register_by_lane: vec![],
                    keep_lanes: None,
                    dst_register_by_lane: vec![],
                });
            }
        }
        loads_of.push(loads);
        staying_of.push(staying);
    }
    let mut classes: Vec<WarpClass> = Vec::new();
    for w in 0..nwarps {
        let stores: Vec<Access> = st_groups
            .iter()
            .filter(|g| g.iter().any(|&r| needed[w as usize][r as usize]))
            .map(|g| Access {
                registers: g.clone(),
                address: st.address(g[0]),
                matrix: None,
            })
            .collect();
        let (loads, staying) = (loads_of[w as usize].clone(), staying_of[w as usize].clone());
        match classes
            .iter_mut()
            .find(|k| k.stores == stores && k.loads == loads && k.staying == staying)
        {
            Some(k) => k.warps.push(w),
            None => classes.push(WarpClass {
                warps: vec![w],
                stores,
                staying,
                loads,
                lane_xor: None,
                store_lanes: vec![],
                load_lanes: vec![],
            }),
        }
    }
    Ok(p.finish(bitwidth, smem, classes))
}

/// [`plan_split`] through the optimal swizzle of the conversion
/// ([`crate::swizzle::optimal_swizzling`], the shared layout Triton's plan
/// would use), proved by [`simulate_partial`]: what `linlayout convert
/// --partial` and the Python `partial` report. Conversions where every
/// element crosses warps are refused (that is the full shared-memory
/// class); warp-local ones are planned (staying moves only). Errors name
/// the failed condition of the module doc.
pub fn plan_split_optimal(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<(PartialCrossWarpPlan, PartialReport)> {
    check_bitwidth(bitwidth)?;
    // The tables and `C` are built once, for the class test and the plan.
    let (s, d, c) = tables(src, dst)?;
    if let Some(why) = check_class(&s, &d, &c) {
        if !why.starts_with("no element crosses") {
            return Err(CodegenError::Unsupported(format!(
                "not a partial cross-warp conversion: {why}"
            )));
        }
    }
    let smem = crate::swizzle::optimal_swizzling(src, dst, bitwidth)?.shared;
    let p = prepare_with(src, dst, &smem, bitwidth, Some((s, d, c)), check_split)?;
    let plan = plan_prepared(p, bitwidth, &smem)?;
    let report = simulate_partial(&plan, src, dst)?;
    Ok((plan, report))
}

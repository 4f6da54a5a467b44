//! Executes a [`ConversionPlan`] on a modelled CTA and proves it.
//!
//! ## What is modelled
//! `blocks` CTAs of `warps × lanes` threads (sizes from the layouts), each
//! with its own shared memory. Every source
//! register holds a *tag*: the tensor coordinate the source layout places
//! there (packed, dim0 in the low bits), so data is never confused with
//! indices. Shared memory is an array of tagged slots, one per element of
//! the plan's scratch buffer, behind `B` banks of 4 bytes (`B` = 32, the
//! NVIDIA default of [`simulate`], or 64 via [`simulate_with`] and
//! [`SimulatorConfig`]): byte address `a` is in bank `(a / 4) mod B`.
//!
//! A plan runs round by round. In each round every thread executes every
//! store, all threads meet at a barrier, then every thread executes every
//! load into its destination registers; a barrier separates rounds.
//! Afterwards the plan's broadcast copies run. Two kinds of shared-memory
//! instruction are executed (see [`crate::plan::Access`]):
//! * vector `st/ld.shared` of `v` elements: the thread's registers
//!   `registers[0..v]` go to / come from the `v` consecutive elements at
//!   `address(lane, warp)`;
//! * `stmatrix` / `ldmatrix` `.x1/.x2/.x4` and `.trans`
//!   ([`crate::tiling::MatrixInstruction`], PTX `.m8n8.shared.b16`): lane
//!   `8i + j` of the warp supplies the address of the 16-byte row `j` of
//!   matrix `i` (only lanes `< 8·count`); thread `t`'s 32-bit operand `i`
//!   (its registers `registers[i·R .. i·R + R]`, `R = 32 / bitwidth`
//!   elements, low half first) is the word at bytes `4 (t mod 4) ..` of row
//!   `t / 4` of matrix `i`, or with `.trans` (16-bit only) its half `e` is
//!   the element in column `t / 4` of row `2 (t mod 4) + e`. Matrix
//!   instructions need 32-lane warps and exist only in the 32-bank model.
//!
//! A shuffle plan runs its shuffles in order: every lane of a warp offers
//! its source register, each lane reads the offer of its source lane and
//! keeps it when its select holds.
//!
//! A warp program ([`ConversionPlan::WarpProgram`],
//! [`crate::shuffle::WarpProgram`]) runs on every warp of every CTA: each
//! lane's value slots hold *words*, lists of element tags (one tag for a
//! plain register, up to `32 / bitwidth` for a packed word), and the
//! instructions move them as [`execute_warp`] states (shuffles idx / xor
//! read all lanes before any lane writes; selects with lane predicates;
//! `Pack` / `Unpack` concatenate and split tags exactly, low part first).
//! A destination register left holding a packed word, or nothing, is a
//! [`CodegenError::WrongElement`] like any wrong element. Costs: one
//! shuffle per `shfl.sync`, one select per `selp`, one `prmt` per `Pack` /
//! `Unpack`, copies as register moves.
//!
//! ## What a successful run proves
//! 1. **Correctness, exhaustively**: after the plan, *every* destination
//!    register of every thread (broadcast replicas included) holds exactly
//!    the element the destination layout assigns to it. The first register
//!    that does not (in block, warp, lane, register order) is reported as
//!    [`CodegenError::WrongElement`].
//! 2. **Memory safety of the plan**: every access is in bounds, aligned to
//!    its own width (matrix rows: to 16 bytes), every load reads a slot
//!    stored in the same round ([`CodegenError::Uninitialised`]), and no two
//!    stores of one round put different elements in one slot
//!    ([`CodegenError::Race`]).
//! 3. **Cost**: instructions per thread (matrix instructions also counted
//!    apart), barriers, and for every warp-wide access its wavefronts. A
//!    *phase* is a set of lanes served together; it costs the largest
//!    number of distinct 4-byte words that any one bank holds among the
//!    bytes its lanes access (equal words are broadcast, so a phase costs at
//!    least 1). Conflicts are the wavefronts beyond one per phase.
//!    * 32 banks (NVIDIA's rule): a vector access of `w` bytes per lane is
//!      split into `max(1, 32 w / 128)` phases of consecutive lanes (32-bit:
//!      the whole warp; 64-bit: two half warps; 128-bit: four quarter
//!      warps). A matrix instruction has one phase per 8×16-byte matrix (its
//!      8 row addresses, 128 bytes), so a conflict-free `.x4` costs 4
//!      wavefronts. This model agreed with `ncu`'s shared-memory wavefront
//!      counters on an H200 for the GPU suite's `_mx` cases (tests
//!      `sim_matrix.rs`).
//!    * 64 banks (a *model* of AMD CDNA LDS, 64 banks × 4 bytes = 256 bytes
//!      per cycle; not measured on hardware): the lanes of an access are
//!      split into `max(1, lanes · w / 256)` phases of consecutive lanes,
//!      each moving at most 256 bytes (wave64 lanes: 32-bit one phase of 64
//!      lanes, 64-bit two phases of 32, 128-bit four phases of 16; a 32-lane
//!      warp: 32- and 64-bit one phase, 128-bit two phases of 16). CDNA's
//!      own lane grouping for `ds_read_b128` and its other special cases are
//!      not modelled.
//!
//! It proves nothing about timing, about hardware other than this model, or
//! about data exchange between CTAs (cross-CTA plans are refused before they
//! reach the simulator; shared-memory accesses stay inside their CTA).

mod staged;
mod transfers;
mod warp;

pub use staged::simulate_staged;
pub use warp::execute_warp;

use crate::bank_conflicts::hw_input_block;
use crate::error::{check_register, CodegenError, Result};
use crate::plan::ConversionPlan;
use crate::wavefront::phases_of;
pub use crate::wavefront::{access_wavefronts, matrix_wavefronts};
use linear_layout::{gf2, DimName, LinearLayout};
use serde::Serialize;
use std::collections::HashMap;
use transfers::transfers;
use warp::{bitwidth_bits, count_program};

/// Costs counted by the simulator.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SimulationReport {
    /// Threads simulated.
    pub threads: u64,
    /// Destination registers checked (replicas included).
    pub registers_checked: u64,
    /// Store instructions per thread.
    pub store_instructions: u64,
    /// Load instructions per thread.
    pub load_instructions: u64,
    /// Of `store_instructions`, the `stmatrix` ones.
    pub matrix_store_instructions: u64,
    /// Of `load_instructions`, the `ldmatrix` ones.
    pub matrix_load_instructions: u64,
    /// Register moves per thread (permutation and broadcast copies).
    pub register_moves: u64,
    /// CTA barriers (`bar.sync`).
    pub barriers: u64,
    /// Warp barriers (`bar.warp.sync`) of a warp-private plan
    /// ([`crate::warp_private`]), in place of its CTA barriers.
    pub warp_barriers: u64,
    /// Warp shuffles per thread.
    pub shuffles: u64,
    /// Selects per thread (keeping a shuffled value or not).
    pub selects: u64,
    /// `prmt` per thread: packing sub-32-bit elements into one word and
    /// unpacking them (one per `Pack` / `Unpack` of a warp program).
    pub prmt: u64,
    /// Wavefronts of all stores of all warps.
    pub store_wavefronts: u64,
    /// Wavefronts of all loads of all warps.
    pub load_wavefronts: u64,
    /// Extra wavefronts of all stores (total over warps and instructions).
    pub store_conflict_wavefronts: u64,
    /// Extra wavefronts of all loads.
    pub load_conflict_wavefronts: u64,
    /// Largest extra wavefronts of one store phase.
    pub max_store_conflicts: u64,
    /// Largest extra wavefronts of one load phase.
    pub max_load_conflicts: u64,
    /// Smallest extra wavefronts of one store phase (0 without stores).
    pub min_store_conflicts: u64,
    /// Smallest extra wavefronts of one load phase.
    pub min_load_conflicts: u64,
}

fn size(l: &LinearLayout, d: DimName) -> u64 {
    if l.has_in_dim(d) {
        l.in_dim_size(d)
    } else {
        1
    }
}

/// The shared-memory model of a simulation: the bank count (4-byte banks).
/// See the module doc for the wavefront rules of each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SimulatorConfig {
    /// 32 (NVIDIA, the default) or 64 (a model of AMD CDNA LDS).
    pub banks: u64,
}

impl Default for SimulatorConfig {
    fn default() -> Self {
        SimulatorConfig::NVIDIA
    }
}

impl SimulatorConfig {
    /// 32 banks of 4 bytes, NVIDIA's wavefront rules.
    pub const NVIDIA: SimulatorConfig = SimulatorConfig { banks: 32 };
    /// 64 banks of 4 bytes, phases of 256 bytes (a model of CDNA LDS).
    pub const AMD_LDS: SimulatorConfig = SimulatorConfig { banks: 64 };

    fn check(&self) -> Result<()> {
        match self.banks {
            32 | 64 => Ok(()),
            b => Err(CodegenError::Invalid(format!(
                "the simulator models 32 or 64 shared-memory banks, not {b}"
            ))),
        }
    }
}

/// [`access_wavefronts`] under `config` (module doc: 32 banks, phases of
/// `max(1, 32·bytes/128)`; 64 banks, phases of `max(1, lanes·bytes/256)`,
/// consecutive lanes). A bank count other than 32 or 64 is an error.
pub fn access_wavefronts_with(
    config: &SimulatorConfig,
    starts: &[u64],
    bytes: u64,
) -> Result<Vec<u64>> {
    config.check()?;
    Ok(phases_of(config.banks, starts, bytes))
}

/// The load wavefronts of the shared-memory plan `p` over `warps` warps of
/// `lanes` lanes per CTA and `blocks` CTAs, counted per instruction and
/// warp exactly as [`simulate_with`] counts them (its `load_wavefronts`
/// for a plan it proves), without moving elements or proving anything: a
/// search ranks many plans by it and proves only the ones it keeps.
/// Errors: what [`simulate_with`] reports of an access's addresses (out
/// of bounds, misaligned, a matrix access it does not model).
pub fn plan_load_wavefronts(
    config: &SimulatorConfig,
    p: &crate::plan::SharedMemoryPlan,
    lanes: u64,
    warps: u64,
    blocks: u64,
) -> Result<u64> {
    config.check()?;
    let mut total = 0;
    for (ri, round) in p.rounds.iter().enumerate() {
        for (k, a) in round.loads.iter().enumerate() {
            let what = format!("round {ri} load {k}");
            for w in 0..warps {
                let (_, wfs) = transfers(config, &what, a, lanes, w, p.bitwidth, p.scratch_elems)?;
                total += wfs.iter().sum::<u64>();
            }
        }
    }
    Ok(total * blocks)
}

/// Runs `plan` converting `src` to `dst` and checks every destination
/// register, with 32 banks (NVIDIA). See the module doc.
pub fn simulate(
    plan: &ConversionPlan,
    src: &LinearLayout,
    dst: &LinearLayout,
) -> Result<SimulationReport> {
    simulate_with(&SimulatorConfig::NVIDIA, plan, src, dst)
}

/// Sets the register entry of an input vector of
/// [`hw_input_block`] (in-dim order) to `r`; the other entries are kept.
fn set_register(layout: &LinearLayout, input: &mut [u64], r: u64) {
    if let Some(k) = layout.in_dim_names().position(|d| d == DimName::REGISTER) {
        input[k] = r;
    }
}

/// [`simulate`] with the shared-memory model `config` (32 or 64 banks).
pub fn simulate_with(
    config: &SimulatorConfig,
    plan: &ConversionPlan,
    src: &LinearLayout,
    dst: &LinearLayout,
) -> Result<SimulationReport> {
    config.check()?;
    let nlane = size(dst, DimName::LANE);
    let nwarp = size(dst, DimName::WARP);
    let nblock = size(dst, DimName::BLOCK);
    if size(src, DimName::BLOCK) != nblock {
        return Err(CodegenError::Invalid(format!(
            "source and destination use different CTA counts ({} vs {nblock})",
            size(src, DimName::BLOCK)
        )));
    }
    if size(src, DimName::LANE) != nlane || size(src, DimName::WARP) != nwarp {
        return Err(CodegenError::Invalid(format!(
            "source and destination use different thread counts ({}×{} vs {}×{})",
            size(src, DimName::WARP),
            size(src, DimName::LANE),
            nwarp,
            nlane
        )));
    }
    let nsrc = size(src, DimName::REGISTER);
    let ndst = size(dst, DimName::REGISTER);
    let per_cta = (nwarp * nlane) as usize;
    let threads = nblock as usize * per_cta;
    // Thread index of (block, warp, lane); `w` below is a CTA-wide warp
    // index `block * nwarp + warp`.
    let tid = |w: u64, l: u64| (w * nlane + l) as usize;
    let nwarp_local = nwarp;
    let nwarp = nwarp * nblock;
    let split = |w: u64| (w / nwarp_local, w % nwarp_local);
    // Source registers, tagged.
    let mut src_regs = vec![vec![0u64; nsrc as usize]; threads];
    for w in 0..nwarp {
        let (b, wl) = split(w);
        for l in 0..nlane {
            // One input vector per thread; only its register entry changes.
            let mut input = hw_input_block(src, 0, l, wl, b);
            for r in 0..nsrc {
                set_register(src, &mut input, r);
                src_regs[tid(w, l)][r as usize] = src.apply_values(&input);
            }
        }
    }
    let mut dst_regs: Vec<Vec<Option<u64>>> = vec![vec![None; ndst as usize]; threads];
    // Warp programs: destination registers left holding a packed word
    // (several element tags), reported as found.
    let mut packed: HashMap<(usize, usize), Vec<u64>> = HashMap::new();
    let mut rep = SimulationReport {
        threads: threads as u64,
        ..Default::default()
    };
    match plan {
        ConversionPlan::NoOp { registers } => {
            if *registers != ndst || nsrc != ndst {
                return Err(CodegenError::Invalid(format!(
                    "no-op plan for {registers} registers, layouts have {nsrc} and {ndst}"
                )));
            }
            for t in 0..threads {
                for r in 0..ndst as usize {
                    dst_regs[t][r] = Some(src_regs[t][r]);
                }
            }
        }
        ConversionPlan::RegisterPermutation { src_register } => {
            if src_register.len() as u64 != ndst {
                return Err(CodegenError::Invalid(format!(
                    "permutation lists {} registers, the destination has {ndst}",
                    src_register.len()
                )));
            }
            for (r, &s) in src_register.iter().enumerate() {
                check_register("register permutation", s, nsrc)?;
                for t in 0..threads {
                    dst_regs[t][r] = Some(src_regs[t][s as usize]);
                }
            }
            rep.register_moves = ndst;
        }
        ConversionPlan::WarpShuffle { shuffles } => {
            for (k, sh) in shuffles.iter().enumerate() {
                let what = format!("shuffle {k}");
                for w in 0..nwarp {
                    // All lanes send at once, then all lanes receive.
                    let mut sent = Vec::with_capacity(nlane as usize);
                    for l in 0..nlane {
                        let r = sh.src_register.eval(l, 0);
                        check_register(&what, r, nsrc)?;
                        sent.push(src_regs[tid(w, l)][r as usize]);
                    }
                    for l in 0..nlane {
                        if let Some((cols, want)) = &sh.select {
                            if gf2::xor_columns(cols, l) != *want {
                                continue;
                            }
                        }
                        let from = sh.src_lane.eval(l, 0);
                        if from >= nlane {
                            return Err(CodegenError::Invalid(format!(
                                "{what}: lane {l} reads lane {from}, the warp has {nlane}"
                            )));
                        }
                        let r = sh.dst_register.eval(l, 0);
                        check_register(&what, r, ndst)?;
                        dst_regs[tid(w, l)][r as usize] = Some(sent[from as usize]);
                    }
                }
                // Reading one's own lane needs no shuffle instruction.
                if sh.src_lane.is_identity_lane() {
                    rep.register_moves += 1;
                } else {
                    rep.shuffles += 1;
                }
                rep.selects += sh.selects();
            }
        }
        ConversionPlan::WarpProgram(prog) => {
            bitwidth_bits(prog.bitwidth)?;
            count_program(prog, nsrc, ndst, nlane, &mut rep)?;
            for w in 0..nwarp {
                let inputs: Vec<Vec<u64>> =
                    (0..nlane).map(|l| src_regs[tid(w, l)].clone()).collect();
                let out = execute_warp(prog, &inputs)?;
                for (l, regs) in out.into_iter().enumerate() {
                    for (r, word) in regs.into_iter().enumerate() {
                        match word.as_deref() {
                            Some([tag]) => dst_regs[tid(w, l as u64)][r] = Some(*tag),
                            Some(tags) => {
                                packed.insert((tid(w, l as u64), r), tags.to_vec());
                            }
                            None => {}
                        }
                    }
                }
            }
        }
        ConversionPlan::SharedMemory(p) => {
            // One scratch buffer per CTA; each slot remembers the element,
            // the round and the warp (of its CTA) that wrote it. A
            // warp-private plan synchronises each warp alone
            // ([`crate::warp_private`]): no warp may touch what another
            // wrote, in any round.
            let private = |round: usize, offset: u64, writer: u64, warp: u64| {
                if p.warp_private && writer != warp {
                    return Err(CodegenError::SharedAcrossWarps {
                        round,
                        offset,
                        writer,
                        warp,
                    });
                }
                Ok(())
            };
            let mut mems: Vec<Vec<Option<(u64, usize, u64)>>> =
                vec![vec![None; p.scratch_elems as usize]; nblock as usize];
            let mut store_min = u64::MAX;
            let mut load_min = u64::MAX;
            for (ri, round) in p.rounds.iter().enumerate() {
                for (k, a) in round.stores.iter().enumerate() {
                    let what = format!("round {ri} store {k}");
                    for &r in &a.registers {
                        check_register(&what, r, nsrc)?;
                    }
                    for w in 0..nwarp {
                        let (b, wl) = split(w);
                        let mem = &mut mems[b as usize];
                        let (moves, wfs) =
                            transfers(config, &what, a, nlane, wl, p.bitwidth, p.scratch_elems)?;
                        for (l, j, off) in moves {
                            let val = src_regs[tid(w, l)][a.registers[j] as usize];
                            let slot = &mut mem[off as usize];
                            // Rounds reuse the buffer behind warp barriers
                            // too: a slot another warp wrote in any round
                            // may still be read by it.
                            if let Some((_, _, writer)) = *slot {
                                private(ri, off, writer, wl)?;
                            }
                            match slot {
                                Some((old, rr, _)) if *rr == ri && *old != val => {
                                    return Err(CodegenError::Race {
                                        offset: off,
                                        first: src.unpack(*old).to_vec(),
                                        second: src.unpack(val).to_vec(),
                                        round: ri,
                                    })
                                }
                                _ => *slot = Some((val, ri, wl)),
                            }
                        }
                        for wf in wfs {
                            rep.store_wavefronts += wf;
                            rep.store_conflict_wavefronts += wf - 1;
                            rep.max_store_conflicts = rep.max_store_conflicts.max(wf - 1);
                            store_min = store_min.min(wf - 1);
                        }
                    }
                }
                for (k, a) in round.loads.iter().enumerate() {
                    let what = format!("round {ri} load {k}");
                    for &r in &a.registers {
                        check_register(&what, r, ndst)?;
                    }
                    for w in 0..nwarp {
                        let (b, wl) = split(w);
                        let mem = &mems[b as usize];
                        let (moves, wfs) =
                            transfers(config, &what, a, nlane, wl, p.bitwidth, p.scratch_elems)?;
                        for (l, j, off) in moves {
                            match mem[off as usize] {
                                Some((val, rr, writer)) if rr == ri => {
                                    private(ri, off, writer, wl)?;
                                    dst_regs[tid(w, l)][a.registers[j] as usize] = Some(val)
                                }
                                _ => {
                                    return Err(CodegenError::Uninitialised {
                                        round: ri,
                                        offset: off,
                                    })
                                }
                            }
                        }
                        for wf in wfs {
                            rep.load_wavefronts += wf;
                            rep.load_conflict_wavefronts += wf - 1;
                            rep.max_load_conflicts = rep.max_load_conflicts.max(wf - 1);
                            load_min = load_min.min(wf - 1);
                        }
                    }
                }
                rep.store_instructions += round.stores.len() as u64;
                rep.load_instructions += round.loads.len() as u64;
                rep.matrix_store_instructions +=
                    round.stores.iter().filter(|a| a.matrix.is_some()).count() as u64;
                rep.matrix_load_instructions +=
                    round.loads.iter().filter(|a| a.matrix.is_some()).count() as u64;
            }
            for &(to, from) in &p.copies {
                check_register("broadcast copy", to, ndst)?;
                check_register("broadcast copy", from, ndst)?;
                for regs in dst_regs.iter_mut() {
                    regs[to as usize] = regs[from as usize];
                }
            }
            rep.register_moves = p.copies.len() as u64;
            if p.warp_private {
                rep.warp_barriers = p.barriers;
            } else {
                rep.barriers = p.barriers;
            }
            rep.min_store_conflicts = if store_min == u64::MAX { 0 } else { store_min };
            rep.min_load_conflicts = if load_min == u64::MAX { 0 } else { load_min };
        }
    }
    // The proof: every destination register holds its element.
    for w in 0..nwarp {
        let (b, wl) = split(w);
        for l in 0..nlane {
            let mut input = hw_input_block(dst, 0, l, wl, b);
            for r in 0..ndst {
                set_register(dst, &mut input, r);
                let want = dst.apply_values(&input);
                let got = dst_regs[tid(w, l)][r as usize];
                if got != Some(want) {
                    let found = match packed.get(&(tid(w, l), r as usize)) {
                        Some(tags) => {
                            Some(tags.iter().flat_map(|&t| dst.unpack(t).to_vec()).collect())
                        }
                        None => got.map(|g| dst.unpack(g).to_vec()),
                    };
                    return Err(CodegenError::WrongElement {
                        block: b,
                        warp: wl,
                        lane: l,
                        register: r,
                        expected: dst.unpack(want).to_vec(),
                        found,
                    });
                }
                rep.registers_checked += 1;
            }
        }
    }
    Ok(rep)
}

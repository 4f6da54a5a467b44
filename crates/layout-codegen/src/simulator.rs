//! Executes a [`ConversionPlan`] on a modelled CTA and proves it.
//!
//! ## What is modelled
//! `blocks` CTAs of `warps × lanes` threads (sizes from the layouts), each
//! with its own shared memory. Every source
//! register holds a *tag*: the tensor coordinate the source layout places
//! there (packed, dim0 in the low bits), so data is never confused with
//! indices. Shared memory is an array of tagged slots, one per element of
//! the plan's scratch buffer, behind 32 banks of 4 bytes: byte address `a`
//! is in bank `(a / 4) mod 32`.
//!
//! A plan runs round by round. In each round every thread executes every
//! store (its vector of registers to `address(lane, warp)`), all threads
//! meet at a barrier, then every thread executes every load into its
//! destination registers; a barrier separates rounds. Afterwards the plan's
//! broadcast copies run. A shuffle plan runs its shuffles in order: every
//! lane of a warp offers its source register, each lane reads the offer of
//! its source lane and keeps it when its select holds.
//!
//! ## What a successful run proves
//! 1. **Correctness, exhaustively**: after the plan, *every* destination
//!    register of every thread (broadcast replicas included) holds exactly
//!    the element the destination layout assigns to it. The first register
//!    that does not (in block, warp, lane, register order) is reported as
//!    [`CodegenError::WrongElement`].
//! 2. **Memory safety of the plan**: every access is in bounds, aligned to
//!    its own width, every load reads a slot stored in the same round
//!    ([`CodegenError::Uninitialised`]), and no two stores of one round put
//!    different elements in one slot ([`CodegenError::Race`]).
//! 3. **Cost**: instructions per thread, barriers, and for every warp-wide
//!    access the wavefronts under NVIDIA's rules: a `w`-byte-per-lane access
//!    is split into `max(1, 32 w / 128)` phases of consecutive lanes; a phase
//!    costs the largest number of distinct 4-byte words that any one bank
//!    serves (equal words are broadcast). Conflicts are the wavefronts beyond
//!    one per phase.
//!
//! It proves nothing about timing, about hardware other than this model, or
//! about data exchange between CTAs (cross-CTA plans are refused before they
//! reach the simulator; shared-memory accesses stay inside their CTA).

use crate::bank_conflicts::hw_input_block;
use crate::error::{CodegenError, Result};
use crate::plan::{Access, ConversionPlan};
use linear_layout::{DimName, LinearLayout};
use serde::Serialize;
use std::collections::HashMap;

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
    /// Register moves per thread (permutation and broadcast copies).
    pub register_moves: u64,
    /// Barriers.
    pub barriers: u64,
    /// Warp shuffles per thread.
    pub shuffles: u64,
    /// Selects per thread (keeping a shuffled value or not).
    pub selects: u64,
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

/// Wavefronts of one warp-wide access: `starts[l]` is lane `l`'s byte
/// address, each lane moves `bytes` bytes. Returns per-phase wavefronts.
pub fn access_wavefronts(starts: &[u64], bytes: u64) -> Vec<u64> {
    let nlanes = starts.len() as u64;
    let phases = ((32 * bytes) / 128).clamp(1, nlanes.max(1));
    let per = (nlanes / phases).max(1) as usize;
    starts
        .chunks(per)
        .map(|lanes| {
            let mut banks: HashMap<u64, Vec<u64>> = HashMap::new();
            for &s in lanes {
                let mut w = s / 4;
                while w * 4 < s + bytes {
                    let e = banks.entry(w % 32).or_default();
                    if !e.contains(&w) {
                        e.push(w);
                    }
                    w += 1;
                }
            }
            banks.values().map(|v| v.len() as u64).max().unwrap_or(1)
        })
        .collect()
}

/// Runs `plan` converting `src` to `dst` and checks every destination
/// register. See the module doc.
pub fn simulate(
    plan: &ConversionPlan,
    src: &LinearLayout,
    dst: &LinearLayout,
) -> Result<SimulationReport> {
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
            for r in 0..nsrc {
                src_regs[tid(w, l)][r as usize] =
                    src.apply_values(&hw_input_block(src, r, l, wl, b));
            }
        }
    }
    let mut dst_regs: Vec<Vec<Option<u64>>> = vec![vec![None; ndst as usize]; threads];
    let mut rep = SimulationReport {
        threads: threads as u64,
        ..Default::default()
    };
    let bad_reg = |what: &str, r: u64, n: u64| {
        if r >= n {
            Err(CodegenError::BadRegister {
                what: what.into(),
                register: r,
                count: n,
            })
        } else {
            Ok(())
        }
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
                bad_reg("register permutation", s, nsrc)?;
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
                        bad_reg(&what, r, nsrc)?;
                        sent.push(src_regs[tid(w, l)][r as usize]);
                    }
                    for l in 0..nlane {
                        if let Some((cols, want)) = &sh.select {
                            let got = cols
                                .iter()
                                .enumerate()
                                .filter(|(i, _)| l >> i & 1 == 1)
                                .fold(0, |acc, (_, c)| acc ^ c);
                            if got != *want {
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
                        bad_reg(&what, r, ndst)?;
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
        ConversionPlan::SharedMemory(p) => {
            let bytes = (p.bitwidth as u64).max(8) / 8;
            // One scratch buffer per CTA.
            let mut mems: Vec<Vec<Option<(u64, usize)>>> =
                vec![vec![None; p.scratch_elems as usize]; nblock as usize];
            let check_access = |what: &str, a: &Access, off: u64| -> Result<()> {
                let v = a.registers.len() as u64;
                if off + v > p.scratch_elems {
                    return Err(CodegenError::OutOfBounds {
                        what: what.into(),
                        offset: off,
                        size: p.scratch_elems,
                    });
                }
                if !v.is_power_of_two() || off & (v - 1) != 0 {
                    return Err(CodegenError::Misaligned {
                        what: what.into(),
                        byte_address: off * bytes,
                        bytes: v * bytes,
                    });
                }
                Ok(())
            };
            let mut store_min = u64::MAX;
            let mut load_min = u64::MAX;
            for (ri, round) in p.rounds.iter().enumerate() {
                for (k, a) in round.stores.iter().enumerate() {
                    let what = format!("round {ri} store {k}");
                    for &r in &a.registers {
                        bad_reg(&what, r, nsrc)?;
                    }
                    for w in 0..nwarp {
                        let (b, wl) = split(w);
                        let mem = &mut mems[b as usize];
                        let mut starts = Vec::with_capacity(nlane as usize);
                        for l in 0..nlane {
                            let off = a.address.eval(l, wl);
                            check_access(&what, a, off)?;
                            starts.push(off * bytes);
                            for (j, &r) in a.registers.iter().enumerate() {
                                let val = src_regs[tid(w, l)][r as usize];
                                let slot = &mut mem[(off + j as u64) as usize];
                                match slot {
                                    Some((old, rr)) if *rr == ri && *old != val => {
                                        return Err(CodegenError::Race {
                                            offset: off + j as u64,
                                            first: src.unpack(*old).to_vec(),
                                            second: src.unpack(val).to_vec(),
                                            round: ri,
                                        })
                                    }
                                    _ => *slot = Some((val, ri)),
                                }
                            }
                        }
                        for wf in access_wavefronts(&starts, a.registers.len() as u64 * bytes) {
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
                        bad_reg(&what, r, ndst)?;
                    }
                    for w in 0..nwarp {
                        let (b, wl) = split(w);
                        let mem = &mems[b as usize];
                        let mut starts = Vec::with_capacity(nlane as usize);
                        for l in 0..nlane {
                            let off = a.address.eval(l, wl);
                            check_access(&what, a, off)?;
                            starts.push(off * bytes);
                            for (j, &r) in a.registers.iter().enumerate() {
                                let o = off + j as u64;
                                match mem[o as usize] {
                                    Some((val, rr)) if rr == ri => {
                                        dst_regs[tid(w, l)][r as usize] = Some(val)
                                    }
                                    _ => {
                                        return Err(CodegenError::Uninitialised {
                                            round: ri,
                                            offset: o,
                                        })
                                    }
                                }
                            }
                        }
                        for wf in access_wavefronts(&starts, a.registers.len() as u64 * bytes) {
                            rep.load_wavefronts += wf;
                            rep.load_conflict_wavefronts += wf - 1;
                            rep.max_load_conflicts = rep.max_load_conflicts.max(wf - 1);
                            load_min = load_min.min(wf - 1);
                        }
                    }
                }
                rep.store_instructions += round.stores.len() as u64;
                rep.load_instructions += round.loads.len() as u64;
            }
            for &(to, from) in &p.copies {
                bad_reg("broadcast copy", to, ndst)?;
                bad_reg("broadcast copy", from, ndst)?;
                for regs in dst_regs.iter_mut() {
                    regs[to as usize] = regs[from as usize];
                }
            }
            rep.register_moves = p.copies.len() as u64;
            rep.barriers = p.barriers;
            rep.min_store_conflicts = if store_min == u64::MAX { 0 } else { store_min };
            rep.min_load_conflicts = if load_min == u64::MAX { 0 } else { load_min };
        }
    }
    // The proof: every destination register holds its element.
    for w in 0..nwarp {
        let (b, wl) = split(w);
        for l in 0..nlane {
            for r in 0..ndst {
                let want = dst.apply_values(&hw_input_block(dst, r, l, wl, b));
                let got = dst_regs[tid(w, l)][r as usize];
                if got != Some(want) {
                    return Err(CodegenError::WrongElement {
                        block: b,
                        warp: wl,
                        lane: l,
                        register: r,
                        expected: dst.unpack(want).to_vec(),
                        found: got.map(|g| dst.unpack(g).to_vec()),
                    });
                }
                rep.registers_checked += 1;
            }
        }
    }
    Ok(rep)
}

//! The CTA executor that proves a partial plan ([`simulate_partial`]): stores
//! and staying moves, the barrier, then loads, on tagged values for every
//! thread.

use super::{Hw, PartialCrossWarpPlan, WarpClass};
use crate::error::{check_register, CodegenError, Result};
use linear_layout::LinearLayout;
use serde::Serialize;

/// What [`simulate_partial`] checked.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PartialReport {
    /// Destination registers checked (every register of every thread).
    pub registers_checked: u64,
    /// Shared-memory slots loaded (each checked to be stored first).
    pub slots_loaded: u64,
    /// Elements delivered in-warp (moves and shuffles).
    pub delivered_in_warp: u64,
}

/// Executes `plan` on a modelled CTA and proves it: every source register of
/// every thread holds its tag (the packed tensor coordinate `src` puts
/// there); each warp runs its class's stores and staying moves/shuffles (a
/// shuffle reads the *source* register of the source lane in the same warp,
/// the one that lane sends, and only the keeping lanes write it), then,
/// after the barrier, its loads; a predicated access runs in its lanes only. Fails on an unwritten slot
/// ([`CodegenError::Uninitialised`]), two different elements stored to one
/// slot ([`CodegenError::Race`]), an out-of-range access or register, a
/// warp without a class, or a destination register not holding the element
/// `dst` assigns to it ([`CodegenError::WrongElement`]).
pub fn simulate_partial(
    plan: &PartialCrossWarpPlan,
    src: &LinearLayout,
    dst: &LinearLayout,
) -> Result<PartialReport> {
    let (s, d) = (Hw::new(src, "source")?, Hw::new(dst, "destination")?);
    let (nl, nw) = (plan.num_lanes, plan.num_warps);
    if (1u64 << s.nl, 1u64 << s.nw) != (nl, nw) || (1u64 << s.nr) != plan.src_registers {
        return Err(CodegenError::Invalid(
            "plan and layouts differ in sizes".into(),
        ));
    }
    let unpack = |v: u64| src.unpack(v).to_vec();
    // The layouts' function tables (built by doubling): entry `flat(r, l,
    // w)` is the packed coordinate `coord(r, l, w)`.
    let (src_table, dst_table) = (s.layout.table()?, d.layout.table()?);
    let tag = |r, l, w| src_table[s.flat(r, l, w) as usize];
    let mut smem: Vec<Option<u64>> = vec![None; plan.scratch_elems as usize];
    let mut out: Vec<Option<u64>> = vec![None; d.count() as usize];
    let mut report = PartialReport::default();
    let classes: Vec<&WarpClass> = (0..nw)
        .map(|w| {
            plan.class_of(w)
                .map(|k| &plan.classes[k])
                .ok_or_else(|| CodegenError::Invalid(format!("warp {w} belongs to no warp class")))
        })
        .collect::<Result<_>>()?;
    // Phase 1: stores and staying moves.
    for w in 0..nw {
        let k = classes[w as usize];
        for l in 0..nl {
            for (i, a) in k.stores.iter().enumerate() {
                if !k.stores_in(i, l) {
                    continue;
                }
                let base = a.address.eval(l, w);
                check_aligned(base, a.registers.len() as u64, plan.bitwidth)?;
                for (j, &r) in a.registers.iter().enumerate() {
                    check_register("store", r, plan.src_registers)?;
                    let o = base + j as u64;
                    let slot =
                        smem.get_mut(o as usize)
                            .ok_or_else(|| CodegenError::OutOfBounds {
                                what: "store".into(),
                                offset: o,
                                size: plan.scratch_elems,
                            })?;
                    let v = tag(r, l, w);
                    match *slot {
                        Some(prev) if prev != v => {
                            return Err(CodegenError::Race {
                                offset: o,
                                first: unpack(prev),
                                second: unpack(v),
                                round: 0,
                            })
                        }
                        _ => *slot = Some(v),
                    }
                }
            }
            for m in &k.staying {
                check_register("staying move", m.written_by(l), plan.dst_registers)?;
                let from = m.src_lane.eval(l, w);
                if from >= nl {
                    return Err(CodegenError::Invalid(format!(
                        "shuffle source lane {from} out of range"
                    )));
                }
                // Every lane sends (a shuffle is warp-wide); only the
                // keeping lanes write what they receive. Under a lane
                // permutation the sender's register `x` holds its source
                // register `x ⊕ H(from)`, and what lane `l` writes to `y`
                // ends in `y ⊕ F(l)`; both registers must be in the
                // permuted sets.
                let (sent, written) = match &k.lane_xor {
                    None => (m.sent_by(from), m.written_by(l)),
                    Some(x) => {
                        let (s, y) = (m.sent_by(from), m.written_by(l));
                        if x.sent.binary_search(&s).is_err()
                            || x.received.binary_search(&y).is_err()
                        {
                            return Err(CodegenError::Invalid(format!(
                                "staying move {s} -> {y} outside its class's lane permutation"
                            )));
                        }
                        (x.source_of(s, from), x.destination_of(y, l))
                    }
                };
                check_register("staying move", sent, plan.src_registers)?;
                check_register("staying move", written, plan.dst_registers)?;
                if m.keeps(l) {
                    out[d.flat(written, l, w) as usize] = Some(tag(sent, from, w));
                    report.delivered_in_warp += 1;
                }
            }
        }
    }
    // Barrier; phase 2: loads.
    for w in 0..nw {
        let k = classes[w as usize];
        for l in 0..nl {
            for (i, a) in k.loads.iter().enumerate() {
                if !k.loads_in(i, l) {
                    continue;
                }
                let base = a.address.eval(l, w);
                check_aligned(base, a.registers.len() as u64, plan.bitwidth)?;
                for (j, &r) in a.registers.iter().enumerate() {
                    check_register("load", r, plan.dst_registers)?;
                    let o = base + j as u64;
                    let v = smem
                        .get(o as usize)
                        .ok_or_else(|| CodegenError::OutOfBounds {
                            what: "load".into(),
                            offset: o,
                            size: plan.scratch_elems,
                        })?
                        .ok_or(CodegenError::Uninitialised {
                            round: 0,
                            offset: o,
                        })?;
                    out[d.flat(r, l, w) as usize] = Some(v);
                    report.slots_loaded += 1;
                }
            }
        }
    }
    for f in 0..d.count() {
        let (r, l, w) = d.split(f);
        let want = dst_table[f as usize];
        if out[f as usize] != Some(want) {
            return Err(CodegenError::WrongElement {
                block: 0,
                warp: w,
                lane: l,
                register: r,
                expected: unpack(want),
                found: out[f as usize].map(unpack),
            });
        }
        report.registers_checked += 1;
    }
    Ok(report)
}

fn check_aligned(base: u64, len: u64, bits: u32) -> Result<()> {
    if !base.is_multiple_of(len.max(1)) {
        return Err(CodegenError::Misaligned {
            what: "partial-plan vector access".into(),
            byte_address: base * bits as u64 / 8,
            bytes: len * bits as u64 / 8,
        });
    }
    Ok(())
}

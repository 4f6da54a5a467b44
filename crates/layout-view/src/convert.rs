//! The picture of a layout conversion: source tensor view, the plan's
//! shared-memory buffer, destination tensor view, stacked top to bottom,
//! with one element's path highlighted in all three (`picture`).
//!
//! The path of element `e` is read from the plan
//! ([`layout_codegen::plan::ConversionPlan`]) and the layouts:
//!
//! - shared-memory plans: the first store (round, instruction, warp, lane,
//!   vector slot `j`, in that order) whose source register holds `e`
//!   (`src(register, lane, warp, block) = e`) writes it at element offset
//!   `address(lane, warp) + j` of that round's buffer (byte
//!   `offset · bits / 8`, bank `(byte / 4) mod 32`); the first load of the
//!   same round reading that offset gives the destination thread and
//!   register, checked with `dst(register, lane, warp, block) = e`. The
//!   offset where the plan's shared layout puts `e` is reported beside it
//!   ([`SharedStep::layout_offset`]; the same offset for one-round plans).
//! - register permutations: destination register `r` of a thread takes
//!   source register `src_register[r]` of the same thread;
//! - warp shuffles: the last shuffle that writes the destination register
//!   (its select holding) names the source lane and register;
//! - no-ops: the element stays where it is.
//!
//! The destination side starts from the first holder of `e` in `dst`
//! (lowest block, warp, lane, register) for the register and shuffle plans.

mod picture;
pub use picture::{conversion_picture, conversion_picture_window, PATH_STROKE};

use crate::svg::shape_text;
use crate::table::{DistributedTable, Location};
use crate::{apply_named, check_shape, linearize, Result, ViewError};
use layout_codegen::plan::{Address, ConversionPlan, SharedMemoryPlan};
use linear_layout::{gf2, DimName, LinearLayout};

/// Where the element sits in the plan's shared-memory buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedStep {
    /// Round of the plan.
    pub round: usize,
    /// Index of the store instruction within the round.
    pub store: usize,
    /// Index of the load instruction within the round.
    pub load: usize,
    /// Element offset within the round's buffer.
    pub offset: u64,
    /// Byte address (`offset · bits / 8`).
    pub byte: u64,
    /// Bank (`(byte / 4) mod 32`).
    pub bank: u64,
    /// The first offset where the plan's shared layout
    /// (`SharedMemoryPlan::shared_layout`, offset → tensor) puts the element
    /// (single-CTA plans; `None` for several CTAs, whose shared layout is in
    /// CTA-local coordinates). Equal to `offset` for one-round plans whose
    /// buffer is the shared layout itself; with several rounds the buffer is
    /// one round's slice of it.
    pub layout_offset: Option<u64>,
}

/// The path of one element through a conversion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConversionPath {
    /// Logical coordinates of the element.
    pub element: Vec<u64>,
    /// The source thread and register that give it.
    pub src: Location,
    /// The shared-memory step (shared-memory plans only).
    pub shared: Option<SharedStep>,
    /// The destination thread and register that receive it.
    pub dst: Location,
    /// The plan's kind (`noop`, `register`, `shuffle`, `shared`).
    pub kind: &'static str,
    /// For shuffle plans: the index of the shuffle that delivers the
    /// element (`None` when it stays in its register).
    pub shuffle: Option<usize>,
}

fn size_or_one(ll: &LinearLayout, d: DimName) -> u64 {
    if ll.has_in_dim(d) {
        ll.in_dim_size(d)
    } else {
        1
    }
}

fn at(ll: &LinearLayout, shape: &[u64], l: Location) -> u64 {
    linearize(
        &apply_named(
            ll,
            &[
                (DimName::REGISTER, l.register),
                (DimName::LANE, l.lane),
                (DimName::WARP, l.warp),
                (DimName::BLOCK, l.block),
            ],
        ),
        shape,
    )
}

fn eval(a: &Address, lane: u64, warp: u64) -> u64 {
    a.eval(lane, warp)
}

/// The path of `element` (coordinates in `shape`) through `plan`, the plan
/// of the conversion `src → dst` for `bits`-bit elements (see the module
/// docs).
pub fn conversion_path(
    src: &LinearLayout,
    dst: &LinearLayout,
    plan: &ConversionPlan,
    shape: &[u64],
    element: &[u64],
) -> Result<ConversionPath> {
    check_shape(src, shape)?;
    check_shape(dst, shape)?;
    if element.len() != shape.len() || element.iter().zip(shape).any(|(&x, &n)| x >= n) {
        return Err(ViewError::BadParameter(format!(
            "element {element:?} is outside the {} tensor",
            shape_text(shape)
        )));
    }
    let e = linearize(element, shape);
    let ts = DistributedTable::new(src, shape)?;
    let td = DistributedTable::new(dst, shape)?;
    let first_dst = td.holders[e as usize]
        .first()
        .map(|&s| td.location(s as u64))
        .ok_or_else(|| {
            ViewError::BadParameter(format!(
                "element {element:?} is held by no thread of the destination layout"
            ))
        })?;
    let missing = |what: &str| {
        ViewError::BadParameter(format!(
            "the {} plan does not deliver element {element:?} ({what})",
            plan.kind_name()
        ))
    };
    let path = |s: Location, shared: Option<SharedStep>, d: Location| ConversionPath {
        element: element.to_vec(),
        src: s,
        shared,
        dst: d,
        kind: plan.kind_name(),
        shuffle: None,
    };
    match plan {
        ConversionPlan::NoOp { .. } => {
            if at(src, shape, first_dst) != e {
                return Err(missing("the source register differs"));
            }
            Ok(path(first_dst, None, first_dst))
        }
        ConversionPlan::RegisterPermutation { src_register } => {
            let r = *src_register
                .get(first_dst.register as usize)
                .ok_or_else(|| missing("no source register"))?;
            let s = Location {
                register: r,
                ..first_dst
            };
            if at(src, shape, s) != e {
                return Err(missing("the source register holds another element"));
            }
            Ok(path(s, None, first_dst))
        }
        ConversionPlan::WarpShuffle { shuffles } => {
            let (l, w, r) = (first_dst.lane, first_dst.warp, first_dst.register);
            let writer = shuffles.iter().enumerate().rev().find(|(_, sh)| {
                eval(&sh.dst_register, l, 0) == r
                    && sh
                        .select
                        .as_ref()
                        .is_none_or(|(cols, want)| gf2::xor_columns(cols, l) == *want)
            });
            let s = match writer {
                Some((_, sh)) => {
                    let from = eval(&sh.src_lane, l, 0);
                    Location {
                        lane: from,
                        register: eval(&sh.src_register, from, 0),
                        warp: w,
                        block: first_dst.block,
                    }
                }
                None => first_dst,
            };
            if at(src, shape, s) != e {
                return Err(missing("the shuffled register holds another element"));
            }
            Ok(ConversionPath {
                shuffle: writer.map(|w| w.0),
                ..path(s, None, first_dst)
            })
        }
        ConversionPlan::WarpProgram(prog) => {
            let (l, r) = (first_dst.lane as u32, first_dst.register as usize);
            let how = prog
                .trace(r, l)
                .ok_or_else(|| missing("the program cannot be traced"))?;
            let s = Location {
                lane: how.src_lane as u64,
                register: how.src_register,
                ..first_dst
            };
            if at(src, shape, s) != e {
                return Err(missing("the traced register holds another element"));
            }
            Ok(ConversionPath {
                shuffle: how.shuffle,
                ..path(s, None, first_dst)
            })
        }
        ConversionPlan::SharedMemory(p) => shared_path(src, dst, p, shape, e, &ts, element)
            .ok_or_else(|| missing("no store/load pair moves it"))?
            .map(|(s, step, d)| path(s, Some(step), d)),
    }
}

type SharedHit = (Location, SharedStep, Location);

fn shared_path(
    src: &LinearLayout,
    dst: &LinearLayout,
    p: &SharedMemoryPlan,
    shape: &[u64],
    e: u64,
    ts: &DistributedTable,
    element: &[u64],
) -> Option<Result<SharedHit>> {
    let nwarp = size_or_one(src, DimName::WARP);
    let nlane = size_or_one(src, DimName::LANE);
    let dwarp = size_or_one(dst, DimName::WARP);
    let dlane = size_or_one(dst, DimName::LANE);
    let bytes = p.bitwidth as u64 / 8;
    for b in 0..ts.blocks {
        for (ri, round) in p.rounds.iter().enumerate() {
            for (si, st) in round.stores.iter().enumerate() {
                for w in 0..nwarp {
                    for l in 0..nlane {
                        for (j, &reg) in st.registers.iter().enumerate() {
                            let s = Location {
                                block: b,
                                warp: w,
                                lane: l,
                                register: reg,
                            };
                            if at(src, shape, s) != e {
                                continue;
                            }
                            let offset = eval(&st.address, l, w) + j as u64;
                            let load = find_load(round, offset, b, dwarp, dlane);
                            let Some((li, d)) = load else {
                                return Some(Err(ViewError::BadParameter(format!(
                                    "the plan stores element {element:?} at offset {offset} of round {ri} but no load reads it"
                                ))));
                            };
                            if at(dst, shape, d) != e {
                                return Some(Err(ViewError::BadParameter(format!(
                                    "the plan loads offset {offset} of round {ri} into a register that should hold another element"
                                ))));
                            }
                            let layout_offset = if ts.blocks == 1 {
                                let n = size_or_one(&p.shared_layout, DimName::OFFSET);
                                (0..n).find(|&o| {
                                    apply_named(
                                        &p.shared_layout,
                                        &[(DimName::OFFSET, o), (DimName::BLOCK, 0)],
                                    ) == element
                                })
                            } else {
                                None
                            };
                            let byte = offset * bytes;
                            let step = SharedStep {
                                round: ri,
                                store: si,
                                load: li,
                                offset,
                                byte,
                                bank: (byte / 4) % 32,
                                layout_offset,
                            };
                            return Some(Ok((s, step, d)));
                        }
                    }
                }
            }
        }
    }
    None
}

fn find_load(
    round: &layout_codegen::plan::Round,
    offset: u64,
    b: u64,
    nwarp: u64,
    nlane: u64,
) -> Option<(usize, Location)> {
    for (li, ld) in round.loads.iter().enumerate() {
        for w in 0..nwarp {
            for l in 0..nlane {
                let base = eval(&ld.address, l, w);
                if offset >= base && offset < base + ld.registers.len() as u64 {
                    return Some((
                        li,
                        Location {
                            block: b,
                            warp: w,
                            lane: l,
                            register: ld.registers[(offset - base) as usize],
                        },
                    ));
                }
            }
        }
    }
    None
}

/// The contents of each round's buffer in CTA `b`, by executing the plan's
/// stores: `buf[round][offset] = Some((element, store location))`.
pub(crate) type Buffer = Vec<Vec<Option<(u64, Location)>>>;

pub(crate) fn execute_stores(
    src: &LinearLayout,
    p: &SharedMemoryPlan,
    shape: &[u64],
    b: u64,
) -> Result<Buffer> {
    let nwarp = size_or_one(src, DimName::WARP);
    let nlane = size_or_one(src, DimName::LANE);
    let mut buf = vec![vec![None; p.scratch_elems as usize]; p.rounds.len()];
    for (ri, round) in p.rounds.iter().enumerate() {
        for st in &round.stores {
            for w in 0..nwarp {
                for l in 0..nlane {
                    for (j, &reg) in st.registers.iter().enumerate() {
                        let o = eval(&st.address, l, w) + j as u64;
                        let s = Location {
                            block: b,
                            warp: w,
                            lane: l,
                            register: reg,
                        };
                        let slot = buf[ri].get_mut(o as usize).ok_or_else(|| {
                            ViewError::BadParameter(format!(
                                "the plan stores at offset {o}, outside its {}-element buffer",
                                p.scratch_elems
                            ))
                        })?;
                        if slot.is_none() {
                            *slot = Some((at(src, shape, s), s));
                        }
                    }
                }
            }
        }
    }
    Ok(buf)
}

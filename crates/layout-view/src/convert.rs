//! The picture of a layout conversion: source tensor view, the plan's
//! shared-memory buffer, destination tensor view, side by side, with one
//! element's path highlighted in all three.
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

use crate::svg::{
    coords, fill, grid, layout_desc, shape_text, tensor_cell_size, tensor_grid, tick_step, ticks,
    Doc, Panel, Picture,
};
use crate::table::{DistributedTable, Location};
use crate::text::Window;
use crate::{apply_named, check_shape, linearize, Result, ViewError};
use layout_codegen::plan::{Address, ConversionPlan, SharedMemoryPlan};
use linear_layout::{DimName, LinearLayout};
use std::fmt::Write;

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

fn parity(columns: &[u64], lane: u64) -> u64 {
    columns
        .iter()
        .enumerate()
        .filter(|(i, _)| lane >> i & 1 == 1)
        .fold(0, |acc, (_, &c)| acc ^ c)
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
                        .is_none_or(|(cols, want)| parity(cols, l) == *want)
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
type Buffer = Vec<Vec<Option<(u64, Location)>>>;

fn execute_stores(
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

fn loc_text(t: &DistributedTable, l: Location) -> String {
    let b = if t.blocks > 1 {
        format!("block {} ", l.block)
    } else {
        String::new()
    };
    format!(
        "{b}warp {} lane {} register {} (T{}:{})",
        l.warp,
        l.lane,
        l.register,
        t.thread_id(l),
        l.register
    )
}

/// Colour of the path marks.
pub const PATH_STROKE: &str = "#d7191c";

/// A highlight of cell `(r, c)` of `p`: a thick red frame (class `path`),
/// plus a ring when cells are small. Returns the cell centre.
fn mark(doc: &mut Doc, p: &Panel, r: u64, c: u64) -> (u64, u64) {
    let (x, y) = (p.x + c * p.cw, p.y + r * p.ch);
    let _ = writeln!(
        doc.body,
        "<rect class=\"path\" x=\"{x}\" y=\"{y}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"{PATH_STROKE}\" stroke-width=\"3\"/>",
        p.cw, p.ch
    );
    let (cx, cy) = (x + p.cw / 2, y + p.ch / 2);
    if p.cw < 12 || p.ch < 12 {
        let _ = writeln!(
            doc.body,
            "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"10\" fill=\"none\" stroke=\"{PATH_STROKE}\" stroke-width=\"2\"/>"
        );
    }
    (cx, cy)
}

/// The conversion picture of `src → dst` under `plan` (`bits`-bit
/// elements, the plan's bit width for shared plans), with `element`'s path
/// highlighted (see the module docs). Returns the picture and the path.
pub fn conversion_picture(
    src: &LinearLayout,
    dst: &LinearLayout,
    plan: &ConversionPlan,
    shape: &[u64],
    element: &[u64],
) -> Result<(Picture, ConversionPath)> {
    conversion_picture_window(src, dst, plan, shape, element, &Window::default())
}

/// [`conversion_picture`] with the two tensor panels zoomed on a window of
/// the last two dims (the buffer panel stays whole); `element` must lie in
/// the window.
pub fn conversion_picture_window(
    src: &LinearLayout,
    dst: &LinearLayout,
    plan: &ConversionPlan,
    shape: &[u64],
    element: &[u64],
    window: &Window,
) -> Result<(Picture, ConversionPath)> {
    let path = conversion_path(src, dst, plan, shape, element)?;
    let (sub, origin) = window.resolve(shape)?;
    if element
        .iter()
        .zip(sub.iter().zip(&origin))
        .any(|(&x, (&n, &o))| x < o || x >= o + n)
    {
        return Err(ViewError::BadWindow(format!(
            "element {element:?} is outside the window (rows/cols) of the picture"
        )));
    }
    // Linear index in the full tensor of cell `i` of the window.
    let full = |i: u64| -> u64 {
        crate::delinearize(i, &sub)
            .iter()
            .zip(&origin)
            .zip(shape)
            .fold(0, |acc, ((&x, &o), &n)| acc * n + x + o)
    };
    let ts = DistributedTable::new(src, shape)?;
    let td = DistributedTable::new(dst, shape)?;
    crate::svg::picture_size_ok(src)?;
    crate::svg::picture_size_ok(dst)?;
    let e = linearize(element, shape);
    let (rows, cols) = crate::svg::grid_shape(&sub);
    let (cell, font, labels) = tensor_cell_size(rows.max(cols));
    // The element's cell in the window.
    let local: Vec<u64> = element.iter().zip(&origin).map(|(x, o)| x - o).collect();
    let we = linearize(&local, &sub);
    let margin = 40;
    let top = 70;
    let mut doc = Doc::new();
    let zoom = if *window == Window::default() {
        String::new()
    } else {
        let r: Vec<String> = (0..shape.len())
            .map(|d| format!("{}..{}", origin[d], origin[d] + sub[d]))
            .collect();
        format!(", tensor panels zoomed on [{}]", r.join(", "))
    };
    let title = format!(
        "Conversion of a {} tensor ({} plan), path of element {}{zoom}",
        shape_text(shape),
        plan.kind_name(),
        coords(e, shape)
    );
    doc.text(8, 18, 14, "start", &title);
    // Source panel.
    doc.text(margin, top - 30, 13, "start", "Source (colour: warp)");
    let ps = tensor_grid(
        &mut doc,
        &ts,
        shape,
        &full,
        &sub,
        &origin,
        (margin, top),
        (rows, cols),
        (cell, font, labels),
    );
    let tensor_w = cols * cell;
    let mut x = margin + tensor_w + 90;
    let mut panels = vec![ps.clone()];
    let mut bottom = top + rows * cell;
    // Middle panel.
    let mid_mark: Option<(Panel, u64, u64)> = match plan {
        ConversionPlan::SharedMemory(p) => {
            let bits = p.bitwidth as u64;
            let per_row = 1024 / bits;
            let lines = p.scratch_elems.div_ceil(per_row);
            let total_lines = lines * p.rounds.len() as u64;
            let blabels = total_lines <= 128 && p.scratch_elems <= 4096;
            let max_len = (0..shape.iter().product::<u64>())
                .map(|i| coords(i, shape).len() as u64)
                .max()
                .unwrap_or(1);
            let bank_units = (bits / 32).max(1);
            let (cw, ch, bfont) = if blabels {
                ((max_len * 4 + 4).max(16) * bank_units, 16, 7)
            } else {
                (4 * bank_units, (2048 / total_lines.max(1)).clamp(2, 8), 0)
            };
            let block = path.src.block;
            let buf = execute_stores(src, p, shape, block)?;
            let cta = if ts.blocks > 1 {
                format!(", CTA {block}")
            } else {
                String::new()
            };
            let heading = format!(
                "Shared memory: {} round(s) × {} bytes{cta} (colour: logical row)",
                p.rounds.len(),
                p.scratch_bytes
            );
            doc.text(x, top - 30, 13, "start", &heading);
            let bank_w = per_row * cw / 32;
            for k in 0..32 {
                if blabels || k % 4 == 0 {
                    doc.text(
                        x + k * bank_w + bank_w / 2,
                        top - 4,
                        8,
                        "middle",
                        &k.to_string(),
                    );
                }
            }
            let mut y = top;
            let mut marked = None;
            for (ri, content) in buf.iter().enumerate() {
                if p.rounds.len() > 1 {
                    doc.text(x, y + 10, 11, "start", &format!("Round {ri}"));
                    y += 14;
                }
                let slot =
                    |r: u64, c: u64| content.get((r * per_row + c) as usize).copied().flatten();
                let info = (0..lines * per_row)
                    .map(|i| {
                        let bank = (i * bits / 32) % 32;
                        match content.get(i as usize).copied().flatten() {
                            Some((el, s)) => format!(
                                "round {ri} offset {i} (byte {}, bank {bank}) ← {} stored by {}",
                                i * bits / 8,
                                coords(el, shape),
                                loc_text(&ts, s)
                            ),
                            None => format!("round {ri} offset {i} (bank {bank}): not written"),
                        }
                    })
                    .collect();
                let p2 = Panel {
                    x,
                    y,
                    cw,
                    ch,
                    rows: lines,
                    cols: per_row,
                    info,
                };
                let row_len = shape[shape.len() - 1];
                let color =
                    |r: u64, c: u64| slot(r, c).map_or("#ffffff", |(el, _)| fill(el / row_len));
                let label =
                    |r: u64, c: u64| slot(r, c).map_or(vec![], |(el, _)| vec![coords(el, shape)]);
                grid(&mut doc, &p2, blabels, bfont, &color, &label);
                for k in 0..=32 {
                    let bx = x + k * bank_w;
                    doc.line(bx, y, bx, y + lines * ch, if blabels { "1" } else { "0.3" });
                }
                ticks(&mut doc, &p2, None, tick_step(ch, 12), 8);
                if let Some(step) = &path.shared {
                    if step.round == ri {
                        marked = Some((p2.clone(), step.offset / per_row, step.offset % per_row));
                    }
                }
                y += lines * ch + 8;
                panels.push(p2);
            }
            bottom = bottom.max(y);
            // Monospace at 13 units: about 8 units per character.
            x += (per_row * cw).max(8 * heading.chars().count() as u64) + 90;
            marked
        }
        _ => {
            let what = match plan {
                ConversionPlan::NoOp { .. } => "no-op: every register already holds its element",
                ConversionPlan::RegisterPermutation { .. } => {
                    "register permutation: each thread moves its own registers"
                }
                _ => "warp shuffles: lanes exchange registers (shfl.sync)",
            };
            doc.text(x, top - 30, 13, "start", "No shared memory");
            doc.text(x, top + 12, 11, "start", what);
            x += 7 * what.len() as u64 + 40;
            None
        }
    };
    // Destination panel.
    doc.text(x, top - 30, 13, "start", "Destination (colour: warp)");
    let pd = tensor_grid(
        &mut doc,
        &td,
        shape,
        &full,
        &sub,
        &origin,
        (x, top),
        (rows, cols),
        (cell, font, labels),
    );
    let width = x + tensor_w + margin;
    // The path.
    let (er, ec) = (we / cols, we % cols);
    let a = mark(&mut doc, &ps, er, ec);
    let mid = mid_mark.map(|(p, r, c)| mark(&mut doc, &p, r, c));
    let d = mark(&mut doc, &pd, er, ec);
    let pts: Vec<String> = std::iter::once(a)
        .chain(mid)
        .chain(std::iter::once(d))
        .map(|(x, y)| format!("{x},{y}"))
        .collect();
    let _ = writeln!(
        doc.body,
        "<polyline class=\"path-line\" points=\"{}\" fill=\"none\" stroke=\"{PATH_STROKE}\" stroke-width=\"1.5\" stroke-dasharray=\"6 3\"/>",
        pts.join(" ")
    );
    panels.push(pd);
    // Legend: the path in words.
    let mut y = bottom + 24;
    let mut lines = vec![format!(
        "Source: {} holds {}",
        loc_text(&ts, path.src),
        coords(e, shape)
    )];
    match (&path.shared, plan) {
        (Some(s), ConversionPlan::SharedMemory(p)) => {
            let other = match s.layout_offset {
                Some(o) if o != s.offset => {
                    format!("; offset {o} of the plan's whole shared layout")
                }
                _ => String::new(),
            };
            lines.push(format!(
                "Store: round {}, st.shared #{} ({} element(s) per lane) writes it at offset {} (byte {}, bank {}){other}",
                s.round, s.store, p.store_vec, s.offset, s.byte, s.bank
            ));
            lines.push(format!(
                "Load: round {}, ld.shared #{} ({} element(s) per lane) reads it into {}",
                s.round,
                s.load,
                p.load_vec,
                loc_text(&td, path.dst)
            ));
        }
        _ => {
            let how = match (plan, path.shuffle) {
                (ConversionPlan::WarpShuffle { .. } | ConversionPlan::WarpProgram(_), Some(k)) => {
                    format!(
                        "shuffle #{k} from lane {}, register {}",
                        path.src.lane, path.src.register
                    )
                }
                (ConversionPlan::WarpShuffle { .. } | ConversionPlan::WarpProgram(_), None) => {
                    "no shuffle: it stays in its register".into()
                }
                (ConversionPlan::RegisterPermutation { .. }, _) => {
                    format!("register move from register {}", path.src.register)
                }
                _ => "no-op".into(),
            };
            lines.push(format!(
                "Destination: {} receives it ({how})",
                loc_text(&td, path.dst)
            ))
        }
    }
    for l in &lines {
        doc.text(8, y, 11, "start", l);
        y += 16;
    }
    if !labels {
        doc.text(
            8,
            y,
            11,
            "start",
            "Cells too small for labels: colour = warp (darker: odd lanes); the HTML page shows each cell.",
        );
        y += 16;
    }
    let desc = format!("{} -> {}", layout_desc(src), layout_desc(dst));
    Ok((
        Picture {
            svg: doc.finish(width.max(640), y + 8, &title, &desc),
            panels,
            title,
        },
        path,
    ))
}

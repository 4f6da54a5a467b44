//! The conversion picture: three panels stacked top to bottom, each as wide
//! as [`PICTURE_WIDTH`] allows, with the element's path drawn beside them.
//!
//! 1. the source tensor view (cells coloured by the warp of their first
//!    holder, as [`crate::svg::tensor_picture`]);
//! 2. the plan's shared-memory buffer (one row per 128-byte line, 32 banks
//!    across; a cell is one element slot, coloured by the warp that stored
//!    it and labelled with its coordinates, one per line), or a line saying
//!    how a plan without shared memory moves data;
//! 3. the destination tensor view.
//!
//! Cells shrink so that the widest panel fits in `PICTURE_WIDTH − 48 − 72`
//! units (row ticks on the left, the path's gutter on the right): a 32-wide
//! tensor keeps 40-unit labelled cells, a 64-wide one gets 20-unit cells
//! coloured by warp (odd lanes darker), its details in the HTML read-out.
//!
//! The element's cell is framed in each panel, and a dashed line joins the
//! frames: it leaves a cell along the cell's bottom edge, runs down a gutter
//! right of every panel and heading, and enters the next cell along its
//! top edge. It runs on grid lines and through empty space only, so it
//! crosses no tick, heading or cell label (`tests/convert.rs` checks every
//! segment against every text's box).

use super::{conversion_path, execute_stores, ConversionPath};
use crate::svg::{
    coord_lines, coords, fill, fit_cell, grid, layout_desc, legend, max_digits, shape_text,
    tensor_grid, tensor_legend, tick_step, ticks, warp_name, Doc, Panel, Picture, Swatch,
    PICTURE_WIDTH,
};
use crate::table::DistributedTable;
use crate::text::Window;
use crate::{linearize, Result, ViewError};
use layout_codegen::plan::ConversionPlan;
use linear_layout::LinearLayout;
use std::fmt::Write;

/// Colour of the path marks (a red no warp fill is near: see
/// [`crate::svg::PALETTE`]).
pub const PATH_STROKE: &str = "#d7191c";

/// Left margin: room for row ticks.
const LEFT: u64 = 48;
/// Right gutter, where the path runs between panels.
const GUTTER: u64 = 72;
/// Widest panel.
const PANEL_W: u64 = PICTURE_WIDTH - LEFT - GUTTER;

/// Width of `s` in monospace at `font` units (0.62 em per character, a
/// bound for the common monospace faces).
pub(crate) fn text_width(font: u64, s: &str) -> u64 {
    (s.chars().count() as u64 * font * 62).div_ceil(100)
}

/// A highlight of cell `(r, c)` of `p`: a thick frame (class `path`), plus
/// a ring when cells are small.
fn mark(doc: &mut Doc, p: &Panel, r: u64, c: u64) {
    let (x, y) = (p.x + c * p.cw, p.y + r * p.ch);
    let _ = writeln!(
        doc.body,
        "<rect class=\"path\" x=\"{x}\" y=\"{y}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"{PATH_STROKE}\" stroke-width=\"3\"/>",
        p.cw, p.ch
    );
    if p.cw < 12 && p.ch < 12 {
        let _ = writeln!(
            doc.body,
            "<circle class=\"path\" cx=\"{}\" cy=\"{}\" r=\"10\" fill=\"none\" stroke=\"{PATH_STROKE}\" stroke-width=\"2\"/>",
            x + p.cw / 2,
            y + p.ch / 2
        );
    }
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
    let (cell, font, labels) = fit_cell(rows, cols, PANEL_W);
    // The element's cell in the window.
    let local: Vec<u64> = element.iter().zip(&origin).map(|(x, o)| x - o).collect();
    let we = linearize(&local, &sub);
    let (er, ec) = (we / cols, we % cols);
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
    // Right extent of everything left of the gutter.
    let mut right = 8 + text_width(14, &title);
    let heading = |doc: &mut Doc, right: &mut u64, y: u64, s: &str| {
        doc.text(LEFT, y, 13, "start", s);
        *right = (*right).max(LEFT + text_width(13, s));
    };
    let grid_at = |doc: &mut Doc, t: &DistributedTable, y: u64| {
        let holders: Vec<Vec<u64>> = (0..rows * cols).map(|i| t.holders_of(full(i))).collect();
        tensor_grid(
            doc,
            &t.sizes(),
            &holders,
            shape,
            &full,
            &sub,
            &origin,
            (LEFT, y),
            (rows, cols),
            (cell, font, labels),
        )
    };
    // Source panel.
    let mut y = 52;
    heading(
        &mut doc,
        &mut right,
        y,
        "1. Source (colour: warp of the first holder)",
    );
    let (ps, src_marks) = grid_at(&mut doc, &ts, y + 30);
    right = right.max(LEFT + cols * cell);
    y = ps.y + rows * cell + 32;
    let mut panels = vec![ps.clone()];
    // Middle panel.
    let mut buffer_warps = std::collections::BTreeSet::new();
    let mid: Option<(Panel, u64, u64)> = match plan {
        ConversionPlan::SharedMemory(p) => {
            let bits = p.bitwidth as u64;
            let per_row = 1024 / bits; // elements per 128-byte line
            let lines = p.scratch_elems.div_ceil(per_row);
            let total_lines = lines * p.rounds.len() as u64;
            let bank_units = (bits / 32).max(1);
            let cw = (PANEL_W / per_row).min(40 * bank_units).max(2);
            // Labels: each coordinate on its own line, 8-unit font.
            let digits = max_digits(shape);
            let rank = shape.len() as u64;
            let blabels = total_lines <= 128 && cw >= digits * 5 + 4 && cell >= 26;
            let (ch, bfont) = if blabels {
                (rank * 9 + 4, 8)
            } else {
                (cw.clamp(2, 10), 0)
            };
            let block = path.src.block;
            let buf = execute_stores(src, p, shape, block)?;
            let cta = if ts.blocks > 1 {
                format!(", CTA {block}")
            } else {
                String::new()
            };
            let text = format!(
                "2. Shared memory: {} round(s) × {} bytes{cta} (colour: warp that stored it)",
                p.rounds.len(),
                p.scratch_bytes
            );
            heading(&mut doc, &mut right, y, &text);
            y += 30;
            let bank_w = per_row * cw / 32;
            for k in 0..32 {
                if bank_w >= 16 || k % 4 == 0 {
                    doc.text(
                        LEFT + k * bank_w + bank_w / 2,
                        y - 4,
                        8,
                        "middle",
                        &k.to_string(),
                    );
                }
            }
            let mut marked = None;
            for (ri, content) in buf.iter().enumerate() {
                if p.rounds.len() > 1 {
                    doc.text(LEFT, y + 10, 11, "start", &format!("Round {ri}"));
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
                                ts.location_text(s)
                            ),
                            None => format!("round {ri} offset {i} (bank {bank}): not written"),
                        }
                    })
                    .collect();
                let p2 = Panel {
                    x: LEFT,
                    y,
                    cw,
                    ch,
                    rows: lines,
                    cols: per_row,
                    info,
                };
                let warp_of = |r: u64, c: u64| slot(r, c).map(|(_, s)| s.block * ts.warps + s.warp);
                for r in 0..lines {
                    for c in 0..per_row {
                        buffer_warps.extend(warp_of(r, c));
                    }
                }
                let color = |r: u64, c: u64| warp_of(r, c).map_or("#ffffff", fill);
                let label =
                    |r: u64, c: u64| slot(r, c).map_or(vec![], |(el, _)| coord_lines(el, shape));
                grid(&mut doc, &p2, blabels, bfont, &color, &label);
                for k in 0..=32 {
                    let bx = LEFT + k * bank_w;
                    doc.line(bx, y, bx, y + lines * ch, if blabels { "1" } else { "0.3" });
                }
                ticks(&mut doc, &p2, None, tick_step(ch, 12), 8);
                if let Some(step) = path.shared.as_ref().filter(|s| s.round == ri) {
                    marked = Some((p2.clone(), step.offset / per_row, step.offset % per_row));
                }
                right = right.max(LEFT + per_row * cw);
                y += lines * ch + 8;
                panels.push(p2);
            }
            y += 24;
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
            heading(&mut doc, &mut right, y, "2. No shared memory");
            doc.text(LEFT, y + 20, 11, "start", what);
            right = right.max(LEFT + text_width(11, what));
            y += 52;
            None
        }
    };
    // Destination panel.
    heading(
        &mut doc,
        &mut right,
        y,
        "3. Destination (colour: warp of the first holder)",
    );
    let (pd, dst_marks) = grid_at(&mut doc, &td, y + 30);
    y = pd.y + rows * cell + 24;
    // The path: frames, and the dashed line in the gutter.
    let gutter = right + 24;
    let mut stops: Vec<(Panel, u64, u64)> = vec![(ps.clone(), er, ec)];
    stops.extend(mid);
    stops.push((pd.clone(), er, ec));
    let mut pts: Vec<(u64, u64)> = Vec::new();
    for (k, (p, r, c)) in stops.iter().enumerate() {
        mark(&mut doc, p, *r, *c);
        let (xr, yt, yb) = (p.x + (c + 1) * p.cw, p.y + r * p.ch, p.y + (r + 1) * p.ch);
        if k > 0 {
            pts.extend([(gutter, yt), (xr, yt)]);
        }
        if k + 1 < stops.len() {
            pts.extend([(xr, yb), (gutter, yb)]);
        }
    }
    let pts: Vec<String> = pts.iter().map(|(x, y)| format!("{x},{y}")).collect();
    let _ = writeln!(
        doc.body,
        "<polyline class=\"path-line\" points=\"{}\" fill=\"none\" stroke=\"{PATH_STROKE}\" stroke-width=\"1.5\" stroke-dasharray=\"6 3\"/>",
        pts.join(" ")
    );
    panels.push(pd);
    let width = (gutter + 24).max(640);
    // Legend: warps and marks.
    let mut marks = src_marks.clone();
    marks.warps.extend(dst_marks.warps.iter().copied());
    marks.warps.extend(buffer_warps);
    marks.plus |= dst_marks.plus;
    marks.copies |= dst_marks.copies;
    marks.dark_lanes = !labels;
    let names = |i: u64| {
        let (a, b) = (warp_name(&ts.sizes(), i), warp_name(&td.sizes(), i));
        if a == b {
            a
        } else {
            format!("{a} (source) / {b} (destination)")
        }
    };
    let mut entries = tensor_legend(&marks, &names);
    entries.push((
        "the element's cell in each panel".into(),
        Swatch::Frame(PATH_STROKE),
    ));
    entries.push(("its path: 1 → 2 → 3".into(), Swatch::Dashed(PATH_STROKE)));
    y = legend(&mut doc, LEFT, y, width - LEFT - 8, &entries) + 8;
    // The path in words.
    for l in path_lines(&path, plan, &ts, &td, shape, e) {
        doc.text(8, y, 11, "start", &l);
        y += 16;
    }
    if !labels {
        doc.text(
            8,
            y,
            11,
            "start",
            "Cells too small for labels: the HTML page (--html) shows each cell under the pointer.",
        );
        y += 16;
    }
    let desc = format!("{} -> {}", layout_desc(src), layout_desc(dst));
    Ok((
        Picture {
            svg: doc.finish(width, y + 8, &title, &desc),
            panels,
            title,
        },
        path,
    ))
}

/// The path in words: source, store and load (shared plans) or how the
/// element moves, destination.
fn path_lines(
    path: &ConversionPath,
    plan: &ConversionPlan,
    ts: &DistributedTable,
    td: &DistributedTable,
    shape: &[u64],
    e: u64,
) -> Vec<String> {
    let mut lines = vec![format!(
        "Source: {} holds {}",
        ts.location_text(path.src),
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
                td.location_text(path.dst)
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
                td.location_text(path.dst)
            ))
        }
    }
    lines
}

//! Deterministic SVG pictures of layouts (no external resources, no
//! scripts; the same layout always gives the same bytes).
//!
//! - [`tensor_picture`]: the tensor as a grid (last dim across, the other
//!   dims flattened down, dim0 slowest); each cell is coloured by the warp
//!   (`block · warps + warp`) of its first holder and labelled with that
//!   holder's thread `T<lane + warp·lanes>` and register `R<r>` (the paper's
//!   Figure 1); `+k` marks `k` further holders, and a strip along the
//!   bottom of the cell shows the colours of the other warps holding
//!   copies (so a warp that only holds copies is still drawn). Unlabelled
//!   (large) grids draw odd lanes in a darker shade of the warp's colour.
//!   The legend has an entry for every colour and mark drawn.
//! - [`hardware_picture`]: one panel per (CTA, warp); a panel has one row per
//!   register and one column per lane; each cell shows the coordinate held
//!   there and is coloured by the element's logical row.
//! - [`bank_picture`] (shared layouts): one row per 128-byte line of each
//!   CTA's allocation, 32 four-byte banks across; a cell is one element
//!   (offset `o` sits at byte `o · bits / 8`, bank `(byte / 4) mod 32`), shows
//!   its coordinates (one per line) and is coloured by its logical row.
//!   Cells fit [`PICTURE_WIDTH`]; an access pattern draws touched cells
//!   framed and conflicting ones hatched in [`CONFLICT_COLOR`].
//!
//! - [`tmem_picture`] (tensor-memory layouts): one row per TMEM lane, one
//!   column per TMEM column, each cell the element held there.
//!
//! Small grids get labelled cells. When cells would get too small to read
//! (more than 64 per side, or more than 128 hardware rows), labels are
//! dropped, cells shrink, runs of equal colour along a row are merged, and
//! axis ticks thin out; the HTML page ([`crate::html`]) then shows the
//! details of the cell under the pointer.

mod bank;
mod tensor;
mod tmem;
pub use bank::{bank_picture, bank_picture_access, ACCESS_STROKE};
pub use tensor::{hardware_picture, tensor_picture, tensor_picture_window};
pub use tmem::tmem_picture;

use crate::table::{DistributedTable, HardwareSizes, HolderSolver, LayoutKind, SharedTable};
use crate::text::Window;
use crate::{check_shape, delinearize, Result, ViewError};
use linear_layout::{DimName, LinearLayout};
use std::fmt::Write;

/// One grid of a picture, with the description of each cell (for the HTML
/// page's pointer read-out).
#[derive(Debug, Clone)]
pub struct Panel {
    /// Left edge of cell (0, 0), in SVG user units.
    pub x: u64,
    /// Top edge of cell (0, 0).
    pub y: u64,
    /// Cell width.
    pub cw: u64,
    /// Cell height.
    pub ch: u64,
    /// Rows of cells.
    pub rows: u64,
    /// Columns of cells.
    pub cols: u64,
    /// `info[r · cols + c]` describes cell `(r, c)`.
    pub info: Vec<String>,
}

/// An SVG document and its panels.
#[derive(Debug, Clone)]
pub struct Picture {
    /// The SVG text.
    pub svg: String,
    /// Its grids, for pointer read-outs.
    pub panels: Vec<Panel>,
    /// A one-line title.
    pub title: String,
}

/// Sixteen light fills, distinguishable next to each other; index `i` uses
/// `PALETTE[i % 16]`. None is red, salmon or pink: those hues belong to the
/// marks drawn over the fills ([`CONFLICT_COLOR`], the path of
/// [`crate::convert`]). `tests/colors.rs` checks it in CIE Lab: every fill
/// is at least ΔE76 40 from each mark colour and, unless nearly grey
/// (chroma < 10), at least 30° of hue away from it.
pub const PALETTE: [&str; 16] = [
    "#a6cee3", "#fdbf6f", "#b2df8a", "#dfc27d", "#cab2d6", "#ffff99", "#8dd3c7", "#c7eae5",
    "#d9d9d9", "#bebada", "#80b1d3", "#ccebc5", "#ffed6f", "#e5d8bd", "#92c5de", "#e6f598",
];

/// Darker companions of [`PALETTE`] (same hue, lightness × 0.8 or so),
/// used for odd lanes when cells are too small for labels (so that threads
/// stay distinguishable).
pub const PALETTE_DARK: [&str; 16] = [
    "#7fb3d0", "#f0a64a", "#8fcc62", "#d3aa4b", "#ad8ec2", "#e6e670", "#62bcad", "#8ed5cb",
    "#b8b8b8", "#9c97c4", "#5a97c0", "#a6d6a0", "#e6d04a", "#d0b887", "#6aa9cc", "#cde07a",
];

/// Colour of the marks drawn over the fills: bank conflicts (hatched cells
/// with a frame) and the path of a conversion. No fill of [`PALETTE`] or
/// [`PALETTE_DARK`] is near it (see [`PALETTE`]).
pub const CONFLICT_COLOR: &str = "#e31a1c";

/// The widest picture, in SVG user units (pixels at 100 %), that the
/// default scale of the conversion and bank pictures keeps to: a laptop
/// screen shows it whole without scaling.
pub const PICTURE_WIDTH: u64 = 1400;

/// The fill of warp (or logical row) `i`: `PALETTE[i % 16]`.
pub fn fill(i: u64) -> &'static str {
    PALETTE[(i % 16) as usize]
}

fn fill_dark(i: u64) -> &'static str {
    PALETTE_DARK[(i % 16) as usize]
}

/// Largest number of cells (tensor elements or hardware slots) a picture
/// draws: 4 × 256 × 256.
pub const MAX_PICTURE_CELLS: u64 = 1 << 18;

pub(crate) fn picture_size_ok(ll: &LinearLayout) -> Result<()> {
    let n = ll.total_out_dim_size().max(ll.total_in_dim_size());
    if n > MAX_PICTURE_CELLS {
        return Err(ViewError::BadParameter(format!(
            "layout too large to draw: {n} cells > {MAX_PICTURE_CELLS}; use the text view or a smaller shape"
        )));
    }
    Ok(())
}

/// Escapes text for XML.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Accumulates SVG elements.
pub(crate) struct Doc {
    pub(crate) body: String,
    /// `<defs>` content (patterns), written before the body.
    defs: String,
}

/// The id of the hatch pattern of conflicting cells.
pub const HATCH_ID: &str = "conflict-hatch";

impl Doc {
    pub(crate) fn new() -> Doc {
        Doc {
            body: String::new(),
            defs: String::new(),
        }
    }
    /// Defines (once) the hatch of conflicting cells: diagonal lines in
    /// [`CONFLICT_COLOR`] on a transparent ground, so that the cell's own
    /// fill and label stay visible. Returns the fill reference.
    pub(crate) fn hatch(&mut self) -> String {
        if self.defs.is_empty() {
            let _ = writeln!(
                self.defs,
                "<pattern id=\"{HATCH_ID}\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect x=\"0\" y=\"0\" width=\"2.5\" height=\"6\" fill=\"{CONFLICT_COLOR}\"/></pattern>"
            );
        }
        format!("url(#{HATCH_ID})")
    }
    pub(crate) fn rect(&mut self, x: u64, y: u64, w: u64, h: u64, fill: &str, stroke: bool) {
        let st = if stroke {
            " stroke=\"#555\" stroke-width=\"0.5\""
        } else {
            ""
        };
        let _ = writeln!(
            self.body,
            "<rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\" fill=\"{fill}\"{st}/>"
        );
    }
    pub(crate) fn text(&mut self, x: u64, y: u64, size: u64, anchor: &str, s: &str) {
        let _ = writeln!(
            self.body,
            "<text x=\"{x}\" y=\"{y}\" font-size=\"{size}\" text-anchor=\"{anchor}\">{}</text>",
            escape(s)
        );
    }
    pub(crate) fn line(&mut self, x1: u64, y1: u64, x2: u64, y2: u64, width: &str) {
        let _ = writeln!(
            self.body,
            "<line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" stroke=\"#000\" stroke-width=\"{width}\"/>"
        );
    }
    pub(crate) fn finish(self, w: u64, h: u64, title: &str, desc: &str) -> String {
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"monospace\">\n<title>{}</title>\n<desc>{}</desc>\n{}<rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"#fff\"/>\n{}</svg>\n",
            escape(title),
            escape(desc),
            if self.defs.is_empty() {
                String::new()
            } else {
                format!("<defs>\n{}</defs>\n", self.defs)
            },
            self.body
        )
    }
}

/// Draws a grid of cells: `color(r, c)` gives the fill, `label(r, c)` up to
/// two label lines (drawn only when `labels`). Equal neighbouring fills in
/// a row are merged into one rectangle when unlabelled.
#[allow(clippy::too_many_arguments)]
pub(crate) fn grid(
    doc: &mut Doc,
    p: &Panel,
    labels: bool,
    font: u64,
    color: &dyn Fn(u64, u64) -> &'static str,
    label: &dyn Fn(u64, u64) -> Vec<String>,
) {
    for r in 0..p.rows {
        let y = p.y + r * p.ch;
        if labels {
            for c in 0..p.cols {
                let x = p.x + c * p.cw;
                doc.rect(x, y, p.cw, p.ch, color(r, c), true);
                let lines = label(r, c);
                let n = lines.len() as u64;
                for (i, l) in lines.iter().enumerate() {
                    // Lines centred vertically: baseline of line i.
                    let ty =
                        y + p.ch.saturating_sub(n * (font + 1)) / 2 + (i as u64 + 1) * (font + 1)
                            - 2;
                    doc.text(x + p.cw / 2, ty, font, "middle", l);
                }
            }
        } else {
            let mut c = 0;
            while c < p.cols {
                let f = color(r, c);
                let mut e = c + 1;
                while e < p.cols && color(r, e) == f {
                    e += 1;
                }
                doc.rect(p.x + c * p.cw, y, (e - c) * p.cw, p.ch, f, false);
                c = e;
            }
        }
    }
    if !labels && p.cw >= 6 && p.ch >= 6 {
        // Merged runs hide cell edges: faint white lines show them again.
        let (w, h) = (p.cols * p.cw, p.rows * p.ch);
        let mut d = String::new();
        for c in 1..p.cols {
            let _ = write!(d, "M{} {}v{h}", p.x + c * p.cw, p.y);
        }
        for r in 1..p.rows {
            let _ = write!(d, "M{} {}h{w}", p.x, p.y + r * p.ch);
        }
        let _ = writeln!(
            doc.body,
            "<path d=\"{d}\" stroke=\"#fff\" stroke-opacity=\"0.6\" stroke-width=\"0.5\"/>"
        );
    }
    if !labels {
        // A frame around the whole grid.
        let _ = writeln!(
            doc.body,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#555\" stroke-width=\"0.5\"/>",
            p.x,
            p.y,
            p.cols * p.cw,
            p.rows * p.ch
        );
    }
}

/// Tick labels every `step` cells along the top and the left of a panel.
pub(crate) fn ticks(doc: &mut Doc, p: &Panel, col_step: Option<u64>, row_step: u64, font: u64) {
    ticks_from(doc, p, col_step, row_step, font, 0, 0);
}

/// [`ticks`] numbered from `col0` and `row0`.
pub(crate) fn ticks_from(
    doc: &mut Doc,
    p: &Panel,
    col_step: Option<u64>,
    row_step: u64,
    font: u64,
    col0: u64,
    row0: u64,
) {
    let cols = if col_step.is_some() { p.cols } else { 0 };
    for c in (0..cols).step_by(col_step.unwrap_or(1) as usize) {
        let x = p.x + c * p.cw + p.cw / 2;
        doc.text(x, p.y - 4, font, "middle", &(c + col0).to_string());
    }
    for r in (0..p.rows).step_by(row_step as usize) {
        let y = p.y + r * p.ch + p.ch / 2 + font / 2 - 1;
        doc.text(p.x - 4, y, font, "end", &(r + row0).to_string());
    }
}

/// Tick step so that ticks are at least `min_px` apart (a power of two).
pub(crate) fn tick_step(cell: u64, min_px: u64) -> u64 {
    let mut s = 1;
    while s * cell < min_px {
        s *= 2;
    }
    s
}

/// What a legend entry shows beside its words: one swatch per kind of mark
/// that a picture draws.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Swatch {
    /// A cell fill.
    Fill(&'static str),
    /// A cell fill, light (left half) and dark (right half): a warp whose
    /// odd lanes are drawn darker.
    FillPair(&'static str, &'static str),
    /// The strip of a cell whose element has copies in other warps
    /// ([`copy_strip`]), here in the given fill.
    Strip(&'static str),
    /// A text mark drawn in cells (such as `+k`).
    Text(&'static str),
    /// A cell frame in a colour.
    Frame(&'static str),
    /// A dashed line in a colour.
    Dashed(&'static str),
    /// The hatch of conflicting cells.
    Hatch,
}

impl Swatch {
    /// The `data-mark` name of the entry (tests match marks to entries).
    fn mark(&self) -> &'static str {
        match self {
            Swatch::Fill(_) | Swatch::FillPair(..) => "fill",
            Swatch::Strip(_) => "copy",
            Swatch::Text(_) => "text",
            Swatch::Frame(_) => "frame",
            Swatch::Dashed(_) => "dashed",
            Swatch::Hatch => "conflict",
        }
    }
}

/// Legend entries, wrapped at `width`; returns the y below. Each entry is
/// a `<g class="legend" data-mark="...">` holding its swatch and words.
pub(crate) fn legend(
    doc: &mut Doc,
    x: u64,
    y: u64,
    width: u64,
    entries: &[(String, Swatch)],
) -> u64 {
    let mut cx = x;
    let mut cy = y;
    for (name, sw) in entries {
        // Monospace at 11 units: under 7 units per character.
        let w = 30 + 7 * name.chars().count() as u64;
        if cx > x && cx + w > x + width {
            cx = x;
            cy += 18;
        }
        let _ = writeln!(doc.body, "<g class=\"legend\" data-mark=\"{}\">", sw.mark());
        match sw {
            Swatch::Fill(f) => doc.rect(cx, cy, 14, 14, f, true),
            Swatch::FillPair(f, g) => {
                doc.rect(cx, cy, 7, 14, f, true);
                doc.rect(cx + 7, cy, 7, 14, g, true);
            }
            Swatch::Strip(f) => {
                doc.rect(cx, cy, 14, 14, "#ffffff", true);
                copy_strip(doc, cx, cy, 14, 14, &[f]);
            }
            Swatch::Text(t) => doc.text(cx + 7, cy + 11, 10, "middle", t),
            Swatch::Frame(c) => {
                let _ = writeln!(
                    doc.body,
                    "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"none\" stroke=\"{c}\" stroke-width=\"2\"/>",
                    cx + 1,
                    cy + 1
                );
            }
            Swatch::Dashed(c) => {
                let _ = writeln!(
                    doc.body,
                    "<line x1=\"{cx}\" y1=\"{0}\" x2=\"{1}\" y2=\"{0}\" stroke=\"{c}\" stroke-width=\"1.5\" stroke-dasharray=\"6 3\"/>",
                    cy + 7,
                    cx + 14
                );
            }
            Swatch::Hatch => {
                let h = doc.hatch();
                let _ = writeln!(
                    doc.body,
                    "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{h}\" stroke=\"{CONFLICT_COLOR}\" stroke-width=\"2\"/>",
                    cx + 1,
                    cy + 1
                );
            }
        }
        doc.text(cx + 20, cy + 11, 11, "start", name);
        doc.body.push_str("</g>\n");
        cx += w;
    }
    cy + 18
}

/// Marks a cell at `(x, y)`, `w × h`, whose element other warps also hold:
/// a strip along the cell's bottom edge (a sixth of its height, at least 2
/// units, below the labels), cut into one piece per warp colour in `fills`,
/// in order. Each piece is one `<polygon class="copy">`.
pub(crate) fn copy_strip(doc: &mut Doc, x: u64, y: u64, w: u64, h: u64, fills: &[&str]) {
    let n = fills.len().max(1) as f64;
    let sh = (h as f64 / 6.0).max(2.0);
    let (y0, y1) = ((y + h) as f64 - sh, (y + h) as f64);
    for (k, f) in fills.iter().enumerate() {
        let x0 = x as f64 + w as f64 * k as f64 / n;
        let x1 = x as f64 + w as f64 * (k + 1) as f64 / n;
        let _ = writeln!(
            doc.body,
            "<polygon class=\"copy\" points=\"{x0:.1},{y0:.1} {x1:.1},{y0:.1} {x1:.1},{y1:.1} {x0:.1},{y1:.1}\" fill=\"{f}\" stroke=\"#555\" stroke-width=\"0.4\"/>"
        );
    }
}

/// `(i, j, ...)` of linear index `e`.
pub(crate) fn coords(e: u64, shape: &[u64]) -> String {
    let c = delinearize(e, shape);
    let s: Vec<String> = c.iter().map(|v| v.to_string()).collect();
    format!("({})", s.join(","))
}

/// The coordinates of linear index `e`, one string per dim: a cell label
/// with one coordinate per line (for narrow cells).
pub(crate) fn coord_lines(e: u64, shape: &[u64]) -> Vec<String> {
    delinearize(e, shape)
        .iter()
        .map(|v| v.to_string())
        .collect()
}

/// Decimal digits of the largest coordinate of `shape` (at least 1).
pub(crate) fn max_digits(shape: &[u64]) -> u64 {
    shape
        .iter()
        .map(|&n| n.saturating_sub(1).max(1).ilog10() as u64 + 1)
        .max()
        .unwrap_or(1)
}

/// Rows × columns of the 2-D picture of `shape`: the last dim across, the
/// others flattened down (row-major).
pub(crate) fn grid_shape(shape: &[u64]) -> (u64, u64) {
    let cols = *shape.last().unwrap_or(&1);
    (shape.iter().product::<u64>() / cols, cols)
}

pub(crate) fn layout_desc(ll: &LinearLayout) -> String {
    serde_json::to_string(&ll.to_json()).unwrap_or_default()
}

pub(crate) fn shape_text(shape: &[u64]) -> String {
    shape
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join("×")
}

/// Cell side, font size and whether cells are labelled, for a tensor grid
/// whose longer side has `n` cells: labelled up to 64 cells, then shrunk so
/// that the side stays about 1024 units.
pub(crate) fn tensor_cell_size(n: u64) -> (u64, u64, bool) {
    if n <= 32 {
        (40, 11, true)
    } else if n <= 64 {
        (26, 8, true)
    } else {
        ((1024 / n).max(2), 0, false)
    }
}

/// `warp w` or `block b warp w` of warp index `i = block · warps + warp`.
pub(crate) fn warp_name(t: &HardwareSizes, i: u64) -> String {
    if t.blocks > 1 {
        format!("block {} warp {}", i / t.warps, i % t.warps)
    } else {
        format!("warp {i}")
    }
}

/// The holders (slots, increasing) of every cell of a window, row-major:
/// `full(i)` is the linear index in the whole tensor of window cell `i`.
/// From the enumerated table when the layout fits it, otherwise solved cell
/// by cell ([`HolderSolver`]), so that a window of any layout costs its
/// cells.
pub(crate) fn window_holders(
    ll: &LinearLayout,
    shape: &[u64],
    cells: u64,
    full: &dyn Fn(u64) -> u64,
) -> Result<(HardwareSizes, Vec<Vec<u64>>)> {
    if ll.total_out_dim_size() <= crate::MAX_POINTS && ll.total_in_dim_size() <= crate::MAX_POINTS {
        let t = DistributedTable::new(ll, shape)?;
        let hs = (0..cells).map(|i| t.holders_of(full(i))).collect();
        Ok((t.sizes(), hs))
    } else {
        let solver = HolderSolver::new(ll, shape)?;
        let hs = (0..cells).map(|i| solver.holders(full(i))).collect();
        Ok((solver.sizes, hs))
    }
}

/// Draws the tensor grid of a window with cell `(0, 0)` at `(x, y)`: cells
/// coloured by the warp of their first holder, labelled `T<tid>` /
/// `R<reg>` when `labels`; `full(i)` is the linear index in the whole tensor
/// of window cell `i` and `cell_holders[i]` its holders (slots of `t`,
/// increasing). Returns the panel (with its read-out texts).
#[allow(clippy::too_many_arguments)]
pub(crate) fn tensor_grid(
    doc: &mut Doc,
    t: &HardwareSizes,
    cell_holders: &[Vec<u64>],
    shape: &[u64],
    full: &dyn Fn(u64) -> u64,
    sub: &[u64],
    origin: &[u64],
    (x, y): (u64, u64),
    (rows, cols): (u64, u64),
    (cell, font, labels): (u64, u64, bool),
) -> (Panel, GridMarks) {
    let mut info = Vec::with_capacity((rows * cols) as usize);
    for i in 0..rows * cols {
        let e = full(i);
        let hs: Vec<String> = cell_holders[i as usize]
            .iter()
            .map(|&s| t.location_text(t.location(s)))
            .collect();
        let held = if hs.is_empty() {
            "not held".to_string()
        } else {
            hs.join("; ")
        };
        info.push(format!("{} ← {held}", coords(e, shape)));
    }
    let p = Panel {
        x,
        y,
        cw: cell,
        ch: cell,
        rows,
        cols,
        info,
    };
    let first = |r: u64, c: u64| cell_holders[(r * cols + c) as usize].first().copied();
    let color = |r: u64, c: u64| match first(r, c) {
        Some(s) => {
            let l = t.location(s);
            let w = l.block * t.warps + l.warp;
            if !labels && l.lane % 2 == 1 {
                fill_dark(w)
            } else {
                fill(w)
            }
        }
        None => "#ffffff",
    };
    let label = |r: u64, c: u64| -> Vec<String> {
        let hs = &cell_holders[(r * cols + c) as usize];
        match hs.first() {
            None => vec!["·".into()],
            Some(&s) => {
                let l = t.location(s);
                let b = if t.blocks > 1 {
                    format!("B{}", l.block)
                } else {
                    String::new()
                };
                let more = if hs.len() > 1 {
                    format!("+{}", hs.len() - 1)
                } else {
                    String::new()
                };
                vec![
                    format!("{b}T{}", t.thread_id(l)),
                    format!("R{}{more}", l.register),
                ]
            }
        }
    };
    grid(doc, &p, labels, font, &color, &label);
    // Marks: the warps whose colours the grid shows, copies.
    let mut marks = GridMarks::default();
    let warp_of = |s: u64| {
        let l = t.location(s);
        l.block * t.warps + l.warp
    };
    for r in 0..rows {
        for c in 0..cols {
            let hs = &cell_holders[(r * cols + c) as usize];
            let Some(&first) = hs.first() else { continue };
            let w0 = warp_of(first);
            marks.warps.insert(w0);
            marks.plus |= labels && hs.len() > 1;
            let mut others: Vec<u64> = Vec::new();
            for &s in &hs[1..] {
                let w = warp_of(s);
                if w != w0 && !others.contains(&w) {
                    others.push(w);
                }
            }
            if !others.is_empty() {
                let fills: Vec<&str> = others.iter().map(|&w| fill(w)).collect();
                copy_strip(doc, p.x + c * cell, p.y + r * cell, cell, cell, &fills);
                marks.warps.extend(others);
                marks.copies = true;
            }
        }
    }
    let step = tick_step(cell, 24);
    let rank = shape.len();
    let row0 = if rank >= 2 { origin[rank - 2] } else { 0 };
    ticks_from(doc, &p, Some(step), step, 9, origin[rank - 1], row0);
    // Lines between the slices of the leading dims (rank ≥ 3).
    if sub.len() >= 3 {
        let inner = sub[sub.len() - 2];
        for r in (inner..rows).step_by(inner as usize) {
            let y = p.y + r * cell;
            doc.line(p.x, y, p.x + cols * cell, y, "2");
        }
    }
    (p, marks)
}

/// What a tensor grid drew, for its legend.
#[derive(Debug, Clone, Default)]
pub(crate) struct GridMarks {
    /// Warps (`block · warps + warp`) whose colour appears, as a fill or a
    /// copy strip.
    pub(crate) warps: std::collections::BTreeSet<u64>,
    /// Some label carries `+k`.
    pub(crate) plus: bool,
    /// Some cell has a copy strip.
    pub(crate) copies: bool,
    /// Cells are unlabelled, odd lanes drawn darker.
    pub(crate) dark_lanes: bool,
}

/// Legend entries of tensor grids: one swatch per warp colour shown
/// (`names` gives a warp's words), then the marks.
pub(crate) fn tensor_legend(
    marks: &GridMarks,
    name: &dyn Fn(u64) -> String,
) -> Vec<(String, Swatch)> {
    let mut entries: Vec<(String, Swatch)> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for &w in &marks.warps {
        if seen.contains(&fill(w)) {
            // Colours repeat every 16 warps: one entry names them all.
            continue;
        }
        seen.push(fill(w));
        let same: Vec<String> = marks
            .warps
            .iter()
            .filter(|&&v| fill(v) == fill(w))
            .map(|&v| name(v))
            .collect();
        let mut words = same.join(", ");
        let swatch = if marks.dark_lanes {
            if entries.is_empty() {
                words.push_str(" (right half: its odd lanes)");
            }
            Swatch::FillPair(fill(w), fill_dark(w))
        } else {
            Swatch::Fill(fill(w))
        };
        entries.push((words, swatch));
    }
    if marks.plus {
        entries.push((
            "k more holders (registers, lanes or warps) hold copies".into(),
            Swatch::Text("+k"),
        ));
    }
    if marks.copies {
        let w = marks.warps.iter().nth(1).copied().unwrap_or(0);
        entries.push((
            "bottom strip: another warp holding a copy".into(),
            Swatch::Strip(fill(w)),
        ));
    }
    entries
}

/// Cell side, font and labels of a `rows × cols` tensor grid no wider than
/// `avail`: [`tensor_cell_size`], shrunk to fit; labels need 26 units.
pub(crate) fn fit_cell(rows: u64, cols: u64, avail: u64) -> (u64, u64, bool) {
    let (cell, font, labels) = tensor_cell_size(rows.max(cols));
    if cell * cols <= avail {
        return (cell, font, labels);
    }
    let cell = (avail / cols).max(2);
    match cell {
        40.. => (cell, 11, true),
        26.. => (cell, 8, true),
        _ => (cell, 0, false),
    }
}

/// The default picture of a layout: the tensor view of a distributed layout,
/// the bank view (16-bit elements) of a shared one, the lanes × columns of
/// a tensor-memory one.
pub fn default_picture(ll: &LinearLayout, shape: &[u64]) -> Result<Picture> {
    match LayoutKind::of(ll)? {
        LayoutKind::Distributed => tensor_picture(ll, shape),
        LayoutKind::Shared => bank_picture(ll, shape, 16),
        LayoutKind::TensorMemory => tmem_picture(ll, shape),
    }
}

//! Triton's `get_layout_view` text (`getDistributedLayoutStr` /
//! `getSharedLayoutStr`), reproduced byte for byte.
//!
//! Formats, with `digits(n)` the decimal length of `n` and `pad(v, m)` the
//! value `v` right-aligned to `digits(m)` characters:
//!
//! - Distributed tensor view: the tensor as nested brackets (numpy style, last
//!   dim along a line). Each element lists every slot holding it, in slot
//!   order (block, warp, lane, register), joined by `|`; an entry is
//!   `B<block>:` (only with several CTAs) then `T<lane + warp·lanes>:<reg>`,
//!   preceded by `digits(blocks)-digits(block) + digits(warps·lanes)-digits(tid)
//!   + digits(regs)-digits(reg)` spaces. Elements are separated by `, `.
//! - Distributed hardware view: per CTA `Block<b>:` (only with several), per
//!   warp `Warp<w>:`, then one line per register listing for every lane the
//!   coordinate `(pad(c0,n0),pad(c1,n1),...)`, separated by `, `.
//! - Shared tensor view: the grid of the tensor's shape whose cell at
//!   row-major position `p` shows the element stored at memory slot `p` as
//!   `(pad(c0,n0):pad(c1,n1):...)`; cells separated by `,`.
//! - Shared hardware view: per CTA `Block: <b>:` then `Offset: <o> ->
//!   (pad(c0,n0),...)` for every offset `o < S`.
//!
//! A line starts with `rank - (number of brackets opened on it)` spaces.

use crate::table::{DistributedTable, HardwareSizes, HolderSolver, LayoutKind, SharedTable};
use crate::{delinearize, Result, ViewError, MAX_POINTS};
use linear_layout::LinearLayout;
use std::ops::Range;

/// Decimal length of `n`.
fn digits(n: u64) -> usize {
    n.to_string().len()
}

/// `v` right-aligned to the width of `max`.
fn padded(v: u64, max: u64) -> String {
    let w = digits(max);
    format!("{v:>w$}")
}

/// Renders a tensor of shape `shape` in nested brackets, each cell given by
/// `cell(multi_index)`, cells on a line joined by `sep`.
fn render_nested(shape: &[u64], sep: &str, mut cell: impl FnMut(&[u64]) -> String) -> String {
    let rank = shape.len();
    let total: u64 = shape.iter().product();
    let mut out = String::new();
    let mut new_line = true;
    for i in 0..total {
        let idx = delinearize(i, shape);
        let open = idx.iter().rev().take_while(|&&c| c == 0).count();
        out.push_str(&"[".repeat(open));
        if new_line {
            out.push_str(&" ".repeat(rank - open));
            new_line = false;
        }
        out.push_str(&cell(&idx));
        let next = delinearize(i + 1, shape);
        let close = next.iter().rev().take_while(|&&c| c == 0).count();
        out.push_str(&"]".repeat(close));
        if next[rank - 1] == 0 {
            out.push('\n');
            new_line = true;
        } else {
            out.push_str(sep);
        }
    }
    out
}

/// The text of one holder (`[B<b>:]T<tid>:<reg>` with Triton's padding).
fn holder_text(t: &HardwareSizes, slot: u64) -> String {
    let loc = t.location(slot);
    let tid = t.thread_id(loc);
    let pad = (digits(t.blocks) - digits(loc.block))
        + (digits(t.warps * t.lanes) - digits(tid))
        + (digits(t.registers) - digits(loc.register));
    let mut s = " ".repeat(pad);
    if t.blocks > 1 {
        s.push_str(&format!("B{}:", loc.block));
    }
    s.push_str(&format!("T{}:{}", tid, loc.register));
    s
}

/// The cell text of element `e` of a distributed layout (holders joined by `|`).
pub fn distributed_cell(t: &DistributedTable, e: u64) -> String {
    t.holders[e as usize]
        .iter()
        .map(|&s| holder_text(&t.sizes(), s as u64))
        .collect::<Vec<_>>()
        .join("|")
}

/// A coordinate `(c0<sep>c1...)` padded to the shape.
fn coord_text(e: u64, shape: &[u64], sep: &str) -> String {
    let c = delinearize(e, shape);
    let parts: Vec<String> = c.iter().zip(shape).map(|(&v, &n)| padded(v, n)).collect();
    format!("({})", parts.join(sep))
}

/// A rectangular window of a tensor view: `rows` ranges over the
/// second-to-last dim, `cols` over the last one; `None` keeps the whole dim.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Window {
    /// Rows (dim `rank-2`), half-open.
    pub rows: Option<Range<u64>>,
    /// Columns (dim `rank-1`), half-open.
    pub cols: Option<Range<u64>>,
}

impl Window {
    /// Parses `a..b` (half-open) into a range.
    pub fn parse_range(s: &str) -> Result<Range<u64>> {
        let bad =
            || ViewError::BadWindow(format!("invalid range '{s}': expected a..b, e.g. 0..16"));
        let (a, b) = s.split_once("..").ok_or_else(bad)?;
        let a = a.trim().parse::<u64>().map_err(|_| bad())?;
        let b = b.trim().parse::<u64>().map_err(|_| bad())?;
        Ok(a..b)
    }

    /// The window's shape and origin inside `shape`.
    pub(crate) fn resolve(&self, shape: &[u64]) -> Result<(Vec<u64>, Vec<u64>)> {
        let rank = shape.len();
        let mut sub = shape.to_vec();
        let mut origin = vec![0; rank];
        let mut set = |dim: Option<usize>, r: &Option<Range<u64>>, what: &str| -> Result<()> {
            let Some(r) = r else { return Ok(()) };
            let Some(d) = dim else {
                return Err(ViewError::BadWindow(format!(
                    "a {what} window needs a tensor of rank ≥ 2, got rank {rank}"
                )));
            };
            if r.start >= r.end || r.end > shape[d] {
                return Err(ViewError::BadWindow(format!(
                    "{what} window {}..{} is empty or outside 0..{} (dim{d})",
                    r.start, r.end, shape[d]
                )));
            }
            sub[d] = r.end - r.start;
            origin[d] = r.start;
            Ok(())
        };
        set(rank.checked_sub(2), &self.rows, "row")?;
        set(rank.checked_sub(1), &self.cols, "column")?;
        Ok((sub, origin))
    }
}

/// Triton's tensor view of `ll` (`get_layout_view(layout, shape, false)`).
///
/// `shape` must equal the layout's output sizes. Distributed layouts list
/// the holders of every element; shared layouts show the element stored at
/// each memory slot in row-major slot order.
pub fn tensor_view(ll: &LinearLayout, shape: &[u64]) -> Result<String> {
    tensor_view_window(ll, shape, &Window::default())
}

/// [`tensor_view`] restricted to a window of the last two dims; the cells
/// are those of the full view (same padding), the brackets those of the
/// window's shape. With the default window it is exactly [`tensor_view`].
pub fn tensor_view_window(ll: &LinearLayout, shape: &[u64], window: &Window) -> Result<String> {
    crate::check_shape(ll, shape)?;
    let (sub, origin) = window.resolve(shape)?;
    let full_index = |idx: &[u64]| -> u64 {
        idx.iter()
            .zip(&origin)
            .zip(shape)
            .fold(0, |acc, ((&i, &o), &n)| acc * n + i + o)
    };
    match LayoutKind::of(ll)? {
        LayoutKind::TensorMemory => Err(tmem_text_error()),
        LayoutKind::Distributed if fits_table(ll) => {
            let t = DistributedTable::new(ll, shape)?;
            Ok(render_nested(&sub, ", ", |idx| {
                distributed_cell(&t, full_index(idx))
            }))
        }
        LayoutKind::Distributed => {
            // Too large to enumerate: solve for the window's cells only.
            let cells: u64 = sub.iter().product();
            if cells > MAX_POINTS {
                return Err(crate::ViewError::TooLarge {
                    what: "window cells",
                    count: cells,
                });
            }
            let solver = HolderSolver::new(ll, shape)?;
            Ok(render_nested(&sub, ", ", |idx| {
                solver
                    .holders(full_index(idx))
                    .iter()
                    .map(|&s| holder_text(&solver.sizes, s))
                    .collect::<Vec<_>>()
                    .join("|")
            }))
        }
        LayoutKind::Shared => {
            let t = SharedTable::new(ll, shape)?;
            Ok(render_nested(&sub, ",", |idx| {
                match t.element_of_slot.get(full_index(idx) as usize) {
                    Some(&e) => coord_text(e, shape, ":"),
                    None => String::new(),
                }
            }))
        }
    }
}

/// Triton's `get_layout_view` covers distributed and shared layouts only.
fn tmem_text_error() -> crate::ViewError {
    crate::ViewError::WrongKind(
        "the text views cover distributed and shared layouts, not tensor memory (row/col); draw it as a picture (--svg/--html)".into(),
    )
}

/// Triton's hardware view of `ll` (`get_layout_view(layout, shape, true)`).
pub fn hardware_view(ll: &LinearLayout, shape: &[u64]) -> Result<String> {
    crate::check_shape(ll, shape)?;
    let mut out = String::new();
    match LayoutKind::of(ll)? {
        LayoutKind::TensorMemory => return Err(tmem_text_error()),
        LayoutKind::Distributed => {
            let t = DistributedTable::new(ll, shape)?;
            let per_warp = t.lanes * t.registers;
            for b in 0..t.blocks {
                if t.blocks > 1 {
                    out.push_str(&format!("Block{b}:\n"));
                }
                for w in 0..t.warps {
                    out.push_str(&format!("Warp{w}:\n"));
                    let base = (b * t.warps + w) * per_warp;
                    for r in 0..t.registers {
                        let line: Vec<String> = (0..t.lanes)
                            .map(|l| {
                                let e = t.element_of_slot[(base + l * t.registers + r) as usize];
                                coord_text(e, shape, ",")
                            })
                            .collect();
                        out.push_str(&line.join(", "));
                        out.push('\n');
                    }
                }
            }
        }
        LayoutKind::Shared => {
            let t = SharedTable::new(ll, shape)?;
            for b in 0..t.blocks {
                out.push_str(&format!("Block: {b}:\n"));
                for o in 0..t.block_size {
                    let e = t.element_of_slot[(b * t.block_size + o) as usize];
                    out.push_str(&format!("Offset: {o} -> {}\n", coord_text(e, shape, ",")));
                }
            }
        }
    }
    Ok(out)
}

/// Whether [`DistributedTable::new`] enumerates `ll` (elements and slots
/// within [`MAX_POINTS`]); larger layouts are viewed through windows solved
/// by [`HolderSolver`].
fn fits_table(ll: &LinearLayout) -> bool {
    ll.total_out_dim_size() <= MAX_POINTS && ll.total_in_dim_size() <= MAX_POINTS
}

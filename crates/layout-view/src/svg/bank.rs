//! The bank picture of a shared layout, optionally with an access pattern
//! drawn on it (see [`super`]).

use super::*;
use crate::access::AccessPattern;

/// The bank picture of a shared layout with `elem_bits`-bit elements (see
/// the module docs). `elem_bits` must be a power of two in 8..=128.
pub fn bank_picture(ll: &LinearLayout, shape: &[u64], elem_bits: u64) -> Result<Picture> {
    bank_picture_access(ll, shape, elem_bits, None)
}

/// [`bank_picture`] with an access pattern ([`crate::access::first_access`])
/// drawn over CTA 0: every cell the access touches is outlined (blue), cells
/// whose bank serves more than one distinct 4-byte word in their phase are
/// filled red, and a legend line gives the instruction's wavefronts. The
/// pattern must have been computed for the same layout and `elem_bits`.
pub fn bank_picture_access(
    ll: &LinearLayout,
    shape: &[u64],
    elem_bits: u64,
    access: Option<&AccessPattern>,
) -> Result<Picture> {
    if !(8..=128).contains(&elem_bits) || !elem_bits.is_power_of_two() {
        return Err(ViewError::BadParameter(format!(
            "element bit width must be 8, 16, 32, 64 or 128, got {elem_bits}"
        )));
    }
    crate::check_shape(ll, shape)?;
    if LayoutKind::of(ll)? != LayoutKind::Shared {
        return Err(ViewError::WrongKind(
            "the bank view needs a shared layout (offset/block)".into(),
        ));
    }
    // Validates sizes; the picture itself shows every offset of every CTA.
    let t = SharedTable::new(ll, shape)?;
    picture_size_ok(ll)?;
    let per_row = 1024 / elem_bits; // elements per 128-byte line
    let lines = t.offsets.div_ceil(per_row);
    let total_lines = lines * t.blocks;
    // Cells fit PICTURE_WIDTH less the margins; an element of ≥ 64 bits
    // spans several banks. Labels: each coordinate on its own line (8-unit
    // font, 5 units per digit), when they fit.
    let bank_units = (elem_bits / 32).max(1);
    let cw = ((PICTURE_WIDTH - 96) / per_row).min(40 * bank_units).max(2);
    let digits = max_digits(shape);
    let labels =
        total_lines <= 128 && shape.iter().product::<u64>() <= 4096 && cw >= digits * 5 + 4;
    let (ch, font) = if labels {
        (shape.len() as u64 * 9 + 4, 8)
    } else {
        (cw.min((2048 / total_lines.max(1)).clamp(2, 8)), 0)
    };
    let margin = 48;
    let title = format!(
        "Shared-memory banks of a {} tensor, {elem_bits}-bit elements: {} offsets per CTA, {} CTA(s)",
        shape_text(shape),
        t.offsets,
        t.blocks
    );
    let mut doc = Doc::new();
    doc.text(8, 18, 14, "start", &title);
    let row_of = |e: u64| e / shape.last().copied().unwrap_or(1);
    let mut panels = Vec::new();
    let mut y = 40;
    let off_dim = DimName::OFFSET;
    for b in 0..t.blocks {
        if t.blocks > 1 {
            doc.text(8, y + 12, 12, "start", &format!("Block {b}"));
            y += 16;
        }
        y += 22;
        // Bank numbers along the top.
        let bank_w = per_row * cw / 32;
        for k in 0..32 {
            if labels || k % 4 == 0 {
                doc.text(
                    margin + k * bank_w + bank_w / 2,
                    y - 4,
                    8,
                    "middle",
                    &k.to_string(),
                );
            }
        }
        let elem = |r: u64, c: u64| -> Option<u64> {
            let o = r * per_row + c;
            (o < t.offsets).then(|| {
                let v = crate::apply_named(ll, &[(DimName::BLOCK, b), (off_dim, o)]);
                crate::linearize(&v, shape)
            })
        };
        let info = (0..lines * per_row)
            .map(|i| {
                let (r, c) = (i / per_row, i % per_row);
                let o = r * per_row + c;
                let bank = (o * elem_bits / 32) % 32;
                let base = match elem(r, c) {
                    Some(e) => format!("block {b} offset {o} (bank {bank}) → {}", coords(e, shape)),
                    None => format!("block {b} offset {o}: outside the allocation"),
                };
                match access
                    .filter(|_| b == 0)
                    .and_then(|a| a.touched.get(&o).map(|ls| (a, ls)))
                {
                    Some((a, ls)) => {
                        let who: Vec<String> = ls
                            .iter()
                            .map(|&l| {
                                let la = &a.lanes[l as usize];
                                format!(
                                    "lane {l} R{}",
                                    la.registers[(o - la.first_offset) as usize]
                                )
                            })
                            .collect();
                        let phase = a.lanes[ls[0] as usize].phase;
                        let conflict = if a.conflicting.contains(&o) {
                            " — BANK CONFLICT"
                        } else {
                            ""
                        };
                        format!(
                            "{base}; accessed in phase {phase} by {}{conflict}",
                            who.join(", ")
                        )
                    }
                    None => base,
                }
            })
            .collect();
        let p = Panel {
            x: margin,
            y,
            cw,
            ch,
            rows: lines,
            cols: per_row,
            info,
        };
        let color = |r: u64, c: u64| elem(r, c).map_or("#ffffff", |e| fill(row_of(e)));
        let label = |r: u64, c: u64| elem(r, c).map_or(vec![], |e| coord_lines(e, shape));
        grid(&mut doc, &p, labels, font, &color, &label);
        // Bank boundaries.
        for k in 0..=32 {
            let x = margin + k * bank_w;
            doc.line(x, y, x, y + lines * ch, if labels { "1" } else { "0.3" });
        }
        ticks(&mut doc, &p, None, tick_step(ch, 12), 8);
        if let Some(a) = access.filter(|_| b == 0) {
            access_overlay(&mut doc, &p, a, labels);
        }
        y += lines * ch + 12;
        panels.push(p);
    }
    doc.text(
        8,
        y + 10,
        11,
        "start",
        "Rows: 128-byte lines (left: line number); columns: 32 four-byte banks; colour: logical row.",
    );
    if let Some(a) = access {
        y += 18;
        let entries = [
            ("accessed (CTA 0)".to_string(), Swatch::Frame(ACCESS_STROKE)),
            (
                "bank conflict: the bank serves > 1 distinct word in the phase".to_string(),
                Swatch::Hatch,
            ),
        ];
        y = legend(&mut doc, 8, y, PICTURE_WIDTH - 16, &entries);
        doc.text(8, y + 10, 11, "start", &a.summary());
    }
    let w = (margin * 2 + per_row * cw).max(640);
    Ok(Picture {
        svg: doc.finish(w, y + 20, &title, &layout_desc(ll)),
        panels,
        title,
    })
}

/// Outline of accessed cells.
pub const ACCESS_STROKE: &str = "#08306b";
/// Outlines the cells of `p` (a bank panel of CTA 0) that `a` touches;
/// conflicting ones get the [`CONFLICT_COLOR`] hatch and frame over their
/// own fill and label. Each marked cell is one `<rect class="access">` or
/// `<rect class="conflict">` (tests read them).
fn access_overlay(doc: &mut Doc, p: &Panel, a: &AccessPattern, labels: bool) {
    let sw = if labels { 2 } else { 1 };
    for &o in a.touched.keys() {
        let (r, c) = (o / p.cols, o % p.cols);
        if r >= p.rows {
            continue;
        }
        let (x, y) = (p.x + c * p.cw, p.y + r * p.ch);
        if a.conflicting.contains(&o) {
            let h = doc.hatch();
            let _ = writeln!(
                doc.body,
                "<rect class=\"conflict\" x=\"{x}\" y=\"{y}\" width=\"{}\" height=\"{}\" fill=\"{h}\" stroke=\"{CONFLICT_COLOR}\" stroke-width=\"{sw}\"/>",
                p.cw, p.ch
            );
        } else {
            let _ = writeln!(
                doc.body,
                "<rect class=\"access\" x=\"{x}\" y=\"{y}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"{ACCESS_STROKE}\" stroke-width=\"{sw}\"/>",
                p.cw, p.ch
            );
        }
    }
}

//! The picture of a Blackwell tensor-memory layout
//! `L: row × col × block → dim0 × dim1 × ...` (see `hw_layouts::tmem`).
//!
//! One panel per CTA: one grid row per TMEM lane (`row`, 128 of them for a
//! full allocation), one grid column per TMEM column (`col`); cell
//! `(r, c)` shows `L(row = r, col = c, block = b)`, coloured by its logical
//! row like the bank picture. Thick lines every 32 rows separate the four
//! 32-lane sub-partitions (warp `w` of a warp group reaches rows
//! `32·(w mod 4) ..`). A zero basis makes two cells show the same element:
//! for `row` bits 5 and 6 that is a broadcast, elsewhere an unused slot,
//! which the read-out cannot tell apart (the layout alone does not say).

use super::*;

/// The tensor-memory picture of `ll` (see the module docs).
pub fn tmem_picture(ll: &LinearLayout, shape: &[u64]) -> Result<Picture> {
    crate::check_shape(ll, shape)?;
    if LayoutKind::of(ll)? != LayoutKind::TensorMemory {
        return Err(ViewError::WrongKind(
            "the tensor-memory picture needs a tensor-memory layout (row/col/block)".into(),
        ));
    }
    picture_size_ok(ll)?;
    let size = |d: DimName| {
        if ll.has_in_dim(d) {
            ll.in_dim_size(d)
        } else {
            1
        }
    };
    let (rows, cols, blocks) = (size(DimName::ROW), size(DimName::COL), size(DimName::BLOCK));
    let margin = 48;
    let cw = ((PICTURE_WIDTH - 2 * margin) / cols).clamp(2, 40);
    let digits = max_digits(shape);
    let labels = rows * blocks <= 128 && cw >= digits * 5 + 4;
    let (ch, font) = if labels {
        (shape.len() as u64 * 9 + 4, 8)
    } else {
        (cw.min((2048 / (rows * blocks).max(1)).clamp(2, 8)), 0)
    };
    let title = format!(
        "Tensor memory of a {} tensor: {rows} lane(s) (rows) × {cols} column(s), {blocks} CTA(s)",
        shape_text(shape)
    );
    let mut doc = Doc::new();
    doc.text(8, 18, 14, "start", &title);
    let row_len = shape.last().copied().unwrap_or(1);
    let mut panels = Vec::new();
    let mut y = 40;
    for b in 0..blocks {
        if blocks > 1 {
            doc.text(8, y + 12, 12, "start", &format!("CTA {b}"));
            y += 16;
        }
        y += 22;
        let elem = |r: u64, c: u64| {
            let v = crate::apply_named(
                ll,
                &[(DimName::ROW, r), (DimName::COL, c), (DimName::BLOCK, b)],
            );
            crate::linearize(&v, shape)
        };
        let info = (0..rows * cols)
            .map(|i| {
                let (r, c) = (i / cols, i % cols);
                format!("CTA {b} row {r} col {c} → {}", coords(elem(r, c), shape))
            })
            .collect();
        let p = Panel {
            x: margin,
            y,
            cw,
            ch,
            rows,
            cols,
            info,
        };
        let color = |r: u64, c: u64| fill(elem(r, c) / row_len);
        let label = |r: u64, c: u64| coord_lines(elem(r, c), shape);
        grid(&mut doc, &p, labels, font, &color, &label);
        for r in (32..rows).step_by(32) {
            doc.line(margin, y + r * ch, margin + cols * cw, y + r * ch, "2");
        }
        ticks(&mut doc, &p, Some(tick_step(cw, 24)), tick_step(ch, 12), 8);
        y += rows * ch + 12;
        panels.push(p);
    }
    doc.text(
        8,
        y + 10,
        11,
        "start",
        "Rows: TMEM lanes (thick lines: 32-lane sub-partitions); columns: TMEM columns; colour: logical row.",
    );
    let w = (margin * 2 + cols * cw).max(760);
    Ok(Picture {
        svg: doc.finish(w, y + 20, &title, &layout_desc(ll)),
        panels,
        title,
    })
}

//! The tensor and hardware pictures of a distributed layout (see
//! [`super`]).

use super::*;

/// The tensor-view picture of a distributed layout (see the module docs).
pub fn tensor_picture(ll: &LinearLayout, shape: &[u64]) -> Result<Picture> {
    tensor_picture_window(ll, shape, &Window::default())
}

/// [`tensor_picture`] of a window of the last two dims (a zoom): the grid
/// shows only the window's cells, with ticks in tensor coordinates.
pub fn tensor_picture_window(ll: &LinearLayout, shape: &[u64], window: &Window) -> Result<Picture> {
    check_shape(ll, shape)?;
    if LayoutKind::of(ll)? != LayoutKind::Distributed {
        return Err(ViewError::WrongKind(
            "expected a distributed layout (register/lane/warp/block)".into(),
        ));
    }
    let (sub, origin) = window.resolve(shape)?;
    let cells: u64 = sub.iter().product();
    if cells > MAX_PICTURE_CELLS {
        return Err(ViewError::BadParameter(format!(
            "too many cells to draw: {cells} > {MAX_PICTURE_CELLS}; draw a window (--rows/--cols)"
        )));
    }
    // Linear index in the full tensor of cell `i` of the window.
    let full = |i: u64| -> u64 {
        delinearize(i, &sub)
            .iter()
            .zip(&origin)
            .zip(shape)
            .fold(0, |acc, ((&x, &o), &n)| acc * n + x + o)
    };
    let (rows, cols) = grid_shape(&sub);
    let (cell, font, labels) = fit_cell(rows, cols, PICTURE_WIDTH - 80);
    let margin = 40;
    let title = if *window == Window::default() {
        format!("Tensor view of a {} tensor", shape_text(shape))
    } else {
        let r = |d: usize| format!("{}..{}", origin[d], origin[d] + sub[d]);
        let parts: Vec<String> = (0..shape.len()).map(r).collect();
        format!(
            "Tensor view of a {} tensor, window [{}]",
            shape_text(shape),
            parts.join(", ")
        )
    };
    let (t, holders) = window_holders(ll, shape, cells, &full)?;
    let mut doc = Doc::new();
    doc.text(margin, 18, 14, "start", &title);
    let (p, mut marks) = tensor_grid(
        &mut doc,
        &t,
        &holders,
        shape,
        &full,
        &sub,
        &origin,
        (margin, 48),
        (rows, cols),
        (cell, font, labels),
    );
    marks.dark_lanes = !labels;
    let mut y = p.y + rows * cell + 12;
    if !labels {
        doc.text(
            margin,
            y + 10,
            11,
            "start",
            "Cells too small for labels: colour = warp of the first holder; the HTML page shows each cell.",
        );
        y += 18;
    }
    let entries = tensor_legend(&marks, &|i| warp_name(&t, i));
    let w = (margin * 2 + cols * cell).max(520);
    let h = legend(&mut doc, margin, y, w - 2 * margin, &entries) + 8;
    Ok(Picture {
        svg: doc.finish(w, h, &title, &layout_desc(ll)),
        panels: vec![p],
        title,
    })
}

/// The hardware-view picture of a distributed layout (see the module docs).
pub fn hardware_picture(ll: &LinearLayout, shape: &[u64]) -> Result<Picture> {
    let t = DistributedTable::new(ll, shape)?;
    picture_size_ok(ll)?;
    let total_rows = t.blocks * t.warps * t.registers;
    let labels = total_rows <= 128 && t.lanes <= 64;
    let max_len = (0..shape.iter().product::<u64>())
        .map(|e| coords(e, shape).len() as u64)
        .max()
        .unwrap_or(1);
    // Labelled cells show the coordinates on one line, or one per line when
    // one line would make the picture wider than PICTURE_WIDTH.
    let margin = 48;
    let avail = PICTURE_WIDTH - 2 * margin;
    let one_line = (max_len * 6 + 8).max(28);
    let digits = max_digits(shape);
    let per_line = labels && one_line * t.lanes > avail;
    let labels = labels && (!per_line || avail / t.lanes >= digits * 6 + 4);
    let (cw, ch, font) = if !labels {
        (
            8.min(avail / t.lanes).max(2),
            (2048 / total_rows).clamp(1, 8),
            0,
        )
    } else if per_line {
        (avail / t.lanes, shape.len() as u64 * 10 + 4, 9)
    } else {
        (one_line, 18, 9)
    };
    let title = format!(
        "Hardware view of a {} tensor: {} CTA(s) × {} warp(s) × {} register(s) × {} lane(s)",
        shape_text(shape),
        t.blocks,
        t.warps,
        t.registers,
        t.lanes
    );
    let mut doc = Doc::new();
    doc.text(8, 18, 14, "start", &title);
    let cols_shape = *shape.last().unwrap_or(&1);
    let mut panels = Vec::new();
    let mut y = 40;
    for b in 0..t.blocks {
        for w in 0..t.warps {
            let name = if t.blocks > 1 {
                format!("Block {b} Warp {w}")
            } else {
                format!("Warp {w}")
            };
            doc.text(8, y + 12, 12, "start", &name);
            y += if labels { 34 } else { 18 };
            let base = (b * t.warps + w) * t.lanes * t.registers;
            let slot = |r: u64, c: u64| base + c * t.registers + r;
            let info = (0..t.registers * t.lanes)
                .map(|i| {
                    let (r, c) = (i / t.lanes, i % t.lanes);
                    let e = t.element_of_slot[slot(r, c) as usize];
                    let b = if t.blocks > 1 {
                        format!("block {b} ")
                    } else {
                        String::new()
                    };
                    format!(
                        "{b}warp {w} lane {c} register {r} (T{}:{r}) → {}",
                        c + w * t.lanes,
                        coords(e, shape)
                    )
                })
                .collect();
            let p = Panel {
                x: margin,
                y,
                cw,
                ch,
                rows: t.registers,
                cols: t.lanes,
                info,
            };
            let color = |r: u64, c: u64| fill(t.element_of_slot[slot(r, c) as usize] / cols_shape);
            let label = |r: u64, c: u64| {
                let e = t.element_of_slot[slot(r, c) as usize];
                if per_line {
                    coord_lines(e, shape)
                } else {
                    vec![coords(e, shape)]
                }
            };
            grid(&mut doc, &p, labels, font, &color, &label);
            if labels {
                ticks(&mut doc, &p, Some(1), 1, 8);
            } else {
                ticks(&mut doc, &p, Some(tick_step(cw, 24)), tick_step(ch, 12), 8);
            }
            y += t.registers * ch + 12;
            panels.push(p);
        }
    }
    doc.text(
        8,
        y + 10,
        11,
        "start",
        "Rows: registers; columns: lanes; colour: logical row of the element held.",
    );
    let w = (margin * 2 + t.lanes * cw).max(640);
    Ok(Picture {
        svg: doc.finish(w, y + 20, &title, &layout_desc(ll)),
        panels,
        title,
    })
}

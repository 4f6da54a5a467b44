//! The paper's Figure 1: two layouts of a 16×16 tensor on two warps, drawn
//! as SVG (tensor view and hardware view) into `docs/pictures/`.
//!
//! Regenerate (from the workspace root):
//!
//! ```text
//! cargo run -p layout-view --example figure1            # writes docs/pictures/
//! cargo run -p layout-view --example figure1 -- OUT_DIR # writes elsewhere
//! ```
//!
//! Layout A (§4.1 of the paper): `sizePerThread = [2, 2]`,
//! `threadsPerWarp = [4, 8]`, `warpsPerCTA = [2, 1]`, `order = [1, 0]`: the
//! fastest dim is dim1 (`j`): register bit 0 → `j` bit 0, register bit 1 →
//! `i` bit 0, lane bits 0..3 → `j` bits 1..4, lane bits 3..5 → `i` bits
//! 1..3, warp bit 0 → `i` bit 3.
//!
//! Layout B: the figure is an image whose parameters the text does not
//! give; we draw its column-major counterpart (`sizePerThread = [2, 2]`,
//! `threadsPerWarp = [8, 4]`, `warpsPerCTA = [1, 2]`, `order = [0, 1]`):
//! consecutive lanes walk down a column, so a row-major load is not
//! coalesced, which is the caption's point.

use layout_view::{html, svg};
use linear_layout::{DimName, LinearLayout};
use std::path::PathBuf;

/// Layout A (see the module docs).
pub fn layout_a() -> LinearLayout {
    let (reg, lane, warp) = (DimName::REGISTER, DimName::LANE, DimName::WARP);
    let (d0, d1) = (DimName::dim(0), DimName::dim(1));
    let id = LinearLayout::identity_1d;
    let a = id(2, reg, d1) * id(2, reg, d0) * id(8, lane, d1) * id(4, lane, d0) * id(2, warp, d0);
    a.transpose_outs(&[d0, d1]).expect("dims are dim0, dim1")
}

/// Layout B (see the module docs).
pub fn layout_b() -> LinearLayout {
    let (reg, lane, warp) = (DimName::REGISTER, DimName::LANE, DimName::WARP);
    let (d0, d1) = (DimName::dim(0), DimName::dim(1));
    let id = LinearLayout::identity_1d;
    let b = id(2, reg, d0) * id(2, reg, d1) * id(8, lane, d0) * id(4, lane, d1) * id(2, warp, d1);
    b.transpose_outs(&[d0, d1]).expect("dims are dim0, dim1")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/pictures"));
    std::fs::create_dir_all(&dir)?;
    let shape = [16, 16];
    for (name, ll) in [("a", layout_a()), ("b", layout_b())] {
        let t = svg::tensor_picture(&ll, &shape)?;
        std::fs::write(dir.join(format!("figure1-{name}.svg")), &t.svg)?;
        std::fs::write(dir.join(format!("figure1-{name}.html")), html::page(&t))?;
        let h = svg::hardware_picture(&ll, &shape)?;
        std::fs::write(dir.join(format!("figure1-{name}-hardware.svg")), &h.svg)?;
        println!("layout {name}:\n{ll}");
    }
    println!("wrote {}", dir.display());
    Ok(())
}

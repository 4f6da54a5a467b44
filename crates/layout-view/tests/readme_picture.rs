//! The README's 64×64 conversion picture (`docs/pictures/convert-64x64.svg`)
//! is what the library draws today for the conversion it names.
//!
//! Source `#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8],
//! warpsPerCTA = [4, 1], order = [1, 0]}>` on 64×64, by hand: registers 0..2
//! → dim1 bits 0..2 (8 consecutive columns), lanes 0..2 → dim1 bits 3..5,
//! lanes 3, 4 → dim0 bits 0, 1, warps → dim0 bits 2, 3, and the tile
//! (16 × 64) repeats down the rows in registers 3, 4 (dim0 bits 4, 5). The
//! destination is its transpose (`sizePerThread = [8, 1]`, `threadsPerWarp
//! = [8, 4]`, `warpsPerCTA = [1, 4]`, `order = [0, 1]`). The command in
//! `docs/pictures/README.md` writes the same bytes from the attributes.

use layout_codegen::choice::plan_conversion;
use layout_view::convert::conversion_picture;
use linear_layout::LinearLayout;
use serde_json::json;

#[test]
fn the_readme_conversion_picture_is_up_to_date() {
    let shape = [64, 64];
    let src = json!({"register": [[0,1],[0,2],[0,4],[16,0],[32,0]], "lane": [[0,8],[0,16],[0,32],[1,0],[2,0]], "warp": [[4,0],[8,0]], "block": []});
    let dst = json!({"register": [[1,0],[2,0],[4,0],[0,16],[0,32]], "lane": [[8,0],[16,0],[32,0],[0,1],[0,2]], "warp": [[0,4],[0,8]], "block": []});
    let src = LinearLayout::from_json(&src, Some(&shape)).unwrap();
    let dst = LinearLayout::from_json(&dst, Some(&shape)).unwrap();
    let plan = plan_conversion(&src, &dst, 16).unwrap();
    let (pic, _) = conversion_picture(&src, &dst, &plan, &shape, &[18, 41]).unwrap();
    let path = format!(
        "{}/../../docs/pictures/convert-64x64.svg",
        env!("CARGO_MANIFEST_DIR")
    );
    let committed = std::fs::read_to_string(path).unwrap();
    assert!(
        pic.svg == committed,
        "docs/pictures/convert-64x64.svg is stale: rerun the command in docs/pictures/README.md"
    );
}

//! `HolderSolver` (holders of one element by solving `L(s) = e` over GF(2))
//! against the brute-force enumeration of `DistributedTable` on every
//! distributed layout of Triton 3.9's view oracle, and the text view of a
//! window of a layout far beyond the table's limit read back through the
//! layout itself.

use layout_view::{tensor_view_window, DistributedTable, HolderSolver, LayoutKind, Window};
use linear_layout::{DimName, LinearLayout};
use serde_json::Value;

fn oracle_layouts() -> Vec<(String, LinearLayout, Vec<u64>)> {
    let mut out = Vec::new();
    for name in [
        "sample-layout-views.jsonl",
        "generated-layout-views.jsonl",
        "seed41-layout-views.jsonl",
    ] {
        let path = format!(
            "{}/../../tests/data/triton-oracle/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        for line in std::fs::read_to_string(path).expect("oracle file").lines() {
            if line.trim().is_empty() {
                continue;
            }
            let rec: Value = serde_json::from_str(line).expect("json line");
            let shape: Vec<u64> = rec["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            let ll = LinearLayout::from_json(&rec["linear"], Some(&shape)).expect("layout");
            out.push((rec["id"].as_str().unwrap().to_string(), ll, shape));
        }
    }
    out
}

#[test]
fn solver_holders_equal_the_enumerated_table_on_every_oracle_layout() {
    let mut checked = 0;
    for (id, ll, shape) in oracle_layouts() {
        if LayoutKind::of(&ll).unwrap() != LayoutKind::Distributed {
            continue;
        }
        let table = DistributedTable::new(&ll, &shape).unwrap();
        let solver = HolderSolver::new(&ll, &shape).unwrap();
        assert_eq!(solver.sizes, table.sizes(), "{id}");
        for (e, want) in table.holders.iter().enumerate() {
            let want: Vec<u64> = want.iter().map(|&s| u64::from(s)).collect();
            assert_eq!(solver.holders(e as u64), want, "{id}: element {e}");
        }
        checked += 1;
    }
    assert!(checked >= 100, "only {checked} distributed layouts");
}

/// `T<tid>:<reg>` entries of one cell, as (lane, warp, register).
fn holders_in_cell(cell: &str, lanes: u64) -> Vec<(u64, u64, u64)> {
    cell.split('|')
        .map(|h| {
            let h = h.trim().trim_start_matches('T');
            let (tid, reg) = h.split_once(':').unwrap();
            let tid: u64 = tid.parse().unwrap();
            (tid % lanes, tid / lanes, reg.parse().unwrap())
        })
        .collect()
}

#[test]
fn a_window_of_a_layout_beyond_the_table_limit_reads_back_through_the_layout() {
    // 65536 x 65536 = 2^32 elements: the table would hold 2^32 entries.
    let text = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";
    let shape = [65536u64, 65536];
    let ll = hw_layouts_free_blocked(text, &shape);
    assert!(DistributedTable::new(&ll, &shape).is_err());
    let window = Window {
        rows: Some(40000..40004),
        cols: Some(1000..1008),
    };
    let view = tensor_view_window(&ll, &shape, &window).unwrap();
    let rows: Vec<&str> = view.lines().collect();
    assert_eq!(rows.len(), 4);
    for (i, row) in rows.iter().enumerate() {
        let cells: Vec<&str> = row
            .trim_matches(|c| c == '[' || c == ']')
            .split(", ")
            .collect();
        assert_eq!(cells.len(), 8, "{row}");
        for (j, cell) in cells.iter().enumerate() {
            let holders = holders_in_cell(cell, 32);
            assert_eq!(holders.len(), 1, "{cell}");
            for (lane, warp, reg) in holders {
                let got = ll
                    .apply(&[
                        (DimName::REGISTER, reg),
                        (DimName::LANE, lane),
                        (DimName::WARP, warp),
                        (DimName::BLOCK, 0),
                    ])
                    .unwrap();
                let got: Vec<u64> = got.iter().map(|(_, v)| *v).collect();
                assert_eq!(got, vec![40000 + i as u64, 1000 + j as u64], "{cell}");
            }
        }
    }
}

/// The blocked layout of `text` as its linear layout (register, lane, warp
/// bases), built from the attribute's parameters by hand so that this test
/// does not depend on hw-layouts: `sizePerThread = [1, 4]`, `threadsPerWarp =
/// [8, 4]`, `warpsPerCTA = [4, 1]`, `order = [1, 0]`, tiled over `shape`
/// (registers repeat the CTA tile 32 x 16 along dim1 first, then dim0).
fn hw_layouts_free_blocked(text: &str, shape: &[u64; 2]) -> LinearLayout {
    assert!(text.contains("sizePerThread = [1, 4]"));
    let (m, n) = (shape[0].trailing_zeros(), shape[1].trailing_zeros());
    // Register bits: 2 inside the thread along dim1, then the repeats of the
    // 32 x 16 CTA tile: dim1 bits 4.. then dim0 bits 5..
    let mut reg = vec![vec![0u64, 1], vec![0, 2]];
    reg.extend((4..n).map(|b| vec![0, 1 << b]));
    reg.extend((5..m).map(|b| vec![1 << b, 0]));
    let lane = vec![vec![0, 4], vec![0, 8], vec![1, 0], vec![2, 0], vec![4, 0]];
    let warp = vec![vec![8, 0], vec![16, 0]];
    let json = serde_json::json!({
        "register": reg, "lane": lane, "warp": warp, "block": [],
    });
    LinearLayout::from_json(&json, Some(&shape[..])).unwrap()
}

#[test]
fn a_picture_window_of_a_layout_beyond_the_table_limit_reads_back_through_the_layout() {
    let text = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";
    let shape = [65536u64, 65536];
    let ll = hw_layouts_free_blocked(text, &shape);
    let window = Window {
        rows: Some(123..131),
        cols: Some(4000..4016),
    };
    let pic = layout_view::svg::tensor_picture_window(&ll, &shape, &window).unwrap();
    let info = &pic.panels[0].info;
    assert_eq!(info.len(), 8 * 16);
    for (k, line) in info.iter().enumerate() {
        let (r, c) = (123 + k as u64 / 16, 4000 + k as u64 % 16);
        // "(r, c) ← warp W lane L register R (T..:..)"
        let (_, held) = line.split_once(" ← ").unwrap();
        let words: Vec<&str> = held.split_whitespace().collect();
        assert_eq!(
            (words[0], words[2], words[4]),
            ("warp", "lane", "register"),
            "{line}"
        );
        let num = |i: usize| words[i].parse::<u64>().unwrap();
        let got = ll
            .apply(&[
                (DimName::REGISTER, num(5)),
                (DimName::LANE, num(3)),
                (DimName::WARP, num(1)),
                (DimName::BLOCK, 0),
            ])
            .unwrap();
        let got: Vec<u64> = got.iter().map(|(_, v)| *v).collect();
        assert_eq!(got, vec![r, c], "{line}");
    }
}

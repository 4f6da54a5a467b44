//! Pictures: their cell labels and read-outs checked against Triton 3.9's
//! `get_layout_view` records (independent of our text views), plus
//! snapshots of a dozen layouts across kinds (tests/snapshots/, reviewed by
//! eye: `cargo insta review`).

use layout_view::svg::{bank_picture, hardware_picture, tensor_picture, tensor_picture_window};
use layout_view::{html, Window};
use linear_layout::LinearLayout;
use serde_json::Value;

fn records() -> Vec<Value> {
    let mut out = Vec::new();
    for name in ["sample-layout-views.jsonl", "generated-layout-views.jsonl"] {
        let path = format!(
            "{}/../../tests/data/triton-oracle/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        for l in std::fs::read_to_string(path).unwrap().lines() {
            out.push(serde_json::from_str(l).unwrap());
        }
    }
    out
}

fn layout_of(rec: &Value) -> (LinearLayout, Vec<u64>) {
    let shape: Vec<u64> = rec["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    (
        LinearLayout::from_json(&rec["linear"], Some(&shape)).unwrap(),
        shape,
    )
}

/// Cells of an oracle tensor view in row-major order (any rank): strip the
/// brackets, split lines at the separator.
fn oracle_cells(view: &str, rank: usize, sep: &str) -> Vec<String> {
    view.lines()
        .flat_map(|l| {
            l[rank..]
                .trim_end_matches(']')
                .split(sep)
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Holder tokens `T<tid>:<reg>` (with `B<b>:` prefix) of an oracle cell.
fn tokens(cell: &str) -> Vec<String> {
    cell.split('|')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

#[test]
fn tensor_picture_readouts_and_labels_match_the_oracle() {
    let mut checked = 0;
    for rec in records().iter().filter(|r| r["space"] == "dist") {
        let (ll, shape) = layout_of(rec);
        let pic = tensor_picture(&ll, &shape).unwrap();
        let cells = oracle_cells(rec["tensor_view"].as_str().unwrap(), shape.len(), ", ");
        let info = &pic.panels[0].info;
        assert_eq!(info.len(), cells.len(), "{}", rec["id"]);
        for (i, cell) in cells.iter().enumerate() {
            // Read-out: "(i,j) ← ... (T5:3); ... (T37:3)" — its T-tokens,
            // with the block prefix, are the oracle's holders in order.
            let got: Vec<String> = info[i]
                .split("; ")
                .filter_map(|h| {
                    let t = h.rsplit_once('(')?.1.trim_end_matches(')');
                    let b = h
                        .split("block ")
                        .nth(1)
                        .map(|x| x.split(' ').next().unwrap());
                    Some(match b {
                        Some(b) if h.contains("block ") => format!("B{b}:{t}"),
                        _ => t.to_string(),
                    })
                })
                .collect();
            assert_eq!(got, tokens(cell), "{} cell {i}", rec["id"]);
        }
        // Labels (drawn when the grid is small): first holder, "T<tid>" and
        // "R<reg>" lines, in row-major cell order.
        let labels: Vec<&str> = pic
            .svg
            .lines()
            .filter(|l| l.contains("font-size=\"11\" text-anchor=\"middle\""))
            .map(|l| l.split('>').nth(1).unwrap().trim_end_matches("</text"))
            .collect();
        if labels.len() >= 2 * cells.len() {
            let mut it = labels.iter();
            for cell in &cells {
                match tokens(cell).first() {
                    None => assert_eq!(*it.next().unwrap(), "·"),
                    Some(first) => {
                        let tr = first.rsplit_once("T").unwrap().1;
                        let (t, r) = tr.split_once(':').unwrap();
                        let t_label = it.next().unwrap();
                        assert!(t_label.ends_with(&format!("T{t}")), "{t_label} vs {first}");
                        let r_label = it.next().unwrap();
                        assert!(
                            r_label.starts_with(&format!("R{r}")),
                            "{r_label} vs {first}"
                        );
                    }
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 40, "labels checked on {checked} layouts");
}

/// The `(...)` groups of a line, spaces removed.
fn parens(line: &str) -> Vec<String> {
    line.replace(' ', "")
        .split_inclusive(')')
        .map(|g| g.trim_start_matches(',').to_string())
        .filter(|g| !g.is_empty())
        .collect()
}

#[test]
fn hardware_picture_readouts_match_the_oracle() {
    for rec in records().iter().filter(|r| r["space"] == "dist") {
        let (ll, shape) = layout_of(rec);
        let pic = hardware_picture(&ll, &shape).unwrap();
        // Oracle lines: one per register of each warp, one padded
        // coordinate "( i, j)" per lane: compare without spaces.
        let want: Vec<Vec<String>> = rec["hardware_view"]
            .as_str()
            .unwrap()
            .lines()
            .filter(|l| l.starts_with('('))
            .map(parens)
            .collect();
        let mut got = Vec::new();
        for p in &pic.panels {
            for r in 0..p.rows {
                got.push(
                    (0..p.cols)
                        .map(|c| {
                            p.info[(r * p.cols + c) as usize]
                                .rsplit_once("→ ")
                                .unwrap()
                                .1
                                .to_string()
                        })
                        .collect::<Vec<_>>(),
                );
            }
        }
        assert_eq!(got, want, "{}", rec["id"]);
    }
}

#[test]
fn bank_picture_readouts_match_the_oracle() {
    for rec in records().iter().filter(|r| r["space"] == "shared") {
        let (ll, shape) = layout_of(rec);
        let pic = bank_picture(&ll, &shape, 32).unwrap();
        // Oracle "Offset: o -> (i,j)" per block (offsets below S only).
        let mut block = 0usize;
        for line in rec["hardware_view"].as_str().unwrap().lines() {
            if let Some(b) = line.strip_prefix("Block: ") {
                block = b.trim_end_matches(':').parse().unwrap();
                continue;
            }
            let (o, c) = line
                .strip_prefix("Offset: ")
                .unwrap()
                .split_once(" -> ")
                .unwrap();
            let o: usize = o.parse().unwrap();
            let info = &pic.panels[block].info[o];
            // 32-bit elements: offset o is in bank o mod 32.
            let want = format!(
                "block {block} offset {o} (bank {}) → {}",
                o % 32,
                c.replace(' ', "")
            );
            assert_eq!(info, &want, "{}", rec["id"]);
        }
    }
}

#[test]
fn windowed_picture_is_a_crop() {
    let rec = records()
        .into_iter()
        .find(|r| r["id"] == "s2-V00000")
        .unwrap();
    let (ll, shape) = layout_of(&rec);
    let full = tensor_picture(&ll, &shape).unwrap();
    let w = Window {
        rows: Some(4..12),
        cols: Some(8..16),
    };
    let part = tensor_picture_window(&ll, &shape, &w).unwrap();
    let (fp, pp) = (&full.panels[0], &part.panels[0]);
    assert_eq!((pp.rows, pp.cols), (8, 8));
    for r in 0..8 {
        for c in 0..8 {
            assert_eq!(
                pp.info[(r * 8 + c) as usize],
                fp.info[((r + 4) * 16 + c + 8) as usize]
            );
        }
    }
    assert!(part.svg.contains("window [4..12, 8..16]"));
}

#[test]
fn pictures_are_deterministic_and_bad_bits_rejected() {
    let rec = records()
        .into_iter()
        .find(|r| r["id"] == "s2-V00005")
        .unwrap();
    let (ll, shape) = layout_of(&rec);
    assert_eq!(
        bank_picture(&ll, &shape, 16).unwrap().svg,
        bank_picture(&ll, &shape, 16).unwrap().svg
    );
    for bits in [0, 4, 12, 256] {
        let e = bank_picture(&ll, &shape, bits).unwrap_err();
        assert!(e.to_string().contains(&bits.to_string()), "{e}");
    }
    assert!(
        tensor_picture(&ll, &shape).is_err(),
        "a shared layout has no tensor picture"
    );
}

/// A dozen layouts across kinds, one picture each, snapshotted.
#[test]
fn snapshots() {
    let ids = [
        ("s2-V00000", "amd_wmma"),
        ("s2-V00001", "blocked_2cta"),
        ("s2-V00002", "dot_op"),
        ("s2-V00003", "linear_broadcast"),
        ("s2-V00004", "nvidia_mma"),
        ("s2-V00007", "slice"),
        ("s2-V00009", "amd_wmma_rank3"),
        ("s2-V00005", "nvmma_shared"),
        ("s2-V00006", "shared_linear_broadcast_block"),
        ("s2-V00008", "swizzled_shared"),
        ("s2-V00024", "shared_linear_4cta"),
        ("s2-V00026", "swizzled_shared_2x4"),
    ];
    let recs = records();
    for (id, name) in ids {
        let rec = recs.iter().find(|r| r["id"] == id).unwrap();
        let (ll, shape) = layout_of(rec);
        let svg = if rec["space"] == "dist" {
            tensor_picture(&ll, &shape).unwrap().svg
        } else {
            bank_picture(&ll, &shape, 16).unwrap().svg
        };
        insta::assert_snapshot!(name, svg);
    }
    let rec = recs.iter().find(|r| r["id"] == "s2-V00013").unwrap();
    let (ll, shape) = layout_of(rec);
    let hw = hardware_picture(&ll, &shape).unwrap();
    insta::assert_snapshot!("nvidia_mma_hardware", hw.svg);
    insta::assert_snapshot!("nvidia_mma_hardware_html", html::page(&hw));
}

#[test]
fn oversized_pictures_are_refused_but_windows_drawn() {
    // 1024×1024 elements, one per slot: too many cells for a whole picture,
    // fine for a 16×16 window.
    let reg: Vec<[u64; 2]> = (0..10).map(|i| [0, 1 << i]).collect();
    let lane: Vec<[u64; 2]> = (0..5).map(|i| [1 << i, 0]).collect();
    let warp: Vec<[u64; 2]> = (5..10).map(|i| [1 << i, 0]).collect();
    let j = serde_json::json!({"register": reg, "lane": lane, "warp": warp});
    let ll = LinearLayout::from_json(&j, Some(&[1024, 1024])).unwrap();
    let e = tensor_picture(&ll, &[1024, 1024]).unwrap_err();
    assert!(e.to_string().contains("1048576"), "{e}");
    assert!(hardware_picture(&ll, &[1024, 1024]).is_err());
    let w = Window {
        rows: Some(512..528),
        cols: Some(0..16),
    };
    let p = tensor_picture_window(&ll, &[1024, 1024], &w).unwrap();
    // Cell (0, 0) of the window is element (512, 0): lane 0, warp 16
    // (512 = 16 · 32), register 0: thread 16 · 32 = 512.
    assert!(
        p.panels[0].info[0].contains("(T512:0)"),
        "{}",
        p.panels[0].info[0]
    );
}

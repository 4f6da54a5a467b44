//! `linlayout show --access` and `linlayout convert --svg/--html` end to
//! end, with JSON layouts, checked against hand derivations and against
//! the plan that `convert --json` prints (applied by hand).

use serde_json::{json, Value};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_linlayout"))
        .args(args)
        .output()
        .expect("run linlayout")
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// Exit status 2 and one line on stderr naming `needle`.
fn assert_bad(o: &Output, needle: &str) {
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(needle), "'{needle}' not in: {err}");
}

fn tmp(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("linlayout-pictures-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name).to_string_lossy().into_owned()
}

/// A 16×32 tile, one warp, 4 consecutive columns per thread.
const BLOCKED: &str = r#"{"register": [[0,1],[0,2],[4,0],[8,0]], "lane": [[0,4],[0,8],[0,16],[1,0],[2,0]], "warp": [], "block": []}"#;
/// Column-major: offset = row + 16 · col.
const COL_MAJOR: &str =
    r#"{"offset": [[1,0],[2,0],[4,0],[8,0],[0,1],[0,2],[0,4],[0,8],[0,16]], "block": []}"#;

/// By hand (see layout-view's tests/access.rs): register 0 of lane l is at
/// offset (l >> 3) + 64 (l & 7), banks 0..3 each serve 8 words: 8
/// wavefronts, 32 conflicting cells; the bank-conflicts command (Triton's
/// count, extra wavefronts per phase) says 7 = 8 − 1.
#[test]
fn show_access_marks_the_conflicts() {
    let (svg, html) = (tmp("access.svg"), tmp("access.html"));
    ok(&run(&[
        "show",
        "--shape",
        "16x32",
        "--elem-bits",
        "32",
        "--svg",
        &svg,
        "--html",
        &html,
        COL_MAJOR,
        "--access",
        BLOCKED,
    ]));
    let s = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(s.matches("<rect class=\"conflict\"").count(), 32);
    assert_eq!(s.matches("<rect class=\"access\"").count(), 0);
    assert!(
        s.contains("wavefronts: 8 (per phase: 8; extra per phase: 7)"),
        "legend"
    );
    let triton = ok(&run(&[
        "bank-conflicts",
        "--shape",
        "16x32",
        "--bitwidth",
        "32",
        BLOCKED,
        COL_MAJOR,
    ]));
    assert_eq!(triton.trim(), "7");
    let h = std::fs::read_to_string(&html).unwrap();
    assert!(h.contains("BANK CONFLICT"));
    assert!(
        h.contains("accessed in phase 0 by lane 8 R0"),
        "offset 1 is lane 8's"
    );
}

/// Row-major: 16-byte vectors, 4 phases, no conflict: every one of the
/// 128 touched cells is outlined.
#[test]
fn show_access_without_conflicts() {
    let row_major =
        r#"{"offset": [[0,1],[0,2],[0,4],[0,8],[0,16],[1,0],[2,0],[4,0],[8,0]], "block": []}"#;
    let svg = tmp("access-row.svg");
    ok(&run(&[
        "show",
        "--shape",
        "16x32",
        "--elem-bits",
        "32",
        "--svg",
        &svg,
        row_major,
        "--access",
        BLOCKED,
    ]));
    let s = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(s.matches("<rect class=\"access\"").count(), 128);
    assert_eq!(s.matches("<rect class=\"conflict\"").count(), 0);
    assert!(s.contains("4 phase(s) of 8 lanes; wavefronts: 4"));
}

#[test]
fn show_access_errors() {
    assert_bad(
        &run(&["show", "--shape", "16x32", COL_MAJOR, "--access", BLOCKED]),
        "--svg or --html",
    );
    let svg = tmp("bad.svg");
    assert_bad(
        &run(&[
            "show", "--shape", "16x32", "--svg", &svg, BLOCKED, "--access", BLOCKED,
        ]),
        "shared layout",
    );
    assert_bad(
        &run(&[
            "show", "--shape", "16x32", "--svg", &svg, COL_MAJOR, "--access", COL_MAJOR,
        ]),
        "--access",
    );
    assert_bad(
        &run(&[
            "show", "--shape", "16x32", "--svg", &svg, COL_MAJOR, "--access", "{nope",
        ]),
        "--access",
    );
}

/// XOR of the bases of the set bits of each input (JSON lists).
fn apply_by_hand(bases: &Value, ins: &[(&str, u64)]) -> Vec<u64> {
    let mut out = vec![0u64; 2];
    for (dim, v) in ins {
        for (i, b) in bases[*dim].as_array().unwrap().iter().enumerate() {
            if v >> i & 1 == 1 {
                for (a, x) in out.iter_mut().zip(b.as_array().unwrap()) {
                    *a ^= x.as_u64().unwrap();
                }
            }
        }
    }
    out
}

#[test]
fn convert_picture_follows_the_printed_plan() {
    let src = json!({"register": [[0,1],[0,2]], "lane": [[0,4],[0,8],[1,0],[2,0],[4,0]], "warp": [[8,0]], "block": []});
    let dst = json!({"register": [[1,0],[2,0]], "lane": [[4,0],[8,0],[0,1],[0,2],[0,4]], "warp": [[0,8]], "block": []});
    let (s, d) = (src.to_string(), dst.to_string());
    let plan: Value = serde_json::from_str(&ok(&run(&[
        "convert", "--shape", "16x16", "--dtype", "f16", "--json", &s, &d,
    ])))
    .unwrap();
    assert_eq!(plan["kind"], "shared");
    let shared = &plan["plan"]["shared"];
    let (svg, html) = (tmp("cvt.svg"), tmp("cvt.html"));
    for (arg, element) in [(None, [0u64, 1]), (Some("7,12"), [7, 12])] {
        let mut args = vec![
            "convert", "--shape", "16x16", "--dtype", "f16", "--svg", &svg, "--html", &html,
        ];
        if let Some(a) = arg {
            args.extend(["--element", a]);
        }
        args.extend([s.as_str(), d.as_str()]);
        ok(&run(&args));
        let text = std::fs::read_to_string(&svg).unwrap();
        assert_eq!(text.matches("<rect class=\"path\"").count(), 3);
        // The offset where the printed shared layout puts the element.
        let n = 1u64 << shared["offset"].as_array().unwrap().len();
        let off = (0..n)
            .find(|&o| apply_by_hand(shared, &[("offset", o)]) == element)
            .unwrap();
        let bank = (off * 2 / 4) % 32;
        assert!(
            text.contains(&format!(
                "writes it at offset {off} (byte {}, bank {bank})",
                off * 2
            )),
            "offset {off} for {element:?}"
        );
        // The source and destination threads named hold the element.
        let loc = |prefix: &str| -> (u64, u64, u64) {
            let line = text.lines().find(|l| l.contains(prefix)).unwrap();
            let after = |k: &str| -> u64 {
                let t = &line[line.find(k).unwrap() + k.len()..];
                t.split(|c: char| !c.is_ascii_digit())
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap()
            };
            (after("warp "), after("lane "), after("register "))
        };
        let (w, l, r) = loc(">Source: ");
        assert_eq!(
            apply_by_hand(&src, &[("register", r), ("lane", l), ("warp", w)]),
            element
        );
        let (w, l, r) = loc(">Load: ");
        assert_eq!(
            apply_by_hand(&dst, &[("register", r), ("lane", l), ("warp", w)]),
            element
        );
        assert!(std::fs::read_to_string(&html)
            .unwrap()
            .contains("Point at a cell"));
    }
}

#[test]
fn convert_picture_errors() {
    let src = r#"{"register": [[0,1],[0,2]], "lane": [[0,4],[0,8],[1,0],[2,0],[4,0]], "warp": [[8,0]], "block": []}"#;
    let svg = tmp("bad-cvt.svg");
    assert_bad(
        &run(&["convert", "--shape", "16x16", "--element", "1,2", src, src]),
        "--svg or --html",
    );
    assert_bad(
        &run(&[
            "convert",
            "--shape",
            "16x16",
            "--svg",
            &svg,
            "--element",
            "16,0",
            src,
            src,
        ]),
        "16,0",
    );
    assert_bad(
        &run(&[
            "convert",
            "--shape",
            "16x16",
            "--svg",
            &svg,
            "--element",
            "a,b",
            src,
            src,
        ]),
        "a,b",
    );
    // A no-op conversion draws source → destination without shared memory.
    ok(&run(&[
        "convert", "--shape", "16x16", "--svg", &svg, src, src,
    ]));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("No shared memory"));
    assert_eq!(text.matches("<rect class=\"path\"").count(), 2);
}

/// A 256×256 conversion zoomed on a 16×16 window: the tensor panels get
/// labelled 40-unit cells again (cell (0, 0) at (48, 82)), ticks in tensor
/// coordinates, and the highlighted element sits at its window position.
#[test]
fn convert_picture_zoom() {
    let src = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";
    let dst = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>";
    let svg = tmp("zoom.svg");
    let base = [
        "convert", "--shape", "256x256", "--dtype", "f16", "--svg", &svg, "--rows", "96..112",
        "--cols", "192..208",
    ];
    let mut args = base.to_vec();
    args.extend(["--element", "100,200", src, dst]);
    ok(&run(&args));
    let text = std::fs::read_to_string(&svg).unwrap();
    let first = text
        .lines()
        .find(|l| l.starts_with("<rect class=\"path\""))
        .unwrap();
    // Column 200 − 192 = 8, row 100 − 96 = 4.
    assert!(
        first.contains(&format!("x=\"{}\" y=\"{}\"", 48 + 8 * 40, 82 + 4 * 40)),
        "{first}"
    );
    assert!(text.contains("holds (100,200)"));
    assert!(text.contains("zoomed on [96..112, 192..208]"));
    let mut args = base.to_vec();
    args.extend(["--element", "0,1", src, dst]);
    assert_bad(&run(&args), "outside the window");
    // Default element of a window: its first row, second column.
    let mut args = base.to_vec();
    args.extend([src, dst]);
    ok(&run(&args));
    assert!(std::fs::read_to_string(&svg)
        .unwrap()
        .contains("holds (96,193)"));
    assert_bad(
        &run(&["convert", "--shape", "256x256", "--rows", "0..4", src, dst]),
        "--svg or --html",
    );
}

/// `show` draws tensor-memory layouts (TMEM lanes × columns); the text
/// views, like Triton's, refuse them and point at the picture.
#[test]
fn show_draws_tensor_memory() {
    let tmem = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 32, colStride = 1>";
    let svg = tmp("tmem.svg");
    ok(&run(&["show", "--shape", "128x32", "--svg", &svg, tmem]));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("Tensor memory of a 128×32 tensor: 128 lane(s)"));
    assert_bad(&run(&["show", "--shape", "128x32", tmem]), "--svg");
}

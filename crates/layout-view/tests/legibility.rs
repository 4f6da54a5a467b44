//! The pictures read at a glance: checked on the SVG text itself.
//!
//! - width: a conversion picture of a 32×32 or 64×64 tensor, and bank
//!   pictures with an access drawn, are at most `PICTURE_WIDTH` (1 400)
//!   units wide at the default scale;
//! - the dashed path of a conversion crosses no text (tick, heading, cell
//!   label): each segment against each text's box, the box bounded for
//!   monospace (0.62 em per character, from 0.8 em above the baseline to
//!   0.25 em below);
//! - every mark has a legend entry: `+k` labels, copy strips, path
//!   frames and line, access frames, conflict hatch; every warp fill drawn
//!   is in the legend and every warp in the legend is drawn (a warp that
//!   only holds copies shows as copy strips).
//!
//! Each SVG element is one line (the crate writes them so), which keeps
//! the parsing here to string matching.

use layout_codegen::choice::plan_conversion;
use layout_view::access::first_access;
use layout_view::convert::{conversion_picture, PATH_STROKE};
use layout_view::svg::{bank_picture_access, fill, tensor_picture, ACCESS_STROKE, PICTURE_WIDTH};
use linear_layout::LinearLayout;
use serde_json::{json, Value};
use std::collections::BTreeSet;

fn ll(v: &Value, shape: &[u64]) -> LinearLayout {
    LinearLayout::from_json(v, Some(shape)).unwrap()
}

fn attr<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let k = format!(" {key}=\"");
    let s = &line[line.find(&k)? + k.len()..];
    Some(&s[..s.find('"')?])
}

fn num(line: &str, key: &str) -> f64 {
    attr(line, key).unwrap().parse().unwrap()
}

fn svg_width(svg: &str) -> u64 {
    let first = svg.lines().next().unwrap();
    attr(first, "width").unwrap().parse().unwrap()
}

/// Text boxes `(x0, y0, x1, y1, text)`.
fn text_boxes(svg: &str) -> Vec<(f64, f64, f64, f64, String)> {
    svg.lines()
        .filter(|l| l.starts_with("<text "))
        .map(|l| {
            let (x, y, f) = (num(l, "x"), num(l, "y"), num(l, "font-size"));
            let t = l[l.find('>').unwrap() + 1..l.rfind("</text>").unwrap()].to_string();
            let w = t.chars().count() as f64 * f * 0.62;
            let x0 = match attr(l, "text-anchor").unwrap() {
                "middle" => x - w / 2.0,
                "end" => x - w,
                _ => x,
            };
            (x0, y - 0.8 * f, x0 + w, y + 0.25 * f, t)
        })
        .collect()
}

/// The points of the path line.
fn path_points(svg: &str) -> Vec<(f64, f64)> {
    let l = svg
        .lines()
        .find(|l| l.starts_with("<polyline class=\"path-line\""))
        .expect("a path line");
    attr(l, "points")
        .unwrap()
        .split(' ')
        .map(|p| {
            let (x, y) = p.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect()
}

/// Texts that a segment of the path line crosses.
fn crossings(svg: &str) -> Vec<String> {
    let pts = path_points(svg);
    let boxes = text_boxes(svg);
    let mut hit = Vec::new();
    for s in pts.windows(2) {
        let (a, b) = (s[0], s[1]);
        assert!(a.0 == b.0 || a.1 == b.1, "segments are axis-parallel");
        let (lx, hx) = (a.0.min(b.0), a.0.max(b.0));
        let (ly, hy) = (a.1.min(b.1), a.1.max(b.1));
        for (x0, y0, x1, y1, t) in &boxes {
            if lx < *x1 && hx > *x0 && ly < *y1 && hy > *y0 {
                hit.push(format!("{t:?} by {a:?}-{b:?}"));
            }
        }
    }
    hit
}

/// The legend: `(data-mark, swatch line, words)` per entry.
fn legend(svg: &str) -> Vec<(String, String, String)> {
    let lines: Vec<&str> = svg.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.starts_with("<g class=\"legend\"") {
            let mark = attr(l, "data-mark").unwrap().to_string();
            let end = i + lines[i..].iter().position(|x| *x == "</g>").unwrap();
            let swatch = lines[i + 1..end].join("\n");
            let words = lines[end - 1];
            let words = words[words.find('>').unwrap() + 1..words.rfind('<').unwrap()].to_string();
            out.push((mark, swatch, words));
        }
    }
    out
}

/// The body without the legend groups.
fn body(svg: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for l in svg.lines() {
        if l.starts_with("<g class=\"legend\"") {
            inside = true;
        }
        if !inside {
            out.push_str(l);
            out.push('\n');
        }
        if l == "</g>" {
            inside = false;
        }
    }
    out
}

/// Checks that every mark of `svg`'s body has its legend entry and that
/// warp fills and legend fills agree (`warp_fills`: the picture colours
/// cells by warp). Returns the legend.
fn check_legend(svg: &str, warp_fills: bool) -> Vec<(String, String, String)> {
    let lg = legend(svg);
    let b = body(svg);
    let has = |mark: &str, needle: &str| {
        lg.iter()
            .any(|(m, s, _)| m == mark && (needle.is_empty() || s.contains(needle)))
    };
    if b.contains("class=\"copy\"") {
        assert!(has("copy", ""), "copy strips without a legend entry");
    }
    if b.contains("class=\"path\"") {
        assert!(has("frame", PATH_STROKE), "path frames without legend");
    }
    if b.contains("class=\"path-line\"") {
        assert!(has("dashed", PATH_STROKE), "path line without legend");
    }
    if b.contains("class=\"access\"") {
        assert!(has("frame", ACCESS_STROKE), "access frames without legend");
    }
    if b.contains("class=\"conflict\"") {
        assert!(has("conflict", ""), "conflict hatch without legend");
    }
    let plus = b.lines().any(|l| {
        l.starts_with("<text ") && l.contains("text-anchor=\"middle\"") && {
            let t = &l[l.find('>').unwrap() + 1..l.rfind('<').unwrap()];
            t.starts_with('R') && t.contains('+')
        }
    });
    if plus {
        assert!(
            lg.iter().any(|(m, s, _)| m == "text" && s.contains("+k")),
            "+k labels without legend"
        );
    }
    if warp_fills {
        // Fills of the cells (rects of the body) and copy strips.
        let drawn: BTreeSet<String> = b
            .lines()
            .filter(|l| {
                (l.starts_with("<rect x=") && l.contains("stroke-width=\"0.5\""))
                    || l.starts_with("<rect x=") && !l.contains("stroke")
                    || l.starts_with("<polygon class=\"copy\"")
            })
            .filter_map(|l| attr(l, "fill").map(str::to_string))
            .filter(|f| f != "#ffffff" && f != "#fff" && f != "none")
            .collect();
        let listed: BTreeSet<String> = lg
            .iter()
            .filter(|(m, _, _)| m == "fill")
            .flat_map(|(_, s, _)| {
                s.lines()
                    .filter_map(|l| attr(l, "fill").map(str::to_string))
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(drawn, listed, "warp fills drawn vs listed in the legend");
    }
    lg
}

/// 4 consecutive columns per thread, 8 × 4 lanes, `2^warps_log2` warps
/// down the rows: a blocked layout of `n × n`, `n ≥ 32` (the repeats
/// become registers).
fn blocked(n: u64, warps_log2: u32) -> Value {
    let bits = n.ilog2();
    let mut reg = vec![json!([0, 1]), json!([0, 2])];
    let lane = vec![
        json!([0, 4]),
        json!([0, 8]),
        json!([0, 16]),
        json!([1, 0]),
        json!([2, 0]),
    ];
    let warp: Vec<Value> = (0..warps_log2).map(|k| json!([4 << k, 0])).collect();
    // Remaining column bits, then remaining row bits, as registers.
    for b in 5..bits {
        reg.push(json!([0, 1u64 << b]));
    }
    for b in (2 + warps_log2)..bits {
        reg.push(json!([1u64 << b, 0]));
    }
    json!({"register": reg, "lane": lane, "warp": warp, "block": []})
}

/// The transpose of a 2-D layout's bases.
fn transposed(v: &Value) -> Value {
    let mut o = serde_json::Map::new();
    for (k, list) in v.as_object().unwrap() {
        let t: Vec<Value> = list
            .as_array()
            .unwrap()
            .iter()
            .map(|b| json!([b[1], b[0]]))
            .collect();
        o.insert(k.clone(), Value::Array(t));
    }
    Value::Object(o)
}

#[test]
fn conversion_pictures_fit_1400_units_and_the_path_crosses_no_text() {
    for n in [32u64, 64] {
        let shape = [n, n];
        let sj = blocked(n, 2);
        let (src, dst) = (ll(&sj, &shape), ll(&transposed(&sj), &shape));
        for bits in [16, 32] {
            let plan = plan_conversion(&src, &dst, bits).unwrap();
            for element in [[0, 1], [0, n - 1], [n - 1, 0], [n / 2, n / 3]] {
                let (pic, _) = conversion_picture(&src, &dst, &plan, &shape, &element).unwrap();
                let w = svg_width(&pic.svg);
                assert!(w <= PICTURE_WIDTH, "{n}x{n} {bits}-bit: {w} units wide");
                let hit = crossings(&pic.svg);
                assert!(
                    hit.is_empty(),
                    "{n}x{n} {element:?}: the path crosses {hit:?}"
                );
                check_legend(&pic.svg, true);
            }
        }
    }
}

/// The crossing check can fail: a straight line from the source cell to
/// the destination cell (the old drawing) crosses the row-0 ticks.
#[test]
fn a_straight_path_would_cross_labels() {
    let shape = [32, 32];
    let sj = blocked(32, 2);
    let (src, dst) = (ll(&sj, &shape), ll(&transposed(&sj), &shape));
    let plan = plan_conversion(&src, &dst, 16).unwrap();
    let (pic, _) = conversion_picture(&src, &dst, &plan, &shape, &[0, 5]).unwrap();
    let pts = path_points(&pic.svg);
    let (a, b) = (pts[0], *pts.last().unwrap());
    let straight = format!(
        "<polyline class=\"path-line\" points=\"{},{} {},{} {},{}\"/>",
        a.0, a.1, a.0, b.1, b.0, b.1
    );
    let svg: String = pic
        .svg
        .lines()
        .map(|l| {
            if l.starts_with("<polyline class=\"path-line\"") {
                straight.clone()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert!(!crossings(&svg).is_empty());
}

#[test]
fn bank_pictures_with_access_fit_1400_units_and_have_their_legend() {
    // Row-major shared layouts (no swizzle) read by columns: conflicts.
    for (n, m, bits) in [
        (32u64, 32u64, 32u64),
        (64, 64, 16),
        (64, 64, 8),
        (32, 32, 64),
    ] {
        let shape = [n, m];
        let (rb, cb) = (n.ilog2(), m.ilog2());
        let offset: Vec<Value> = (0..cb)
            .map(|k| json!([0, 1u64 << k]))
            .chain((0..rb).map(|k| json!([1u64 << k, 0])))
            .collect();
        let smem = ll(&json!({"offset": offset, "block": []}), &shape);
        // Lanes down the column, registers along it.
        let lane: Vec<Value> = (0..5).map(|k| json!([1u64 << k, 0])).collect();
        let reg: Vec<Value> = (0..cb)
            .map(|k| json!([0, 1u64 << k]))
            .chain((5..rb).map(|k| json!([1u64 << k, 0])))
            .collect();
        let dist = ll(
            &json!({"register": reg, "lane": lane, "warp": [], "block": []}),
            &shape,
        );
        let a = first_access(&dist, &smem, &shape, bits).unwrap();
        let pic = bank_picture_access(&smem, &shape, bits, Some(&a)).unwrap();
        let w = svg_width(&pic.svg);
        assert!(w <= PICTURE_WIDTH, "{n}x{m} {bits}-bit: {w} units wide");
        assert!(pic.svg.contains("class=\"conflict\""), "{n}x{m} {bits}-bit");
        check_legend(&pic.svg, false);
    }
}

/// Warps 2 and 3 hold copies of warps 0 and 1 (their basis is zero): the
/// first holder is always in warp 0 or 1, so warps 2 and 3 show only as
/// copy strips; both are drawn and listed, and `+k` is explained.
#[test]
fn broadcast_copies_are_drawn_and_explained() {
    let shape = [16, 16];
    let j = json!({"register": [[0, 1], [1, 0]], "lane": [[0, 2], [0, 4], [0, 8], [2, 0], [4, 0]], "warp": [[8, 0], [0, 0]]});
    let l = ll(&j, &shape);
    let pic = tensor_picture(&l, &shape).unwrap();
    let lg = check_legend(&pic.svg, true);
    let b = body(&pic.svg);
    for w in [2, 3] {
        let f = fill(w);
        assert!(
            b.lines()
                .any(|x| x.starts_with("<polygon class=\"copy\"") && x.contains(f)),
            "warp {w} is drawn"
        );
        assert!(lg
            .iter()
            .any(|(_, _, words)| words.contains(&format!("warp {w}"))));
    }
    assert!(lg.iter().any(|(m, s, _)| m == "text" && s.contains("+k")));
    // The same source in a conversion picture.
    let dst = ll(&transposed(&j), &shape);
    let plan = plan_conversion(&l, &dst, 16).unwrap();
    let (cp, _) = conversion_picture(&l, &dst, &plan, &shape, &[3, 4]).unwrap();
    check_legend(&cp.svg, true);
    assert!(crossings(&cp.svg).is_empty());
}

/// `L(x)` by hand: the XOR of the JSON bases of the set bits of each input.
fn apply_by_hand(bases: &Value, ins: &[(&str, u64)], rank: usize) -> Vec<u64> {
    let mut out = vec![0; rank];
    for (dim, v) in ins {
        for (i, b) in bases
            .get(*dim)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            if v >> i & 1 == 1 {
                for (o, x) in out.iter_mut().zip(b.as_array().unwrap()) {
                    *o ^= x.as_u64().unwrap();
                }
            }
        }
    }
    out
}

/// Tensor-memory layouts of Triton 3.9 (the oracle's `space = "tmem"`
/// records): every cell of the picture reads out the element that the
/// record's bases give for its (CTA, row, col), and the picture fits
/// `PICTURE_WIDTH`; the text views refuse them, naming the way out.
#[test]
fn tensor_memory_pictures_match_the_oracle_bases() {
    let path = format!(
        "{}/../../tests/data/triton-oracle/sample-layouts.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut drawn = 0;
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let rec: Value = serde_json::from_str(line).unwrap();
        if rec["space"] != "tmem" {
            continue;
        }
        let shape: Vec<u64> = rec["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        let l = ll(&rec["linear"], &shape);
        let Ok(pic) = layout_view::svg::tmem_picture(&l, &shape) else {
            // Above the picture's cell limit: refused, not drawn.
            assert!(l.total_in_dim_size() > layout_view::svg::MAX_PICTURE_CELLS);
            continue;
        };
        assert_eq!(
            pic.svg,
            layout_view::svg::default_picture(&l, &shape).unwrap().svg
        );
        assert!(svg_width(&pic.svg) <= PICTURE_WIDTH, "{}", rec["id"]);
        for (b, p) in pic.panels.iter().enumerate() {
            for r in 0..p.rows {
                for c in 0..p.cols {
                    let e = apply_by_hand(
                        &rec["linear"],
                        &[("row", r), ("col", c), ("block", b as u64)],
                        shape.len(),
                    );
                    let want = format!(
                        "CTA {b} row {r} col {c} → ({})",
                        e.iter()
                            .map(|x| x.to_string())
                            .collect::<Vec<_>>()
                            .join(",")
                    );
                    assert_eq!(p.info[(r * p.cols + c) as usize], want, "{}", rec["id"]);
                }
            }
        }
        let e = layout_view::tensor_view(&l, &shape).unwrap_err();
        assert!(e.to_string().contains("--svg"), "{e}");
        drawn += 1;
    }
    assert!(drawn >= 3, "{drawn} tensor-memory layouts drawn");
}

/// Every picture of the oracle's layout views (tensor, hardware, bank) is
/// at most `PICTURE_WIDTH` wide at the default scale.
#[test]
fn every_oracle_picture_fits_1400_units() {
    let mut n = 0;
    for name in ["sample-layout-views.jsonl", "generated-layout-views.jsonl"] {
        let path = format!(
            "{}/../../tests/data/triton-oracle/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        for line in std::fs::read_to_string(path).unwrap().lines() {
            let rec: Value = serde_json::from_str(line).unwrap();
            let shape: Vec<u64> = rec["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            let l = ll(&rec["linear"], &shape);
            let mut pics = vec![layout_view::svg::default_picture(&l, &shape).unwrap()];
            if rec["space"] == "dist" {
                pics.push(layout_view::svg::hardware_picture(&l, &shape).unwrap());
            }
            for p in pics {
                let w = svg_width(&p.svg);
                assert!(w <= PICTURE_WIDTH, "{} {}: {w}", rec["id"], p.title);
                n += 1;
            }
        }
    }
    assert!(n >= 100, "{n} pictures");
}

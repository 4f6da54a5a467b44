//! The conversion picture: the highlighted path checked against the
//! layouts applied by hand (XOR of the JSON bases, no library evaluation),
//! plus snapshots.

use layout_codegen::choice::plan_conversion;
use layout_codegen::plan::ConversionPlan;
use layout_view::convert::{conversion_path, conversion_picture};
use linear_layout::LinearLayout;
use serde_json::{json, Value};

/// `L(x)` by hand: XOR of the bases of the set bits of each input, the
/// bases given as JSON lists of coordinates.
fn apply_by_hand(bases: &Value, ins: &[(&str, u64)]) -> Vec<u64> {
    let mut out: Option<Vec<u64>> = None;
    for (dim, v) in ins {
        if let Some(list) = bases.get(*dim).and_then(|x| x.as_array()) {
            for (i, b) in list.iter().enumerate() {
                let b: Vec<u64> = b
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_u64().unwrap())
                    .collect();
                let acc = out.get_or_insert_with(|| vec![0; b.len()]);
                if v >> i & 1 == 1 {
                    for (a, x) in acc.iter_mut().zip(&b) {
                        *a ^= x;
                    }
                }
            }
        }
    }
    out.unwrap()
}

/// 16×16, 2 warps: 4 consecutive columns per thread, 4 × 8 lanes per warp
/// row-major (src); its transpose (dst).
fn pair() -> (Value, Value) {
    (
        json!({"register": [[0,1],[0,2]], "lane": [[0,4],[0,8],[1,0],[2,0],[4,0]], "warp": [[8,0]], "block": []}),
        json!({"register": [[1,0],[2,0]], "lane": [[4,0],[8,0],[0,1],[0,2],[0,4]], "warp": [[0,8]], "block": []}),
    )
}

fn ll(v: &Value, shape: &[u64]) -> LinearLayout {
    LinearLayout::from_json(v, Some(shape)).unwrap()
}

/// `(x, y)` of every `<rect class="path" ...>` of an SVG.
fn path_rects(svg: &str) -> Vec<(u64, u64)> {
    svg.lines()
        .filter(|l| l.starts_with("<rect class=\"path\""))
        .map(|l| {
            let num = |key: &str| -> u64 {
                let s = &l[l.find(key).unwrap() + key.len()..];
                s[..s.find('"').unwrap()].parse().unwrap()
            };
            (num(" x=\""), num(" y=\""))
        })
        .collect()
}

#[test]
fn shared_path_matches_layouts_applied_by_hand() {
    let shape = [16, 16];
    let (sj, dj) = pair();
    let (src, dst) = (ll(&sj, &shape), ll(&dj, &shape));
    let plan = plan_conversion(&src, &dst, 16).unwrap();
    let ConversionPlan::SharedMemory(p) = &plan else {
        panic!("expected a shared-memory plan, got {}", plan.kind_name())
    };
    assert_eq!(p.rounds.len(), 1);
    let shared_json = p.shared.clone();
    for element in [[0u64, 1], [5, 9], [15, 15], [8, 3]] {
        let (pic, path) = conversion_picture(&src, &dst, &plan, &shape, &element).unwrap();
        let s = path.src;
        assert_eq!(
            apply_by_hand(
                &sj,
                &[("register", s.register), ("lane", s.lane), ("warp", s.warp)]
            ),
            element
        );
        let d = path.dst;
        assert_eq!(
            apply_by_hand(
                &dj,
                &[("register", d.register), ("lane", d.lane), ("warp", d.warp)]
            ),
            element
        );
        // The offset: where the plan's shared layout, applied by hand,
        // puts the element (it is injective here).
        let n_off = 1u64 << shared_json["offset"].as_array().unwrap().len();
        let want: Vec<u64> = (0..n_off)
            .filter(|&o| apply_by_hand(&shared_json, &[("offset", o)]) == element)
            .collect();
        let step = path.shared.clone().unwrap();
        assert_eq!(want, vec![step.offset]);
        assert_eq!(step.layout_offset, Some(step.offset));
        assert_eq!(step.byte, step.offset * 2);
        assert_eq!(step.bank, (step.offset * 2 / 4) % 32);
        // The highlighted cells: the element in both tensor panels (16 ≤ 32:
        // 40-unit cells), its offset in the buffer (64 f16 per 128-byte
        // line).
        let rects = path_rects(&pic.svg);
        let (src_p, mid_p, dst_p) = (&pic.panels[0], &pic.panels[1], &pic.panels[2]);
        assert_eq!((src_p.cw, dst_p.cw, mid_p.cols), (40, 40, 64));
        assert_eq!(
            rects,
            vec![
                (src_p.x + element[1] * 40, src_p.y + element[0] * 40),
                (
                    mid_p.x + (step.offset % 64) * mid_p.cw,
                    mid_p.y + (step.offset / 64) * mid_p.ch
                ),
                (dst_p.x + element[1] * 40, dst_p.y + element[0] * 40),
            ]
        );
        // The read-out of the middle cell names the element.
        let info = &mid_p.info[step.offset as usize];
        assert!(
            info.contains(&format!("({},{})", element[0], element[1])),
            "{info}"
        );
    }
}

/// dst swaps register bit 0 with lane bit 0 of src: a warp shuffle, no
/// shared memory; the path goes from a source thread to a destination
/// thread that hold the element (by hand).
#[test]
fn shuffle_path_without_shared_memory() {
    let shape = [16, 16];
    let sj = json!({"register": [[0,1],[0,2]], "lane": [[0,4],[0,8],[1,0],[2,0],[4,0]], "warp": [[8,0]], "block": []});
    let dj = json!({"register": [[0,4],[0,2]], "lane": [[0,1],[0,8],[1,0],[2,0],[4,0]], "warp": [[8,0]], "block": []});
    let (src, dst) = (ll(&sj, &shape), ll(&dj, &shape));
    let plan = plan_conversion(&src, &dst, 16).unwrap();
    assert_eq!(plan.kind_name(), "shuffle");
    for element in [[0u64, 1], [3, 7], [12, 13]] {
        let (pic, path) = conversion_picture(&src, &dst, &plan, &shape, &element).unwrap();
        assert!(path.shared.is_none());
        let (s, d) = (path.src, path.dst);
        assert_eq!(
            apply_by_hand(
                &sj,
                &[("register", s.register), ("lane", s.lane), ("warp", s.warp)]
            ),
            element
        );
        assert_eq!(
            apply_by_hand(
                &dj,
                &[("register", d.register), ("lane", d.lane), ("warp", d.warp)]
            ),
            element
        );
        // By hand: element (i, j) sits in src lane (j>>2 & 3) | (i & 7) << 2
        // and in dst lane (j & 1) | (j>>3 & 1) << 1 | (i & 7) << 2.
        let (i, j) = (element[0], element[1]);
        assert_eq!(s.lane, (j >> 2 & 3) | (i & 7) << 2);
        assert_eq!(d.lane, (j & 1) | (j >> 3 & 1) << 1 | (i & 7) << 2);
        // Moving between lanes takes a shuffle of the plan (a shuffle may
        // also move a register within its lane).
        assert!(path.shuffle.is_some() || s.lane == d.lane);
        assert!(pic.svg.contains("No shared memory"));
        assert_eq!(pic.panels.len(), 2);
        let rects = path_rects(&pic.svg);
        assert_eq!(
            rects,
            vec![
                (pic.panels[0].x + j * 40, pic.panels[0].y + i * 40),
                (pic.panels[1].x + j * 40, pic.panels[1].y + i * 40),
            ]
        );
    }
}

#[test]
fn bad_elements_are_errors() {
    let shape = [16, 16];
    let (sj, dj) = pair();
    let (src, dst) = (ll(&sj, &shape), ll(&dj, &shape));
    let plan = plan_conversion(&src, &dst, 16).unwrap();
    for bad in [vec![16, 0], vec![0], vec![0, 0, 0]] {
        let e = conversion_path(&src, &dst, &plan, &shape, &bad).unwrap_err();
        assert!(e.to_string().contains("outside"), "{e}");
    }
}

#[test]
fn snapshots() {
    let (sj, dj) = pair();
    let shape = [16, 16];
    let (src, dst) = (ll(&sj, &shape), ll(&dj, &shape));
    let plan = plan_conversion(&src, &dst, 16).unwrap();
    let (pic, _) = conversion_picture(&src, &dst, &plan, &shape, &[2, 5]).unwrap();
    let (again, _) = conversion_picture(&src, &dst, &plan, &shape, &[2, 5]).unwrap();
    assert_eq!(pic.svg, again.svg, "deterministic");
    insta::assert_snapshot!("convert_shared_16x16", pic.svg);
}

/// The shuffle conversion's picture: two tensor panels, the middle says
/// there is no shared memory (reviewed by eye).
#[test]
fn snapshot_without_shared_memory() {
    let shape = [16, 16];
    let sj = json!({"register": [[0,1],[0,2]], "lane": [[0,4],[0,8],[1,0],[2,0],[4,0]], "warp": [[8,0]], "block": []});
    let dj = json!({"register": [[0,4],[0,2]], "lane": [[0,1],[0,8],[1,0],[2,0],[4,0]], "warp": [[8,0]], "block": []});
    let (src, dst) = (ll(&sj, &shape), ll(&dj, &shape));
    let plan = plan_conversion(&src, &dst, 16).unwrap();
    let (pic, _) = conversion_picture(&src, &dst, &plan, &shape, &[0, 1]).unwrap();
    insta::assert_snapshot!("convert_shuffle_16x16", pic.svg);
}

//! The HTML page in a real browser: headless Chromium loads the page, a
//! test script moves the pointer over chosen cells (synthetic `mousemove`
//! events at the cells' centres) and records the read-out; the read-out must
//! name the cell (row, column) and its description. Skipped, with a message,
//! when no Chromium is installed (Debian: `apt-get install chromium`).

use layout_view::html;
use layout_view::svg::{bank_picture, hardware_picture, tensor_picture, Picture};
use linear_layout::LinearLayout;
use std::process::Command;

fn chromium() -> Option<String> {
    for name in [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ] {
        let ok = Command::new(name)
            .arg("--version")
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false);
        if ok {
            return Some(name.to_string());
        }
    }
    None
}

/// Loads `page` plus a probe that hovers each point (SVG units) and returns
/// the read-outs, in order.
fn hover(browser: &str, page: &str, points: &[(u64, u64)], tag: &str) -> Vec<String> {
    let pts: Vec<String> = points.iter().map(|(x, y)| format!("[{x},{y}]")).collect();
    let probe = format!(
        r#"<script>
(function () {{
  var svg = document.querySelector('#picture svg');
  var box = svg.getBoundingClientRect();
  var res = [];
  [{}].forEach(function (p) {{
    svg.dispatchEvent(new MouseEvent('mousemove', {{clientX: box.left + p[0], clientY: box.top + p[1], bubbles: true}}));
    res.push(document.getElementById('readout').textContent);
  }});
  var d = document.createElement('pre');
  d.id = 'probe';
  d.textContent = JSON.stringify(res);
  document.body.appendChild(d);
}})();
</script>
</body>"#,
        pts.join(",")
    );
    let page = page.replacen("</body>", &probe, 1);
    let dir = std::env::temp_dir().join(format!("layout-view-browser-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{tag}.html"));
    std::fs::write(&path, page).unwrap();
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--window-size=4000,3000",
            "--dump-dom",
        ])
        .arg(format!("file://{}", path.display()))
        .output()
        .expect("run chromium");
    let dom = String::from_utf8_lossy(&out.stdout);
    let start = dom
        .find("<pre id=\"probe\">")
        .expect("probe output in the DOM")
        + 16;
    let end = start + dom[start..].find("</pre>").unwrap();
    let json = dom[start..end]
        .replace("&nbsp;", "\u{a0}")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    serde_json::from_str(&json).expect("probe JSON")
}

/// Centres of a few cells of every panel, and the read-outs they must give.
fn cases(pic: &Picture) -> (Vec<(u64, u64)>, Vec<String>) {
    let mut pts = Vec::new();
    let mut want = Vec::new();
    for p in &pic.panels {
        for (r, c) in [
            (0, 0),
            (p.rows - 1, p.cols - 1),
            (p.rows / 2, p.cols / 3),
            (0, p.cols - 1),
        ] {
            pts.push((p.x + c * p.cw + p.cw / 2, p.y + r * p.ch + p.ch / 2));
            want.push(format!(
                "row {r}, column {c}: {}",
                p.info[(r * p.cols + c) as usize]
            ));
        }
    }
    // Outside every panel: the hint.
    pts.push((1, 1));
    want.push(html::HINT.into());
    (pts, want)
}

fn layout(json: &str, shape: &[u64]) -> LinearLayout {
    LinearLayout::from_json(&serde_json::from_str(json).unwrap(), Some(shape)).unwrap()
}

#[test]
fn pointer_readout_in_headless_chromium() {
    let Some(browser) = chromium() else {
        eprintln!("skipping pointer_readout_in_headless_chromium: chromium is not installed (apt-get install chromium)");
        return;
    };
    // The paper's layout A, its hardware view (two panels), a 2-CTA bank view.
    let a = layout(
        r#"{"register": [[0, 1], [1, 0]], "lane": [[0, 2], [0, 4], [0, 8], [2, 0], [4, 0]], "warp": [[8, 0]]}"#,
        &[16, 16],
    );
    let shared = layout(
        r#"{"offset": [[0, 1], [0, 2], [1, 4], [2, 0]], "block": [[1, 0]]}"#,
        &[4, 8],
    );
    let pictures = [
        ("tensor", tensor_picture(&a, &[16, 16]).unwrap()),
        ("hardware", hardware_picture(&a, &[16, 16]).unwrap()),
        ("banks", bank_picture(&shared, &[4, 8], 32).unwrap()),
        ("banks-access", {
            let smem = layout(
                r#"{"offset": [[1,0],[2,0],[4,0],[8,0],[0,1],[0,2],[0,4],[0,8],[0,16]], "block": []}"#,
                &[16, 32],
            );
            let reg = layout(
                r#"{"register": [[0,1],[0,2],[4,0],[8,0]], "lane": [[0,4],[0,8],[0,16],[1,0],[2,0]], "warp": [], "block": []}"#,
                &[16, 32],
            );
            let acc = layout_view::access::first_access(&reg, &smem, &[16, 32], 32).unwrap();
            layout_view::svg::bank_picture_access(&smem, &[16, 32], 32, Some(&acc)).unwrap()
        }),
        ("convert", {
            // Layout A to its transpose: a shared-memory plan, three panels.
            let b = layout(
                r#"{"register": [[1, 0], [0, 1]], "lane": [[2, 0], [4, 0], [8, 0], [0, 2], [0, 4]], "warp": [[0, 8]]}"#,
                &[16, 16],
            );
            let plan = layout_codegen::choice::plan_conversion(&a, &b, 16).unwrap();
            layout_view::convert::conversion_picture(&a, &b, &plan, &[16, 16], &[3, 4])
                .unwrap()
                .0
        }),
    ];
    for (tag, pic) in pictures {
        let (pts, want) = cases(&pic);
        let got = hover(&browser, &html::page(&pic), &pts, tag);
        assert_eq!(got, want, "{tag}");
    }
}

/// The pages of three pictures in headless Chromium at 1 400 px wide: the
/// page does not scroll sideways (the picture shows whole at 100 %), and
/// with the browser's own font metrics (`getBBox`) the conversion path
/// crosses no text. Screenshots go to `target/tmp/screenshots/` for a
/// look by eye.
#[test]
fn pictures_read_at_1400_px_in_headless_chromium() {
    let Some(browser) = chromium() else {
        eprintln!("skipping pictures_read_at_1400_px_in_headless_chromium: chromium is not installed (apt-get install chromium)");
        return;
    };
    let transpose = |n: u64| {
        let a = blocked_and_transpose(n);
        let plan = layout_codegen::choice::plan_conversion(&a.0, &a.1, 16).unwrap();
        layout_view::convert::conversion_picture(&a.0, &a.1, &plan, &[n, n], &[n / 2, 5])
            .unwrap()
            .0
    };
    let bank = {
        // Row-major 64×64 f16 buffer read down the columns: conflicts.
        let offset: Vec<[u64; 2]> = (0..6)
            .map(|k| [0, 1 << k])
            .chain((0..6).map(|k| [1 << k, 0]))
            .collect();
        let smem = LinearLayout::from_json(
            &serde_json::json!({"offset": offset, "block": []}),
            Some(&[64, 64]),
        )
        .unwrap();
        let reg: Vec<[u64; 2]> = (0..6).map(|k| [0, 1 << k]).chain([[32, 0]]).collect();
        let lane: Vec<[u64; 2]> = (0..5).map(|k| [1 << k, 0]).collect();
        let dist = LinearLayout::from_json(
            &serde_json::json!({"register": reg, "lane": lane, "warp": [], "block": []}),
            Some(&[64, 64]),
        )
        .unwrap();
        let acc = layout_view::access::first_access(&dist, &smem, &[64, 64], 16).unwrap();
        layout_view::svg::bank_picture_access(&smem, &[64, 64], 16, Some(&acc)).unwrap()
    };
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    for (tag, pic) in [
        ("convert-32x32", transpose(32)),
        ("convert-64x64", transpose(64)),
        ("bank-access-64x64", bank),
    ] {
        let probe = r#"<script>
(function () {
  var svg = document.querySelector('#picture svg');
  var segs = [];
  var line = svg.querySelector('polyline.path-line');
  if (line) {
    var p = line.getAttribute('points').split(' ').map(function (s) { return s.split(',').map(Number); });
    for (var i = 0; i + 1 < p.length; i++) segs.push([p[i], p[i + 1]]);
  }
  var hits = [];
  svg.querySelectorAll('text').forEach(function (t) {
    var b = t.getBBox();
    segs.forEach(function (s) {
      var lx = Math.min(s[0][0], s[1][0]), hx = Math.max(s[0][0], s[1][0]);
      var ly = Math.min(s[0][1], s[1][1]), hy = Math.max(s[0][1], s[1][1]);
      if (lx < b.x + b.width && hx > b.x && ly < b.y + b.height && hy > b.y) hits.push(t.textContent);
    });
  });
  var d = document.createElement('pre');
  d.id = 'probe';
  d.textContent = JSON.stringify({scroll: document.documentElement.scrollWidth,
    svg: svg.getBoundingClientRect().width, segments: segs.length, hits: hits});
  document.body.appendChild(d);
})();
</script>
</body>"#;
        let page = html::page(&pic).replacen("</body>", probe, 1);
        let path = dir.join(format!("{tag}.html"));
        std::fs::write(&path, &page).unwrap();
        let url = format!("file://{}", path.display());
        let flags = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            "--hide-scrollbars",
        ];
        let out = Command::new(&browser)
            .args(flags)
            .args(["--window-size=1400,1000", "--dump-dom", &url])
            .output()
            .expect("run chromium");
        let dom = String::from_utf8_lossy(&out.stdout);
        let start = dom.find("<pre id=\"probe\">").expect("probe output") + 16;
        let end = start + dom[start..].find("</pre>").unwrap();
        let r: serde_json::Value = serde_json::from_str(&dom[start..end]).unwrap();
        assert!(r["scroll"].as_f64().unwrap() <= 1400.0, "{tag}: {r}");
        assert!(r["svg"].as_f64().unwrap() <= 1400.0, "{tag}: {r}");
        assert!(
            r["hits"].as_array().unwrap().is_empty(),
            "{tag}: the path crosses {}",
            r["hits"]
        );
        if tag.starts_with("convert") {
            assert!(r["segments"].as_u64().unwrap() >= 4, "{tag}: {r}");
        }
        // The screenshot: the whole picture, 1 400 px wide (PNG IHDR).
        let h = pic
            .svg
            .lines()
            .next()
            .and_then(|l| l.split("height=\"").nth(1))
            .and_then(|s| s.split('"').next())
            .and_then(|s| s.parse::<u64>().ok())
            .unwrap();
        let png = dir.join(format!("{tag}.png"));
        let _ = std::fs::remove_file(&png);
        let shot = format!("--screenshot={}", png.display());
        let size = format!("--window-size=1400,{}", h + 60);
        Command::new(&browser)
            .args(flags)
            .args([size.as_str(), shot.as_str(), url.as_str()])
            .output()
            .expect("run chromium");
        let bytes = std::fs::read(&png).expect("a screenshot");
        assert_eq!(&bytes[1..4], b"PNG");
        let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
        assert_eq!(width, 1400, "{tag}");
    }
}

/// A 4-consecutive-columns blocked layout of `n × n` (4 warps down the
/// rows) and its transpose: a conversion through shared memory.
fn blocked_and_transpose(n: u64) -> (LinearLayout, LinearLayout) {
    let bits = n.ilog2();
    let mut reg: Vec<[u64; 2]> = vec![[0, 1], [0, 2]];
    reg.extend((5..bits).map(|b| [0, 1 << b]));
    reg.extend((4..bits).map(|b| [1 << b, 0]));
    let lane: Vec<[u64; 2]> = vec![[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]];
    let warp: Vec<[u64; 2]> = vec![[4, 0], [8, 0]];
    let t = |v: &[[u64; 2]]| v.iter().map(|b| [b[1], b[0]]).collect::<Vec<_>>();
    let mk = |r: &[[u64; 2]], l: &[[u64; 2]], w: &[[u64; 2]]| {
        LinearLayout::from_json(
            &serde_json::json!({"register": r, "lane": l, "warp": w, "block": []}),
            Some(&[n, n]),
        )
        .unwrap()
    };
    (mk(&reg, &lane, &warp), mk(&t(&reg), &t(&lane), &t(&warp)))
}

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
            let plan = layout_codegen::plan::plan_conversion(&a, &b, 16).unwrap();
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

//! Standalone HTML pages: an SVG picture inline, plus a small inline script
//! that shows the description of the cell under the pointer (no external
//! resources; deterministic bytes).
//!
//! The script maps the pointer to SVG user units with the inverse of the
//! SVG's screen matrix, finds the panel whose rectangle contains it, and
//! shows `row r, column c: ` and `info[row · cols + col]` of that panel in
//! the `#readout` element ([`HINT`] when over no cell).

use crate::svg::{escape, Picture};
use serde_json::json;

const SCRIPT: &str = r#"(function () {
  var data = JSON.parse(document.getElementById('cells').textContent);
  var svg = document.querySelector('#picture svg');
  var out = document.getElementById('readout');
  var HINT = out.textContent;
  function at(px, py) {
    for (var k = 0; k < data.length; k++) {
      var p = data[k];
      var c = Math.floor((px - p.x) / p.cw), r = Math.floor((py - p.y) / p.ch);
      if (px >= p.x && py >= p.y && c < p.cols && r < p.rows) {
        return 'row ' + r + ', column ' + c + ': ' + p.info[r * p.cols + c];
      }
    }
    return null;
  }
  window.layoutViewCellAt = at;
  svg.addEventListener('mousemove', function (e) {
    var pt = svg.createSVGPoint();
    pt.x = e.clientX; pt.y = e.clientY;
    var q = pt.matrixTransform(svg.getScreenCTM().inverse());
    var s = at(q.x, q.y);
    out.textContent = s === null ? HINT : s;
  });
  svg.addEventListener('mouseleave', function () { out.textContent = HINT; });
})();"#;

/// What the read-out says when the pointer is over no cell.
pub const HINT: &str = "Point at a cell to see what it holds.";

/// The HTML page of `pic`.
pub fn page(pic: &Picture) -> String {
    let panels: Vec<serde_json::Value> = pic
        .panels
        .iter()
        .map(|p| {
            json!({"x": p.x, "y": p.y, "cw": p.cw, "ch": p.ch, "rows": p.rows, "cols": p.cols, "info": p.info})
        })
        .collect();
    // `<` is escaped so that no text inside the data can close the script.
    let data = serde_json::to_string(&panels)
        .unwrap_or_else(|_| "[]".into())
        .replace('<', "\\u003c");
    let svg = pic.svg.trim_end();
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{title}</title>\n<style>\nbody {{ font-family: sans-serif; margin: 0; }}\n#readout {{ position: sticky; top: 0; background: #fffbe6; border-bottom: 1px solid #ccc; padding: 6px 10px; font-family: monospace; min-height: 1.2em; }}\n#picture {{ padding: 10px; overflow: auto; }}\n</style>\n</head>\n<body>\n<div id=\"readout\">{HINT}</div>\n<div id=\"picture\">\n{svg}\n</div>\n<script type=\"application/json\" id=\"cells\">{data}</script>\n<script>\n{SCRIPT}\n</script>\n</body>\n</html>\n",
        title = escape(&pic.title),
        HINT = HINT,
    )
}

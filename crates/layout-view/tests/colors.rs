//! The warp palette and the mark colours were picked together: no fill a
//! warp (or logical row) can get is near a mark colour (bank conflict,
//! conversion path, access frame). Measured in CIE Lab (sRGB, D65), here
//! from the sRGB definition, not from the crate: every fill is at least
//! ΔE76 = 40 from each mark colour, and a fill that is not nearly grey
//! (chroma ≥ 10) is at least 30° of hue from a red mark. (The palette
//! this replaced had salmon `#fb9a99`, 13° of hue from the conflict red.)

use layout_view::convert::PATH_STROKE;
use layout_view::svg::{ACCESS_STROKE, CONFLICT_COLOR, PALETTE, PALETTE_DARK};

/// CIE Lab of an sRGB `#rrggbb` colour (D65 white).
fn lab(hex: &str) -> [f64; 3] {
    let h = hex.trim_start_matches('#');
    let c = |i: usize| {
        let v = u8::from_str_radix(&h[i..i + 2], 16).unwrap() as f64 / 255.0;
        if v <= 0.04045 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    let (r, g, b) = (c(0), c(2), c(4));
    let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    let f = |t: f64| {
        if t > 0.008856 {
            t.cbrt()
        } else {
            7.787 * t + 16.0 / 116.0
        }
    };
    [
        116.0 * f(y) - 16.0,
        500.0 * (f(x) - f(y)),
        200.0 * (f(y) - f(z)),
    ]
}

fn delta_e(a: &str, b: &str) -> f64 {
    let (p, q) = (lab(a), lab(b));
    ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt()
}

/// Hue angle (degrees) and chroma.
fn hue(c: &str) -> (f64, f64) {
    let [_, a, b] = lab(c);
    (b.atan2(a).to_degrees().rem_euclid(360.0), a.hypot(b))
}

fn hue_distance(a: f64, b: f64) -> f64 {
    let d = (a - b).abs() % 360.0;
    d.min(360.0 - d)
}

/// The failures of `fills` against `marks` (empty: all clear).
fn clashes(fills: &[&str], marks: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for m in marks {
        for f in fills {
            let de = delta_e(f, m);
            if de < 40.0 {
                out.push(format!("{f} is ΔE {de:.1} from {m}"));
            }
            let ((hf, cf), (hm, cm)) = (hue(f), hue(m));
            if cf >= 10.0 && cm >= 40.0 && hue_distance(hf, hm) < 30.0 {
                out.push(format!(
                    "{f} is {:.0}° of hue from {m}",
                    hue_distance(hf, hm)
                ));
            }
        }
    }
    out
}

#[test]
fn mark_colours_are_far_from_every_fill() {
    let fills: Vec<&str> = PALETTE.iter().chain(&PALETTE_DARK).copied().collect();
    let c = clashes(&fills, &[CONFLICT_COLOR, PATH_STROKE, ACCESS_STROKE]);
    assert!(c.is_empty(), "{c:?}");
}

/// The check can fail: the palette this one replaced, and a conflict
/// coloured as warp 0.
#[test]
fn the_check_catches_a_red_fill_and_a_warp_coloured_mark() {
    let old = [
        "#a6cee3", "#fdbf6f", "#b2df8a", "#fb9a99", "#fccde5", "#f4a582",
    ];
    assert!(!clashes(&old, &[CONFLICT_COLOR]).is_empty());
    assert!(!clashes(&PALETTE, &[PALETTE[0]]).is_empty());
}

#[test]
fn lab_matches_published_values() {
    // sRGB red and white (CIE Lab, D65): (53.24, 80.09, 67.20), (100, 0, 0).
    let r = lab("#ff0000");
    assert!((r[0] - 53.24).abs() < 0.1 && (r[1] - 80.09).abs() < 0.2 && (r[2] - 67.20).abs() < 0.2);
    let w = lab("#ffffff");
    assert!((w[0] - 100.0).abs() < 0.1 && w[1].abs() < 0.1 && w[2].abs() < 0.1);
}

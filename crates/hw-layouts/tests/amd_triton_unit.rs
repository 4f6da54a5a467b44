//! Triton's own AMD layout unit tests (unittest/Dialect/TritonGPU/
//! LinearLayoutConversionsTest.cpp, the AMD groups), re-expressed: the
//! parameters and the expected bases are transcribed from those tests (in
//! their `{{a, b}, ...}` notation), not computed by our code. Each test
//! names the Triton test it comes from.
//!
//! Triton's test helpers build MFMA layouts with one CTA and the default
//! `tilesPerWarp` / element width, and WMMA layouts from `warpsPerCTA` via
//! `chooseWmmaCTALinearLayout` — here the same parameters are written as
//! attribute text (the WMMA ones in the older `warpsPerCTA` form).

use hw_layouts::amd::{Mfma, Wmma};
use hw_layouts::syntax::Attribute;
use serde_json::Value;

/// `{{1, 0}, {2, 0}}` (Triton's C++ initializer lists) as JSON.
fn cpp(s: &str) -> Value {
    serde_json::from_str(&s.replace('{', "[").replace('}', "]")).expect("bases literal")
}

fn expected(reg: &str, lane: &str, warp: &str, block: &str) -> Value {
    serde_json::json!({
        "register": cpp(reg), "lane": cpp(lane), "warp": cpp(warp), "block": cpp(block)
    })
}

fn mfma(params: &str) -> Mfma {
    Mfma::from_attr(&Attribute::parse(&format!("#ttg.amd_mfma<{{{params}}}>")).unwrap()).unwrap()
}

fn wmma(params: &str) -> Wmma {
    Wmma::from_attr(&Attribute::parse(&format!("#ttg.amd_wmma<{{{params}}}>")).unwrap()).unwrap()
}

#[track_caller]
fn check(got: linear_layout::LinearLayout, reg: &str, lane: &str, warp: &str) {
    assert_eq!(got.bases_json(), expected(reg, lane, warp, "{}"));
}

#[test]
fn mfma32_2x4_warps() {
    // MFMA32_2x4Warps
    let nt =
        mfma("version = 3, warpsPerCTA = [2, 4], instrShape = [32, 32, 8], isTransposed = false");
    check(
        nt.to_linear_layout(&[32, 32]).unwrap(),
        "{{1, 0}, {2, 0}, {8, 0}, {16, 0}}",
        "{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {4, 0}}",
        "{{0, 0}, {0, 0}, {0, 0}}",
    );
    check(
        nt.to_linear_layout(&[64, 32]).unwrap(),
        "{{1, 0}, {2, 0}, {8, 0}, {16, 0}}",
        "{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {4, 0}}",
        "{{0, 0}, {0, 0}, {32, 0}}",
    );
    check(
        nt.to_linear_layout(&[128, 128]).unwrap(),
        "{{1, 0}, {2, 0}, {8, 0}, {16, 0}, {64, 0}}",
        "{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {4, 0}}",
        "{{0, 32}, {0, 64}, {32, 0}}",
    );
    let t =
        mfma("version = 3, warpsPerCTA = [2, 4], instrShape = [32, 32, 8], isTransposed = true");
    check(
        t.to_linear_layout(&[32, 32]).unwrap(),
        "{{0, 1}, {0, 2}, {0, 8}, {0, 16}}",
        "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {0, 4}}",
        "{{0, 0}, {0, 0}, {0, 0}}",
    );
    check(
        t.to_linear_layout(&[64, 32]).unwrap(),
        "{{0, 1}, {0, 2}, {0, 8}, {0, 16}}",
        "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {0, 4}}",
        "{{0, 0}, {0, 0}, {32, 0}}",
    );
    check(
        t.to_linear_layout(&[128, 128]).unwrap(),
        "{{0, 1}, {0, 2}, {0, 8}, {0, 16}, {64, 0}}",
        "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {0, 4}}",
        "{{0, 32}, {0, 64}, {32, 0}}",
    );
}

#[test]
fn mfma16_2x4_warps() {
    // MFMA16_2x4Warps
    let nt =
        mfma("version = 3, warpsPerCTA = [2, 4], instrShape = [16, 16, 16], isTransposed = false");
    check(
        nt.to_linear_layout(&[16, 16]).unwrap(),
        "{{1, 0}, {2, 0}}",
        "{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {4, 0}, {8, 0}}",
        "{{0, 0}, {0, 0}, {0, 0}}",
    );
}

#[test]
fn mfma16_2x4_warps_f64() {
    // MFMA16_2x4Warps_F64: 64-bit elements, one row per lane (height 1).
    let nt = mfma(
        "version = 3, warpsPerCTA = [2, 4], instrShape = [16, 16, 4], isTransposed = false, elementBitWidth = 64",
    );
    check(
        nt.to_linear_layout(&[16, 16]).unwrap(),
        "{{4, 0}, {8, 0}}",
        "{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {1, 0}, {2, 0}}",
        "{{0, 0}, {0, 0}, {0, 0}}",
    );
}

#[test]
fn mfma32_2x4x1_warps() {
    // MFMA32_2x4x1Warps
    let nt = mfma(
        "version = 3, warpsPerCTA = [2, 4, 1], instrShape = [32, 32, 8], isTransposed = false",
    );
    check(
        nt.to_linear_layout(&[1, 128, 128]).unwrap(),
        "{{0, 1, 0}, {0, 2, 0}, {0, 8, 0}, {0, 16, 0}, {0, 0, 32}, {0, 0, 64}}",
        "{{0, 0, 1}, {0, 0, 2}, {0, 0, 4}, {0, 0, 8}, {0, 0, 16}, {0, 4, 0}}",
        "{{0, 32, 0}, {0, 64, 0}, {0, 0, 0}}",
    );
    check(
        nt.to_linear_layout(&[2, 32, 32]).unwrap(),
        "{{0, 1, 0}, {0, 2, 0}, {0, 8, 0}, {0, 16, 0}}",
        "{{0, 0, 1}, {0, 0, 2}, {0, 0, 4}, {0, 0, 8}, {0, 0, 16}, {0, 4, 0}}",
        "{{0, 0, 0}, {0, 0, 0}, {1, 0, 0}}",
    );
    check(
        nt.to_linear_layout(&[2, 64, 32]).unwrap(),
        "{{0, 1, 0}, {0, 2, 0}, {0, 8, 0}, {0, 16, 0}}",
        "{{0, 0, 1}, {0, 0, 2}, {0, 0, 4}, {0, 0, 8}, {0, 0, 16}, {0, 4, 0}}",
        "{{0, 32, 0}, {0, 0, 0}, {1, 0, 0}}",
    );
    let t =
        mfma("version = 3, warpsPerCTA = [2, 4, 1], instrShape = [32, 32, 8], isTransposed = true");
    check(
        t.to_linear_layout(&[1, 128, 128]).unwrap(),
        "{{0, 0, 1}, {0, 0, 2}, {0, 0, 8}, {0, 0, 16}, {0, 0, 32}, {0, 0, 64}}",
        "{{0, 1, 0}, {0, 2, 0}, {0, 4, 0}, {0, 8, 0}, {0, 16, 0}, {0, 0, 4}}",
        "{{0, 32, 0}, {0, 64, 0}, {0, 0, 0}}",
    );
    check(
        t.to_linear_layout(&[2, 64, 32]).unwrap(),
        "{{0, 0, 1}, {0, 0, 2}, {0, 0, 8}, {0, 0, 16}}",
        "{{0, 1, 0}, {0, 2, 0}, {0, 4, 0}, {0, 8, 0}, {0, 16, 0}, {0, 0, 4}}",
        "{{0, 32, 0}, {0, 0, 0}, {1, 0, 0}}",
    );
}

#[test]
fn mfma32_warp1_on_k_lhs_kwidth8() {
    // MFMA32_warp1onK_lhs_kwidth8
    let p =
        mfma("version = 3, warpsPerCTA = [1, 8], instrShape = [32, 32, 8], isTransposed = false");
    let d = |s: &[u64]| p.dot_operand_layout(0, 8, s).unwrap();
    check(
        d(&[128, 128]),
        "{{0, 1}, {0, 2}, {0, 4}, {0, 16}, {0, 32}, {0, 64}, {32, 0}, {64, 0}}",
        "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {0, 8}}",
        "{{0, 0}, {0, 0}, {0, 0}}",
    );
    check(
        d(&[32, 64]),
        "{{0, 1}, {0, 2}, {0, 4}, {0, 16}, {0, 32}}",
        "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {0, 8}}",
        "{{0, 0}, {0, 0}, {0, 0}}",
    );
    check(
        d(&[16, 16]),
        "{{0, 1}, {0, 2}, {0, 4}}",
        "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 0}, {0, 8}}",
        "{{0, 0}, {0, 0}, {0, 0}}",
    );
}

#[test]
fn mfma32_warp1_on_k_rhs_kwidth8() {
    // MFMA32_warp1onK_rhs_kwidth8
    let p =
        mfma("version = 3, warpsPerCTA = [1, 8], instrShape = [32, 32, 8], isTransposed = false");
    let d = |s: &[u64]| p.dot_operand_layout(1, 8, s).unwrap();
    check(
        d(&[128, 128]),
        "{{1, 0}, {2, 0}, {4, 0}, {16, 0}, {32, 0}, {64, 0}}",
        "{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {8, 0}}",
        "{{0, 32}, {0, 64}, {0, 0}}",
    );
    check(
        d(&[128, 256]),
        "{{1, 0}, {2, 0}, {4, 0}, {16, 0}, {32, 0}, {64, 0}}",
        "{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {8, 0}}",
        "{{0, 32}, {0, 64}, {0, 128}}",
    );
    check(
        d(&[32, 64]),
        "{{1, 0}, {2, 0}, {4, 0}, {16, 0}}",
        "{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {8, 0}}",
        "{{0, 32}, {0, 0}, {0, 0}}",
    );
    let p4 =
        mfma("version = 3, warpsPerCTA = [1, 4], instrShape = [32, 32, 8], isTransposed = false");
    check(
        p4.dot_operand_layout(1, 8, &[256, 256]).unwrap(),
        "{{1, 0}, {2, 0}, {4, 0}, {16, 0}, {32, 0}, {64, 0}, {128, 0}, {0, 128}}",
        "{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {8, 0}}",
        "{{0, 32}, {0, 64}}",
    );
}

#[test]
fn mfma16_warp1_on_k_lhs_kwidth8() {
    // MFMA16_warp1onK_lhs_kwidth8
    let p =
        mfma("version = 3, warpsPerCTA = [1, 4], instrShape = [16, 16, 16], isTransposed = false");
    let d = |s: &[u64]| p.dot_operand_layout(0, 8, s).unwrap();
    check(
        d(&[128, 128]),
        "{{0, 1}, {0, 2}, {0, 4}, {0, 32}, {0, 64}, {16, 0}, {32, 0}, {64, 0}}",
        "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 8}, {0, 16}}",
        "{{0, 0}, {0, 0}}",
    );
    check(
        d(&[1, 128]),
        "{{0, 1}, {0, 2}, {0, 4}, {0, 32}, {0, 64}}",
        "{{0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 8}, {0, 16}}",
        "{{0, 0}, {0, 0}}",
    );
    check(
        d(&[128, 1]),
        "{{0, 0}, {0, 0}, {0, 0}, {16, 0}, {32, 0}, {64, 0}}",
        "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 0}, {0, 0}}",
        "{{0, 0}, {0, 0}}",
    );
    check(
        d(&[16, 16]),
        "{{0, 1}, {0, 2}, {0, 4}}",
        "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 8}, {0, 0}}",
        "{{0, 0}, {0, 0}}",
    );
    let p3 = mfma(
        "version = 3, warpsPerCTA = [1, 1, 8], instrShape = [16, 16, 16], isTransposed = false",
    );
    check(
        p3.dot_operand_layout(0, 8, &[1, 256, 256]).unwrap(),
        "{{0, 0, 1}, {0, 0, 2}, {0, 0, 4}, {0, 0, 32}, {0, 0, 64}, {0, 0, 128}, {0, 16, 0}, {0, 32, 0}, {0, 64, 0}, {0, 128, 0}}",
        "{{0, 1, 0}, {0, 2, 0}, {0, 4, 0}, {0, 8, 0}, {0, 0, 8}, {0, 0, 16}}",
        "{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}",
    );
}

#[test]
fn mfma16_warp1_on_k_rhs_kwidth8() {
    // MFMA16_warp1onK_rhs_kwidth8
    let p =
        mfma("version = 3, warpsPerCTA = [1, 4], instrShape = [16, 16, 16], isTransposed = false");
    let d = |s: &[u64]| p.dot_operand_layout(1, 8, s).unwrap();
    check(
        d(&[128, 128]),
        "{{1, 0}, {2, 0}, {4, 0}, {32, 0}, {64, 0}, {0, 64}}",
        "{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {8, 0}, {16, 0}}",
        "{{0, 16}, {0, 32}}",
    );
    check(
        d(&[1, 128]),
        "{{0, 0}, {0, 0}, {0, 0}, {0, 64}}",
        "{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 0}, {0, 0}}",
        "{{0, 16}, {0, 32}}",
    );
    check(
        d(&[128, 1]),
        "{{1, 0}, {2, 0}, {4, 0}, {32, 0}, {64, 0}}",
        "{{0, 0}, {0, 0}, {0, 0}, {0, 0}, {8, 0}, {16, 0}}",
        "{{0, 0}, {0, 0}}",
    );
    let p3 = mfma(
        "version = 3, warpsPerCTA = [1, 1, 8], instrShape = [16, 16, 16], isTransposed = false",
    );
    check(
        p3.dot_operand_layout(1, 8, &[1, 256, 256]).unwrap(),
        "{{0, 1, 0}, {0, 2, 0}, {0, 4, 0}, {0, 32, 0}, {0, 64, 0}, {0, 128, 0}, {0, 0, 128}}",
        "{{0, 0, 1}, {0, 0, 2}, {0, 0, 4}, {0, 0, 8}, {0, 8, 0}, {0, 16, 0}}",
        "{{0, 0, 16}, {0, 0, 32}, {0, 0, 64}}",
    );
}

#[test]
fn mfma_dot_op_lhs_tpw_2_2() {
    // MFMA32_dot_op_lhs_tpw_2_2 and MFMA16_dot_op_lhs_tpw_2_2; the
    // transposed parents give the same operand layouts.
    for transposed in [false, true] {
        let p32 = mfma(&format!(
            "version = 3, warpsPerCTA = [2, 4], instrShape = [32, 32, 8], isTransposed = {transposed}, tilesPerWarp = [2, 2]"
        ));
        check(
            p32.dot_operand_layout(0, 4, &[128, 128]).unwrap(),
            "{{0, 1}, {0, 2}, {0, 8}, {0, 16}, {0, 32}, {0, 64}, {32, 0}}",
            "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {0, 4}}",
            "{{0, 0}, {0, 0}, {64, 0}}",
        );
        check(
            p32.dot_operand_layout(0, 4, &[256, 256]).unwrap(),
            "{{0, 1}, {0, 2}, {0, 8}, {0, 16}, {0, 32}, {0, 64}, {0, 128}, {32, 0}, {128, 0}}",
            "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {0, 4}}",
            "{{0, 0}, {0, 0}, {64, 0}}",
        );
        let p16 = mfma(&format!(
            "version = 3, warpsPerCTA = [2, 4], instrShape = [16, 16, 16], isTransposed = {transposed}, tilesPerWarp = [2, 2]"
        ));
        check(
            p16.dot_operand_layout(0, 4, &[64, 32]).unwrap(),
            "{{0, 1}, {0, 2}, {0, 16}, {16, 0}}",
            "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 4}, {0, 8}}",
            "{{0, 0}, {0, 0}, {32, 0}}",
        );
        check(
            p16.dot_operand_layout(0, 4, &[128, 128]).unwrap(),
            "{{0, 1}, {0, 2}, {0, 16}, {0, 32}, {0, 64}, {16, 0}, {64, 0}}",
            "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 4}, {0, 8}}",
            "{{0, 0}, {0, 0}, {32, 0}}",
        );
    }
}

#[test]
fn mfma_dot_op_lhs_kwidth4() {
    // MFMA32_dot_op_lhs_kwidth4 and MFMA16_dot_op_lhs_kwidth4.
    for transposed in [false, true] {
        let p32 = mfma(&format!(
            "version = 3, warpsPerCTA = [2, 4], instrShape = [32, 32, 8], isTransposed = {transposed}"
        ));
        check(
            p32.dot_operand_layout(0, 4, &[128, 128]).unwrap(),
            "{{0, 1}, {0, 2}, {0, 8}, {0, 16}, {0, 32}, {0, 64}, {64, 0}}",
            "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {0, 4}}",
            "{{0, 0}, {0, 0}, {32, 0}}",
        );
        check(
            p32.dot_operand_layout(0, 4, &[16, 16]).unwrap(),
            "{{0, 1}, {0, 2}, {0, 8}}",
            "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 0}, {0, 4}}",
            "{{0, 0}, {0, 0}, {0, 0}}",
        );
        let p16 = mfma(&format!(
            "version = 3, warpsPerCTA = [2, 4], instrShape = [16, 16, 16], isTransposed = {transposed}"
        ));
        check(
            p16.dot_operand_layout(0, 4, &[128, 128]).unwrap(),
            "{{0, 1}, {0, 2}, {0, 16}, {0, 32}, {0, 64}, {32, 0}, {64, 0}}",
            "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 4}, {0, 8}}",
            "{{0, 0}, {0, 0}, {16, 0}}",
        );
        check(
            p16.dot_operand_layout(0, 4, &[64, 32]).unwrap(),
            "{{0, 1}, {0, 2}, {0, 16}, {32, 0}}",
            "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 4}, {0, 8}}",
            "{{0, 0}, {0, 0}, {16, 0}}",
        );
    }
}

#[test]
fn mfma32_dot_op_rhs_tpw_2_2() {
    // MFMA32_dot_op_rhs_tpw_2_2
    let p = mfma(
        "version = 3, warpsPerCTA = [2, 4], instrShape = [32, 32, 8], isTransposed = false, tilesPerWarp = [2, 2]",
    );
    check(
        p.dot_operand_layout(1, 4, &[32, 64]).unwrap(),
        "{{1, 0}, {2, 0}, {8, 0}, {16, 0}, {0, 32}}",
        "{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {4, 0}}",
        "{{0, 0}, {0, 0}, {0, 0}}",
    );
    check(
        p.dot_operand_layout(1, 4, &[128, 128]).unwrap(),
        "{{1, 0}, {2, 0}, {8, 0}, {16, 0}, {32, 0}, {64, 0}, {0, 32}}",
        "{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {4, 0}}",
        "{{0, 64}, {0, 0}, {0, 0}}",
    );
    check(
        p.dot_operand_layout(1, 4, &[256, 256]).unwrap(),
        "{{1, 0}, {2, 0}, {8, 0}, {16, 0}, {32, 0}, {64, 0}, {128, 0}, {0, 32}}",
        "{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {4, 0}}",
        "{{0, 64}, {0, 128}, {0, 0}}",
    );
}

#[test]
fn wmma_v1_2x4_warps() {
    // WMMA_v1_2x4Warps
    let l = wmma("version = 1, isTranspose = false, warpsPerCTA = [2, 4]");
    let r = "{{2, 0}, {4, 0}, {8, 0}}";
    let ln = "{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {1, 0}}";
    check(
        l.to_linear_layout(&[16, 16]).unwrap(),
        r,
        ln,
        "{{0, 0}, {0, 0}, {0, 0}}",
    );
    check(
        l.to_linear_layout(&[32, 16]).unwrap(),
        r,
        ln,
        "{{0, 0}, {0, 0}, {16, 0}}",
    );
    check(
        l.to_linear_layout(&[16, 32]).unwrap(),
        r,
        ln,
        "{{0, 16}, {0, 0}, {0, 0}}",
    );
    check(
        l.to_linear_layout(&[128, 128]).unwrap(),
        "{{2, 0}, {4, 0}, {8, 0}, {0, 64}, {32, 0}, {64, 0}}",
        ln,
        "{{0, 16}, {0, 32}, {16, 0}}",
    );
}

#[test]
fn wmma_v1_2x4x1_warps() {
    // WMMA_v1_2x4x1Warps
    let l = wmma("version = 1, isTranspose = false, warpsPerCTA = [2, 4, 1]");
    let ln = "{{0, 0, 1}, {0, 0, 2}, {0, 0, 4}, {0, 0, 8}, {0, 1, 0}}";
    check(
        l.to_linear_layout(&[1, 16, 16]).unwrap(),
        "{{0, 2, 0}, {0, 4, 0}, {0, 8, 0}}",
        ln,
        "{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}",
    );
    check(
        l.to_linear_layout(&[8, 16, 16]).unwrap(),
        "{{0, 2, 0}, {0, 4, 0}, {0, 8, 0}, {2, 0, 0}, {4, 0, 0}}",
        ln,
        "{{0, 0, 0}, {0, 0, 0}, {1, 0, 0}}",
    );
}

#[test]
fn wmma_v1_2x4_warps_lhs_rhs() {
    // WMMA_v1_2x4Warps_lhs and WMMA_v1_2x4Warps_rhs (kWidth 16).
    let p = wmma("version = 1, isTranspose = false, warpsPerCTA = [2, 4]");
    check(
        p.dot_operand_layout(0, 16, &[16, 16]).unwrap(),
        "{{0, 1}, {0, 2}, {0, 4}, {0, 8}}",
        "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 0}}",
        "{{0, 0}, {0, 0}, {0, 0}}",
    );
    check(
        p.dot_operand_layout(0, 16, &[64, 128]).unwrap(),
        "{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {0, 32}, {0, 64}, {32, 0}}",
        "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 0}}",
        "{{0, 0}, {0, 0}, {16, 0}}",
    );
    check(
        p.dot_operand_layout(1, 16, &[32, 64]).unwrap(),
        "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}}",
        "{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 0}}",
        "{{0, 16}, {0, 32}, {0, 0}}",
    );
    check(
        p.dot_operand_layout(1, 16, &[64, 128]).unwrap(),
        "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {32, 0}, {0, 64}}",
        "{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 0}}",
        "{{0, 16}, {0, 32}, {0, 0}}",
    );
}

#[test]
fn wmma_v1_2x4x1_warps_lhs_rhs() {
    // WMMA_v1_2x4x1Warps_lhs and WMMA_v1_2x4x1Warps_rhs.
    let p = wmma("version = 1, isTranspose = false, warpsPerCTA = [2, 4, 1]");
    check(
        p.dot_operand_layout(0, 16, &[4, 128, 32]).unwrap(),
        "{{0, 0, 1}, {0, 0, 2}, {0, 0, 4}, {0, 0, 8}, {0, 0, 16}, {0, 64, 0}, {2, 0, 0}}",
        "{{0, 1, 0}, {0, 2, 0}, {0, 4, 0}, {0, 8, 0}, {0, 0, 0}}",
        "{{0, 16, 0}, {0, 32, 0}, {1, 0, 0}}",
    );
    check(
        p.dot_operand_layout(1, 16, &[4, 128, 32]).unwrap(),
        "{{0, 1, 0}, {0, 2, 0}, {0, 4, 0}, {0, 8, 0}, {0, 16, 0}, {0, 32, 0}, {0, 64, 0}, {0, 0, 16}, {2, 0, 0}}",
        "{{0, 0, 1}, {0, 0, 2}, {0, 0, 4}, {0, 0, 8}, {0, 0, 0}}",
        "{{0, 0, 0}, {0, 0, 0}, {1, 0, 0}}",
    );
}

#[test]
fn wmma_v2_2x4_warps() {
    // WMMA_v2_2x4Warps
    let l = wmma("version = 2, isTranspose = false, warpsPerCTA = [2, 4]");
    let r = "{{1, 0}, {2, 0}, {4, 0}}";
    let ln = "{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {8, 0}}";
    check(
        l.to_linear_layout(&[16, 16]).unwrap(),
        r,
        ln,
        "{{0, 0}, {0, 0}, {0, 0}}",
    );
    check(
        l.to_linear_layout(&[32, 16]).unwrap(),
        r,
        ln,
        "{{0, 0}, {0, 0}, {16, 0}}",
    );
    check(
        l.to_linear_layout(&[16, 32]).unwrap(),
        r,
        ln,
        "{{0, 16}, {0, 0}, {0, 0}}",
    );
    check(
        l.to_linear_layout(&[64, 128]).unwrap(),
        "{{1, 0}, {2, 0}, {4, 0}, {0, 64}, {32, 0}}",
        ln,
        "{{0, 16}, {0, 32}, {16, 0}}",
    );
}

#[test]
fn wmma_v2_2x2x2_warps() {
    // WMMA_v2_2x2x2Warps
    let l = wmma("version = 2, isTranspose = false, warpsPerCTA = [2, 2, 2]");
    check(
        l.to_linear_layout(&[4, 64, 64]).unwrap(),
        "{{0, 1, 0}, {0, 2, 0}, {0, 4, 0}, {0, 0, 32}, {0, 32, 0}, {2, 0, 0}}",
        "{{0, 0, 1}, {0, 0, 2}, {0, 0, 4}, {0, 0, 8}, {0, 8, 0}}",
        "{{0, 0, 16}, {0, 16, 0}, {1, 0, 0}}",
    );
}

#[test]
fn twmma_v2_2x4_warps() {
    // TWMMA_v2_2x4Warps (transposed)
    let l = wmma("version = 2, isTranspose = true, warpsPerCTA = [2, 4]");
    let r = "{{0, 1}, {0, 2}, {0, 4}}";
    let ln = "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 8}}";
    check(
        l.to_linear_layout(&[16, 16]).unwrap(),
        r,
        ln,
        "{{0, 0}, {0, 0}, {0, 0}}",
    );
    check(
        l.to_linear_layout(&[32, 16]).unwrap(),
        r,
        ln,
        "{{0, 0}, {0, 0}, {16, 0}}",
    );
    check(
        l.to_linear_layout(&[16, 32]).unwrap(),
        r,
        ln,
        "{{0, 16}, {0, 0}, {0, 0}}",
    );
    check(
        l.to_linear_layout(&[64, 128]).unwrap(),
        "{{0, 1}, {0, 2}, {0, 4}, {0, 64}, {32, 0}}",
        ln,
        "{{0, 16}, {0, 32}, {16, 0}}",
    );
}

#[test]
fn twmma_v2_2x2x2_warps() {
    // TWMMA_v2_2x2x2Warps
    let l = wmma("version = 2, isTranspose = true, warpsPerCTA = [2, 2, 2]");
    check(
        l.to_linear_layout(&[2, 16, 16]).unwrap(),
        "{{0, 0, 1}, {0, 0, 2}, {0, 0, 4}}",
        "{{0, 1, 0}, {0, 2, 0}, {0, 4, 0}, {0, 8, 0}, {0, 0, 8}}",
        "{{0, 0, 0}, {0, 0, 0}, {1, 0, 0}}",
    );
    check(
        l.to_linear_layout(&[4, 64, 64]).unwrap(),
        "{{0, 0, 1}, {0, 0, 2}, {0, 0, 4}, {0, 0, 32}, {0, 32, 0}, {2, 0, 0}}",
        "{{0, 1, 0}, {0, 2, 0}, {0, 4, 0}, {0, 8, 0}, {0, 0, 8}}",
        "{{0, 0, 16}, {0, 16, 0}, {1, 0, 0}}",
    );
}

#[test]
fn wmma_v2_2x4_warps_lhs() {
    // WMMA_v2_2x4Warps_lhs
    let p = wmma("version = 2, isTranspose = false, warpsPerCTA = [2, 4]");
    check(
        p.dot_operand_layout(0, 8, &[32, 64]).unwrap(),
        "{{0, 1}, {0, 2}, {0, 4}, {0, 16}, {0, 32}}",
        "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 8}}",
        "{{0, 0}, {0, 0}, {16, 0}}",
    );
    check(
        p.dot_operand_layout(0, 16, &[32, 128]).unwrap(),
        "{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 32}, {0, 64}}",
        "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 16}}",
        "{{0, 0}, {0, 0}, {16, 0}}",
    );
}

#[test]
fn wmma_v2_2x4_warps_rhs() {
    // WMMA_v2_2x4Warps_rhs
    let p = wmma("version = 2, isTranspose = false, warpsPerCTA = [2, 4]");
    check(
        p.dot_operand_layout(1, 8, &[64, 128]).unwrap(),
        "{{1, 0}, {2, 0}, {4, 0}, {16, 0}, {32, 0}, {0, 64}}",
        "{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {8, 0}}",
        "{{0, 16}, {0, 32}, {0, 0}}",
    );
    check(
        p.dot_operand_layout(1, 16, &[128, 128]).unwrap(),
        "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {32, 0}, {64, 0}, {0, 64}}",
        "{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {16, 0}}",
        "{{0, 16}, {0, 32}, {0, 0}}",
    );
}

#[test]
fn wmma_v2_2x4x1_warps_lhs_rhs() {
    // WMMA_v2_2x4x1Warps_lhs and WMMA_v2_2x4x1Warps_rhs (kWidth 8).
    let p = wmma("version = 2, isTranspose = false, warpsPerCTA = [2, 4, 1]");
    check(
        p.dot_operand_layout(0, 8, &[4, 128, 32]).unwrap(),
        "{{0, 0, 1}, {0, 0, 2}, {0, 0, 4}, {0, 0, 16}, {0, 64, 0}, {2, 0, 0}}",
        "{{0, 1, 0}, {0, 2, 0}, {0, 4, 0}, {0, 8, 0}, {0, 0, 8}}",
        "{{0, 16, 0}, {0, 32, 0}, {1, 0, 0}}",
    );
    check(
        p.dot_operand_layout(1, 8, &[4, 128, 32]).unwrap(),
        "{{0, 1, 0}, {0, 2, 0}, {0, 4, 0}, {0, 16, 0}, {0, 32, 0}, {0, 64, 0}, {0, 0, 16}, {2, 0, 0}}",
        "{{0, 0, 1}, {0, 0, 2}, {0, 0, 4}, {0, 0, 8}, {0, 8, 0}}",
        "{{0, 0, 0}, {0, 0, 0}, {1, 0, 0}}",
    );
}

#[test]
fn wmma_v3_2x4_warps() {
    // WMMA_v3_2x4Warps, WMMA_v3_2x4Warps_lhs, WMMA_v3_2x4Warps_rhs
    let l =
        wmma("version = 3, isTranspose = false, warpsPerCTA = [2, 4], instrShape = [16, 16, 32]");
    check(
        l.to_linear_layout(&[64, 128]).unwrap(),
        "{{1, 0}, {2, 0}, {4, 0}, {0, 64}, {32, 0}}",
        "{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {8, 0}}",
        "{{0, 16}, {0, 32}, {16, 0}}",
    );
    check(
        l.dot_operand_layout(0, 8, &[64, 128]).unwrap(),
        "{{0, 1}, {0, 2}, {0, 4}, {0, 16}, {0, 32}, {0, 64}, {32, 0}}",
        "{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 8}}",
        "{{0, 0}, {0, 0}, {16, 0}}",
    );
    check(
        l.dot_operand_layout(1, 8, &[64, 128]).unwrap(),
        "{{1, 0}, {2, 0}, {4, 0}, {16, 0}, {32, 0}, {0, 64}}",
        "{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {8, 0}}",
        "{{0, 16}, {0, 32}, {0, 0}}",
    );
}

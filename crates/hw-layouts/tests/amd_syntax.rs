//! Text in and out for `#ttg.amd_mfma` / `#ttg.amd_wmma`.

use hw_layouts::amd::{Mfma, Wmma};
use hw_layouts::syntax::Attribute;
use serde_json::Value;
use std::path::PathBuf;

fn mfma(text: &str) -> Mfma {
    Mfma::from_attr(&Attribute::parse(text).unwrap()).unwrap()
}

fn wmma(text: &str) -> Wmma {
    Wmma::from_attr(&Attribute::parse(text).unwrap()).unwrap()
}

#[test]
fn mfma_legacy_syntax() {
    // Older Triton's `versionMajor/versionMinor` and CTA triple. By hand:
    // CTAOrder [1, 0] takes dim1 first (1 CTA, nothing), then dim0 with
    // split 2 = identity_1d(2, block, dim0): one block basis [1, 0].
    let old = mfma(
        "#ttg.amd_mfma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = false, CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>",
    );
    let new = "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = false, CGALayout = [[1, 0]]}>";
    assert_eq!(old.to_mlir(), new);
    assert_eq!(old, mfma(new));
    // CTAsPerCGA 2 with split 1: the two CTAs replicate (zero basis).
    let bcast = mfma(
        "#ttg.amd_mfma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 16], isTransposed = true, CTAsPerCGA = [1, 2], CTASplitNum = [1, 1], CTAOrder = [1, 0]}>",
    );
    assert_eq!(bcast.cga_bases, vec![vec![0, 0]]);
    let bad = Attribute::parse(
        "#ttg.amd_mfma<{versionMajor = 2, versionMinor = 1, warpsPerCTA = [1, 1], instrShape = [16, 16], isTransposed = true}>",
    )
    .unwrap();
    assert!(Mfma::from_attr(&bad)
        .unwrap_err()
        .to_string()
        .contains("versionMinor"));
}

#[test]
fn mfma_defaults_are_omitted() {
    let m = mfma(
        "#ttg.amd_mfma<{version = 2, warpsPerCTA = [1, 4], instrShape = [32, 32, 8], isTransposed = true, tilesPerWarp = [1, 1, 1], elementBitWidth = 32}>",
    );
    assert_eq!(
        m.to_mlir(),
        "#ttg.amd_mfma<{version = 2, warpsPerCTA = [1, 4], instrShape = [32, 32, 8], isTransposed = true}>"
    );
}

#[test]
fn wmma_legacy_warps_per_cta() {
    // chooseWmmaCTALinearLayout, by hand for warpsPerCTA [2, 4]: row-major
    // order takes dim1 first (4 warps: [0, 1], [0, 2]) then dim0 (2 warps:
    // [1, 0]); no register repetitions.
    let w = wmma("#ttg.amd_wmma<{version = 2, isTranspose = false, warpsPerCTA = [2, 4]}>");
    assert_eq!(
        w.to_mlir(),
        "#ttg.amd_wmma<{version = 2, isTranspose = false, ctaLayout = {warp = [[0, 1], [0, 2], [1, 0]]}}>"
    );
    let w3 = wmma("#ttg.amd_wmma<{version = 1, isTranspose = false, warpsPerCTA = [2, 1, 1], tilesPerWarp = [1, 2, 1]}>");
    assert_eq!(
        w3.to_mlir(),
        "#ttg.amd_wmma<{version = 1, isTranspose = false, ctaLayout = {register = [[0, 1, 0]], warp = [[1, 0, 0]]}, rank = 3}>"
    );
}

#[test]
fn wmma_triton_printer_output_is_accepted() {
    // Triton's printer omits `warp = []` and `rank = 3` (its parser then
    // refuses the text); we read both forms to the same layout.
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/triton-oracle/amd-extra-layouts.jsonl");
    let mut n = 0;
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let r: Value = serde_json::from_str(line).unwrap();
        let (Some(printed), Some(fixed)) = (r["mlir_printed"].as_str(), r["mlir"].as_str()) else {
            continue;
        };
        let a = Attribute::parse(printed).unwrap();
        let b = Attribute::parse(fixed).unwrap();
        let (a, b) = if a.name == "dot_op" {
            (
                a.get("parent").unwrap().as_attr().unwrap().clone(),
                b.get("parent").unwrap().as_attr().unwrap().clone(),
            )
        } else {
            (a, b)
        };
        assert_eq!(
            Wmma::from_attr(&a).unwrap(),
            Wmma::from_attr(&b).unwrap(),
            "{printed}"
        );
        n += 1;
    }
    assert!(n > 20, "only {n} repaired WMMA records");
}

//! Inputs Triton 3.9 refuses (or aborts on) must give an error naming the
//! problem, never a panic. The `s7-L…` ids are records of
//! tests/data/triton-oracle/amd-extra-rejects.jsonl (Triton's verdict);
//! the others come from Triton's verifier / builder messages quoted in the
//! error text.

use hw_layouts::amd::{Mfma, Wmma};
use hw_layouts::syntax::Attribute;
use hw_layouts::HwError;

fn mfma(text: &str) -> Result<Mfma, HwError> {
    Mfma::from_attr(&Attribute::parse(text)?)
}

fn wmma(text: &str) -> Result<Wmma, HwError> {
    Wmma::from_attr(&Attribute::parse(text)?)
}

#[track_caller]
fn err_contains<T: std::fmt::Debug>(r: Result<T, HwError>, needle: &str) {
    match r {
        Ok(v) => panic!("expected an error containing {needle:?}, got {v:?}"),
        Err(e) => {
            let msg = e.to_string();
            assert!(
                msg.contains(needle),
                "error {msg:?} should mention {needle:?}"
            );
        }
    }
}

const MFMA_OK: &str =
    "#ttg.amd_mfma<{version = 4, warpsPerCTA = [4, 2], instrShape = [16, 16, 32], isTransposed = false}>";

#[test]
fn mfma_bad_shapes() {
    let m = mfma(MFMA_OK).unwrap();
    // s7-L00029: a zero dim; s7-L00055 / s7-L00225 / s7-L00237: not powers of two.
    err_contains(m.to_linear_layout(&[0, 128]), "power of two");
    err_contains(m.to_linear_layout(&[32, 96]), "power of two");
    err_contains(m.to_linear_layout(&[128, 3]), "power of two");
    // Rank mismatch (Triton asserts rank == getRank()).
    err_contains(m.to_linear_layout(&[2, 32, 32]), "rank");
    err_contains(m.dot_operand_layout(0, 8, &[64]), "rank");
}

#[test]
fn mfma_bad_params() {
    // s7-L00040: rank-1 warpsPerCTA (Triton aborts in combineCtaCgaWithShape).
    err_contains(
        mfma("#ttg.amd_mfma<{version = 2, warpsPerCTA = [2], instrShape = [16, 16, 128], isTransposed = false}>"),
        "warpsPerCTA",
    );
    // s7-L00052 / s7-L00093: negative instrShape entry.
    err_contains(
        mfma("#ttg.amd_mfma<{version = 2, warpsPerCTA = [2, 1], instrShape = [-1, 32, 8], isTransposed = true}>"),
        "instrShape",
    );
    // s7-L00323 and the verifier's "invalid (mDim, nDim) combination".
    err_contains(
        mfma("#ttg.amd_mfma<{version = 4, warpsPerCTA = [1, 1], instrShape = [64, 48, 4], isTransposed = true}>"),
        "invalid (mDim, nDim) combination: (64, 48)",
    );
    // s7-L00393: elementBitWidth 3.
    err_contains(
        mfma("#ttg.amd_mfma<{version = 4, warpsPerCTA = [8, 2], instrShape = [16, 16, 32], isTransposed = true, elementBitWidth = 3}>"),
        "elementBitWidth must be 32 or 64",
    );
    // s7-L00110: a zero warp count along N makes Triton divide by zero
    // (SIGFPE); along M Triton treats it as 1 (s11 records, see amd_syntax).
    let m0 = mfma("#ttg.amd_mfma<{version = 2, warpsPerCTA = [1, 0], instrShape = [16, 16, 16], isTransposed = false}>")
        .unwrap();
    err_contains(m0.to_linear_layout(&[8, 128]), "non-zero");
    // The operands never divide by it: 0 warps act as 1 (as in Triton).
    let zero = mfma("#ttg.amd_mfma<{version = 2, warpsPerCTA = [0, 0], instrShape = [16, 16, 16], isTransposed = false}>")
        .unwrap();
    let one = mfma("#ttg.amd_mfma<{version = 2, warpsPerCTA = [1, 1], instrShape = [16, 16, 16], isTransposed = false}>")
        .unwrap();
    assert_eq!(
        zero.dot_operand_layout(0, 4, &[32, 64]).unwrap(),
        one.dot_operand_layout(0, 4, &[32, 64]).unwrap()
    );
    err_contains(
        mfma("#ttg.amd_mfma<{version = 2, warpsPerCTA = [1, 3], instrShape = [16, 16, 16], isTransposed = false}>"),
        "powers of two",
    );
    // s7-L00058: tilesPerWarp entry 3 along N (checked where Triton reads
    // it: the accumulator and operand B use it, operand A does not).
    let m3 = mfma("#ttg.amd_mfma<{version = 2, warpsPerCTA = [4, 1, 2], instrShape = [64, 4, 4], isTransposed = true, tilesPerWarp = [1, 1, 3]}>")
        .unwrap();
    err_contains(m3.to_linear_layout(&[32, 64, 16]), "tilesPerWarp");
    err_contains(m3.dot_operand_layout(1, 4, &[32, 64, 16]), "tilesPerWarp");
    assert!(m3.dot_operand_layout(0, 4, &[32, 64, 16]).is_ok());
    // s7-L00166: tilesPerWarp shorter than the rank.
    err_contains(
        mfma("#ttg.amd_mfma<{version = 2, warpsPerCTA = [4, 2], instrShape = [16, 16, 16], isTransposed = false, tilesPerWarp = [2]}>"),
        "tilesPerWarp",
    );
    // Verifier: "version must be in the [0, 4] range".
    err_contains(
        mfma("#ttg.amd_mfma<{version = 10, warpsPerCTA = [1, 1], instrShape = [32, 32], isTransposed = false}>"),
        "[0, 4] range",
    );
    // CGA basis of the wrong rank.
    err_contains(
        mfma("#ttg.amd_mfma<{version = 3, warpsPerCTA = [1, 1], instrShape = [32, 32], isTransposed = false, CGALayout = [[1, 0, 0]]}>"),
        "CGALayout",
    );
    // Missing mandatory field, unknown field.
    err_contains(
        mfma("#ttg.amd_mfma<{version = 3, warpsPerCTA = [1, 1], instrShape = [32, 32]}>"),
        "isTransposed",
    );
    err_contains(
        mfma("#ttg.amd_mfma<{version = 3, warpsPerCTA = [1, 1], instrShape = [32, 32], isTransposed = false, bogus = 1}>"),
        "bogus",
    );
}

#[test]
fn mfma_64x4_must_be_transposed() {
    // Triton asserts "64x4 mfma must be transposed" in toLinearLayout.
    let m = mfma("#ttg.amd_mfma<{version = 3, warpsPerCTA = [1, 1], instrShape = [64, 4, 4], isTransposed = false}>")
        .unwrap();
    err_contains(m.to_linear_layout(&[64, 4]), "64x4 mfma must be transposed");
}

#[test]
fn mfma_dot_operand_params() {
    let m = mfma(MFMA_OK).unwrap();
    // Dot-operand verifier: "kWidth parameter is mandatory for MFMA parent".
    err_contains(
        m.dot_operand_layout(0, 0, &[64, 64]),
        "mandatory for MFMA parent",
    );
    err_contains(m.dot_operand_layout(2, 8, &[64, 64]), "opIdx");
    err_contains(m.dot_operand_layout(0, 6, &[64, 64]), "power of two");
}

#[test]
fn wmma_bad_params() {
    // s7-L00072 / s7-L00252: the verifier's per-version instruction shapes.
    err_contains(
        wmma("#ttg.amd_wmma<{version = 3, isTranspose = false, ctaLayout = {warp = []}, instrShape = [5, 16, 128], rank = 3}>"),
        "invalid WMMA v3 instruction shape",
    );
    err_contains(
        wmma("#ttg.amd_wmma<{version = 3, isTranspose = true, ctaLayout = {register = [[2, 0]], warp = [[1, 0]]}, instrShape = [16, 6, 64]}>"),
        "invalid WMMA v3 instruction shape",
    );
    err_contains(
        wmma("#ttg.amd_wmma<{version = 1, isTranspose = false, ctaLayout = {warp = []}, instrShape = [16, 16, 32]}>"),
        "invalid WMMA v1 instruction shape",
    );
    err_contains(
        wmma("#ttg.amd_wmma<{version = 4, isTranspose = false, ctaLayout = {warp = []}}>"),
        "[1, 3] range",
    );
    // s7-L00307: ctaLayout not surjective (Triton: "Layout is expected to
    // be surjective").
    err_contains(
        wmma("#ttg.amd_wmma<{version = 3, isTranspose = true, ctaLayout = {register = [[2, 0], [1, 48], [0, 2]], warp = [[0, 4], [0, 1]]}, instrShape = [16, 16, 32]}>"),
        "surjective",
    );
    // s7-L00070: legacy CTA parameters of different lengths.
    err_contains(
        wmma("#ttg.amd_wmma<{version = 3, isTranspose = true, ctaLayout = {register = [[0, 1], [0, 2]], warp = []}, instrShape = [16, 16, 4], CTAsPerCGA = [8, 1], CTASplitNum = [8], CTAOrder = [1, 0]}>"),
        "CTASplitNum",
    );
    // Parser: "Serialized rank and rank deduced from LL need to match".
    err_contains(
        wmma("#ttg.amd_wmma<{version = 2, isTranspose = false, ctaLayout = {warp = [[0, 1]]}, rank = 3}>"),
        "Serialized rank",
    );
    err_contains(
        wmma("#ttg.amd_wmma<{version = 2, isTranspose = false, ctaLayout = {lane = [[0, 1]], warp = []}}>"),
        "lane",
    );
    err_contains(
        wmma("#ttg.amd_wmma<{version = 2, isTranspose = false, ctaLayout = {register = [[0, 1, 0]], warp = [[0, 1]]}}>"),
        "entries",
    );
}

#[test]
fn wmma_dot_operand_kwidth() {
    // Dot-operand verifier: v1 8/16, v2 4/8/16, v3 non-zero.
    let v1 =
        wmma("#ttg.amd_wmma<{version = 1, isTranspose = false, ctaLayout = {warp = []}}>").unwrap();
    err_contains(v1.dot_operand_layout(0, 4, &[16, 16]), "8/16");
    let v2 =
        wmma("#ttg.amd_wmma<{version = 2, isTranspose = false, ctaLayout = {warp = []}}>").unwrap();
    err_contains(v2.dot_operand_layout(1, 32, &[16, 16]), "4/8/16");
    let v3 = wmma("#ttg.amd_wmma<{version = 3, isTranspose = false, ctaLayout = {warp = []}, instrShape = [16, 16, 32]}>").unwrap();
    err_contains(v3.dot_operand_layout(0, 0, &[16, 16]), "non-zero");
    err_contains(v3.dot_operand_layout(0, 8, &[16, 12]), "power of two");
    assert!(v3.dot_operand_layout(0, 8, &[16, 32]).is_ok());
}

mod fuzz {
    use super::*;
    use linear_layout::DimName;
    use proptest::prelude::*;

    fn pick(v: &'static [i64]) -> impl Strategy<Value = i64> {
        proptest::sample::select(v)
    }

    /// Mostly one of `good`, sometimes one of `bad`.
    fn mostly<T: Clone + std::fmt::Debug + 'static>(
        good: &'static [T],
        bad: &'static [T],
    ) -> impl Strategy<Value = T> {
        prop_oneof![
            12 => proptest::sample::select(good),
            1 => proptest::sample::select(bad),
        ]
    }

    const SIZES: &[i64] = &[1, 1, 2, 2, 4, 8, 16];
    const BAD_SIZES: &[i64] = &[0, 3, 1 << 40, -1];
    const SHAPE: &[u64] = &[1, 2, 4, 16, 32, 64, 128, 256, 1024];
    const BAD_SHAPE: &[u64] = &[0, 3, 96];

    /// The first `rank` entries of `full`, or a wrong rank now and then.
    fn fit(full: &[u64], rank: usize, wrong: bool) -> Vec<u64> {
        let r = if wrong { 1 } else { rank.min(full.len()) };
        full[..r].to_vec()
    }

    /// The structural facts every accepted layout has: out dims = shape,
    /// `lanes` lanes, `warps` warps (Triton's module-level invariants).
    /// Surjectivity holds when the parameters are single powers of two;
    /// a WMMA ctaLayout basis such as [3, 0] can lose its low bit when the
    /// shape clips it (Triton zeroes a component >= the dim size), so
    /// `surjective` is only asserted when the caller knows it must hold.
    fn check_invariants(
        l: &linear_layout::LinearLayout,
        shape: &[u64],
        lanes: u64,
        warps: u64,
        surjective: bool,
    ) {
        let outs: Vec<u64> = l.out_dims().iter().map(|d| d.1).collect();
        assert_eq!(outs, shape);
        assert_eq!(l.in_dim_size(DimName::LANE), lanes);
        assert_eq!(l.in_dim_size(DimName::WARP), warps);
        if surjective {
            assert!(l.is_surjective());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// Arbitrary MFMA parameters and shapes: an error or a layout, never
        /// a panic.
        #[test]
        fn mfma_never_panics(
            version in mostly(&[1i64, 2, 3, 4], &[0, 5]),
            // mostly valid (1..=4), sometimes not
            w in proptest::collection::vec(mostly(SIZES, BAD_SIZES), 2..4),
            mn in mostly(&[(32i64, 32i64), (16, 16), (64, 4), (4, 64)], &[(4, 4), (8, 8), (0, 0)]),
            transposed in any::<bool>(),
            tpw in proptest::option::of(proptest::collection::vec(mostly(SIZES, BAD_SIZES), 2..4)),
            ebw in mostly(&[32i64, 64], &[16]),
            full in proptest::collection::vec(mostly(SHAPE, BAD_SHAPE), 3),
            wrong in proptest::bool::weighted(0.1),
            op in mostly(&[0u32, 1], &[2]), kw in mostly(&[1i64, 2, 4, 8, 16, 64], &[0, 3]),
        ) {
            let list = |v: &[i64]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ");
            let mut text = format!(
                "#ttg.amd_mfma<{{version = {version}, warpsPerCTA = [{}], instrShape = [{}, {}, 8], isTransposed = {transposed}, elementBitWidth = {ebw}",
                list(&w), mn.0, mn.1
            );
            if let Some(t) = &tpw { text += &format!(", tilesPerWarp = [{}]", list(t)); }
            text += "}>";
            let shape = fit(&full, w.len(), wrong);
            if let Ok(m) = mfma(&text) {
                if let Ok(l) = m.to_linear_layout(&shape) {
                    check_invariants(&l, &shape, 64, m.num_warps(), true);
                }
                if let Ok(l) = m.dot_operand_layout(op, kw as u32, &shape) {
                    check_invariants(&l, &shape, 64, m.num_warps(), true);
                }
            }
        }

        /// Arbitrary WMMA bases and shapes: an error or a layout.
        #[test]
        fn wmma_never_panics(
            version in mostly(&[1i64, 2, 3], &[0, 4]),
            // mostly valid (1..=3), sometimes not
            transposed in any::<bool>(),
            reg in proptest::collection::vec(proptest::collection::vec(mostly(&[0i64, 1, 2, 4, 8], &[3]), 2), 0..3),
            warp in proptest::collection::vec(proptest::collection::vec(pick(&[0, 1, 2, 4]), 2), 0..4),
            k in mostly(&[4i64, 16, 32, 64, 128], &[5]),
            rank in proptest::option::of(mostly(&[2i64], &[1, 3, 4])),
            full in proptest::collection::vec(mostly(SHAPE, BAD_SHAPE), 3),
            wrong in proptest::bool::weighted(0.1),
            op in mostly(&[0u32, 1], &[2]), kw in mostly(&[2i64, 4, 8, 16, 32], &[0, 3]),
        ) {
            let bases = |v: &[Vec<i64>]| {
                let rows: Vec<String> = v.iter().map(|b| format!("[{}]", b.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", "))).collect();
                format!("[{}]", rows.join(", "))
            };
            let mut text = format!(
                "#ttg.amd_wmma<{{version = {version}, isTranspose = {transposed}, ctaLayout = {{register = {}, warp = {}}}, instrShape = [16, 16, {k}]",
                bases(&reg), bases(&warp)
            );
            if let Some(r) = rank { text += &format!(", rank = {r}"); }
            text += "}>";
            let r = reg.first().or(warp.first()).map_or(2, Vec::len);
            let shape = fit(&full, r, wrong);
            let unit = reg.iter().chain(warp.iter()).flatten().all(|&x| x == 0 || x & (x - 1) == 0)
                && reg.iter().chain(warp.iter()).all(|b| b.iter().filter(|&&x| x != 0).count() <= 1);
            if let Ok(w) = wmma(&text) {
                if let Ok(l) = w.to_linear_layout(&shape) {
                    check_invariants(&l, &shape, 32, w.num_warps(), unit);
                }
                if let Ok(l) = w.dot_operand_layout(op, kw as u32, &shape) {
                    check_invariants(&l, &shape, 32, w.num_warps(), unit);
                }
            }
        }
    }
}

/// Builds the attribute text Triton printed before refusing (`printed_types`
/// of a rejects file) with our types; returns our outcome.
fn outcome(r: &serde_json::Value) -> Option<Result<(), String>> {
    let t = r["printed_types"].as_array()?.first()?.as_str()?;
    let start = t.find(", #")? + 2;
    let attr_text = &t[start..t.len() - 1];
    let shape: Vec<u64> = r["shape"]
        .as_array()?
        .iter()
        .map(|x| x.as_i64().unwrap_or(-1).max(0) as u64)
        .collect();
    let run = || -> Result<(), HwError> {
        let a = Attribute::parse(attr_text)?;
        if a.name == "dot_op" {
            let op = a.get("opIdx").and_then(|v| v.as_int()).unwrap_or(0) as u32;
            let kw = a.get("kWidth").and_then(|v| v.as_int()).unwrap_or(0) as u32;
            let p = a.get("parent").and_then(|v| v.as_attr()).unwrap();
            if p.name == "amd_mfma" {
                Mfma::from_attr(p)?.dot_operand_layout(op, kw, &shape)?;
            } else {
                Wmma::from_attr(p)?.dot_operand_layout(op, kw, &shape)?;
            }
        } else if a.name == "amd_mfma" {
            Mfma::from_attr(&a)?.to_linear_layout(&shape)?;
        } else {
            Wmma::from_attr(&a)?.to_linear_layout(&shape)?;
        }
        Ok(())
    };
    Some(run().map_err(|e| e.to_string()))
}

/// Lists our outcome for every printed reject of `AMD_REJECTS_FILE`.
#[test]
#[ignore = "needs AMD_REJECTS_FILE"]
fn external_rejects_report() {
    let path = std::env::var("AMD_REJECTS_FILE").expect("set AMD_REJECTS_FILE");
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        if let Some(o) = outcome(&r) {
            println!("{} {:?} -> {:?}", r["id"], r["shape"], o);
        }
    }
}

/// Every input of the committed rejects files whose attribute text Triton
/// printed before aborting in `to_linear_layout` is refused by us too,
/// except where the text does not show the problem or the abort is not the
/// layout's (listed with the reason).
#[test]
fn printed_rejects_are_refused() {
    let allowed_ok = [
        // Gluon's to_linear_layout wraps the result in a LinearEncodingAttr,
        // which aborts on non-permutation layouts (a ctaLayout basis [3, 0]
        // or [6, 1]); the WMMA layout itself is defined.
        "s7-L00184",
        "s11-L00461",
        // tilesPerWarp [1] given to Gluon: the printer omits all-ones
        // tilesPerWarp, so the printed text is valid (the parser fills the
        // default); Triton aborted on the unprinted short list.
        "s11-L00068",
    ];
    let mut refused = 0;
    for file in ["amd-extra-rejects.jsonl", "amd-s11-rejects.jsonl"] {
        let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data/triton-oracle")
            .join(file);
        for line in std::fs::read_to_string(path).unwrap().lines() {
            let r: serde_json::Value = serde_json::from_str(line).unwrap();
            let id = r["id"].as_str().unwrap();
            let Some(o) = outcome(&r) else { continue };
            if allowed_ok.contains(&id) {
                assert!(o.is_ok(), "{id}: {o:?}");
            } else {
                assert!(
                    o.is_err(),
                    "{id}: Triton refused {}, we accept",
                    r["printed_types"]
                );
                refused += 1;
            }
        }
    }
    assert!(refused >= 35, "only {refused} printed rejects checked");
}

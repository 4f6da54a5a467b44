//! `linlayout convert --best` and the JSON's `"best"` object, run as a
//! process: the printed class stays Triton's, and our plan of a 64×64 f16
//! transpose reaches the wavefront bound derived by hand.

use serde_json::Value;
use std::process::Command;

const ROW: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";
const COL: &str = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>";

fn run(extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["convert", "--shape", "64x64", "--dtype", "f16"];
    args.extend(extra);
    args.extend([ROW, COL]);
    let out = Command::new(env!("CARGO_BIN_EXE_linlayout"))
        .args(&args)
        .output()
        .expect("run linlayout");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn json_best_sits_beside_the_unchanged_fields() {
    let (code, out, err) = run(&["--json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    // Triton sends a transpose through shared memory.
    assert_eq!(v["kind"], "shared");
    for k in ["conversion", "cost", "plan"] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    let best = &v["best"];
    assert_eq!(best["kind"], "shared");
    // Bound by hand: 64·64 f16 = 8192 bytes per side; one wavefront moves
    // at most 128 bytes (32 banks × 4 bytes): 64 wavefronts per side over
    // the 4 warps.
    assert_eq!(best["simulated"]["store_wavefronts"], 64);
    assert_eq!(best["simulated"]["load_wavefronts"], 64);
    assert!(best["cost"].as_f64().unwrap() <= best["triton_cost"].as_f64().unwrap());
    // Triton's plan (the "plan" field) has more store wavefronts here.
    assert!(v["cost"]["store_wavefronts"].as_u64().unwrap() > 64);
}

#[test]
fn best_flag_prints_our_plan_and_keeps_the_class() {
    let (code, plain, err) = run(&[]);
    assert_eq!(code, 0, "{err}");
    let (code, best, err) = run(&["--best"]);
    assert_eq!(code, 0, "{err}");
    assert!(plain.starts_with("class: shared"), "{plain}");
    assert!(best.starts_with("class: shared"), "{best}");
    assert!(best.contains("ours: shared (paper_swizzle)"), "{best}");
    assert!(best.contains("wavefronts: stores 64"), "{best}");
    assert!(!plain.contains("ours:"));
    // --best --json: "plan" is ours, "kind" still Triton's class.
    let (code, out, err) = run(&["--best", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["kind"], "shared");
    assert_eq!(v["cost"]["store_wavefronts"], 64);
}

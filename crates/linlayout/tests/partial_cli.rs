//! `linlayout convert --partial`, run as a process: the partial cross-warp
//! plan of mma v2 `[2, 2]` accumulators ↔ their replicated A operand, and
//! the reason printed where the class does not apply.

use serde_json::Value;
use std::process::Command;

const MMA: &str =
    "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>";
const ROW: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";
const COL: &str = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>";

fn dot_a() -> String {
    format!("#ttg.dot_op<{{opIdx = 0, parent = {MMA}, kWidth = 2}}>")
}

fn run(extra: &[&str], src: &str, dst: &str) -> (i32, String, String) {
    let mut args = vec!["convert", "--shape", "64x64", "--dtype", "f16", "--partial"];
    args.extend(extra);
    args.extend([src, dst]);
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

/// By hand: the 64×64 f16 tile is 8 KiB = 64 wavefronts of 128 B. Every
/// warp's accumulators are needed by the other N warp (store 64); each
/// warp holds 32 rows × 64 columns of A and computed half of them (load
/// 4 KiB / 2 per warp, 4 warps: 64). The full plan loads both halves (128).
#[test]
fn mma_to_replicated_dot_a_loads_half() {
    let (code, out, err) = run(&[], MMA, &dot_a());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("4096 of 8192 destination elements stay in their warp"),
        "{out}"
    );
    assert!(
        out.contains("predicted units per CTA (wavefronts + shuffles): 128 (stores 64, loads 64, shuffles 0); the full plan through the same layout: 192"),
        "{out}"
    );
    assert!(out.contains("proved by simulate_partial: 8192 destination registers checked"));
    let (code, out, err) = run(&["--json"], MMA, &dot_a());
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let p = &v["partial"];
    assert_eq!(p["partial_units"], 128);
    assert_eq!(p["full_units"], 192);
    assert_eq!(p["plan"]["classes"].as_array().unwrap().len(), 2);
    // Triton's class stays beside it.
    assert_eq!(v["kind"], "shared");
}

/// Back: every thread holds its accumulators in its own copy of A.
#[test]
fn dot_a_to_mma_needs_no_shared_memory() {
    let (code, out, err) = run(&[], &dot_a(), MMA);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("class: shared"), "{out}");
    assert!(
        out.contains("4096 of 4096 destination elements stay"),
        "{out}"
    );
    assert_eq!(
        out.matches("(no shared memory, no barrier)").count(),
        2,
        "{out}"
    );
}

#[test]
fn a_transpose_is_refused_with_the_reason() {
    let (code, out, err) = run(&[], ROW, COL);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("partial cross-warp plan: not applicable: the source warp depends on destination lane bit"),
        "{out}"
    );
    let (_, out, _) = run(&["--json"], ROW, COL);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(v["partial"]["refused"].as_str().unwrap().contains("C_wl"));
}

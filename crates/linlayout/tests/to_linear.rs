//! `linlayout to-linear` end to end: the binary's JSON against Triton 3.9's
//! answers (`tests/data/triton-oracle/sample-layouts.jsonl` at the workspace
//! root), the text form parsing back, and the error paths (exit status 2,
//! one line on stderr).

use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_linlayout"))
}

fn oracle_records() -> Vec<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/triton-oracle/sample-layouts.jsonl");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

fn shape_arg(r: &Value) -> String {
    let s: Vec<String> = r["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.to_string())
        .collect();
    s.join("x")
}

/// Two records of each distributed kind this tool must handle, a dozen+.
fn sample() -> Vec<Value> {
    let keys = [
        ("blocked", None),
        ("slice", Some("blocked")),
        ("slice", Some("slice")),
        ("nvidia_mma", None),
        ("dot_op", Some("mma_v2")),
        ("dot_op", Some("mma_v3")),
        ("dot_op", Some("blocked")),
        ("linear", None),
        ("tmem_reg", None),
    ];
    let all = oracle_records();
    let mut out = Vec::new();
    for (kind, parent) in keys {
        let picked: Vec<&Value> = all
            .iter()
            .filter(|r| {
                r["kind"] == kind
                    && match parent {
                        None => true,
                        Some(p) => r["parent_kind"] == p,
                    }
            })
            .take(2)
            .collect();
        assert!(
            !picked.is_empty(),
            "no oracle record of kind {kind}/{parent:?}"
        );
        out.extend(picked.into_iter().cloned());
    }
    assert!(out.len() >= 12);
    out
}

fn run_ok(args: &[&str]) -> String {
    let o = bin().args(args).output().expect("run linlayout");
    assert!(
        o.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).expect("utf-8")
}

#[test]
fn json_matches_triton_for_oracle_records() {
    for r in sample() {
        let shape = shape_arg(&r);
        let mlir = r["mlir"].as_str().unwrap();
        let out = run_ok(&["to-linear", "--json", "--shape", &shape, mlir]);
        assert_eq!(out.lines().count(), 1, "one JSON object on one line: {out}");
        let got: Value = serde_json::from_str(&out).expect("valid JSON");
        let mut want = r["linear"].clone();
        want.as_object_mut()
            .unwrap()
            .insert("shape".into(), r["shape"].clone());
        assert_eq!(got, want, "{} {mlir} shape {shape}", r["id"]);
        // Exactly the oracle's keys plus "shape".
        let keys: Vec<&String> = got.as_object().unwrap().keys().collect();
        let mut wkeys: Vec<&String> = want.as_object().unwrap().keys().collect();
        wkeys.sort();
        let mut gkeys = keys.clone();
        gkeys.sort();
        assert_eq!(gkeys, wkeys);
    }
}

#[test]
fn text_output_is_a_linear_layout_with_the_same_bases() {
    for r in sample() {
        let shape = shape_arg(&r);
        let mlir = r["mlir"].as_str().unwrap();
        let text = run_ok(&["to-linear", "--shape", &shape, mlir]);
        let text = text.trim();
        assert!(text.starts_with("#ttg.linear<{register = "), "{text}");
        // Feeding the printed #ttg.linear back (through stdin) gives the
        // same bases as the original attribute: the printer round-trips.
        let mut child = bin()
            .args(["to-linear", "--json", "--shape", &shape, "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let got: Value = serde_json::from_slice(&o.stdout).unwrap();
        for k in ["register", "lane", "warp", "block"] {
            assert_eq!(got[k], r["linear"][k], "{} {k}", r["id"]);
        }
    }
}

fn assert_usage_error(o: Output, what: &str) {
    assert_eq!(o.status.code(), Some(2), "{what}: exit status");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "{what}: one line, got {err:?}"
    );
    assert!(o.stdout.is_empty(), "{what}: nothing on stdout");
}

const BLOCKED: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";

#[test]
fn errors_exit_2_with_one_line() {
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("garbage", vec!["to-linear", "--shape", "16x16", "garbage"]),
        ("non-power-of-two shape", vec!["to-linear", "--shape", "12x16", BLOCKED]),
        ("zero dim", vec!["to-linear", "--shape", "0x16", BLOCKED]),
        ("bad shape text", vec!["to-linear", "--shape", "16xq", BLOCKED]),
        ("wrong rank", vec!["to-linear", "--shape", "16x16x16", BLOCKED]),
        ("unknown attribute", vec!["to-linear", "--shape", "16x16", "#ttg.nonsense<{a = 1}>"]),
        (
            "invalid parameter",
            vec![
                "to-linear",
                "--shape",
                "16x16",
                "#ttg.blocked<{sizePerThread = [3, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>",
            ],
        ),
        ("wrong threads per warp", vec!["to-linear", "--threads-per-warp", "64", "--shape", "16x16", BLOCKED]),
        ("bad threads per warp", vec!["to-linear", "--threads-per-warp", "48", "--shape", "16x16", BLOCKED]),
    ];
    for (what, args) in cases {
        let o = bin().args(&args).output().expect("run");
        assert_usage_error(o, what);
    }
}

#[test]
fn threads_per_warp_64_is_accepted() {
    let l = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 8], warpsPerCTA = [1, 1], order = [1, 0]}>";
    let out = run_ok(&[
        "to-linear",
        "--threads-per-warp",
        "64",
        "--json",
        "--shape",
        "8x8",
        l,
    ]);
    let v: Value = serde_json::from_str(&out).unwrap();
    // 8x8 lanes over an 8x8 tensor: lane bits walk dim1 (order [1, 0]) then dim0.
    assert_eq!(
        v["lane"],
        serde_json::json!([[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0]])
    );
    assert_eq!(v["register"], serde_json::json!([]));
}

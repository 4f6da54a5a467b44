//! Nothing a user types crashes or exhausts `linlayout`: the cases of the
//! robustness review as regression tests through the binary (each failure
//! exits 2, or 1 for a failed write, with one line on stderr), the common
//! flags of every subcommand, and the resource bounds of each subcommand at
//! its largest accepted shape.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BLOCKED: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";
const BLOCKED_T: &str = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>";
const DOT_A: &str = "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>";
const SHARED: &str = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>";

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_linlayout"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run linlayout")
}

/// The run failed with `code` and exactly one line on stderr, containing
/// every needle; returns that line.
fn fails(args: &[&str], code: i32, needles: &[&str]) -> String {
    let o = run(args);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(code), "{args:?}: stderr {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: not one line: {err}");
    assert!(err.starts_with("linlayout: "), "{err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: {err:?} should contain {n:?}");
    }
    for leak in [
        "Ident(",
        "List(",
        "Int(",
        "Some(",
        "panicked",
        "RUST_BACKTRACE",
    ] {
        assert!(!err.contains(leak), "Rust debug text in {err:?}");
    }
    err
}

fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).expect("utf-8")
}

fn nested_slices(n: usize) -> String {
    let inner = "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>";
    format!(
        "{}{inner}{}",
        "#ttg.slice<{dim = 0, parent = ".repeat(n),
        "}>".repeat(n)
    )
}

// ----- 1. deep nesting ---------------------------------------------------------

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    // 5000 levels (about 160 KB) aborted the CLI with a stack overflow.
    let dir = std::env::temp_dir().join(format!("linlayout-deep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("deep.txt");
    std::fs::write(&file, nested_slices(5000)).unwrap();
    let at = format!("@{}", file.display());
    for cmd in ["to-linear", "show", "matrix"] {
        fails(&[cmd, "--shape", "16", &at], 2, &["nesting", "limit of 64"]);
    }
    fails(&["convert", "--shape", "16", &at, &at], 2, &["limit of 64"]);
    std::fs::remove_dir_all(&dir).ok();
}

// ----- 3. write errors ---------------------------------------------------------

#[test]
fn a_full_disk_is_one_line_and_exit_1() {
    if !std::path::Path::new("/dev/full").exists() {
        return;
    }
    for args in [
        vec!["to-linear", "--shape", "16x16", BLOCKED],
        vec!["show", "--shape", "16x16", BLOCKED],
        vec!["convert", "--shape", "16x16", BLOCKED, BLOCKED_T],
    ] {
        let full = std::fs::File::create("/dev/full").unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_linlayout"))
            .args(&args)
            .stdout(full)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains("cannot write the output: No space left"),
            "{err}"
        );
    }
    // A picture file that cannot be written is output too: exit 1, naming
    // the file.
    fails(
        &["show", "--shape", "16x16", "--svg", "/dev/full", BLOCKED],
        1,
        &["cannot write '/dev/full'"],
    );
}

// ----- 4, 5. what Triton's parser rejects ---------------------------------------

#[test]
fn negative_literals_and_duplicate_keys_are_rejected_naming_the_key() {
    fails(
        &["to-linear", "--shape", "16x16", "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [-0, 1]}>"],
        2,
        &["non-negative integer in 'order'", "'-0"],
    );
    fails(
        &["to-linear", "--shape", "16x16", "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0], order = [0, 1]}>"],
        2,
        &["duplicate key 'order'"],
    );
}

// ----- 6. JSON read-back -------------------------------------------------------

#[test]
fn to_linear_json_reads_back_in_every_reader() {
    let attr_matrix = ok(&["matrix", "--shape", "16x16", BLOCKED]);
    for extra in [None, Some("--full")] {
        let mut args = vec!["to-linear", "--json", "--shape", "16x16", BLOCKED];
        args.extend(extra);
        let json = ok(&args);
        let json = json.trim();
        assert_eq!(ok(&["matrix", json]), attr_matrix, "{json}");
        assert_eq!(ok(&["matrix", "--shape", "16x16", json]), attr_matrix);
        ok(&["show", json]);
        let file = std::env::temp_dir().join(format!("linlayout-rb-{}.json", std::process::id()));
        std::fs::write(&file, json).unwrap();
        assert_eq!(
            ok(&["matrix", "--json-layout", file.to_str().unwrap()]),
            attr_matrix
        );
        std::fs::remove_file(&file).ok();
        // The conversion from the JSON to the attribute is a no-op.
        let c = ok(&["convert", "--shape", "16x16", json, BLOCKED]);
        assert!(c.starts_with("class: noop"), "{c}");
        // A --shape that contradicts the recorded one is named.
        fails(
            &["matrix", "--shape", "16x32", json],
            2,
            &["16, 32", "16, 16"],
        );
    }
    // swizzle --json's layout reads back too.
    let sw = ok(&["swizzle", "--json", "--shape", "32x32", BLOCKED, BLOCKED_T]);
    ok(&["matrix", sw.trim()]);
}

// ----- 7, 8. one set of flags, one argument order ---------------------------------

#[test]
fn every_subcommand_takes_the_common_flags() {
    let common = [
        "--shape",
        "32x32",
        "--threads-per-warp",
        "32",
        "--num-warps",
        "4",
    ];
    let with = |cmd: &[&str], rest: &[&str], dtype: bool| -> Vec<String> {
        let mut v: Vec<String> = cmd.iter().map(|s| s.to_string()).collect();
        v.extend(common.iter().map(|s| s.to_string()));
        if dtype {
            v.extend(["--dtype".to_string(), "f16".to_string()]);
        }
        v.extend(rest.iter().map(|s| s.to_string()));
        v
    };
    let cases: Vec<Vec<String>> = vec![
        with(&["to-linear"], &[BLOCKED], false),
        with(&["show"], &[BLOCKED], true),
        with(&["matrix"], &[BLOCKED], false),
        with(&["convert"], &[BLOCKED, BLOCKED_T], true),
        with(&["swizzle"], &[BLOCKED, BLOCKED_T], true),
        with(&["bank-conflicts"], &[BLOCKED, SHARED], true),
        with(
            &["explain", "invert-and-compose"],
            &[BLOCKED, BLOCKED_T],
            true,
        ),
        with(&["explain", "free-variables"], &[BLOCKED], true),
        with(&["explain", "swizzle"], &[BLOCKED, BLOCKED_T], true),
    ];
    for c in &cases {
        let args: Vec<&str> = c.iter().map(String::as_str).collect();
        ok(&args);
        // The same command on 8 warps or 64 lanes is refused, naming both.
        let mut bad = args.clone();
        let i = bad.iter().position(|a| *a == "--num-warps").unwrap();
        bad[i + 1] = "8";
        fails(&bad, 2, &["4 warps", "--num-warps is 8"]);
        let mut bad = args.clone();
        let i = bad.iter().position(|a| *a == "--threads-per-warp").unwrap();
        bad[i + 1] = "64";
        fails(
            &bad,
            2,
            &["32 threads per warp", "--threads-per-warp is 64"],
        );
    }
}

#[test]
fn dtype_has_one_default_f16() {
    // bank-conflicts no longer needs --bitwidth: the default is f16's.
    let args = |d: &[&'static str]| {
        let mut v = vec!["bank-conflicts", "--shape", "64x64"];
        v.extend_from_slice(d);
        v.extend([
            "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
            SHARED,
        ]);
        v
    };
    let default = ok(&args(&[]));
    assert_eq!(default, ok(&args(&["--dtype", "f16"])));
    assert_eq!(default, ok(&args(&["--bitwidth", "16"])));
    let conv = |d: &[&'static str]| {
        let mut v = vec!["convert", "--json", "--shape", "32x32"];
        v.extend_from_slice(d);
        v.extend([BLOCKED, BLOCKED_T]);
        ok(&v)
    };
    assert_eq!(conv(&[]), conv(&["--dtype", "f16"]));
    // f32 needs twice the scratch: the default is not f32 (convert's old one).
    assert_ne!(conv(&[]), conv(&["--dtype", "f32"]));
    fails(
        &[
            "convert", "--shape", "32x32", "--dtype", "f7", BLOCKED, BLOCKED_T,
        ],
        2,
        &["unknown dtype 'f7'"],
    );
}

#[test]
fn explain_invert_and_compose_takes_the_source_first() {
    // dst = BLOCKED_T: its register=1 basis is (1, 0) (sizePerThread = [4, 1],
    // order [0, 1]: registers run down dim 0). The line for register=1
    // shows the *destination's* basis.
    let out = ok(&[
        "explain",
        "invert-and-compose",
        "--shape",
        "32x32",
        BLOCKED,
        BLOCKED_T,
    ]);
    let line = out
        .lines()
        .find(|l| l.starts_with("register=1 "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains("holds (1, 0)"), "{line}");
}

#[test]
fn a_warp_mismatch_is_named_as_such() {
    let eight = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]}>";
    let e = fails(
        &["convert", "--shape", "64x64", BLOCKED, eight],
        2,
        &["source layout has 4 warps", "destination has 8"],
    );
    assert!(!e.contains("simulation"), "{e}");
}

// ----- 11. messages ---------------------------------------------------------

#[test]
fn messages_name_the_value_in_the_users_terms() {
    fails(
        &["to-linear", "--shape", "16x16", "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = f7lse}>"],
        2,
        &["order", "f7lse"],
    );
    fails(
        &[
            "to-linear",
            "--shape",
            "16x16",
            "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [[1], 0]}>",
        ],
        2,
        &["order", "[[1], 0]"],
    );
    fails(&["to-linear", "--shape", "16x12", BLOCKED], 2, &["12"]);
    fails(
        &["convert", "--shape", "16x12", BLOCKED, BLOCKED],
        2,
        &["12"],
    );
    // Clap's usage errors: one line, with the usage.
    fails(
        &["convert", "--shape", "16"],
        2,
        &["<SRC>", "usage: linlayout convert"],
    );
    fails(&["to-linear", "--bogus"], 2, &["--bogus"]);
    fails(&["frobnicate"], 2, &["frobnicate"]);
    // No subcommand at all: clap's help, on stderr, exit 2.
    let o = run(&[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("Commands:"));
}

// ----- 2. resource limits -------------------------------------------------------

/// Runs under a 1 GB address-space limit (`ulimit -v`; an allocation past
/// it fails and the process aborts, failing the test) and returns the wall
/// time.
fn bounded(args: &[&str]) -> (Output, Duration) {
    let quoted: Vec<String> = args
        .iter()
        .map(|a| format!("'{}'", a.replace('\'', "'\\''")))
        .collect();
    let script = format!(
        "ulimit -v 1048576; exec '{}' {}",
        env!("CARGO_BIN_EXE_linlayout"),
        quoted.join(" ")
    );
    let t = Instant::now();
    let o = Command::new("sh")
        .args(["-c", &script])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("sh");
    (o, t.elapsed())
}

#[test]
fn each_subcommand_at_its_largest_shape_is_bounded_and_above_it_refused_at_once() {
    // The largest shape each accepts: 2^40 elements where the work is on
    // the bits, 2^18 for convert (per element), 2^18 for a whole show.
    let huge = "1048576x1048576";
    let accepted: Vec<Vec<&str>> = vec![
        vec!["to-linear", "--json", "--shape", huge, BLOCKED],
        vec!["matrix", "--shape", huge, BLOCKED],
        vec!["swizzle", "--json", "--shape", huge, BLOCKED, DOT_A],
        vec!["bank-conflicts", "--json", "--shape", huge, BLOCKED, SHARED],
        vec![
            "explain",
            "invert-and-compose",
            "--shape",
            huge,
            BLOCKED,
            DOT_A,
        ],
        vec!["explain", "swizzle", "--shape", huge, BLOCKED, DOT_A],
        vec!["explain", "free-variables", "--shape", huge, DOT_A],
        vec![
            "convert",
            "--json",
            "--best",
            "--partial",
            "--shape",
            "512x512",
            BLOCKED,
            DOT_A,
        ],
        vec!["show", "--shape", "512x512", BLOCKED],
        vec![
            "show",
            "--shape",
            "1024x1024",
            "--rows",
            "0..4",
            "--cols",
            "0..8",
            BLOCKED,
        ],
        // A window of a 2^40-element layout: solved for its cells only.
        vec![
            "show",
            "--shape",
            "1048576x1048576",
            "--rows",
            "1000..1064",
            "--cols",
            "7..71",
            BLOCKED,
        ],
        vec![
            "show",
            "--shape",
            "1048576x1048576",
            "--rows",
            "1000..1064",
            "--cols",
            "7..71",
            "--svg",
            "/dev/null",
            BLOCKED,
        ],
    ];
    // A debug build is about 10x slower than release; the bound is 2 s in
    // release (BENCHMARKS-style figures are in layout_codegen::limits).
    let bound = if cfg!(debug_assertions) { 30.0 } else { 2.0 };
    for a in &accepted {
        let (o, t) = bounded(a);
        assert!(
            o.status.success(),
            "{a:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(t.as_secs_f64() < bound, "{a:?} took {t:?}");
    }
    let refused: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["to-linear", "--shape", "2097152x1048576", BLOCKED],
            "2^40",
        ),
        (
            vec!["convert", "--shape", "1024x512", BLOCKED, DOT_A],
            "2^18",
        ),
        (
            vec!["convert", "--shape", "16384x16384", BLOCKED, BLOCKED],
            "16384x16384",
        ),
        (
            vec![
                "convert",
                "--partial",
                "--shape",
                "1099511627776",
                BLOCKED,
                BLOCKED,
            ],
            "2^40 elements",
        ),
        (vec!["show", "--shape", "1024x512", BLOCKED], "2^18"),
        (
            vec![
                "show",
                "--shape",
                "1024x1024",
                "--svg",
                "/dev/null",
                BLOCKED,
            ],
            "2^18",
        ),
        (
            vec![
                "show",
                "--shape",
                "1048576x1048576",
                "--rows",
                "0..1024",
                "--cols",
                "0..512",
                BLOCKED,
            ],
            "524288 cells",
        ),
    ];
    for (a, needle) in &refused {
        let (o, t) = bounded(a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{a:?}: {err}");
        assert!(err.contains(needle), "{a:?}: {err}");
        assert!(t.as_secs_f64() < 2.0, "{a:?} refused after {t:?}");
    }
}

// ----- 12. the adversarial campaign of 2026-11-29 ----------------------------------

/// `bounded` with `input` on stdin.
fn bounded_stdin(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    let quoted: Vec<String> = args
        .iter()
        .map(|a| format!("'{}'", a.replace('\'', "'\\''")))
        .collect();
    let script = format!(
        "ulimit -v 1048576; exec '{}' {}",
        env!("CARGO_BIN_EXE_linlayout"),
        quoted.join(" ")
    );
    let mut child = Command::new("sh")
        .args(["-c", &script])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh");
    // The command may stop reading at its bound: a broken pipe is fine.
    let _ = child.stdin.take().unwrap().write_all(input);
    child.wait_with_output().expect("wait")
}

/// The one stderr line of a bounded run that failed with exit 2.
fn refused(o: &Output, args: &[&str], needles: &[&str]) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: {err:?} should contain {n:?}");
    }
}

#[test]
fn input_files_and_stdin_are_read_to_a_bound() {
    // `@/dev/zero` (and an endless stdin) read until the memory ran out:
    // 3.6 GB in 9 s under a 6 GB limit, every byte of a machine without.
    if !std::path::Path::new("/dev/zero").exists() {
        return;
    }
    let layout = "longer than 4194304 bytes (4 MiB)";
    for args in [
        vec!["to-linear", "--shape", "16x16", "@/dev/zero"],
        vec!["show", "--json-layout", "/dev/zero"],
        vec!["matrix", "@/dev/zero"],
        vec!["convert", "--shape", "16x16", BLOCKED, "@/dev/zero"],
        vec!["from-cute", "@/dev/zero"],
    ] {
        let (o, t) = bounded(&args);
        refused(&o, &args, &["'/dev/zero'", layout]);
        assert!(t.as_secs_f64() < 10.0, "{args:?} took {t:?}");
    }
    let (o, _) = bounded(&["engine", "/dev/zero"]);
    refused(
        &o,
        &["engine"],
        &["/dev/zero is longer than 8388608 bytes (8 MiB)"],
    );
    let big = vec![b' '; 5 << 20];
    let args = ["to-linear", "--shape", "16x16", "-"];
    refused(
        &bounded_stdin(&args, &big),
        &args,
        &["stdin is longer than 4194304 bytes"],
    );
    // Text that is not UTF-8 keeps its message.
    let args = ["show", "-"];
    refused(
        &bounded_stdin(&args, b"\xff\xfe"),
        &args,
        &["cannot read stdin: stream did not contain valid UTF-8"],
    );
}

#[test]
fn a_long_chain_of_dots_is_planned_in_bounded_time() {
    // 64 chained dots on 2 warps: 2^64 combinations of warp arrangements,
    // whose count wrapped to 0 in release (under the limit: the engine
    // enumerated them, 7 GB in 10 s) and panicked in a debug build.
    let mut k = String::from(
        "module {
  tt.func public @k(%arg0: !tt.ptr<f16>) {
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %e = tt.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %f = tt.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %g = tt.broadcast %e : tensor<64x1xi32> -> tensor<64x64xi32>
    %h = tt.broadcast %f : tensor<1x64xi32> -> tensor<64x64xi32>
    %o = arith.addi %g, %h : tensor<64x64xi32>
    %p = tt.splat %arg0 : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>>
    %q = tt.addptr %p, %o : tensor<64x64x!tt.ptr<f16>>, tensor<64x64xi32>
    %a0 = tt.load %q : tensor<64x64x!tt.ptr<f16>>
    %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
",
    );
    for i in 0..64 {
        k.push_str(&format!(
            "    %d{i} = tt.dot %a{i}, %a0, %z, inputPrecision = tf32 : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    %a{} = arith.truncf %d{i} : tensor<64x64xf32> to tensor<64x64xf16>
",
            i + 1
        ));
    }
    k.push_str("    tt.store %q, %a64 : tensor<64x64x!tt.ptr<f16>>\n    tt.return\n  }\n}\n");
    let file = std::env::temp_dir().join(format!("linlayout-chain-{}.ttir", std::process::id()));
    std::fs::write(&file, k).unwrap();
    let path = file.to_str().unwrap();
    let bound = if cfg!(debug_assertions) { 60.0 } else { 5.0 };
    for nw in ["2", "8"] {
        let args = ["engine", "--num-warps", nw, path];
        let (o, t) = bounded(&args);
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(t.as_secs_f64() < bound, "{args:?} took {t:?}");
    }
    std::fs::remove_file(&file).ok();
}

#[test]
fn wide_inputs_are_refused_at_their_bound() {
    // 65 keys in one attribute (each compared with those before it: 500 000
    // took more than 10 s), 65 dims (the per-dim work is quadratic in
    // the rank: a JSON object of bases of 100 000 components took 3 s).
    let keys: Vec<String> = (0..65).map(|i| format!("k{i} = 1")).collect();
    let attr = format!("#ttg.blocked<{{{}}}>", keys.join(", "));
    fails(
        &["to-linear", "--shape", "16", &attr],
        2,
        &["more than 64 keys in one attribute or dict"],
    );
    let wide = format!("{{\"register\": [[{}]]}}", vec!["0"; 100].join(", "));
    fails(
        &["matrix", &wide],
        2,
        &["too many output dims: 100 (at most 64)"],
    );
    let rank65 = vec!["1"; 65].join("x");
    fails(
        &["to-linear", "--shape", &rank65, BLOCKED],
        2,
        &["rank 65 is more than 64"],
    );
}

#[test]
fn refusals_name_the_layout_at_fault() {
    // Two distributed layouts: "layout is missing in dim 'offset'".
    fails(
        &["bank-conflicts", "--shape", "64x64", BLOCKED, BLOCKED_T],
        2,
        &["the shared layout has no 'offset' input dim (its input dims: register, lane, warp, block)"],
    );
    fails(
        &["bank-conflicts", "--shape", "64x64", SHARED, SHARED],
        2,
        &["the distributed layout has no 'register' input dim (its input dims: offset, block)"],
    );
    // A layout that does not cover the tile: "layout algebra: outer layout
    // does not cover this layout's image".
    let half = r#"{"register": [[0, 1], [0, 2]], "lane": [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], "warp": [[8, 0], [16, 0]], "block": []}"#;
    let mma = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>";
    fails(
        &["cuda", "--shape", "32x32", half, mma],
        2,
        &["source layout does not cover the whole 32x32 tile"],
    );
    fails(
        &["cuda", "--shape", "32x32", mma, half],
        2,
        &["destination layout does not cover the whole 32x32 tile"],
    );
    fails(
        &[
            "explain",
            "invert-and-compose",
            "--shape",
            "32x32",
            half,
            mma,
        ],
        2,
        &["the source layout does not hold every element the destination holds"],
    );
}

// ----- fuzz through the binary ---------------------------------------------------

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    fn shape_text() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::sample::select(vec![
                "",
                "0",
                "3",
                "16x",
                "x16",
                "-16",
                "16x16",
                "16X16",
                "16,16",
                "1x1x1x1x1",
                "18446744073709551616",
                "4294967296x4294967296",
                "16 x 16",
                "１６",
                "16x16x",
            ])
            .prop_map(str::to_string),
            prop::collection::vec(0u32..24, 1..4).prop_map(|v| {
                v.iter()
                    .map(|k| (1u64 << k).to_string())
                    .collect::<Vec<_>>()
                    .join("x")
            }),
        ]
    }

    fn layout_text() -> impl Strategy<Value = String> {
        let seeds = vec![BLOCKED, BLOCKED_T, DOT_A, SHARED];
        (
            prop::sample::select(seeds),
            prop::collection::vec(
                (
                    any::<prop::sample::Index>(),
                    prop::sample::select(vec![
                        "",
                        "-",
                        "[",
                        "}",
                        ">",
                        ",",
                        "=",
                        "0",
                        "99999999999999999999",
                        "order = [0, 1], ",
                    ]),
                ),
                0..3,
            ),
            0u8..4,
        )
            .prop_map(|(seed, edits, form)| {
                let mut t = seed.to_string();
                for (at, s) in edits {
                    t.insert_str(at.index(t.len() + 1), s);
                }
                match form {
                    // A JSON object of bases, sometimes malformed.
                    0 => r#"{"register": [[0, 1]], "lane": [[1, 0]], "shape": [2, 2]}"#.to_string(),
                    1 => format!("{{\"register\": {t}}}"),
                    _ => t,
                }
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

        /// Any shape and layout text through any subcommand: exit 0, or
        /// exit 2 with one line; never a crash.
        #[test]
        fn any_input_exits_0_or_2_with_one_line(
            cmd in 0usize..6,
            shape in shape_text(),
            a in layout_text(),
            b in layout_text(),
        ) {
            let args: Vec<&str> = match cmd {
                0 => vec!["to-linear", "--shape", &shape, &a],
                1 => vec!["show", "--shape", &shape, &a],
                2 => vec!["matrix", "--shape", &shape, &a],
                3 => vec!["convert", "--shape", &shape, &a, &b],
                4 => vec!["swizzle", "--shape", &shape, &a, &b],
                _ => vec!["bank-conflicts", "--shape", &shape, &a, &b],
            };
            let o = run(&args);
            let err = String::from_utf8_lossy(&o.stderr);
            match o.status.code() {
                Some(0) => {}
                Some(2) => prop_assert_eq!(err.lines().count(), 1, "{:?}: {}", args, err),
                other => prop_assert!(false, "{:?}: exit {:?}: {}", args, other, err),
            }
        }
    }
}

// ----- 6. read-back over the oracle corpora -----------------------------------------

mod oracle_read_back {
    use super::*;
    use proptest::prelude::*;
    use std::sync::OnceLock;

    /// Every accepted layout record of every corpus (Triton 3.9's answers).
    fn records() -> &'static Vec<serde_json::Value> {
        static R: OnceLock<Vec<serde_json::Value>> = OnceLock::new();
        R.get_or_init(|| {
            let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/data/triton-oracle");
            let mut files: Vec<_> = std::fs::read_dir(&dir)
                .expect("oracle dir")
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.to_string_lossy().ends_with("layouts.jsonl"))
                .collect();
            files.sort();
            files
                .iter()
                .flat_map(|f| {
                    std::fs::read_to_string(f)
                        .unwrap()
                        .lines()
                        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                        .collect::<Vec<_>>()
                })
                .filter(|r| r["mlir"].is_string() && r["linear"].is_object())
                .collect()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 40, failure_persistence: None, ..ProptestConfig::default() })]

        /// `to-linear --json` (Triton's report) reads back as the oracle's
        /// own bases, and `--json --full` as the attribute itself.
        #[test]
        fn to_linear_json_of_any_oracle_layout_reads_back(pick in any::<prop::sample::Index>()) {
            let recs = records();
            prop_assert!(recs.len() > 14000);
            let r = pick.get(recs);
            let shape: Vec<String> = r["shape"].as_array().unwrap().iter().map(|x| x.to_string()).collect();
            let shape = shape.join("x");
            let mlir = r["mlir"].as_str().unwrap();
            let json = run(&["to-linear", "--json", "--shape", &shape, mlir]);
            // The few records we refuse on purpose (4096-thread warps).
            prop_assume!(json.status.success());
            let json = String::from_utf8(json.stdout).unwrap();
            let record = serde_json::json!({"linear": r["linear"], "shape": r["shape"]}).to_string();
            prop_assert_eq!(ok(&["matrix", json.trim()]), ok(&["matrix", &record]), "{}", r["id"]);
            let full = ok(&["to-linear", "--json", "--full", "--shape", &shape, mlir]);
            prop_assert_eq!(
                ok(&["matrix", full.trim()]),
                ok(&["matrix", "--shape", &shape, mlir]),
                "{}", r["id"]
            );
        }
    }
}

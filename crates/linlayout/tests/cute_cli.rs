//! `linlayout from-cute` / `to-cute` / `show` with CuTe text, end to end:
//! the printed Triton text is read back by hw-layouts and compared with
//! Triton's own layouts for the same swizzle or instruction.

use hw_layouts::Encoding;
use linear_layout::{DimName, LinearLayout};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_linlayout"))
        .args(args)
        .output()
        .expect("run linlayout")
}

fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone())
        .unwrap()
        .trim_end()
        .to_string()
}

/// Exit status 2 and exactly one line on stderr naming `needle`.
fn assert_bad(o: &Output, needle: &str) {
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(needle), "'{needle}' not in: {err}");
}

/// The layout of attribute text for `shape`, one CTA (block dim dropped).
fn layout(attr: &str, shape: &[u64]) -> LinearLayout {
    let l = Encoding::parse(attr)
        .unwrap()
        .to_linear_layout(shape)
        .unwrap();
    let ins: Vec<DimName> = l.in_dim_names().filter(|&d| d != DimName::BLOCK).collect();
    let outs: Vec<DimName> = l.out_dim_names().collect();
    l.sublayout(&ins, &outs).unwrap()
}

const NVMMA_128B: &str =
    "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>";
const MMA_V2: &str = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>";

#[test]
fn swizzled_shared_layout_round_trip() {
    let t = stdout(&run(&["from-cute", "Swizzle<3,3,3> o (8,64):(64,1)"]));
    assert!(t.starts_with("#ttg.shared_linear<{offset = "), "{t}");
    assert_eq!(layout(&t, &[8, 64]), layout(NVMMA_128B, &[8, 64]));
    assert_eq!(
        stdout(&run(&["to-cute", "--shape", "8x64", &t])),
        "Swizzle<3,3,3> o (8,64):(64,1)"
    );
    assert_eq!(
        stdout(&run(&["to-cute", "--shape", "8x64", NVMMA_128B])),
        "Swizzle<3,3,3> o (8,64):(64,1)"
    );
}

#[test]
fn mma_accumulator_round_trip() {
    let acc = "((4,8),(2,2)):((32,1),(16,8))";
    let t = stdout(&run(&["from-cute", "--tv", "--shape", "16x8", acc]));
    assert!(t.starts_with("#ttg.linear<{register = "), "{t}");
    assert_eq!(layout(&t, &[16, 8]), layout(MMA_V2, &[16, 8]));
    assert_eq!(stdout(&run(&["to-cute", "--shape", "16x8", MMA_V2])), acc);
    // Four warps of 64x64: lane bits, then warp bits, in the thread mode.
    let mma4 = MMA_V2.replace("[1, 1]", "[2, 2]");
    let c = stdout(&run(&["to-cute", "--shape", "64x64", &mma4]));
    let back = stdout(&run(&["from-cute", "--tv", "--shape", "64x64", &c]));
    assert_eq!(layout(&back, &[64, 64]), layout(&mma4, &[64, 64]));
}

#[test]
fn show_takes_cute_text() {
    // Row-major 4x8: element (i, j) at offset 8 i + j, printed as i:j.
    let o = stdout(&run(&["show", "(4,8):(8,1)"]));
    assert!(o.contains("(1:0),(1:1)"), "{o}");
    // --shape equal to the mode sizes keeps the shared reading.
    assert_eq!(stdout(&run(&["show", "--shape", "4x8", "(4,8):(8,1)"])), o);
    let o = stdout(&run(&[
        "show",
        "--shape",
        "16x8",
        "((4,8),(2,2)):((32,1),(16,8))",
    ]));
    assert!(o.starts_with("[[ T0:0,  T0:1,  T1:0,  T1:1"), "{o}");
}

#[test]
fn bad_input_exits_2_with_one_line() {
    assert_bad(
        &run(&["from-cute", "(4,8):(8"]),
        "CuTe parse error at byte 8",
    );
    assert_bad(
        &run(&["from-cute", "(6,4):(1,6)"]),
        "mode 0 has shape 6, not a power of two",
    );
    assert_bad(
        &run(&["from-cute", "(2,2):(1,3)"]),
        "mode 1 (shape 2, stride 3)",
    );
    assert_bad(&run(&["from-cute", "(4,8):(0,1)"]), "stride 0, a broadcast");
    assert_bad(
        &run(&["from-cute", "--alignment", "3", "8:1"]),
        "--alignment must be a power of two, got 3",
    );
    assert_bad(
        &run(&[
            "from-cute",
            "--tv",
            "--shape",
            "8x8",
            "((4,8),(2,2)):((32,1),(16,8))",
        ]),
        "tile index 64 is outside the 8x8 tile (size 64)",
    );
    assert_bad(
        &run(&["from-cute", "--tv", "--shape", "4x2", "(4,2):(1,4)"]),
        "a #ttg.linear has 32 lanes, but the thread mode has 4 threads",
    );
    let deep = format!("{}8{}", "(".repeat(5000), ")".repeat(5000));
    assert_bad(&run(&["from-cute", &deep]), "nesting depth is 33");
    // A warp basis that XORs two dims has no thread-value form.
    let xor = "#ttg.linear<{register = [[0, 1]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[1, 1]], block = []}>";
    assert_bad(
        &run(&["to-cute", "--shape", "8x8", xor]),
        "lane basis 2 (tile index 1) and warp basis 0 (tile index 9) share bits 0b1",
    );
    assert_bad(
        &run(&["to-cute", "--shape", "8x8", "#ttg.bogus<{}>"]),
        "unknown layout attribute",
    );
}

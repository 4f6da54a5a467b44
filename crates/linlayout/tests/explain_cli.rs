//! `linlayout explain`: the lines a learner reads, checked against hand
//! derivations on the paper's Figure 1 layouts.

use std::process::Command;

const A: &str = "#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [1, 0]}>";
const B: &str = "#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 2], order = [0, 1]}>";

fn run(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_linlayout"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

#[test]
fn invert_and_compose_names_the_source_bits() {
    // Source first: A, then the destination B.
    let (code, out, _) = run(&["explain", "invert-and-compose", "--shape", "16x16", A, B]);
    assert_eq!(code, 0);
    // B's warp bit holds (0, 8); in A column 8 is lane bit 2 (lanes walk
    // dim1 by 2, 4, 8): so B's warp=1 finds its data at A's lane=4.
    assert!(
        out.lines()
            .any(|l| l.starts_with("warp=1") && l.ends_with("src at lane=4")),
        "{out}"
    );
    // B's register=1 holds (1, 0), A's register=2.
    assert!(
        out.lines()
            .any(|l| l.starts_with("register=1") && l.ends_with("src at register=2")),
        "{out}"
    );
    assert!(out.contains("[\"register\", \"lane\", \"warp\"]"));
}

#[test]
fn free_variables_of_a_broadcast_layout() {
    // Layout A on 8x8: lane bit 2 would move to column 8 and the warp bit to
    // row 8, both off the tensor, so both are zero bases: duplicates.
    let (code, out, _) = run(&["explain", "free-variables", "--shape", "8x8", A]);
    assert_eq!(code, 0);
    assert!(out.contains("lane      free: lane=4"), "{out}");
    assert!(out.contains("warp      free: warp=1"), "{out}");
    assert!(out.contains("register  free: none"), "{out}");
}

#[test]
fn swizzle_reports_bound_and_result_and_errors() {
    let (code, out, _) = run(&["explain", "swizzle", "--shape", "16x16", A, B]);
    assert_eq!(code, 0);
    assert!(out.contains("Lower bound (Lemma 9.5)"));
    assert!(out.contains("#ttg.shared_linear<{offset = ["));
    let (code, _, err) = run(&["explain", "swizzle", "--shape", "16x16", A]);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1);
    let (code, _, _) = run(&["explain", "swizzle", "--shape", "16x12", A, B]);
    assert_eq!(code, 2);
}

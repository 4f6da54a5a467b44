//! The search's work stays bounded whatever the kernel (`engine::search`):
//! a long chain of dots is not enumerated past `MAX_COMBINATIONS`, and the
//! candidate runs of a kernel of many choices stay within
//! `MAX_SEARCH_WORK` op visits.

use layout_engine::anchors::Target;
use layout_engine::cost::Pricer;
use layout_engine::engine::search::{MAX_COMBINATIONS, MAX_SEARCH_WORK};
use layout_engine::engine::{assign, EngineOutput, Options};
use layout_engine::{parse_program, Program};

/// A 64x64 f16 tile loaded once; then `body(i)` for `i` in `0..n`.
fn kernel(n: usize, body: impl Fn(usize) -> String) -> String {
    let mut t = String::from(
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
    for i in 0..n {
        t.push_str(&body(i));
    }
    t.push_str("    tt.return\n  }\n}\n");
    t
}

const DOT: &str =
    "inputPrecision = tf32 : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>";
const TRUNC: &str = "tensor<64x64xf32> to tensor<64x64xf16>";

fn chained_decisions(out: &EngineOutput) -> Vec<usize> {
    out.decisions
        .iter()
        .filter(|d| d.op == "chained tt.dot warps")
        .map(|d| d.candidates.len())
        .collect()
}

fn parse(text: &str) -> Program {
    parse_program(text).unwrap()
}

#[test]
fn a_long_chain_of_dots_is_not_enumerated() {
    // 64 dots, each reading the last one's result: on 2 warps each has two
    // arrangements ([2, 1], [1, 2]), 2^64 combinations, whose count
    // overflowed: it wrapped to 0 in release, under the limit, and the
    // search enumerated them all (more than 3 GB in 10 s); a debug build
    // panicked on the overflow.
    let text = kernel(64, |i| {
        format!(
            "    %d{i} = tt.dot %a{i}, %a0, %z, {DOT}\n    %a{} = arith.truncf %d{i} : {TRUNC}\n{}",
            i + 1,
            if i == 63 {
                "    tt.store %q, %a64 : tensor<64x64x!tt.ptr<f16>>\n"
            } else {
                ""
            }
        )
    });
    let p = parse(&text);
    let out = assign(&p, Options::new(Target::Sm80, 2), &mut Pricer::new()).unwrap();
    let chained = chained_decisions(&out);
    assert!(
        chained.iter().all(|&n| n <= MAX_COMBINATIONS),
        "{chained:?}"
    );
}

#[test]
fn many_choices_stay_within_the_search_budget() {
    // 64 independent chains of two dots on 8 warps: 16 combinations each,
    // 15 runs of the whole engine per chain, 960 runs of 330 ops (time
    // quadratic in the kernel: 1 280 such chains took 72 s). The budget
    // stops the candidate runs at MAX_SEARCH_WORK op visits; the chains
    // past it keep AccelerateMatmul's arrangement.
    let text = kernel(64, |i| {
        format!(
            "    %d{i} = tt.dot %a0, %a0, %z, {DOT}
    %t{i} = arith.truncf %d{i} : {TRUNC}
    %e{i} = tt.dot %t{i}, %a0, %z, {DOT}
    %s{i} = arith.truncf %e{i} : {TRUNC}
    tt.store %q, %s{i} : tensor<64x64x!tt.ptr<f16>>
"
        )
    });
    let p = parse(&text);
    let out = assign(&p, Options::new(Target::Sm80, 8), &mut Pricer::new()).unwrap();
    // Each decision of the search lists the current choice and one run per
    // other candidate.
    let searched = [
        "chained tt.dot warps",
        "tt.reduce operand layout",
        "tt.gather layout",
        "small tt.load layout",
        "elementwise operand layouts",
    ];
    let runs: usize = out
        .decisions
        .iter()
        .filter(|d| searched.contains(&d.op.as_str()))
        .map(|d| d.candidates.len() - 1)
        .sum();
    assert!(
        runs * p.ops.len() <= MAX_SEARCH_WORK,
        "{runs} candidate runs of {} ops",
        p.ops.len()
    );
    // The budget was spent, not skipped: some chains were decided by cost.
    assert!(!chained_decisions(&out).is_empty());
}

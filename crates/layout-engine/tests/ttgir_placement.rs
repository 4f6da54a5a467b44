//! Where the engine's TTGIR places its conversions: each data-moving
//! `%cvtN = ttg.convert_layout` is printed right before the first op that
//! reads it or holds a reader (`layout_engine::ttgir`, module doc; measured
//! on the H200 against placing it after the converted value's definition).
//! On every record of the corpora: after a conversion's line, the other
//! lines the printer inserts there and the next op of the program, one
//! reads `%cvtN` or the op opens a region. And on the held-out `matmul_bias_act` record whose
//! kernel has Triton's PTX instructions (`bench/engine-gpu`, held-out 97,
//! case 026), the loop body reads both dot operands before converting
//! either, and the conversions sit right before the dot, as in Triton's
//! own TTGIR.

mod common;

use layout_engine::cost::Pricer;
use layout_engine::engine::assign;
use layout_engine::parse_program;
use layout_engine::ttgir::print_ttgir;

fn printed(r: &serde_json::Value, pricer: &mut Pricer) -> String {
    let (target, nw) = common::target_and_warps(r);
    let ttir = r["ttir"].as_str().unwrap();
    let p = parse_program(ttir).unwrap();
    let out = assign(&p, common::options(r), pricer).unwrap();
    print_ttgir(&p, ttir, &out.assignment, target, nw)
        .unwrap()
        .text
}

/// The name a line defines (`%x = ...` or `%x:2 = ...`).
fn defines(line: &str) -> Option<&str> {
    let l = line.trim_start();
    let (lhs, _) = l.split_once(" = ")?;
    lhs.starts_with('%')
        .then(|| lhs.split(':').next().unwrap_or(lhs))
}

/// Whether `line` reads value `name` (not a longer name it prefixes).
fn reads(line: &str, name: &str) -> bool {
    let l = line.trim_start();
    let rhs = match l.split_once(" = ") {
        Some((lhs, rhs)) if lhs.starts_with('%') && !lhs.contains(' ') => rhs,
        _ => l,
    };
    rhs.match_indices(name).any(|(i, _)| {
        !rhs[i + name.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

#[test]
fn each_conversion_sits_right_before_its_first_reader() {
    let mut pricer = Pricer::new();
    let mut checked = 0;
    for r in common::records() {
        let text = printed(&r, &mut pricer);
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect();
        for (k, line) in lines.iter().enumerate() {
            let Some(name) = defines(line).filter(|n| n.starts_with("%cvt")) else {
                continue;
            };
            // Skip the other lines inserted before the same op; a
            // `tt.dot_scaled` prints as Triton's decomposition (`%dsN`
            // lines), all of which is the op.
            let inserted = |l: &&&str| {
                defines(l).is_some_and(|n| {
                    ["%cvt", "%ac", "%rm", "%smem"]
                        .iter()
                        .any(|p| n.starts_with(p))
                })
            };
            let start = k + 1 + lines[k + 1..].iter().take_while(inserted).count();
            let decomposed = lines[start..]
                .iter()
                .take_while(|l| defines(l).is_some_and(|n| n.starts_with("%ds")))
                .count();
            // The op with the lines inserted before it (an attribute-only
            // `%acN` or a `%smemN` may be what reads the conversion).
            let op = &lines[k + 1..(start + decomposed.max(1)).min(lines.len())];
            assert!(
                op.iter()
                    .any(|l| reads(l, name) || l.trim_end().ends_with('{')),
                "{}: {name} is not right before its reader: next line `{}`",
                common::id(&r),
                op.last().map_or("", |l| l.trim())
            );
            checked += 1;
        }
    }
    assert!(checked > 500, "{checked} conversions checked");
}

#[test]
fn dot_operands_are_loaded_before_they_are_converted() {
    let r = common::record(
        "seed97.jsonl",
        "matmul_bias_act.sm80.w4.s3.ACT=silu,BK=64,BM=128,BN=64,DT=fp16,aligned=1",
    );
    let text = printed(&r, &mut Pricer::new());
    let body: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.contains("scf.for"))
        .take_while(|l| !l.contains("scf.yield"))
        .collect();
    let at = |pat: &str| -> Vec<usize> {
        body.iter()
            .enumerate()
            .filter(|(_, l)| l.contains(pat))
            .map(|(i, _)| i)
            .collect()
    };
    let (loads, cvts, dots) = (at("tt.load"), at("ttg.convert_layout"), at("tt.dot"));
    assert_eq!(
        (loads.len(), cvts.len(), dots.len()),
        (2, 2, 1),
        "{body:#?}"
    );
    assert!(
        loads[1] < cvts[0],
        "a conversion before the second load: {body:#?}"
    );
    assert_eq!((cvts[1] + 1, cvts[0] + 1), (dots[0], cvts[1]), "{body:#?}");
}

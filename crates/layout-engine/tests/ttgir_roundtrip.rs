//! The engine's TTGIR, read back independently: on every record of the
//! corpora, the text printed by `layout_engine::ttgir` is read by the
//! crate's TTGIR reader (the one that reads Triton's `ttgir_pre_pipeline`),
//! its types give an assignment (`Assignment::from_types`), and
//!
//! (a) it parses; (b) the checker accepts it; (c) every value and every
//! use reads back in the engine's linear layout (a use through its
//! `ttg.convert_layout` or recomputed copy; a dot operand read from shared
//! memory as a `!ttg.memdesc`; a use through an attribute-only
//! `ttg.convert_layout` in the engine's map up to duplicated registers);
//! (d) it has one data-moving `ttg.convert_layout` per conversion of the
//! engine's assignment, and every other `ttg.convert_layout` is one of the
//! printer's attribute-only ones, between one map (up to duplicated
//! registers, `shape_ops::canon`); the module says the warps.

mod common;

use layout_engine::anchors::Target;
use layout_engine::assignment::conversions;
use layout_engine::cost::Pricer;
use layout_engine::engine::{assign, Options};
use layout_engine::shape_ops::canon;
use layout_engine::ttgir::{
    print_ttgir, ATTRIBUTE_CONVERT_PREFIX, DECOMPOSED_PREFIX, RECOMPUTED_PREFIX,
};
use layout_engine::{check, parse_program, Assignment, Program};
use serde_json::Value;

/// An op the printer inserted (not one of the engine's program).
fn inserted(p: &Program, o: usize) -> bool {
    let op = &p.ops[o];
    matches!(
        op.name.as_str(),
        "ttg.convert_layout" | "ttg.local_alloc" | "ttg.memdesc_trans"
    ) || op.results.first().is_some_and(|&r| {
        let n = &p.values[r].name;
        n.starts_with(RECOMPUTED_PREFIX) || n.starts_with(DECOMPOSED_PREFIX)
    })
}

/// Every mismatch between the engine's answer and the printed text read back.
fn roundtrip(r: &Value, pricer: &mut Pricer) -> Vec<String> {
    let (target, nw) = common::target_and_warps(r);
    let ttir = r["ttir"].as_str().unwrap();
    let p = parse_program(ttir).unwrap();
    let out = assign(&p, common::options(r), pricer).unwrap();
    let a = &out.assignment;
    let g = match print_ttgir(&p, ttir, a, target, nw) {
        Ok(g) => g,
        Err(e) => return vec![format!("print: {e}")],
    };
    let mut bad = Vec::new();
    // (a)
    let tp = match parse_program(&g.text) {
        Ok(tp) => tp,
        Err(e) => return vec![format!("reads back: {e}")],
    };
    let ta = match Assignment::from_types(&tp) {
        Ok(ta) => ta,
        Err(e) => return vec![format!("layouts read back: {e}")],
    };
    // (b)
    let v = check(&tp, &ta);
    if let Some(first) = v.first() {
        bad.push(format!("checker: {} violations, first: {first}", v.len()));
    }
    // (d)
    let is_attribute_convert = |o: &layout_engine::ir::Op| {
        o.results
            .first()
            .is_some_and(|&r| tp.values[r].name.starts_with(ATTRIBUTE_CONVERT_PREFIX))
    };
    let converts = tp
        .ops
        .iter()
        .filter(|o| o.name == "ttg.convert_layout" && !is_attribute_convert(o))
        .count();
    let want = conversions(&p, a).unwrap().len();
    if converts != want || g.convert_ops != want {
        bad.push(format!(
            "{converts} ttg.convert_layout ops for {want} conversions"
        ));
    }
    let mut attribute_converts = 0;
    for o in tp.ops.iter().filter(|o| is_attribute_convert(o)) {
        attribute_converts += 1;
        let (src, dst) = (ta.layout(o.operands[0]), ta.layout(o.results[0]));
        // One map up to duplicated registers, and the plan cost model
        // prices it as moving no data.
        let bits = tp.values[o.operands[0]].ty.elem_bits();
        match (src, dst) {
            (Some(s), Some(d))
                if canon(&s.ll) == canon(&d.ll)
                    && o.name == "ttg.convert_layout"
                    && pricer.price(&s.ll, &d.ll, bits).is_ok_and(|x| x.trivial()) => {}
            _ => bad.push(format!(
                "line {}: {} is not an attribute-only ttg.convert_layout",
                o.line, tp.values[o.results[0]].name
            )),
        }
    }
    if attribute_converts != g.attribute_converts {
        bad.push(format!(
            "{attribute_converts} attribute-only conversions read back, {} printed",
            g.attribute_converts
        ));
    }
    if tp.num_warps != Some(nw) || tp.threads_per_warp != Some(target.threads_per_warp()) {
        bad.push(format!(
            "module says {:?} warps of {:?} threads",
            tp.num_warps, tp.threads_per_warp
        ));
    }
    // (c) ops in program order with the inserted ones skipped, then every
    // value by where it is defined (result k of an op, argument k of a
    // region or of the function).
    let ours = p.walk();
    let theirs: Vec<usize> = tp
        .walk()
        .into_iter()
        .filter(|&o| !inserted(&tp, o))
        .collect();
    if ours.len() != theirs.len() {
        bad.push(format!(
            "{} ops read back for {} ops",
            theirs.len(),
            ours.len()
        ));
        return bad;
    }
    let mut pairs: Vec<(usize, usize)> = p
        .args
        .iter()
        .copied()
        .zip(tp.args.iter().copied())
        .collect();
    for (&o, &t) in ours.iter().zip(&theirs) {
        let (op, top) = (&p.ops[o], &tp.ops[t]);
        pairs.extend(op.results.iter().copied().zip(top.results.iter().copied()));
        for (r, tr) in op.regions.iter().zip(&top.regions) {
            pairs.extend(r.args.iter().copied().zip(tr.args.iter().copied()));
        }
    }
    let mut mapped = 0;
    for (v, w) in pairs {
        let Some(l) = a.layout(v) else { continue };
        mapped += 1;
        match ta.layout(w) {
            Some(back) if back.ll == l.ll => {}
            Some(back) => bad.push(format!(
                "{} reads back as {}, the engine gave {}",
                p.values[v].name,
                back.mlir(),
                l.mlir()
            )),
            None => bad.push(format!("{} reads back without a layout", p.values[v].name)),
        }
    }
    let with_layout = a.layouts.iter().flatten().count();
    if mapped != with_layout {
        bad.push(format!(
            "{mapped} of {with_layout} values with a layout read back"
        ));
    }
    for (&o, &t) in ours.iter().zip(&theirs) {
        let (op, top) = (&p.ops[o], &tp.ops[t]);
        let renamed = op.name == "tt.dot" && top.name == "ttng.warp_group_dot";
        // A `tt.dot_scaled` reads back as its decomposition, whose last op
        // (the product transposed back, or the dot) defines its result;
        // its operands' layouts are compared with Triton's in
        // `tests/anchors_corpus.rs`.
        if op.name == "tt.dot_scaled"
            && matches!(
                top.name.as_str(),
                "tt.trans" | "tt.dot" | "ttng.warp_group_dot"
            )
        {
            continue;
        }
        if op.name != top.name && !renamed {
            bad.push(format!(
                "line {}: {} reads back as {}",
                op.line, op.name, top.name
            ));
            continue;
        }
        for (i, &v) in op.operands.iter().enumerate() {
            if !p.is_tensor(v) {
                continue;
            }
            let Some(&w) = top.operands.get(i) else {
                bad.push(format!("line {}: operand {i} missing", op.line));
                continue;
            };
            if a.shared_operands.contains(&(o, i)) {
                if tp.is_tensor(w) {
                    bad.push(format!("line {}: shared operand {i} is a tensor", op.line));
                }
                continue;
            }
            let want = a.seen(&p, o, i).map(|l| &l.ll);
            let got = ta.layout(w).map(|l| &l.ll);
            let respelled = tp.values[w].name.starts_with(ATTRIBUTE_CONVERT_PREFIX);
            let same = match (want, got) {
                (Some(x), Some(y)) if respelled => canon(x) == canon(y),
                (x, y) => x == y,
            };
            if !same {
                bad.push(format!(
                    "line {}: {} operand {i} ({}) reads back in another layout",
                    op.line, op.name, p.values[v].name
                ));
            }
        }
    }
    bad
}

#[test]
fn printed_ttgir_reads_back_as_the_engines_assignment() {
    let mut pricer = Pricer::new();
    let mut n = 0;
    let mut failures = Vec::new();
    for file in ["sample.jsonl", "seed11.jsonl", "seed23.jsonl"] {
        for r in common::records_in(file) {
            n += 1;
            let bad = roundtrip(&r, &mut pricer);
            if !bad.is_empty() {
                failures.push(format!(
                    "{file} {}: {} problems, first: {}",
                    common::id(&r),
                    bad.len(),
                    bad[0]
                ));
            }
        }
    }
    assert_eq!(n, 271);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The engine's TTGIR of record `r` for sm90 (its own warps).
fn printed_sm90(r: &Value) -> layout_engine::ttgir::Ttgir {
    let ttir = r["ttir"].as_str().unwrap();
    let nw = r["options"]["num_warps"].as_u64().unwrap();
    let p = parse_program(ttir).unwrap();
    let opts = Options::new(Target::Sm90, nw);
    let out = assign(&p, opts, &mut Pricer::new()).unwrap();
    print_ttgir(&p, ttir, &out.assignment, Target::Sm90, nw).unwrap()
}

/// The attribute an alias of `g` stands for (`name` itself when it is none).
fn alias_of(g: &layout_engine::ttgir::Ttgir, name: &str) -> String {
    g.aliases
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, a)| a.clone())
        .unwrap_or_else(|| name.to_string())
}

/// wgmma operands read from shared memory are allocated where their value
/// is defined, as Triton's pre-pipeline TTGIR does: in the sm90 flash
/// attention record, `Q` (loaded before the loop) once before the loop,
/// and `Kᵀ` (`tt.trans` of the loaded `K`) as `K`'s allocation viewed
/// through `ttg.memdesc_trans` (a `transposed = true` NVMMA layout), not a
/// register transpose written into a row-swizzled buffer. Measured on the
/// H200 (2026-11-25, `bench/engine-gpu`, case 009): with both operands
/// allocated at the dot, our kernel took 56 µs against Triton's 29 µs.
#[test]
fn wgmma_shared_operands_are_allocated_at_their_definition() {
    let r = common::record("sample.jsonl", "flash_attn_fwd.sm90.w4.s4.BM=64,BN=64");
    let g = printed_sm90(&r);
    let text = &g.text;
    let lp = text.find("scf.for").unwrap();
    let allocs: Vec<usize> = text
        .match_indices("ttg.local_alloc")
        .map(|(i, _)| i)
        .collect();
    assert!(
        allocs.iter().any(|&i| i < lp),
        "no allocation before the loop:\n{text}"
    );
    let trans = text
        .lines()
        .find(|l| l.contains("ttg.memdesc_trans"))
        .unwrap_or_else(|| panic!("no transposed view:\n{text}"));
    assert!(trans.contains("order = array<i32: 1, 0>"), "{trans}");
    let dot = text
        .lines()
        .find(|l| l.contains("ttng.warp_group_dot %smem"))
        .unwrap();
    let view = trans.split_whitespace().next().unwrap();
    assert!(dot.contains(&format!("{view},")), "{dot}");
    assert!(text.contains("transposed = true"));
    // The printed program still reads back and passes the checker.
    let back = parse_program(text).unwrap();
    let a = Assignment::from_types(&back).unwrap();
    assert!(check(&back, &a).is_empty());
}

/// A value read from shared memory by several wgmma dots, directly and
/// transposed (attention's backward pass reads `K` and `Kᵀ`), is allocated
/// once: every sm90 record of the corpora allocates each value at most
/// once. Measured on the H200 (2026-11-25, `bench/engine-gpu`, case 075):
/// with one allocation per use the backward kernel ran 0.43x Triton's.
/// And a blocked tile contiguous along dim 0 is stored column-major.
#[test]
fn each_value_is_allocated_in_shared_memory_once() {
    let mut checked = 0;
    let mut columns = 0;
    for file in ["sample.jsonl", "seed11.jsonl", "seed23.jsonl"] {
        for r in common::records_in(file) {
            if r["target"] != "sm90" || !r["ttir"].as_str().unwrap().contains("tt.dot ") {
                continue;
            }
            let g = printed_sm90(&r);
            let mut seen = std::collections::HashSet::new();
            let alias = |name: &str| alias_of(&g, name);
            for l in g.text.lines() {
                if let Some((_, rest)) = l.split_once("ttg.local_alloc ") {
                    let v = rest.split_whitespace().next().unwrap();
                    assert!(
                        seen.insert(v.to_string()),
                        "{}: {v} allocated twice",
                        common::id(&r)
                    );
                    checked += 1;
                    // A blocked tile contiguous along dim 0 is stored
                    // column-major (`transposed = true`), else row-major.
                    let (regs, md) = rest.split_once(") -> ").unwrap();
                    let reg_enc = alias(regs.rsplit(", ").next().unwrap().trim_end_matches('>'));
                    let md_enc = alias(md.split(", ").nth(1).unwrap());
                    if reg_enc.contains("order = [0, 1]") {
                        assert!(
                            md_enc.contains("transposed = true"),
                            "{l}\n{reg_enc}\n{md_enc}"
                        );
                        columns += 1;
                    } else if reg_enc.contains("order = [1, 0]") {
                        assert!(
                            md_enc.contains("transposed = false"),
                            "{l}\n{reg_enc}\n{md_enc}"
                        );
                    }
                }
            }
        }
    }
    assert!(checked > 20, "{checked}");
    assert!(columns > 0, "no column-contiguous tile in the corpora");
}

/// A dot's accumulator prints with the dot's own attribute: the wgmma
/// instruction shape is not part of the map, so printing `P·V` (N = 128)
/// with `Q·Kᵀ`'s `instrShape = [16, 64, 16]` (an attribute of the same
/// map) would lower it to twice the wgmma instructions. In the sm90 flash
/// attention record with HEAD_DIM = 128, each `ttng.warp_group_dot`'s
/// result attribute has the instruction N of its own tile.
#[test]
fn each_wgmma_prints_with_its_own_instruction_shape() {
    let r = common::record(
        "seed11.jsonl",
        "flash_attn_fwd.sm90.w4.s4.BM=128,BN=64,CAUSAL=1,DT=fp16,HEAD_DIM=128",
    );
    let g = printed_sm90(&r);
    let alias = |name: &str| alias_of(&g, name);
    let mut dots = 0;
    for l in g.text.lines().filter(|l| l.contains("ttng.warp_group_dot")) {
        let ty = l.rsplit("-> tensor<").next().unwrap();
        let (shape, enc) = ty.trim_end_matches('>').split_once(", ").unwrap();
        let n: u64 = shape.split('x').nth(1).unwrap().parse().unwrap();
        let a = alias(enc.trim());
        let instr = a.split("instrShape = [").nth(1).unwrap();
        let instr_n: u64 = instr.split(", ").nth(1).unwrap().parse().unwrap();
        assert_eq!(instr_n, n, "{l}\n{a}");
        dots += 1;
    }
    assert_eq!(dots, 2);
}

//! Pricing Triton's pre-pipeline conversions with the plan cost model.

mod common;

use layout_engine::cost::{total_cost, Pricer};
use layout_engine::{parse_program, Assignment};

/// Our class of every conversion agrees with Triton's own
/// `isConvertLayoutTrivial` (the record's `trivial`, asked of Triton
/// through Gluon): trivial ⇔ no data moves ⇔ cost 0.
#[test]
fn trivial_conversions_agree_with_triton_and_cost_nothing() {
    let mut pricer = Pricer::new();
    let mut n = 0;
    for r in common::records() {
        let p = parse_program(r["ttgir_pre_pipeline"].as_str().unwrap()).unwrap();
        let a = Assignment::from_types(&p).unwrap();
        let priced = pricer.price_all(&p, &a).unwrap();
        let facts = r["facts_pre_pipeline"]["converts"].as_array().unwrap();
        assert_eq!(priced.len(), facts.len(), "{}", common::id(&r));
        for ((c, price), f) in priced.iter().zip(facts) {
            assert_eq!(p.ops[c.op].line as u64, f["pos"].as_u64().unwrap());
            assert_eq!(
                c.depth as u64,
                f["depth"].as_u64().unwrap(),
                "{}",
                common::id(&r)
            );
            let trivial = f["trivial"].as_bool().unwrap();
            assert_eq!(
                price.trivial(),
                trivial,
                "{} line {}",
                common::id(&r),
                p.ops[c.op].line
            );
            assert_eq!(
                price.cycles == 0.0,
                trivial,
                "{} line {}",
                common::id(&r),
                p.ops[c.op].line
            );
            n += 1;
        }
        assert!(total_cost(&priced).is_finite());
    }
    assert!(n > 30, "{n} conversions");
}

/// The assumption behind `Pricer::lower_bound` (the engine prices a
/// hoisting candidate only when a cheaper bound cannot settle the cut):
/// the same conversion of wider elements costs no less. Checked on every
/// conversion Triton keeps in the developer sample, at 8, 16, 32 and 64
/// bits, against a fresh pricer; the bound itself is checked to be the
/// narrower price.
#[test]
fn wider_elements_cost_no_less() {
    let mut n = 0;
    for r in common::records_in("sample.jsonl") {
        let p = parse_program(r["ttgir_pre_pipeline"].as_str().unwrap()).unwrap();
        let a = Assignment::from_types(&p).unwrap();
        for c in layout_engine::assignment::conversions(&p, &a).unwrap() {
            let mut pricer = Pricer::new();
            assert_eq!(pricer.lower_bound(&c.src.ll, &c.dst.ll, 64), 0.0);
            let mut last = 0.0;
            for bits in [8, 16, 32, 64] {
                let cycles = pricer.price(&c.src.ll, &c.dst.ll, bits).unwrap().cycles;
                assert!(
                    cycles >= last,
                    "{} line {}: {bits} bits {cycles} < {last}",
                    common::id(&r),
                    p.ops[c.op].line
                );
                last = cycles;
                assert_eq!(pricer.lower_bound(&c.src.ll, &c.dst.ll, 64), cycles);
            }
            n += 1;
        }
    }
    assert!(n > 30, "{n} conversions");
}

/// The pricer skips the planner for conversions the algebra proves
/// trivial and prices them 0 with the class's plan; the planner itself
/// (`planner::plan`, for the record's target) agrees on every trivial
/// conversion of the corpora, Triton's and ours.
#[test]
fn trivial_conversions_skip_the_planner_as_it_would_decide() {
    use layout_engine::engine::assign;
    let mut pricer = Pricer::new();
    let mut n = 0;
    for r in common::records() {
        let tp = parse_program(r["ttgir_pre_pipeline"].as_str().unwrap()).unwrap();
        let ta = Assignment::from_types(&tp).unwrap();
        let p = parse_program(r["ttir"].as_str().unwrap()).unwrap();
        let opts = common::options(&r);
        let ours = assign(&p, opts, &mut pricer).unwrap().assignment;
        let mut all = layout_engine::assignment::conversions(&tp, &ta).unwrap();
        all.extend(layout_engine::assignment::conversions(&p, &ours).unwrap());
        for c in all {
            let price = pricer.price(&c.src.ll, &c.dst.ll, c.bits).unwrap();
            if !price.trivial() {
                continue;
            }
            let bits = match c.bits {
                0..=8 => 8,
                9..=16 => 16,
                17..=32 => 32,
                _ => 64,
            };
            let target = match r["target"].as_str().unwrap() {
                "gfx942" => layout_codegen::planner::Target::CDNA3,
                _ => layout_codegen::planner::Target::SM90,
            };
            let planned =
                layout_codegen::planner::plan(&c.src.ll, &c.dst.ll, bits, &target).unwrap();
            assert_eq!(planned.cycles, 0.0, "{}", common::id(&r));
            assert_eq!(
                planned.lowering.kind_name(),
                price.plan,
                "{}",
                common::id(&r)
            );
            n += 1;
        }
    }
    assert!(n >= 20, "{n} trivial conversions");
}

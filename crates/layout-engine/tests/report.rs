//! The front ends' report: `--compare` lines and the annotated program.

mod common;

use layout_engine::anchors::Target;
use layout_engine::cost::Pricer;
use layout_engine::report::{compare_record, run_engine};
use layout_engine::ttgir::ATTRIBUTE_CONVERT_PREFIX;

#[test]
fn compare_line_has_the_issue_schema_and_checks_the_count() {
    let mut pricer = Pricer::new();
    let recs = common::records_in("sample.jsonl");
    let r = recs
        .iter()
        .find(|r| common::id(r).starts_with("flash_attn_fwd"))
        .unwrap();
    let v = compare_record(r, &mut pricer);
    assert_eq!(v["id"], r["id"]);
    assert_eq!(v["ours"]["checked"], true);
    assert_eq!(v["triton"]["checked"], true);
    assert_eq!(
        v["triton"]["conversions"],
        r["facts_pre_pipeline"]["n_convert_layout"]
    );
    assert!(v["ours"]["cost"].as_f64().unwrap() <= v["triton"]["cost"].as_f64().unwrap());
    // Conversions plus reductions, gathers and the compute term, both
    // sides priced alike: what the engine minimises.
    let f = |side: &str, k: &str| v[side][k].as_f64().unwrap();
    for side in ["ours", "triton"] {
        assert!(f(side, "compute_cost") > 0.0, "{side}: {v}");
        let sum = f(side, "cost")
            + f(side, "reduction_cost")
            + f(side, "gather_cost")
            + f(side, "compute_cost");
        assert!((f(side, "total") - sum).abs() < 0.21, "{side}: {v}");
    }
    assert!(f("ours", "total") <= f("triton", "total"));
    // A record where the engine converts a tile once to save a reduction's
    // shared-memory round: more in conversions, less in total.
    let r = recs
        .iter()
        .find(|r| common::id(r).starts_with("softmax_online.sm80.w4.BM=8,BN=256"))
        .unwrap();
    let v = compare_record(r, &mut pricer);
    let f = |side: &str, k: &str| v[side][k].as_f64().unwrap();
    assert!(f("ours", "cost") > f("triton", "cost"), "{v}");
    assert!(f("ours", "total") < f("triton", "total"), "{v}");
    assert!(
        f("ours", "reduction_cost") < f("triton", "reduction_cost"),
        "{v}"
    );
    // Planted: a record whose stated count disagrees with its TTGIR.
    let mut bad = r.clone();
    bad["facts_pre_pipeline"]["n_convert_layout"] = serde_json::json!(99);
    let e = compare_record(&bad, &mut pricer);
    assert!(
        e["error"].as_str().unwrap().contains("the record says 99"),
        "{e}"
    );
    // Not a record.
    let e = compare_record(&serde_json::json!({"id": "x"}), &mut pricer);
    assert!(e["error"].is_string());
}

#[test]
fn annotated_program_names_every_tensor_result() {
    let mut pricer = Pricer::new();
    let recs = common::records_in("sample.jsonl");
    let r = recs
        .iter()
        .find(|r| common::id(r).starts_with("softmax."))
        .unwrap();
    let rep = run_engine(r["ttir"].as_str().unwrap(), Target::Sm80, 4, &mut pricer).unwrap();
    assert!(rep.violations.is_empty());
    assert!(rep.program.starts_with('#'));
    for (alias, attr) in &rep.aliases {
        assert!(rep.program.contains(&format!("{alias} = {attr}")));
        hw_layouts::Encoding::parse(attr).unwrap();
    }
    // Every op line with a tensor result carries its layout.
    for line in rep.program.lines().filter(|l| l.contains(" = tt.load ")) {
        assert!(line.contains("// %"), "{line}");
    }
    assert!(rep.text(true).contains("conflicts settled by cost"));
}

/// The main output is the TTGIR: aliases first, the module's attributes,
/// a `ttg.convert_layout` per reported conversion (trivial ones too), and
/// the conversion list as a trailing comment block; it reads back with no
/// checker violation.
#[test]
fn text_output_is_ttgir_with_the_conversions_as_comments() {
    let mut pricer = Pricer::new();
    let recs = common::records_in("sample.jsonl");
    let r = recs
        .iter()
        .find(|r| common::id(r).starts_with("flash_attn_fwd"))
        .unwrap();
    let rep = run_engine(r["ttir"].as_str().unwrap(), Target::Sm90, 4, &mut pricer).unwrap();
    let text = rep.text(false);
    assert!(text.starts_with(&rep.ttgir));
    assert!(text.starts_with("#"));
    assert!(text.contains("\"ttg.num-warps\" = 4 : i32"));
    assert!(text.contains("ttg.target = \"cuda:90\""));
    assert!(text.contains("ttng.warp_group_dot"));
    // Data-moving ones (an attribute-only `%acN` respells a value for a
    // use, `layout_engine::ttgir::ATTRIBUTE_CONVERT_PREFIX`).
    let converts = text
        .lines()
        .filter(|l| l.contains("= ttg.convert_layout "))
        .filter(|l| !l.trim_start().starts_with(ATTRIBUTE_CONVERT_PREFIX))
        .count();
    assert!(converts > 0);
    assert_eq!(converts, rep.conversions.len() + rep.trivial_dropped);
    assert!(text.contains(&format!("// conversions: {}", rep.conversions.len())));
    assert!(rep.compute_cost > 0.0);
    assert!(text.contains(&format!("// compute: {:.1} cycles/warp", rep.compute_cost)));
    for c in &rep.conversions {
        let def = format!("{} = ttg.convert_layout {} : ", c.converted, c.value);
        assert!(rep.ttgir.contains(&def), "{def}");
        // The planner's candidate beside its plan kind (a trivial
        // conversion, planned by no one, is Triton's renaming).
        let trivial = matches!(c.plan.as_str(), "noop" | "register");
        assert_eq!(
            c.candidate == "triton" && trivial,
            trivial,
            "{}",
            c.candidate
        );
        assert!(!c.candidate.is_empty() && c.note.is_none());
    }
    // `from_types` refuses a tensor type without an encoding.
    let p = layout_engine::parse_program(&text).unwrap();
    let a = layout_engine::Assignment::from_types(&p).unwrap();
    assert!(layout_engine::check(&p, &a).is_empty());
}

//! The reader on every oracle record: every TTIR and every TTGIR stage
//! reads without error, and the reader agrees with the record's own facts.

mod common;

use layout_engine::ir::OpKind;
use layout_engine::parse_program;

#[test]
fn every_ttir_and_ttgir_reads() {
    let mut failures = Vec::new();
    for r in common::records() {
        for field in [
            "ttir",
            "ttgir_initial",
            "ttgir_after_coalesce",
            "ttgir_pre_pipeline",
        ] {
            // Trimmed corpora keep only `ttir` and `ttgir_pre_pipeline`.
            let Some(text) = r[field].as_str() else {
                continue;
            };
            if let Err(e) = parse_program(text) {
                failures.push(format!("{} {field}: {e}", common::id(&r)));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Op counts from the reader equal the record's `op_counts` (an
/// independent walk of the MLIR module by Triton's Python bindings).
#[test]
fn op_counts_match_the_record() {
    for r in common::records() {
        let p = parse_program(r["ttgir_pre_pipeline"].as_str().unwrap()).unwrap();
        let counts = r["facts_pre_pipeline"]["op_counts"].as_object().unwrap();
        for (name, n) in counts {
            let ours = p.ops.iter().filter(|o| &o.name == name).count() as u64;
            // Empty `scf.yield`s are implicit in the printed text.
            if matches!(name.as_str(), "builtin.module" | "tt.func" | "scf.yield") {
                continue;
            }
            assert_eq!(ours, n.as_u64().unwrap(), "{} {name}", common::id(&r));
        }
        let cvt = p
            .ops
            .iter()
            .filter(|o| o.kind == OpKind::ConvertLayout)
            .count() as u64;
        assert_eq!(
            cvt,
            r["facts_pre_pipeline"]["n_convert_layout"]
                .as_u64()
                .unwrap(),
            "{}",
            common::id(&r)
        );
    }
}

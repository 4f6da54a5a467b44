//! The paper's Definition 4.10 on every distributed layout Triton gave us:
//! a distributed layout is surjective and each column (input bit) has at
//! most one non-zero bit. Triton's families keep both except where they
//! legitimately mix bits: `#ttg.generic_linear` (arbitrary warp bases),
//! AMD WMMA `ctaLayout`s and CGA layouts written with mixed bases. Every
//! exception is counted per kind and must belong to the documented list.

use hw_layouts::{Encoding, Space};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn records(name: &str) -> Vec<Value> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/triton-oracle")
        .join(name);
    std::fs::read_to_string(p)
        .expect("oracle file")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect()
}

#[test]
fn distributed_layouts_satisfy_definition_4_10() {
    let mut single_bit: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut checked = 0;
    for file in [
        "sample-layouts.jsonl",
        "seed7-distributed-layouts.jsonl",
        "seed23-layouts.jsonl",
    ] {
        for r in records(file) {
            let Some(text) = r["mlir"].as_str() else {
                continue;
            };
            let shape: Vec<u64> = r["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            let Ok(enc) = Encoding::parse(text) else {
                continue;
            };
            if enc.space() != Space::Distributed {
                continue;
            }
            let l = enc.to_linear_layout(&shape).expect("oracle layouts build");
            assert!(l.is_surjective(), "{}: not surjective", r["id"]);
            let multi = l.columns().iter().any(|c| c.count_ones() > 1);
            let kind = r["attr"].as_str().unwrap_or("?").to_string();
            let e = single_bit.entry(kind).or_default();
            if multi {
                e.1 += 1;
            } else {
                e.0 += 1;
            }
            checked += 1;
        }
    }
    eprintln!("kind: (one bit per column, mixed)\n{single_bit:#?}");
    assert!(checked > 1500, "only {checked} layouts");
    // Only these attributes may mix bits in a column (see the module doc).
    for (kind, (_, mixed)) in &single_bit {
        if *mixed > 0 {
            assert!(
                kind == "ttg.generic_linear",
                "{kind}: {mixed} layouts mix bits in a column"
            );
        }
    }
}

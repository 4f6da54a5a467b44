//! Every layout of Triton's oracle sample (`tests/data/triton-oracle/
//! sample-layouts.jsonl`, produced by Triton 3.9, copied from the shared
//! oracle) parses from its `linear` JSON into a layout that round-trips
//! through JSON and is surjective wherever Triton's is (every distributed
//! layout: Triton builds those with `requireSurjective`). Triton's own
//! answers for surjective / injective / invertible and its printed form of
//! every one of these layouts (`tests/data/sample-props.jsonl`, from
//! `tests/data/gen_sample_props.py`) must match ours.

use linear_layout::{DimName, LinearLayout};
use serde_json::Value;

fn records() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/triton-oracle/sample-layouts.jsonl"
    );
    let text = std::fs::read_to_string(path).expect("oracle sample present");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("valid JSON line"))
        .collect()
}

fn shape_of(rec: &Value) -> Vec<u64> {
    let key = if rec.get("linear_shape").is_some() {
        "linear_shape"
    } else {
        "shape"
    };
    rec[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect()
}

#[test]
fn every_oracle_layout_parses_and_round_trips() {
    let recs = records();
    assert_eq!(recs.len(), 300);
    let mut dist = 0;
    for rec in &recs {
        let id = rec["id"].as_str().unwrap();
        let shape = shape_of(rec);
        let l = LinearLayout::from_json(&rec["linear"], Some(&shape))
            .unwrap_or_else(|e| panic!("{id}: {e}"));
        // Out dims dim0.. with the tensor's sizes.
        let want: Vec<(DimName, u64)> = shape
            .iter()
            .enumerate()
            .map(|(i, &s)| (DimName::dim(i), s))
            .collect();
        assert_eq!(l.out_dims(), want, "{id}");
        // In dims in the JSON's order, with the JSON's bases.
        let obj = rec["linear"].as_object().unwrap();
        let names: Vec<String> = l.in_dim_names().map(|d| d.to_string()).collect();
        assert_eq!(names, obj.keys().cloned().collect::<Vec<_>>(), "{id}");
        for (k, v) in obj {
            let bases: Vec<Vec<u64>> = serde_json::from_value(v.clone()).unwrap();
            assert_eq!(l.bases(DimName::new(k)), bases, "{id} {k}");
        }
        // JSON round trips (full form and oracle form).
        assert_eq!(
            LinearLayout::from_json(&l.to_json(), None).unwrap(),
            l,
            "{id}"
        );
        assert_eq!(&l.bases_json(), &rec["linear"], "{id}");
        if rec["space"] == "dist" {
            dist += 1;
            assert!(l.is_surjective(), "{id}: distributed layout not surjective");
        }
    }
    assert_eq!(dist, 194);
}

#[test]
fn properties_and_printing_match_triton() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/sample-props.jsonl");
    let props: std::collections::HashMap<String, Value> = std::fs::read_to_string(path)
        .expect("sample props present")
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["id"].as_str().unwrap().to_string(), v)
        })
        .collect();
    let recs = records();
    assert_eq!(props.len(), recs.len());
    for rec in &recs {
        let id = rec["id"].as_str().unwrap();
        let l = LinearLayout::from_json(&rec["linear"], Some(&shape_of(rec))).unwrap();
        let p = &props[id];
        assert_eq!(
            l.is_surjective(),
            p["surjective"].as_bool().unwrap(),
            "{id}"
        );
        assert_eq!(l.is_injective(), p["injective"].as_bool().unwrap(), "{id}");
        assert_eq!(
            l.is_invertible(),
            p["invertible"].as_bool().unwrap(),
            "{id}"
        );
        assert_eq!(l.to_string(), p["str"].as_str().unwrap(), "{id}");
    }
}

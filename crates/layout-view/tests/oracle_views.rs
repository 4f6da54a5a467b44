//! Every record of Triton 3.9's `get_layout_view` oracle
//! (tests/data/triton-oracle/sample-layout-views.jsonl, written by
//! gen_oracle.py), compared byte for byte with our views.

use layout_view::{hardware_view, tensor_view, tensor_view_window, Window};
use linear_layout::LinearLayout;
use serde_json::Value;

fn records() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/triton-oracle/sample-layout-views.jsonl"
    );
    let text = std::fs::read_to_string(path).expect("oracle file");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

fn layout_of(rec: &Value) -> (LinearLayout, Vec<u64>) {
    let shape: Vec<u64> = rec["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let ll = LinearLayout::from_json(&rec["linear"], Some(&shape)).expect("layout");
    (ll, shape)
}

#[test]
fn every_oracle_view_matches_byte_for_byte() {
    let recs = records();
    assert!(recs.len() >= 30, "expected the oracle records");
    let mut failures = Vec::new();
    for rec in &recs {
        let (ll, shape) = layout_of(rec);
        let id = rec["id"].as_str().unwrap();
        let tv = tensor_view(&ll, &shape).unwrap();
        let hv = hardware_view(&ll, &shape).unwrap();
        if tv != rec["tensor_view"].as_str().unwrap() {
            failures.push(format!(
                "{id} tensor view:\n{tv}\nexpected:\n{}",
                rec["tensor_view"].as_str().unwrap()
            ));
        }
        if hv != rec["hardware_view"].as_str().unwrap() {
            failures.push(format!(
                "{id} hardware view:\n{hv}\nexpected:\n{}",
                rec["hardware_view"].as_str().unwrap()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn full_window_is_the_tensor_view() {
    for rec in records() {
        let (ll, shape) = layout_of(&rec);
        let rows = (shape.len() >= 2).then(|| 0..shape[shape.len() - 2]);
        let w = Window {
            rows,
            cols: Some(0..shape[shape.len() - 1]),
        };
        assert_eq!(
            tensor_view_window(&ll, &shape, &w).unwrap(),
            rec["tensor_view"].as_str().unwrap()
        );
    }
}

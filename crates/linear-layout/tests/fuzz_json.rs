//! A bounded fuzz of the JSON reader (proptest, 512 cases per property, run
//! by `cargo test`): arbitrary JSON values shaped like layouts (known and
//! unknown keys, negative, huge and fractional numbers, wrong nesting,
//! `"shape"` and `"out_dims"` of any form) never panic, and every layout
//! the writers produce reads back equal.

use linear_layout::{DimName, LinearLayout};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0u64..70).prop_map(Value::from),
        prop::sample::select(vec![
            json!(-1),
            json!(1u64 << 40),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(0.5),
            json!(1e300),
            json!("3"),
            json!(null),
            json!(true),
        ]),
    ]
}

/// Any JSON value, biased towards lists of lists of numbers.
fn any_value() -> impl Strategy<Value = Value> {
    number().prop_recursive(4, 48, 5, |inner| {
        prop_oneof![
            3 => prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            1 => prop::collection::vec((prop::sample::select(vec!["register", "lane", "dim0", "x"]), inner), 0..3)
                .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}

fn layout_object() -> impl Strategy<Value = Value> {
    prop::collection::vec(
        (
            prop::sample::select(vec![
                "register", "lane", "warp", "block", "offset", "shape", "out_dims", "linear", "",
            ]),
            any_value(),
        ),
        0..6,
    )
    .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()))
}

/// A valid layout: `n` in dims' bases over a 2-D output of 2^a x 2^b.
fn valid_layout() -> impl Strategy<Value = LinearLayout> {
    (0u32..5, 0u32..5).prop_flat_map(|(a, b)| {
        let basis = (0..=a, 0..=b).prop_map(move |(i, j)| {
            vec![
                if i < a { 1u64 << i } else { 0 },
                if j < b { 1u64 << j } else { 0 },
            ]
        });
        prop::collection::vec(basis, 0..8).prop_map(move |bs| {
            let (reg, lane) = bs.split_at(bs.len() / 2);
            LinearLayout::new(
                vec![
                    (DimName::REGISTER, reg.to_vec()),
                    (DimName::LANE, lane.to_vec()),
                ],
                vec![(DimName::dim(0), 1 << a), (DimName::dim(1), 1 << b)],
                false,
            )
            .expect("valid by construction")
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_json_never_panics(v in prop_oneof![layout_object(), any_value()], shape in prop::option::of(prop::collection::vec(prop::sample::select(vec![0u64, 1, 2, 3, 16, 1 << 40]), 0..3))) {
        let r = catch_unwind(AssertUnwindSafe(|| LinearLayout::from_json(&v, shape.as_deref())));
        let r = r.map_err(|_| TestCaseError::fail(format!("panic on {v} {shape:?}")))?;
        if let Err(e) = r {
            let m = e.to_string();
            prop_assert!(!m.is_empty() && !m.contains('\n'), "{m:?}");
        }
    }

    #[test]
    fn every_written_form_reads_back(l in valid_layout()) {
        // to_json (with out_dims), and the CLI's bases + "shape" form.
        prop_assert_eq!(LinearLayout::from_json(&l.to_json(), None).unwrap(), l.clone());
        let shape: Vec<u64> = l.out_dims().iter().map(|d| d.1).collect();
        let mut cli = l.bases_json();
        cli["shape"] = json!(shape);
        prop_assert_eq!(LinearLayout::from_json(&cli, None).unwrap(), l.clone());
        prop_assert_eq!(LinearLayout::from_json(&cli, Some(&shape)).unwrap(), l.clone());
        // A contradicting shape argument is an error, not a silent choice.
        let mut other = shape.clone();
        other[0] *= 2;
        prop_assert!(LinearLayout::from_json(&cli, Some(&other)).is_err());
    }
}

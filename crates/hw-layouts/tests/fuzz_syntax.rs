//! A bounded fuzz of the attribute parser and of every family behind it
//! (proptest; CI runs it as part of `cargo test`, 512 cases per property,
//! a few seconds): structurally random attributes (nesting up to far past
//! `MAX_DEPTH`, negative and huge integers, duplicate keys, unknown names)
//! and byte-level mutations of Triton's own texts, with random shapes.
//! Properties: no panic, no stack overflow; an error is one line without
//! Rust debug text; what parses prints to text that parses back to the
//! same print.

use hw_layouts::syntax::{Attribute, MAX_DEPTH};
use hw_layouts::Encoding;
use proptest::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::OnceLock;

/// Triton's own texts (every family) from the sample corpus.
fn seeds() -> &'static Vec<String> {
    static T: OnceLock<Vec<String>> = OnceLock::new();
    T.get_or_init(|| {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data/triton-oracle/sample-layouts.jsonl");
        std::fs::read_to_string(path)
            .expect("sample-layouts.jsonl")
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|r| r["mlir"].as_str().map(str::to_string))
            .collect()
    })
}

const KEYS: &[&str] = &[
    "sizePerThread",
    "threadsPerWarp",
    "warpsPerCTA",
    "order",
    "dim",
    "parent",
    "opIdx",
    "kWidth",
    "versionMajor",
    "versionMinor",
    "instrShape",
    "register",
    "lane",
    "warp",
    "block",
    "offset",
    "vec",
    "perPhase",
    "maxPhase",
    "CGALayout",
    "x",
];
const NAMES: &[&str] = &[
    "blocked",
    "slice",
    "dot_op",
    "nvidia_mma",
    "linear",
    "swizzled_shared",
    "nvmma_shared",
    "padded_shared",
    "amd_mfma",
    "amd_wmma",
    "bogus",
];
const INTS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "4",
    "32",
    "-0",
    "-1",
    "4096",
    "2147483648",
    "9223372036854775807",
    "9223372036854775808",
    "99999999999999999999999",
];

/// A random value text, `depth` levels of nesting at most.
fn value(depth: u32) -> BoxedStrategy<String> {
    let leaf = prop_oneof![
        prop::sample::select(INTS).prop_map(str::to_string),
        Just("true".to_string()),
        Just("f7lse".to_string()),
        Just("\"s\"".to_string()),
    ];
    leaf.prop_recursive(depth, 64, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(", "))),
            prop::collection::vec((prop::sample::select(KEYS), inner.clone()), 0..4).prop_map(
                |kv| {
                    let items: Vec<String> = kv.iter().map(|(k, v)| format!("{k} = {v}")).collect();
                    format!("{{{}}}", items.join(", "))
                }
            ),
            (
                prop::sample::select(NAMES),
                prop::collection::vec((prop::sample::select(KEYS), inner), 0..5)
            )
                .prop_map(|(n, kv)| {
                    let items: Vec<String> = kv.iter().map(|(k, v)| format!("{k} = {v}")).collect();
                    format!("#ttg.{n}<{{{}}}>", items.join(", "))
                }),
        ]
    })
    .boxed()
}

fn shape() -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec(
        prop_oneof![
            prop::sample::select(vec![0u64, 1, 2, 3, 16, 64, 128, 1 << 20, 1 << 40, u64::MAX]),
            (0u32..64).prop_map(|k| 1u64 << k),
        ],
        0..4,
    )
}

/// Parses and interprets `text` for `shape`: never a panic; an error is one
/// line in the user's terms.
fn check(text: &str, shape: &[u64]) -> Result<(), TestCaseError> {
    let r = catch_unwind(AssertUnwindSafe(|| {
        Encoding::parse(text).and_then(|e| e.to_linear_layout(shape))
    }));
    let r = r.map_err(|_| TestCaseError::fail(format!("panic on {text:?} {shape:?}")))?;
    if let Err(e) = r {
        let m = e.to_string();
        prop_assert!(!m.is_empty() && !m.contains('\n'), "{m:?}");
        for leak in ["Ident(", "List(", "Int(", "Bool(", "Attr(", "Some("] {
            prop_assert!(!m.contains(leak), "debug text in {m:?}");
        }
    }
    // What parses prints back to the same tree.
    if let Ok(a) = Attribute::parse(text) {
        let again = Attribute::parse(&a.to_string())
            .map_err(|e| TestCaseError::fail(format!("{a} does not re-parse: {e}")))?;
        // Byte offsets differ (printing normalises spacing): compare prints.
        prop_assert_eq!(again.to_string(), a.to_string());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_attributes_never_panic(v in value(6), wrap in 0usize..3, shape in shape()) {
        let text = match wrap {
            0 => format!("#ttg.blocked<{{order = {v}}}>"),
            1 => v.clone(),
            _ => format!("#ttg.slice<{{dim = 0, parent = {v}}}>"),
        };
        check(&text, &shape)?;
    }

    #[test]
    fn deep_nesting_is_refused_at_any_depth(depth in 0usize..20_000, kind in 0usize..3) {
        let (open, close) = match kind {
            0 => ("#ttg.slice<{dim = 0, parent = ", "}>"),
            1 => ("[", "]"),
            _ => ("{x = ", "}"),
        };
        let text = format!(
            "#ttg.linear<{{register = {}1{}}}>",
            open.repeat(depth),
            close.repeat(depth)
        );
        check(&text, &[16])?;
        if depth > MAX_DEPTH {
            let e = Attribute::parse(&text).unwrap_err().to_string();
            prop_assert!(e.contains("nesting"), "{e}");
        }
    }

    #[test]
    fn mutated_triton_texts_never_panic(
        pick in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), prop::sample::select(vec!["", "-", "[", "]", "{", "}", "<", ">", ",", "=", "#ttg.", "order = [0, 1], ", "9999999999999999999", "é", "\0"])), 1..4),
        shape in shape(),
    ) {
        let mut text = pick.get(seeds().as_slice()).clone();
        for (at, s) in edits {
            let mut i = at.index(text.len() + 1);
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            text.insert_str(i, s);
        }
        check(&text, &shape)?;
    }

    #[test]
    fn triton_texts_with_random_shapes_never_panic(pick in any::<prop::sample::Index>(), shape in shape()) {
        check(pick.get::<String>(seeds()), &shape)?;
    }
}

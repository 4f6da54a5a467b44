//! User input never panics: Triton's own attribute texts of the shared and
//! tensor-memory kinds with one integer replaced by an odd value (0, 3, -1,
//! 2^32, 2^62, ...) and arbitrary shapes, and arbitrary tcgen05 register
//! layout parameters, must give a layout or an error, never a panic.

use hw_layouts::tmem::{tmem_reg_layout, TensorMemory, TmemRegParams};
use hw_layouts::Encoding;
use proptest::prelude::*;
use std::path::PathBuf;
use std::sync::OnceLock;

const KINDS: &[&str] = &[
    "swizzled_shared",
    "nvmma_shared",
    "shared_linear",
    "padded_shared",
    "partitioned_shared",
    "tensor_memory",
    "tensor_memory_scales",
];

fn texts() -> &'static Vec<String> {
    static T: OnceLock<Vec<String>> = OnceLock::new();
    T.get_or_init(|| {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data/triton-oracle/sample-layouts.jsonl");
        let text = std::fs::read_to_string(path).expect("sample-layouts.jsonl");
        text.lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|r| KINDS.contains(&r["kind"].as_str().unwrap_or("")))
            .map(|r| r["mlir"].as_str().unwrap().to_string())
            .collect()
    })
}

const ODD: &[&str] = &[
    "0",
    "1",
    "3",
    "7",
    "-1",
    "-8",
    "4096",
    "65536",
    "4294967296",
    "4611686018427387904",
    "9223372036854775807",
];

/// Replaces the `k`-th integer literal of `text` by `value`.
fn mutate(text: &str, k: usize, value: &str) -> String {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric()) {
            let s = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            spans.push((s, i));
        } else {
            i += 1;
        }
    }
    if spans.is_empty() {
        return text.to_string();
    }
    let (s, e) = spans[k % spans.len()];
    format!("{}{}{}", &text[..s], value, &text[e..])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn mutated_attributes_never_panic(
        idx in 0usize..1000, k in 0usize..64, v in 0usize..ODD.len(),
        shape in proptest::collection::vec(prop_oneof![Just(0u64), Just(3), 1u64..4096], 1..4),
        pow2 in any::<bool>(),
    ) {
        let t = texts();
        let text = mutate(&t[idx % t.len()], k, ODD[v]);
        let shape: Vec<u64> = if pow2 {
            shape.iter().map(|&s| if s == 0 { 1 } else { s.next_power_of_two() }).collect()
        } else {
            shape
        };
        let r = std::panic::catch_unwind(|| {
            if let Ok(e) = Encoding::parse(&text) {
                let _ = e.to_mlir();
                let _ = e.to_linear_layout(&shape);
                if let Encoding::PaddedShared(p) = &e {
                    let _ = p.padded_offset(u64::MAX);
                }
            }
        });
        prop_assert!(r.is_ok(), "panic on {} with shape {:?}", text, shape);
    }

    #[test]
    fn tmem_reg_params_never_panic(
        bm in prop_oneof![Just(64u64), Just(128), Just(32)],
        bn_log in 0u32..11, cs in 0u64..5, ebw in prop_oneof![Just(8u64), Just(16), Just(32), Just(64)],
        m_log in 4u32..10, n_log in 0u32..11, warps in prop_oneof![Just(2u64), Just(4), Just(8), Just(16), Just(32)],
        atom in 0usize..7, cga in 0usize..5, two in any::<bool>(),
    ) {
        let cga = [vec![], vec![vec![1, 0]], vec![vec![0, 1]], vec![vec![1, 0], vec![0, 1]], vec![vec![0, 0]]][cga].clone();
        let Ok(t) = TensorMemory::new(bm, 1 << bn_log, cs, cga, two, false) else {
            return Ok(());
        };
        let shape = vec![1u64 << m_log, 1u64 << n_log];
        let p = TmemRegParams {
            element_bitwidth: ebw,
            shape: shape.clone(),
            alloc_shape: shape,
            tmem_layout: t,
            num_warps: warps,
            atom: ["32x32b", "16x64b", "16x128b", "16x256b", "32x32b_splitn", "16x32bx2", "8x8b"][atom].to_string(),
        };
        let r = std::panic::catch_unwind(|| {
            if let Ok(l) = tmem_reg_layout(&p) {
                // A register layout covers the whole tensor.
                assert!(l.is_surjective(), "{l}");
            }
        });
        prop_assert!(r.is_ok(), "panic on {:?}", p);
    }
}

//! No input panics: every oracle attribute text of the distributed families
//! is mutated (digits replaced, characters dropped or duplicated, numbers
//! negated or enlarged) and evaluated at mutated shapes; each attempt must
//! return a layout or an error. A panic fails the test.

use hw_layouts::Encoding;
use proptest::prelude::Rng;
use proptest::test_runner::{RngAlgorithm, TestRng};
use serde_json::Value;
use std::path::PathBuf;

/// A number in `0..n` (0 when `n` is 0) from proptest's fixed-seed
/// generator, so failures reproduce.
fn below(rng: &mut TestRng, n: usize) -> usize {
    (rng.next_u64() % n.max(1) as u64) as usize
}

fn mutate(text: &str, rng: &mut TestRng) -> String {
    let mut t: Vec<char> = text.chars().collect();
    let n = 1 + below(rng, 3);
    for _ in 0..n {
        if t.is_empty() {
            break;
        }
        let i = below(rng, t.len());
        match below(rng, 6) {
            0 => t[i] = "0123456789"[below(rng, 10)..].chars().next().unwrap(),
            1 => {
                t.remove(i);
            }
            2 => t.insert(i, t[i]),
            3 if t[i].is_ascii_digit() => t.insert(i, '-'),
            4 if t[i].is_ascii_digit() => {
                for _ in 0..below(rng, 12) {
                    t.insert(i, '9');
                }
            }
            _ => t[i] = ['[', ']', ',', '{', '}', '=', '<', '>', ' ', '#'][below(rng, 10)],
        }
    }
    t.into_iter().collect()
}

#[test]
fn mutated_oracle_texts_never_panic() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/triton-oracle/sample-layouts.jsonl");
    let text = std::fs::read_to_string(path).expect("oracle data");
    let mut rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut parsed = 0;
    for line in text.lines() {
        let r: Value = serde_json::from_str(line).unwrap();
        let kind = r["kind"].as_str().unwrap();
        if ![
            "blocked",
            "slice",
            "linear",
            "nvidia_mma",
            "dot_op",
            "tmem_reg",
        ]
        .contains(&kind)
        {
            continue;
        }
        let mlir = r["mlir"].as_str().unwrap();
        if mlir.contains("amd_") {
            continue;
        }
        let shape: Vec<u64> = r["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        for _ in 0..60 {
            let t = mutate(mlir, &mut rng);
            let mut s = shape.clone();
            match below(&mut rng, 5) {
                0 => s.push(1 << below(&mut rng, 8)),
                1 if s.len() > 1 => {
                    s.pop();
                }
                2 => {
                    let i = below(&mut rng, s.len());
                    s[i] = [0, 3, 1 << 20, 1 << 40, 6][below(&mut rng, 5)];
                }
                _ => {}
            }
            if let Ok(e) = Encoding::parse(&t) {
                parsed += 1;
                let _ = e.to_linear_layout(&s);
                let _ = e.to_mlir();
            }
        }
    }
    assert!(parsed > 100, "only {parsed} mutated texts parsed");
}

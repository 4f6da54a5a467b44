//! Predicted gather costs (`layout_codegen::gather_cost`) against
//! independent counts: bank wavefronts by hand, and the expected load
//! wavefronts of a fully conflicting gather against its closed form.

use layout_codegen::gather::{gather_shared_plan, gather_shuffle_plan};
use layout_codegen::gather_cost::{gather_cost, load_wavefronts};
use linear_layout::LinearLayout;
use serde_json::{json, Value};

fn layout(bases: Value, shape: [u64; 2]) -> LinearLayout {
    LinearLayout::from_json(&bases, Some(&shape)).unwrap()
}

#[test]
fn wavefronts_count_distinct_words_per_bank() {
    // 32 consecutive 4-byte words: one per bank.
    let seq: Vec<u64> = (0..32).map(|l| 4 * l).collect();
    assert_eq!(load_wavefronts(&seq, 4), 1);
    // Every lane on one word: a broadcast.
    assert_eq!(load_wavefronts(&[8; 32], 4), 1);
    // A 32-word stride: all lanes in bank 0, 32 distinct words.
    let col: Vec<u64> = (0..32).map(|l| 128 * l).collect();
    assert_eq!(load_wavefronts(&col, 4), 32);
    // 16-bit elements: lanes 2k and 2k+1 share a word; 64 halves = 32 words.
    let halves: Vec<u64> = (0..32).map(|l| 2 * l).collect();
    assert_eq!(load_wavefronts(&halves, 2), 1);
    // 16-bit elements 64 bytes apart: 2 lanes per bank (words 0, 16, 32, ...).
    let spread: Vec<u64> = (0..32).map(|l| 64 * l).collect();
    assert_eq!(load_wavefronts(&spread, 2), 16);
    // 8-byte elements cover two banks each: 32 lanes x 2 words over 32 banks.
    let wide: Vec<u64> = (0..32).map(|l| 8 * l).collect();
    assert_eq!(load_wavefronts(&wide, 8), 2);
}

/// `[64, 32]` fp32, lanes along dim 0, gathered along dim 0: every lane of
/// a load reads column `j` (fixed per register) of a uniform row in 0..64,
/// so all lanes hit bank `j` and the wavefronts are the distinct rows among
/// 32 draws, whose expectation is `64 (1 - (63/64)^32)`.
#[test]
fn expected_column_gather_matches_its_closed_form() {
    let l = layout(
        json!({"register": [[1, 0], [0, 4], [0, 8], [0, 16]],
               "lane": [[2, 0], [4, 0], [8, 0], [16, 0], [32, 0]],
               "warp": [[0, 1], [0, 2]], "block": []}),
        [64, 32],
    );
    let shared = gather_shared_plan(&l, &l, 0, 32).unwrap();
    let shuffle = gather_shuffle_plan(&l, &l, 0).unwrap();
    let c = gather_cost(&l, &shared, Some(&shuffle), 32);
    let per_load = 64.0 * (1.0 - (63.0f64 / 64.0).powi(32));
    let expected = 16.0 * per_load;
    assert!(
        (c.shared_load - expected).abs() < 0.02 * expected,
        "{} vs {expected}",
        c.shared_load
    );
    // 16 registers x 32 lanes x 4 bytes = 16 wavefronts of store.
    assert_eq!(c.shared_store, 16.0);
    assert_eq!(
        c.shuffle,
        Some(shuffle.shuffles.max(shuffle.selects) as f64)
    );
    assert!(c.prefers_shuffles());
}

/// A row gather whose rows are exactly 32 words: the 32 lanes of a load
/// read 32 uniform columns of one row, each bank holds one word of the row,
/// so every load is one wavefront whatever the indices.
#[test]
fn one_row_of_32_words_never_conflicts() {
    let l = layout(
        json!({"register": [[4, 0], [8, 0], [16, 0]],
               "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
               "warp": [[1, 0], [2, 0]], "block": []}),
        [32, 32],
    );
    let shared = gather_shared_plan(&l, &l, 1, 32).unwrap();
    let c = gather_cost(&l, &shared, None, 32);
    assert_eq!(c.shared_load, 8.0);
    assert_eq!(c.shared_store, 8.0);
    assert!(!c.prefers_shuffles(), "no shuffle plan given");
}

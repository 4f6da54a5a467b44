//! Duplicate elimination: brute-force enumeration of every hardware
//! coordinate proves each element is stored exactly once.

use layout_codegen::dedup::{check_dedup_plan, dedup_store_plan, DedupCheckError};
use linear_layout::{DimName, LinearLayout};
use std::collections::HashSet;

mod common;
use common::Rng;

const REG: DimName = DimName::REGISTER;
const LANE: DimName = DimName::LANE;
const WARP: DimName = DimName::WARP;
const BLOCK: DimName = DimName::BLOCK;

fn oracle_layouts() -> Vec<(String, LinearLayout)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/triton-oracle/sample-layouts.jsonl"
    );
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter_map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            if v["space"] != "dist" {
                return None;
            }
            let shape: Vec<u64> = v["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect();
            let l = LinearLayout::from_json(&v["linear"], Some(&shape)).unwrap();
            Some((v["id"].as_str().unwrap().to_string(), l))
        })
        .collect()
}

/// Independent count: distinct elements by enumeration.
fn distinct(l: &LinearLayout) -> u64 {
    let mut s = HashSet::new();
    for b in 0..l.in_dim_size(BLOCK) {
        for w in 0..l.in_dim_size(WARP) {
            for ln in 0..l.in_dim_size(LANE) {
                for r in 0..l.in_dim_size(REG) {
                    s.insert(layout_codegen::shuffle::hw_apply(l, r, ln, w, b));
                }
            }
        }
    }
    s.len() as u64
}

#[test]
fn triton_layouts_store_each_element_once() {
    let layouts = oracle_layouts();
    assert!(layouts.len() > 150, "{}", layouts.len());
    let mut checked = 0;
    let mut with_dups = 0;
    // Layouts of at most 2^16 hardware coordinates keep the debug-build
    // enumeration fast.
    for (id, l) in layouts
        .iter()
        .filter(|(_, l)| l.total_in_dim_size_log2() <= 16)
    {
        let plan = dedup_store_plan(l);
        check_dedup_plan(&plan, l).unwrap_or_else(|e| panic!("{id}: {e}\n{l}"));
        assert_eq!(plan.stores_with_dedup, distinct(l), "{id}");
        checked += 1;
        if plan.stores_with_dedup < plan.stores_without_dedup {
            with_dups += 1;
        }
    }
    assert!(checked > 150 && with_dups > 20, "{checked} {with_dups}");
}

#[test]
fn random_linear_layouts_store_each_element_once() {
    let mut rng = Rng(4242);
    for n in 0..500 {
        // Random bases (not necessarily distributed), 2-D out dims of 4x4 to
        // 64x64, random sizes of each hardware dim.
        let (a, b) = (2 + rng.below(5) as u32, 2 + rng.below(5) as u32);
        let mut bases = Vec::new();
        for (d, max) in [(REG, 5), (LANE, 5), (WARP, 3), (BLOCK, 2)] {
            let k = rng.below(max + 1) as usize;
            let bs: Vec<Vec<u64>> = (0..k)
                .map(|_| match rng.below(4) {
                    0 => vec![0, 0],
                    _ => vec![rng.below(1 << a), rng.below(1 << b)],
                })
                .collect();
            bases.push((d, bs));
        }
        let l = LinearLayout::new(
            bases,
            vec![(DimName::dim(0), 1 << a), (DimName::dim(1), 1 << b)],
            false,
        )
        .unwrap();
        let plan = dedup_store_plan(&l);
        check_dedup_plan(&plan, &l).unwrap_or_else(|e| panic!("{n}: {e}\n{l}"));
        assert_eq!(plan.stores_with_dedup, distinct(&l));
    }
}

/// The paper's example (§5.1): a zero register column means registers 4-7
/// repeat registers 0-3. Here: 8 registers with bases [1], [2], [0]; lanes
/// [4], [8], [0], [16], [32]; 2 warps both holding everything (warp basis 0).
/// By hand: register mask 0b100, lane mask 0b00100, warp mask 1: each thread
/// stores registers 0-3, lanes with bit 2 set and warp 1 are off:
/// 4 · 16 · 1 = 64 element stores = the 64 distinct elements, against
/// 8 · 32 · 2 = 512 without dedup.
#[test]
fn hand_example() {
    let d0 = DimName::dim(0);
    let l = LinearLayout::new(
        vec![
            (REG, vec![vec![1], vec![2], vec![0]]),
            (LANE, vec![vec![4], vec![8], vec![0], vec![16], vec![32]]),
            (WARP, vec![vec![0]]),
        ],
        vec![(d0, 64)],
        true,
    )
    .unwrap();
    let plan = dedup_store_plan(&l);
    assert_eq!(
        (plan.register_mask, plan.lane_mask, plan.warp_mask),
        (0b100, 0b100, 1)
    );
    assert_eq!(plan.stored_registers, vec![0, 1, 2, 3]);
    assert_eq!(plan.skipped_registers, vec![4, 5, 6, 7]);
    assert_eq!(
        (plan.stores_with_dedup, plan.stores_without_dedup),
        (64, 512)
    );
    assert_eq!(
        (
            plan.instructions_per_thread_with_dedup,
            plan.instructions_per_thread_without_dedup
        ),
        (4, 8)
    );
    check_dedup_plan(&plan, &l).unwrap();
}

#[test]
fn checker_catches_bad_plans() {
    let d0 = DimName::dim(0);
    let l = LinearLayout::new(
        vec![
            (REG, vec![vec![1], vec![0]]),
            (LANE, vec![vec![2], vec![4], vec![8], vec![16], vec![0]]),
            (WARP, vec![vec![32]]),
        ],
        vec![(d0, 64)],
        true,
    )
    .unwrap();
    let mut plan = dedup_store_plan(&l);
    plan.lane_mask = 0;
    assert!(matches!(
        check_dedup_plan(&plan, &l),
        Err(DedupCheckError::StoredTwice { .. })
    ));
    let mut plan = dedup_store_plan(&l);
    plan.register_mask = 0b11;
    match check_dedup_plan(&plan, &l) {
        Err(DedupCheckError::NeverStored { element, .. }) => assert_eq!(element, vec![1]),
        other => panic!("{other:?}"),
    }
    let mut plan = dedup_store_plan(&l);
    plan.stores_with_dedup += 1;
    assert!(matches!(
        check_dedup_plan(&plan, &l),
        Err(DedupCheckError::WrongCount { .. })
    ));
}

#[test]
fn plan_serialises() {
    let l = LinearLayout::identity_1d(4, REG, DimName::dim(0))
        * LinearLayout::zeros_1d(2, REG, DimName::dim(0), 1)
        * LinearLayout::identity_1d(32, LANE, DimName::dim(0));
    let plan = dedup_store_plan(&l);
    let back: layout_codegen::dedup::DedupStorePlan =
        serde_json::from_str(&serde_json::to_string(&plan).unwrap()).unwrap();
    assert_eq!(back, plan);
    assert_eq!(plan.skipped_registers, vec![4, 5, 6, 7]);
}

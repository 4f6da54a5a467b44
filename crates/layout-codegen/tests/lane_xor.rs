//! Transposed staying moves with per-class lane permutations
//! (`layout_codegen::partial::LaneXor`), and partial plans that store each
//! crossing element once (its first holder): checked against the floor,
//! an independent count of the crossing elements, the simulator (with
//! planted errors), and the same moves written per move.

mod common;

use hw_layouts::Encoding;
use layout_codegen::partial::{simulate_partial, WarpClass};
use layout_codegen::plan_options::{PlanOptions, SplitForm};
use layout_codegen::planner::{plan, plan_with, PlannedConversion, Target};
use layout_codegen::shared_words::word_layouts;
use linear_layout::{DimName, LinearLayout};
use std::collections::HashSet;

fn ll(attr: &str, shape: &[u64]) -> LinearLayout {
    Encoding::parse(attr)
        .unwrap()
        .to_linear_layout(shape)
        .unwrap()
}

/// The layouts a partial plan moves: the packed words when it runs on
/// them, else the elements.
fn moved(
    p: &PlannedConversion,
    src: &LinearLayout,
    dst: &LinearLayout,
) -> (LinearLayout, LinearLayout) {
    match p.lowering.partial_words() {
        Some(w) => {
            let (a, b, _) = word_layouts(w).unwrap();
            (a, b)
        }
        None => (src.clone(), dst.clone()),
    }
}

/// wgmma accumulators (instruction N = 64, warps `[4, 1]`) and blocked
/// `[1, 8]` per thread, `[8, 4]` lanes, 64×64.
fn wgmma64_and_blk8() -> (LinearLayout, LinearLayout) {
    let shape = [64u64, 64];
    (
        ll(
            "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>",
            &shape,
        ),
        ll(
            "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>",
            &shape,
        ),
    )
}

/// Selects of a class as written: per-move chains plus its permutations.
fn selects(k: &WarpClass) -> u64 {
    k.staying.iter().map(|m| m.selects()).sum::<u64>()
        + k.lane_xor.as_ref().map_or(0, |x| x.selects())
}

/// Distinct elements some destination thread needs that no source thread
/// of its warp holds (brute force over both layouts).
fn crossing_elements(src: &LinearLayout, dst: &LinearLayout) -> u64 {
    let n = |l: &LinearLayout, d| l.in_dim_size(d);
    let mut held: HashSet<(u64, u64)> = HashSet::new();
    for w in 0..n(src, DimName::WARP) {
        for t in 0..n(src, DimName::LANE) {
            for r in 0..n(src, DimName::REGISTER) {
                held.insert((w, src.apply_values(&[r, t, w, 0])));
            }
        }
    }
    let mut crossing = HashSet::new();
    for w in 0..n(dst, DimName::WARP) {
        for t in 0..n(dst, DimName::LANE) {
            for r in 0..n(dst, DimName::REGISTER) {
                let e = dst.apply_values(&[r, t, w, 0]);
                if !held.contains(&(w, e)) {
                    crossing.insert(e);
                }
            }
        }
    }
    crossing.len() as u64
}

/// wgmma accumulators (instruction N = 64, warps `[4, 1]`) to blocked
/// `[1, 8]` per thread, `[8, 4]` lanes, 64×64 bf16 (the GPU suite's
/// `fresh_wgmma64_to_blk8_64x64_bf16`): in warps 0 and 3 half of the
/// registers stay, a 2-bit register ↔ lane transpose of 8 packed words per
/// lane. The lane-chosen registers are one permutation of the 8 sent words
/// and one of the 8 received words by 2 lane bits each: 32 selects per
/// staying warp, 64 in all, against 7 per move (a 4-way chain on the
/// sender, 4 predicated writes on the reader), 112. The plan stays at the
/// floor, 31 cycles.
#[test]
fn a_register_lane_transpose_permutes_once_per_class() {
    let (src, dst) = wgmma64_and_blk8();
    let p = plan(&src, &dst, 16, &Target::SM90).unwrap();
    assert!(
        p.candidate.starts_with("partial_transposed_"),
        "{}",
        p.candidate
    );
    assert_eq!((p.cycles, p.lower_bound.cycles), (31.0, 31.0));
    let plan = p.lowering.partial().unwrap();
    let permuting: Vec<&WarpClass> = plan
        .classes
        .iter()
        .filter(|k| k.lane_xor.is_some())
        .collect();
    assert_eq!(permuting.iter().map(|k| k.warps.len()).sum::<usize>(), 2);
    let (ws, wd) = moved(&p, &src, &dst);
    simulate_partial(plan, &ws, &wd).unwrap();
    let chain = plan.with_chained_staying();
    simulate_partial(&chain, &ws, &wd).unwrap();
    let (x, c): (u64, u64) = (
        plan.classes.iter().map(selects).sum(),
        chain.classes.iter().map(selects).sum(),
    );
    assert_eq!((x, c, p.cost.selects), (64, 112, 64));
}

/// Blocked `[1, 16]` 8-bit rows, warps `[2, 2]` (warp bit 0 a broadcast,
/// bit 1 row 8), to the A operand of mma v2 with warps `[2, 2]` (warp bit 0
/// a broadcast, bit 1 row 16), 64×64, `kWidth = 4` (the GPU suite's
/// `fresh5_blk16_to_dotA_k4_w22_64x64_f8`). Warp `w` holds the rows with
/// row bit 3 equal to its bit 1 and needs those with row bit 4 equal to it;
/// the 2048 distinct bytes where the two differ cross warps, each needed by
/// both replicas of the destination and held by both replicas of the
/// source. A partial plan stores each from its first holder, by two of
/// the four warps: half of what the full plan through the same layout
/// stores (reading, per reader, the replica in the warp with the same
/// broadcast bit would store every element, twice the crossing ones).
#[test]
fn crossing_elements_are_stored_once() {
    let shape = [64u64, 64];
    let src = ll(
        "#ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>",
        &shape,
    );
    let dst = ll(
        "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 4}>",
        &shape,
    );
    assert_eq!(crossing_elements(&src, &dst), 2048);
    let options = PlanOptions {
        split_form: Some(SplitForm::Transposed),
        ..PlanOptions::partial_only()
    };
    let p = plan_with(&src, &dst, 8, &Target::SM90, &options).unwrap();
    let plan = p.lowering.partial().unwrap();
    // Half the bytes of the full plan through the same layout, which
    // stores every element once (in the same vectors).
    assert_eq!(
        2 * plan.cost.store_wavefronts,
        plan.cost.full_store_wavefronts
    );
    let storing = plan
        .classes
        .iter()
        .filter(|k| !k.stores.is_empty())
        .map(|k| k.warps.len())
        .sum::<usize>();
    assert_eq!(storing, 2);
    let (ws, wd) = moved(&p, &src, &dst);
    simulate_partial(plan, &ws, &wd).unwrap();
}

/// Planted errors in the lane permutations fail the simulator: a sender
/// image changed (the moves send other words), a receiver image cleared,
/// and a permuted register set missing one register (the emitter would
/// leave a moved word in place).
#[test]
fn the_simulator_catches_wrong_lane_permutations() {
    let (src, dst) = wgmma64_and_blk8();
    let p = plan(&src, &dst, 16, &Target::SM90).unwrap();
    let (ws, wd) = moved(&p, &src, &dst);
    let good = p.lowering.partial().unwrap().clone();
    let k = good
        .classes
        .iter()
        .position(|k| k.lane_xor.is_some())
        .unwrap();
    let x = good.classes[k].lane_xor.clone().unwrap();
    let i = x.sender.iter().position(|&b| b != 0).unwrap();
    let j = x.receiver.iter().position(|&b| b != 0).unwrap();
    let other = x.sender[(i + 1) % x.sender.len()] ^ x.sender[i];
    type Mutation = Box<dyn Fn(&mut WarpClass)>;
    let mutations: [(&str, Mutation); 3] = [
        (
            "sender",
            Box::new(move |c| c.lane_xor.as_mut().unwrap().sender[i] ^= other.max(1)),
        ),
        (
            "receiver",
            Box::new(move |c| c.lane_xor.as_mut().unwrap().receiver[j] = 0),
        ),
        (
            "set",
            Box::new(|c| {
                c.lane_xor.as_mut().unwrap().received.pop();
            }),
        ),
    ];
    for (name, mutate) in mutations {
        let mut bad = good.clone();
        mutate(&mut bad.classes[k]);
        assert!(simulate_partial(&bad, &ws, &wd).is_err(), "{name} passed");
    }
}

/// Random pairs at 8, 16 and 32 bits planned with transposed staying
/// moves: every plan the planner returns is proved (it simulates its
/// candidates), its per-move rewriting is proved too, and a class takes
/// the permutations only where they cost fewer selects than the chains.
#[test]
fn lane_permutations_are_the_per_move_choices_for_fewer_selects() {
    let mut rng = common::Rng(0x1a7e_0c0d);
    let options = PlanOptions {
        split_form: Some(SplitForm::Transposed),
        ..PlanOptions::partial_only()
    };
    let (mut with_xor, mut planned) = (0, 0);
    for case in 0..160 {
        let bits = [8u32, 16, 32][case % 3];
        let shape = common::random_shape(&mut rng, 12, 2);
        let zeros = case / 3 % 2;
        let src = common::random_distributed(&mut rng, &shape, 5, 2, zeros);
        let dst = common::random_distributed(&mut rng, &shape, 5, 2, 0);
        let Ok(p) = plan_with(&src, &dst, bits, &Target::SM90, &options) else {
            continue;
        };
        let Some(pp) = p.lowering.partial() else {
            continue;
        };
        planned += 1;
        let (ws, wd) = moved(&p, &src, &dst);
        simulate_partial(pp, &ws, &wd).unwrap();
        let chain = pp.with_chained_staying();
        simulate_partial(&chain, &ws, &wd).unwrap_or_else(|e| panic!("case {case}: {e}"));
        for (k, c) in pp.classes.iter().zip(&chain.classes) {
            if k.lane_xor.is_some() {
                with_xor += 1;
                assert!(
                    selects(k) < selects(c),
                    "case {case}: {} >= {}",
                    selects(k),
                    selects(c)
                );
            }
        }
    }
    assert!(planned >= 40, "{planned} partial plans");
    assert!(with_xor >= 10, "{with_xor} classes with lane permutations");
}

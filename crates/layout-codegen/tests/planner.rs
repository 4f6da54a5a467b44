//! The planner's entry point (`layout_codegen::planner::plan`): every plan
//! it returns is proved again here by the simulator (the exhaustive check,
//! independent of the planner), is never costlier than Triton's plan on the
//! same scale, and a wrong plan planted in its answer is caught. Partial
//! cross-warp plans are chosen on the same scale; their costs counted by
//! the one wavefront counter agree with the partial planner's own.

use hw_layouts::Encoding;
use layout_codegen::choice::plan_conversion_triton;
use layout_codegen::choice::{plan_cost, total_warps};
use layout_codegen::partial::simulate_partial;
use layout_codegen::plan::ConversionPlan;
use layout_codegen::planner::{partial_cost, plan, Lowering, PlannedConversion, Target};
use layout_codegen::shared_words::{word_layouts, SharedWordPlan};
use layout_codegen::simulator::{simulate, simulate_staged, SimulatorConfig};
use linear_layout::{DimName, LinearLayout};

mod common;

#[path = "../examples/support/suite_cases.rs"]
mod suite_cases;

fn ll(attr: &str, shape: &[u64]) -> LinearLayout {
    Encoding::parse(attr)
        .and_then(|e| e.to_linear_layout(shape))
        .expect("layout")
}

/// Re-proves `p` with the simulator and checks its cost against Triton's.
fn prove(name: &str, src: &LinearLayout, dst: &LinearLayout, bits: u32, p: &PlannedConversion) {
    match &p.lowering {
        Lowering::Whole { plan } => {
            simulate(plan, src, dst)
                .unwrap_or_else(|e| panic!("{name}: the chosen plan fails the simulator: {e}"));
        }
        Lowering::Partial { plan, words } => {
            // A plan on packed words is proved on the word layouts, and the
            // words are checked to carry the elements.
            let (src, dst) = match words {
                Some(w) => {
                    words_carry_elements(name, src, dst, w);
                    let (a, b, _) = word_layouts(w).unwrap();
                    (a, b)
                }
                None => (src.clone(), dst.clone()),
            };
            simulate_partial(plan, &src, &dst).unwrap_or_else(|e| {
                panic!("{name}: the chosen partial plan fails the simulator: {e}")
            });
            // The one counter agrees with the partial planner's counts.
            let c = partial_cost(plan, 32);
            assert_eq!(
                (c.store_wavefronts, c.load_wavefronts),
                (plan.cost.store_wavefronts, plan.cost.load_wavefronts),
                "{name}"
            );
        }
        Lowering::Staged { regroup, then } => {
            simulate_staged(&SimulatorConfig::NVIDIA, regroup, then, src, dst)
                .unwrap_or_else(|e| panic!("{name}: the chosen staged plan fails: {e}"));
        }
    }
    assert_eq!(p.cycles, p.cost.cycles(), "{name}");
    let triton = plan_conversion_triton(src, dst, bits).unwrap();
    let t = plan_cost(&simulate(&triton, src, dst).unwrap(), total_warps(dst));
    assert!(
        p.cycles <= t,
        "{name}: chosen {} costs {} > Triton's {t}",
        p.candidate,
        p.cycles
    );
    // The bound is a floor of every plan.
    assert!(
        p.cycles + 1e-9 >= p.lower_bound.cycles,
        "{name}: plan {} below its bound {}",
        p.cycles,
        p.lower_bound.cycles
    );
}

/// Every shared word of `w` holds, slot by slot, the same elements on
/// both sides: for each source register `r` of thread `(l, v)`, its word
/// and slot (`w.src.locate(r)`) and the word's shared index
/// (`w.src_map.offset(word, l, v)`) name one cell; every destination
/// register's cell holds the element the destination layout assigns it.
/// Checked from the layouts directly, over every hardware index.
fn words_carry_elements(name: &str, src: &LinearLayout, dst: &LinearLayout, w: &SharedWordPlan) {
    let at = |l: &LinearLayout, r: u64, lane: u64, warp: u64| {
        l.apply(&[
            (DimName::REGISTER, r),
            (DimName::LANE, lane),
            (DimName::WARP, warp),
            (DimName::BLOCK, 0),
        ])
        .unwrap()
    };
    let size = |l: &LinearLayout, d| l.in_dim_size(d);
    let mut cell = std::collections::HashMap::new();
    for warp in 0..size(src, DimName::WARP) {
        for lane in 0..size(src, DimName::LANE) {
            for r in 0..size(src, DimName::REGISTER) {
                let (word, slot) = w.src.locate(r);
                let m = w.src_map.offset(word, lane, warp);
                let e = at(src, r, lane, warp);
                let old = cell.insert((m, slot), e.clone());
                assert!(
                    old.is_none_or(|o| o == e),
                    "{name}: two elements in one slot"
                );
            }
        }
    }
    for warp in 0..size(dst, DimName::WARP) {
        for lane in 0..size(dst, DimName::LANE) {
            for r in 0..size(dst, DimName::REGISTER) {
                let (word, slot) = w.dst.locate(r);
                let m = w.dst_map.offset(word, lane, warp);
                assert_eq!(
                    cell.get(&(m, slot)),
                    Some(&at(dst, r, lane, warp)),
                    "{name}: destination register {r} of lane {lane}, warp {warp}"
                );
            }
        }
    }
}

#[test]
fn every_suite_plan_is_proved_and_partial_plans_compete() {
    let mut partial = Vec::new();
    for c in suite_cases::suite_cases() {
        let p = plan(&c.src, &c.dst, c.bits, &Target::SM90).unwrap();
        prove(&c.name, &c.src, &c.dst, c.bits, &p);
        if p.lowering.partial().is_some() {
            partial.push(c.name.clone());
        }
        // Every partial candidate that was planned was costed on the scale.
        for k in &p.candidates {
            if k.name.starts_with("partial") && k.refused.is_none() {
                assert!(k.cycles.is_some(), "{}: {}", c.name, k.name);
            }
        }
    }
    eprintln!("partial plans chosen: {partial:?}");
}

#[test]
fn every_oracle_plan_is_proved() {
    let recs: Vec<serde_json::Value> = common::oracle_records("seed23-trivial-cvt.jsonl")
        .into_iter()
        .chain(common::oracle_records("sample-trivial-cvt.jsonl"))
        .collect();
    assert!(recs.len() >= 200);
    let (mut planned, mut partial) = (0, 0);
    for r in &recs {
        let shape: Vec<u64> = r["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        let bits = r["elem_bitwidth"].as_u64().unwrap() as u32;
        let src = LinearLayout::from_json(&r["src"]["linear"], Some(&shape)).unwrap();
        let dst = LinearLayout::from_json(&r["dst"]["linear"], Some(&shape)).unwrap();
        let name = r["id"].as_str().unwrap();
        // AMD pairs (64 lanes) on the 32-bank model, as the other oracle
        // tests simulate them.
        let target = Target {
            warp_size: src.in_dim_size(linear_layout::DimName::LANE),
            ..Target::SM90
        };
        match plan(&src, &dst, bits, &target) {
            Ok(p) => {
                prove(name, &src, &dst, bits, &p);
                planned += 1;
                partial += p.lowering.partial().is_some() as usize;
            }
            // Only what Triton's own planner refuses may be refused.
            Err(e) => assert!(
                plan_conversion_triton(&src, &dst, bits).is_err(),
                "{name}: {e}"
            ),
        }
    }
    eprintln!("oracle pairs planned: {planned}, partial chosen: {partial}");
    assert!(planned >= 200);
}

const MMA2: &str = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>";

fn blocked(spt: [u64; 2], tpw: [u64; 2], wpc: [u64; 2], order: [u64; 2]) -> String {
    format!(
        "#ttg.blocked<{{sizePerThread = [{}, {}], threadsPerWarp = [{}, {}], warpsPerCTA = [{}, {}], order = [{}, {}]}}>",
        spt[0], spt[1], tpw[0], tpw[1], wpc[0], wpc[1], order[0], order[1]
    )
}

/// The A operand back to the accumulators: every thread holds its own
/// replica already (Triton sends it through shared memory because the
/// source register depends on the warp). The planner chooses the partial
/// plan with register moves only: no wavefront, no barrier, 0 cycles.
#[test]
fn replicated_operand_back_to_accumulators_is_register_moves() {
    let shape = [64u64, 64];
    let mma = ll(MMA2, &shape);
    let a = ll(
        &format!("#ttg.dot_op<{{opIdx = 0, parent = {MMA2}, kWidth = 2}}>"),
        &shape,
    );
    let p = plan(&a, &mma, 16, &Target::SM90).unwrap();
    assert_eq!(p.lowering.kind_name(), "partial", "{:?}", p.candidates);
    assert_eq!(p.cycles, 0.0);
    assert_eq!(p.lower_bound.cycles, 0.0);
    let triton = plan_conversion_triton(&a, &mma, 16).unwrap();
    assert!(matches!(triton, ConversionPlan::SharedMemory(_)));
    prove("dotA->mma", &a, &mma, 16, &p);
}

/// Blocked `[2, 2]` → `[1, 4]` warps: half of the elements stay in their
/// warp by register moves; the partial plan moves half the wavefronts of
/// the full one and is chosen. Planting a wrong staying register in the
/// planner's answer is caught by the simulator.
#[test]
fn half_staying_blocked_pair_chooses_partial_and_a_mutation_fails() {
    let shape = [128u64, 128];
    let src = ll(&blocked([1, 4], [8, 4], [2, 2], [1, 0]), &shape);
    let dst = ll(&blocked([1, 4], [8, 4], [1, 4], [1, 0]), &shape);
    let p = plan(&src, &dst, 32, &Target::SM90).unwrap();
    assert_eq!(p.lowering.kind_name(), "partial", "{:?}", p.candidates);
    prove("b22->b14", &src, &dst, 32, &p);
    let full = p
        .candidates
        .iter()
        .filter(|c| c.kind == Some("shared"))
        .filter_map(|c| c.cycles)
        .fold(f64::INFINITY, f64::min);
    assert!(p.cycles < full, "{} vs {full}", p.cycles);
    let mut m = p.lowering.partial().unwrap().clone();
    let k = m
        .classes
        .iter_mut()
        .find(|k| !k.staying.is_empty())
        .unwrap();
    k.staying[0].src_register ^= 1;
    assert!(simulate_partial(&m, &src, &dst).is_err());
}

#[test]
fn a_target_that_does_not_match_is_an_error() {
    let shape = [64u64, 64];
    let b = ll(&blocked([1, 4], [8, 4], [2, 2], [1, 0]), &shape);
    let e = plan(&b, &b, 16, &Target::CDNA3).unwrap_err().to_string();
    assert!(e.contains("32 lanes") && e.contains("64"), "{e}");
    let bad = Target {
        banks: 16,
        ..Target::SM90
    };
    assert!(plan(&b, &b, 16, &bad)
        .unwrap_err()
        .to_string()
        .contains("16"));
    assert!(plan(&b, &b, 12, &Target::SM90).is_err());
    // A scratch limit below every shared-memory plan leaves only in-warp
    // plans; a transpose then has none.
    let t = ll(&blocked([4, 1], [4, 8], [2, 2], [0, 1]), &shape);
    let tiny = Target {
        smem_bytes_per_cta: 64,
        ..Target::SM90
    };
    let e = plan(&b, &t, 16, &tiny).unwrap_err().to_string();
    assert!(e.contains("shared memory per CTA"), "{e}");
}

/// Blocked rows `[4, 1]` → the same with lane bit 4 and warp bit 0
/// exchanged: in every warp, lanes 0..16 keep their rows and lanes 16..32
/// take another warp's, so staying depends on the lane (`C_wl != 0`, the
/// plain partial class refuses). Floor by hand (64×64 f32, 4 warps): half
/// the elements cross, 8192 bytes stored and loaded once at 128 bytes per
/// wavefront = 128 wavefronts / 4 warps + one barrier = 36 cycles; the
/// staying half are register moves in their own lanes. The lane-predicated
/// partial plan (loads and stores in lanes 16..32 only, a whole phase
/// skipped) reaches it; the full plans cost 68 (paper) and 124 (Triton).
/// A load predicate widened to every lane is caught by the simulator.
#[test]
fn lane_dependent_staying_takes_the_predicated_partial_plan() {
    let shape = [64u64, 64];
    let row = ll(&blocked([1, 4], [8, 4], [4, 1], [1, 0]), &shape);
    let swapped = ll(
        "#ttg.linear<{register = [[0, 1], [0, 2], [0, 16], [0, 32], [32, 0]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [8, 0]], warp = [[4, 0], [16, 0]], block = []}>",
        &shape,
    );
    let p = plan(&row, &swapped, 32, &Target::SM90).unwrap();
    assert_eq!(
        p.candidate, "partial_predicated_triton",
        "{:?}",
        p.candidates
    );
    assert_eq!((p.cycles, p.lower_bound.cycles), (36.0, 36.0));
    assert_eq!(p.lower_bound.cross_warp_bytes, 8192);
    prove("row->lane4/warp0", &row, &swapped, 32, &p);
    let refused = |n: &str| {
        p.candidates
            .iter()
            .find(|c| c.name == n)
            .and_then(|c| c.refused.clone())
            .unwrap_or_default()
    };
    assert!(refused("partial_triton").contains("C_wl != 0"));
    let mut m = p.lowering.partial().unwrap().clone();
    let k = m
        .classes
        .iter_mut()
        .find(|k| !k.load_lanes.is_empty())
        .unwrap();
    assert!(k.load_lanes.iter().all(|&x| x == 0xffff_0000));
    k.load_lanes[0] = u32::MAX as u64;
    assert!(simulate_partial(&m, &row, &swapped).is_err());
}

/// wgmma accumulators (instruction N = 64, warps `[4, 1]`) → blocked
/// `[1, 8]` per thread, `[8, 4]` lanes, 64×64 bf16. The source warp holds
/// row bits 4 and 5, the destination warp row bits 3 and 4: an element
/// stays iff rows bits 3, 4 and 5 agree, so warps 0 and 3 keep half of their
/// 32 registers per lane and warps 1 and 2 none (1024 of 4096 elements).
/// Crossing: 3072 × 2 bytes stored and loaded once, 48 + 48 wavefronts. The
/// staying registers are a 2-bit register ↔ lane transpose: each sending
/// lane's registers go to 4 readers, so the direct schedule (one register
/// per shuffle, kept by a quarter of the lanes) needs 4 shuffles per staying
/// register; the transposed one gives each reader the register `r ⊕ F(l)`.
/// The shared words are register words on both sides (register bit 0 and
/// column bit 0 on both), so the plan moves packed words: 8 staying words
/// per lane, 8 rounds per staying warp. The lane-chosen registers are two
/// permutations per staying warp, of the 8 sent and the 8 received words
/// by 2 lane bits each: 32 selects per warp, 64 in all (per move, a 4-way
/// select on the sender and 4 predicated writes on the reader would cost
/// 7 × 8 × 2 = 112); 64 / 4 warps / 2 per cycle = 8 ALU cycles against (96
/// wavefronts + 12 shuffles) / 4 = 27 MIO cycles; + one barrier (4): 31
/// cycles, the floor, against 36 for the full plan and 40 for the direct
/// schedule.
#[test]
fn register_lane_transpose_that_stays_takes_the_transposed_partial_plan() {
    let shape = [64u64, 64];
    let src = ll(
        "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>",
        &shape,
    );
    let dst = ll(&blocked([1, 8], [8, 4], [4, 1], [1, 0]), &shape);
    let p = plan(&src, &dst, 16, &Target::SM90).unwrap();
    assert!(
        p.candidate.starts_with("partial_transposed_"),
        "{} {:?}",
        p.candidate,
        p.candidates
    );
    assert!(p.lowering.partial_words().is_some());
    assert_eq!(p.cycles, 31.0);
    assert_eq!(p.lower_bound.cycles, 31.0);
    assert_eq!(
        (
            p.cost.store_wavefronts,
            p.cost.load_wavefronts,
            p.cost.selects
        ),
        (48, 48, 64)
    );
    let cycles = |n: &str| p.candidates.iter().find(|c| c.name == n).unwrap().cycles;
    assert_eq!(cycles("paper_swizzle"), Some(36.0));
    assert_eq!(cycles("partial_predicated_paper_swizzle"), Some(40.0));
    prove("wgmma64->blk8", &src, &dst, 16, &p);
    // A reader writing its round's register in every lane is caught (on
    // the layouts the plan moves: the packed words when it runs on them).
    let (ws, wd) = match p.lowering.partial_words() {
        Some(w) => {
            let (a, b, _) = word_layouts(w).unwrap();
            (a, b)
        }
        None => (src.clone(), dst.clone()),
    };
    // Words whose destination lanes are exchanged do not carry the
    // elements: the word check catches it.
    let mut bad = p.lowering.partial_words().unwrap().clone();
    bad.dst_map.lane.swap(0, 1);
    let caught = std::panic::catch_unwind(|| words_carry_elements("mutated", &src, &dst, &bad));
    assert!(caught.is_err());
    let mut m = p.lowering.partial().unwrap().clone();
    simulate_partial(&m, &ws, &wd).unwrap();
    let k = m
        .classes
        .iter_mut()
        .find(|k| !k.staying.is_empty())
        .unwrap();
    k.lane_xor
        .as_mut()
        .expect("the class permutes by lane")
        .receiver = vec![0; 5];
    assert!(simulate_partial(&m, &ws, &wd).is_err());
}

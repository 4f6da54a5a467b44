//! Both directions of a round trip planned together
//! (`layout_codegen::round_trip`): the pair goes through one shared layout
//! when that costs no more than the independent choices, and never costs
//! more than them.

use hw_layouts::Encoding;
use layout_codegen::plan::ConversionPlan;
use layout_codegen::plan_options::PlanOptions;
use layout_codegen::planner::{plan_with, PlannedConversion, Target};
use layout_codegen::round_trip::plan_round_trip;
use linear_layout::LinearLayout;

const BLK_ROW: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";
const BLK_COL: &str = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>";
const MMA2: &str = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>";
const DOT_B: &str = "#ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>";

fn layout(t: &str, shape: [u64; 2]) -> LinearLayout {
    Encoding::parse(t)
        .unwrap()
        .to_linear_layout(&shape)
        .unwrap()
}

fn shared(p: &PlannedConversion) -> Option<LinearLayout> {
    match p.lowering.whole() {
        Some(ConversionPlan::SharedMemory(m)) => Some(m.shared_layout.clone()),
        _ => None,
    }
}

#[test]
fn a_round_trip_shares_one_layout_and_costs_no_more() {
    for (bits, s, d) in [
        (8, BLK_ROW, BLK_COL),
        (16, BLK_ROW, BLK_COL),
        (16, MMA2, DOT_B),
    ] {
        let (src, dst) = (layout(s, [64, 64]), layout(d, [64, 64]));
        let o = PlanOptions::whole();
        let (f, b) = plan_round_trip(&src, &dst, bits, &Target::SM90, &o).unwrap();
        let alone = (
            plan_with(&src, &dst, bits, &Target::SM90, &o).unwrap(),
            plan_with(&dst, &src, bits, &Target::SM90, &o).unwrap(),
        );
        assert!(
            f.cycles + b.cycles <= alone.0.cycles + alone.1.cycles,
            "{bits} {s}"
        );
        let (lf, lb) = (shared(&f).unwrap(), shared(&b).unwrap());
        assert_eq!(lf, lb, "{bits}-bit {s} -> {d}: one buffer layout");
        assert_eq!(f.candidate, "given_layout");
    }
}

#[test]
fn a_given_layout_is_the_only_candidate() {
    let (src, dst) = (layout(BLK_ROW, [64, 64]), layout(BLK_COL, [64, 64]));
    let (sw, _) = layout_codegen::swizzle_search::search_shared_layout(&src, &dst, 16, 32).unwrap();
    let o = PlanOptions {
        through: Some(sw.clone()),
        ..PlanOptions::default()
    };
    let p = plan_with(&src, &dst, 16, &Target::SM90, &o).unwrap();
    assert_eq!(shared(&p), Some(sw));
    assert!(p
        .candidates
        .iter()
        .all(|c| c.name.starts_with("given_layout") || c.cycles.is_none()));
    assert_eq!(p.candidate, "given_layout");
}

/// The tensor coordinate (packed, first out dim lowest) of register `r`
/// of thread (`lane`, `warp`).
fn at(l: &LinearLayout, r: u64, lane: u64, warp: u64) -> u64 {
    use linear_layout::DimName;
    let nr = l.in_dim_size_log2(DimName::REGISTER);
    let nl = l.in_dim_size_log2(DimName::LANE);
    l.apply_flat(r | lane << nr | warp << (nr + nl))
}

/// Brute force over every thread: under the plan's packing of `side`, slot
/// `k` of register word `j` is the element at byte `k · bits / 8` of the
/// shared 4-byte word `map(j, lane, warp)` of the buffer layout `smem`, and
/// every thread's words cover its registers once.
fn words_are_shared_words(
    side: &LinearLayout,
    smem: &LinearLayout,
    pack: &layout_codegen::shared_words::WordPacking,
    map: &layout_codegen::shared_words::OffsetMap,
) -> Result<(), String> {
    use linear_layout::DimName;
    let inv = smem.invert().unwrap();
    let offset_of = |coord: u64| inv.apply_flat(coord);
    for w in 0..side.in_dim_size(DimName::WARP) {
        for l in 0..side.in_dim_size(DimName::LANE) {
            let mut seen = vec![false; pack.num_regs as usize];
            for j in 0..pack.num_words() {
                for k in 0..pack.per_word() {
                    let r = pack.register(j, k);
                    if std::mem::replace(&mut seen[r as usize], true) {
                        return Err(format!("register {r} packed twice"));
                    }
                    let want = map.offset(j, l, w) * pack.per_word() + k;
                    let got = offset_of(at(side, r, l, w));
                    if got != want {
                        return Err(format!(
                            "warp {w} lane {l} word {j} slot {k}: element at offset {got}, not {want}"
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

#[test]
fn the_round_trip_states_its_word_form() {
    use layout_codegen::round_trip::{plan_round_trip_words, RoundTripWords};
    let o = PlanOptions::whole();
    // 8-bit transpose through shared memory: shared words, each side packed
    // so that every shared 4-byte word is one register word.
    for (bits, s, d) in [(8, BLK_ROW, BLK_COL), (16, MMA2, DOT_B)] {
        let (src, dst) = (layout(s, [64, 64]), layout(d, [64, 64]));
        let rt = plan_round_trip_words(&src, &dst, bits, &Target::SM90, &o).unwrap();
        let RoundTripWords::SharedWords(p) = &rt.words else {
            panic!("{bits}-bit {s}: {:?}", rt.words);
        };
        let smem = shared(&rt.fwd).unwrap();
        assert_eq!(Some(&smem), shared(&rt.bwd).as_ref());
        words_are_shared_words(&src, &smem, &p.src, &p.src_map).unwrap();
        words_are_shared_words(&dst, &smem, &p.dst, &p.dst_map).unwrap();
        // The check fails on a wrong packing: the destination's slot bits
        // swapped (8-bit) or moved to another register bit.
        let mut wrong = p.dst.clone();
        if wrong.slot_bits.len() > 1 {
            wrong.slot_bits.reverse();
        } else {
            wrong.slot_bits[0] = (wrong.slot_bits[0] + 1) % wrong.num_regs.trailing_zeros();
        }
        assert!(words_are_shared_words(&dst, &smem, &wrong, &p.dst_map).is_err());
    }
    // 32-bit elements are never packed.
    let (src, dst) = (layout(BLK_ROW, [64, 64]), layout(BLK_COL, [64, 64]));
    let rt = plan_round_trip_words(&src, &dst, 32, &Target::SM90, &o).unwrap();
    assert!(matches!(rt.words, RoundTripWords::Elements));
}

/// The planner's partial answers of both directions, on shared words
/// where they apply, each proved again by the partial simulator on the
/// layouts it moves (words: `word_layouts` of the direction's own packing).
#[test]
fn partial_round_trips_are_the_planners_answers_on_shared_words_where_they_apply() {
    use layout_codegen::partial::simulate_partial;
    use layout_codegen::planner::plan;
    use layout_codegen::round_trip::plan_partial_round_trip;
    use layout_codegen::shared_words::word_layouts;
    let b = |wpc: [u64; 2]| {
        format!(
            "#ttg.blocked<{{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [{}, {}], order = [1, 0]}}>",
            wpc[0], wpc[1]
        )
    };
    let (src, dst) = (
        layout(&b([2, 2]), [128, 128]),
        layout(&b([4, 1]), [128, 128]),
    );
    let on = |w: Option<&layout_codegen::shared_words::SharedWordPlan>,
              a: &LinearLayout,
              b: &LinearLayout| match w {
        Some(p) => {
            let (s, d, _) = word_layouts(p).unwrap();
            (s, d)
        }
        None => (a.clone(), b.clone()),
    };
    for bits in [16, 32] {
        let o = PlanOptions::default();
        let rt = plan_partial_round_trip(&src, &dst, bits, &Target::SM90, &o).unwrap();
        assert_eq!(rt.fwd_words.is_some(), bits == 16, "{bits}-bit");
        assert_eq!(rt.bwd_words.is_some(), bits == 16, "{bits}-bit");
        assert_eq!((rt.fwd.bitwidth, rt.bwd.bitwidth), (32, 32));
        let (s, d) = on(rt.fwd_words.as_ref(), &src, &dst);
        simulate_partial(&rt.fwd, &s, &d).unwrap();
        let (d2, s2) = on(rt.bwd_words.as_ref(), &dst, &src);
        simulate_partial(&rt.bwd, &d2, &s2).unwrap();
        // The planner's own answers, candidate for candidate.
        let pf = plan(&src, &dst, bits, &Target::SM90).unwrap();
        let pb = plan(&dst, &src, bits, &Target::SM90).unwrap();
        assert_eq!(rt.candidates, (pf.candidate, pb.candidate));
        assert_eq!(
            rt.fwd.cost.store_wavefronts,
            pf.lowering.partial().unwrap().cost.store_wavefronts
        );
        // A quarter of the elements stay in their warps (b22 -> b41).
        assert_eq!(rt.fwd.cost.staying_elements * 4, rt.fwd.cost.elements);
    }
    let o = PlanOptions::default();
    // A pair where nothing moves: the planner's answer is not partial.
    let e = plan_partial_round_trip(&src, &src, 32, &Target::SM90, &o).unwrap_err();
    assert!(e.to_string().contains("not a partial"), "{e}");
    let e = plan_partial_round_trip(&src, &dst, 12, &Target::SM90, &o).unwrap_err();
    assert!(e.to_string().contains("12"), "{e}");
}

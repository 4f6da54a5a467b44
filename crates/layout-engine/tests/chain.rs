//! Chained dots chosen jointly by cost, and reductions kept inside a warp
//! (`engine::search`), on hand-written kernels whose costs are derived by
//! hand below.
//!
//! The plan cost model (`layout_codegen::cost`): cycles per warp =
//! (store wavefronts + load wavefronts) / warps + 4 per barrier, one
//! wavefront per 128 bytes. A full shared-memory conversion on 4 warps
//! stores the whole tile once and every warp loads what it needs: for
//! `S` bytes stored and `L` bytes loaded by all warps together,
//! `(S + L) / 128 / 4 + 4`; a partial plan moves only the elements that
//! change warp.

use layout_engine::anchors::Target;
use layout_engine::compute::compute_cost;
use layout_engine::cost::{total_cost as conversions_cost, Pricer};
use layout_engine::engine::reduction::reductions_cost;
use layout_engine::engine::{assign, assign_fixed, search::total_cost, EngineOutput, Options};
use layout_engine::{check, parse_program, Program};

fn data(name: &str) -> Program {
    let text = std::fs::read_to_string(format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR")))
        .unwrap();
    parse_program(&text).unwrap()
}

const SM80_W4: Options = Options::new(Target::Sm80, 4);

/// The warps of the value named `name`'s layout (an mma accumulator).
fn warps(p: &Program, out: &EngineOutput, name: &str) -> String {
    let v = p.values.iter().position(|v| v.name == name).unwrap();
    let m = out.assignment.layout(v).unwrap().mlir();
    let i = m.find("warpsPerCTA = ").unwrap();
    m[i + 14..].split(']').next().unwrap().to_string() + "]"
}

/// `tests/data/chained_dots_in_loop.ttir`: Q (64×64), Kᵀ (64×64) and V
/// (64×128) f16 loaded before a loop whose body is `S = Q·Kᵀ`,
/// `P = truncf S`, `acc += P·V`; the result stored after it (f16).
///
/// A dot operand of more than 32 registers per thread is converted at its
/// dot, inside the loop (×10), not once before it
/// (`assignment::converts_at_use`: held through the loop it spills); one
/// of at most 32 is converted before the loop.
///
/// AccelerateMatmul (mma v2, 4 warps) gives both dots the last dot's
/// arrangement, all warps on N since `64 < 128`: `[1, 4]`. Then
/// - P (64×64 f16, 8 KiB) lies by columns over the warps (16 each) but
///   its `dot_op(A)` is replicated over them (warps along N): each warp
///   lacks 6 KiB. Partial plan: the 8 KiB stored (64 wavefronts), 4 × 6
///   KiB loaded (192): 256 / 4 + 4 = **68**, inside the loop: ×10 = 680.
/// - Q → `dot_op(A)` replicated (all 64×64 in every warp: 64 registers
///   per thread, so inside the loop): 8 KiB stored, 4 × 8 KiB loaded:
///   (64 + 256) / 4 + 4 = 84, ×10 = 840. Kᵀ → `dot_op(B)` (warp w needs
///   columns 16w..16w+15: 2 KiB each, 16 registers): (64 + 64) / 4 + 4 =
///   36. V → `dot_op(B)` (32 columns each, 4 KiB, 32 registers): (128 +
///   128) / 4 + 4 = 68. The result (16 KiB f16, rows 16w.. of the mma
///   layout, rows 8r + 2w.. of the store's blocked layout): (128 + 128) /
///   4 + 4 = 68.
/// - Total: 840 + 36 + 68 + 680 + 68 = **1692**.
///
/// Both dots `[4, 1]` keep P in registers (the mma → `dot_op(A)`
/// register renaming, 0) but replicate Kᵀ (64 registers: 84 × 10) and V
/// (128 registers: (128 + 512) / 4 + 4 = 164, × 10) into the loop: 36 +
/// 840 + 1640 + 68 = 2584.
///
/// The first dot `[2, 2]`, the second `[1, 4]`: Q → A (two warps on M,
/// each its 32 rows: 32 registers): (64 + 4 × 32) / 4 + 4 = 52, before
/// the loop; Kᵀ → B (two warps on N, 32 columns each) likewise 52; P
/// from `[2, 2]` into `[1, 4]`'s A, 68 in the loop: 680; V 68; the
/// result 68. Total 52 + 52 + 680 + 68 + 68 = **920**, the least of the
/// nine combinations of `[1, 4]`, `[2, 2]`, `[4, 1]` per dot (the
/// decision lists them).
///
/// The compute term (`layout_engine::compute`, instructions per thread /
/// 2 per cycle) is the same for every combination: no mma accumulator
/// replicates, and the loads, stores and index arithmetic keep their
/// coalesced layouts (Q, Kᵀ: `[1, 8]` per thread, lanes `[4, 8]`, warps
/// `[4, 1]`, 32 registers, rows 4 and columns 8 per thread; V and the
/// result: lanes `[2, 16]`, 64 registers, rows 8 and columns 8). Before
/// the loop: the row range (4) and its two copies in the column and V-row
/// slices (8 + 8), the column range of V (8), the row offsets (4 + 8),
/// the offsets (32 + 64), the pointers (64-bit: 2 × (32 + 32 + 64 + 64)),
/// the loads (vectors of 8 f16: 4 + 4 + 8, 2 each), the result's `truncf`
/// (64) and its store (8 vectors, 2 each): 632 instructions, 316 cycles;
/// in the loop P's `truncf` (32 registers: 16 cycles, ×10): 160. Total
/// **476**, added to every candidate.
#[test]
fn chained_dots_take_the_cheapest_warps_with_big_operands_in_the_loop() {
    let p = data("chained_dots_in_loop.ttir");
    let mut pricer = Pricer::new();
    let rule = assign_fixed(&p, SM80_W4, &mut pricer).unwrap();
    let joint = assign(&p, SM80_W4, &mut pricer).unwrap();
    for out in [&rule, &joint] {
        assert!(check(&p, &out.assignment).is_empty());
    }
    let cycles_at = |out: &EngineOutput, pricer: &mut Pricer, inside: bool| {
        let priced = pricer.price_all(&p, &out.assignment).unwrap();
        let mut c: Vec<f64> = priced
            .iter()
            .filter(|(c, pr)| (c.depth > 0) == inside && pr.cycles > 0.0)
            .map(|(_, pr)| pr.cycles)
            .collect();
        c.sort_by(f64::total_cmp);
        c
    };
    // Triton's rule: [1, 4]; P and Q converted in the loop.
    assert_eq!(warps(&p, &rule, "%29"), "[1, 4]");
    assert_eq!(warps(&p, &rule, "%31"), "[1, 4]");
    assert_eq!(cycles_at(&rule, &mut pricer, true), [68.0, 84.0]);
    assert_eq!(cycles_at(&rule, &mut pricer, false), [36.0, 68.0, 68.0]);
    assert_eq!(compute_cost(&p, &rule.assignment).unwrap(), 476.0);
    assert_eq!(total_cost(&p, &rule, &mut pricer).unwrap(), 1692.0 + 476.0);
    // The joint choice: [2, 2] then [1, 4], only P converted in the loop.
    assert_eq!(warps(&p, &joint, "%29"), "[2, 2]");
    assert_eq!(warps(&p, &joint, "%31"), "[1, 4]");
    assert_eq!(cycles_at(&joint, &mut pricer, true), [68.0]);
    assert_eq!(
        cycles_at(&joint, &mut pricer, false),
        [52.0, 52.0, 68.0, 68.0]
    );
    assert_eq!(compute_cost(&p, &joint.assignment).unwrap(), 476.0);
    assert_eq!(total_cost(&p, &joint, &mut pricer).unwrap(), 920.0 + 476.0);
    // --explain: the nine candidates, the rule's first at 1692, both
    // [4, 1] at 2584, the chosen one the cheapest.
    let d = joint
        .decisions
        .iter()
        .find(|d| d.op == "chained tt.dot warps")
        .unwrap();
    assert_eq!(d.candidates.len(), 9);
    assert_eq!(d.candidates[0].1, 1692.0 + 476.0);
    assert!(d.candidates[0].0.contains("AccelerateMatmul"));
    assert_eq!(d.candidates[8].1, 2584.0 + 476.0);
    assert_eq!(d.candidates[d.chosen].1, 920.0 + 476.0);
    assert!(d.candidates.iter().all(|c| c.1 >= 920.0 + 476.0));
    assert_eq!(
        d.candidates.iter().filter(|c| c.1 == 920.0 + 476.0).count(),
        1,
        "{:?}",
        d.candidates
    );
}

/// `tests/data/reduce_broadcast_in_loop.ttir`: x (8×256 f32) loaded
/// before a loop whose body takes `m = max(x · i, axis 1)` and adds
/// `x − m[:, None]` to an accumulator, stored after the loop.
///
/// x's coalesced layout (4 per thread, 32 lanes along the row, warps
/// `[2, 2]`): registers (cols 1, 2; rows 2, 4), lanes (cols 4..64), warps
/// (col 128, row 1). The row maximum crosses the two warps along the row.
/// Reduction model (`engine::reduction`): 4 rows per thread, 5 shuffle
/// rounds: 20; 4 partials per warp (16 bytes: 1 wavefront) stored, a
/// barrier (4), 2 warps' partials loaded (32 bytes: 1): **26** per
/// iteration, ×10 in the loop = **260**, no conversion.
///
/// Warp-local: the warp bit of col 128 trades places with the register
/// bit of row 4. The reduction: 2 rows per thread, 5 rounds: 10, ×10 =
/// 100. x is converted once, before the loop: the elements whose row-4
/// and col-128 bits differ (half of 8 KiB) change warp: 32 wavefronts
/// stored, 32 loaded, (32 + 32) / 4 + 4 = 20; the accumulator is
/// converted back for the store: 20. The broadcast maximum meets x in
/// the warp-local layout (its conversion is reused). Total 20 + 100 +
/// 20 = **140** < 260.
///
/// The compute term (`layout_engine::compute`) is the same in both: x
/// keeps 16 registers per thread in either layout. Before the loop the
/// row range and row offsets (4 registers each), the column range (4),
/// the offsets (16), two pointer tensors (64-bit: 2 × 16 each), the load
/// and the store (vectors of 4 f32: 4 instructions, 2 each): 108
/// instructions, 54 cycles; in the loop `mulf`, `subf`, `addf` (16 each):
/// 24 cycles, ×10 = 240. Total **294**, added to both candidates.
#[test]
fn a_reduction_broadcast_back_keeps_its_axis_inside_the_warp() {
    let p = data("reduce_broadcast_in_loop.ttir");
    let mut pricer = Pricer::new();
    let fixed = assign_fixed(&p, SM80_W4, &mut pricer).unwrap();
    let local = assign(&p, SM80_W4, &mut pricer).unwrap();
    for out in [&fixed, &local] {
        assert!(check(&p, &out.assignment).is_empty());
    }
    let conv = |pricer: &mut Pricer, o: &EngineOutput| {
        conversions_cost(&pricer.price_all(&p, &o.assignment).unwrap())
    };
    assert_eq!(conv(&mut pricer, &fixed), 0.0);
    assert_eq!(reductions_cost(&p, &fixed.assignment).unwrap(), 260.0);
    assert_eq!(conv(&mut pricer, &local), 40.0);
    assert_eq!(reductions_cost(&p, &local.assignment).unwrap(), 100.0);
    let priced = pricer.price_all(&p, &local.assignment).unwrap();
    assert!(priced
        .iter()
        .all(|(c, pr)| c.depth == 0 && pr.cycles == 20.0));
    let d = local
        .decisions
        .iter()
        .find(|d| d.op == "tt.reduce operand layout")
        .unwrap();
    assert_eq!(compute_cost(&p, &fixed.assignment).unwrap(), 294.0);
    assert_eq!(compute_cost(&p, &local.assignment).unwrap(), 294.0);
    assert_eq!(
        d.candidates.iter().map(|c| c.1).collect::<Vec<_>>(),
        [260.0 + 294.0, 140.0 + 294.0]
    );
    assert_eq!(d.chosen, 1);
}

/// `--explain` lists the chain's candidates and their costs (the report's
/// decisions, which the CLI prints).
#[test]
fn explain_lists_the_chain_candidates() {
    let text = std::fs::read_to_string(format!(
        "{}/tests/data/chained_dots_in_loop.ttir",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let r = layout_engine::report::run_engine(&text, Target::Sm80, 4, &mut Pricer::new()).unwrap();
    let d = r
        .decisions
        .iter()
        .find(|d| d.op == "chained tt.dot warps")
        .unwrap();
    assert_eq!(d.value, "%29, %31");
    assert_eq!(d.candidates.len(), 9);
    assert!(d.candidates[d.chosen]
        .0
        .contains("%29 warpsPerCTA [2, 2], %31 warpsPerCTA [1, 4]"));
    assert!(r.text(true).contains("chained tt.dot warps"));
}

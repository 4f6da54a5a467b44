//! One shuffle planner, executed by the simulator: warp programs
//! (`ConversionPlan::WarpProgram`) run on the modelled CTA.
//!
//! Independent references: the warp model of `shuffle.rs`
//! (`run_warp_program` / `check_warp_program`, written apart from the
//! simulator's `execute_warp`), the destination layout evaluated directly
//! (inside both checkers), and instruction counts derived by hand.

use layout_codegen::choice::plan_conversion;
use layout_codegen::choice::plan_cost;
use layout_codegen::error::CodegenError;
use layout_codegen::plan::ConversionPlan;
use layout_codegen::shuffle::{
    check_warp_program, run_warp_program, shuffle_plan, LaneMap, LanePredicate, ShflMode,
    WarpCheckError, WarpInstr, WarpProgram,
};
use layout_codegen::simulator::{execute_warp, simulate};
use linear_layout::{DimName, LinearLayout};

const REG: DimName = DimName::REGISTER;
const LANE: DimName = DimName::LANE;
const WARP: DimName = DimName::WARP;

mod common;
use common::{random_pair, Rng};

/// Where a checker says a program fails: `(block, warp, lane, register,
/// found)`, `None` when it passes; any other error is `Some` with register
/// `u64::MAX` (the two checkers word other errors differently).
type Verdict = Option<(u64, u64, u64, u64, Option<Vec<u64>>)>;

fn sim_verdict(p: &WarpProgram, s: &LinearLayout, d: &LinearLayout) -> Verdict {
    match simulate(&ConversionPlan::WarpProgram(Box::new(p.clone())), s, d) {
        Ok(_) => None,
        Err(CodegenError::WrongElement {
            block,
            warp,
            lane,
            register,
            found,
            ..
        }) => Some((block, warp, lane, register, found)),
        Err(_) => Some((0, 0, 0, u64::MAX, None)),
    }
}

fn model_verdict(p: &WarpProgram, s: &LinearLayout, d: &LinearLayout) -> Verdict {
    match check_warp_program(p, s, d) {
        Ok(()) => None,
        Err(WarpCheckError::WrongValue {
            block,
            warp,
            lane,
            register,
            found,
            ..
        }) => Some((block, warp, lane as u64, register, found)),
        Err(_) => Some((0, 0, 0, u64::MAX, None)),
    }
}

/// One random change of one instruction (shuffle source lane, select
/// operands or predicate, pack order, unpack order, copy source).
fn mutate(p: &mut WarpProgram, rng: &mut Rng) -> bool {
    if p.instrs.is_empty() {
        return false;
    }
    let k = rng.below(p.instrs.len() as u64) as usize;
    let lanes = p.lanes;
    match &mut p.instrs[k] {
        WarpInstr::Shuffle { mode, .. } => match mode {
            ShflMode::Xor { mask } => *mask ^= 1 << rng.below(lanes.trailing_zeros() as u64),
            ShflMode::Idx { src_lane } => {
                src_lane.constant ^= 1 << rng.below(lanes.trailing_zeros() as u64)
            }
        },
        WarpInstr::Select {
            cond,
            if_true,
            if_false,
            ..
        } => {
            if rng.below(2) == 0 {
                std::mem::swap(if_true, if_false);
            } else {
                match cond {
                    LanePredicate::Parity { mask } => {
                        *mask ^= 1 << rng.below(lanes.trailing_zeros() as u64)
                    }
                    LanePredicate::Equals { value, .. } => *value ^= 1,
                }
            }
        }
        WarpInstr::Pack { parts, .. } => parts.reverse(),
        WarpInstr::Unpack { dsts, .. } => dsts.reverse(),
        WarpInstr::Copy { src, .. } => *src = rng.below(p.num_inputs as u64) as usize,
    }
    true
}

/// The simulator and the warp model agree on planned programs and on
/// mutants of them: both pass, or both name the same first wrong register
/// (block, warp, lane, register order) with the same found value.
#[test]
fn simulator_and_warp_model_agree_on_programs_and_mutants() {
    let mut rng = Rng(0x51ed_270b_1c4d_8a39);
    let (mut passed, mut caught) = (0, 0);
    for n in 0..300 {
        let (s, d) = random_pair(&mut rng);
        let bw = [8, 16, 32][n % 3];
        let ctx = format!("pair {n} ({bw} bit)\nsrc {s}\ndst {d}");
        let plan = shuffle_plan(&s, &d, bw).unwrap_or_else(|e| panic!("{ctx}\n{e}"));
        // The planned program passes both.
        assert_eq!(sim_verdict(&plan.program, &s, &d), None, "{ctx}");
        assert_eq!(model_verdict(&plan.program, &s, &d), None, "{ctx}");
        passed += 1;
        let mut m = plan.program.clone();
        if !mutate(&mut m, &mut rng) {
            continue;
        }
        let (a, b) = (sim_verdict(&m, &s, &d), model_verdict(&m, &s, &d));
        assert_eq!(a, b, "{ctx}\nmutant {m:?}");
        caught += a.is_some() as u32;
    }
    assert_eq!(passed, 300);
    // Most mutations break the program (some are harmless: a select whose
    // two operands are equal, a shuffle of a broadcast value).
    assert!(caught > 100, "{caught}");
}

/// A random straight-line program (valid or not): both executors give the
/// same contents for every slot of every lane, or both refuse it.
fn random_program(rng: &mut Rng) -> WarpProgram {
    let lanes = [4u32, 8, 32][rng.below(3) as usize];
    let lb = lanes.trailing_zeros() as u64;
    let bitwidth = [8u32, 16, 32][rng.below(3) as usize];
    let num_inputs = 1 + rng.below(4) as usize;
    let mut p = WarpProgram {
        lanes,
        bitwidth,
        num_inputs,
        num_slots: num_inputs,
        instrs: vec![],
        outputs: vec![],
    };
    for _ in 0..rng.below(12) {
        // Mostly slots already written; sometimes any slot (unwritten or
        // out of range) to exercise the errors.
        let any = |rng: &mut Rng, n: usize| {
            if rng.below(20) == 0 {
                rng.below(n as u64 + 2) as usize
            } else {
                rng.below(n as u64) as usize
            }
        };
        let n = p.num_slots;
        let dst = n;
        let ins = match rng.below(5) {
            0 => WarpInstr::Copy {
                dst,
                src: any(rng, n),
            },
            1 => WarpInstr::Shuffle {
                dst,
                src: any(rng, n),
                mode: if rng.below(2) == 0 {
                    ShflMode::Xor {
                        mask: rng.below(lanes as u64) as u32,
                    }
                } else {
                    ShflMode::Idx {
                        src_lane: LaneMap {
                            bases: (0..lb).map(|_| rng.below(lanes as u64) as u32).collect(),
                            constant: rng.below(lanes as u64) as u32,
                        },
                    }
                },
            },
            2 => WarpInstr::Select {
                dst,
                cond: if rng.below(2) == 0 {
                    LanePredicate::Parity {
                        mask: rng.below(lanes as u64) as u32,
                    }
                } else {
                    LanePredicate::Equals {
                        bases: (0..lb).map(|_| rng.below(4)).collect(),
                        value: rng.below(4),
                    }
                },
                if_true: any(rng, n),
                if_false: any(rng, n),
            },
            3 => WarpInstr::Pack {
                dst,
                parts: (0..1 + rng.below(4)).map(|_| any(rng, n)).collect(),
            },
            _ => {
                let k = 1 + rng.below(4) as usize;
                p.num_slots += k - 1;
                WarpInstr::Unpack {
                    dsts: (0..k).map(|i| dst + i).collect(),
                    src: any(rng, n),
                }
            }
        };
        p.num_slots += 1;
        p.instrs.push(ins);
    }
    p.outputs = (0..p.num_slots).collect();
    p
}

#[test]
fn executors_agree_on_random_programs() {
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let (mut ok, mut refused) = (0, 0);
    for n in 0..3000 {
        let p = random_program(&mut rng);
        let inputs: Vec<Vec<u64>> = (0..p.lanes as u64)
            .map(|l| (0..p.num_inputs as u64).map(|r| 100 * l + r).collect())
            .collect();
        let model = run_warp_program(&p, inputs.clone());
        let sim = execute_warp(&p, &inputs);
        match (model, sim) {
            (Ok(a), Ok(b)) => {
                let a: Vec<Vec<Option<Vec<u64>>>> =
                    a.into_iter().map(|l| l[..p.num_slots].to_vec()).collect();
                assert_eq!(a, b, "program {n}: {p:?}");
                ok += 1;
            }
            (Err(_), Err(_)) => refused += 1,
            (a, b) => panic!("program {n}: model {a:?}, simulator {b:?}\n{p:?}"),
        }
    }
    assert!(ok > 500 && refused > 200, "{ok} ran, {refused} refused");
}

/// 128 elements (1-D): src registers → elements 1, 2, lanes → 4..64;
/// dst registers → 1, 4, lanes → 2, 8..64: register bit 1 and lane bit 0
/// swap, one mixed transposition (Triton's shuffle class).
fn swap1() -> (LinearLayout, LinearLayout) {
    let mk = |regs: Vec<u64>, lane0: u64| {
        LinearLayout::new(
            vec![
                (REG, regs.into_iter().map(|r| vec![r]).collect()),
                (
                    LANE,
                    vec![vec![lane0], vec![8], vec![16], vec![32], vec![64]],
                ),
                (WARP, vec![]),
                (DimName::BLOCK, vec![]),
            ],
            vec![(DimName::dim(0), 128)],
            true,
        )
        .unwrap()
    };
    (mk(vec![1, 2], 4), mk(vec![1, 4], 2))
}

/// f16 swap1 by hand: register bit 0 is not in the transposition, so two
/// f16 elements pack into one word (2 `Pack`s), Ship exchanges the word
/// pair (select, one `shfl.bfly`, two selects), 2 `Unpack`s: 1 shuffle,
/// 3 selects, 4 prmt. The rounds plan needs 4 shuffles (one per
/// destination register), so `plan_conversion` now returns the program;
/// in f32 there is no packing (2 words of one element: 2 × (1 shuffle, 3
/// selects) = 2 shuffles, 6 selects, cost max(2, 6 / 2) = 3 < 4).
#[test]
fn plan_conversion_returns_the_cheaper_program() {
    let (s, d) = swap1();
    let plan = plan_conversion(&s, &d, 16).unwrap();
    assert_eq!(plan.kind_name(), "shuffle");
    assert!(matches!(plan, ConversionPlan::WarpProgram(_)), "{plan:?}");
    let rep = simulate(&plan, &s, &d).unwrap();
    assert_eq!((rep.shuffles, rep.selects, rep.prmt), (1, 3, 4));
    assert_eq!(rep.registers_checked, 32 * 4);
    let plan = plan_conversion(&s, &d, 32).unwrap();
    let rep = simulate(&plan, &s, &d).unwrap();
    assert_eq!((rep.shuffles, rep.selects, rep.prmt), (2, 6, 0));
    let program_cost = plan_cost(&rep, 1);
    assert_eq!(program_cost, 3.0);
    // 64-bit elements: the program planner does not split words; the rounds
    // plan (the paper's R = 4 rounds, one per destination register, some
    // of them from one's own lane) is the fallback. It is the same plan
    // for every bit width and costs more than the f32 program, which is
    // why the program was chosen above.
    let plan = plan_conversion(&s, &d, 64).unwrap();
    assert!(
        matches!(plan, ConversionPlan::WarpShuffle { .. }),
        "{plan:?}"
    );
    let rep = simulate(&plan, &s, &d).unwrap();
    assert_eq!(rep.shuffles + rep.register_moves, 4);
    assert_eq!(rep.prmt, 0);
    assert!(plan_cost(&rep, 1) > program_cost);
    // The JSON keeps the class in the plan's own tag.
    let json = serde_json::to_value(plan_conversion(&s, &d, 16).unwrap()).unwrap();
    assert_eq!(json["kind"], "warp_program");
    assert!(json["instrs"].as_array().is_some_and(|a| !a.is_empty()));
}

fn expect_wrong(p: &WarpProgram, s: &LinearLayout, d: &LinearLayout, what: &str) {
    match simulate(&ConversionPlan::WarpProgram(Box::new(p.clone())), s, d) {
        Err(CodegenError::WrongElement { .. }) => {}
        other => panic!("{what}: expected WrongElement, got {other:?}"),
    }
    // The warp model agrees on where.
    assert_eq!(sim_verdict(p, s, d), model_verdict(p, s, d), "{what}");
}

#[test]
fn mutants_fail_with_wrong_element() {
    let (s, d) = swap1();
    let good = shuffle_plan(&s, &d, 16).unwrap().program;
    assert_eq!(sim_verdict(&good, &s, &d), None);
    let find = |f: &dyn Fn(&WarpInstr) -> bool| good.instrs.iter().position(f).unwrap();
    // Wrong shuffle lane: read lane l ^ 2 instead of l ^ 1.
    let mut m = good.clone();
    let k = find(&|i| matches!(i, WarpInstr::Shuffle { .. }));
    match &mut m.instrs[k] {
        WarpInstr::Shuffle {
            mode: ShflMode::Xor { mask },
            ..
        } => *mask ^= 3,
        WarpInstr::Shuffle {
            mode: ShflMode::Idx { src_lane },
            ..
        } => src_lane.constant ^= 2,
        _ => unreachable!(),
    }
    expect_wrong(&m, &s, &d, "wrong shuffle lane");
    // Wrong select: the first select's operands swapped.
    let mut m = good.clone();
    let k = find(&|i| matches!(i, WarpInstr::Select { .. }));
    if let WarpInstr::Select {
        if_true, if_false, ..
    } = &mut m.instrs[k]
    {
        std::mem::swap(if_true, if_false);
    }
    expect_wrong(&m, &s, &d, "wrong select");
    // Wrong pack order: the first word packed high part first.
    let mut m = good.clone();
    let k = find(&|i| matches!(i, WarpInstr::Pack { .. }));
    if let WarpInstr::Pack { parts, .. } = &mut m.instrs[k] {
        parts.reverse();
    }
    expect_wrong(&m, &s, &d, "wrong pack order");
    // An output left packed (a word of two elements) is a wrong element
    // whose found value lists both.
    let mut m = good.clone();
    let k = find(&|i| matches!(i, WarpInstr::Pack { .. }));
    let WarpInstr::Pack { dst, .. } = m.instrs[k] else {
        unreachable!()
    };
    m.outputs[0] = dst;
    match simulate(&ConversionPlan::WarpProgram(Box::new(m)), &s, &d) {
        Err(CodegenError::WrongElement {
            register: 0, found, ..
        }) => assert_eq!(found.map(|f| f.len()), Some(2)),
        other => panic!("packed output: {other:?}"),
    }
}

/// Malformed programs are errors that name the problem, never panics.
#[test]
fn malformed_programs_are_errors() {
    let (s, d) = swap1();
    let good = shuffle_plan(&s, &d, 16).unwrap().program;
    let err = |p: WarpProgram| {
        simulate(&ConversionPlan::WarpProgram(Box::new(p)), &s, &d)
            .unwrap_err()
            .to_string()
    };
    let mut m = good.clone();
    m.lanes = 16;
    assert!(err(m).contains("16-lane"));
    let mut m = good.clone();
    m.outputs.pop();
    assert!(err(m).contains("yields 3 registers"));
    let mut m = good.clone();
    m.outputs[1] = 10_000;
    assert!(err(m).contains("slot 10000"));
    let mut m = good.clone();
    m.instrs.insert(
        0,
        WarpInstr::Shuffle {
            dst: 0,
            src: 1,
            mode: ShflMode::Idx {
                src_lane: LaneMap {
                    bases: vec![0; 5],
                    constant: 40,
                },
            },
        },
    );
    assert!(err(m).contains("reads lane 40"));
    let mut m = good;
    m.bitwidth = 12;
    assert!(err(m).contains("12"));
}

/// `WarpProgram::trace` (used by layout-view to draw a program's path)
/// names, for every destination register of every lane, a source register
/// and lane that hold the destination's element (checked with the layouts
/// evaluated directly), and a shuffle exactly when the lane changes.
#[test]
fn trace_finds_the_source_of_every_register() {
    use layout_codegen::shuffle::hw_apply;
    let mut rng = Rng(0x7a3c_91e5_2b6d_0f48);
    for n in 0..150 {
        let (s, d) = random_pair(&mut rng);
        let bw = [8, 16, 32][n % 3];
        let p = shuffle_plan(&s, &d, bw).unwrap().program;
        for lane in 0..p.lanes {
            for r in 0..p.outputs.len() {
                let t = p
                    .trace(r, lane)
                    .unwrap_or_else(|| panic!("pair {n}: no trace for r{r} lane {lane}"));
                for w in 0..s.in_dim_size(WARP) {
                    assert_eq!(
                        hw_apply(&s, t.src_register, t.src_lane as u64, w, 0),
                        hw_apply(&d, r as u64, lane as u64, w, 0),
                        "pair {n}: r{r} lane {lane} warp {w}\nsrc {s}\ndst {d}"
                    );
                }
                if t.src_lane != lane {
                    assert!(t.shuffle.is_some(), "pair {n}");
                }
            }
        }
    }
}

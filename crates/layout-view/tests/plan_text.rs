//! The plan printer says what the plan does: on the oracle's conversion
//! pairs, every printed `st.shared`/`ld.shared` line, read back with the
//! notation of the module docs (`c ^ lane[i]·x ^ warp[k]·y`), gives the
//! plan's registers and, for every lane and warp, the address the plan's
//! own `Address::eval` gives; register permutations print one line per
//! destination register.

use layout_codegen::choice::plan_conversion;
use layout_codegen::plan::{Access, ConversionPlan};
use layout_view::plan_text::plan_text;
use linear_layout::LinearLayout;
use serde_json::Value;

/// Reads `v<n> r[a, b, ...] @ <address>` back: registers and the address
/// as a function of (lane, warp).
fn parse_access(s: &str) -> (Vec<u64>, impl Fn(u64, u64) -> u64) {
    let (regs, addr) = s.split_once(" @ ").unwrap();
    let (n, list) = regs.split_once(" r[").unwrap();
    let regs: Vec<u64> = list
        .trim_end_matches(']')
        .split(", ")
        .filter(|x| !x.is_empty())
        .map(|x| x.parse().unwrap())
        .collect();
    assert_eq!(n, format!("v{}", regs.len()));
    let mut constant = 0;
    let mut terms: Vec<(bool, u32, u64)> = Vec::new(); // (is lane, bit, value)
    for t in addr.split(" ^ ") {
        match t.split_once('·') {
            None => constant ^= t.parse::<u64>().unwrap(),
            Some((var, v)) => {
                let (name, bit) = var.trim_end_matches(']').split_once('[').unwrap();
                terms.push((name == "lane", bit.parse().unwrap(), v.parse().unwrap()));
            }
        }
    }
    let f = move |lane: u64, warp: u64| {
        terms
            .iter()
            .filter(|(is_lane, bit, _)| (if *is_lane { lane } else { warp }) >> bit & 1 == 1)
            .fold(constant, |acc, (_, _, v)| acc ^ v)
    };
    (regs, f)
}

fn check(printed: &str, a: &Access) {
    let (regs, f) = parse_access(printed);
    assert_eq!(regs, a.registers);
    for lane in 0..32 {
        for warp in 0..8 {
            assert_eq!(f(lane, warp), a.address.eval(lane, warp), "{printed}");
        }
    }
}

#[test]
fn printed_plans_read_back_as_the_plans() {
    let path = format!(
        "{}/../../tests/data/triton-oracle/sample-trivial-cvt.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let (mut shared, mut perms) = (0, 0);
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let rec: Value = serde_json::from_str(line).unwrap();
        let shape: Vec<u64> = rec["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        let src = LinearLayout::from_json(&rec["src"]["linear"], Some(&shape)).unwrap();
        let dst = LinearLayout::from_json(&rec["dst"]["linear"], Some(&shape)).unwrap();
        let Ok(plan) = plan_conversion(&src, &dst, 16) else {
            continue;
        };
        let text = plan_text(&plan);
        assert!(text.starts_with("plan: ") || text.starts_with("note: "));
        match &plan {
            ConversionPlan::SharedMemory(p) => {
                let stores: Vec<&str> = text
                    .lines()
                    .filter_map(|l| l.strip_prefix("    st.shared "))
                    .collect();
                let loads: Vec<&str> = text
                    .lines()
                    .filter_map(|l| l.strip_prefix("    ld.shared "))
                    .collect();
                let all_st: Vec<&Access> = p.rounds.iter().flat_map(|r| &r.stores).collect();
                let all_ld: Vec<&Access> = p.rounds.iter().flat_map(|r| &r.loads).collect();
                assert_eq!(stores.len(), all_st.len());
                assert_eq!(loads.len(), all_ld.len());
                for (s, a) in stores.iter().zip(all_st).chain(loads.iter().zip(all_ld)) {
                    check(s, a);
                }
                assert_eq!(
                    text.matches("    barrier").count(),
                    p.rounds.len(),
                    "one barrier per round"
                );
                shared += 1;
            }
            ConversionPlan::RegisterPermutation { src_register } => {
                let lines: Vec<&str> = text.lines().skip(1).collect();
                let want: Vec<String> = src_register
                    .iter()
                    .enumerate()
                    .map(|(i, s)| format!("  r{i} <- r{s}"))
                    .collect();
                assert_eq!(lines, want);
                perms += 1;
            }
            _ => {}
        }
    }
    assert!(
        shared >= 5 && perms >= 1,
        "{shared} shared, {perms} register plans"
    );
}

#[test]
fn word_programs_print_their_lane_dependent_selectors_compactly() {
    use layout_codegen::packed_shuffle::WordProgram;
    use layout_codegen::shuffle::shuffle_plan;
    use layout_view::plan_text::word_program_text;
    use linear_layout::{DimName, LinearLayout};
    let (reg, lane, d0) = (DimName::REGISTER, DimName::LANE, DimName::dim(0));
    // 2 registers -> elements 0, 1; lanes -> elements 2..64; the
    // destination exchanges register bit 0 and lane bit 0.
    let src = LinearLayout::identity_1d(2, reg, d0) * LinearLayout::identity_1d(32, lane, d0);
    let dst = LinearLayout::new(
        vec![
            (reg, vec![vec![2]]),
            (lane, vec![vec![1], vec![4], vec![8], vec![16], vec![32]]),
        ],
        vec![(d0, 64)],
        true,
    )
    .unwrap();
    let plan = shuffle_plan(&src, &dst, 16).unwrap();
    let words = WordProgram::from_program(&plan.program).unwrap();
    let text = word_program_text(&words);
    // One whole word to lane ^ 1, then one permute `prmt(own, partner)`
    // whose selector depends on lane bit 0 only. Destination lane 2m holds
    // elements 4m (own low half: bytes 0, 1) and 4m + 2 (the partner's low
    // half: bytes 4, 5): 0x5410. Lane 2m + 1 holds 4m + 1 (the partner's
    // high half: bytes 6, 7) and 4m + 3 (own high half: bytes 2, 3):
    // 0x3276.
    assert!(
        text.starts_with("plan: warp program on packed 32-bit words, 2 instructions (1 shfl.sync, 1 prmt), 16-bit elements\n"),
        "{text}"
    );
    assert!(text.contains("shfl.bfly(w0, lane ^ 1)"), "{text}");
    assert!(
        text.contains("sel(lane bits [0]) = [0x5410, 0x3276]"),
        "{text}"
    );
}

/// A plan with `stmatrix` / `ldmatrix` accesses prints each as what it is
/// (instruction, count, `.trans`), with registers and row addresses that
/// read back as the plan's own.
#[test]
fn matrix_accesses_print_as_matrix_instructions() {
    use layout_codegen::planner::{plan_with, PlanOptions, Target};
    let shape = [64u64, 64];
    let ll = |attr: &str| {
        hw_layouts::Encoding::parse(attr)
            .and_then(|e| e.to_linear_layout(&shape))
            .unwrap()
    };
    let src = ll("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>");
    let dst = ll("#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 4], order = [0, 1]}>");
    let p = plan_with(&src, &dst, 16, &Target::SM90, &PlanOptions::matrix_only()).unwrap();
    let Some(ConversionPlan::SharedMemory(sm)) = p.lowering.whole() else {
        panic!("a shared-memory plan");
    };
    let text = plan_text(p.lowering.whole().unwrap());
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| l.contains(" @ "))
        .collect();
    let accesses: Vec<(&Access, bool)> = sm.rounds[0]
        .stores
        .iter()
        .map(|a| (a, true))
        .chain(sm.rounds[0].loads.iter().map(|a| (a, false)))
        .collect();
    assert_eq!(lines.len(), accesses.len());
    let mut matrix = 0;
    for (line, (a, store)) in lines.iter().zip(&accesses) {
        let (op, rest) = line.split_once(" r[").unwrap();
        match a.matrix {
            None => {
                assert_eq!(
                    op.split(' ').next().unwrap(),
                    if *store { "st.shared" } else { "ld.shared" }
                );
                check(line.split_once(' ').unwrap().1, a);
            }
            Some(m) => {
                matrix += 1;
                let want = format!(
                    "{}.x{}{}",
                    if *store { "stmatrix" } else { "ldmatrix" },
                    m.count,
                    if m.trans { ".trans" } else { "" }
                );
                assert_eq!(op, want, "{line}");
                let vector = format!(
                    "v{} r[{}",
                    a.registers.len(),
                    rest.replacen(" @ row ", " @ ", 1)
                );
                check(&vector, a);
            }
        }
    }
    assert!(matrix > 0, "{text}");
}

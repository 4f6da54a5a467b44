//! End-to-end CPU run of whole generated gather programs (kernel *and*
//! host `main`): a stand-in `cuda_runtime.h` runs every CUDA thread as a
//! `std::thread`, `__syncthreads` and each `__shfl_sync` as barriers (a
//! shuffle writes the lane's value, waits for the warp, reads the source
//! lane, waits again), and `bench<<<g, t, s>>>(…)` as a loop over blocks.
//! The program's own host reference then checks every element, so this
//! executes the emitted C++ exactly as written (only the launch syntax is
//! rewritten). Needs `g++` with C++20 (`<barrier>`); without it the test
//! says so and checks nothing. Two small cases run by default, all suite
//! cases with `--ignored`.

use layout_cuda::gather::{cases_of, emit_gather_benchmark, suite_specs, GatherCase};
mod emu;
use emu::{have_gxx, run_case};

fn check(case: &GatherCase, code: &str) {
    let (success, out) = run_case(&case.name, code);
    assert!(success, "{}: {out}", case.name);
    let line = out
        .lines()
        .find(|l| l.starts_with('{'))
        .unwrap_or_else(|| panic!("{}: no JSON line in {out}", case.name));
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    assert_eq!(v["case"], case.name.as_str());
    assert_eq!(v["ok"], true, "{}: {out}", case.name);
    assert_eq!(v["R"], 3);
}

#[test]
fn small_generated_gather_programs_run_correctly_on_the_cpu() {
    if !have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    let [shfl, _] = cases_of(&suite_specs()[0]).unwrap();
    let [_, smem] = cases_of(&suite_specs()[2]).unwrap();
    for case in [shfl, smem] {
        let code = emit_gather_benchmark(&case).unwrap().code;
        check(&case, &code);
    }
}

#[test]
fn a_wrong_source_lane_fails_the_programs_own_check() {
    if !have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    // Mutation: the 16-bit case's source lane takes index bits 2..4 to lane
    // bits 0..2; shift them to lane bits 1..3 in the first index register.
    // The program must report ok: false (exit status 3).
    let [shfl, _] = cases_of(&suite_specs()[2]).unwrap();
    let code = emit_gather_benchmark(&shfl).unwrap().code;
    let bad = code.replacen("(((v >> 2) & 7u) << 0)", "(((v >> 2) & 7u) << 1)", 1);
    assert_ne!(bad, code);
    let dir_case = GatherCase {
        name: "mutated".into(),
        ..shfl
    };
    let (success, out) = run_case(&dir_case.name, &bad);
    assert!(!success, "{out}");
    assert!(out.contains("# mismatch at"), "{out}");
    assert!(out.contains("\"ok\": false"), "{out}");
}

#[test]
#[ignore = "compiles all 12 suite programs (about a minute)"]
fn all_generated_gather_programs_run_correctly_on_the_cpu() {
    assert!(have_gxx(), "needs g++");
    for spec in suite_specs() {
        for case in cases_of(&spec).unwrap() {
            let code = emit_gather_benchmark(&case).unwrap().code;
            check(&case, &code);
        }
    }
}

//! Staged programs (`Lowering::Staged`: a regroup of 8/16-bit elements by
//! `shfl.sync.bfly` and `__byte_perm`, then a plan of whole words) run in
//! the CPU emulation (`emu`) and pass the forward element check (every
//! destination register of every thread, stored by the destination
//! layout). Planted: a wrong shuffle partner and a wrong byte selector in
//! the emitted regroup; each must fail the check.

use hw_layouts::Encoding;
use layout_codegen::plan_options::{Allow, PlanOptions};
use layout_cuda::{device_fn, emit_benchmark_planned, ConversionCase};
use linear_layout::LinearLayout;
mod emu;
use emu::{check, have_gxx, run_case};

fn layout(enc: &str, shape: &[u64]) -> LinearLayout {
    Encoding::parse(enc)
        .unwrap()
        .to_linear_layout(shape)
        .unwrap()
}

/// `ho_blocked_T16_128x64_f8` of `bench/gpu/cases.toml` (`bits` wide).
fn named_case(name: &str, bits: u32) -> ConversionCase {
    let shape = [128u64, 64];
    let src = layout(
        "#ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>",
        &shape,
    );
    let dst = layout(
        "#ttg.blocked<{sizePerThread = [16, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 4], order = [0, 1]}>",
        &shape,
    );
    ConversionCase {
        name: name.into(),
        shape: shape.to_vec(),
        bits,
        num_warps: 4,
        smem: layout_cuda::gather::row_major_smem(&shape),
        src,
        dst,
        options: PlanOptions::whole(),
    }
}

/// The forward conversion's regroup word program in `code` (its shuffles and
/// byte selectors).
fn regroup_fn(code: &str) -> &str {
    let start = code
        .find("void cvt_fwd_regroup_words(")
        .expect("regroup word function");
    let end = start + code[start..].find("\n}\n").expect("function end");
    &code[start..end]
}

#[test]
fn named_pair_program_is_staged_and_passes_the_forward_check() {
    let case = named_case("staged_f8", 8);
    let b = emit_benchmark_planned(&case).unwrap();
    assert_eq!(b.plans.0.lowering.kind_name(), "staged");
    assert_eq!(b.plans.1.lowering.kind_name(), "staged");
    assert!(b.code.contains("__byte_perm"));
    // The device function a user calls is the staged plan too.
    let f = device_fn::device_function(&case).unwrap();
    assert!(
        f.code.contains("_regroup("),
        "no regroup in the device function"
    );
    if !have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    check("staged_f8", &b.code);
    // The committed suite program of the pair is this program.
    let committed = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../bench/gpu/generated/ho_blocked_T16_128x64_f8.cu"
    ))
    .unwrap();
    assert!(committed.contains("cvt_fwd_regroup("));
    check("ho_blocked_T16_128x64_f8", &committed);
    // 16-bit: the default takes a plan through ldmatrix/stmatrix .trans
    // (cheaper); the staged plan, without matrix instructions, runs too.
    let mut c16 = named_case("staged_f16", 16);
    c16.options = PlanOptions {
        matrix: Allow::Never,
        ..PlanOptions::whole()
    };
    let b16 = emit_benchmark_planned(&c16).unwrap();
    assert_eq!(b16.plans.0.lowering.kind_name(), "staged");
    check("staged_f16", &b16.code);
    let m16 = emit_benchmark_planned(&named_case("matrix_f16", 16)).unwrap();
    assert!(m16.code.contains("ldmatrix_x4_trans") || m16.code.contains("stmatrix_x4_trans"));
    check("matrix_f16", &m16.code);
}

#[test]
fn a_wrong_partner_or_selector_in_the_regroup_fails() {
    if !have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    let code = emit_benchmark_planned(&named_case("staged_bad", 8))
        .unwrap()
        .code;
    let f = regroup_fn(&code);
    // A wrong shuffle partner: the exchange with lane ^ 1 reads lane ^ 2.
    let shfl = f.replacen(", 1);", ", 2);", 1);
    assert_ne!(shfl, f, "no exchange with lane ^ 1 in {f}");
    // A wrong byte selector: the first selector table's constant for the
    // lanes of group 0 takes byte 1 where byte 0 belongs.
    let sel = f.replacen("0x6240u", "0x6241u", 1);
    assert_ne!(sel, f, "no selector 0x6240 in {f}");
    for (what, bad) in [("partner", shfl), ("selector", sel)] {
        let planted = code.replacen(f, &bad, 1);
        let name = format!("staged_bad_{what}");
        let (success, out) = run_case(&name, &planted);
        assert!(
            !success && out.contains("\"ok\": false"),
            "{what}: a wrong regroup passed the forward check: {out}"
        );
    }
}

//! End-to-end CPU run of whole generated conversion programs that use
//! `stmatrix`/`ldmatrix` (matrix accesses of the planner's plans, `layout_cuda::translate`).
//! The harness is the one of `gather_emulated.rs` (one `std::thread` per
//! CUDA thread, barriers for `__syncthreads`); the stand-in header adds CPU
//! versions of the matrix wrappers that implement the warp-collective PTX
//! semantics independently of the planner: each lane publishes its row
//! address, the warp waits, each lane moves its own elements by the PTX ISA
//! fragment rule, the warp waits again. The program's own host reference
//! checks every element. Needs `g++` with C++20.

use hw_layouts::Encoding;
use layout_codegen::plan::{ConversionPlan, MatrixInstruction};
use layout_codegen::plan_options::PlanOptions;
use layout_codegen::planner::{plan_with, Target};
use layout_codegen::shared_conversion::plan_shared_matrix;
use layout_codegen::simulator::simulate;
use layout_cuda::{emit_benchmark, ConversionCase, Path};
mod emu;
use emu::{check, have_gxx, run_case};

const BLK_ROW: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";
const BLK_COL: &str = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>";
const MMA2: &str = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>";
const DOT_B: &str = "#ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>";
const WGMMA: &str = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>";

fn case(name: &str, shape: [u64; 2], src: &str, dst: &str) -> ConversionCase {
    let src = Encoding::parse(src)
        .unwrap()
        .to_linear_layout(&shape)
        .unwrap();
    let dst = Encoding::parse(dst)
        .unwrap()
        .to_linear_layout(&shape)
        .unwrap();
    // Not read: the planner chooses the shared layout of the matrix plan.
    let smem = layout_cuda::gather::row_major_smem(&shape);
    ConversionCase {
        name: name.into(),
        shape: shape.to_vec(),
        bits: 16,
        num_warps: 4,
        src,
        dst,
        smem,
        options: layout_codegen::plan_options::PlanOptions::matrix_only(),
    }
}

fn cases() -> Vec<ConversionCase> {
    vec![
        case("mx_blocked_T_64x64", [64, 64], BLK_ROW, BLK_COL),
        case("mx_blocked_to_mma2_64x64", [64, 64], BLK_ROW, MMA2),
        case("mx_mma2_to_blocked_64x64", [64, 64], MMA2, BLK_ROW),
        case("mx_wgmma_to_blocked_64x128", [64, 128], WGMMA, BLK_ROW),
        // The planner's matrix plan loads the B operand by ldmatrix
        // without .trans.
        case("mx_mma2_to_dotB_64x64", [64, 64], MMA2, DOT_B),
    ]
}

#[test]
fn matrix_path_programs_run_correctly_on_the_cpu() {
    if !have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    for c in cases() {
        let (code, fwd, bwd) = emit_benchmark(&c).unwrap();
        assert_eq!((fwd, bwd), (Path::SharedMemory, Path::SharedMemory));
        assert!(
            code.contains("stmatrix_x") && code.contains("ldmatrix_x"),
            "{}: no matrix instruction emitted",
            c.name
        );
        check(&c.name, &code);
    }
}

/// Swaps the two halves of the first `stmatrix` operand: the program must
/// then fail its own check.
fn swap_first_operand_halves(code: &str) -> String {
    let at = code.find("  stmatrix_x").expect("a stmatrix call");
    let line_end = at + code[at..].find('\n').unwrap();
    let line = &code[at..line_end];
    let p = line.find("(uint32_t)a[").unwrap();
    let rest = &line[p + "(uint32_t)a[".len()..];
    let x = &rest[..rest.find(']').unwrap()];
    let q = rest.find(" | ((uint32_t)a[").unwrap();
    let rest2 = &rest[q + " | ((uint32_t)a[".len()..];
    let y = &rest2[..rest2.find(']').unwrap()];
    let old = format!("(uint32_t)a[{x}] | ((uint32_t)a[{y}] << 16)");
    let new = format!("(uint32_t)a[{y}] | ((uint32_t)a[{x}] << 16)");
    assert!(line.contains(&old), "{line}");
    let new_line = line.replacen(&old, &new, 1);
    format!("{}{}{}", &code[..at], new_line, &code[line_end..])
}

#[test]
fn a_wrong_register_order_fails_the_programs_own_check() {
    if !have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    let c = cases().remove(0);
    let (code, _, _) = emit_benchmark(&c).unwrap();
    let bad = swap_first_operand_halves(&code);
    assert_ne!(bad, code);
    let (success, out) = run_case("mx_mutated", &bad);
    assert!(!success, "{out}");
    assert!(out.contains("# mismatch at"), "{out}");
    assert!(out.contains("\"ok\": false"), "{out}");
}

#[test]
fn the_cases_cover_both_instructions_with_and_without_trans() {
    let mut seen = std::collections::BTreeSet::new();
    for c in cases() {
        let (code, _, _) = emit_benchmark(&c).unwrap();
        for op in [
            "stmatrix_x4(",
            "stmatrix_x4_trans(",
            "ldmatrix_x4(",
            "ldmatrix_x4_trans(",
        ] {
            if code.contains(&format!("  {op}")) || code.contains(&format!("; {op}")) {
                seen.insert(op);
            }
        }
    }
    assert_eq!(seen.len(), 4, "{seen:?}");
}

/// Row-major 64 × 64 f16 shared tile (a row is 128 B): the `.trans` load of
/// the column-blocked layout (destination) reads, per matrix, 8 rows of one 8-column
/// block from 8 different tile rows, all starting at the same bank (row
/// stride 128 B ≡ 0 mod 128 B), so each matrix costs 8 wavefronts; the
/// searched layout must reach 1 per matrix. 64 × 64 / (4 warps · 32 lanes)
/// = 32 elements per thread = 4 x4 instructions = 16 matrices per warp, 64
/// for 4 warps.
#[test]
fn matrix_wavefronts_count_conflicting_rows() {
    let shape = [64u64, 64];
    let src = Encoding::parse(BLK_ROW)
        .unwrap()
        .to_linear_layout(&shape)
        .unwrap();
    let dst = Encoding::parse(BLK_COL)
        .unwrap()
        .to_linear_layout(&shape)
        .unwrap();
    let row_major = layout_cuda::gather::row_major_smem(&[64, 64]);
    let through_row_major = plan_shared_matrix(&src, &dst, 16, Some(&row_major)).unwrap();
    let report = simulate(
        &ConversionPlan::SharedMemory(Box::new(through_row_major.clone())),
        &src,
        &dst,
    )
    .unwrap();
    assert!(
        through_row_major.rounds[0].loads.iter().all(|a| a.matrix
            == Some(MatrixInstruction {
                count: 4,
                trans: true
            })),
        "ldmatrix.x4.trans tiles dst"
    );
    assert_eq!(report.load_wavefronts, 8 * 64);
    // The planner's matrix plan puts a matrix instruction on at least one
    // side, both conflict-free: 64 matrices (or, on a vector side, 2 phases
    // of 16 lanes × 8 accesses per thread × 4 warps = 64).
    let p = plan_with(&src, &dst, 16, &Target::SM90, &PlanOptions::matrix_only()).unwrap();
    assert_eq!((p.cost.store_wavefronts, p.cost.load_wavefronts), (64, 64));
}

#[test]
fn a_wrong_ldmatrix_half_fails_the_programs_own_check() {
    if !have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    // Mutation on the load side: the first ldmatrix operand's low element
    // takes the high half instead.
    let c = cases().remove(1);
    let (code, _, _) = emit_benchmark(&c).unwrap();
    let bad = code.replacen("(w0_ & 0xffffu)", "(w0_ >> 16)", 1);
    assert_ne!(bad, code);
    let (success, out) = run_case("mx_mutated_ld", &bad);
    assert!(!success, "{out}");
    assert!(out.contains("\"ok\": false"), "{out}");
}

#[test]
#[ignore = "the suite's _mx configurations (128 × 128, 8 warps): a few minutes in debug"]
fn suite_sized_matrix_programs_run_correctly_on_the_cpu() {
    assert!(have_gxx(), "needs g++");
    const BLK_ROW8: &str = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>";
    const BLK_COL8: &str = "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 8], order = [0, 1]}>";
    let specs: [(&str, [u64; 2], u32, &str, &str); 5] = [
        ("sx_blocked_T_128x256_w8", [128, 256], 8, BLK_ROW8, BLK_COL8),
        ("sx_blocked_to_mma2_128x128", [128, 128], 4, BLK_ROW, MMA2),
        ("sx_blocked_to_wgmma_128x128", [128, 128], 4, BLK_ROW, WGMMA),
        ("sx_wgmma_to_blocked_128x128", [128, 128], 4, WGMMA, BLK_ROW),
        ("sx_mma2_to_blocked_128x128", [128, 128], 4, MMA2, BLK_ROW),
    ];
    for (name, shape, nw, s, d) in specs {
        let src = Encoding::parse(s)
            .unwrap()
            .to_linear_layout(&shape)
            .unwrap();
        let dst = Encoding::parse(d)
            .unwrap()
            .to_linear_layout(&shape)
            .unwrap();
        let smem = layout_cuda::gather::row_major_smem(&shape);
        let c = ConversionCase {
            name: name.into(),
            shape: shape.to_vec(),
            bits: 16,
            num_warps: nw,
            src,
            dst,
            smem,
            options: layout_codegen::plan_options::PlanOptions::matrix_only(),
        };
        let (code, _, _) = emit_benchmark(&c).unwrap();
        assert!(code.contains("matrix_x4"), "{name}");
        check(name, &code);
    }
}

/// Vector-path programs (ld/st.shared, the shared layout of the paper's
/// construction): the swizzled addresses are emitted as `(o ^ c_x) + c_a`
/// (`access::xor_as_add`); a wrong split would move elements to the wrong
/// slots and the program's own check would fail.
#[test]
fn vector_path_programs_with_split_addresses_run_correctly_on_the_cpu() {
    if !have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    let mut split_seen = false;
    let mut packed_seen = false;
    for (name, shape, bits, src, dst) in [
        (
            "vec_blocked_T_64x64_f32",
            [64u64, 64u64],
            32u32,
            BLK_ROW,
            BLK_COL,
        ),
        ("vec_blocked_T_64x64_f16", [64, 64], 16, BLK_ROW, BLK_COL),
        ("vec_mma2_to_blocked_64x64_f32", [64, 64], 32, MMA2, BLK_ROW),
        // Both layouts pair the same 16-bit elements: the packed kernel body.
        ("vec_mma2_to_blocked_64x64_f16", [64, 64], 16, MMA2, BLK_ROW),
    ] {
        let src = Encoding::parse(src)
            .unwrap()
            .to_linear_layout(&shape)
            .unwrap();
        let dst = Encoding::parse(dst)
            .unwrap()
            .to_linear_layout(&shape)
            .unwrap();
        let smem = layout_cuda::gather::row_major_smem(&shape);
        let c = ConversionCase {
            name: name.into(),
            shape: shape.to_vec(),
            bits,
            num_warps: 4,
            src,
            dst,
            smem,
            options: layout_codegen::plan_options::PlanOptions::shared_only(),
        };
        let (code, fwd, _) = emit_benchmark(&c).unwrap();
        assert_eq!(fwd, Path::SharedMemory);
        split_seen |= code.contains("_ ^ ") && code.contains("u) + ");
        packed_seen |= code.contains("add_u16x2(bw[j]");
        check(name, &code);
    }
    assert!(
        split_seen,
        "no case exercised an address with both a XOR and an added part"
    );
    assert!(
        packed_seen,
        "no case exercised the packed 16-bit kernel body"
    );
}

/// Every committed conversion program of the GPU suite
/// (`bench/gpu/generated/*.cu`, gather programs aside) run on the CPU: the
/// programs' own host check must pass. Run before a GPU run, after
/// regenerating the suite.
#[test]
#[ignore = "compiles every generated conversion program (several minutes)"]
fn generated_suite_programs_run_correctly_on_the_cpu() {
    assert!(have_gxx(), "needs g++");
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/gpu/generated");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".cu") && !n.starts_with("gather_") && !n.starts_with("partial_"))
        .collect();
    names.sort();
    assert!(names.len() >= 16, "{names:?}");
    for n in names {
        let code = std::fs::read_to_string(format!("{dir}/{n}")).unwrap();
        check(n.trim_end_matches(".cu"), &code);
    }
}

/// The emitter packs `ldmatrix` / `stmatrix` operands of 16-bit elements
/// only and refuses 8- and 32-bit matrix plans, which is why the default
/// planner takes matrix plans of 16-bit elements only
/// (`layout_codegen::planner::MATRIX_DEFAULT_BITS`); asked for one, it says
/// so instead of emitting a wrong program.
#[test]
fn eight_and_thirty_two_bit_matrix_plans_are_refused_by_name() {
    let blk16 = "#ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>";
    let dot_a_k4 = "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 4}>";
    for (bits, src, dst) in [(8, blk16, dot_a_k4), (32, MMA2, BLK_ROW)] {
        let mut c = case("mx_other_width", [64, 64], src, dst);
        c.bits = bits;
        let e = emit_benchmark(&c).unwrap_err();
        assert!(
            e.to_string()
                .contains(&format!("stmatrix/ldmatrix of {bits}-bit elements")),
            "{e}"
        );
        // The default request plans the pair without them, and emits.
        c.options = PlanOptions::whole();
        let (code, _, _) = emit_benchmark(&c).unwrap();
        assert!(!code.contains("stmatrix_x") && !code.contains("ldmatrix_x"));
    }
}

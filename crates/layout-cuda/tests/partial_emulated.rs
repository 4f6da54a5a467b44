//! End-to-end CPU run of whole generated partial cross-warp programs
//! (`layout_cuda::partial`): the harness of `matrix_emulated.rs` (one
//! `std::thread` per CUDA thread, barriers for `__syncthreads` and every
//! `__shfl_sync`), without the matrix wrappers. The program's own host
//! reference checks every element (R = 3, 2 tiles); mutations of the
//! emitted code must make that check fail. Needs `g++` with C++20.

use hw_layouts::Encoding;
use layout_codegen::partial::WarpClass;
use layout_codegen::plan_options::{PlanOptions, SplitForm};
use layout_codegen::planner::Target;
use layout_codegen::round_trip::plan_partial_round_trip;
use layout_cuda::gather::row_major_smem;
use layout_cuda::partial::{
    emit_partial_benchmark, emit_partial_planned, emit_predicated_partial_benchmark,
    emit_transposed_partial_benchmark,
};
use layout_cuda::ConversionCase;
use linear_layout::{DimName, LinearLayout};
mod emu;
use emu::{check, have_gxx, run_case};

fn blocked(tpw: [u64; 2], wpc: [u64; 2], order: [u64; 2]) -> String {
    format!(
        "#ttg.blocked<{{sizePerThread = [1, 4], threadsPerWarp = [{}, {}], warpsPerCTA = [{}, {}], order = [{}, {}]}}>",
        tpw[0], tpw[1], wpc[0], wpc[1], order[0], order[1]
    )
}

/// The shared layout of a case.
#[derive(Clone, Copy)]
enum Smem {
    Swizzled,
    RowMajor,
    /// Consecutive offsets down a column: a shared word holds elements of
    /// two source lanes, so 16-bit elements stay unpacked.
    ColumnMajor,
}

fn case(
    name: &str,
    shape: [u64; 2],
    bits: u32,
    src: &str,
    dst: &str,
    smem: Smem,
) -> ConversionCase {
    let ll = |a: &str| {
        Encoding::parse(a)
            .unwrap()
            .to_linear_layout(&shape)
            .unwrap()
    };
    let (src, dst) = (ll(src), ll(dst));
    let smem = match smem {
        Smem::Swizzled => {
            layout_codegen::swizzle_search::search_shared_layout(&src, &dst, bits, 32)
                .expect("a swizzle")
                .0
        }
        Smem::RowMajor => row_major_smem(&shape),
        Smem::ColumnMajor => {
            let id = LinearLayout::identity_1d;
            let (o, d0, d1) = (DimName::OFFSET, DimName::dim(0), DimName::dim(1));
            id(shape[0], o, d0) * id(shape[1], o, d1)
        }
    };
    ConversionCase {
        name: name.into(),
        shape: shape.to_vec(),
        bits,
        num_warps: 4,
        src,
        dst,
        smem,
        options: layout_codegen::plan_options::PlanOptions::whole(),
    }
}

fn cases() -> Vec<ConversionCase> {
    let b22 = blocked([8, 4], [2, 2], [1, 0]);
    vec![
        // Register moves only (a quarter stays).
        case(
            "p_b22_b41_f16",
            [128, 128],
            16,
            &b22,
            &blocked([8, 4], [4, 1], [1, 0]),
            Smem::RowMajor,
        ),
        // Half stays, by register moves.
        case(
            "p_b22_b14_f32",
            [64, 64],
            32,
            &b22,
            &blocked([8, 4], [1, 4], [1, 0]),
            Smem::Swizzled,
        ),
        // Half stays, by shuffles (packed two per shfl for f16).
        case(
            "p_b22_b14o_f16",
            [64, 64],
            16,
            &b22,
            &blocked([8, 4], [1, 4], [0, 1]),
            Smem::Swizzled,
        ),
        case(
            "p_b22_b14o_f32",
            [64, 128],
            32,
            &b22,
            &blocked([8, 4], [1, 4], [0, 1]),
            Smem::RowMajor,
        ),
        // The same through column-major shared memory: unpacked
        // elements, two per shfl.sync.
        case(
            "p_b22_b14o_f16_cols",
            [64, 64],
            16,
            &b22,
            &blocked([8, 4], [1, 4], [0, 1]),
            Smem::ColumnMajor,
        ),
        case(
            "p_b22_b14o_f8",
            [64, 64],
            8,
            &b22,
            &blocked([8, 4], [1, 4], [0, 1]),
            Smem::RowMajor,
        ),
        // A broadcast destination: mma v2 [2, 2] accumulators to their A
        // operand (replicated over the N warps); back, every thread holds
        // its accumulators already (register moves by warp class).
        case(
            "p_mma2_dota_f16",
            [64, 64],
            16,
            MMA2,
            &dot_a(),
            Smem::Swizzled,
        ),
    ]
}

const MMA2: &str =
    "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>";

fn dot_a() -> String {
    format!("#ttg.dot_op<{{opIdx = 0, parent = {MMA2}, kWidth = 2}}>")
}

fn fails(name: &str, code: &str) -> bool {
    let (success, out) = run_case(name, code);
    !success && out.contains("\"ok\": false")
}

#[test]
fn partial_programs_run_correctly_on_the_cpu() {
    if !have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    for (i, c) in cases().into_iter().enumerate() {
        // Both forms: warp-specialised loops and run-time class branches.
        for spec in [true, false] {
            if (2..6).contains(&i) && !spec {
                continue;
            }
            let em = emit_partial_benchmark(&c, spec).unwrap();
            assert!(em.code.contains("PARTIAL_SYNC()"), "{}", c.name);
            assert_eq!(em.code.contains("run_warp("), spec);
            check(&c.name, &em.code);
        }
    }
}

#[test]
fn the_cases_cover_moves_and_packed_shuffles() {
    let cs = cases();
    let em0 = emit_partial_benchmark(&cs[0], true).unwrap();
    assert_eq!(em0.shuffles, (0, 0));
    // Packed words: the f16 cases through row-major and swizzled shared
    // memory and the f8 one; the plan moves words (one shuffle each).
    for i in [0, 2, 5] {
        let em = emit_partial_benchmark(&cs[i], true).unwrap();
        assert!(em.packed, "{}", cs[i].name);
        assert_eq!(em.fwd.bitwidth, 32, "{}", cs[i].name);
        assert_eq!(em.shuffles.0, em.fwd.cost.shuffles, "{}", cs[i].name);
    }
    let em2 = emit_partial_benchmark(&cs[2], true).unwrap();
    assert!(em2.code.contains("__shfl_sync"));
    // Unpacked f16 (column-major shared memory): two staying elements per
    // shfl.sync.
    let em4 = emit_partial_benchmark(&cs[4], true).unwrap();
    assert!(!em4.packed);
    assert_eq!(2 * em4.shuffles.0, em4.fwd.cost.shuffles);
    assert_eq!(em4.shuffles.0, em4.fwd.cost.packed_shuffles);
    assert_eq!(em4.shuffles.1, em4.bwd.cost.packed_shuffles);
    // Broadcast destination: forward loads half of what the full plan
    // loads (the other half stays by register moves); backward touches no
    // shared memory and has no barrier.
    let em6 = emit_partial_benchmark(&cs[6], true).unwrap();
    assert!(em6.packed);
    let (f, b) = (&em6.fwd.cost, &em6.bwd.cost);
    assert_eq!(2 * f.load_wavefronts, f.full_load_wavefronts);
    assert_eq!(f.store_wavefronts, f.full_store_wavefronts);
    assert_eq!(b.store_wavefronts + b.load_wavefronts + b.shuffles, 0);
    let bwd = &em6.code[em6.code.find("void cvt_bwd").unwrap()..];
    let bwd = &bwd[..bwd.find("\n}\n").unwrap()];
    assert!(
        !bwd.contains("PARTIAL_SYNC") && !bwd.contains("smem["),
        "{bwd}"
    );
    // The way back reads each warp's own copy, so the loaded copies are
    // kept live through the sink (a bijective case has none).
    assert!(em6.code.contains("sink_ ^= (uint32_t)bw[i]"));
    assert!(em6
        .code
        .contains("sink_ == 0x2545f491u) gout[threadIdx.x] = 0;"));
    assert!(!em0.code.contains("sink_"));
    let em3 = emit_partial_benchmark(&cs[3], false).unwrap();
    assert!(!em3.packed);
    assert_eq!(em3.shuffles.0, em3.fwd.cost.shuffles);
}

/// Removes the first line of `cvt_fwd` after `from` that starts with `prefix`.
fn drop_line(code: &str, prefix: &str) -> String {
    let f = code.find("void cvt_fwd").unwrap();
    let at = f + code[f..].find(prefix).expect("the line to drop");
    let end = at + code[at..].find('\n').unwrap() + 1;
    format!("{}{}", &code[..at], &code[end..])
}

#[test]
fn mutations_fail_the_programs_own_check() {
    if !have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    let cs = cases();
    let moves = emit_partial_benchmark(&cs[0], true).unwrap().code;
    // A staying register move dropped.
    assert!(fails("mut_move", &drop_line(&moves, "    b[")));
    // A store dropped.
    assert!(fails(
        "mut_store",
        &drop_line(&moves, "    *reinterpret_cast<")
    ));
    // A wrong warp predicate: the first class runs on no warp (its warps
    // run the next class's code).
    let f = moves.find("void cvt_fwd").unwrap();
    let at = f + moves[f..].find("if (warp == ").unwrap();
    let wrong = format!(
        "{}if (warp == 99u && {}",
        &moves[..at],
        &moves[at + "if (".len()..]
    );
    assert!(fails("mut_pred", &wrong));
    // A wrong shuffle source lane.
    let shfl = emit_partial_benchmark(&cs[3], false).unwrap().code;
    let wrong = shfl.replacen("sl_ ^ 0u)", "sl_ ^ 1u)", 1);
    assert_ne!(wrong, shfl);
    assert!(fails("mut_lane", &wrong));
    // Backward register moves of the broadcast case (on elements: the
    // replicated operand's shared words are not register words as a
    // source): warps 1 and 3 read the first half of K instead of their own.
    let bcast = emit_partial_benchmark(&cs[6], true).unwrap().code;
    let at = bcast.find("void cvt_bwd").unwrap();
    let (head, tail) = bcast.split_at(at);
    let wrong = format!("{head}{}", tail.replacen("b[0] = a[4];", "b[0] = a[0];", 1));
    assert_ne!(wrong, bcast);
    assert!(fails("mut_bcast", &wrong));
}

/// The committed suite programs `bench/gpu/generated/partial_*.cu` (partial
/// plans and their `_full` twins) and `*_partial.cu` (partial variants of
/// conversion cases) run correctly on the CPU.
#[test]
fn generated_suite_programs_run_correctly_on_the_cpu() {
    if !have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/gpu/generated");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let file = p.file_name().unwrap().to_string_lossy().to_string();
        let partial = file.starts_with("partial_") || file.ends_with("_partial.cu");
        if partial && file.ends_with(".cu") {
            let name = file.trim_end_matches(".cu");
            check(name, &std::fs::read_to_string(&p).unwrap());
            n += 1;
        }
    }
    assert!(n >= 9, "only {n} partial programs in {}", dir.display());
}

/// Pairs whose staying set or staying source register depends on the lane
/// (`layout_codegen::partial::plan_split_predicated`): predicated accesses,
/// reader-side keep masks, sender-side register selects.
fn predicated_cases() -> Vec<ConversionCase> {
    let row = blocked([8, 4], [4, 1], [1, 0]);
    // `row` with lane bit 4 and warp bit 0 exchanged: in each warp, the
    // lanes 16..32 hold rows of another warp.
    let swapped = "#ttg.linear<{register = [[0, 1], [0, 2], [0, 16], [0, 32], [32, 0]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [8, 0]], warp = [[4, 0], [16, 0]], block = []}>";
    let mma = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>";
    let blk8 = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>";
    vec![
        case(
            "pp_lane4_warp0_f32",
            [64, 64],
            32,
            &row,
            swapped,
            Smem::Swizzled,
        ),
        case(
            "pp_lane4_warp0_f16",
            [64, 64],
            16,
            &row,
            swapped,
            Smem::RowMajor,
        ),
        // The source register depends on the destination lane (C_rl != 0).
        case("pp_mma_blk8_f32", [64, 64], 32, mma, blk8, Smem::Swizzled),
        // Both: register bit 0 <-> lane bit 0 as well, so a staying
        // element's source register depends on the lane that sends it.
        mixed_lane_case(),
    ]
}

/// `swapped` of [`predicated_cases`] with destination lane bit 0 holding
/// column 9 = source register bit 0 (column 1) ⊕ source lane bit 1
/// (column 8): a staying element's source register then depends on the
/// lane that sends it. (Triton's `#ttg.linear` text allows no such mixed
/// lane basis, so the layout is built from its bases.)
fn mixed_lane_case() -> ConversionCase {
    let row = blocked([8, 4], [4, 1], [1, 0]);
    let mut c = case(
        "pp_mixed_lane_f32",
        [64, 64],
        32,
        &row,
        &row,
        Smem::RowMajor,
    );
    let b = |v: &[[u64; 2]]| v.iter().map(|x| x.to_vec()).collect::<Vec<_>>();
    c.dst = LinearLayout::new(
        vec![
            (
                DimName::REGISTER,
                b(&[[0, 1], [0, 2], [0, 16], [0, 32], [32, 0]]),
            ),
            (DimName::LANE, b(&[[0, 9], [0, 4], [1, 0], [2, 0], [8, 0]])),
            (DimName::WARP, b(&[[4, 0], [16, 0]])),
            (DimName::BLOCK, vec![]),
        ],
        vec![(DimName::dim(0), 64), (DimName::dim(1), 64)],
        false,
    )
    .unwrap();
    c.smem = layout_codegen::swizzle_search::search_shared_layout(&c.src, &c.dst, 32, 32)
        .expect("a swizzle")
        .0;
    c
}

#[test]
fn predicated_partial_programs_run_correctly_on_the_cpu() {
    let cs = predicated_cases();
    let ems: Vec<_> = cs
        .iter()
        .map(|c| emit_predicated_partial_benchmark(c, true).unwrap())
        .collect();
    // The features are exercised: lane-predicated accesses, keep masks, and
    // a sender-side select chain.
    assert!(ems[0].fwd.classes.iter().any(|k| !k.load_lanes.is_empty()));
    assert!(ems[0].code.contains("if ((0x"), "no lane guard");
    assert!(ems.iter().any(|e| [&e.fwd, &e.bwd]
        .iter()
        .flat_map(|p| p.classes.iter().flat_map(|k| &k.staying))
        .any(|m| !m.src_register_by_lane.is_empty())));
    assert!(ems.iter().any(|e| e.code.contains("u >> lane) & 1u) ? a[")));
    if !have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    for (c, em) in cs.iter().zip(&ems) {
        check(&c.name, &em.code);
        let unspec = emit_predicated_partial_benchmark(c, false).unwrap();
        check(&c.name, &unspec.code);
    }
    // Mutations: a load's lane guard dropped (every lane loads: the
    // staying lanes' registers are overwritten by slots nobody stored; a
    // store's guard dropped only stores more, correctly) and a sender's
    // select chain pointed at another register must fail the program's own
    // check.
    let code = &ems[0].code;
    let f = code.find("void cvt_fwd").unwrap();
    let f = f + code[f..].find("PARTIAL_SYNC();").unwrap();
    let at = f + code[f..].find("    if ((0x").unwrap();
    let end = at + code[at..].find("1u) ").unwrap() + 4;
    let unguarded = format!("{}    {}", &code[..at], &code[end..]);
    assert!(fails("mut_guard", &unguarded));
    let sel = ems.iter().find(|e| e.code.contains("? a[")).unwrap();
    let at = sel.code.find("? a[").unwrap();
    let swapped = format!(
        "{}? a[0] + 1u{}",
        &sel.code[..at],
        &sel.code[at + sel.code[at..].find(']').unwrap() + 1..]
    );
    assert!(fails("mut_select", &swapped));
    // The plain entry point refuses these pairs (the plain class's
    // conditions fail), so the suite's programs do not change.
    for c in &cs {
        assert!(emit_partial_benchmark(c, true).is_err(), "{}", c.name);
    }
}

/// Pairs whose staying registers are a register <-> lane transpose inside
/// the warp (`layout_codegen::partial::plan_split_transposed`): wgmma
/// accumulators (instruction N = 64) to a blocked layout, where in warps 0
/// and 3 half of the registers stay and each sender's registers go to four
/// readers. Each lane then writes a destination register chosen by its
/// lane.
fn transposed_cases() -> Vec<ConversionCase> {
    let wgmma = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>";
    let blk8 = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";
    vec![
        case(
            "pt_wgmma_blk8_f32",
            [64, 64],
            32,
            wgmma,
            blk8,
            Smem::Swizzled,
        ),
        case(
            "pt_wgmma_blk8_f16",
            [64, 64],
            16,
            wgmma,
            blk8,
            Smem::Swizzled,
        ),
        case(
            "pt_wgmma_blk8_f16_rm",
            [64, 64],
            16,
            wgmma,
            blk8,
            Smem::ColumnMajor,
        ),
    ]
}

#[test]
fn transposed_partial_programs_run_correctly_on_the_cpu() {
    let cs = transposed_cases();
    let ems: Vec<_> = cs
        .iter()
        .map(|c| emit_transposed_partial_benchmark(c, true).unwrap())
        .collect();
    for (c, e) in cs.iter().zip(&ems) {
        assert!(
            [&e.fwd, &e.bwd]
                .iter()
                .flat_map(|p| &p.classes)
                .any(WarpClass::is_transposed),
            "{}: no lane-chosen destination register",
            c.name
        );
    }
    // The planner takes the per-class lane permutations there (fewer
    // selects than per-move chains).
    assert!(ems
        .iter()
        .flat_map(|e| [&e.fwd, &e.bwd])
        .flat_map(|p| &p.classes)
        .any(|k| k.lane_xor.is_some()));
    if !have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    for (c, em) in cs.iter().zip(&ems) {
        check(&c.name, &em.code);
        let unspec = emit_transposed_partial_benchmark(c, false).unwrap();
        check(&c.name, &unspec.code);
    }
    // The same moves written per move (sender chains, predicated writes).
    let c = &cs[0];
    let options = PlanOptions::partial_through(c.smem.clone(), SplitForm::Transposed);
    let mut rt = plan_partial_round_trip(&c.src, &c.dst, c.bits, &Target::SM90, &options).unwrap();
    rt.fwd = rt.fwd.with_chained_staying();
    rt.bwd = rt.bwd.with_chained_staying();
    let per_move = emit_partial_planned(c, &rt, true).unwrap().code;
    check(&c.name, &per_move);
    // Mutation: one reader-side write of a received value unguarded (every
    // lane writes that register) must fail the program's own check.
    let at = per_move
        .find("      if ((0x")
        .expect("a guarded reader write");
    let end = at + per_move[at..].find("1u) ").unwrap() + 4;
    let unguarded = format!("{}      {}", &per_move[..at], &per_move[end..]);
    assert!(fails("mut_reader_write", &unguarded));
    // Mutations of the lane permutations: one conditional swap of the
    // senders' copy dropped, and one of the received registers.
    let code = &ems[0].code;
    for (name, marker) in [
        ("mut_sender_swap", "u_ = ap_["),
        ("mut_receiver_swap", "u_ = b["),
    ] {
        let f = code.find("void cvt_fwd").unwrap();
        let swap = f + code[f..]
            .find(marker)
            .unwrap_or_else(|| panic!("{name}: a conditional swap"));
        let at = code[..swap].rfind('\n').unwrap() + 1;
        let end = swap + code[swap..].find('\n').unwrap() + 1;
        let dropped = format!("{}{}", &code[..at], &code[end..]);
        assert!(fails(name, &dropped), "{name} passed");
    }
}

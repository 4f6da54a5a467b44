//! `ldmatrix` / `stmatrix` in shared-memory plans, executed by the
//! simulator.
//!
//! * The GPU suite's `_mx` cases (`bench/gpu/cases.toml`) as the committed
//!   H200 run measured them: the matrix plans, built from
//!   `tiling::matrix_plan` over the shared layout those programs ran with,
//!   pass the simulator and their simulated wavefronts equal what `ncu`
//!   measured (the programs generated now are the planner's own matrix
//!   plans; `layout-cuda`'s `ncu_agreement` test recomputes their
//!   predictions from those plans) on an H200
//!   (`bench/gpu/results/2026-11-24-h200/ncu.txt`, one iteration: the R = 2
//!   run minus the R = 1 run). What `ncu` counts (`bench/gpu/run.sh`
//!   and the generated `.cu`): launches of one CTA; one more iteration of
//!   the loop, whose body runs `cvt_fwd` (src → dst) and `cvt_bwd` (dst → src) through
//!   the same shared layout: so the measured store (load) wavefronts are the
//!   forward plan's plus the backward plan's. Global memory is not counted.
//! * x1 / x2 on hand-built 8×8 fragments with hand-derived costs.
//! * Mutations (a wrong row address, a flipped `.trans`) fail with the first
//!   wrong register.

use hw_layouts::Encoding;
use layout_codegen::plan::{ConversionPlan, SharedMemoryPlan};
use layout_codegen::shared_conversion::plan_shared_matrix;
use layout_codegen::simulator::{simulate, simulate_with, SimulationReport, SimulatorConfig};
use layout_codegen::CodegenError;
use linear_layout::{DimName, LinearLayout};

const BLK_ROW: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";
const BLK_COL: &str = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>";
const BLK_ROW8: &str = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>";
const BLK_COL8: &str = "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 8], order = [0, 1]}>";
const MMA2: &str = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>";
const DOT_B: &str = "#ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>";
const WGMMA: &str = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>";

/// (name, shape, src, dst, offset bases of the shared layout as `[dim0,
/// dim1]`). The shared layouts are the ones the `_mx` programs of the
/// committed H200 run used (layout-cuda's former matrix-path search at the
/// commit of that run, printed once; checked then against the generated
/// programs' addresses).
type Case = (
    &'static str,
    [u64; 2],
    &'static str,
    &'static str,
    &'static [[u64; 2]],
);

const CASES: [Case; 6] = [
    (
        "blocked_T_64x64_f16_mx",
        [64, 64],
        BLK_ROW,
        BLK_COL,
        &[
            [1, 0],
            [2, 0],
            [4, 0],
            [0, 1],
            [0, 4],
            [0, 8],
            [8, 8],
            [0, 6],
            [16, 0],
            [32, 0],
            [0, 32],
            [0, 16],
        ],
    ),
    (
        "blocked_T_128x256_f16_w8_mx",
        [128, 256],
        BLK_ROW8,
        BLK_COL8,
        &[
            [0, 32],
            [1, 0],
            [2, 0],
            [0, 1],
            [0, 8],
            [0, 16],
            [8, 16],
            [16, 8],
            [32, 1],
            [0, 2],
            [4, 0],
            [64, 0],
            [0, 64],
            [0, 128],
            [0, 4],
        ],
    ),
    (
        "blocked_to_mma2_128x128_f16_mx",
        [128, 128],
        BLK_ROW,
        MMA2,
        &[
            [1, 0],
            [2, 0],
            [4, 0],
            [0, 1],
            [0, 4],
            [0, 8],
            [0, 10],
            [8, 0],
            [0, 16],
            [0, 32],
            [0, 64],
            [32, 0],
            [64, 0],
            [16, 0],
        ],
    ),
    (
        "blocked_to_wgmma_128x128_f16_mx",
        [128, 128],
        BLK_ROW,
        WGMMA,
        &[
            [1, 0],
            [2, 0],
            [4, 0],
            [0, 1],
            [0, 4],
            [0, 8],
            [0, 10],
            [8, 0],
            [0, 16],
            [0, 32],
            [0, 64],
            [64, 0],
            [32, 0],
            [16, 0],
        ],
    ),
    (
        "wgmma_to_blocked_128x128_f16_mx",
        [128, 128],
        WGMMA,
        BLK_ROW,
        &[
            [0, 1],
            [0, 2],
            [0, 4],
            [1, 0],
            [2, 0],
            [4, 0],
            [4, 8],
            [0, 16],
            [0, 32],
            [0, 64],
            [32, 0],
            [64, 0],
            [8, 0],
            [16, 0],
        ],
    ),
    (
        "mma2_to_dotB_64x64_f16_mx",
        [64, 64],
        MMA2,
        DOT_B,
        &[
            [0, 1],
            [0, 2],
            [0, 4],
            [0, 8],
            [0, 16],
            [0, 32],
            [1, 8],
            [2, 16],
            [4, 32],
            [8, 0],
            [16, 0],
            [32, 0],
        ],
    ),
];

fn repo_file(rel: &str) -> String {
    let p = format!("{}/../../{rel}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn smem(shape: [u64; 2], bases: &[[u64; 2]]) -> LinearLayout {
    LinearLayout::new(
        vec![(DimName::OFFSET, bases.iter().map(|b| b.to_vec()).collect())],
        vec![(DimName::dim(0), shape[0]), (DimName::dim(1), shape[1])],
        true,
    )
    .unwrap()
}

/// `(store, load)` wavefronts of one benchmark iteration (one conversion
/// each way) that `ncu` measured for `name` on the H200: the run profiles
/// every program at R = 1 and R = 2 (`== NAME` and `== NAME R=2`), and the
/// difference cancels what runs once per kernel (the initial load and the
/// forward check's last conversion).
fn ncu(name: &str) -> (u64, u64) {
    let text = repo_file("bench/gpu/results/2026-11-24-h200/ncu.txt");
    let section = |head: &str| -> &str {
        let head = format!("== {head}\n");
        let start = text
            .find(&head)
            .unwrap_or_else(|| panic!("{head} not in ncu.txt"))
            + head.len();
        text[start..].split("\n==").next().unwrap()
    };
    let metric = |sec: &str, m: &str| -> u64 {
        let line = sec
            .lines()
            .find(|l| l.contains(m))
            .unwrap_or_else(|| panic!("{name}: no {m}"));
        let v = line.rsplit("\",\"").next().unwrap().trim_matches('"');
        v.replace(',', "").parse().unwrap()
    };
    let (one, two) = (section(name), section(&format!("{name} R=2")));
    let per_iteration = |m: &str| metric(two, m) - metric(one, m);
    (
        per_iteration("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
        per_iteration("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
    )
}

fn layouts(c: &Case) -> (LinearLayout, LinearLayout, LinearLayout) {
    let (_, shape, s, d, bases) = *c;
    let src = Encoding::parse(s)
        .unwrap()
        .to_linear_layout(&shape)
        .unwrap();
    let dst = Encoding::parse(d)
        .unwrap()
        .to_linear_layout(&shape)
        .unwrap();
    (src, dst, smem(shape, bases))
}

fn run(
    p: &SharedMemoryPlan,
    src: &LinearLayout,
    dst: &LinearLayout,
) -> Result<SimulationReport, CodegenError> {
    simulate(&ConversionPlan::SharedMemory(Box::new(p.clone())), src, dst)
}

#[test]
fn gpu_suite_matrix_plans_match_ncu() {
    let mut matrix_sides = 0;
    for c in &CASES {
        let name = c.0;
        let (src, dst, sm) = layouts(c);
        let (mut st, mut ld) = (0, 0);
        for (dir, from, to) in [("fwd", &src, &dst), ("bwd", &dst, &src)] {
            let p = plan_shared_matrix(from, to, 16, Some(&sm)).unwrap();
            assert_eq!(p.rounds.len(), 1);
            let rep = run(&p, from, to).unwrap_or_else(|e| panic!("{name} {dir}: {e}"));
            assert_eq!(
                rep.registers_checked,
                rep.threads * to.in_dim_size(DimName::REGISTER)
            );
            // A side is all matrix instructions or none.
            let side = |m: u64, all: u64| {
                assert!(m == 0 || m == all, "{name} {dir}: {m} of {all}");
                (m > 0) as u64
            };
            matrix_sides += side(rep.matrix_store_instructions, rep.store_instructions)
                + side(rep.matrix_load_instructions, rep.load_instructions);
            st += rep.store_wavefronts;
            ld += rep.load_wavefronts;
            assert_eq!(rep.store_conflict_wavefronts, 0, "{name} {dir}");
            assert_eq!(rep.load_conflict_wavefronts, 0, "{name} {dir}");
            assert_eq!((p.store_conflicts, p.load_conflicts), (0, 0));
        }
        assert_eq!((st, ld), ncu(name), "{name}: simulated (st, ld) vs ncu");
    }
    // Every case has at least one matrix side in each direction.
    assert!(matrix_sides >= 12, "{matrix_sides}");
}

/// The blocked_T_64x64 case's two plans: forward (stmatrix.x4.trans, then
/// ld.shared.v4) and backward (st.shared.v4, then ldmatrix.x4.trans).
fn blocked_t() -> (
    LinearLayout,
    LinearLayout,
    SharedMemoryPlan,
    SharedMemoryPlan,
) {
    let (src, dst, sm) = layouts(&CASES[0]);
    let fwd = plan_shared_matrix(&src, &dst, 16, Some(&sm)).unwrap();
    let bwd = plan_shared_matrix(&dst, &src, 16, Some(&sm)).unwrap();
    assert!(fwd.rounds[0].stores[0].matrix.unwrap().trans);
    assert!(bwd.rounds[0].loads[0].matrix.unwrap().trans);
    (src, dst, fwd, bwd)
}

fn wrong_register(e: CodegenError) -> (u64, u64, u64) {
    match e {
        CodegenError::WrongElement {
            block,
            warp,
            lane,
            register,
            expected,
            found,
        } => {
            assert_eq!(block, 0);
            assert!(found.is_some() && found != Some(expected));
            (warp, lane, register)
        }
        other => panic!("expected a wrong element, got {other}"),
    }
}

/// `ldmatrix.x4.trans`: thread `t`'s half `e` of operand `i` is row `2 (t
/// mod 4) + e` of matrix `i`. Corrupting the rows with odd `j` (lane bit 0)
/// or dropping `.trans` (thread 0 then reads row 0, column 1 instead of row
/// 1, column 0 for `e = 1`, while `e = 0` stays row 0, column 0) leaves
/// every `e = 0` register of lane 0 right and makes every `e = 1` register
/// wrong, so the first wrong register (warp 0, lane 0 come first) is the
/// smallest `registers[2i + 1]` of the mutated load.
#[test]
fn ldmatrix_mutations_name_the_first_wrong_register() {
    let (src, dst, _, bwd) = blocked_t();
    let regs = &bwd.rounds[0].loads[0].registers;
    let first = (0..4).map(|i| regs[2 * i + 1]).min().unwrap();
    // A wrong row address: lane bit 0 moves rows by lane bit 1's offset too.
    let mut p = bwd.clone();
    let a = &mut p.rounds[0].loads[0].address;
    a.lane[0] ^= a.lane[1];
    assert_eq!(
        wrong_register(run(&p, &dst, &src).unwrap_err()),
        (0, 0, first)
    );
    // .trans dropped.
    let mut p = bwd.clone();
    p.rounds[0].loads[0].matrix.as_mut().unwrap().trans = false;
    assert_eq!(
        wrong_register(run(&p, &dst, &src).unwrap_err()),
        (0, 0, first)
    );
    // The unmutated plan is proved.
    run(&bwd, &dst, &src).unwrap();
}

/// `stmatrix` mutations: swapping two row-address bases, or dropping
/// `.trans`, still writes every slot once (a permutation of the slots), so
/// the loads see wrong elements: a wrong register, not a missing one.
#[test]
fn stmatrix_mutations_are_wrong_elements() {
    let (src, dst, fwd, _) = blocked_t();
    let mut p = fwd.clone();
    p.rounds[0].stores[0].address.lane.swap(0, 1);
    wrong_register(run(&p, &src, &dst).unwrap_err());
    let mut p = fwd.clone();
    p.rounds[0].stores[1].matrix.as_mut().unwrap().trans = false;
    wrong_register(run(&p, &src, &dst).unwrap_err());
    // Misaligned row: 16-byte rows of 16-bit elements need offsets ≡ 0 mod 8.
    let mut p = fwd.clone();
    p.rounds[0].stores[0].address.constant ^= 4;
    assert!(matches!(
        run(&p, &src, &dst).unwrap_err(),
        CodegenError::Misaligned { bytes: 16, .. }
    ));
    // A matrix instruction of the wrong arity.
    let mut p = fwd.clone();
    p.rounds[0].stores[0].registers.pop();
    assert!(matches!(
        run(&p, &src, &dst).unwrap_err(),
        CodegenError::Invalid(_)
    ));
    // ... and .trans of 32-bit elements.
    let mut p = fwd.clone();
    p.bitwidth = 32;
    assert!(matches!(
        run(&p, &src, &dst).unwrap_err(),
        CodegenError::Invalid(_)
    ));
}

/// 1-D tensors of 16-bit elements holding `n` 8×8 matrices (element
/// `64 m + 8 row + col`): `frag` is the ldmatrix fragment (thread `t`, register
/// `2 i + e` = matrix `i`, row `t / 4`, column `2 (t mod 4) + e`: register
/// bases `[1, 64, 128]`, lane bases `2, 4, 8, 16, 32`), `trans` the `.trans`
/// fragment (row `2 (t mod 4) + e`, column `t / 4`: register base 8, lane
/// bases 16, 32, 1, 2, 4).
fn fragments(nmat: u64) -> (LinearLayout, LinearLayout) {
    let mats: Vec<u64> = (0..nmat.trailing_zeros()).map(|b| 64 << b).collect();
    let mk = |e: u64, lanes: [u64; 5]| {
        let mut regs = vec![vec![e]];
        regs.extend(mats.iter().map(|&m| vec![m]));
        LinearLayout::new(
            vec![
                (DimName::REGISTER, regs),
                (DimName::LANE, lanes.iter().map(|&l| vec![l]).collect()),
                (DimName::WARP, vec![]),
            ],
            vec![(DimName::dim(0), 64 * nmat)],
            true,
        )
        .unwrap()
    };
    (mk(1, [2, 4, 8, 16, 32]), mk(8, [16, 32, 1, 2, 4]))
}

/// x1 and x2 through the identity (row-major) scratch: matrix `m`'s row
/// `j` starts at element `64 m + 8 j`, i.e. byte `128 m + 16 j`, so each
/// matrix's 8 rows are 128 contiguous bytes, one wavefront each: x1 costs 1
/// store and 1 load wavefront, x2 2 and 2. Only lanes `< 8·count` supply
/// addresses: an out-of-bounds contribution of lane bit 3 is ignored by x1
/// (lanes 8–31 unused) and caught in x2 (lanes 8–15 supply matrix 1).
#[test]
fn x1_and_x2_fragments() {
    for (nmat, want_count) in [(1u64, 1u64), (2, 2)] {
        let (frag, trans) = fragments(nmat);
        let id = LinearLayout::identity_1d(64 * nmat, DimName::OFFSET, DimName::dim(0));
        for (from, to) in [(&frag, &trans), (&trans, &frag)] {
            let p = plan_shared_matrix(from, to, 16, Some(&id)).unwrap();
            let (st, ld) = (&p.rounds[0].stores, &p.rounds[0].loads);
            assert_eq!((st.len(), ld.len()), (1, 1));
            let (ms, ml) = (st[0].matrix.unwrap(), ld[0].matrix.unwrap());
            assert_eq!((ms.count, ml.count), (want_count, want_count));
            // One side is the plain fragment, the other the transposed one.
            assert_ne!(ms.trans, ml.trans);
            let rep = run(&p, from, to).unwrap();
            assert_eq!((rep.store_wavefronts, rep.load_wavefronts), (nmat, nmat));
            assert_eq!(
                (rep.matrix_store_instructions, rep.matrix_load_instructions),
                (1, 1)
            );
            let mut bad = p.clone();
            bad.rounds[0].loads[0].address.lane[3] = 1 << 20;
            let r = run(&bad, from, to);
            if nmat == 1 {
                assert!(r.is_ok(), "{r:?}");
            } else {
                assert!(matches!(r, Err(CodegenError::OutOfBounds { .. })), "{r:?}");
            }
        }
    }
}

/// Conflicts of a matrix phase, hand-derived: 8 matrices (512 elements,
/// element `64 m + 8 row + col`) through a scratch whose offset bits 0..2
/// are the column, 3..5 the matrix `m`, 6..8 the row: row `j` of matrix `m`
/// starts at element `64 j + 8 m`, byte `128 j + 16 m`, bank `(32 j + 4 m)
/// mod 32 = 4 m`: the 8 rows of one matrix share banks `4m .. 4m + 3` with
/// 8 distinct words each, 8 wavefronts per matrix (7 extra).
#[test]
fn matrix_bank_conflicts() {
    let (frag, trans) = fragments(8);
    let o = |v: u64| vec![v];
    let scratch = LinearLayout::new(
        vec![(
            DimName::OFFSET,
            vec![o(1), o(2), o(4), o(64), o(128), o(256), o(8), o(16), o(32)],
        )],
        vec![(DimName::dim(0), 512)],
        true,
    )
    .unwrap();
    let p = plan_shared_matrix(&frag, &trans, 16, Some(&scratch)).unwrap();
    let rep = run(&p, &frag, &trans).unwrap();
    // 8 matrices per thread: two x4 instructions each side, 8 phases of 8.
    assert_eq!(rep.matrix_store_instructions, 2);
    assert_eq!(rep.store_wavefronts, 8 * 8);
    assert_eq!(rep.load_wavefronts, 8 * 8);
    assert_eq!(rep.max_store_conflicts, 7);
    assert_eq!(p.store_conflicts, 7);
    assert_eq!(p.load_conflicts, 7);
}

/// Matrix instructions exist only in the 32-bank (NVIDIA) model.
#[test]
fn matrix_instructions_need_the_nvidia_model() {
    let (src, dst, fwd, _) = blocked_t();
    let e = simulate_with(
        &SimulatorConfig::AMD_LDS,
        &ConversionPlan::SharedMemory(Box::new(fwd)),
        &src,
        &dst,
    )
    .unwrap_err();
    assert!(e.to_string().contains("NVIDIA"), "{e}");
}

/// Without a given layout the planner uses the optimal swizzle (with its
/// rounds) and still proves every register; bad inputs are errors.
#[test]
fn optimal_swizzle_matrix_plans_and_errors() {
    for c in &CASES {
        let (src, dst, sm) = layouts(c);
        let p = plan_shared_matrix(&src, &dst, 16, None).unwrap();
        run(&p, &src, &dst).unwrap_or_else(|e| panic!("{}: {e}", c.0));
        // The given layout must cover the tensor with 'offset' alone.
        let bad = sm
            .rename_in_dim(DimName::OFFSET, DimName::REGISTER)
            .unwrap();
        assert!(plan_shared_matrix(&src, &dst, 16, Some(&bad)).is_err());
    }
}

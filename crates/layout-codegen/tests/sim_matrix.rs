//! `ldmatrix` / `stmatrix` in shared-memory plans, executed by the
//! simulator.
//!
//! * The GPU suite's `_mx` cases (`crates/layout-cuda/src/bin/gpu_suite.rs`):
//!   the matrix plans, built from `tiling::matrix_plan` over the shared
//!   layout the suite ran with, pass the simulator, use the instructions the
//!   suite recorded (`bench/gpu/generated/cases.json`), and their simulated
//!   wavefronts equal what `ncu` measured on an H200
//!   (`bench/gpu/results/ncu.txt`). What `ncu` counts (`bench/gpu/run.sh`
//!   and the generated `.cu`): one launch of one CTA with `R = 1`, whose
//!   loop body runs `cvt_fwd` (src → dst) and `cvt_bwd` (dst → src) through
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
/// dim1]`). The shared layouts are the ones the suite's `_mx` programs use:
/// `layout_cuda::matrix_ops::search_swizzle(src, dst, shape, 16, warps)`
/// at the commit of the H200 run, printed once; the test checks them
/// against the generated programs' addresses ([`check_against_cu`]).
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

/// `(store, load)` wavefronts `ncu` measured for `name`.
fn ncu(name: &str) -> (u64, u64) {
    let text = repo_file("bench/gpu/results/ncu.txt");
    let head = format!("== {name}\n");
    let start = text
        .find(&head)
        .unwrap_or_else(|| panic!("{name} not in ncu.txt"))
        + head.len();
    let section = text[start..].split("\n==").next().unwrap();
    let metric = |m: &str| -> u64 {
        let line = section
            .lines()
            .find(|l| l.contains(m))
            .unwrap_or_else(|| panic!("{name}: no {m}"));
        let v = line.rsplit("\",\"").next().unwrap().trim_matches('"');
        v.replace(',', "").parse().unwrap()
    };
    (
        metric("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
        metric("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
    )
}

/// `(st_op, ld_op)` (instruction names) the suite recorded for one direction.
fn recorded_instructions(name: &str, dir: &str) -> (String, String) {
    let cases: serde_json::Value =
        serde_json::from_str(&repo_file("bench/gpu/generated/cases.json")).unwrap();
    let c = cases
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("{name} not in cases.json"));
    let p = &c[format!("predicted_{dir}")];
    (
        p["st_op"].as_str().unwrap().to_string(),
        p["ld_op"].as_str().unwrap().to_string(),
    )
}

/// The instruction a plan side uses, in the suite's naming.
fn instr_name(p: &SharedMemoryPlan, store: bool) -> String {
    let a = if store {
        &p.rounds[0].stores[0]
    } else {
        &p.rounds[0].loads[0]
    };
    match a.matrix {
        Some(m) => format!(
            "{}.x{}{}",
            if store { "stmatrix" } else { "ldmatrix" },
            m.count,
            if m.trans { ".trans" } else { "" }
        ),
        None => format!(
            "{}.shared.v{}",
            if store { "st" } else { "ld" },
            a.registers.len()
        ),
    }
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

/// The matrix accesses of the `cvt_{dir}` function of the generated
/// program: `(lane bases, warp bases, [(constant, registers)])` of its
/// stmatrix (`store`) or ldmatrix instructions (non-zero bases, in lane/warp
/// bit order). `None` when that side is not a matrix instruction.
#[allow(clippy::type_complexity)]
fn matrix_side_of_cu(
    cu: &str,
    dir: &str,
    store: bool,
) -> Option<(Vec<(u32, u64)>, Vec<(u32, u64)>, Vec<(u64, Vec<u64>)>)> {
    let start = cu.find(&format!("void cvt_{dir}(")).unwrap();
    let body = &cu[start..];
    let body = &body[..body.find("\n}\n").unwrap()];
    let var = if store { "m_smem_st" } else { "m_smem_ld" };
    let instr = if store { "stmatrix_x" } else { "ldmatrix_x" };
    if !body.contains(instr) {
        return None;
    }
    let mut lanes = Vec::new();
    let mut warps = Vec::new();
    for line in body.lines() {
        let l = line.trim();
        let pre = format!("{var} ^= (0u - ((");
        if let Some(rest) = l.strip_prefix(&pre) {
            // "lane >> 3) & 1u)) & 512u;"
            let (who, rest) = rest.split_once(" >> ").unwrap();
            let (bit, rest) = rest.split_once(')').unwrap();
            let val = rest.rsplit("& ").next().unwrap().trim_end_matches("u;");
            let e = (bit.parse().unwrap(), val.parse().unwrap());
            if who == "lane" {
                lanes.push(e)
            } else {
                warps.push(e)
            }
        }
    }
    let num = |s: &str| -> u64 { s.parse().unwrap() };
    let mut instrs = Vec::new();
    let lines: Vec<&str> = body.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let Some(pos) = line.find(instr) else {
            continue;
        };
        let after = &line[pos..];
        // The index is `var + c`, `(var ^ c_x)` or `(var ^ c_x) + c_a`
        // (c_x, c_a on disjoint bits): the constant is the XOR of the
        // numbers in it.
        let index = after.split("&smem[").nth(1).unwrap();
        let index = &index[..index.find(']').unwrap()];
        assert!(index.contains(var), "{index}");
        let c: u64 = index
            .split(|ch: char| !ch.is_ascii_alphanumeric() && ch != '_')
            .filter_map(|t| t.strip_suffix('u'))
            .filter_map(|t| t.parse::<u64>().ok())
            .fold(0, |a, x| a ^ x);
        let mut regs = Vec::new();
        if store {
            // "(uint32_t)a[0] | ((uint32_t)a[1] << 16)"
            for piece in after.split("a[").skip(1) {
                regs.push(num(piece.split(']').next().unwrap()));
            }
        } else {
            // following lines: "b[X] = (uint16_t)(w0_ & 0xffffu); b[Y] = ..."
            for l2 in &lines[i + 1..] {
                if l2.trim() == "}" {
                    break;
                }
                for piece in l2.split("b[").skip(1) {
                    regs.push(num(piece.split(']').next().unwrap()));
                }
            }
        }
        instrs.push((c, regs));
    }
    Some((lanes, warps, instrs))
}

/// The plan's matrix side equals the generated program's: same row-address
/// bases and, per instruction, the same constant and registers.
/// Returns whether that side is a matrix side of the program.
fn check_against_cu(name: &str, dir: &str, p: &SharedMemoryPlan, store: bool) -> bool {
    let cu = repo_file(&format!("bench/gpu/generated/{name}.cu"));
    let Some((lanes, warps, instrs)) = matrix_side_of_cu(&cu, dir, store) else {
        return false;
    };
    let accs: Vec<_> = p
        .rounds
        .iter()
        .flat_map(|r| if store { &r.stores } else { &r.loads })
        .collect();
    assert_eq!(accs.len(), instrs.len(), "{name} {dir}: instruction count");
    let nz = |v: &[u64]| -> Vec<(u32, u64)> {
        v.iter()
            .enumerate()
            .filter(|x| *x.1 != 0)
            .map(|(i, &c)| (i as u32, c))
            .collect()
    };
    for (a, (c, regs)) in accs.iter().zip(&instrs) {
        assert!(a.matrix.is_some());
        assert_eq!(nz(&a.address.lane), lanes, "{name} {dir}: lane bases");
        assert_eq!(nz(&a.address.warp), warps, "{name} {dir}: warp bases");
        assert_eq!(a.address.constant, *c, "{name} {dir}: constant");
        assert_eq!(&a.registers, regs, "{name} {dir}: registers");
    }
    true
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
            let (want_st, want_ld) = recorded_instructions(name, dir);
            assert_eq!(
                (instr_name(&p, true), instr_name(&p, false)),
                (want_st.clone(), want_ld.clone()),
                "{name} {dir}"
            );
            let mx = |s: &str| s.contains("matrix");
            assert_eq!(check_against_cu(name, dir, &p, true), mx(&want_st));
            assert_eq!(check_against_cu(name, dir, &p, false), mx(&want_ld));
            let mx = |s: &str| mx(s) as u64;
            assert_eq!(
                rep.matrix_store_instructions,
                mx(&want_st) * rep.store_instructions
            );
            assert_eq!(
                rep.matrix_load_instructions,
                mx(&want_ld) * rep.load_instructions
            );
            matrix_sides += mx(&want_st) + mx(&want_ld);
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

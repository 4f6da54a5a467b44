//! `linlayout cuda`, run as a process: a pair that is in no suite (mma v2
//! accumulators → a blocked layout the suite never uses) as a device
//! function, a kernel and a benchmark program; the benchmark program built
//! and run under layout-cuda's CPU emulation (its own host code checks
//! every element of the forward result); bad input exits 2 with one line.

use std::process::Command;

#[path = "../../layout-cuda/tests/emu/mod.rs"]
mod emu;

const MMA: &str =
    "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>";
/// Not in the GPU suite: 2 × 2 warps, 8 consecutive elements per thread.
const BLK: &str = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>";

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_linlayout"))
        .args(args)
        .output()
        .expect("run linlayout");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn cuda(extra: &[&str], shape: &str, dtype: &str, src: &str, dst: &str) -> (i32, String, String) {
    let mut args = vec!["cuda", "--shape", shape, "--dtype", dtype];
    args.extend(extra);
    args.extend([src, dst]);
    run(&args)
}

#[test]
fn device_function_by_default_with_its_sizes() {
    let (code, out, err) = cuda(&[], "64x64", "f16", MMA, BLK);
    assert_eq!(code, 0, "{err}");
    // 64 × 64 elements over 128 threads: 32 registers on each side.
    assert!(
        out.contains(
            "__device__ __forceinline__ void cvt(const uint16_t (&a)[32], uint16_t (&b)[32]"
        ),
        "{out}"
    );
    for m in [
        "#define CVT_SRC_REGS 32",
        "#define CVT_DST_REGS 32",
        "#define CVT_THREADS 128",
        "#define CVT_TILE 4096",
    ] {
        assert!(out.contains(m), "{m}");
    }
    assert!(out.contains("cvt_src_offset(") && out.contains("cvt_dst_offset("));
    let (_, named, _) = cuda(
        &["--device-function", "--name", "mma_to_blk"],
        "64x64",
        "f16",
        MMA,
        BLK,
    );
    assert!(named.contains("void mma_to_blk(") && named.contains("MMA_TO_BLK_SCRATCH_BYTES"));
}

#[test]
fn kernel_and_bench_forms_and_output_file() {
    let (code, k, _) = cuda(&["--kernel"], "64x64", "f16", MMA, BLK);
    assert_eq!(code, 0);
    assert!(k.contains("__global__") && !k.contains("int main("));
    let (code, b, _) = cuda(&["--bench"], "64x64", "f16", MMA, BLK);
    assert_eq!(code, 0);
    assert!(b.contains("int main(") && b.contains("ok ? \"true\""));
    let path = std::env::temp_dir().join(format!("linlayout-cuda-{}.cu", std::process::id()));
    let p = path.to_str().unwrap();
    let (code, out, err) = cuda(&["--bench", "-o", p], "64x64", "f16", MMA, BLK);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), b);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn the_bench_program_of_a_new_pair_passes_its_element_check_emulated() {
    if !emu::have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    for (dtype, src, dst) in [("f16", MMA, BLK), ("f32", BLK, MMA), ("f8", MMA, BLK)] {
        let (code, prog, err) = cuda(&["--bench", "--name", "cli_pair"], "64x64", dtype, src, dst);
        assert_eq!(code, 0, "{err}");
        emu::check("cli_pair", &prog);
    }
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--shape", "64x64", "--dtype", "f12", MMA, BLK], "f12"),
        (vec!["--shape", "64x64x2", "--dtype", "f16", MMA, BLK], "rank"),
        (vec!["--shape", "60x64", "--dtype", "f16", MMA, BLK], "60"),
        (vec!["--shape", "1024x1024", "--dtype", "f16", MMA, BLK], "1048576"),
        (vec!["--shape", "64x64", "--dtype", "f16", "--name", "1x", MMA, BLK], "1x"),
        (vec!["--shape", "64x64", "--dtype", "f16", MMA, "#ttg.blocked<{sizePerThread = [1, 8]"], "destination"),
        (
            vec![
                "--shape",
                "64x64",
                "--dtype",
                "f16",
                MMA,
                "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]}>",
            ],
            "warps",
        ),
        (vec!["--shape", "64x64", "--kernel", "--bench", MMA, BLK], "cannot be used"),
    ];
    for (args, needle) in cases {
        let mut all = vec!["cuda"];
        all.extend(args.iter().copied());
        let (code, out, err) = run(&all);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(err.contains(needle), "{args:?}: {err}");
        if needle != "cannot be used" {
            assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        }
    }
}

/// The command-line pair committed for the GPU run
/// (`bench/gpu/generated/cli`) is what the command writes today.
#[test]
fn the_committed_command_line_pair_is_current() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/gpu/generated/cli");
    let (_, bench, _) = cuda(
        &["--bench", "--name", "cli_pair_bench"],
        "64x64",
        "f16",
        MMA,
        BLK,
    );
    assert_eq!(
        std::fs::read_to_string(format!("{dir}/cli_pair_bench.cu")).unwrap(),
        bench
    );
    let (_, f, _) = cuda(
        &["--device-function", "--name", "cvt"],
        "64x64",
        "f16",
        MMA,
        BLK,
    );
    assert_eq!(
        std::fs::read_to_string(format!("{dir}/cvt.cuh")).unwrap(),
        f
    );
    // The second pair: the planner's answer is a partial cross-warp plan.
    let (_, bench, _) = cuda(
        &["--bench", "--name", "cli_partial_bench"],
        "64x64",
        "f16",
        WGMMA64,
        BLK24,
    );
    assert!(bench.contains("Partial cross-warp conversion"));
    assert_eq!(
        std::fs::read_to_string(format!("{dir}/cli_partial_bench.cu")).unwrap(),
        bench
    );
    let (_, f, _) = cuda(
        &["--device-function", "--name", "cvt"],
        "64x64",
        "f16",
        WGMMA64,
        BLK24,
    );
    assert_eq!(
        std::fs::read_to_string(format!("{dir}/partial/cvt.cuh")).unwrap(),
        f
    );
}

const WGMMA64: &str = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>";
const BLK24: &str = "#ttg.blocked<{sizePerThread = [2, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>";

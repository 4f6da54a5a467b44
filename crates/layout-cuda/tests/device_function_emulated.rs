//! The conversion as a `__device__` function (`layout_cuda::device_fn`),
//! called from the hand-written kernel `bench/gpu/device_function_demo.cu`
//! and run under the CPU emulation (`emu`): every element of every tile
//! must come out where the destination layout puts it. Independently of
//! the emitter, the offset helpers it emits are checked against the
//! layouts applied to every (register, lane, warp). A planted mutation
//! (two lane bits of the destination exchanged inside the function only)
//! must fail the demo's check.

use hw_layouts::Encoding;
use layout_cuda::device_fn::{case_for_pair, device_function, emit, Output};
use layout_cuda::Path;
use linear_layout::{DimName, LinearLayout};
mod emu;
use emu::{have_gxx, run_case};

fn layout(enc: &str, shape: [u64; 2]) -> LinearLayout {
    Encoding::parse(enc)
        .unwrap()
        .to_linear_layout(&shape)
        .unwrap()
}

const BLK_ROW: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";
const MMA2: &str = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>";
const WGMMA64: &str = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>";
const BLK8: &str = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";
const DOT_A: &str = "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>";

/// The demo program with `header` (the generated `cvt.cuh`) in place of
/// its include, its kernel named as the emulation's launcher expects.
fn demo_with(header: &str) -> String {
    let demo = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../bench/gpu/device_function_demo.cu"
    ))
    .unwrap();
    demo.replace(
        "#include \"cvt.cuh\"",
        &header.replace("#pragma once\n", ""),
    )
    .replace("convert_tile", "bench")
}

/// Row-major offset of `l`'s element at (register r, lane, warp).
fn offset(l: &LinearLayout, shape: [u64; 2], r: u64, lane: u64, warp: u64) -> u64 {
    let out = l
        .apply(&[
            (DimName::REGISTER, r),
            (DimName::LANE, lane),
            (DimName::WARP, warp),
            (DimName::BLOCK, 0),
        ])
        .unwrap();
    let get = |d: DimName| out.iter().find(|x| x.0 == d).map_or(0, |x| x.1);
    get(DimName::dim(0)) * shape[1] + get(DimName::dim(1))
}

/// The offset helper `fname` of `code` evaluated in Rust from its text.
fn helper_offset(code: &str, fname: &str, r: u64, lane: u64, warp: u64) -> u64 {
    let start = code.find(&format!("unsigned {fname}(")).unwrap();
    let body = &code[start..start + code[start..].find("return o;").unwrap()];
    let mut o = 0;
    for line in body.lines().filter(|l| l.trim_start().starts_with("if ((")) {
        // `  if ((var >> k) & 1u) o ^= IMGu;`
        let var = line.trim_start()["if ((".len()..]
            .split(' ')
            .next()
            .unwrap();
        let k: u64 = line
            .split(">> ")
            .nth(1)
            .unwrap()
            .split(')')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let img: u64 = line
            .split("o ^= ")
            .nth(1)
            .unwrap()
            .trim_end_matches("u;")
            .parse()
            .unwrap();
        let v = match var {
            "r" => r,
            "lane" => lane,
            _ => warp,
        };
        if v >> k & 1 == 1 {
            o ^= img;
        }
    }
    o
}

#[test]
fn offset_helpers_are_the_layouts() {
    let shape = [64, 64];
    let (src, dst) = (layout(BLK_ROW, shape), layout(MMA2, shape));
    let case = case_for_pair("cvt", &src, &dst, &shape, 16).unwrap();
    let f = device_function(&case).unwrap();
    for (side, l) in [("cvt_src_offset", &src), ("cvt_dst_offset", &dst)] {
        let n = l.in_dim_size(DimName::REGISTER);
        for warp in 0..4 {
            for lane in 0..32 {
                for r in 0..n {
                    assert_eq!(
                        helper_offset(&f.code, side, r, lane, warp),
                        offset(l, shape, r, lane, warp),
                        "{side} r{r} lane{lane} warp{warp}"
                    );
                }
            }
        }
    }
}

/// The text of the two offset helpers of a device function's file (from
/// `cvt_src_offset` to the end of `cvt_dst_offset`).
fn offset_helpers(code: &str) -> &str {
    let start = code
        .find("__device__ __forceinline__ unsigned cvt_src_offset")
        .unwrap();
    let dst = code.find("unsigned cvt_dst_offset").unwrap();
    let end = dst + code[dst..].find("return o;\n}\n").unwrap() + "return o;\n}\n".len();
    &code[start..end]
}

#[test]
fn the_device_function_converts_inside_a_hand_written_kernel() {
    if !have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    let s64 = |e: &str| layout(e, [64, 64]);
    let row = s64(BLK_ROW);
    // Register basis 0 <-> lane basis 0: a warp-shuffle conversion.
    let swap = {
        let mut b = row.all_bases();
        let r = b[0].1[0].clone();
        b[0].1[0] = b[1].1[0].clone();
        b[1].1[0] = r;
        LinearLayout::new(b, row.out_dims(), true).unwrap()
    };
    let pairs = [
        (
            "blocked_to_mma2_f16",
            row.clone(),
            s64(MMA2),
            16,
            Path::SharedMemory,
        ),
        (
            "mma2_to_dotA_f16",
            s64(MMA2),
            s64(DOT_A),
            16,
            Path::SharedMemory,
        ),
        (
            "swap1_f32",
            row.clone(),
            swap.clone(),
            32,
            Path::WarpShuffle,
        ),
        // 16-bit: the planner costs and the emitter runs the packed-word
        // form (the `_words` labels: shuffles of whole words, `prmt`).
        ("swap1_f16_words", row.clone(), swap, 16, Path::WarpShuffle),
        (
            "blocked_to_mma2_f8",
            row.clone(),
            s64(MMA2),
            8,
            Path::SharedMemory,
        ),
        // The planner's answer is partial with transposed staying moves on
        // packed words (the `_partial` labels: partial device functions).
        (
            "wgmma64_to_blk8_bf16_partial",
            s64(WGMMA64),
            s64(BLK8),
            16,
            Path::SharedMemory,
        ),
    ];
    for (label, src, dst, bits, path) in pairs {
        let case = case_for_pair("cvt", &src, &dst, &[64, 64], bits).unwrap();
        let f = device_function(&case).unwrap();
        assert_eq!(f.path, path, "{label}");
        // mma accumulators to their A operand, and the `_partial` pairs:
        // the planner answers with a partial cross-warp plan.
        let partial = label.ends_with("_partial") || label.contains("dotA");
        assert_eq!(
            f.code.contains("// Partial cross-warp conversion"),
            partial,
            "{label}"
        );
        let words = label.ends_with("_words");
        assert_eq!(
            f.code.contains("void cvt_words(") && f.code.contains("__byte_perm("),
            words,
            "{label}"
        );
        let (ok, out) = run_case(label, &demo_with(&f.code));
        assert!(ok && out.contains("\"ok\": true"), "{label}: {out}");
        // Planted: the function converts to the destination with lane bases
        // 0 and 1 exchanged; the kernel still stores by the real one.
        let mut b = dst.all_bases();
        b[1].1.swap(0, 1);
        let wrong = LinearLayout::new(b, dst.out_dims(), true).unwrap();
        let mut bad = case_for_pair("cvt", &src, &wrong, &[64, 64], bits).unwrap();
        bad.smem = case.smem.clone();
        let g = device_function(&bad).unwrap();
        let honest_helpers = offset_helpers(&f.code);
        let wrong_helpers = offset_helpers(&g.code);
        let planted = g.code.replacen(wrong_helpers, honest_helpers, 1);
        let (ok, out) = run_case(&format!("{label}_planted"), &demo_with(&planted));
        assert!(
            !ok && out.contains("\"ok\": false"),
            "{label}: planted passed: {out}"
        );
    }
}

#[test]
fn bad_requests_are_errors_naming_the_value() {
    let shape = [64, 64];
    let (src, dst) = (layout(BLK_ROW, shape), layout(MMA2, shape));
    let e = case_for_pair("2cvt", &src, &dst, &shape, 16).unwrap_err();
    assert!(e.to_string().contains("2cvt"), "{e}");
    let e = case_for_pair("cvt", &src, &dst, &shape, 12).unwrap_err();
    assert!(e.to_string().contains("12"), "{e}");
    let w8 = layout(
        "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]}>",
        shape,
    );
    let e = case_for_pair("cvt", &src, &w8, &shape, 16).unwrap_err();
    assert!(
        e.to_string().contains('8') && e.to_string().contains('4'),
        "{e}"
    );
    // The kernel form is the benchmark's kernel without host code.
    let case = case_for_pair("k", &src, &dst, &shape, 16).unwrap();
    let k = emit(&case, Output::Kernel).unwrap();
    assert!(k.contains("bench(") && !k.contains("int main("));
    assert!(emit(&case, Output::Bench).unwrap().contains("int main("));
}

/// A kernel in which only warp `only` converts its part of one tile (the
/// other warps return at once) and a host check of that part; a watchdog
/// fails the program when a barrier waits for the absent warps.
fn one_warp_program(header: &str, warps: u64) -> String {
    format!(
        r#"#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <chrono>
#include <vector>
#include <cuda_runtime.h>
{header}
extern "C" __global__ void bench(const CVT_T* in, CVT_T* out, unsigned only) {{
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  if (warp != only) return;
  CVT_T src[CVT_SRC_REGS], dst[CVT_DST_REGS];
  for (unsigned r = 0; r < CVT_SRC_REGS; ++r) src[r] = in[cvt_src_offset(r, lane, warp)];
  cvt(src, dst, reinterpret_cast<CVT_T*>(smem_raw), lane, warp);
  for (unsigned r = 0; r < CVT_DST_REGS; ++r) out[cvt_dst_offset(r, lane, warp)] = dst[r];
}}
int main() {{
  std::thread([] {{
    std::this_thread::sleep_for(std::chrono::seconds(10));
    printf("{{\"case\": \"one_warp\", \"ok\": false, \"error\": \"a barrier waited for the other warps\"}}\n");
    fflush(stdout);
    std::_Exit(4);
  }}).detach();
  std::vector<CVT_T> h(CVT_TILE), o(CVT_TILE);
  for (size_t i = 0; i < h.size(); ++i) h[i] = (CVT_T)(i * 2654435761u + 1u);
  size_t bad = 0;
  for (unsigned only = 0; only < {warps}u; ++only) {{
    for (auto& x : o) x = 0;
    bench<<<1, CVT_THREADS, CVT_SCRATCH_BYTES>>>(h.data(), o.data(), only);
    // Exactly warp `only`'s destination elements arrive, each right.
    std::vector<char> mine(CVT_TILE, 0);
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned r = 0; r < CVT_DST_REGS; ++r) mine[cvt_dst_offset(r, lane, only)] = 1;
    for (size_t i = 0; i < o.size(); ++i) bad += mine[i] ? o[i] != h[i] : o[i] != 0;
  }}
  printf("{{\"case\": \"one_warp\", \"ok\": %s, \"wrong\": %zu}}\n", bad == 0 ? "true" : "false", bad);
  return bad == 0 ? 0 : 3;
}}
"#,
        header = header.replace("#pragma once\n", "")
    )
}

/// A warp-private conversion (no element leaves its warp, so its scratch
/// is warp-private: `layout_codegen::warp_private`) synchronises with
/// `__syncwarp()` only, so one warp may run it while the others do not:
/// each warp alone converts its part right. Planted: the same function
/// with `__syncthreads()` waits for the absent warps (the watchdog fails
/// it).
#[test]
fn a_warp_private_device_function_runs_in_one_warp_alone() {
    let shape = [64, 64];
    let src = layout("#ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>", shape);
    let dst = layout("#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>, kWidth = 4}>", shape);
    let case = case_for_pair("cvt", &src, &dst, &shape, 8).unwrap();
    let f = device_function(&case).unwrap();
    assert_eq!(f.path, Path::SharedMemory);
    assert!(f.code.contains("__syncwarp();") && !f.code.contains("__syncthreads()"));
    assert!(f.code.contains("Warp-private scratch"));
    // A conversion that moves elements between warps keeps its CTA barrier.
    let cross = case_for_pair(
        "cvt",
        &layout(BLK_ROW, shape),
        &layout(MMA2, shape),
        &shape,
        16,
    )
    .unwrap();
    let g = device_function(&cross).unwrap();
    assert!(g.code.contains("__syncthreads();") && !g.code.contains("__syncwarp()"));
    if !have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    let (ok, out) = run_case("one_warp", &one_warp_program(&f.code, 4));
    assert!(ok && out.contains("\"ok\": true"), "{out}");
    let planted = f.code.replace("__syncwarp();", "__syncthreads();");
    let (ok, out) = run_case("one_warp_planted", &one_warp_program(&planted, 4));
    assert!(
        !ok && out.contains("\"ok\": false"),
        "planted passed: {out}"
    );
}

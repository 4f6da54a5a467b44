//! The benchmark programs check the *forward* conversion: after the loop
//! one more `cvt_fwd` runs and its destination registers are stored by the
//! destination layout, so the host's element check fails whenever a
//! thread's destination registers hold anything but the elements the
//! destination layout assigns it. The planted mutation is the one a round
//! trip cannot see: two lane bits of the destination swapped in both
//! directions (the program converts `src ↔ dst'` with `dst'` the destination
//! with lane bases 0 and 1 exchanged, which its own way back undoes). Run
//! with the correct store of `dst'`, the mutated program passes (the
//! conversion is a valid one); with the store of the real `dst` it must
//! fail, in the CPU emulation (`emu`) as it would on the device.

use hw_layouts::Encoding;
use layout_cuda::partial::emit_partial_benchmark;
use layout_cuda::{emit_benchmark, ConversionCase, Path};
use linear_layout::LinearLayout;
mod emu;
use emu::{check, have_gxx, run_case};

const BLK_ROW: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";
const BLK_COL: &str = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>";
const P_B22: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>";
const P_B41: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";

/// The line that opens the destination store (see `KernelSides::emit_store`).
const STORE_MARK: &str =
    "  // The forward check: the destination registers, stored by the destination layout.";

fn layout(enc: &str, shape: [u64; 2]) -> LinearLayout {
    Encoding::parse(enc)
        .unwrap()
        .to_linear_layout(&shape)
        .unwrap()
}

/// `l` with in-dim `dim`'s bases `i` and `j` exchanged.
fn exchange(l: &LinearLayout, dim: usize, (i, j): (usize, usize)) -> LinearLayout {
    let mut bases = l.all_bases();
    bases[dim].1.swap(i, j);
    LinearLayout::new(bases, l.out_dims(), true).unwrap()
}

/// `src` with register basis 0 and lane basis 0 exchanged (a warp-shuffle
/// conversion).
fn swap1(src: &LinearLayout) -> LinearLayout {
    let mut bases = src.all_bases();
    let r = bases[0].1[0].clone();
    bases[0].1[0] = bases[1].1[0].clone();
    bases[1].1[0] = r;
    LinearLayout::new(bases, src.out_dims(), true).unwrap()
}

fn case(name: &str, bits: u32, src: LinearLayout, dst: LinearLayout) -> ConversionCase {
    let shape = [64u64, 64];
    let smem = layout_codegen::swizzle_search::search_shared_layout(&src, &dst, bits, 32)
        .map_or_else(|_| layout_cuda::gather::row_major_smem(&shape), |x| x.0);
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

/// The destination store of a program: from its marker to the kernel's end.
fn store_block(code: &str) -> &str {
    let start = code.find(STORE_MARK).expect("store marker");
    let end = start + code[start..].find("\n}\n").expect("kernel end");
    &code[start..end]
}

/// `mutated` with its destination store replaced by `honest`'s.
fn with_store_of(mutated: &str, honest: &str) -> String {
    mutated.replacen(store_block(mutated), store_block(honest), 1)
}

type Emit = fn(&ConversionCase) -> String;

fn full(c: &ConversionCase) -> String {
    emit_benchmark(c).unwrap().0
}

fn partial(c: &ConversionCase) -> String {
    emit_partial_benchmark(c, true).unwrap().code
}

#[test]
fn a_destination_undone_by_the_way_back_fails_the_forward_check() {
    if !have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    let s64 = |e: &str| layout(e, [64, 64]);
    let row = s64(BLK_ROW);
    let cases: Vec<(&str, u32, LinearLayout, LinearLayout, Emit)> = vec![
        ("fwd_shfl_f32", 32, row.clone(), swap1(&row), full),
        ("fwd_shfl_f16", 16, row.clone(), swap1(&row), full),
        ("fwd_smem_f16", 16, row.clone(), s64(BLK_COL), full),
        ("fwd_smem_f8", 8, row.clone(), s64(BLK_COL), full),
        ("fwd_partial_f16", 16, s64(P_B22), s64(P_B41), partial),
    ];
    let mut paths = Vec::new();
    for (name, bits, src, dst, emit) in cases {
        let honest = emit(&case(name, bits, src.clone(), dst.clone()));
        check(name, &honest);
        // Lane bases 0 and 1 of the destination exchanged: a valid
        // conversion to another layout, undone by its own way back.
        let other = exchange(&dst, 1, (0, 1));
        assert_ne!(other, dst);
        let mname = format!("{name}_mutated");
        let mutated = emit(&case(&mname, bits, src, other));
        check(&mname, &mutated);
        let planted = with_store_of(&mutated, &honest);
        assert_ne!(planted, mutated, "{name}: the stores are the same");
        let (success, out) = run_case(&mname, &planted);
        assert!(
            !success && out.contains("\"ok\": false"),
            "{name}: the forward check passed a wrong destination: {out}"
        );
        paths.push(name);
    }
    // The cases cover both plan classes of the full emitter.
    let class = |bits| {
        emit_benchmark(&case("c", bits, row.clone(), swap1(&row)))
            .unwrap()
            .1
    };
    assert_eq!(class(32), Path::WarpShuffle);
    let t = emit_benchmark(&case("t", 16, row.clone(), s64(BLK_COL)))
        .unwrap()
        .1;
    assert_eq!(t, Path::SharedMemory);
    assert_eq!(paths.len(), 5);
}

/// A replicated destination (mma v2 `[2, 2]` accumulators to their A
/// operand, held by both warps of an N pair): the store writes one copy,
/// and the kernel checks every other copy against the input. Planted: one
/// register of the replica warps corrupted after the last conversion. The
/// program must fail (the kernel traps), and without the replica check the
/// same program passes: the hole the check closes.
#[test]
fn a_wrong_copy_of_a_replicated_destination_fails() {
    if !have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    const MMA2: &str = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>";
    let dot_a = format!("#ttg.dot_op<{{opIdx = 0, parent = {MMA2}, kWidth = 2}}>");
    let (src, dst) = (layout(MMA2, [64, 64]), layout(&dot_a, [64, 64]));
    let (_, free_lanes, free_warps) = layout_codegen::shared_words::free_masks(&dst);
    assert!(
        free_warps != 0 && free_lanes == 0,
        "{free_warps} {free_lanes}"
    );
    let emits: [(&str, Emit); 2] = [("rep_full", full), ("rep_partial", partial)];
    for (name, emit) in emits {
        let honest = emit(&case(name, 16, src.clone(), dst.clone()));
        assert!(honest.contains("__trap()"), "{name}: no replica check");
        check(name, &honest);
        // 16-bit registers are held as consecutive words after the loop.
        let corrupt = format!("  if (warp & {free_warps}u) bw[0] ^= 1u;\n{STORE_MARK}");
        let planted = honest.replacen(STORE_MARK, &corrupt, 1);
        assert_ne!(planted, honest);
        let (success, out) = run_case(&format!("{name}_planted"), &planted);
        assert!(
            !success && out.contains("\"ok\": false"),
            "{name}: a wrong replica passed: {out}"
        );
        let unchecked = planted.replace("__trap();", "(void)0;");
        // (The program names itself `name` in its JSON line.)
        check(name, &unchecked);
    }
}

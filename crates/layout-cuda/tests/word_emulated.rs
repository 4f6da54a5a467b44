//! End-to-end CPU run of conversion programs whose warp shuffles work on
//! packed 16-bit pairs and 8-bit quadruples (`layout_cuda::word_shuffle`): the harness of
//! `gather_emulated.rs` with `__byte_perm` written from the PTX definition
//! of `prmt`; the program's own host code checks every element.

use hw_layouts::Encoding;
use layout_cuda::gather::row_major_smem;
use layout_cuda::{emit_benchmark, ConversionCase, Path};
use linear_layout::LinearLayout;
mod emu;
use emu::{check, have_gxx, run_case};

const BLK_ROW: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";

fn blocked(enc: &str, shape: [u64; 2]) -> LinearLayout {
    Encoding::parse(enc)
        .unwrap()
        .to_linear_layout(&shape)
        .unwrap()
}

/// `src` with register basis `k` and lane basis `k` exchanged for `k < swaps`.
fn swapped(src: &LinearLayout, swaps: usize) -> LinearLayout {
    let mut bases = src.all_bases();
    for k in 0..swaps {
        let r = bases[0].1[k].clone();
        bases[0].1[k] = bases[1].1[k].clone();
        bases[1].1[k] = r;
    }
    LinearLayout::new(bases, src.out_dims(), true).unwrap()
}

fn case(name: &str, bits: u32, src: LinearLayout, dst: LinearLayout) -> ConversionCase {
    let shape = [64u64, 64];
    let smem = row_major_smem(&shape);
    ConversionCase {
        name: name.into(),
        shape: shape.to_vec(),
        bits,
        num_warps: 4,
        src,
        dst,
        smem,
        // Shuffles only: on some pairs shared memory would be cheaper, and
        // these programs exercise the word-form shuffles.
        options: layout_codegen::plan_options::PlanOptions::shuffles_only(),
    }
}

fn cases() -> Vec<ConversionCase> {
    let src = blocked(BLK_ROW, [64, 64]);
    vec![
        // Register bit 0 <-> lane bit 0: the pairs split (lane-dependent prmt).
        case("words_swap1_64x64", 16, src.clone(), swapped(&src, 1)),
        // Two swaps: pairs split and the register bit 1 moves too.
        case("words_swap2_64x64", 16, src.clone(), swapped(&src, 2)),
        // 8-bit: four elements per word, the byte-wise add of the kernel.
        case("words_swap1_64x64_u8", 8, src.clone(), swapped(&src, 1)),
    ]
}

#[test]
fn packed_word_shuffle_programs_run_correctly_on_the_cpu() {
    if !have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    let mut permuted = false;
    for c in cases() {
        let (code, fwd, bwd) = emit_benchmark(&c).unwrap();
        assert_eq!(
            (fwd, bwd),
            (Path::WarpShuffle, Path::WarpShuffle),
            "{}",
            c.name
        );
        assert!(code.contains("cvt_fwd(aw, bw,"), "{}: not on words", c.name);
        permuted |= code.contains("__byte_perm(");
        check(&c.name, &code);
    }
    assert!(permuted, "no case used a lane-dependent permute");
}

/// A wrong selector (the two halves of the first permute's constant for
/// odd lanes exchanged) must fail the program's own check.
#[test]
fn a_wrong_selector_fails_the_programs_own_check() {
    if !have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    let c = cases().remove(0);
    let (code, _, _) = emit_benchmark(&c).unwrap();
    let at = code
        .find("const uint32_t p0 = ((lane >> 0) & 1u ? 0x")
        .expect("a lane-dependent selector");
    let start = at + "const uint32_t p0 = ((lane >> 0) & 1u ? 0x".len();
    let sel = &code[start..start + 4];
    let swapped = format!("{}{}", &sel[2..], &sel[..2]);
    assert_ne!(sel, swapped);
    let bad = format!("{}{}{}", &code[..start], swapped, &code[start + 4..]);
    let (success, out) = run_case("words_mutated", &bad);
    assert!(!success, "{out}");
    assert!(out.contains("\"ok\": false"), "{out}");
}

//! Conversions through shared memory on packed words
//! (`layout_codegen::shared_words` decides, `layout_cuda::shared_words`
//! emits): a CPU model of the word stores and loads
//! must deliver every element to the slot its destination packing names,
//! wavefronts on words must equal those on elements, a wrong packing must
//! be caught, and whole generated programs run correctly under emulation.

use hw_layouts::Encoding;
use layout_codegen::shared_words::{plan_shared_words as plan, SharedWordPlan, WordPacking};
use layout_codegen::swizzle_search::search_shared_layout;
use layout_codegen::wavefront::predicated_access_wavefronts;
use layout_cuda::{emit_benchmark, free_masks, smem_map, AccessMap, ConversionCase, Path};
use linear_layout::{DimName, LinearLayout};
mod emu;
use emu::{check, have_gxx};

const BLK_ROW: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";
const BLK_COL: &str = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>";
const WGMMA: &str = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>";
const MMA2: &str = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>";
const DOT_B: &str = "#ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>";

fn layout(attr: &str, shape: [u64; 2]) -> LinearLayout {
    Encoding::parse(attr)
        .unwrap()
        .to_linear_layout(&shape)
        .unwrap()
}

/// (name, shape, bits, src, dst, smem).
type Case = (
    &'static str,
    [u64; 2],
    u32,
    LinearLayout,
    LinearLayout,
    LinearLayout,
);

/// The cases: the shared layout is the one the
/// GPU suite's round trips take (`search_shared_layout`).
fn cases() -> Vec<Case> {
    let specs: [(&str, [u64; 2], u32, &str, &str); 5] = [
        ("T_128x128_u8", [128, 128], 8, BLK_ROW, BLK_COL),
        ("T_64x64_u8", [64, 64], 8, BLK_ROW, BLK_COL),
        ("to_wgmma_128x128_u8", [128, 128], 8, BLK_ROW, WGMMA),
        ("T_64x64_u16", [64, 64], 16, BLK_ROW, BLK_COL),
        ("mma2_to_dotB_64x64_u16", [64, 64], 16, MMA2, DOT_B),
    ];
    specs
        .iter()
        .map(|&(name, shape, bits, s, d)| {
            let (src, dst) = (layout(s, shape), layout(d, shape));
            let (smem, _) = search_shared_layout(&src, &dst, bits, 32).unwrap();
            (name, shape, bits, src, dst, smem)
        })
        .collect()
}

fn coords(l: &LinearLayout, r: u64, lane: u64, w: u64) -> (u64, u64) {
    let c = l
        .apply(&[
            (DimName::REGISTER, r),
            (DimName::LANE, lane),
            (DimName::WARP, w),
            (DimName::BLOCK, 0),
        ])
        .unwrap();
    (c[0].1, c[1].1)
}

/// Runs `from → to` on words the way the emitted code does: each thread
/// stores word `j` (its elements `from_pack.register(j, k)`, as logical
/// coordinates) at word offset `from_map(j, lane, warp)`, then loads word
/// `j` from `to_map(j, lane, warp)`. Returns the first destination slot
/// whose coordinate differs from what `to` says it holds.
fn simulate(
    p: &SharedWordPlan,
    forward: bool,
    (from, to): (&LinearLayout, &LinearLayout),
    smem_words: usize,
) -> Option<String> {
    let (fm, fp, tm, tp) = if forward {
        (&p.src_map, &p.src, &p.dst_map, &p.dst)
    } else {
        (&p.dst_map, &p.dst, &p.src_map, &p.src)
    };
    let nw = from.in_dim_size(DimName::WARP);
    let mut mem: Vec<Option<Vec<(u64, u64)>>> = vec![None; smem_words];
    for w in 0..nw {
        for lane in 0..32 {
            for j in 0..fp.num_words() {
                let word: Vec<_> = (0..fp.per_word())
                    .map(|k| coords(from, fp.register(j, k), lane, w))
                    .collect();
                let o = fm.offset(j, lane, w) as usize;
                if let Some(old) = &mem[o] {
                    if *old != word {
                        return Some(format!("word {o} written with two contents"));
                    }
                }
                mem[o] = Some(word);
            }
        }
    }
    for w in 0..nw {
        for lane in 0..32 {
            for j in 0..tp.num_words() {
                let o = tm.offset(j, lane, w) as usize;
                let got = mem[o].as_ref()?;
                for k in 0..tp.per_word() {
                    let want = coords(to, tp.register(j, k), lane, w);
                    if got[k as usize] != want {
                        return Some(format!(
                            "lane {lane} warp {w} word {j} slot {k}: got {:?}, want {want:?}",
                            got[k as usize]
                        ));
                    }
                }
            }
        }
    }
    None
}

#[test]
fn word_conversions_deliver_every_element_in_both_directions() {
    let mut non_consecutive = 0;
    for (name, shape, bits, src, dst, smem) in cases() {
        let p = plan(&src, &dst, &smem, bits)
            .unwrap()
            .unwrap_or_else(|| panic!("{name}: no shared-word plan"));
        let words = (shape[0] * shape[1] * bits as u64 / 32) as usize;
        assert_eq!(simulate(&p, true, (&src, &dst), words), None, "{name} fwd");
        assert_eq!(simulate(&p, false, (&dst, &src), words), None, "{name} bwd");
        non_consecutive += usize::from(!p.src.is_consecutive() || !p.dst.is_consecutive());
    }
    assert!(
        non_consecutive >= 3,
        "the cases should exercise packings other than consecutive registers"
    );
}

#[test]
fn a_wrong_packing_is_caught_by_the_model() {
    // Swapping the two byte-slot bits of the destination, or packing it by
    // consecutive registers, puts elements in the wrong slots.
    let (name, shape, bits, src, dst, smem) = cases().swap_remove(0);
    let p = plan(&src, &dst, &smem, bits).unwrap().unwrap();
    let words = (shape[0] * shape[1] / 4) as usize;
    let mut swapped = p.clone();
    swapped.dst.slot_bits.reverse();
    assert!(
        simulate(&swapped, true, (&src, &dst), words).is_some(),
        "{name}"
    );
    let mut consecutive = p.clone();
    consecutive.dst = WordPacking::consecutive(8, p.dst.num_regs).unwrap();
    assert_ne!(
        consecutive.dst, p.dst,
        "{name}: the test needs another packing"
    );
    assert!(
        simulate(&consecutive, true, (&src, &dst), words).is_some(),
        "{name}"
    );
}

/// Wavefronts of every vector access of `map` (one per group whose first
/// register has no bit of `skip`) by every thread `active` says stores, 4
/// warps, counted by layout-codegen's one counter.
fn wavefronts(
    map: &AccessMap,
    bits: u32,
    warps: u64,
    skip: u64,
    active: impl Fn(u64, u64) -> bool,
) -> u64 {
    let bytes = map.vector_width(bits) * u64::from(bits) / 8;
    let mut total = 0;
    for w in 0..warps {
        for g in map.groups(bits).iter().filter(|g| g[0] & skip == 0) {
            let starts: Vec<Option<u64>> = (0..32)
                .map(|l| active(l, w).then(|| map.offset(g[0], l, w) * u64::from(bits) / 8))
                .collect();
            total += predicated_access_wavefronts(&starts, bytes)
                .iter()
                .sum::<u64>();
        }
    }
    total
}

#[test]
fn word_maps_cost_the_same_wavefronts_as_element_maps() {
    for (name, _, bits, src, dst, smem) in cases() {
        let p = plan(&src, &dst, &smem, bits).unwrap().unwrap();
        for (l, words, pack, free) in [
            (&src, &p.src_map, &p.src, p.src_free),
            (&dst, &p.dst_map, &p.dst, p.dst_free),
        ] {
            let elems = smem_map(l, &smem).unwrap();
            let (fr, fl, fw) = free_masks(l);
            let active = |ln: u64, w: u64| ln & fl == 0 && w & fw == 0;
            let by_elements = wavefronts(&elems, bits, 4, fr, active);
            let by_words = wavefronts(&AccessMap::from(words), 32, 4, free.0, active);
            assert_eq!(by_elements, by_words, "{name}");
            // Word bit i is free iff the first register of word 2^i is a
            // free register (the slot bits are never free).
            for i in 0..words.reg.len() {
                let r = pack.register(1 << i, 0);
                assert_eq!(free.0 >> i & 1 == 1, r & fr != 0, "{name}: word bit {i}");
            }
        }
    }
}

#[test]
fn packings_exist_only_where_words_stay_in_one_thread() {
    // Row-major shared memory under a transpose: the bytes of a word are
    // one source thread's but four destination threads'.
    let shape = [64, 64];
    let (src, dst) = (layout(BLK_ROW, shape), layout(BLK_COL, shape));
    let row_major = layout_cuda::gather::row_major_smem(&shape);
    assert_eq!(plan(&src, &dst, &row_major, 8).unwrap(), None);
    // 32-bit elements are never packed.
    let (smem, _) = search_shared_layout(&src, &dst, 32, 32).unwrap();
    assert_eq!(plan(&src, &dst, &smem, 32).unwrap(), None);
}

#[test]
fn shared_word_programs_run_correctly_on_the_cpu() {
    if !have_gxx() {
        eprintln!("g++ not found: skipping the emulated run");
        return;
    }
    let mut repacked = false;
    for (name, shape, bits, src, dst, smem) in cases() {
        if shape[0] > 64 {
            continue; // the 128x128 ones run in the ignored whole-suite test
        }
        let p = plan(&src, &dst, &smem, bits).unwrap().unwrap();
        repacked |= !p.src.is_consecutive();
        let c = ConversionCase {
            name: format!("sw_{name}"),
            shape: shape.to_vec(),
            bits,
            num_warps: 4,
            src,
            dst,
            smem,
            options: layout_codegen::plan_options::PlanOptions::shared_only(),
        };
        let (code, fwd, bwd) = emit_benchmark(&c).unwrap();
        assert_eq!((fwd, bwd), (Path::SharedMemory, Path::SharedMemory));
        assert!(code.contains("uint32_t* smem_w"), "{name}: not on words");
        check(&c.name, &code);
    }
    assert!(repacked, "no program packed its source by other registers");
}

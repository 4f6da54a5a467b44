//! `replica::local_conversion_layout` against brute force: on random
//! (broadcast) layouts it is a conversion map, and it reads every element
//! from a replica in the reader's own warp (lane) whenever the source holds
//! one there; for injective sources it is Triton's map.

mod common;

use common::{mix_bits, random_distributed, random_shape, Rng};
use hw_layouts::Encoding;
use layout_codegen::conversion::{classify, conversion_layout, ConversionKind};
use layout_codegen::replica::{local_conversion_layout, reads_own};
use linear_layout::{DimName, LinearLayout};

/// (register, lane, warp) of a flat index of `l`'s in dims.
fn split(l: &LinearLayout, f: u64) -> (u64, u64, u64) {
    let nr = l.in_dim_size_log2(DimName::REGISTER);
    let nl = l.in_dim_size_log2(DimName::LANE);
    let nw = l.in_dim_size_log2(DimName::WARP);
    let m = |n: u32| (1u64 << n) - 1;
    (f & m(nr), f >> nr & m(nl), f >> (nr + nl) & m(nw))
}

/// Checks validity and locality of the map for one pair, by enumerating
/// every destination index and every source replica of its element.
/// Whether `c` reads every destination index from its own warp.
fn reads_own_brute(c: &LinearLayout, src: &LinearLayout, dst: &LinearLayout) -> bool {
    (0..dst.total_in_dim_size()).all(|x| split(src, c.apply_flat(x)).2 == split(dst, x).2)
}

fn check_pair(src: &LinearLayout, dst: &LinearLayout) {
    let c = local_conversion_layout(src, dst).unwrap();
    let mut replicas: std::collections::HashMap<u64, Vec<u64>> = Default::default();
    for f in 0..src.total_in_dim_size() {
        replicas.entry(src.apply_flat(f)).or_default().push(f);
    }
    for x in 0..dst.total_in_dim_size() {
        let e = dst.apply_flat(x);
        let got = c.apply_flat(x);
        assert_eq!(
            src.apply_flat(got),
            e,
            "src(C({x})) != dst({x})\n{src:?}\n{dst:?}"
        );
        let (_, l, w) = split(dst, x);
        let (_, gl, gw) = split(src, got);
        let reps = &replicas[&e];
        if reps.iter().any(|&r| split(src, r).2 == w) {
            assert_eq!(
                gw, w,
                "a same-warp replica exists for {x} but C reads warp {gw}"
            );
            if reps
                .iter()
                .any(|&r| split(src, r).2 == w && split(src, r).1 == l)
            {
                assert_eq!(
                    gl, l,
                    "a same-lane replica exists for {x} but C reads lane {gl}"
                );
            }
        }
    }
    if src.is_injective() {
        assert_eq!(c, conversion_layout(src, dst).unwrap());
    }
}

#[test]
fn random_broadcast_pairs_are_valid_and_local() {
    let mut rng = Rng(0x005e_ed0f_4e91_1ca5);
    let mut local_wins = 0;
    for i in 0..600 {
        let bits = 3 + rng.below(6) as u32;
        let shape = random_shape(&mut rng, bits, 2);
        let (lanes, warps) = (rng.below(4) as usize, rng.below(3) as usize);
        let zs = rng.below(3) as usize;
        let zd = rng.below(3) as usize;
        let mut src = random_distributed(&mut rng, &shape, lanes, warps, zs);
        let mut dst = random_distributed(&mut rng, &shape, lanes, warps, zd);
        if src.in_dim_size(DimName::LANE) != dst.in_dim_size(DimName::LANE)
            || src.in_dim_size(DimName::WARP) != dst.in_dim_size(DimName::WARP)
        {
            continue;
        }
        if i % 3 == 0 {
            src = mix_bits(&mut rng, &src, 3);
        }
        if i % 5 == 0 {
            dst = mix_bits(&mut rng, &dst, 3);
        }
        check_pair(&src, &dst);
        let own = reads_own(&src, &dst, false).unwrap();
        assert_eq!(
            own,
            reads_own_brute(&local_conversion_layout(&src, &dst).unwrap(), &src, &dst)
        );
        if own && !reads_own_brute(&conversion_layout(&src, &dst).unwrap(), &src, &dst) {
            local_wins += 1;
        }
    }
    // The batch exercises the case the module exists for: warp-local
    // conversions that Triton's pivot choice sends across warps.
    assert!(local_wins > 10, "only {local_wins} pairs became warp-local");
}

fn ll(attr: &str, shape: &[u64]) -> LinearLayout {
    Encoding::parse(attr)
        .and_then(|e| e.to_linear_layout(shape))
        .expect("layout")
}

const MMA: &str =
    "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>";

fn dot_a() -> String {
    format!("#ttg.dot_op<{{opIdx = 0, parent = {MMA}, kWidth = 2}}>")
}

/// mma v2 `[2, 2]` accumulators from the A operand: every warp already holds
/// its accumulator block (the A operand is replicated over the N warps) in
/// the same lane, so no data leaves its thread; only the source register
/// depends on the warp (warp (m, 1) reads the second half of K). Triton's
/// rules see a warp-dependent map and go through shared memory.
#[test]
fn dot_a_to_mma_accumulator_stays_in_each_thread() {
    let (src, dst) = (ll(&dot_a(), &[64, 64]), ll(MMA, &[64, 64]));
    assert!(!src.is_injective());
    assert_eq!(classify(&src, &dst).unwrap(), ConversionKind::SharedMemory);
    assert!(reads_own(&src, &dst, true).unwrap());
    check_pair(&src, &dst);
    // The other direction crosses warps: half of each warp's A operand is
    // in the other N warp.
    assert!(!reads_own(&dst, &src, false).unwrap());
    check_pair(&dst, &src);
}

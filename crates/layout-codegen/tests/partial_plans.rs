//! Partial cross-warp plans (`layout_codegen::partial`): planned on real
//! Triton layouts, proven by `simulate_partial`, and mutations that must fail.

use hw_layouts::Encoding;
use layout_codegen::partial::{plan_partial, plan_split, simulate_partial, why_not_partial};
use linear_layout::{DimName, LinearLayout};

mod common;
use common::Rng;

fn ll(attr: &str, shape: &[u64]) -> LinearLayout {
    Encoding::parse(attr)
        .and_then(|e| e.to_linear_layout(shape))
        .expect("layout")
}

fn row_major(shape: &[u64]) -> LinearLayout {
    let id = LinearLayout::identity_1d;
    let (o, d0, d1) = (DimName::OFFSET, DimName::dim(0), DimName::dim(1));
    (id(shape[1], o, d1) * id(shape[0], o, d0))
        .transpose_outs(&[d0, d1])
        .unwrap()
}

fn blocked(spt: [u64; 2], tpw: [u64; 2], wpc: [u64; 2], order: [u64; 2]) -> String {
    format!(
        "#ttg.blocked<{{sizePerThread = [{}, {}], threadsPerWarp = [{}, {}], warpsPerCTA = [{}, {}], order = [{}, {}]}}>",
        spt[0], spt[1], tpw[0], tpw[1], wpc[0], wpc[1], order[0], order[1]
    )
}

const MMA2: &str = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>";

fn b22() -> String {
    blocked([1, 4], [8, 4], [2, 2], [1, 0])
}

/// Elements `(i, j)` of a 128×128 tile where `warp_of_src == warp_of_dst`,
/// counted from the hand-derived warp formulas of the blocked layouts.
/// Blocked, order [1, 0], sizePerThread [1, 4], threadsPerWarp [8, 4]: a warp
/// covers 8 rows × 16 columns; warpsPerCTA [a, b] places warp bits along
/// dim 1 first (b warps, 16 columns each), then dim 0 (a warps, 8 rows each).
fn hand_staying(src_wpc: [u64; 2], dst_wpc: [u64; 2]) -> u64 {
    let warp = |wpc: [u64; 2], i: u64, j: u64| (j / 16) % wpc[1] + wpc[1] * ((i / 8) % wpc[0]);
    let mut n = 0;
    for i in 0..128 {
        for j in 0..128 {
            n += (warp(src_wpc, i, j) == warp(dst_wpc, i, j)) as u64;
        }
    }
    n
}

#[test]
fn hand_formula_matches_the_derivations() {
    // [2,2] -> [4,1]: src warp c + 2a, dst a + 2b (a = bit 3 of i, b = bit 4
    // of i, c = bit 4 of j): equal iff a = b = c, a quarter.
    assert_eq!(hand_staying([2, 2], [4, 1]), 16384 / 4);
    // [2,2] -> [1,4]: dst warp c + 2d (d = bit 5 of j): equal iff a = d, half.
    assert_eq!(hand_staying([2, 2], [1, 4]), 16384 / 2);
}

#[test]
fn blocked_2x2_to_4x1_keeps_a_quarter_by_register_moves() {
    let shape = [128u64, 128];
    let (s, d) = (
        ll(&b22(), &shape),
        ll(&blocked([1, 4], [8, 4], [4, 1], [1, 0]), &shape),
    );
    for bits in [16, 32] {
        for (from, to) in [(&s, &d), (&d, &s)] {
            let p = plan_partial(from, to, &row_major(&shape), bits).unwrap();
            let r = simulate_partial(&p, from, to).unwrap();
            assert_eq!(r.registers_checked, 16384);
            assert_eq!(p.cost.staying_elements, hand_staying([2, 2], [4, 1]));
            // Same lanes and threadsPerWarp: staying elements keep their lane.
            assert_eq!(p.cost.shuffles, 0);
            // One move per staying register per warp: 4096 elements / 32 lanes.
            assert_eq!(p.cost.register_moves, 4096 / 32);
            // Groups align with the staying coset: exactly the crossing
            // elements go through shared memory.
            assert_eq!(r.slots_loaded, 16384 - hand_staying([2, 2], [4, 1]));
            assert!(p.cost.store_wavefronts * 4 == p.cost.full_store_wavefronts * 3);
            assert!(p.cost.load_wavefronts * 4 == p.cost.full_load_wavefronts * 3);
        }
    }
}

#[test]
fn blocked_2x2_to_1x4_keeps_half() {
    let shape = [128u64, 128];
    let (s, d) = (
        ll(&b22(), &shape),
        ll(&blocked([1, 4], [8, 4], [1, 4], [1, 0]), &shape),
    );
    let p = plan_partial(&s, &d, &row_major(&shape), 32).unwrap();
    let r = simulate_partial(&p, &s, &d).unwrap();
    assert_eq!(p.cost.staying_elements, hand_staying([2, 2], [1, 4]));
    assert_eq!(r.slots_loaded, 8192);
    assert_eq!(r.delivered_in_warp, 8192);
    assert_eq!(2 * p.cost.store_wavefronts, p.cost.full_store_wavefronts);
    // Two warp classes: warps 0 and 3 keep the rows with a = d... every warp
    // keeps a coset; classes group warps with identical code.
    let warps: usize = p.classes.iter().map(|k| k.warps.len()).sum();
    assert_eq!(warps, 4);
}

#[test]
fn lane_changing_staying_elements_use_shuffles() {
    // dst order [0, 1]: lane bits run down the rows first, so a staying
    // element changes lane (a shfl.idx per staying register).
    let shape = [128u64, 128];
    let (s, d) = (
        ll(&b22(), &shape),
        ll(&blocked([1, 4], [8, 4], [1, 4], [0, 1]), &shape),
    );
    for bits in [16, 32] {
        for (from, to) in [(&s, &d), (&d, &s)] {
            let p = plan_partial(from, to, &row_major(&shape), bits).unwrap();
            let r = simulate_partial(&p, from, to).unwrap();
            assert_eq!(r.registers_checked, 16384);
            assert_eq!(p.cost.shuffles, 8192 / 32);
            // Every staying element reads the same lane permutation
            // (constant 0): 32 / bits of them per 32-bit shuffle.
            assert_eq!(p.cost.packed_shuffles, 8192 / 32 / (32 / bits) as u64);
            assert_eq!(p.cost.register_moves, 0);
            assert!(p.cost.cheaper_than_full());
            assert_eq!(r.slots_loaded, 8192);
        }
    }
}

#[test]
fn dropping_a_store_fails() {
    let shape = [128u64, 128];
    let (s, d) = (
        ll(&b22(), &shape),
        ll(&blocked([1, 4], [8, 4], [4, 1], [1, 0]), &shape),
    );
    let p = plan_partial(&s, &d, &row_major(&shape), 32).unwrap();
    for k in 0..p.classes.len() {
        let mut m = p.clone();
        m.classes[k].stores.pop();
        let e = simulate_partial(&m, &s, &d).unwrap_err();
        assert!(e.to_string().contains("uninitialised"), "{e}");
    }
}

#[test]
fn a_wrong_warp_predicate_fails() {
    // Run warp w's class with another class's code: its loads or its staying
    // moves are wrong for w.
    let shape = [128u64, 128];
    let (s, d) = (
        ll(&b22(), &shape),
        ll(&blocked([1, 4], [8, 4], [1, 4], [1, 0]), &shape),
    );
    let p = plan_partial(&s, &d, &row_major(&shape), 16).unwrap();
    assert!(p.classes.len() >= 2);
    let mut m = p.clone();
    let w = m.classes[0].warps.remove(0);
    m.classes[1].warps.push(w);
    assert!(simulate_partial(&m, &s, &d).is_err());
    // And a warp with no class at all.
    let mut m = p.clone();
    m.classes[0].warps.remove(0);
    assert!(simulate_partial(&m, &s, &d).is_err());
}

#[test]
fn wrong_loads_or_moves_fail() {
    let shape = [128u64, 128];
    let (s, d) = (
        ll(&b22(), &shape),
        ll(&blocked([1, 4], [8, 4], [1, 4], [0, 1]), &shape),
    );
    let p = plan_partial(&s, &d, &row_major(&shape), 32).unwrap();
    let mut m = p.clone();
    m.classes[0].loads.pop();
    assert!(matches!(
        simulate_partial(&m, &s, &d),
        Err(layout_codegen::CodegenError::WrongElement { .. })
    ));
    let mut m = p.clone();
    m.classes[0].staying[0].src_lane.constant ^= 1;
    assert!(matches!(
        simulate_partial(&m, &s, &d),
        Err(layout_codegen::CodegenError::WrongElement { .. })
    ));
    let mut m = p.clone();
    m.classes[0].staying[0].src_register ^= 1;
    assert!(simulate_partial(&m, &s, &d).is_err());
}

#[test]
fn conversions_outside_the_class_are_refused_with_the_reason() {
    let shape = [128u64, 128];
    let b41 = ll(&blocked([1, 4], [8, 4], [4, 1], [1, 0]), &shape);
    let mma = ll(MMA2, &shape);
    let smem = row_major(&shape);
    // mma v2 [2,2] -> blocked [4,1]: the source warp depends on a lane bit.
    let e = plan_partial(&mma, &b41, &smem, 32).unwrap_err().to_string();
    assert!(e.contains("C_wl"), "{e}");
    // Identity: nothing crosses warps.
    let e = plan_partial(&b41, &b41, &smem, 32).unwrap_err().to_string();
    assert!(e.contains("no element crosses"), "{e}");
    // A broadcast layout (16x16 tile under a 32x16 layout) to itself: every
    // thread reads its own replica, nothing crosses warps.
    let small = ll(&blocked([1, 4], [8, 4], [4, 1], [1, 0]), &[16, 16]);
    assert!(!small.is_injective());
    let e = plan_partial(&small, &small, &row_major(&[16, 16]), 32)
        .unwrap_err()
        .to_string();
    assert!(e.contains("no element crosses"), "{e}");
    // A layout that does not cover its tile is refused.
    let holes = LinearLayout::new(
        vec![
            (DimName::REGISTER, vec![vec![0, 1]]),
            (DimName::LANE, vec![vec![0, 2]]),
            (DimName::WARP, vec![]),
        ],
        vec![(DimName::dim(0), 2), (DimName::dim(1), 8)],
        false,
    )
    .unwrap();
    let e = plan_partial(&holes, &holes, &row_major(&[2, 8]), 32)
        .unwrap_err()
        .to_string();
    assert!(e.contains("does not cover"), "{e}");
    assert!(plan_partial(&b41, &b41, &smem, 12).is_err());
}

fn dot_a() -> String {
    format!("#ttg.dot_op<{{opIdx = 0, parent = {MMA2}, kWidth = 2}}>")
}

/// mma v2 `[2, 2]` accumulators → A operand (replicated over the two N
/// warps): each warp keeps the half of its A rows it computed (register
/// moves, same lane) and loads the other half, which every warp stores
/// whole. The full plan loads both halves.
#[test]
fn mma_to_replicated_dot_a_keeps_half_in_registers() {
    let shape = [64u64, 64];
    let (mma, a) = (ll(MMA2, &shape), ll(&dot_a(), &shape));
    assert!(!a.is_injective());
    let p = plan_partial(&mma, &a, &row_major(&shape), 16).unwrap();
    let rep = simulate_partial(&p, &mma, &a).unwrap();
    // 4 warps x 32 lanes x 64 registers, half of them delivered in-warp.
    assert_eq!(rep.registers_checked, 4 * 32 * 64);
    assert_eq!(rep.delivered_in_warp, 4 * 32 * 32);
    let c = &p.cost;
    assert_eq!(c.staying_elements * 2, c.elements);
    assert_eq!((c.shuffles, c.register_moves), (0, 4 * 32));
    assert_eq!(c.store_wavefronts, c.full_store_wavefronts);
    assert_eq!(c.load_wavefronts * 2, c.full_load_wavefronts);
    // Staying moves pick the warp's own half: the two N warps differ.
    assert_eq!(p.classes.len(), 2);
    let mut m = p.clone();
    m.classes[1].staying[0].src_register ^= 1;
    assert!(simulate_partial(&m, &mma, &a).is_err());
}

/// A operand → mma v2 accumulators: every thread already holds its
/// accumulator elements (its own replica of the A rows), so the split plan
/// has no store, load or shuffle; only the source register depends on the
/// N warp. `plan_partial` refuses it (nothing crosses warps).
#[test]
fn dot_a_to_mma_is_register_moves_per_warp() {
    let shape = [64u64, 64];
    let (mma, a) = (ll(MMA2, &shape), ll(&dot_a(), &shape));
    let smem = row_major(&shape);
    let e = plan_partial(&a, &mma, &smem, 16).unwrap_err().to_string();
    assert!(e.contains("no element crosses"), "{e}");
    let p = plan_split(&a, &mma, &smem, 16).unwrap();
    simulate_partial(&p, &a, &mma).unwrap();
    let c = &p.cost;
    assert_eq!(c.store_wavefronts + c.load_wavefronts + c.shuffles, 0);
    assert_eq!(c.register_moves, 4 * 32);
    assert!(p
        .classes
        .iter()
        .all(|k| k.stores.is_empty() && k.loads.is_empty()));
    // The full plan stores one replica (two of the four warps): as many
    // wavefronts as the load of the same elements (4-byte accesses on both
    // sides); storing both replicas would double the store.
    assert_eq!(c.full_store_wavefronts, c.full_load_wavefronts);
    let regs: Vec<u64> = p
        .classes
        .iter()
        .map(|k| k.staying[0].src_register)
        .collect();
    assert!(
        regs.iter().any(|&r| r != regs[0]),
        "source register depends on the warp"
    );
    let mut m = p.clone();
    m.classes[0].staying.pop();
    assert!(simulate_partial(&m, &a, &mma).is_err());
}

#[test]
fn plan_serialises() {
    let shape = [128u64, 128];
    let (s, d) = (
        ll(&b22(), &shape),
        ll(&blocked([1, 4], [8, 4], [1, 4], [0, 1]), &shape),
    );
    let p = plan_partial(&s, &d, &row_major(&shape), 32).unwrap();
    let j = serde_json::to_value(&p).unwrap();
    assert_eq!(j["classes"].as_array().unwrap().len(), p.classes.len());
}

#[test]
fn why_not_partial_names_the_failed_condition() {
    let shape = [128u64, 128];
    let b41 = ll(&blocked([1, 4], [8, 4], [4, 1], [1, 0]), &shape);
    let s = ll(&b22(), &shape);
    assert_eq!(why_not_partial(&s, &b41).unwrap(), None);
    assert_eq!(why_not_partial(&b41, &s).unwrap(), None);
    // Column-major blocked destination: its lane bits run down the rows, and
    // row bit 3 is a source warp bit, so the source warp depends on a lane.
    let col = ll(&blocked([4, 1], [8, 4], [4, 1], [0, 1]), &shape);
    let why = why_not_partial(&s, &col).unwrap().unwrap();
    assert!(why.contains("C_wl"), "{why}");
}

fn rank(cols: &[u64]) -> usize {
    linear_layout::gf2::rank(cols) as usize
}

/// A random invertible set of `n` columns over `n` bits.
fn random_invertible(rng: &mut Rng, n: u32) -> Vec<u64> {
    loop {
        let cols: Vec<u64> = (0..n).map(|_| rng.next() & ((1 << n) - 1)).collect();
        if rank(&cols) == n as usize {
            return cols;
        }
    }
}

fn hw_layout(cols: &[u64], nr: usize, nl: usize, n: u32) -> LinearLayout {
    let v = |s: &[u64]| s.iter().map(|&c| vec![c]).collect::<Vec<_>>();
    LinearLayout::new(
        vec![
            (DimName::REGISTER, v(&cols[..nr])),
            (DimName::LANE, v(&cols[nr..nr + nl])),
            (DimName::WARP, v(&cols[nr + nl..])),
            (DimName::BLOCK, vec![]),
        ],
        vec![(DimName::dim(0), 1 << n)],
        true,
    )
    .unwrap()
}

#[test]
fn random_in_class_conversions_are_proven_and_mutations_fail() {
    // src: a random bijection (register 3 bits, lane 5, warp 2) onto a 1-D
    // tensor of 1024 elements; dst = src ∘ C with C (hardware → hardware)
    // random invertible under the class's constraints: lane inputs map only
    // to lane outputs (C_wl = 0, C_rl = 0). The shared layout is a random
    // bijection too. Every plan must pass the simulator; dropping any one
    // store must make it fail.
    let (nr, nl, nw) = (3usize, 5usize, 2usize);
    let n = (nr + nl + nw) as u32;
    let lane_bits = ((1u64 << nl) - 1) << nr;
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut planned, mut refused) = (0, 0);
    for case in 0..120 {
        let s_cols = random_invertible(&mut rng, n);
        let c_cols = loop {
            let mut c: Vec<u64> = (0..n).map(|_| rng.next() & ((1 << n) - 1)).collect();
            for col in c.iter_mut().skip(nr).take(nl) {
                *col &= lane_bits;
            }
            if rank(&c) == n as usize {
                break c;
            }
        };
        // dst basis i = src(C(e_i)).
        let apply = |cols: &[u64], x: u64| {
            cols.iter()
                .enumerate()
                .filter(|(i, _)| x >> i & 1 == 1)
                .fold(0, |a, (_, &c)| a ^ c)
        };
        let d_cols: Vec<u64> = c_cols.iter().map(|&x| apply(&s_cols, x)).collect();
        let src = hw_layout(&s_cols, nr, nl, n);
        let dst = hw_layout(&d_cols, nr, nl, n);
        let smem_cols = if case % 2 == 0 {
            (0..n).map(|i| 1u64 << i).collect()
        } else {
            random_invertible(&mut rng, n)
        };
        let smem = LinearLayout::new(
            vec![(
                DimName::OFFSET,
                smem_cols.iter().map(|&c| vec![c]).collect(),
            )],
            vec![(DimName::dim(0), 1 << n)],
            true,
        )
        .unwrap();
        let bits = [16, 32][case % 2];
        let p = match plan_partial(&src, &dst, &smem, bits) {
            Ok(p) => p,
            Err(e) => {
                // Only "nothing crosses" can happen under these constraints.
                assert!(e.to_string().contains("no element crosses"), "{e}");
                refused += 1;
                continue;
            }
        };
        planned += 1;
        let r = simulate_partial(&p, &src, &dst).unwrap();
        assert_eq!(r.registers_checked, 1 << n);
        assert!(p.cost.store_wavefronts <= p.cost.full_store_wavefronts);
        assert!(p.cost.load_wavefronts <= p.cost.full_load_wavefronts);
        for k in 0..p.classes.len() {
            for i in 0..p.classes[k].stores.len() {
                let mut m = p.clone();
                m.classes[k].stores.remove(i);
                assert!(simulate_partial(&m, &src, &dst).is_err(), "case {case}");
            }
        }
    }
    assert!(planned >= 100, "planned {planned}, refused {refused}");
}

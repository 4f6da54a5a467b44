//! What `SharedMemoryPlan::shared` is (its doc, checked), and random
//! matrix plans proved by the simulator.
//!
//! 1. The doc says: `shared` maps one offset per element of the whole tile;
//!    every round reuses one buffer; with `2^k > 1` rounds, `k` offset bit
//!    positions `P` of `shared` select the round and round `r`'s buffer
//!    offset `o` holds `shared(o')` with the bits of `o`, in order, at the
//!    positions outside `P` and the bits of `r` at `P`; with one round the
//!    buffer's offset bits are a bit permutation of `shared`'s. The test
//!    replays each plan's vector stores (element `j` of a store goes to
//!    `address + j`) and checks exactly that, with `P` read off the slots
//!    of offset 0 in rounds `2^j`.
//! 2. `plan_shared_matrix` without a given layout (optimal swizzle, rounds,
//!    matrix instructions where the tiling applies) is proved by the
//!    simulator on random 16-bit pairs.

mod common;
use common::{random_distributed, random_shape, Rng};
use layout_codegen::plan::ConversionPlan;
use layout_codegen::shared_conversion::{plan_shared_matrix, plan_via_shared_memory};
use layout_codegen::simulator::simulate;
use layout_codegen::CodegenError;
use linear_layout::{DimName, LinearLayout};

/// The element `layout` puts at (register, lane, warp), packed.
fn element(layout: &LinearLayout, r: u64, l: u64, w: u64) -> u64 {
    let ins: Vec<(DimName, u64)> = layout
        .in_dim_names()
        .map(|d| {
            let v = match d {
                DimName::REGISTER => r,
                DimName::LANE => l,
                DimName::WARP => w,
                _ => 0,
            };
            (d, v)
        })
        .collect();
    let out = layout.apply(&ins).unwrap();
    let vals: Vec<u64> = out.iter().map(|x| x.1).collect();
    layout.pack(&vals)
}

fn size(l: &LinearLayout, d: DimName) -> u64 {
    if l.has_in_dim(d) {
        l.in_dim_size(d)
    } else {
        1
    }
}

/// Puts the bits of `o` (in order) at the positions outside `p` and the bits
/// of `r` at `p` (ascending).
fn deposit(o: u64, r: u64, p: &[u32], bits: u32) -> u64 {
    let (mut x, mut oi, mut ri) = (0u64, 0, 0);
    for pos in 0..bits {
        let bit = if p.contains(&pos) {
            ri += 1;
            r >> (ri - 1) & 1
        } else {
            oi += 1;
            o >> (oi - 1) & 1
        };
        x |= bit << pos;
    }
    x
}

fn random_pair(rng: &mut Rng) -> (LinearLayout, LinearLayout) {
    let bits = 6 + rng.below(5) as u32;
    let rank = 1 + rng.below(2) as usize;
    let shape = random_shape(rng, bits, rank);
    let warps = rng.below(3) as usize;
    let extra = (5 + warps).saturating_sub(bits as usize);
    let zs = rng.below(2) as usize;
    let zd = rng.below(2) as usize;
    (
        random_distributed(rng, &shape, 5, warps, zs + extra),
        random_distributed(rng, &shape, 5, warps, zd + extra),
    )
}

#[test]
fn shared_is_the_whole_tile_and_rounds_deposit_into_it() {
    let mut rng = Rng(0x5ad0_c0de);
    let (mut multi, mut single) = (0, 0);
    for case in 0..300 {
        let (src, dst) = random_pair(&mut rng);
        let bw = [8u32, 16, 32, 64][rng.below(4) as usize];
        let p = match plan_via_shared_memory(&src, &dst, bw) {
            Ok(p) => p,
            Err(CodegenError::Unsupported(_)) => continue,
            Err(e) => panic!("case {case}: {e}"),
        };
        let sh = &p.shared_layout;
        let n = sh.in_dim_size_log2(DimName::OFFSET);
        // One offset per tile element.
        assert_eq!(1u64 << n, sh.total_out_dim_size(), "case {case}");
        let inv = sh.invert().unwrap();
        let where_in_shared = |e: u64| -> u64 {
            let ins: Vec<(DimName, u64)> = sh
                .out_dim_names()
                .zip(sh.unpack(e).iter().copied())
                .collect();
            inv.apply(&ins).unwrap()[0].1
        };
        // Replay the stores: (round, buffer offset) -> element.
        let nrounds = p.rounds.len();
        let mut buf = vec![vec![None; p.scratch_elems as usize]; nrounds];
        for (ri, round) in p.rounds.iter().enumerate() {
            for a in &round.stores {
                assert!(a.matrix.is_none());
                for w in 0..size(&src, DimName::WARP) {
                    for l in 0..size(&src, DimName::LANE) {
                        for (j, &r) in a.registers.iter().enumerate() {
                            let o = a.address.eval(l, w) + j as u64;
                            buf[ri][o as usize] = Some(element(&src, r, l, w));
                        }
                    }
                }
            }
        }
        let at = |r: usize, o: u64| where_in_shared(buf[r][o as usize].expect("stored"));
        let k = nrounds.trailing_zeros();
        assert_eq!(p.scratch_elems, 1u64 << (n - k), "case {case}");
        if nrounds > 1 {
            multi += 1;
            let pos: Vec<u32> = (0..k)
                .map(|j| {
                    let x = at(1 << j, 0);
                    assert!(x.is_power_of_two(), "case {case}: round {} at {x}", 1 << j);
                    x.trailing_zeros()
                })
                .collect();
            assert!(pos.windows(2).all(|w| w[0] < w[1]), "case {case}: {pos:?}");
            for r in 0..nrounds {
                for o in 0..p.scratch_elems {
                    assert_eq!(
                        at(r, o),
                        deposit(o, r as u64, &pos, n),
                        "case {case}: round {r} offset {o}"
                    );
                }
            }
        } else {
            single += 1;
            // A bit permutation: unit offsets go to distinct unit offsets and
            // the map is linear.
            let img: Vec<u64> = (0..n).map(|i| at(0, 1 << i)).collect();
            let mut seen = 0u64;
            for &x in &img {
                assert!(x.is_power_of_two() && seen & x == 0, "case {case}: {img:?}");
                seen |= x;
            }
            for o in 0..p.scratch_elems {
                let want = (0..n)
                    .filter(|i| o >> i & 1 == 1)
                    .fold(0, |x, i| x ^ img[i as usize]);
                assert_eq!(at(0, o), want, "case {case}: offset {o}");
            }
        }
    }
    assert!(multi >= 10 && single >= 10, "multi {multi} single {single}");
}

/// A 2-D `rows × cols` layout whose register bit 0 and lane bits 0..4 are
/// the `ldmatrix` fragment of 8×8 blocks (`trans`: of the transposed
/// blocks): register 0, lanes 0, 1 = column bits 0, 1, 2 and lanes 2..4 =
/// row bits 0..2 (swapped roles with `trans`); the other tensor bits go to
/// registers and warps in random order.
fn fragment_layout(rng: &mut Rng, rows: u64, cols: u64, trans: bool, warps: usize) -> LinearLayout {
    let unit = |d: usize, b: u32| {
        if d == 0 {
            vec![1u64 << b, 0]
        } else {
            vec![0, 1u64 << b]
        }
    };
    let (fast, slow) = if trans { (0, 1) } else { (1, 0) };
    let mut head = vec![unit(fast, 0), unit(fast, 1), unit(fast, 2)];
    head.extend((0..3).map(|b| unit(slow, b)));
    let mut rest: Vec<Vec<u64>> = (3..rows.trailing_zeros())
        .map(|b| unit(0, b))
        .chain((3..cols.trailing_zeros()).map(|b| unit(1, b)))
        .collect();
    rng.shuffle(&mut rest);
    let warps = warps.min(rest.len());
    let mut regs = vec![head[0].clone()];
    regs.extend(rest[warps..].iter().cloned());
    LinearLayout::new(
        vec![
            (DimName::REGISTER, regs),
            (DimName::LANE, head[1..].to_vec()),
            (DimName::WARP, rest[..warps].to_vec()),
            (DimName::BLOCK, vec![]),
        ],
        vec![(DimName::dim(0), rows), (DimName::dim(1), cols)],
        true,
    )
    .unwrap()
}

#[test]
fn random_matrix_plans_are_proved() {
    let mut rng = Rng(0x0dd_ba11);
    let (mut st, mut ld, mut plans) = (0, 0, 0);
    for case in 0..250 {
        let (src, dst) = if case % 2 == 0 {
            random_pair(&mut rng)
        } else {
            let rows: u64 = 8 << rng.below(3);
            let cols: u64 = 8 << rng.below(3);
            // Warp bits: at most the tensor bits beyond the fragment's 6.
            let spare = (rows * cols).trailing_zeros() as usize - 6;
            let w = (rng.below(3) as usize).min(spare);
            let t = rng.below(2) == 0;
            let a = fragment_layout(&mut rng, rows, cols, t, w);
            let b = if rng.below(2) == 0 {
                let t = rng.below(2) == 0;
                fragment_layout(&mut rng, rows, cols, t, w)
            } else {
                random_distributed(&mut rng, &[rows, cols], 5, w, 0)
            };
            if rng.below(2) == 0 {
                (a, b)
            } else {
                (b, a)
            }
        };
        let p = match plan_shared_matrix(&src, &dst, 16, None) {
            Ok(p) => p,
            Err(CodegenError::Unsupported(_)) => continue,
            Err(e) => panic!("case {case}: {e}"),
        };
        let rep = simulate(
            &ConversionPlan::SharedMemory(Box::new(p.clone())),
            &src,
            &dst,
        )
        .unwrap_or_else(|e| panic!("case {case}: {e}\n{src}\n{dst}"));
        plans += 1;
        st += rep.matrix_store_instructions.min(1);
        ld += rep.matrix_load_instructions.min(1);
        // The plan's analytic worst phase is the simulator's.
        assert_eq!(p.store_conflicts, rep.max_store_conflicts, "case {case}");
        assert_eq!(p.load_conflicts, rep.max_load_conflicts, "case {case}");
    }
    eprintln!("{plans} plans, {st} with stmatrix, {ld} with ldmatrix");
    assert!(plans >= 200 && st >= 15 && ld >= 15, "{plans} {st} {ld}");
}

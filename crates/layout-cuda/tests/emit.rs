//! CPU checks of the emitter: the address arithmetic it prints moves every
//! element where the layouts say, vectors are contiguous and aligned, and
//! the generated source is stable (snapshot).

use layout_codegen::plan::ConversionPlan;
use layout_codegen::plan_options::PlanOptions;
use layout_codegen::planner::{plan, plan_with, Target};
use layout_cuda::{emit_benchmark, global_map, smem_map, ConversionCase, Path};
use linear_layout::{DimName, LinearLayout};

fn blocked(
    spt: [u64; 2],
    tpw: [u64; 2],
    wpc: [u64; 2],
    order: [usize; 2],
    shape: [u64; 2],
) -> LinearLayout {
    // Independent construction (the paper's definition): products over `order`.
    let id = LinearLayout::identity_1d;
    let (r, l, w) = (DimName::REGISTER, DimName::LANE, DimName::WARP);
    let d = |i: usize| DimName::dim(i);
    let (a, b) = (order[0], order[1]);
    let tile = id(spt[a], r, d(a))
        * id(spt[b], r, d(b))
        * id(tpw[a], l, d(a))
        * id(tpw[b], l, d(b))
        * id(wpc[a], w, d(a))
        * id(wpc[b], w, d(b));
    // Repeat in registers to cover the shape (minor dim first).
    let rep_a = shape[a] / (spt[a] * tpw[a] * wpc[a]);
    let rep_b = shape[b] / (spt[b] * tpw[b] * wpc[b]);
    let full = tile * id(rep_a, r, d(a)) * id(rep_b, r, d(b));
    let full = full * LinearLayout::identity_1d(1, DimName::BLOCK, d(0));
    full.transpose_outs(&[d(0), d(1)]).unwrap()
}

fn row_major(shape: [u64; 2]) -> LinearLayout {
    layout_cuda::gather::row_major_smem(&shape)
}

fn coords(l: &LinearLayout, r: u64, lane: u64, w: u64) -> Vec<u64> {
    l.apply(&[
        (DimName::REGISTER, r),
        (DimName::LANE, lane),
        (DimName::WARP, w),
        (DimName::BLOCK, 0),
    ])
    .unwrap()
    .iter()
    .map(|c| c.1)
    .collect()
}

/// Runs the conversion the way the emitted code does, with the same
/// address maps, on a modelled shared memory holding coordinates.
fn simulate(src: &LinearLayout, dst: &LinearLayout, smem: &LinearLayout, bits: u32) {
    let st = smem_map(src, smem).unwrap();
    let ld = smem_map(dst, smem).unwrap();
    let mut mem = vec![None; smem.total_in_dim_size() as usize];
    let nw = src.in_dim_size(DimName::WARP);
    for w in 0..nw {
        for l in 0..32 {
            for r in 0..src.in_dim_size(DimName::REGISTER) {
                let o = st.offset(r, l, w) as usize;
                let c = coords(src, r, l, w);
                if let Some(prev) = &mem[o] {
                    assert_eq!(prev, &c, "two different elements stored at offset {o}");
                }
                mem[o] = Some(c);
            }
        }
    }
    for w in 0..nw {
        for l in 0..32 {
            for r in 0..dst.in_dim_size(DimName::REGISTER) {
                let o = ld.offset(r, l, w) as usize;
                assert_eq!(
                    mem[o].as_ref(),
                    Some(&coords(dst, r, l, w)),
                    "register {r} lane {l} warp {w}"
                );
            }
        }
    }
    // Vectors: v consecutive registers at consecutive offsets, aligned.
    for m in [&st, &ld] {
        let v = m.vector_width(bits);
        let groups = m.groups(bits);
        // Every register in exactly one group.
        let mut all: Vec<u64> = groups.iter().flatten().copied().collect();
        all.sort();
        assert_eq!(all, (0..1u64 << m.reg.len()).collect::<Vec<_>>());
        for w in 0..nw {
            for l in 0..32 {
                for g in &groups {
                    let base = m.offset(g[0], l, w);
                    assert_eq!(base % v, 0);
                    for (k, &r) in g.iter().enumerate() {
                        assert_eq!(m.offset(r, l, w), base + k as u64);
                    }
                }
            }
        }
    }
}

#[test]
fn shared_memory_transpose_moves_every_element() {
    let shape = [64, 64];
    let src = blocked([1, 4], [8, 4], [4, 1], [1, 0], shape);
    let dst = blocked([4, 1], [4, 8], [1, 4], [0, 1], shape);
    simulate(&src, &dst, &row_major(shape), 16);
    simulate(&dst, &src, &row_major(shape), 16);
}

#[test]
fn swizzled_conversions_move_every_element() {
    // The optimal swizzle (layout-codegen) as the shared layout, vectors
    // grouped over permuted registers where it needs them.
    for (bits, shape) in [(16, [64, 64]), (32, [32, 64]), (8, [64, 128])] {
        let src = blocked([1, 4], [8, 4], [4, 1], [1, 0], shape);
        let dst = blocked([4, 1], [4, 8], [1, 4], [0, 1], shape);
        let sw = layout_codegen::swizzle::optimal_swizzling(&src, &dst, bits).unwrap();
        simulate(&src, &dst, &sw.shared, bits);
        simulate(&dst, &src, &sw.shared, bits);
    }
}

#[test]
fn global_map_is_row_major() {
    let shape = [32, 64];
    let src = blocked([1, 4], [8, 4], [4, 1], [1, 0], shape);
    let g = global_map(&src, &shape).unwrap();
    for w in 0..4 {
        for l in 0..32 {
            for r in 0..src.in_dim_size(DimName::REGISTER) {
                let c = coords(&src, r, l, w);
                assert_eq!(g.offset(r, l, w), c[0] * shape[1] + c[1]);
            }
        }
    }
    assert_eq!(g.vector_width(16), 4);
}

/// The planner's register permutation (what the emitter translates into
/// `b[i] = a[p]`) moves every element within its thread, checked by
/// evaluating both layouts; a transpose is not one.
#[test]
fn register_permutation_planned_only_in_thread() {
    let shape = [64, 64];
    let src = blocked([1, 4], [8, 4], [4, 1], [1, 0], shape);
    let mut bases = src.all_bases();
    bases[0].1.reverse();
    let dst = LinearLayout::new(bases, src.out_dims(), true).unwrap();
    let p = plan(&src, &dst, 16, &Target::SM90).unwrap();
    let Some(ConversionPlan::RegisterPermutation { src_register }) = p.lowering.whole() else {
        panic!("{:?}", p.lowering.kind_name());
    };
    for (i, &r) in src_register.iter().enumerate() {
        for l in 0..32 {
            assert_eq!(coords(&dst, i as u64, l, 1), coords(&src, r, l, 1));
        }
    }
    let other = blocked([4, 1], [4, 8], [1, 4], [0, 1], shape);
    let q = plan(&src, &other, 16, &Target::SM90).unwrap();
    assert_ne!(q.lowering.kind_name(), "register");
}

/// The planner's store wavefronts (the one counter, through the
/// simulator) of a transpose through a row-major buffer, against a hand
/// count.
#[test]
fn wavefronts_of_row_major_transpose() {
    // Storing rows of 4 f16 per thread (8 bytes, 2 phases of 16 threads):
    // each phase writes 128 contiguous bytes: conflict-free.
    let shape = [64, 64];
    let src = blocked([1, 4], [8, 4], [4, 1], [1, 0], shape);
    let dst = blocked([4, 1], [4, 8], [1, 4], [0, 1], shape);
    let through = PlanOptions {
        through: Some(row_major(shape)),
        ..PlanOptions::default()
    };
    let p = plan_with(&src, &dst, 16, &Target::SM90, &through).unwrap();
    // 32 registers per thread (a 32×16 tile repeated 2×4 times) in groups
    // of 4: 4 warps × 8 groups × 2 phases.
    let ideal = 4 * 8 * 2;
    // Hand count: a phase = 16 threads = 4 rows × 4 threads of 8 bytes:
    // rows are 128 bytes apart (64 f16), so the 4 rows hit the same 8 banks:
    // 4 distinct words per bank -> 4 wavefronts per phase.
    assert_eq!(p.cost.store_wavefronts, 4 * ideal);
}

#[test]
fn emitted_source_snapshot() {
    let shape = [32, 32];
    let src = blocked([1, 4], [8, 4], [4, 1], [1, 0], shape);
    let dst = blocked([4, 1], [4, 8], [1, 4], [0, 1], shape);
    let case = ConversionCase {
        name: "snapshot".into(),
        shape: shape.to_vec(),
        bits: 16,
        num_warps: 4,
        src,
        dst,
        smem: row_major(shape),
        options: layout_codegen::plan_options::PlanOptions::whole(),
    };
    let (code, fwd, bwd) = emit_benchmark(&case).unwrap();
    assert_eq!((fwd, bwd), (Path::SharedMemory, Path::SharedMemory));
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshots/snapshot.cu");
    if std::env::var("UPDATE_SNAPSHOTS").is_ok() {
        std::fs::create_dir_all(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshots")).unwrap();
        std::fs::write(path, &code).unwrap();
    }
    let want =
        std::fs::read_to_string(path).expect("snapshot exists (UPDATE_SNAPSHOTS=1 to write)");
    assert_eq!(code, want);
}

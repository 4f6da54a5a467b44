//! Shared-memory plans: a swizzled scratch buffer ([`crate::swizzle`]),
//! vector stores from the source registers, a barrier, vector loads into the
//! destination registers, in rounds.

use crate::bank_conflicts::{
    exact_conflicts, phase_lane_offsets, remove_broadcast_registers, reps_dim,
};
use crate::conversion::{classify, ConversionKind};
use crate::error::{check_bitwidth, CodegenError, Result};
use crate::plan::{Access, Address, Round, SharedMemoryPlan};
use crate::swizzle::{optimal_swizzling, SwizzleResult};
use linear_layout::{gf2, DimName, LinearLayout};

/// Plans a conversion through shared memory whatever its class (for
/// comparisons; cross-CTA conversions are still refused).
pub fn plan_via_shared_memory(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<SharedMemoryPlan> {
    check_bitwidth(bitwidth)?;
    if classify(src, dst)? == ConversionKind::CrossCta {
        return Err(CodegenError::Unsupported(
            "the conversion moves data between CTAs".into(),
        ));
    }
    let kind = classify(src, dst)?;
    let note = (kind != ConversionKind::SharedMemory).then(|| {
        format!(
            "a {} conversion, planned through shared memory on request",
            kind.short_name()
        )
    });
    plan_shared(src, dst, bitwidth, note)
}

/// The register index of the full layout for index `k` of the layout with
/// its zero register bases removed.
fn expand_register(full: &LinearLayout, k: u64) -> u64 {
    let cols = full.packed_bases(DimName::REGISTER);
    let nonzero: Vec<usize> = (0..cols.len()).filter(|&i| cols[i] != 0).collect();
    nonzero
        .iter()
        .enumerate()
        .fold(0, |r, (j, &i)| r | ((k >> j) & 1) << i)
}

/// The access map of one side: `side.invert_and_compose(scratch)` as packed
/// columns over (register, lane, warp), each `offset | round << off_bits`.
struct SideMap {
    reg: Vec<u64>,
    lane: Vec<u64>,
    warp: Vec<u64>,
}

fn side_map(side: &LinearLayout, scratch: &LinearLayout) -> Result<SideMap> {
    let m = side.invert_and_compose(scratch)?;
    let get = |d: DimName| {
        if m.has_in_dim(d) {
            m.packed_bases(d).to_vec()
        } else {
            vec![]
        }
    };
    Ok(SideMap {
        reg: get(DimName::REGISTER),
        lane: get(DimName::LANE),
        warp: get(DimName::WARP),
    })
}

/// Vector width (log2) of a side: the longest run `k` such that offset bit
/// `i < k` is exactly some register column and no other column touches bits
/// below `k`, within 128 bits. Returns the register basis indices.
fn vector_registers(map: &SideMap, bitwidth: u32, off_mask: u64) -> Vec<usize> {
    let max = (128 / bitwidth).trailing_zeros() as usize;
    let mut chosen: Vec<usize> = Vec::new();
    for k in 0..max {
        let want = 1u64 << k;
        let Some(i) = (0..map.reg.len()).find(|&i| map.reg[i] == want && !chosen.contains(&i))
        else {
            break;
        };
        let low = (want << 1) - 1;
        let others_clean = map
            .reg
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i && !chosen.contains(j))
            .map(|x| *x.1)
            .chain(map.lane.iter().copied())
            .chain(map.warp.iter().copied())
            .all(|c| c & off_mask & low == 0);
        if !others_clean {
            break;
        }
        chosen.push(i);
    }
    chosen
}

/// Builds the accesses of one side, grouped per round.
fn accesses(
    full: &LinearLayout,
    map: &SideMap,
    vec_regs: &[usize],
    off_bits: u32,
    nrounds: usize,
) -> Vec<Vec<Access>> {
    let off_mask = (1u64 << off_bits) - 1;
    let nreg = map.reg.len();
    let others: Vec<usize> = (0..nreg).filter(|i| !vec_regs.contains(i)).collect();
    let mut per_round: Vec<Vec<Access>> = vec![Vec::new(); nrounds];
    for g in 0..(1u64 << others.len()) {
        let base: u64 = others
            .iter()
            .enumerate()
            .fold(0, |r, (j, &i)| r | ((g >> j) & 1) << i);
        let regs: Vec<u64> = (0..(1u64 << vec_regs.len()))
            .map(|j| {
                let idx = vec_regs
                    .iter()
                    .enumerate()
                    .fold(base, |r, (b, &i)| r | ((j >> b) & 1) << i);
                expand_register(full, idx)
            })
            .collect();
        let packed = gf2::bits(base).fold(0u64, |acc, i| acc ^ map.reg[i as usize]);
        let round = (packed >> off_bits) as usize;
        per_round[round].push(Access {
            registers: regs,
            address: Address {
                constant: packed & off_mask,
                lane: map.lane.iter().map(|c| c & off_mask).collect(),
                warp: map.warp.iter().map(|c| c & off_mask).collect(),
            },
        });
    }
    per_round
}

/// The exact conflicts of one side of a plan
/// ([`crate::bank_conflicts::exact_conflicts`] of its phase lane offsets).
pub fn analytic_conflicts(lane_offsets: &[u64], vec: u64, bitwidth: u32) -> u64 {
    exact_conflicts(
        &phase_lane_offsets(lane_offsets, vec, bitwidth),
        vec,
        bitwidth,
    )
}

/// The CTA-local view of a block-local conversion: `src` and `dst`
/// restricted to (register, lane, warp), with the tensor coordinates they
/// reach (the span `Im` of those bases, the same for both sides) written in
/// the coordinates of a basis of `Im`, as one out dim `dim0` of size
/// `2^dim(Im)`. Every CTA then runs the same plan on its own elements.
/// Single-CTA layouts are returned unchanged.
pub fn cta_local(src: &LinearLayout, dst: &LinearLayout) -> Result<(LinearLayout, LinearLayout)> {
    let nblock = |l: &LinearLayout| {
        if l.has_in_dim(DimName::BLOCK) {
            l.in_dim_size(DimName::BLOCK)
        } else {
            1
        }
    };
    if nblock(src) == 1 && nblock(dst) == 1 {
        return Ok((src.clone(), dst.clone()));
    }
    let ins = [DimName::REGISTER, DimName::LANE, DimName::WARP];
    let cols = |l: &LinearLayout| -> Vec<u64> {
        ins.iter()
            .filter(|d| l.has_in_dim(**d))
            .flat_map(|&d| l.packed_bases(d).to_vec())
            .collect()
    };
    let basis = gf2::independent_basis(&cols(src)).basis();
    let coords = gf2::EchelonBasis::from_columns(&basis);
    let k = basis.len() as u32;
    let local = |l: &LinearLayout, which: &str| -> Result<LinearLayout> {
        let mut bases = Vec::new();
        for d in ins {
            if !l.has_in_dim(d) {
                continue;
            }
            let mut v = Vec::new();
            for &c in l.packed_bases(d) {
                let x = coords.solve(c).ok_or_else(|| {
                    CodegenError::Unsupported(format!(
                        "the {which} layout's '{d}' bases leave the source's CTA-local \
                         elements: the conversion is not CTA-local"
                    ))
                })?;
                v.push(vec![x]);
            }
            bases.push((d, v));
        }
        Ok(LinearLayout::new(
            bases,
            vec![(DimName::dim(0), 1u64 << k)],
            false,
        )?)
    };
    Ok((local(src, "source")?, local(dst, "destination")?))
}

pub(crate) fn plan_shared(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
    note: Option<String>,
) -> Result<SharedMemoryPlan> {
    let (src, dst) = cta_local(src, dst)?;
    let (src, dst) = (&src, &dst);
    let sw: SwizzleResult = optimal_swizzling(src, dst, bitwidth)?;
    let s = remove_broadcast_registers(src)?;
    let t = remove_broadcast_registers(dst)?;
    // Scratch layout for the rounds: (vector, bank, segment) -> offset, reps
    // -> round. Collapse reps into the offset if any lane/warp touches them.
    let outs = sw.shared.out_dims();
    let split = &sw.shared_split;
    let nreps = split.in_dim_size_log2(reps_dim());
    let offset_bits = split.total_in_dim_size_log2() - nreps;
    let build = |reps_bits: u32| -> Result<LinearLayout> {
        Ok(split
            .reshape_ins(&[
                (DimName::OFFSET, 1u64 << (offset_bits + nreps - reps_bits)),
                (reps_dim(), 1u64 << reps_bits),
            ])?
            .reshape_outs(&outs)?)
    };
    let mut scratch = build(nreps)?;
    let mut off_bits = offset_bits;
    let mut ms = side_map(&s, &scratch)?;
    let mut mt = side_map(&t, &scratch)?;
    let touches = |m: &SideMap, ob: u32| m.lane.iter().chain(&m.warp).any(|c| c >> ob != 0);
    if nreps > 0 && (touches(&ms, off_bits) || touches(&mt, off_bits)) {
        scratch = build(0)?;
        off_bits = offset_bits + nreps;
        ms = side_map(&s, &scratch)?;
        mt = side_map(&t, &scratch)?;
    }
    let nrounds = 1usize << (scratch.in_dim_size_log2(reps_dim()));
    let off_mask = (1u64 << off_bits) - 1;
    let vs = vector_registers(&ms, bitwidth, off_mask);
    let vt = vector_registers(&mt, bitwidth, off_mask);
    let stores = accesses(src, &ms, &vs, off_bits, nrounds);
    let loads = accesses(dst, &mt, &vt, off_bits, nrounds);
    let rounds: Vec<Round> = stores
        .into_iter()
        .zip(loads)
        .map(|(stores, loads)| Round { stores, loads })
        .collect();
    // Broadcast copies of the destination.
    let cols = dst.packed_bases(DimName::REGISTER);
    let zero_mask: u64 = (0..cols.len())
        .filter(|&i| cols[i] == 0)
        .fold(0, |m, i| m | 1 << i);
    let copies: Vec<(u64, u64)> = (0..dst.in_dim_size(DimName::REGISTER))
        .filter(|r| r & zero_mask != 0)
        .map(|r| (r, r & !zero_mask))
        .collect();
    let store_vec = 1u64 << vs.len();
    let load_vec = 1u64 << vt.len();
    let lane_off = |m: &SideMap| m.lane.iter().map(|c| c & off_mask).collect::<Vec<_>>();
    let bytes = (bitwidth as u64).max(8) / 8;
    Ok(SharedMemoryPlan {
        shared: sw.shared.bases_json(),
        shared_layout: sw.shared.clone(),
        bitwidth,
        store_vec,
        load_vec,
        scratch_elems: 1u64 << off_bits,
        scratch_bytes: (1u64 << off_bits) * bytes,
        barriers: 2 * rounds.len() as u64 - 1,
        rounds,
        copies,
        store_conflicts: analytic_conflicts(&lane_off(&ms), store_vec, bitwidth),
        load_conflicts: analytic_conflicts(&lane_off(&mt), load_vec, bitwidth),
        lower_bound_log2: sw.lower_bound_log2,
        note,
    })
}

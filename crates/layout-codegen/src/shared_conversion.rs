//! Conversions through shared memory: a swizzled scratch buffer ([`crate::swizzle`]),
//! vector stores from the source registers, a barrier, vector loads into the
//! destination registers, in rounds.

use crate::bank_conflicts::{
    exact_conflicts, phase_lane_offsets, remove_broadcast_registers, reps_dim,
};
use crate::conversion::{classify, ConversionKind};
use crate::error::{check_bitwidth, CodegenError, Result};
use crate::plan::{Access, Address, Round, SharedMemoryPlan};
use crate::swizzle::{optimal_swizzling, SwizzleResult};
use crate::tiling::{check_tiling, matrix_plan, MatrixInstruction, TileInstruction, TilingPlan};
use crate::wavefront::matrix_wavefronts;
use linear_layout::{gf2, DimName, LinearLayout};

/// The broadcast copies of the destination: `(r, r')` for every register
/// `r` with a set bit on a zero register basis, copied from the register
/// `r'` that clears those bits (the one the plan loads).
pub(crate) fn broadcast_copies(dst: &LinearLayout) -> Vec<(u64, u64)> {
    let cols = dst.packed_bases(DimName::REGISTER);
    let zero_mask: u64 = (0..cols.len())
        .filter(|&i| cols[i] == 0)
        .fold(0, |m, i| m | 1 << i);
    (0..dst.in_dim_size(DimName::REGISTER))
        .filter(|r| r & zero_mask != 0)
        .map(|r| (r, r & !zero_mask))
        .collect()
}

/// Refuses a conversion that moves data between CTAs (every shared-memory
/// plan is CTA-local).
pub(crate) fn refuse_cross_cta(src: &LinearLayout, dst: &LinearLayout) -> Result<()> {
    if classify(src, dst)? == ConversionKind::CrossCta {
        return Err(CodegenError::Unsupported(
            "the conversion moves data between CTAs".into(),
        ));
    }
    Ok(())
}

/// Plans a conversion through shared memory whatever its class (for
/// comparisons; cross-CTA conversions are still refused).
pub fn plan_via_shared_memory(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<SharedMemoryPlan> {
    check_bitwidth(bitwidth)?;
    refuse_cross_cta(src, dst)?;
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
pub(crate) struct SideMap {
    pub(crate) reg: Vec<u64>,
    pub(crate) lane: Vec<u64>,
    pub(crate) warp: Vec<u64>,
}

pub(crate) fn side_map(side: &LinearLayout, scratch: &LinearLayout) -> Result<SideMap> {
    let m = side.invert_and_compose(scratch)?;
    let get = |d: DimName| m.packed_bases(d).to_vec();
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
pub(crate) fn accesses(
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
        let packed = gf2::xor_columns(&map.reg, base);
        let round = (packed >> off_bits) as usize;
        per_round[round].push(Access {
            registers: regs,
            address: Address {
                constant: packed & off_mask,
                lane: map.lane.iter().map(|c| c & off_mask).collect(),
                warp: map.warp.iter().map(|c| c & off_mask).collect(),
            },
            matrix: None,
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

/// The map of one side as the `(register, lane, warp) → offset` layout that
/// [`crate::tiling`] divides (offset bits above `off_bits` are the round).
fn side_cvt(map: &SideMap, total_bits: u32) -> Result<LinearLayout> {
    let b = |xs: &[u64]| xs.iter().map(|&x| vec![x]).collect::<Vec<_>>();
    Ok(LinearLayout::new(
        vec![
            (DimName::REGISTER, b(&map.reg)),
            (DimName::LANE, b(&map.lane)),
            (DimName::WARP, b(&map.warp)),
        ],
        vec![(DimName::OFFSET, 1u64 << total_bits)],
        false,
    )?)
}

/// The `ldmatrix`/`stmatrix` tiling of one side, if one applies: the plan
/// with more elements per instruction among `.x4` (or smaller) without and
/// with `.trans` (non-trans first on ties), that passes
/// [`check_tiling`] and whose row addresses stay inside one round.
fn side_matrix_plan(
    map: &SideMap,
    bitwidth: u32,
    off_bits: u32,
    total_bits: u32,
) -> Option<TilingPlan> {
    let cvt = side_cvt(map, total_bits).ok()?;
    let off_mask = (1u64 << off_bits) - 1;
    let mut best: Option<TilingPlan> = None;
    for trans in [false, true] {
        let Ok(p) = matrix_plan(&cvt, bitwidth, trans, 4) else {
            continue;
        };
        let in_round = p
            .lane_bases
            .iter()
            .chain(&p.warp_bases)
            .all(|&c| c & !off_mask == 0);
        if in_round
            && check_tiling(&p, &cvt).is_ok()
            && best
                .as_ref()
                .is_none_or(|b| p.elements_per_instruction > b.elements_per_instruction)
        {
            best = Some(p);
        }
    }
    best
}

/// The accesses of a matrix tiling, grouped per round: instruction `k`
/// passes permuted registers `(k·count + i)·R + e` (operand `i`, element
/// `e`), mapped back to the registers of `full`.
fn matrix_accesses(
    full: &LinearLayout,
    plan: &TilingPlan,
    off_bits: u32,
    nrounds: usize,
) -> Vec<Vec<Access>> {
    let TileInstruction::Matrix { count, trans } = plan.instruction else {
        unreachable!("a matrix plan")
    };
    let r = (32 / plan.bitwidth) as u64;
    let off_mask = (1u64 << off_bits) - 1;
    let mut per_round: Vec<Vec<Access>> = vec![Vec::new(); nrounds];
    for k in 0..plan.instructions_per_thread {
        let registers = (0..count * r)
            .map(|p| expand_register(full, plan.original_register(k * count * r + p)))
            .collect();
        let c = plan.address(k, 0, 0);
        per_round[(c >> off_bits) as usize].push(Access {
            registers,
            address: Address {
                constant: c & off_mask,
                lane: plan.lane_bases.clone(),
                warp: plan.warp_bases.clone(),
            },
            matrix: Some(MatrixInstruction { count, trans }),
        });
    }
    per_round
}

/// Extra wavefronts of the worst 8-row matrix phase of a matrix tiling
/// (one phase per matrix; see [`crate::simulator`]), over every warp and
/// instruction.
fn matrix_conflicts(plan: &TilingPlan, bitwidth: u32, nwarps: u64) -> u64 {
    let TileInstruction::Matrix { count, .. } = plan.instruction else {
        return 0;
    };
    let bytes = bitwidth as u64 / 8;
    let mut worst = 0;
    for w in 0..nwarps {
        for k in 0..plan.instructions_per_thread {
            let rows: Vec<u64> = (0..8 * count)
                .map(|t| plan.address(k, t, w) * bytes)
                .collect();
            let wf = matrix_wavefronts(&rows, count)
                .into_iter()
                .max()
                .unwrap_or(1);
            worst = worst.max(wf - 1);
        }
    }
    worst
}

fn instruction_name(m: &Option<TilingPlan>, vec: u64, bitwidth: u32, store: bool) -> String {
    match m.as_ref().map(|p| p.instruction) {
        Some(TileInstruction::Matrix { count, trans }) => format!(
            "{}.x{count}{}",
            if store { "stmatrix" } else { "ldmatrix" },
            if trans { ".trans" } else { "" }
        ),
        _ => format!(
            "{}.shared.v{vec}.b{bitwidth}",
            if store { "st" } else { "ld" }
        ),
    }
}

/// Where the scratch layout of a plan comes from.
struct Scratch {
    /// `(offset[, reps]) → tensor`.
    layout: LinearLayout,
    /// The whole-tile swizzled layout reported in the plan.
    shared: LinearLayout,
    lower_bound_log2: u32,
}

/// Plans `src → dst` through Triton's swizzled shared layout ([`crate::swizzle::optimal_swizzling`]), in rounds when the layout has repetitions; `note` says why shared memory is used.
pub fn plan_shared(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
    note: Option<String>,
) -> Result<SharedMemoryPlan> {
    let (src, dst) = cta_local(src, dst)?;
    build_plan(&src, &dst, bitwidth, note, None, false)
}

/// Plans a conversion through shared memory that stores and/or loads with
/// `stmatrix` / `ldmatrix` (`.x4` or smaller, `.trans` or not) on each side
/// whose `(register, lane, warp) → offset` map the instruction tile divides
/// ([`crate::tiling::matrix_plan`], checked by
/// [`crate::tiling::check_tiling`]), and with vector `st/ld.shared`
/// otherwise. The scratch layout is `shared` when given (`offset → tensor`,
/// one round over the whole tile, single-CTA layouts only; e.g. the layout
/// a code generator chose), else the optimal swizzle of
/// [`plan_via_shared_memory`] with its rounds. The plan's `note` names the
/// instructions of each side; its `store_vec` / `load_vec` are the elements
/// per thread per instruction (`count · 32 / bitwidth` for a matrix side),
/// its `store_conflicts` / `load_conflicts` the worst phase's extra
/// wavefronts (one phase per 8-row matrix on a matrix side), and with a
/// given layout `lower_bound_log2` is 0 (not computed).
pub fn plan_shared_matrix(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
    shared: Option<&LinearLayout>,
) -> Result<SharedMemoryPlan> {
    check_bitwidth(bitwidth)?;
    refuse_cross_cta(src, dst)?;
    let given = match shared {
        None => None,
        Some(l) => {
            let blocks = |x: &LinearLayout| {
                x.has_in_dim(DimName::BLOCK) && x.in_dim_size(DimName::BLOCK) > 1
            };
            if blocks(src) || blocks(dst) {
                return Err(CodegenError::Unsupported(
                    "a given shared layout needs single-CTA layouts".into(),
                ));
            }
            let ins: Vec<DimName> = l.in_dim_names().collect();
            if ins != [DimName::OFFSET] || !l.is_invertible() {
                return Err(CodegenError::Invalid(format!(
                    "the shared layout must map 'offset' bijectively onto the tensor; it has \
                     in dims {ins:?} and is {}invertible",
                    if l.is_invertible() { "" } else { "not " }
                )));
            }
            Some(Scratch {
                layout: l.clone(),
                shared: l.clone(),
                lower_bound_log2: 0,
            })
        }
    };
    let (src, dst) = cta_local(src, dst)?;
    build_plan(&src, &dst, bitwidth, None, given, true)
}

fn build_plan(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
    note: Option<String>,
    given: Option<Scratch>,
    use_matrix: bool,
) -> Result<SharedMemoryPlan> {
    let s = remove_broadcast_registers(src)?;
    let t = remove_broadcast_registers(dst)?;
    let (scratch, shared, lower_bound_log2, off_bits) = match given {
        Some(g) => {
            let bits = g.layout.in_dim_size_log2(DimName::OFFSET);
            (g.layout, g.shared, g.lower_bound_log2, bits)
        }
        None => {
            let sw: SwizzleResult = optimal_swizzling(src, dst, bitwidth)?;
            // Scratch layout for the rounds: (vector, bank, segment) ->
            // offset, reps -> round. Collapse reps into the offset if any
            // lane/warp touches them.
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
            let touches = |m: &SideMap, ob: u32| m.lane.iter().chain(&m.warp).any(|c| c >> ob != 0);
            if nreps > 0
                && (touches(&side_map(&s, &scratch)?, off_bits)
                    || touches(&side_map(&t, &scratch)?, off_bits))
            {
                scratch = build(0)?;
                off_bits = offset_bits + nreps;
            }
            (scratch, sw.shared.clone(), sw.lower_bound_log2, off_bits)
        }
    };
    let ms = side_map(&s, &scratch)?;
    let mt = side_map(&t, &scratch)?;
    let round_bits = if scratch.has_in_dim(reps_dim()) {
        scratch.in_dim_size_log2(reps_dim())
    } else {
        0
    };
    let nrounds = 1usize << round_bits;
    let total_bits = off_bits + round_bits;
    let off_mask = (1u64 << off_bits) - 1;
    let nwarps = |l: &LinearLayout| {
        if l.has_in_dim(DimName::WARP) {
            l.in_dim_size(DimName::WARP)
        } else {
            1
        }
    };
    let mx = |m: &SideMap| {
        if use_matrix {
            side_matrix_plan(m, bitwidth, off_bits, total_bits)
        } else {
            None
        }
    };
    let (mxs, mxt) = (mx(&ms), mx(&mt));
    let vs = vector_registers(&ms, bitwidth, off_mask);
    let vt = vector_registers(&mt, bitwidth, off_mask);
    let stores = match &mxs {
        Some(p) => matrix_accesses(src, p, off_bits, nrounds),
        None => accesses(src, &ms, &vs, off_bits, nrounds),
    };
    let loads = match &mxt {
        Some(p) => matrix_accesses(dst, p, off_bits, nrounds),
        None => accesses(dst, &mt, &vt, off_bits, nrounds),
    };
    let rounds: Vec<Round> = stores
        .into_iter()
        .zip(loads)
        .map(|(stores, loads)| Round { stores, loads })
        .collect();
    let copies = broadcast_copies(dst);
    let lane_off = |m: &SideMap| m.lane.iter().map(|c| c & off_mask).collect::<Vec<_>>();
    let side = |m: &SideMap, p: &Option<TilingPlan>, v: &[usize], l: &LinearLayout| match p {
        Some(p) => (
            p.elements_per_instruction,
            matrix_conflicts(p, bitwidth, nwarps(l)),
        ),
        None => {
            let vec = 1u64 << v.len();
            (vec, analytic_conflicts(&lane_off(m), vec, bitwidth))
        }
    };
    let (store_vec, store_conflicts) = side(&ms, &mxs, &vs, src);
    let (load_vec, load_conflicts) = side(&mt, &mxt, &vt, dst);
    let note = if use_matrix {
        let names = format!(
            "stores by {}, loads by {}",
            instruction_name(&mxs, store_vec, bitwidth, true),
            instruction_name(&mxt, load_vec, bitwidth, false)
        );
        Some(match note {
            Some(n) => format!("{n}; {names}"),
            None => names,
        })
    } else {
        note
    };
    let bytes = (bitwidth as u64).max(8) / 8;
    Ok(SharedMemoryPlan {
        shared: shared.bases_json(),
        shared_layout: shared,
        bitwidth,
        store_vec,
        load_vec,
        scratch_elems: 1u64 << off_bits,
        scratch_bytes: (1u64 << off_bits) * bytes,
        barriers: 2 * rounds.len() as u64 - 1,
        warp_private: false,
        rounds,
        copies,
        store_conflicts,
        load_conflicts,
        lower_bound_log2,
        note,
    })
}

//! `tl.gather` lowering plans (paper §5.5; Triton's `GatherOpToLLVM.cpp`).
//!
//! `out[c] = src[c with c[axis] := index[c]]` for every coordinate `c` of the
//! index tensor; `out` has the index tensor's layout `I`, the source has
//! layout `S` (same rank, same sizes off the axis).
//!
//! * [`is_warp_local`]: Triton's test (`isWarpLocal`): (a) the `warp` and
//!   `block` bases of `S` and `I` have zero axis component, (b) their
//!   `(warp, block) →` non-axis sublayouts are equal, (c) their `lane →`
//!   non-axis sublayouts are equal. Then every index lives in a warp that
//!   holds the whole source column it indexes.
//! * [`gather_shuffle_plan`]: for index register `r` in lane `l` with index
//!   value `v`, the element sought is `y = N(r, l) ⊕ A(v)` (`N`: `I` with
//!   the axis component cleared, warp part dropped; `A(v)`: `v` on the
//!   axis). With `S⁺` a right inverse of `S` restricted to `(register,
//!   lane)`, the source is `S⁺(y) = S⁺(N(r,0)) ⊕ S⁺(N(0,l)) ⊕ S⁺(A(v))`:
//!   linear, so each lane computes its source lane and source register from
//!   its lane id and its index value. The warp then runs one
//!   `shfl.idx(src[c], srcLane)` per candidate register `c` (all values the
//!   source register can take: `base ⊕ span(...)`), and a lane keeps the
//!   value iff `srcReg == c` (paper: `2^|L_Thr^axis|` rounds).
//! * [`gather_shared_plan`]: otherwise, every thread stores its source
//!   elements to shared memory at the row-major linear index, barrier, and
//!   every thread loads at the row-major index of `c with c[axis] := v`.

use crate::bank_conflicts::hw_apply;
use linear_layout::{gf2, DimName, LayoutError, LinearLayout};
use serde::{Deserialize, Serialize};

/// Why a gather plan could not be built or checked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GatherError {
    #[error(transparent)]
    /// An error of the layout algebra.
    Layout(#[from] LayoutError),
    #[error("malformed plan: {0}")]
    /// The plan is malformed (the text says how).
    BadPlan(String),
    #[error("axis {axis} out of range for rank {rank}")]
    /// The gather axis is not a dim of the tensor.
    BadAxis {
        /// The gather axis.
        axis: usize,
        /// The rank of the tensor.
        rank: usize,
    },
    #[error("source and index disagree on {what}: src {src}, index {idx}")]
    /// The two layouts disagree on something they must share.
    Mismatch {
        /// What was compared or needed.
        what: &'static str,
        /// The source side.
        src: String,
        /// The index side.
        idx: String,
    },
    #[error("gather is not warp-local: {reason}")]
    /// The data leaves the warp.
    NotWarpLocal {
        /// Why.
        reason: String,
    },
    #[error("element {coords:?} of lane {lane}'s column is held by no source register/lane")]
    /// An element a lane needs is held by no source register or lane.
    NotCovered {
        /// The lane.
        lane: u32,
        /// The tensor coordinates of the element.
        coords: Vec<u64>,
    },
    #[error("index value {value} at index register {register} lane {lane} is outside the source axis size {size}")]
    /// An index value is outside the source axis.
    IndexOutOfRange {
        /// The register.
        register: u64,
        /// The lane.
        lane: u32,
        /// The value.
        value: u64,
        /// The size of the source axis.
        size: u64,
    },
    #[error("block {block} warp {warp} lane {lane} index register {register}: expected source element {expected:?}, found {found:?}")]
    /// A destination register holds the wrong element.
    WrongValue {
        /// The block (CTA).
        block: u64,
        /// The warp.
        warp: u64,
        /// The lane.
        lane: u32,
        /// The register.
        register: u64,
        /// What was expected.
        expected: Vec<u64>,
        /// What was found.
        found: Option<Vec<u64>>,
    },
}

/// Per index register: how each lane finds its source, and the rounds.
/// `srcReg = base_reg ⊕ Σ_{k: lane bit k} lane_reg[k] ⊕ Σ_{k: index bit k}
/// index_reg[k]`, and likewise `srcLane` with `base_lane`, `lane_lane`,
/// `index_lane`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GatherRegisterPlan {
    /// `Some(k)`: this register replicates index register `k` (zero
    /// register bases), nothing is emitted.
    pub replica_of: Option<u64>,
    /// Source register of lane 0 for index value 0.
    pub base_reg: u64,
    /// Source lane of lane 0 for index value 0.
    pub base_lane: u32,
    /// Source-register part of each lane bit.
    pub lane_reg: Vec<u64>,
    /// Source-lane part of each lane bit.
    pub lane_lane: Vec<u32>,
    /// Source-register part of each index-value bit.
    pub index_reg: Vec<u64>,
    /// Source-lane part of each index-value bit.
    pub index_lane: Vec<u32>,
    /// Source registers shuffled, one `shfl.idx` + `selp` each.
    pub candidates: Vec<u64>,
}

impl GatherRegisterPlan {
    /// `(srcReg, srcLane)` for a lane holding index value `v`.
    pub fn source(&self, lane: u32, v: u64) -> (u64, u32) {
        let mut r = self.base_reg;
        let mut l = self.base_lane;
        for k in 0..self.lane_reg.len() {
            if lane >> k & 1 == 1 {
                r ^= self.lane_reg[k];
                l ^= self.lane_lane[k];
            }
        }
        for k in 0..self.index_reg.len() {
            if v >> k & 1 == 1 {
                r ^= self.index_reg[k];
                l ^= self.index_lane[k];
            }
        }
        (r, l)
    }
}

/// The warp-shuffle gather plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GatherShufflePlan {
    /// The gather axis.
    pub axis: usize,
    /// Size of the source along the axis.
    pub src_axis_size: u64,
    /// Lanes per warp.
    pub lanes: u32,
    /// One entry per index (= output) register.
    pub registers: Vec<GatherRegisterPlan>,
    /// Total `shfl.idx` instructions (= total candidates of non-replicas).
    pub shuffles: usize,
    /// Total `selp` instructions.
    pub selects: usize,
}

/// The shared-memory gather: store all of `src` row-major, barrier, load.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GatherSharedPlan {
    /// The gather axis.
    pub axis: usize,
    /// Source shape (row-major: last dim fastest).
    pub src_shape: Vec<u64>,
    /// Row-major strides of the scratch buffer.
    pub strides: Vec<u64>,
    /// `Π src_shape` elements.
    pub scratch_elems: u64,
    /// `scratch_elems · max(bitwidth, 8) / 8`.
    pub scratch_bytes: u64,
}

/// The plan chosen by [`gather_plan`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum GatherPlan {
    /// Within each warp, by shuffles and selects.
    WarpShuffle(GatherShufflePlan),
    /// Through shared memory.
    SharedMemory(GatherSharedPlan),
}

fn check_pair(src: &LinearLayout, idx: &LinearLayout, axis: usize) -> Result<(), GatherError> {
    let so = src.out_dims();
    let io = idx.out_dims();
    if axis >= so.len() {
        return Err(GatherError::BadAxis {
            axis,
            rank: so.len(),
        });
    }
    let same_names = so.iter().map(|d| d.0).eq(io.iter().map(|d| d.0));
    let same_sizes = so
        .iter()
        .zip(&io)
        .enumerate()
        .all(|(k, (a, b))| k == axis || a.1 == b.1);
    if !same_names || !same_sizes {
        return Err(GatherError::Mismatch {
            what: "out dims off the gather axis",
            src: format!("{so:?}"),
            idx: format!("{io:?}"),
        });
    }
    for d in [DimName::LANE, DimName::WARP, DimName::BLOCK] {
        if src.in_dim_size(d) != idx.in_dim_size(d) {
            return Err(GatherError::Mismatch {
                what: "lane/warp/block sizes",
                src: format!("{d}={}", src.in_dim_size(d)),
                idx: format!("{d}={}", idx.in_dim_size(d)),
            });
        }
    }
    Ok(())
}

/// Coordinates of a packed output of `l` with the axis coordinate cleared.
fn off_axis(l: &LinearLayout, packed: u64, axis: usize) -> Vec<u64> {
    let mut c = l.unpack(packed).to_vec();
    c[axis] = 0;
    c
}

/// Triton's warp-local test (see the module docs). `Ok(false)` names no
/// reason; use [`warp_local_reason`] for one.
pub fn is_warp_local(
    src: &LinearLayout,
    idx: &LinearLayout,
    axis: usize,
) -> Result<bool, GatherError> {
    Ok(warp_local_reason(src, idx, axis)?.is_none())
}

/// `None` if warp-local, else why not.
pub fn warp_local_reason(
    src: &LinearLayout,
    idx: &LinearLayout,
    axis: usize,
) -> Result<Option<String>, GatherError> {
    check_pair(src, idx, axis)?;
    for d in [DimName::WARP, DimName::BLOCK] {
        for (name, l) in [("source", src), ("index", idx)] {
            for (k, &b) in l.packed_bases(d).iter().enumerate() {
                if l.unpack(b)[axis] != 0 {
                    return Ok(Some(format!(
                        "{name} {d} basis {k} moves along the gather axis {axis}"
                    )));
                }
            }
        }
    }
    for d in [DimName::WARP, DimName::BLOCK, DimName::LANE] {
        let a = src.packed_bases(d);
        let b = idx.packed_bases(d);
        for (k, (&x, &y)) in a.iter().zip(b).enumerate() {
            if off_axis(src, x, axis) != off_axis(idx, y, axis) {
                return Ok(Some(format!(
                    "{d} basis {k} differs off the axis: source {:?}, index {:?}",
                    src.unpack(x).to_vec(),
                    idx.unpack(y).to_vec()
                )));
            }
        }
    }
    Ok(None)
}

/// Solves `S_{reg,lane}(reg, lane) = y` (`y` packed in `src`'s out dims).
struct SrcSolver {
    cols: Vec<u64>,
    n_reg: usize,
}

impl SrcSolver {
    fn new(src: &LinearLayout) -> Self {
        let regs = src.packed_bases(DimName::REGISTER);
        let lanes = src.packed_bases(DimName::LANE);
        SrcSolver {
            cols: regs.iter().chain(lanes).copied().collect(),
            n_reg: regs.len(),
        }
    }
    fn solve(&self, y: u64) -> Option<(u64, u32)> {
        let x = gf2::solve(&self.cols, y)?;
        Some((x & ((1 << self.n_reg) - 1), (x >> self.n_reg) as u32))
    }
}

/// The warp-shuffle gather plan; `NotWarpLocal` if Triton's test fails.
pub fn gather_shuffle_plan(
    src: &LinearLayout,
    idx: &LinearLayout,
    axis: usize,
) -> Result<GatherShufflePlan, GatherError> {
    if let Some(reason) = warp_local_reason(src, idx, axis)? {
        return Err(GatherError::NotWarpLocal { reason });
    }
    let solver = SrcSolver::new(src);
    let lanes = idx.in_dim_size(DimName::LANE) as u32;
    let n_lane_bits = idx.in_dim_size_log2(DimName::LANE);
    let axis_name = src.out_dims()[axis].0;
    let src_axis_size = src.out_dim_size(axis_name);
    let axis_bits = src.out_dim_size_log2(axis_name);
    // Element y in src packing -> (reg, lane); error names the coordinates.
    let solve = |y: u64, lane: u32| {
        solver.solve(y).ok_or_else(|| GatherError::NotCovered {
            lane,
            coords: src.unpack(y).to_vec(),
        })
    };
    let n_off =
        |r: u64, l: u64| -> u64 { src.pack(&off_axis(idx, hw_apply(idx, r, l, 0, 0), axis)) };
    let mut lane_reg = Vec::new();
    let mut lane_lane = Vec::new();
    for k in 0..n_lane_bits {
        let (r, l) = solve(n_off(0, 1 << k), 1 << k)?;
        lane_reg.push(r);
        lane_lane.push(l);
    }
    let mut index_reg = Vec::new();
    let mut index_lane = Vec::new();
    for k in 0..axis_bits {
        let mut c = vec![0u64; src.num_out_dims()];
        c[axis] = 1 << k;
        let (r, l) = solve(src.pack(&c), 0)?;
        index_reg.push(r);
        index_lane.push(l);
    }
    // Span of the register parts.
    let mut span = vec![0u64];
    for &g in lane_reg.iter().chain(&index_reg) {
        if !span.contains(&g) {
            let more: Vec<u64> = span.iter().map(|&s| s ^ g).collect();
            span.extend(more);
        }
    }
    span.sort_unstable();
    let zero_mask: u64 = idx
        .packed_bases(DimName::REGISTER)
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == 0)
        .fold(0, |a, (k, _)| a | 1 << k);
    let mut registers = Vec::new();
    let (mut shuffles, mut selects) = (0, 0);
    for r in 0..idx.in_dim_size(DimName::REGISTER) {
        let (base_reg, base_lane) = solve(n_off(r, 0), 0)?;
        let replica_of = (r & zero_mask != 0).then_some(r & !zero_mask);
        let candidates: Vec<u64> = span.iter().map(|&s| s ^ base_reg).collect();
        if replica_of.is_none() {
            shuffles += candidates.len();
            selects += candidates.len() - 1;
        }
        registers.push(GatherRegisterPlan {
            replica_of,
            base_reg,
            base_lane,
            lane_reg: lane_reg.clone(),
            lane_lane: lane_lane.clone(),
            index_reg: index_reg.clone(),
            index_lane: index_lane.clone(),
            candidates,
        });
    }
    Ok(GatherShufflePlan {
        axis,
        src_axis_size,
        lanes,
        registers,
        shuffles,
        selects,
    })
}

/// The shared-memory gather description.
pub fn gather_shared_plan(
    src: &LinearLayout,
    idx: &LinearLayout,
    axis: usize,
    bitwidth: u32,
) -> Result<GatherSharedPlan, GatherError> {
    check_pair(src, idx, axis)?;
    let src_shape: Vec<u64> = src.out_dims().iter().map(|d| d.1).collect();
    let mut strides = vec![1u64; src_shape.len()];
    for k in (0..src_shape.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * src_shape[k + 1];
    }
    let scratch_elems: u64 = src_shape.iter().product();
    Ok(GatherSharedPlan {
        axis,
        src_shape,
        strides,
        scratch_elems,
        scratch_bytes: scratch_elems * u64::from(bitwidth.max(8)) / 8,
    })
}

/// Shuffle plan if warp-local, else the shared-memory plan.
pub fn gather_plan(
    src: &LinearLayout,
    idx: &LinearLayout,
    axis: usize,
    bitwidth: u32,
) -> Result<GatherPlan, GatherError> {
    match gather_shuffle_plan(src, idx, axis) {
        Ok(p) => Ok(GatherPlan::WarpShuffle(p)),
        Err(GatherError::NotWarpLocal { .. }) => Ok(GatherPlan::SharedMemory(gather_shared_plan(
            src, idx, axis, bitwidth,
        )?)),
        Err(e) => Err(e),
    }
}

/// The expected element for an index element: `idx`'s coordinates with the
/// axis replaced by `v`, packed in `src`'s out dims.
fn expected_element(
    src: &LinearLayout,
    idx: &LinearLayout,
    idx_packed: u64,
    axis: usize,
    v: u64,
) -> u64 {
    let mut c = idx.unpack(idx_packed).to_vec();
    c[axis] = v;
    src.pack(&c)
}

/// Executes `plan` on every warp: source register `c` of lane `l` holds the
/// tag `src(c, l, warp, block)`; `index(coords)` gives the index value of
/// each index-tensor element (a function of the logical coordinates, so
/// replicas agree). Each lane computes `(srcReg, srcLane)` from the plan,
/// every candidate round shuffles register `c` from lane `srcLane`, and the
/// lane keeps it iff `srcReg == c`. The result must be the source element at
/// the index coordinates with the axis replaced by the index value.
pub fn check_gather_shuffle(
    plan: &GatherShufflePlan,
    src: &LinearLayout,
    idx: &LinearLayout,
    index: &dyn Fn(&[u64]) -> u64,
) -> Result<(), GatherError> {
    check_pair(src, idx, plan.axis)?;
    let lanes = plan.lanes;
    let n_src = src.in_dim_size(DimName::REGISTER);
    let n_idx = idx.in_dim_size(DimName::REGISTER);
    if plan.registers.len() as u64 != n_idx || u64::from(lanes) != idx.in_dim_size(DimName::LANE) {
        return Err(GatherError::BadPlan(format!(
            "{} register plans over {lanes} lanes for an index layout of {n_idx} registers and {} lanes",
            plan.registers.len(),
            idx.in_dim_size(DimName::LANE)
        )));
    }
    for (r, rp) in plan.registers.iter().enumerate() {
        if let Some(k) = rp.replica_of {
            if k >= n_idx || plan.registers[k as usize].replica_of.is_some() {
                return Err(GatherError::BadPlan(format!(
                    "register {r} replicates register {k}, which is not a planned register"
                )));
            }
        }
    }
    for block in 0..idx.in_dim_size(DimName::BLOCK) {
        for warp in 0..idx.in_dim_size(DimName::WARP) {
            let src_val = |c: u64, l: u32| {
                (c < n_src && l < lanes).then(|| hw_apply(src, c, l as u64, warp, block))
            };
            for (r, rp) in plan.registers.iter().enumerate() {
                let rp = match rp.replica_of {
                    Some(k) => &plan.registers[k as usize],
                    None => rp,
                };
                let mut results: Vec<Option<u64>> = vec![None; lanes as usize];
                let mut wants = Vec::new();
                let mut sources = Vec::new();
                for l in 0..lanes {
                    let e = hw_apply(idx, r as u64, l as u64, warp, block);
                    let v = index(&idx.unpack(e));
                    if v >= plan.src_axis_size {
                        return Err(GatherError::IndexOutOfRange {
                            register: r as u64,
                            lane: l,
                            value: v,
                            size: plan.src_axis_size,
                        });
                    }
                    wants.push(expected_element(src, idx, e, plan.axis, v));
                    sources.push(rp.source(l, v));
                }
                for &c in &rp.candidates {
                    // One shfl.idx round: every lane reads register c of its
                    // source lane, keeps it if its source register is c.
                    for l in 0..lanes as usize {
                        let (sr, sl) = sources[l];
                        let got = src_val(c, sl);
                        if sr == c {
                            results[l] = got;
                        }
                    }
                }
                for l in 0..lanes {
                    let want = wants[l as usize];
                    if results[l as usize] != Some(want) {
                        return Err(GatherError::WrongValue {
                            block,
                            warp,
                            lane: l,
                            register: r as u64,
                            expected: src.unpack(want).to_vec(),
                            found: results[l as usize].map(|x| src.unpack(x).to_vec()),
                        });
                    }
                }
            }
        }
    }
    Ok(())
}

/// Executes the shared-memory plan on a CTA model: every (block, warp,
/// lane, register) of `src` stores its element's tag at the row-major
/// offset of its coordinates, then every index element loads the offset of
/// its coordinates with the axis replaced by its index value.
pub fn check_gather_shared(
    plan: &GatherSharedPlan,
    src: &LinearLayout,
    idx: &LinearLayout,
    index: &dyn Fn(&[u64]) -> u64,
) -> Result<(), GatherError> {
    check_pair(src, idx, plan.axis)?;
    let src_shape: Vec<u64> = src.out_dims().iter().map(|d| d.1).collect();
    if plan.strides.len() != src_shape.len() || plan.src_shape != src_shape {
        return Err(GatherError::BadPlan(format!(
            "plan for shape {:?} with strides {:?}, source shape {src_shape:?}",
            plan.src_shape, plan.strides
        )));
    }
    let n_elems: u64 = src_shape.iter().product();
    let offset = |c: &[u64]| -> Result<usize, GatherError> {
        let o = c
            .iter()
            .zip(&plan.strides)
            .fold(0u64, |a, (x, s)| a.saturating_add(x.saturating_mul(*s)));
        if o >= n_elems.min(plan.scratch_elems) {
            return Err(GatherError::BadPlan(format!(
                "coordinates {c:?} land at offset {o}, beyond the {} scratch elements",
                n_elems.min(plan.scratch_elems)
            )));
        }
        Ok(o as usize)
    };
    for block in 0..src.in_dim_size(DimName::BLOCK) {
        let mut smem: Vec<Option<u64>> = vec![None; n_elems as usize];
        for warp in 0..src.in_dim_size(DimName::WARP) {
            for l in 0..src.in_dim_size(DimName::LANE) {
                for r in 0..src.in_dim_size(DimName::REGISTER) {
                    let e = hw_apply(src, r, l, warp, block);
                    smem[offset(&src.unpack(e))?] = Some(e);
                }
            }
        }
        for warp in 0..idx.in_dim_size(DimName::WARP) {
            for l in 0..idx.in_dim_size(DimName::LANE) {
                for r in 0..idx.in_dim_size(DimName::REGISTER) {
                    let e = hw_apply(idx, r, l, warp, block);
                    let mut c = idx.unpack(e).to_vec();
                    let v = index(&c);
                    if v >= plan.src_shape[plan.axis] {
                        return Err(GatherError::IndexOutOfRange {
                            register: r,
                            lane: l as u32,
                            value: v,
                            size: plan.src_shape[plan.axis],
                        });
                    }
                    c[plan.axis] = v;
                    let want = expected_element(src, idx, e, plan.axis, v);
                    let got = smem[offset(&c)?];
                    if got != Some(want) {
                        return Err(GatherError::WrongValue {
                            block,
                            warp,
                            lane: l as u32,
                            register: r,
                            expected: src.unpack(want).to_vec(),
                            found: got.map(|x| src.unpack(x).to_vec()),
                        });
                    }
                }
            }
        }
    }
    Ok(())
}

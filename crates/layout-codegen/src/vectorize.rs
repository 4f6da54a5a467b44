//! Vectorisation widths (paper §5.1 "Contiguous elements", §5.3, Table 2;
//! Triton's `largestVectorisation`, `getNumConsecutiveInOut`,
//! `getContigPerThread`).
//!
//! * Global memory, *Triton-Linear* ([`global_contiguity`]): flatten the
//!   logical tensor row-major along `order` (`order[0]` fastest, lowest
//!   bits) and count how many consecutive registers (broadcast registers
//!   removed) of one thread map to consecutive flat offsets: the largest
//!   `2^k` with register basis `i` = flat `2^i` for `i < k` and no other
//!   register basis touching the low `k` flat bits. This crosses dims: a
//!   thread holding 4 whole rows of a `[512, 2]` tensor has 8 contiguous
//!   elements.
//! * Global memory, legacy ([`legacy_contiguity`]): the same count along the
//!   fastest dim `order[0]` only (the other dims must not move).
//! * Shared memory ([`shared_vectorisation`]): for `cvt: (register, lane,
//!   warp, …) → offset`, the widest `v ≤ 128 / bitwidth` such that, after a
//!   register permutation, `identity_1d(v, register, offset)` divides `cvt`
//!   on the left (Triton's `largestVectorisation`).
//!
//! Instruction names follow the paper's Table 2: `bits = min(contig ·
//! bitwidth, 128)`; `v{bits/32}.b32` from 32 bits up, else `v1.b{bits}`.

use crate::bank_conflicts::hw_apply;
use linear_layout::{utils, ColumnAction, DimName, LayoutError, LinearLayout};
use serde::{Deserialize, Serialize};

/// Errors of the vectorisation utilities.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VectorizeError {
    #[error(transparent)]
    /// An error of the layout algebra.
    Layout(#[from] LayoutError),
    #[error("order {order:?} is not a permutation of 0..{rank}")]
    /// The dim order is not a permutation of the dims.
    BadOrder {
        /// The order given.
        order: Vec<usize>,
        /// The rank of the tensor.
        rank: usize,
    },
    #[error("unsupported bitwidth {0} (expected 8, 16, 32 or 64)")]
    /// The element bit width is not supported.
    UnsupportedBitwidth(u32),
    #[error("vector width {0} is not a power of two")]
    /// The vector width is not a power of two.
    BadWidth(u64),
    #[error("layout has no '{0}' output dim")]
    /// The layout has no offset out dim.
    MissingOffset(DimName),
    #[error("block {block} warp {warp} lane {lane}: registers {first}..{last} are not {n} consecutive aligned offsets (offsets {offsets:?})")]
    /// The claimed vector is not contiguous for some thread.
    NotContiguous {
        /// The block (CTA).
        block: u64,
        /// The warp.
        warp: u64,
        /// The lane.
        lane: u64,
        /// The first register of the vector.
        first: u64,
        /// The last register of the vector.
        last: u64,
        /// The vector width.
        n: u64,
        /// Their offsets.
        offsets: Vec<u64>,
    },
    #[error("the claimed width {claimed} is not maximal: {double} registers are also contiguous for every thread")]
    /// A wider vector is also contiguous.
    NotMaximal {
        /// The value claimed.
        claimed: u64,
        /// The doubled width that is also contiguous.
        double: u64,
    },
}

/// A global-memory access width.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GlobalVector {
    /// Contiguous elements per thread.
    pub elements: u64,
    /// `min(elements · bitwidth, 128)`.
    pub bits: u32,
    /// PTX-style name, e.g. `v4.b32`.
    pub instruction: String,
}

/// Paper Table 2 naming for a contiguous run of `elements`.
pub fn global_vector(elements: u64, bitwidth: u32) -> Result<GlobalVector, VectorizeError> {
    if ![8, 16, 32, 64].contains(&bitwidth) {
        return Err(VectorizeError::UnsupportedBitwidth(bitwidth));
    }
    let bits = (elements.saturating_mul(bitwidth as u64)).min(128) as u32;
    let instruction = if bits >= 32 {
        format!("v{}.b32", bits / 32)
    } else {
        format!("v1.b{bits}")
    };
    Ok(GlobalVector {
        elements: (bits / bitwidth).max(1) as u64,
        bits,
        instruction,
    })
}

fn check_order(order: &[usize], rank: usize) -> Result<(), VectorizeError> {
    let mut seen = vec![false; rank];
    let ok = order.len() == rank
        && order
            .iter()
            .all(|&d| d < rank && !std::mem::replace(&mut seen[d], true));
    if ok {
        Ok(())
    } else {
        Err(VectorizeError::BadOrder {
            order: order.to_vec(),
            rank,
        })
    }
}

/// Flat row-major offset (along `order`, `order[0]` fastest) of a packed
/// output of `layout`. Power-of-two sizes make it a bit concatenation, so it
/// is linear.
pub fn flat_offset(layout: &LinearLayout, packed: u64, order: &[usize]) -> u64 {
    let coords = layout.unpack(packed);
    let sizes = layout.out_dims();
    let mut off = 0u64;
    let mut shift = 0u32;
    for &d in order {
        off |= coords[d] << shift;
        shift += sizes[d].1.trailing_zeros();
    }
    off
}

/// Non-zero register bases as flat offsets (broadcast registers removed).
fn flat_register_bases(layout: &LinearLayout, order: &[usize]) -> Vec<u64> {
    layout
        .packed_bases(DimName::REGISTER)
        .iter()
        .filter(|&&c| c != 0)
        .map(|&c| flat_offset(layout, c, order))
        .collect()
}

/// Largest `2^k`: bases `0..k` are `1, 2, …, 2^(k-1)` and no later base
/// touches the low `k` bits.
fn identity_prefix(bases: &[u64]) -> u64 {
    let mut best = 0;
    for k in 0..=bases.len() {
        let prefix_ok = (0..k).all(|i| bases[i] == 1 << i);
        if !prefix_ok {
            break;
        }
        let low = (1u64 << k) - 1;
        if bases[k..].iter().all(|&b| b & low == 0) {
            best = k;
        }
    }
    1 << best
}

/// Triton-Linear per-thread contiguity in global memory (see module docs).
/// The lane, warp and block bases must also avoid the low flat bits, so
/// every thread's run starts at an aligned offset (`2^k`-aligned relative
/// to the tensor base).
pub fn global_contiguity(layout: &LinearLayout, order: &[usize]) -> Result<u64, VectorizeError> {
    check_order(order, layout.num_out_dims())?;
    let mut bases = flat_register_bases(layout, order);
    let n_regs = bases.len();
    for d in [DimName::LANE, DimName::WARP, DimName::BLOCK] {
        bases.extend(
            layout
                .packed_bases(d)
                .iter()
                .map(|&c| flat_offset(layout, c, order)),
        );
    }
    Ok(identity_prefix(&bases).min(1 << n_regs))
}

/// Legacy contiguity: along `order[0]` only. Register bases are kept in
/// order (broadcast removed); the prefix must move along `order[0]` alone.
pub fn legacy_contiguity(layout: &LinearLayout, order: &[usize]) -> Result<u64, VectorizeError> {
    check_order(order, layout.num_out_dims())?;
    let fast = order[0];
    let bases: Vec<u64> = layout
        .packed_bases(DimName::REGISTER)
        .iter()
        .filter(|&&c| c != 0)
        .map(|&c| {
            let coords = layout.unpack(c);
            let only_fast = coords.iter().enumerate().all(|(d, &x)| d == fast || x == 0);
            // Bases that leave the fastest dim count as "not 2^i" for any i.
            if only_fast {
                coords[fast]
            } else {
                u64::MAX
            }
        })
        .collect();
    let mut k = 0;
    while k < bases.len() && bases[k] == 1 << k {
        k += 1;
    }
    Ok(1 << k)
}

/// Both widths of one tensor, as in the paper's Table 2.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContiguityReport {
    /// Triton's legacy (order-based) contiguity.
    pub legacy: GlobalVector,
    /// The linear-layout contiguity.
    pub linear: GlobalVector,
}

/// Legacy and Triton-Linear access widths for `layout` stored row-major
/// along `order`.
pub fn contiguity_report(
    layout: &LinearLayout,
    order: &[usize],
    bitwidth: u32,
) -> Result<ContiguityReport, VectorizeError> {
    Ok(ContiguityReport {
        legacy: global_vector(legacy_contiguity(layout, order)?, bitwidth)?,
        linear: global_vector(global_contiguity(layout, order)?, bitwidth)?,
    })
}

/// Brute force: for every thread, each run of `n` consecutive (deduplicated)
/// registers starting at a multiple of `n` covers `n` consecutive flat
/// offsets starting at a multiple of `n`. With `maximal`, also checks that
/// `2n` fails somewhere (when the thread has `2n` registers).
pub fn check_global_contiguity(
    layout: &LinearLayout,
    order: &[usize],
    n: u64,
    maximal: bool,
) -> Result<(), VectorizeError> {
    check_order(order, layout.num_out_dims())?;
    if !n.is_power_of_two() {
        return Err(VectorizeError::BadWidth(n));
    }
    let keep = utils::action_remove_broadcasted_regs(layout);
    let dedup = keep.apply(layout)?;
    let n_regs = dedup.in_dim_size(DimName::REGISTER);
    let holds = |n: u64| -> Result<(), VectorizeError> {
        for block in 0..dedup.in_dim_size(DimName::BLOCK) {
            for warp in 0..dedup.in_dim_size(DimName::WARP) {
                for lane in 0..dedup.in_dim_size(DimName::LANE) {
                    let off =
                        |r: u64| flat_offset(&dedup, hw_apply(&dedup, r, lane, warp, block), order);
                    let mut first = 0;
                    while first < n_regs {
                        let offsets: Vec<u64> = (first..(first + n).min(n_regs)).map(off).collect();
                        check_vector([block, warp, lane], first, n, offsets)?;
                        first += n;
                    }
                }
            }
        }
        Ok(())
    };
    holds(n)?;
    if maximal && 2 * n <= n_regs && holds(2 * n).is_ok() {
        return Err(VectorizeError::NotMaximal {
            claimed: n,
            double: 2 * n,
        });
    }
    Ok(())
}

/// A shared-memory vectorisation: `vec` registers per `ld/st.shared`, after
/// permuting the registers by `register_permutation` (new register bit `i`
/// is old bit `register_permutation[i]`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedVector {
    /// Elements per lane per instruction.
    pub vec: u64,
    /// New register bit `i` is old bit `register_permutation[i]`.
    pub register_permutation: Vec<usize>,
    /// `vec · bitwidth` bits per instruction.
    pub bits: u64,
}

/// Triton's `largestVectorisation` on `cvt: (register, lane, warp, …) →
/// offset` (see module docs). `max_vec` forbids register permutations, as
/// in Triton.
pub fn shared_vectorisation(
    cvt: &LinearLayout,
    bitwidth: u32,
    max_vec: Option<u64>,
) -> Result<SharedVector, VectorizeError> {
    if ![8, 16, 32, 64].contains(&bitwidth) {
        return Err(VectorizeError::UnsupportedBitwidth(bitwidth));
    }
    if !cvt.has_out_dim(DimName::OFFSET) {
        return Err(VectorizeError::MissingOffset(DimName::OFFSET));
    }
    let (vec, perm) = utils::largest_vectorisation(cvt, DimName::OFFSET, bitwidth, max_vec);
    Ok(SharedVector {
        vec,
        register_permutation: perm.action().to_vec(),
        bits: vec * bitwidth as u64,
    })
}

/// Brute force: after the permutation, for every thread every aligned group
/// of `vec` registers covers `vec` consecutive offsets starting at a
/// multiple of `vec`.
pub fn check_shared_vectorisation(
    cvt: &LinearLayout,
    plan: &SharedVector,
) -> Result<(), VectorizeError> {
    let n_bits = cvt.in_dim_size_log2(DimName::REGISTER);
    let perm = ColumnAction::new(plan.register_permutation.clone(), DimName::REGISTER, n_bits)?;
    let p = perm.apply(cvt)?;
    let n = plan.vec;
    let k = p
        .out_dim_index(DimName::OFFSET)
        .expect("checked by the planner");
    for block in 0..p.in_dim_size(DimName::BLOCK) {
        for warp in 0..p.in_dim_size(DimName::WARP) {
            for lane in 0..p.in_dim_size(DimName::LANE) {
                let mut first = 0;
                while first < p.in_dim_size(DimName::REGISTER) {
                    let offsets: Vec<u64> = (first..first + n)
                        .map(|r| p.unpack(hw_apply(&p, r, lane, warp, block))[k])
                        .collect();
                    check_vector([block, warp, lane], first, n, offsets)?;
                    first += n;
                }
            }
        }
    }
    Ok(())
}

/// Checks that the registers `first .. first + n` of thread `(block, warp,
/// lane)`, at element `offsets`, form one vector: `n` consecutive offsets
/// starting at a multiple of `n`. Otherwise
/// [`VectorizeError::NotContiguous`] names the thread and the offsets.
fn check_vector(
    [block, warp, lane]: [u64; 3],
    first: u64,
    n: u64,
    offsets: Vec<u64>,
) -> Result<(), VectorizeError> {
    let ok = offsets.len() as u64 == n
        && offsets[0] & (n - 1) == 0
        && offsets
            .iter()
            .enumerate()
            .all(|(i, &o)| o == offsets[0] + i as u64);
    if ok {
        return Ok(());
    }
    Err(VectorizeError::NotContiguous {
        block,
        warp,
        lane,
        first,
        last: first + n - 1,
        n,
        offsets,
    })
}

/// The vector groups of an address map `offset(r, lane, warp) = ⊕ reg[i]·r_i
/// ⊕ lane[j]·lane_j ⊕ warp[k]·warp_k` (element units): the widest vector of
/// at most 128 bits is formed by the register bits mapping to offsets
/// `1, 2, 4, …` (in that order, any register bits: a register permutation
/// is folded in) while no other basis touches those low offset bits.
/// Returns those register bits and, for each vector, its registers in
/// offset order (element `k` of the vector is register `group[k]`).
///
/// ```
/// use layout_codegen::vectorize::vector_groups;
/// // Register bit 1 -> offset 1, register bit 0 -> offset 2, lanes above.
/// let (bits, groups) = vector_groups(&[2, 1], &[4, 8], &[], 16);
/// assert_eq!(bits, vec![1, 0]);
/// assert_eq!(groups, vec![vec![0, 2, 1, 3]]);
/// ```
pub fn vector_groups(
    reg: &[u64],
    lane: &[u64],
    warp: &[u64],
    bits: u32,
) -> (Vec<usize>, Vec<Vec<u64>>) {
    let max = (128 / bits).max(1).trailing_zeros() as usize;
    let mut chosen: Vec<usize> = Vec::new();
    for j in 0..max {
        match reg.iter().position(|&b| b == 1 << j) {
            Some(i) => chosen.push(i),
            None => break,
        }
    }
    loop {
        let low = (1u64 << chosen.len()) - 1;
        let clean = reg
            .iter()
            .enumerate()
            .filter(|(i, _)| !chosen.contains(i))
            .map(|(_, b)| b)
            .chain(lane)
            .chain(warp)
            .all(|&b| b & low == 0);
        if clean || chosen.is_empty() {
            break;
        }
        chosen.pop();
    }
    let vmask: u64 = chosen.iter().fold(0, |m, &i| m | 1 << i);
    let groups = (0..1u64 << reg.len())
        .filter(|r| r & vmask == 0)
        .map(|r| {
            (0..1u64 << chosen.len())
                .map(|k| {
                    chosen
                        .iter()
                        .enumerate()
                        .fold(r, |acc, (j, &i)| acc | ((k >> j) & 1) << i)
                })
                .collect()
        })
        .collect();
    (chosen, groups)
}

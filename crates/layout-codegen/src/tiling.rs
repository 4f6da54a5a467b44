//! Lowering a `(register, lane, warp) → offset` map with SIMD shared-memory
//! instructions (paper §5.3, Theorem 5.1: an instruction with tile `T`
//! lowers `L` iff `L = T × C` for some `C` (left division), after a register
//! permutation — "generalised vectorisation"; Triton's `lowerLdSt` and
//! `lowerLdStMatrix`).
//!
//! `cvt` is typically `reg_layout.invert_and_compose(shared_layout)`: the
//! element offset (in elements, not bytes) of each register of each thread.
//!
//! Tiles (element bitwidth `bw`, `R = 32 / bw` elements per 32-bit
//! register):
//! * vectorised `ld/st.shared` of `v` elements: `T = identity_1d(v,
//!   register, offset)` ([`vector_plan`], `v` from Triton's
//!   `largestVectorisation`).
//! * `ldmatrix`/`stmatrix` (non-transposed, `bw ≤ 32`): `T = identity_1d(R,
//!   register, offset) × identity_1d(4, lane, offset)`: a 16-byte row per 4
//!   lanes. Lane `t` of the warp supplies the address of row `t mod 8` of
//!   matrix `t / 8`; thread `t`'s register `i` covers bytes `[row(8i +
//!   t/4) + 4·(t mod 4), +4)`. Row `j` of matrix `i` is `C(lane = 4j,
//!   register = i·R)`; `x1/x2/x4` takes 1, 2 or 4 matrices from the next
//!   register bits.
//! * `.trans` (`bw = 16`): element `e` of thread `t`'s register `i` is
//!   column `t / 4` of row `2·(t mod 4) + e`: `T` is the identity from lane
//!   bits 2, 3, 4 onto offset bits 0, 1, 2 (Triton divides after the lane
//!   permutation `[2, 3, 4, 0, 1]`); register bit 0 and lane bits 0, 1 pick
//!   the row, any 16-byte-aligned address.
//!
//! Every plan gives, per instruction `k`, the registers each thread passes
//! and the (affine) address each lane supplies; [`check_tiling`] executes
//! the instruction semantics above and compares with `cvt` for every
//! register of every lane and warp. Matrix plans also enter shared-memory
//! conversion plans ([`crate::shared_conversion::plan_shared_matrix`], one
//! [`crate::plan::Access`] with a [`MatrixInstruction`] per instruction
//! `k`), which [`crate::simulator`] executes element by element with its
//! own model of the instruction and whose wavefronts it counts.

use crate::bank_conflicts::hw_apply;
use linear_layout::{divide_left, gf2, utils, ColumnAction, DimName, LayoutError, LinearLayout};
use serde::{Deserialize, Serialize};

/// The instruction a plan uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TileInstruction {
    /// `ld/st.shared.v{vec}` of `vec` elements.
    VectorShared {
        /// Elements per lane per instruction.
        vec: u64,
    },
    /// `ldmatrix/stmatrix.x{count}` (`.trans` if `trans`).
    Matrix {
        /// Matrices per instruction (1, 2 or 4).
        count: u64,
        /// Whether `.trans` is used.
        trans: bool,
    },
}

/// The shape of a warp-wide `ldmatrix` / `stmatrix` instruction
/// (PTX `.m8n8.x{count}[.trans].shared.b16`): `count` (1, 2 or 4) 8×8
/// matrices of 16-bit elements, each 8 rows of 16 bytes. Lane `8i + j`
/// supplies the (16-byte aligned) shared address of row `j` of matrix `i`
/// (x1: lanes 0–7, x2: lanes 0–15; the other lanes' addresses are unused).
/// Thread `t`'s 32-bit operand `i` holds, without `.trans`, bytes
/// `4 (t mod 4) .. 4 (t mod 4) + 4` of row `t / 4` of matrix `i` (16-bit
/// columns `2 (t mod 4)` and `2 (t mod 4) + 1`, the lower column in the low
/// half); with `.trans` (16-bit elements only), its half `e` holds column
/// `t / 4` of row `2 (t mod 4) + e`. `ldmatrix` moves shared → registers,
/// `stmatrix` registers → shared. Without `.trans` the instruction moves
/// whole 32-bit words, so 8- and 32-bit elements (4 and 1 per operand) are
/// moved exactly as well.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatrixInstruction {
    /// Matrices per instruction: 1, 2 or 4.
    pub count: u64,
    /// `.trans`.
    pub trans: bool,
}

impl MatrixInstruction {
    /// The shared-memory element that element `e` (of `r` per 32-bit
    /// operand) of thread `t`'s operand `i` moves, as the type doc states
    /// it: `rows[8 i + j]` is the element offset where row `j` of matrix `i`
    /// starts. Without `.trans`: row `t / 4`, element `(t mod 4) r + e` of
    /// it; with `.trans`: row `2 (t mod 4) + e`, element `t / 4`. The
    /// simulator's memory model and [`check_tiling`] both move elements
    /// through this map.
    ///
    /// ```
    /// use layout_codegen::tiling::MatrixInstruction;
    /// // Rows of 8 16-bit elements, packed: row j of matrix 0 starts at 8 j.
    /// let rows: Vec<u64> = (0..8).map(|j| 8 * j).collect();
    /// let plain = MatrixInstruction { count: 1, trans: false };
    /// // Thread 5 holds row 1, columns 2 and 3.
    /// assert_eq!(plain.slot(&rows, 5, 0, 0, 2), 8 + 2);
    /// assert_eq!(plain.slot(&rows, 5, 0, 1, 2), 8 + 3);
    /// // Transposed: column 1 of rows 2 and 3.
    /// let trans = MatrixInstruction { count: 1, trans: true };
    /// assert_eq!(trans.slot(&rows, 5, 0, 0, 2), 16 + 1);
    /// assert_eq!(trans.slot(&rows, 5, 0, 1, 2), 24 + 1);
    /// ```
    pub fn slot(&self, rows: &[u64], t: u64, i: u64, e: u64, r: u64) -> u64 {
        if self.trans {
            rows[(8 * i + 2 * (t % 4) + e) as usize] + t / 4
        } else {
            rows[(8 * i + t / 4) as usize] + (t % 4) * r + e
        }
    }
}

/// A tiling plan: plain data.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TilingPlan {
    /// The instruction (or, in an error, the instruction index).
    pub instruction: TileInstruction,
    /// The element bit width.
    pub bitwidth: u32,
    /// New register bit `i` is old register bit `register_permutation[i]`.
    pub register_permutation: Vec<usize>,
    /// Elements each thread passes per instruction.
    pub elements_per_instruction: u64,
    /// Instructions per thread.
    pub instructions_per_thread: u64,
    /// Address (element offset) supplied by lane `t` of warp `w` for
    /// instruction `k`: `XOR_{bit b of k} instr_bases[b] ⊕ XOR_{bit b of t}
    /// lane_bases[b] ⊕ XOR_{bit b of w} warp_bases[b]`. For vector
    /// instructions it is the thread's own start offset; for matrices the
    /// start of the row that lane supplies.
    pub instr_bases: Vec<u64>,
    /// Offset of each lane bit.
    pub lane_bases: Vec<u64>,
    /// Offset of each warp bit.
    pub warp_bases: Vec<u64>,
}

impl TilingPlan {
    /// The address lane `lane` of warp `warp` supplies for instruction `k`.
    pub fn address(&self, k: u64, lane: u64, warp: u64) -> u64 {
        gf2::xor_columns(&self.instr_bases, k)
            ^ gf2::xor_columns(&self.lane_bases, lane)
            ^ gf2::xor_columns(&self.warp_bases, warp)
    }

    /// Original register index of permuted register `p`.
    pub fn original_register(&self, p: u64) -> u64 {
        self.register_permutation
            .iter()
            .enumerate()
            .filter(|(b, _)| p >> b & 1 == 1)
            .fold(0, |a, (_, &o)| a | 1 << o)
    }
}

/// Why a plan cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TilingError {
    #[error(transparent)]
    /// An error of the layout algebra.
    Layout(#[from] LayoutError),
    #[error("cvt must map (register, lane[, warp]) to a single 'offset' out dim; found ins {ins:?}, outs {outs:?}")]
    /// The map is not `(register, lane[, warp]) → offset`.
    BadShape {
        /// The in dims found.
        ins: Vec<DimName>,
        /// The out dims found.
        outs: Vec<DimName>,
    },
    #[error("unsupported bitwidth {bitwidth} for {what}")]
    /// The element bit width is not supported.
    UnsupportedBitwidth {
        /// The element bit width.
        bitwidth: u32,
        /// What was compared or needed.
        what: &'static str,
    },
    #[error("{what} needs 32 lanes, cvt has {lanes}")]
    /// The instruction needs a full 32-lane warp.
    NeedsFullWarp {
        /// What was compared or needed.
        what: &'static str,
        /// The lanes of the map.
        lanes: u64,
    },
    #[error("the tile of {what} does not divide cvt: {reason}")]
    /// The instruction's tile does not divide the map.
    NotDivisible {
        /// What was compared or needed.
        what: &'static str,
        /// Why.
        reason: String,
    },
}

/// Why a plan failed the check.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TilingCheckError {
    #[error("malformed plan: {0}")]
    /// The plan is malformed (the text says how).
    BadPlan(String),
    #[error("plan covers {covered} registers per thread, cvt has {registers}")]
    /// The plan does not cover every register.
    Coverage {
        /// Registers per thread the plan covers.
        covered: u64,
        /// Registers per thread of the map.
        registers: u64,
    },
    #[error("register permutation {0:?} is not a permutation of the register bits")]
    /// The register permutation is not a permutation.
    BadPermutation(Vec<usize>),
    #[error("warp {warp} instruction {instruction}: lane {lane} supplies address {address}, not aligned to {align} elements")]
    /// A lane supplies a misaligned address.
    Misaligned {
        /// The warp.
        warp: u64,
        /// The instruction (or, in an error, the instruction index).
        instruction: u64,
        /// The lane.
        lane: u64,
        /// The offset supplied (elements).
        address: u64,
        /// The alignment needed (elements).
        align: u64,
    },
    #[error("warp {warp} instruction {instruction}: lane {lane} register {register} goes to offset {found}, cvt says {expected}")]
    /// A register goes to the wrong offset.
    WrongOffset {
        /// The warp.
        warp: u64,
        /// The instruction (or, in an error, the instruction index).
        instruction: u64,
        /// The lane.
        lane: u64,
        /// The register.
        register: u64,
        /// What was expected.
        expected: u64,
        /// What was found.
        found: u64,
    },
}

fn check_shape(cvt: &LinearLayout) -> Result<(), TilingError> {
    let ins: Vec<DimName> = cvt.in_dim_names().collect();
    let outs: Vec<DimName> = cvt.out_dim_names().collect();
    let ins_ok = ins.first() == Some(&DimName::REGISTER)
        && !matches!(ins.get(1), Some(&d) if d != DimName::LANE)
        && !matches!(ins.get(2), Some(&d) if d != DimName::WARP)
        && ins.len() <= 3;
    if !ins_ok || outs != [DimName::OFFSET] {
        return Err(TilingError::BadShape { ins, outs });
    }
    Ok(())
}

fn apply_perm(cvt: &LinearLayout, perm: &[usize]) -> Result<LinearLayout, TilingError> {
    let n = cvt.in_dim_size_log2(DimName::REGISTER);
    Ok(ColumnAction::new(perm.to_vec(), DimName::REGISTER, n)?.apply(cvt)?)
}

/// Vectorised `ld/st.shared`: the widest `vec ≤ max_bits / bitwidth` found
/// by [`utils::largest_vectorisation`], with its register permutation.
pub fn vector_plan(
    cvt: &LinearLayout,
    bitwidth: u32,
    max_bits: u32,
) -> Result<TilingPlan, TilingError> {
    check_shape(cvt)?;
    if ![8, 16, 32, 64].contains(&bitwidth)
        || max_bits < bitwidth
        || ![32, 64, 128].contains(&max_bits)
    {
        return Err(TilingError::UnsupportedBitwidth {
            bitwidth,
            what: "vectorised ld/st.shared (bitwidth 8..64, max_bits 32/64/128)",
        });
    }
    // largest_vectorisation caps at 128 / bitwidth; scale the bitwidth so
    // that the cap is max_bits / bitwidth (permutations stay allowed).
    let scaled = 128 * bitwidth / max_bits;
    let (vec, perm) = utils::largest_vectorisation(cvt, DimName::OFFSET, scaled, None);
    let perm = perm.action().to_vec();
    let p = apply_perm(cvt, &perm)?;
    let lv = vec.trailing_zeros() as usize;
    let regs = p.packed_bases(DimName::REGISTER);
    Ok(TilingPlan {
        instruction: TileInstruction::VectorShared { vec },
        bitwidth,
        register_permutation: perm,
        elements_per_instruction: vec,
        instructions_per_thread: cvt.in_dim_size(DimName::REGISTER) / vec,
        instr_bases: regs[lv..].to_vec(),
        lane_bases: p.packed_bases(DimName::LANE).to_vec(),
        warp_bases: p.packed_bases(DimName::WARP).to_vec(),
    })
}

/// `ldmatrix/stmatrix.x{count}[.trans]` with `count ≤ max_count` (1, 2 or
/// 4; the largest the registers allow is used).
pub fn matrix_plan(
    cvt: &LinearLayout,
    bitwidth: u32,
    trans: bool,
    max_count: u64,
) -> Result<TilingPlan, TilingError> {
    check_shape(cvt)?;
    let what = if trans {
        "ldmatrix/stmatrix .trans"
    } else {
        "ldmatrix/stmatrix"
    };
    let ok_bw = if trans {
        bitwidth == 16
    } else {
        [8, 16, 32].contains(&bitwidth)
    };
    if !ok_bw || ![1, 2, 4].contains(&max_count) {
        return Err(TilingError::UnsupportedBitwidth { bitwidth, what });
    }
    let lanes = cvt.in_dim_size(DimName::LANE);
    if lanes != 32 {
        return Err(TilingError::NeedsFullWarp { what, lanes });
    }
    let r = (32 / bitwidth) as u64;
    let lr = r.trailing_zeros() as usize;
    let row_bits = lr as u32 + 2; // log2 of elements per 16-byte row
    let (perm, p) = if trans {
        let perm: Vec<usize> = (0..cvt.in_dim_size_log2(DimName::REGISTER) as usize).collect();
        let lanes_b = cvt.packed_bases(DimName::LANE);
        for (k, want) in [(2usize, 1u64), (3, 2), (4, 4)] {
            if lanes_b[k] != want {
                return Err(TilingError::NotDivisible {
                    what,
                    reason: format!("lane basis {k} is offset {}, expected {want}", lanes_b[k]),
                });
            }
        }
        (perm, cvt.clone())
    } else {
        let tile = LinearLayout::identity_1d(r, DimName::REGISTER, DimName::OFFSET)
            * LinearLayout::identity_1d(4, DimName::LANE, DimName::OFFSET);
        let Some(perm) = utils::reg_perm_for_divide(cvt, &tile, true) else {
            return Err(TilingError::NotDivisible {
                what,
                reason: format!("no {r} registers hold offsets 1, 2, .. {}", r / 2),
            });
        };
        let p = perm.apply(cvt)?;
        if divide_left(&p, &tile).is_none() {
            return Err(TilingError::NotDivisible {
                what,
                reason: format!(
                    "lane bases 0, 1 must be offsets {r}, {} and all other bases 0 mod {}",
                    2 * r,
                    4 * r
                ),
            });
        }
        (perm.action().to_vec(), p)
    };
    // Alignment: bases outside the tile avoid the row's low bits (trans:
    // row = lane bits 2..4; the other bases are row selectors).
    let low = (1u64 << row_bits) - 1;
    let regs = p.packed_bases(DimName::REGISTER);
    let lanes_b = p.packed_bases(DimName::LANE);
    let tile_lane_bits: &[usize] = if trans { &[2, 3, 4] } else { &[0, 1] };
    let tile_reg_bits = if trans { 0 } else { lr };
    let others = regs[tile_reg_bits..]
        .iter()
        .chain(
            lanes_b
                .iter()
                .enumerate()
                .filter(|(k, _)| !tile_lane_bits.contains(k))
                .map(|(_, c)| c),
        )
        .chain(p.packed_bases(DimName::WARP));
    for &c in others {
        if c & low != 0 {
            return Err(TilingError::NotDivisible {
                what,
                reason: format!(
                    "basis offset {c} is not a multiple of the {}-element row",
                    low + 1
                ),
            });
        }
    }
    let n_reg_bits = regs.len();
    // Element-in-register bits: non-trans lr, trans 1.
    let e_bits = lr;
    if n_reg_bits < e_bits {
        return Err(TilingError::NotDivisible {
            what,
            reason: format!("{n_reg_bits} register bits, need {e_bits} per 32-bit register"),
        });
    }
    let m_bits = (n_reg_bits - e_bits).min(max_count.trailing_zeros() as usize);
    let count = 1u64 << m_bits;
    // Address of lane t: matrix i = t >> 3, row j = t & 7.
    let lane_bases: Vec<u64> = if trans {
        // Row j = e + 2 (t & 3): bit 0 = register bit 0, bits 1, 2 = lane
        // bits 0, 1.
        let mut v = vec![regs[0], lanes_b[0], lanes_b[1]];
        v.extend((0..2).map(|b| if b < m_bits { regs[e_bits + b] } else { 0 }));
        v
    } else {
        let mut v = vec![lanes_b[2], lanes_b[3], lanes_b[4]];
        v.extend((0..2).map(|b| if b < m_bits { regs[e_bits + b] } else { 0 }));
        v
    };
    Ok(TilingPlan {
        instruction: TileInstruction::Matrix { count, trans },
        bitwidth,
        register_permutation: perm,
        elements_per_instruction: count * r,
        instructions_per_thread: (1u64 << n_reg_bits) / (count * r),
        instr_bases: regs[e_bits + m_bits..].to_vec(),
        lane_bases,
        warp_bases: p.packed_bases(DimName::WARP).to_vec(),
    })
}

/// The best of `stmatrix.x4`, `.trans` and vectorised `st.shared` (most
/// elements per instruction; matrices first on ties).
pub fn best_tiling(cvt: &LinearLayout, bitwidth: u32) -> Result<TilingPlan, TilingError> {
    let mut best: Option<TilingPlan> = None;
    let cands = [
        matrix_plan(cvt, bitwidth, false, 4),
        matrix_plan(cvt, bitwidth, true, 4),
        vector_plan(cvt, bitwidth, 128),
    ];
    let mut last_err = None;
    for c in cands {
        match c {
            Ok(p) => {
                let better = match &best {
                    None => true,
                    Some(b) => p.elements_per_instruction > b.elements_per_instruction,
                };
                if better {
                    best = Some(p);
                }
            }
            Err(e) => last_err = Some(e),
        }
    }
    best.ok_or_else(|| last_err.expect("some candidate failed"))
}

/// Executes `plan`'s instructions with their hardware semantics (module
/// docs) on every warp and compares each register's offset with `cvt`.
pub fn check_tiling(plan: &TilingPlan, cvt: &LinearLayout) -> Result<(), TilingCheckError> {
    let n_regs = cvt.in_dim_size(DimName::REGISTER);
    let n_bits = cvt.in_dim_size_log2(DimName::REGISTER);
    if ColumnAction::new(plan.register_permutation.clone(), DimName::REGISTER, n_bits).is_err()
        || plan.register_permutation.len() != n_bits as usize
    {
        return Err(TilingCheckError::BadPermutation(
            plan.register_permutation.clone(),
        ));
    }
    let lanes = cvt.in_dim_size(DimName::LANE);
    match plan.instruction {
        TileInstruction::VectorShared { vec } if !vec.is_power_of_two() => {
            return Err(TilingCheckError::BadPlan(format!("vector width {vec}")));
        }
        TileInstruction::Matrix { count, trans } => {
            let bw_ok = if trans {
                plan.bitwidth == 16
            } else {
                [8, 16, 32].contains(&plan.bitwidth)
            };
            if ![1, 2, 4].contains(&count) || !bw_ok || lanes != 32 {
                return Err(TilingCheckError::BadPlan(format!(
                    "matrix x{count} (trans {trans}) of {}-bit elements over {lanes} lanes",
                    plan.bitwidth
                )));
            }
        }
        _ => {}
    }
    let covered = plan
        .elements_per_instruction
        .saturating_mul(plan.instructions_per_thread);
    if covered != n_regs {
        return Err(TilingCheckError::Coverage {
            covered,
            registers: n_regs,
        });
    }
    let offset = |r: u64, l: u64, w: u64| hw_apply(cvt, r, l, w, 0);
    for w in 0..cvt.in_dim_size(DimName::WARP) {
        for k in 0..plan.instructions_per_thread {
            let addr: Vec<u64> = (0..lanes).map(|t| plan.address(k, t, w)).collect();
            // (lane, permuted register, offset) triples written.
            let mut writes = Vec::new();
            let align;
            match plan.instruction {
                TileInstruction::VectorShared { vec } => {
                    align = vec;
                    for t in 0..lanes {
                        for e in 0..vec {
                            writes.push((t, k * vec + e, addr[t as usize] + e));
                        }
                    }
                }
                TileInstruction::Matrix { count, trans } => {
                    let r = (32 / plan.bitwidth) as u64;
                    align = 4 * r;
                    let m = MatrixInstruction { count, trans };
                    for t in 0..lanes {
                        for i in 0..count {
                            for e in 0..r {
                                let off = m.slot(&addr, t, i, e, r);
                                writes.push((t, (k * count + i) * r + e, off));
                            }
                        }
                    }
                }
            }
            let used_lanes = match plan.instruction {
                TileInstruction::VectorShared { .. } => lanes,
                TileInstruction::Matrix { count, .. } => 8 * count,
            };
            for t in 0..used_lanes {
                if addr[t as usize] & (align - 1) != 0 {
                    return Err(TilingCheckError::Misaligned {
                        warp: w,
                        instruction: k,
                        lane: t,
                        address: addr[t as usize],
                        align,
                    });
                }
            }
            for (t, preg, off) in writes {
                let reg = plan.original_register(preg);
                let want = offset(reg, t, w);
                if want != off {
                    return Err(TilingCheckError::WrongOffset {
                        warp: w,
                        instruction: k,
                        lane: t,
                        register: reg,
                        expected: want,
                        found: off,
                    });
                }
            }
        }
    }
    Ok(())
}

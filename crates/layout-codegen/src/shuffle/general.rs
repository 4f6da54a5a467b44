//! The general warp-shuffle planner: one `shfl.idx` per value of the
//! register part of the conversion's lane map, then selects.

use super::*;
use linear_layout::{gf2, DimName, LinearLayout};

/// The general plan (see the module docs): works for every conversion whose
/// map `C = dst⁻¹ ∘ src` is trivial over `warp` and `block`, including
/// non-distributed layouts and any broadcasting. Rounds per destination
/// register `d` (not a replica): `|image(M)|`, with `M(l) = C_reg(0, l)`.
pub fn general_shuffle_plan(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<WarpShufflePlan, ShuffleError> {
    check_bitwidth(bitwidth)?;
    let dec = LaneDecomposition::new(src, dst)?;
    let n_src_regs = src.in_dim_size(DimName::REGISTER) as usize;
    let n_dst_regs = dst.in_dim_size(DimName::REGISTER);
    let (lanes, zero_mask) = (dec.lanes, dec.zero_mask);
    let mut prog = WarpProgram::new(lanes, bitwidth, n_src_regs);
    for d in 0..n_dst_regs {
        if d & zero_mask != 0 {
            let o = prog.outputs[(d & !zero_mask) as usize];
            prog.outputs.push(o);
            continue;
        }
        let (base_reg, src_lane) = dec.base(d)?;
        let mut result: Option<Slot> = None;
        for &s in &dec.image {
            let src_slot = (base_reg ^ s) as usize;
            let got = if src_lane.is_identity() {
                src_slot
            } else {
                let src_lane = src_lane.clone();
                prog.push(|dst| WarpInstr::Shuffle {
                    dst,
                    src: src_slot,
                    mode: ShflMode::Idx { src_lane },
                })
            };
            result = Some(match result {
                None => got,
                Some(prev) => prog.push(|dst| WarpInstr::Select {
                    dst,
                    cond: LanePredicate::Equals {
                        bases: dec.m_bases.clone(),
                        value: s,
                    },
                    if_true: got,
                    if_false: prev,
                }),
            });
        }
        prog.outputs.push(result.expect("image of M is non-empty"));
    }
    let cost = prog.cost();
    Ok(WarpShufflePlan {
        strategy: ShuffleStrategy::GeneralRounds,
        decomposition: None,
        program: prog,
        cost,
    })
}

/// The warp-local conversion `C` of `src → dst` (destination register and
/// lane → source register and lane) taken apart as the general planners
/// read it: for destination register `d` and lane `l`,
/// `C(d, l) = (C_reg(d, 0) ⊕ M(l), C_lane(d, 0) ⊕ λ(l))`, with `M` and `λ`
/// linear in `l`.
pub(super) struct LaneDecomposition {
    c: LinearLayout,
    /// Lanes per warp.
    pub lanes: u32,
    /// `M` on lane bits: the source-register offset a lane reads.
    pub m_bases: Vec<u64>,
    /// `λ` on lane bits: the source-lane offset a lane reads.
    pub lambda: Vec<u32>,
    /// The image of `M`, in increasing order.
    pub image: Vec<u64>,
    /// Destination register bits with a zero basis (replicas).
    pub zero_mask: u64,
}

impl LaneDecomposition {
    pub(super) fn new(src: &LinearLayout, dst: &LinearLayout) -> Result<Self, ShuffleError> {
        let c = warp_local_conversion(src, dst)?;
        let lanes = src.in_dim_size(DimName::LANE) as u32;
        let mut m_bases = Vec::new();
        let mut lambda = Vec::new();
        for k in 0..src.in_dim_size_log2(DimName::LANE) {
            let (reg, lane) = register_lane_image(&c, 0, 1 << k)?;
            m_bases.push(reg);
            lambda.push(lane as u32);
        }
        let mut image: Vec<u64> = (0..lanes)
            .map(|l| gf2::xor_columns(&m_bases, l.into()))
            .collect();
        image.sort_unstable();
        image.dedup();
        let zero_mask = dst
            .packed_bases(DimName::REGISTER)
            .iter()
            .enumerate()
            .filter(|(_, &b)| b == 0)
            .fold(0, |a, (k, _)| a | 1 << k);
        Ok(LaneDecomposition {
            c,
            lanes,
            m_bases,
            lambda,
            image,
            zero_mask,
        })
    }

    /// `M(lane)`.
    pub(super) fn m(&self, lane: u32) -> u64 {
        gf2::xor_columns(&self.m_bases, lane.into())
    }

    /// `C_reg(d, 0)` and the source lane map of destination register `d`
    /// (`l ↦ C_lane(d, 0) ⊕ λ(l)`).
    pub(super) fn base(&self, d: u64) -> Result<(u64, LaneMap), ShuffleError> {
        let (reg, lane) = register_lane_image(&self.c, d, 0)?;
        Ok((
            reg,
            LaneMap {
                bases: self.lambda.clone(),
                constant: lane as u32,
            },
        ))
    }
}

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
    let c = warp_local_conversion(src, dst)?;
    let lanes = src.in_dim_size(DimName::LANE) as u32;
    let n_lane_bits = src.in_dim_size_log2(DimName::LANE);
    let n_src_regs = src.in_dim_size(DimName::REGISTER) as usize;
    let n_dst_regs = dst.in_dim_size(DimName::REGISTER);
    // C evaluated on (dst register, dst lane) → (src register, src lane).
    let ev = |r: u64, l: u64| -> Result<(u64, u32), ShuffleError> {
        let (reg, lane) = register_lane_image(&c, r, l)?;
        Ok((reg, lane as u32))
    };
    let lane_cols: Vec<(u64, u32)> = (0..n_lane_bits)
        .map(|k| ev(0, 1 << k))
        .collect::<Result<_, _>>()?;
    let m_bases: Vec<u64> = lane_cols.iter().map(|c| c.0).collect();
    let lane_map_bases: Vec<u32> = lane_cols.iter().map(|c| c.1).collect();
    // Image of M, in increasing order.
    let mut image: Vec<u64> = (0..lanes)
        .map(|l| gf2::xor_columns(&m_bases, l.into()))
        .collect();
    image.sort_unstable();
    image.dedup();
    let zero_mask: u64 = dst
        .packed_bases(DimName::REGISTER)
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == 0)
        .fold(0, |a, (k, _)| a | 1 << k);
    let mut prog = WarpProgram::new(lanes, bitwidth, n_src_regs);
    for d in 0..n_dst_regs {
        if d & zero_mask != 0 {
            let o = prog.outputs[(d & !zero_mask) as usize];
            prog.outputs.push(o);
            continue;
        }
        let (base_reg, base_lane) = ev(d, 0)?;
        let src_lane = LaneMap {
            bases: lane_map_bases.clone(),
            constant: base_lane,
        };
        let mut result: Option<Slot> = None;
        for &s in &image {
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
                        bases: m_bases.clone(),
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

//! The cost of a partial plan ([`PartialCost`]) and of the full
//! shared-memory plan through the same shared layout, wavefronts summed over
//! every warp of one CTA.

use super::{Hw, OffsetMap, PartialCost, PartialCrossWarpPlan};
use crate::plan::Access;
use crate::wavefront::predicated_access_wavefronts;
use linear_layout::DimName;
use std::collections::HashMap;

#[allow(clippy::too_many_arguments)]
pub(super) fn cost_of(
    plan: &PartialCrossWarpPlan,
    st: &OffsetMap,
    ld: &OffsetMap,
    st_groups: &[Vec<u64>],
    ld_groups: &[Vec<u64>],
    c: &[u64],
    s: &Hw,
    d: &Hw,
) -> PartialCost {
    let bytes = plan.bitwidth as u64 / 8;
    // The full plan stores one replica of a broadcast source: the lanes,
    // warps and registers with no free bit set (as the full emitter does).
    let free = |dim| {
        s.layout
            .free_variable_masks()
            .into_iter()
            .find(|x| x.0 == dim)
            .map_or(0, |x| x.1)
    };
    let (fr, fl, fw) = (
        free(DimName::REGISTER),
        free(DimName::LANE),
        free(DimName::WARP),
    );
    let mut cost = PartialCost {
        elements: d.count(),
        ..Default::default()
    };
    cost.staying_elements = (0..d.count())
        .filter(|&f| d.split(f).2 == s.split(c[f as usize]).2)
        .count() as u64;
    // A predicated access: phases cut from all lanes, only its lanes'
    // addresses counted.
    let wf_in = |acc: &Access, w: u64, runs: &dyn Fn(u64) -> bool| -> u64 {
        let starts: Vec<Option<u64>> = (0..plan.num_lanes)
            .map(|l| runs(l).then(|| acc.address.eval(l, w) * bytes))
            .collect();
        predicated_access_wavefronts(&starts, acc.registers.len() as u64 * bytes)
            .iter()
            .sum()
    };
    for w in 0..plan.num_warps {
        let k = &plan.classes[plan.class_of(w).expect("every warp has a class")];
        for (i, a) in k.stores.iter().enumerate() {
            cost.store_wavefronts += wf_in(a, w, &|l| k.stores_in(i, l));
        }
        for (i, a) in k.loads.iter().enumerate() {
            cost.load_wavefronts += wf_in(a, w, &|l| k.loads_in(i, l));
        }
        cost.store_instructions += k.stores.len() as u64;
        cost.load_instructions += k.loads.len() as u64;
        let mut per_lane: HashMap<u64, u64> = HashMap::new();
        cost.selects += k.lane_xor.as_ref().map_or(0, |x| x.selects());
        for m in &k.staying {
            cost.selects += m.selects();
            if m.is_register_move(w, plan.num_lanes) {
                cost.register_moves += 1
            } else {
                cost.shuffles += 1;
                *per_lane.entry(m.src_lane.constant).or_default() += 1;
            }
        }
        let per = (32 / plan.bitwidth.min(32)) as u64;
        cost.packed_shuffles += per_lane.values().map(|n| n.div_ceil(per)).sum::<u64>();
        for g in st_groups.iter().filter(|g| g[0] & fr == 0 && w & fw == 0) {
            let a = Access {
                registers: g.clone(),
                address: st.address(g[0]),
                matrix: None,
            };
            // Only the lanes with no free bit store (a predicated store).
            cost.full_store_wavefronts += wf_in(&a, w, &|l| l & fl == 0);
        }
        for g in ld_groups {
            let a = Access {
                registers: g.clone(),
                address: ld.address(g[0]),
                matrix: None,
            };
            cost.full_load_wavefronts += wf_in(&a, w, &|_| true);
        }
    }
    cost
}

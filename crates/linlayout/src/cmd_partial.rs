//! `linlayout convert --partial`: the conversion as a partial cross-warp
//! plan (`layout_codegen::partial::plan_split`): only the elements that
//! leave their warp go through shared memory, the others stay by register
//! moves or `shfl.sync.idx`; a broadcast source is read from the copy in
//! the reader's own warp where there is one (`layout_codegen::replica`).

use layout_codegen::partial::{plan_split_optimal, PartialCrossWarpPlan};
use linear_layout::LinearLayout;
use serde_json::{json, Value};

/// The split plan through the optimal swizzle, proved, with the count of
/// destination registers checked; `Err` names why the class does not apply.
fn plan(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<(PartialCrossWarpPlan, u64), String> {
    plan_split_optimal(src, dst, bitwidth)
        .map(|(p, r)| (p, r.registers_checked))
        .map_err(|e| {
            let e = e.to_string();
            match e.split_once("not a partial cross-warp conversion: ") {
                Some((_, why)) => why.to_string(),
                None => e,
            }
        })
}

/// The `"partial"` object of `convert --json --partial`: the plan and its
/// costs, or `{"refused": reason}`.
pub fn partial_json(src: &LinearLayout, dst: &LinearLayout, bitwidth: u32) -> Value {
    match plan(src, dst, bitwidth) {
        Ok((p, checked)) => json!({
            "plan": p,
            "partial_units": p.cost.partial_units(),
            "full_units": p.cost.full_units(),
            "registers_checked": checked,
        }),
        Err(why) => json!({ "refused": why }),
    }
}

/// The text section of `convert --partial`.
pub fn print_partial(src: &LinearLayout, dst: &LinearLayout, bitwidth: u32) {
    let (p, checked) = match plan(src, dst, bitwidth) {
        Ok(x) => x,
        Err(why) => {
            println!("partial cross-warp plan: not applicable: {why}");
            return;
        }
    };
    print_partial_plan(
        &p,
        "partial cross-warp plan (through the optimal swizzle)",
        "elements",
    );
    println!("  proved by simulate_partial: {checked} destination registers checked");
}

/// A partial cross-warp plan as text: how many elements stay in their
/// warp, the predicted units against the full plan through the same
/// shared layout, and each warp class's instructions, under `heading`.
pub fn print_partial_plan(p: &PartialCrossWarpPlan, heading: &str, unit: &str) {
    let c = &p.cost;
    println!(
        "{heading}: {} of {} destination {unit} stay in their warp",
        c.staying_elements, c.elements
    );
    println!(
        "  predicted units per CTA (wavefronts + shuffles): {} (stores {}, loads {}, shuffles {}); the full plan through the same layout: {}",
        c.partial_units(),
        c.store_wavefronts,
        c.load_wavefronts,
        c.packed_shuffles,
        c.full_units()
    );
    for k in &p.classes {
        let moves = k
            .staying
            .iter()
            .filter(|m| k.warps.iter().all(|&w| m.is_register_move(w, p.num_lanes)))
            .count();
        let selects: u64 = k.staying.iter().map(|m| m.selects()).sum::<u64>()
            + k.lane_xor.as_ref().map_or(0, |x| x.selects());
        println!(
            "  warps {:?}: {} stores, {} register moves, {} shuffles, {} selects{}, {} loads{}",
            k.warps,
            k.stores.len(),
            moves,
            k.staying.len() - moves,
            selects,
            match &k.lane_xor {
                Some(x) => format!(
                    " ({} source and {} destination registers permuted by lane)",
                    x.sent.len(),
                    x.received.len()
                ),
                None => String::new(),
            },
            k.loads.len(),
            if k.stores.is_empty() && k.loads.is_empty() {
                " (no shared memory, no barrier)"
            } else {
                ""
            }
        );
    }
}

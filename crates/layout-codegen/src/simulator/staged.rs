//! Proves a staged plan: an in-warp regroup ([`crate::regroup`]) before or
//! after a whole-CTA plan of the intermediate layout.
//!
//! The two stages are proved on the layouts they connect: the regroup by
//! [`check_word_program`] (every element of every warp numbered, the
//! program run on real packed 32-bit words, every register of every lane
//! of the intermediate or destination layout compared), the other stage
//! by [`simulate_with`] (tagged registers, every destination register of
//! every thread checked). The composition is proved by the two: each
//! proof starts from registers that hold exactly what its input layout
//! assigns, and the first stage's proof ends with exactly that for the
//! second stage's input layout.

use super::{simulate_with, SimulationReport, SimulatorConfig};
use crate::error::{CodegenError, Result};
use crate::packed_shuffle::check_word_program;
use crate::plan::{ConversionPlan, Regroup, RegroupAt};
use linear_layout::LinearLayout;

/// Runs `regroup` and `then` converting `src` to `dst` (module doc) and
/// returns the report of `then` with the regroup's shuffles and permutes
/// (per thread) added.
///
/// Errors: the first wrong register of either stage.
pub fn simulate_staged(
    config: &SimulatorConfig,
    regroup: &Regroup,
    then: &ConversionPlan,
    src: &LinearLayout,
    dst: &LinearLayout,
) -> Result<SimulationReport> {
    let inter = &regroup.intermediate_layout;
    let (from, to, rest) = match regroup.at {
        RegroupAt::Before => (src, inter, (inter, dst)),
        RegroupAt::After => (inter, dst, (src, inter)),
    };
    check_word_program(&regroup.program, from, to)
        .map_err(|e| CodegenError::Invalid(format!("the regroup is wrong: {e}")))?;
    let mut report = simulate_with(config, then, rest.0, rest.1)?;
    let c = regroup.program.cost();
    report.shuffles += c.shuffles as u64;
    report.prmt += c.permutes as u64;
    Ok(report)
}

//! Staged conversions ([`layout_codegen::planner::Lowering::Staged`]): the
//! planner's regroup ([`layout_codegen::regroup`]) as `shfl.sync.bfly` and
//! `__byte_perm` on consecutive words ([`crate::word_shuffle`]), and its
//! word stage as any whole-CTA plan ([`crate::translate`]), in the order
//! the plan says. Nothing is decided here.

use crate::{ctype, translate, word_shuffle, EmitError, Path};
use layout_codegen::plan::{ConversionPlan, Regroup, RegroupAt};
use std::fmt::Write;

/// Emits `fname(a, b, smem, lane, warp)` on element arrays (`nf` source,
/// `nt` destination registers): `fname_regroup` (the regroup's word
/// program as an element function of the same calling convention,
/// [`word_shuffle::emit_word_element_function`]: packed into consecutive
/// words before, unpacked after) and `fname`, which calls it and runs the word stage's
/// plan inline through an intermediate array, in the plan's order.
/// Returns the class of the word stage.
pub(crate) fn emit_staged_function(
    out: &mut String,
    fname: &str,
    bits: u32,
    (regroup, then): (&Regroup, &ConversionPlan),
    (nf, nt): (u64, u64),
) -> Result<Path, EmitError> {
    let t = ctype(bits);
    let words = regroup.program.num_inputs as u64;
    let e = u64::from(32 / bits);
    let ni = words * e;
    let (then_in, then_out) = match regroup.at {
        RegroupAt::Before => (ni, nt),
        RegroupAt::After => (nf, ni),
    };
    word_shuffle::emit_word_element_function(
        out,
        &format!("{fname}_regroup"),
        bits,
        &regroup.program,
    )?;
    // The word stage inline (its shared-memory accesses and barriers in
    // the function the caller calls), on the intermediate array `m` bound
    // to the plan's `a` (regroup first) or `b` (regroup last).
    writeln!(
        out,
        "__device__ __forceinline__ void {fname}(const {t} (&a)[{nf}], {t} (&b)[{nt}], {t}* smem, unsigned lane, unsigned warp) {{\n  {t} m[{ni}];"
    )
    .unwrap();
    let bind = match regroup.at {
        RegroupAt::Before => {
            writeln!(out, "  {fname}_regroup(a, m, smem, lane, warp);").unwrap();
            format!("const {t} (&a)[{then_in}] = m;")
        }
        RegroupAt::After => format!("{t} (&b)[{then_out}] = m;"),
    };
    writeln!(out, "  {{\n  {bind}").unwrap();
    let path = translate::emit_plan_body(out, then, bits)?;
    writeln!(out, "  (void)a;\n  }}").unwrap();
    if regroup.at == RegroupAt::After {
        writeln!(out, "  {fname}_regroup(m, b, smem, lane, warp);").unwrap();
    }
    writeln!(out, "  (void)smem; (void)lane; (void)warp;").unwrap();
    writeln!(out, "}}").unwrap();
    Ok(path)
}

//! `stmatrix` / `ldmatrix` (`.m8n8.x{1,2,4}[.trans].shared.b16`) for the
//! shared-memory conversion, used where `layout_codegen::tiling` divides the
//! store map (source `(register, lane, warp) → offset`) or the load map
//! (destination `→ offset`) by the instruction tile.
//!
//! PTX semantics (x`n`, 16-bit elements, two per 32-bit operand, element 0
//! in the low half): lane `8i + j` supplies the shared address of row `j` of
//! matrix `i` (a 16-byte row of 8 elements). Without `.trans`, operand `i`
//! of lane `t` holds row `t / 4`, columns `2 (t mod 4) + e` (`e` = half) of
//! matrix `i`; with `.trans` it holds row `2 (t mod 4) + e`, column `t / 4`.
//! `ldmatrix` moves the same elements in the other direction. The plan's
//! permuted register `p = (k · n + i) · 2 + e` is element `e` of operand
//! `i` of instruction `k`; [`TilingPlan::original_register`] gives the
//! register of the layout.
//!
//! Wavefronts: each 8-row matrix is one phase of 8 × 16 B, counted by
//! [`layout_codegen::wavefront::matrix_wavefronts`] (ideal 1 per matrix).
//!
//! Checked on an H200 (sm_90a) for `blocked_T_64x64_f16_mx` (stmatrix and
//! ldmatrix `.trans`) and `mma2_to_dotB_64x64_f16_mx` (both, with and
//! without `.trans`): the programs' own element checks pass and `ncu`'s
//! shared load/store wavefronts equal the prediction (128/128, 192/192).

use crate::{free_masks, smem_map, wavefronts, EmitError};
use layout_codegen::tiling::{check_tiling, matrix_plan, TileInstruction, TilingPlan};
use linear_layout::{DimName, LinearLayout};
use std::fmt::Write;

/// The map `smem⁻¹ ∘ layout : (register, lane, warp) → offset` (block
/// dropped).
fn offset_map(layout: &LinearLayout, smem: &LinearLayout) -> Option<LinearLayout> {
    let m = layout.compose(&smem.invert().ok()?).ok()?;
    m.sublayout(
        &[DimName::REGISTER, DimName::LANE, DimName::WARP],
        &[DimName::OFFSET],
    )
    .ok()
}

/// The matrix plan (x4 or smaller, `.trans` or not, the one with more
/// elements per instruction; non-trans first on ties) for the accesses of
/// `layout` through `smem`, if the tile divides the map and the plan passes
/// [`check_tiling`]. Only 16-bit elements.
pub fn plan_for(layout: &LinearLayout, smem: &LinearLayout, bits: u32) -> Option<TilingPlan> {
    if bits != 16 {
        return None;
    }
    let cvt = offset_map(layout, smem)?;
    let mut best: Option<TilingPlan> = None;
    for trans in [false, true] {
        if let Ok(p) = matrix_plan(&cvt, bits, trans, 4) {
            if check_tiling(&p, &cvt).is_ok()
                && best
                    .as_ref()
                    .is_none_or(|b| p.elements_per_instruction > b.elements_per_instruction)
            {
                best = Some(p);
            }
        }
    }
    best
}

fn count_trans(plan: &TilingPlan) -> (u64, bool) {
    match plan.instruction {
        TileInstruction::Matrix { count, trans } => (count, trans),
        TileInstruction::VectorShared { .. } => (1, false),
    }
}

/// Instruction name of a plan, e.g. `stmatrix.x4.trans`.
pub fn instruction_name(plan: &TilingPlan, store: bool) -> String {
    let (n, t) = count_trans(plan);
    format!(
        "{}.x{n}{}",
        if store { "stmatrix" } else { "ldmatrix" },
        if t { ".trans" } else { "" }
    )
}

/// Predicted wavefronts `(total, ideal)` of one execution of `plan` by all
/// warps: the row addresses of every instruction of every warp, counted by
/// [`layout_codegen::wavefront::matrix_wavefronts`] (one phase per 8-row
/// matrix; ideal 1 per matrix).
pub fn matrix_wavefronts(plan: &TilingPlan, num_warps: u64) -> (u64, u64) {
    let (count, _) = count_trans(plan);
    let (mut total, mut ideal) = (0, 0);
    for w in 0..num_warps {
        for k in 0..plan.instructions_per_thread {
            let rows: Vec<u64> = (0..8 * count)
                .map(|lane| plan.address(k, lane, w) * plan.bitwidth as u64 / 8)
                .collect();
            let per_matrix = layout_codegen::wavefront::matrix_wavefronts(&rows, count);
            total += per_matrix.iter().sum::<u64>();
            ideal += per_matrix.len() as u64;
        }
    }
    (total, ideal)
}

/// Predicted `(wavefronts, ideal, instruction)` of the store (`store`) or
/// load of `layout` through `smem` as the matrix path emits it: the matrix
/// plan where one exists (`use_matrix`), the vector path otherwise.
pub fn side_wavefronts(
    layout: &LinearLayout,
    smem: &LinearLayout,
    bits: u32,
    num_warps: u64,
    store: bool,
    use_matrix: bool,
) -> Option<(u64, u64, String)> {
    if use_matrix {
        if let Some(p) = plan_for(layout, smem, bits) {
            let (w, i) = matrix_wavefronts(&p, num_warps);
            return Some((w, i, instruction_name(&p, store)));
        }
    }
    let m = smem_map(layout, smem).ok()?;
    let (w, i) = if store {
        let (fr, fl, fw) = free_masks(layout);
        wavefronts(&m, bits, num_warps, fr, |l, w| l & fl == 0 && w & fw == 0)
    } else {
        wavefronts(&m, bits, num_warps, 0, |_, _| true)
    };
    let name = format!(
        "{}.shared.v{}",
        if store { "st" } else { "ld" },
        m.vector_width(bits)
    );
    Some((w, i, name))
}

/// Shared-memory instructions per thread of the store (`store`) or load of
/// `layout` through `smem` as the matrix path emits it (the matrix plan
/// where one exists and `use_matrix`, else one vector access per group;
/// stores skip duplicate registers).
pub fn side_instructions(
    layout: &LinearLayout,
    smem: &LinearLayout,
    bits: u32,
    store: bool,
    use_matrix: bool,
) -> Option<u64> {
    if use_matrix {
        if let Some(p) = plan_for(layout, smem, bits) {
            return Some(p.instructions_per_thread);
        }
    }
    let m = smem_map(layout, smem).ok()?;
    let fr = if store { free_masks(layout).0 } else { 0 };
    Some(m.groups(bits).iter().filter(|g| g[0] & fr == 0).count() as u64)
}

/// Score of a shared layout for the matrix path: predicted wavefronts of
/// storing `src` and loading `dst` (the same two maps serve the backward
/// direction), `None` unless at least one side uses a matrix instruction.
pub fn score(
    src: &LinearLayout,
    dst: &LinearLayout,
    smem: &LinearLayout,
    bits: u32,
    num_warps: u64,
) -> Option<u64> {
    plan_for(src, smem, bits)
        .or_else(|| plan_for(dst, smem, bits))
        .map(|_| ())?;
    let (a, _, _) = side_wavefronts(src, smem, bits, num_warps, true, true)?;
    let (b, _, _) = side_wavefronts(dst, smem, bits, num_warps, false, true)?;
    Some(a + b)
}

/// The best shared layout for the matrix path among the XOR swizzle family
/// ([`layout_codegen::swizzle_search::xor_swizzle_family`]) and the paper construction
/// [`crate::swizzle_search::construct_swizzle`], by [`score`].
pub fn search_swizzle(
    src: &LinearLayout,
    dst: &LinearLayout,
    shape: &[u64],
    bits: u32,
    num_warps: u64,
) -> Option<(LinearLayout, u64)> {
    let mut cands =
        layout_codegen::swizzle_search::xor_swizzle_family(shape, bits).unwrap_or_default();
    if let Some((l, _)) = crate::swizzle_search::construct_swizzle(src, dst, bits, num_warps) {
        cands.push(l);
    }
    cands.extend(matrix_constructions(src, dst));
    cands.extend(matrix_constructions(dst, src));
    let mut best: Option<(LinearLayout, u64)> = None;
    for l in cands {
        if let Some(sc) = score(src, dst, &l, bits, num_warps) {
            if best.as_ref().is_none_or(|x| sc < x.1) {
                best = Some((l, sc));
            }
        }
    }
    best
}

/// Shared layouts built for a matrix access of `side` (tensor coordinates,
/// packed; `order[i]` is the coordinate at offset `2^i`): offset bits 0..2
/// (one 16-byte row) are the tile's in-row coordinates (non-trans: a
/// register basis `e` and lane bases 0, 1; `.trans`: lane bases 2, 3, 4),
/// offset bits 3..5 (the 16-byte chunk of a 128-byte bank line) the row
/// selectors `sel` (non-trans: lane bases 2, 3, 4; `.trans`: register basis
/// 0 and lane bases 0, 1), so the 8 rows of each matrix fill the 8 chunks.
/// The next bits are the other side's lane bases `x_k`, each as `x_k` or
/// `x_k ⊕ sel_j`: then `x_k` lies at offset `2^k ⊕ 2^(3+j)`, i.e. in chunk
/// `j`, which spreads the other side's phase over the banks too. Then the
/// rest. Candidates only: [`score`] decides.
fn matrix_constructions(side: &LinearLayout, other: &LinearLayout) -> Vec<LinearLayout> {
    let (r, l) = (DimName::REGISTER, DimName::LANE);
    let regs = side.packed_bases(r).to_vec();
    let lanes = side.packed_bases(l).to_vec();
    if lanes.len() != 5 || regs.is_empty() {
        return Vec::new();
    }
    let mut heads: Vec<(Vec<u64>, Vec<u64>)> = Vec::new();
    for &e in regs.iter().take(3) {
        heads.push((
            vec![e, lanes[0], lanes[1]],
            vec![lanes[2], lanes[3], lanes[4]],
        ));
    }
    heads.push((
        vec![lanes[2], lanes[3], lanes[4]],
        vec![regs[0], lanes[0], lanes[1]],
    ));
    let mut rest: Vec<u64> = other.packed_bases(r).to_vec();
    rest.extend(&regs);
    rest.extend(&lanes);
    rest.extend(side.packed_bases(DimName::WARP));
    let mut out = Vec::new();
    for (low, sel) in &heads {
        let mut span = linear_layout::gf2::EchelonBasis::new();
        for &v in low.iter().chain(sel) {
            span.insert(v);
        }
        // The other side's lanes outside span(low, sel): at most 3 get a
        // choice of chunk.
        let xs: Vec<u64> = other
            .packed_bases(l)
            .iter()
            .copied()
            .filter(|&x| x != 0 && !span.contains(x))
            .take(3)
            .collect();
        let choices = 4usize.pow(xs.len() as u32);
        for c in 0..choices {
            let mut order = low.clone();
            order.extend(sel);
            for (k, &x) in xs.iter().enumerate() {
                let j = (c >> (2 * k)) & 3;
                order.push(if j == 3 { x } else { x ^ sel[j] });
            }
            order.extend(other.packed_bases(l));
            order.extend(&rest);
            if let Some(lay) = crate::swizzle_search::layout_from_order(&order, side) {
                out.push(lay);
            }
        }
    }
    out
}

/// The `__device__` wrappers (CUDA only; a CPU stand-in header supplies its
/// own): `stmatrix_x{1,2,4}[_trans](uint32_t smem_addr, uint32_t r0, ..)`
/// and `ldmatrix_x{1,2,4}[_trans](uint32_t smem_addr, uint32_t& r0, ..)`.
pub fn wrappers() -> String {
    let mut s = String::from("#ifdef __CUDACC__\n");
    for trans in [false, true] {
        for n in [1usize, 2, 4] {
            let suf = if trans { "_trans" } else { "" };
            let ptx_t = if trans { ".trans" } else { "" };
            let regs: Vec<String> = (0..n).map(|i| format!("%{}", i + 1)).collect();
            let st_args: Vec<String> = (0..n).map(|i| format!("uint32_t r{i}")).collect();
            let st_ops: Vec<String> = (0..n).map(|i| format!("\"r\"(r{i})")).collect();
            writeln!(
                s,
                "__device__ __forceinline__ void stmatrix_x{n}{suf}(uint32_t smem_addr, {}) {{\n  asm volatile(\"stmatrix.sync.aligned.m8n8.x{n}{ptx_t}.shared.b16 [%0], {{{}}};\" :: \"r\"(smem_addr), {} : \"memory\");\n}}",
                st_args.join(", "),
                regs.join(", "),
                st_ops.join(", ")
            )
            .unwrap();
            let ld_args: Vec<String> = (0..n).map(|i| format!("uint32_t& r{i}")).collect();
            let ld_regs: Vec<String> = (0..n).map(|i| format!("%{i}")).collect();
            let ld_ops: Vec<String> = (0..n).map(|i| format!("\"=r\"(r{i})")).collect();
            writeln!(
                s,
                "__device__ __forceinline__ void ldmatrix_x{n}{suf}(uint32_t smem_addr, {}) {{\n  asm volatile(\"ldmatrix.sync.aligned.m8n8.x{n}{ptx_t}.shared.b16 {{{}}}, [%{n}];\" : {} : \"r\"(smem_addr) : \"memory\");\n}}",
                ld_args.join(", "),
                ld_regs.join(", "),
                ld_ops.join(", ")
            )
            .unwrap();
        }
    }
    s.push_str("#endif\n\n");
    s
}

/// `var = XOR of the plan's lane and warp row-address bases` (opaque to the
/// optimiser like the vector path's thread offset); returns the mask of
/// bits the thread part can set.
fn emit_thread_part(out: &mut String, plan: &TilingPlan, var: &str) -> u64 {
    crate::access::emit_opaque_thread_offset(out, var, &plan.lane_bases, &plan.warp_bases)
}

fn instr_const(plan: &TilingPlan, k: u64) -> u64 {
    plan.address(k, 0, 0)
}

fn addr_expr(ptr: &str, var: &str, c: u64, mask: u64) -> String {
    let idx = crate::access::xor_as_add(var, c, mask);
    format!("(uint32_t)__cvta_generic_to_shared(&{ptr}[{idx}])")
}

/// Emits `stmatrix` instructions storing register array `arr` (16-bit) to
/// `ptr` as `plan` says. Every lane takes part (duplicated elements are
/// written twice with the same value).
pub fn emit_store(
    out: &mut String,
    plan: &TilingPlan,
    ptr: &str,
    arr: &str,
) -> Result<(), EmitError> {
    emit(out, plan, ptr, arr, true)
}

/// Emits `ldmatrix` instructions loading register array `arr` (16-bit).
pub fn emit_load(
    out: &mut String,
    plan: &TilingPlan,
    ptr: &str,
    arr: &str,
) -> Result<(), EmitError> {
    emit(out, plan, ptr, arr, false)
}

fn emit(
    out: &mut String,
    plan: &TilingPlan,
    ptr: &str,
    arr: &str,
    store: bool,
) -> Result<(), EmitError> {
    let TileInstruction::Matrix { count, trans } = plan.instruction else {
        return Err(EmitError::Unsupported("not a matrix plan".into()));
    };
    if plan.bitwidth != 16 {
        return Err(EmitError::Invalid(format!(
            "matrix path takes 16-bit elements, plan has {}",
            plan.bitwidth
        )));
    }
    let var = format!("m_{ptr}_{}", if store { "st" } else { "ld" });
    let mask = emit_thread_part(out, plan, &var);
    let suf = if trans { "_trans" } else { "" };
    let reg = |k: u64, i: u64, e: u64| plan.original_register((k * count + i) * 2 + e);
    for k in 0..plan.instructions_per_thread {
        let addr = addr_expr(ptr, &var, instr_const(plan, k), mask);
        if store {
            let ops: Vec<String> = (0..count)
                .map(|i| {
                    format!(
                        "(uint32_t){arr}[{}] | ((uint32_t){arr}[{}] << 16)",
                        reg(k, i, 0),
                        reg(k, i, 1)
                    )
                })
                .collect();
            writeln!(out, "  stmatrix_x{count}{suf}({addr}, {});", ops.join(", ")).unwrap();
        } else {
            let names: Vec<String> = (0..count).map(|i| format!("w{i}_")).collect();
            writeln!(
                out,
                "  {{ uint32_t {}; ldmatrix_x{count}{suf}({addr}, {});",
                names.join(", "),
                names.join(", ")
            )
            .unwrap();
            for i in 0..count {
                writeln!(
                    out,
                    "    {arr}[{}] = (uint16_t)(w{i}_ & 0xffffu); {arr}[{}] = (uint16_t)(w{i}_ >> 16);",
                    reg(k, i, 0),
                    reg(k, i, 1)
                )
                .unwrap();
            }
            out.push_str("  }\n");
        }
    }
    Ok(())
}

//! `stmatrix` / `ldmatrix` (`.m8n8.x{1,2,4}[.trans].shared.b16`) wrappers
//! for the matrix accesses of a plan ([`layout_codegen::plan::Access`] with
//! `matrix`, emitted by [`crate::translate`]). Which side uses them, through
//! which shared layout, is the planner's choice
//! ([`layout_codegen::plan_options::PlanOptions::matrix`]); their wavefronts
//! are counted by [`layout_codegen::wavefront::matrix_wavefronts`] (one
//! phase per 8 × 16-byte matrix).
//!
//! PTX semantics (x`n`, 16-bit elements, two per 32-bit operand, element 0
//! in the low half): lane `8i + j` supplies the shared address of row `j` of
//! matrix `i` (a 16-byte row of 8 elements). Without `.trans`, operand `i`
//! of lane `t` holds row `t / 4`, columns `2 (t mod 4) + e` (`e` = half) of
//! matrix `i`; with `.trans` it holds row `2 (t mod 4) + e`, column `t / 4`.
//! `ldmatrix` moves the same elements in the other direction.
//!
//! Checked on an H200 (sm_90a) for `blocked_T_64x64_f16_mx` (stmatrix and
//! ldmatrix `.trans`) and `mma2_to_dotB_64x64_f16_mx` (both, with and
//! without `.trans`): the programs' own element checks pass and `ncu`'s
//! shared load/store wavefronts equal the prediction (128/128, 192/192).

use std::fmt::Write;

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

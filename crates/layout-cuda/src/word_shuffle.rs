//! Warp-shuffle conversions of 8- and 16-bit elements emitted on packed
//! words (`layout_codegen::shuffle_words`): the conversion function takes
//! and returns the words the kernel keeps (register `e·j + k` in bits
//! `k·bits` of word `j`, `e = 32 / bits`), every shuffle moves a whole word and every repacking is one
//! `__byte_perm` (`prmt`) whose selector depends on the lane, computed once
//! per thread.

use crate::EmitError;
use layout_codegen::shared_words::WordPacking;
use layout_codegen::shuffle::ShflMode;
use layout_codegen::shuffle_words::{WordInstr, WordProgram};
use std::collections::HashMap;
use std::fmt::Write;

/// A C expression for a value that depends on the lane through a few bits:
/// `values[lane]` for every lane, as a tree of `?:` on the bits it depends
/// on (a constant when it depends on none).
fn lane_table(values: &[u32]) -> String {
    let n = values.len();
    let bits: Vec<u32> = (0..n.trailing_zeros())
        .filter(|&k| (0..n).any(|l| values[l] != values[l ^ (1 << k)]))
        .collect();
    fn tree(values: &[u32], bits: &[u32], lane: usize) -> String {
        match bits.split_last() {
            None => format!("0x{:04x}u", values[lane]),
            Some((&k, rest)) => format!(
                "((lane >> {k}) & 1u ? {} : {})",
                tree(values, rest, lane | 1 << k),
                tree(values, rest, lane)
            ),
        }
    }
    tree(values, &bits, 0)
}

/// Emits `prog` as the body of a function with `const uint32_t (&a)[..]`
/// (source words), `uint32_t (&b)[..]` (destination words) and `lane`:
/// one SSA `uint32_t` per value, selectors first.
pub fn emit_word_program(out: &mut String, prog: &WordProgram) {
    let mut selectors: HashMap<&[u32], usize> = HashMap::new();
    for ins in &prog.instrs {
        if let WordInstr::Permute { selector, .. } = ins {
            let k = selectors.len();
            if let std::collections::hash_map::Entry::Vacant(v) =
                selectors.entry(selector.as_slice())
            {
                v.insert(k);
                writeln!(out, "  const uint32_t p{k} = {};", lane_table(selector)).unwrap();
            }
        }
    }
    for j in 0..prog.num_inputs {
        writeln!(out, "  const uint32_t w{j} = a[{j}];").unwrap();
    }
    for ins in &prog.instrs {
        match ins {
            WordInstr::Permute {
                dst,
                x,
                y,
                selector,
            } => writeln!(
                out,
                "  const uint32_t w{dst} = __byte_perm(w{x}, w{y}, p{});",
                selectors[selector.as_slice()]
            )
            .unwrap(),
            WordInstr::Shuffle { dst, src, mode } => match mode {
                ShflMode::Xor { mask } => writeln!(
                    out,
                    "  const uint32_t w{dst} = __shfl_xor_sync(0xffffffffu, w{src}, {mask});"
                )
                .unwrap(),
                ShflMode::Idx { src_lane } => {
                    let bases: Vec<u64> = src_lane.bases.iter().map(|&b| u64::from(b)).collect();
                    let e =
                        crate::gather::xor_expr(u64::from(src_lane.constant), &[("lane", &bases)]);
                    writeln!(
                        out,
                        "  const uint32_t w{dst} = __shfl_sync(0xffffffffu, w{src}, {e});"
                    )
                    .unwrap()
                }
            },
        }
    }
    for (j, o) in prog.outputs.iter().enumerate() {
        writeln!(out, "  b[{j}] = w{o};").unwrap();
    }
}

/// Emits `prog` as the word function `fname(const uint32_t (&a)[..],
/// uint32_t (&b)[..], T* smem, unsigned lane, unsigned warp)` on the words
/// the kernel keeps (`t` is the element type `T`; `smem` and `warp` are
/// not read).
pub(crate) fn emit_word_function(out: &mut String, fname: &str, t: &str, prog: &WordProgram) {
    writeln!(
        out,
        "__device__ __forceinline__ void {fname}(const uint32_t (&a)[{}], uint32_t (&b)[{}], {t}* smem, unsigned lane, unsigned warp) {{",
        prog.num_inputs,
        prog.outputs.len()
    )
    .unwrap();
    emit_word_program(out, prog);
    writeln!(out, "  (void)smem; (void)warp;\n}}").unwrap();
}

/// Emits `prog` as the element function `fname(const T (&a)[nf], T
/// (&b)[nt], T* smem, unsigned lane, unsigned warp)` of the calling
/// convention in [`crate::device_fn`]: the word function `fname_words`,
/// with `a` packed into consecutive words before it (register `e·j + k` in
/// bits `k·bits` of word `j`) and its words unpacked into `b` after it
/// (shifts and truncations the compiler folds into a caller that keeps the
/// words packed).
pub(crate) fn emit_word_element_function(
    out: &mut String,
    fname: &str,
    bits: u32,
    prog: &WordProgram,
) -> Result<(), EmitError> {
    let t = crate::ctype(bits);
    let e = u64::from(32 / bits);
    let (nf, nt) = (prog.num_inputs as u64 * e, prog.outputs.len() as u64 * e);
    let (src, dst) = (
        WordPacking::consecutive(bits, nf)?,
        WordPacking::consecutive(bits, nt)?,
    );
    let inner = format!("{fname}_words");
    emit_word_function(out, &inner, t, prog);
    writeln!(
        out,
        "__device__ __forceinline__ void {fname}(const {t} (&a)[{nf}], {t} (&b)[{nt}], {t}* smem, unsigned lane, unsigned warp) {{\n    uint32_t aw[{}], bw[{}];",
        src.num_words(),
        dst.num_words()
    )
    .unwrap();
    crate::emit_pack(out, &src, "a", "aw", bits);
    writeln!(out, "    {inner}(aw, bw, smem, lane, warp);").unwrap();
    crate::emit_unpack(out, &dst, "bw", "b", bits);
    writeln!(out, "}}\n").unwrap();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::lane_table;

    #[test]
    fn lane_tables_branch_on_the_bits_that_matter() {
        assert_eq!(lane_table(&[0x5410; 32]), "0x5410u");
        let v: Vec<u32> = (0..32)
            .map(|l| if l & 1 == 1 { 0x3276 } else { 0x5410 })
            .collect();
        assert_eq!(lane_table(&v), "((lane >> 0) & 1u ? 0x3276u : 0x5410u)");
        let v: Vec<u32> = (0..32u32).map(|l| (l >> 2) & 3).collect();
        assert_eq!(
            lane_table(&v),
            "((lane >> 3) & 1u ? ((lane >> 2) & 1u ? 0x0003u : 0x0002u) : ((lane >> 2) & 1u ? 0x0001u : 0x0000u))"
        );
    }
}

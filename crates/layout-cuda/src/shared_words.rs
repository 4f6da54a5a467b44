//! CUDA for shared-memory conversions of 8- and 16-bit elements on packed
//! words: the translation of a [`SharedWordPlan`], which the round-trip
//! planner ([`layout_codegen::round_trip::plan_round_trip_words`]) states
//! when every shared 4-byte word is one register word on both sides (the
//! packings and word maps are decided in [`layout_codegen::shared_words`]).

pub use layout_codegen::shared_words::{
    packing_of, word_layouts, word_map, OffsetMap, SharedWordPlan, WordPacking,
};

use crate::{AccessMap, EmitError};
use std::fmt::Write;

/// Emits `fname(a, b, smem, lane, warp)` converting words `a` (packed as
/// `from`'s side) to words `b`: vectorised 32-bit stores by `from_map`
/// (skipping the duplicates `from_free`), the barrier statement `sync`,
/// loads by `to_map`.
pub fn emit_convert(
    out: &mut String,
    fname: &str,
    t: &str,
    (from_map, from_free): (&OffsetMap, (u64, u64, u64)),
    to_map: &OffsetMap,
    sync: &str,
) -> Result<(), EmitError> {
    let (from_map, to_map) = (AccessMap::from(from_map), AccessMap::from(to_map));
    let nf = 1u64 << from_map.reg.len();
    let nt = 1u64 << to_map.reg.len();
    writeln!(
        out,
        "__device__ __forceinline__ void {fname}(const uint32_t (&a)[{nf}], uint32_t (&b)[{nt}], {t}* smem, unsigned lane, unsigned warp) {{"
    )
    .unwrap();
    writeln!(
        out,
        "  uint32_t* smem_w = reinterpret_cast<uint32_t*>(smem);"
    )
    .unwrap();
    from_map.emit_store(out, "smem_w", "a", 32, from_free)?;
    writeln!(out, "  {sync};").unwrap();
    to_map.emit_load(out, "smem_w", "b", 32)?;
    // The barrier before the next store into this buffer is the loop's
    // (see `crate::scratch`).
    writeln!(out, "}}").unwrap();
    Ok(())
}

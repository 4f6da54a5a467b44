//! Code generation (placeholder).

// Code-generation algorithms beyond conversions/swizzling: warp shuffles,
// gather, duplicate elimination, ld/st tiling, vectorisation.
pub mod dedup;
pub mod gather;
pub mod shuffle;
pub mod tiling;
pub mod vectorize;

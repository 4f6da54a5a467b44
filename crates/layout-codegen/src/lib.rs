//! Code generation (placeholder).

pub mod dedup;
pub mod gather;
pub mod shuffle;
pub mod tiling;
pub mod vectorize;

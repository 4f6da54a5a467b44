//! Placeholder replaced by the engine benchmark.
fn main() {}

//! Code generation (placeholder).

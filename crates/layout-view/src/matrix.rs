//! The layout as a 0/1 matrix.

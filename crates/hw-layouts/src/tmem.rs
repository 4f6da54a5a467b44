//! Blackwell tensor memory layouts and the tcgen05 register-message layouts.

use crate::error::{HwError, Result};
use crate::syntax::Attribute;
use linear_layout::LinearLayout;

/// Placeholder until the family lands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorMemory {
    _todo: (),
}

impl TensorMemory {
    /// Reads the attribute.
    pub fn from_attr(a: &Attribute) -> Result<Self> {
        Err(HwError::UnknownAttribute(a.full_name()))
    }
    /// The linear layout for a tensor of `shape`.
    pub fn to_linear_layout(&self, _shape: &[u64]) -> Result<LinearLayout> {
        unimplemented!()
    }
    /// Triton's printed form.
    pub fn to_mlir(&self) -> String {
        unimplemented!()
    }
}

/// Placeholder until the family lands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorMemoryScales {
    _todo: (),
}

impl TensorMemoryScales {
    /// Reads the attribute.
    pub fn from_attr(a: &Attribute) -> Result<Self> {
        Err(HwError::UnknownAttribute(a.full_name()))
    }
    /// The linear layout for a tensor of `shape`.
    pub fn to_linear_layout(&self, _shape: &[u64]) -> Result<LinearLayout> {
        unimplemented!()
    }
    /// Triton's printed form.
    pub fn to_mlir(&self) -> String {
        unimplemented!()
    }
}

//! AMD layouts: `#ttg.amd_mfma`, `#ttg.amd_wmma` and their dot operands.

use crate::error::{HwError, Result};
use crate::syntax::Attribute;
use linear_layout::LinearLayout;

/// Placeholder until the family lands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mfma {
    _todo: (),
}

/// Placeholder until the family lands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wmma {
    _todo: (),
}

impl Mfma {
    /// Reads the attribute.
    pub fn from_attr(a: &Attribute) -> Result<Self> {
        Err(HwError::UnknownAttribute(a.full_name()))
    }
    /// The linear layout for a tensor of `shape`.
    pub fn to_linear_layout(&self, _shape: &[u64]) -> Result<LinearLayout> {
        unimplemented!()
    }
    /// The dot-operand layout (`op_idx` 0 = A, 1 = B) with this parent.
    pub fn dot_operand_layout(
        &self,
        _op_idx: u32,
        _k_width: u32,
        _shape: &[u64],
    ) -> Result<LinearLayout> {
        unimplemented!()
    }
    /// Triton's printed form.
    pub fn to_mlir(&self) -> String {
        unimplemented!()
    }
}

impl Wmma {
    /// Reads the attribute.
    pub fn from_attr(a: &Attribute) -> Result<Self> {
        Err(HwError::UnknownAttribute(a.full_name()))
    }
    /// The linear layout for a tensor of `shape`.
    pub fn to_linear_layout(&self, _shape: &[u64]) -> Result<LinearLayout> {
        unimplemented!()
    }
    /// The dot-operand layout (`op_idx` 0 = A, 1 = B) with this parent.
    pub fn dot_operand_layout(
        &self,
        _op_idx: u32,
        _k_width: u32,
        _shape: &[u64],
    ) -> Result<LinearLayout> {
        unimplemented!()
    }
    /// Triton's printed form.
    pub fn to_mlir(&self) -> String {
        unimplemented!()
    }
}

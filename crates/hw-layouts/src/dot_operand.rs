//! #ttg.dot_op as a linear layout.

use crate::error::{HwError, Result};
use crate::syntax::Attribute;
use linear_layout::LinearLayout;

/// Placeholder until the family lands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DotOperand {
    _todo: (),
}

impl DotOperand {
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

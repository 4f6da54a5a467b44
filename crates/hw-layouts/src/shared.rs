//! Shared-memory layouts: swizzled, NVMMA, shared_linear, padded, partitioned.

use crate::error::{HwError, Result};
use crate::syntax::Attribute;
use linear_layout::LinearLayout;

/// Placeholder until the family lands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwizzledShared {
    _todo: (),
}

impl SwizzledShared {
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
pub struct NvmmaShared {
    _todo: (),
}

impl NvmmaShared {
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
pub struct SharedLinear {
    _todo: (),
}

impl SharedLinear {
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
pub struct PaddedShared {
    _todo: (),
}

impl PaddedShared {
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
pub struct PartitionedShared {
    _todo: (),
}

impl PartitionedShared {
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

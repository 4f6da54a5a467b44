//! [`Encoding`]: any Triton layout attribute, parsed, turned into a linear
//! layout for a shape, and printed back.

use crate::error::{HwError, Result};
use crate::shape::check_shape;
use crate::syntax::Attribute;
use crate::{amd, blocked, dot_operand, linear, nvidia_mma, shared, slice, tmem};
use linear_layout::LinearLayout;

/// Which memory a layout describes (which input dims its linear layout has).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Registers: `register, lane, warp, block`.
    Distributed,
    /// Shared memory: `offset, block`.
    Shared,
    /// Tensor memory: `row, col`.
    TensorMemory,
}

/// A Triton layout attribute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// `#ttg.blocked`
    Blocked(blocked::Blocked),
    /// `#ttg.slice`
    Slice(slice::Slice),
    /// `#ttg.linear` / `#ttg.generic_linear`
    Linear(linear::Linear),
    /// `#ttg.nvidia_mma`
    NvidiaMma(nvidia_mma::NvidiaMma),
    /// `#ttg.dot_op`
    DotOperand(dot_operand::DotOperand),
    /// `#ttg.amd_mfma`
    AmdMfma(amd::Mfma),
    /// `#ttg.amd_wmma`
    AmdWmma(amd::Wmma),
    /// `#ttg.swizzled_shared`
    SwizzledShared(shared::SwizzledShared),
    /// `#ttg.nvmma_shared`
    NvmmaShared(shared::NvmmaShared),
    /// `#ttg.shared_linear`
    SharedLinear(shared::SharedLinear),
    /// `#ttg.padded_shared`
    PaddedShared(shared::PaddedShared),
    /// `#ttg.partitioned_shared`
    PartitionedShared(shared::PartitionedShared),
    /// `#ttng.tensor_memory_encoding`
    TensorMemory(tmem::TensorMemory),
    /// `#ttng.tensor_memory_scales_encoding`
    TensorMemoryScales(tmem::TensorMemoryScales),
}

impl Encoding {
    /// Parses Triton attribute text (`#ttg.blocked<{...}>`, ...).
    pub fn parse(text: &str) -> Result<Encoding> {
        Self::from_attr(&Attribute::parse(text)?)
    }

    /// Interprets a parsed attribute.
    pub fn from_attr(a: &Attribute) -> Result<Encoding> {
        Ok(match (a.dialect.as_str(), a.name.as_str()) {
            ("ttg", "blocked") => Encoding::Blocked(blocked::Blocked::from_attr(a)?),
            ("ttg", "slice") => Encoding::Slice(slice::Slice::from_attr(a)?),
            ("ttg", "linear") | ("ttg", "generic_linear") => {
                Encoding::Linear(linear::Linear::from_attr(a)?)
            }
            ("ttg", "nvidia_mma") => Encoding::NvidiaMma(nvidia_mma::NvidiaMma::from_attr(a)?),
            ("ttg", "dot_op") => Encoding::DotOperand(dot_operand::DotOperand::from_attr(a)?),
            ("ttg", "amd_mfma") => Encoding::AmdMfma(amd::Mfma::from_attr(a)?),
            ("ttg", "amd_wmma") => Encoding::AmdWmma(amd::Wmma::from_attr(a)?),
            ("ttg", "swizzled_shared") | ("ttg", "shared") => {
                Encoding::SwizzledShared(shared::SwizzledShared::from_attr(a)?)
            }
            ("ttg", "nvmma_shared") => Encoding::NvmmaShared(shared::NvmmaShared::from_attr(a)?),
            ("ttg", "shared_linear") => Encoding::SharedLinear(shared::SharedLinear::from_attr(a)?),
            ("ttg", "padded_shared") => Encoding::PaddedShared(shared::PaddedShared::from_attr(a)?),
            ("ttg", "partitioned_shared") => {
                Encoding::PartitionedShared(shared::PartitionedShared::from_attr(a)?)
            }
            ("ttng", "tensor_memory_encoding") => {
                Encoding::TensorMemory(tmem::TensorMemory::from_attr(a)?)
            }
            ("ttng", "tensor_memory_scales_encoding") => {
                Encoding::TensorMemoryScales(tmem::TensorMemoryScales::from_attr(a)?)
            }
            _ => return Err(HwError::UnknownAttribute(a.full_name())),
        })
    }

    /// The linear layout of a tensor of `shape` (dim0 first) in this layout.
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        check_shape(shape)?;
        match self {
            Encoding::Blocked(x) => x.to_linear_layout(shape),
            Encoding::Slice(x) => x.to_linear_layout(shape),
            Encoding::Linear(x) => x.to_linear_layout(shape),
            Encoding::NvidiaMma(x) => x.to_linear_layout(shape),
            Encoding::DotOperand(x) => x.to_linear_layout(shape),
            Encoding::AmdMfma(x) => x.to_linear_layout(shape),
            Encoding::AmdWmma(x) => x.to_linear_layout(shape),
            Encoding::SwizzledShared(x) => x.to_linear_layout(shape),
            Encoding::NvmmaShared(x) => x.to_linear_layout(shape),
            Encoding::SharedLinear(x) => x.to_linear_layout(shape),
            Encoding::PaddedShared(x) => x.to_linear_layout(shape),
            Encoding::PartitionedShared(x) => x.to_linear_layout(shape),
            Encoding::TensorMemory(x) => x.to_linear_layout(shape),
            Encoding::TensorMemoryScales(x) => x.to_linear_layout(shape),
        }
    }

    /// What Triton 3.9's Python binding (`to_linear_layout`) reports, i.e.
    /// the oracle's `linear`: the same as [`Self::to_linear_layout`] except
    /// where Triton's answer is incomplete or in other units — partitioned
    /// shared drops its `partition` dim, tensor memory its `block` dim, and
    /// padded shared gives block bases in CTA-tile units.
    pub fn to_triton_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        check_shape(shape)?;
        match self {
            Encoding::PartitionedShared(x) => x.to_triton_linear_layout(shape),
            Encoding::TensorMemory(x) => x.to_triton_linear_layout(shape),
            Encoding::TensorMemoryScales(x) => x.to_triton_linear_layout(shape),
            Encoding::PaddedShared(x) => x.to_triton_linear_layout(shape),
            _ => self.to_linear_layout(shape),
        }
    }

    /// Triton's printed attribute text.
    pub fn to_mlir(&self) -> String {
        match self {
            Encoding::Blocked(x) => x.to_mlir(),
            Encoding::Slice(x) => x.to_mlir(),
            Encoding::Linear(x) => x.to_mlir(),
            Encoding::NvidiaMma(x) => x.to_mlir(),
            Encoding::DotOperand(x) => x.to_mlir(),
            Encoding::AmdMfma(x) => x.to_mlir(),
            Encoding::AmdWmma(x) => x.to_mlir(),
            Encoding::SwizzledShared(x) => x.to_mlir(),
            Encoding::NvmmaShared(x) => x.to_mlir(),
            Encoding::SharedLinear(x) => x.to_mlir(),
            Encoding::PaddedShared(x) => x.to_mlir(),
            Encoding::PartitionedShared(x) => x.to_mlir(),
            Encoding::TensorMemory(x) => x.to_mlir(),
            Encoding::TensorMemoryScales(x) => x.to_mlir(),
        }
    }

    /// Which memory the layout describes.
    pub fn space(&self) -> Space {
        match self {
            Encoding::SwizzledShared(_)
            | Encoding::NvmmaShared(_)
            | Encoding::SharedLinear(_)
            | Encoding::PaddedShared(_)
            | Encoding::PartitionedShared(_) => Space::Shared,
            Encoding::TensorMemory(_) | Encoding::TensorMemoryScales(_) => Space::TensorMemory,
            _ => Space::Distributed,
        }
    }
}

//! Shared-memory layouts: swizzled, NVMMA, shared_linear, padded, partitioned.
//!
//! Every shared layout is a linear map **from memory to the tensor**: input
//! dims `offset` (element index inside one CTA's allocation, bit 0 = the
//! lowest offset bit) and `block` (CTA id in the cluster) → output dims
//! `dim0..dim{rank-1}` (tensor coordinates, dim0 first). Where an element
//! lives is the inverse map. Swizzled, NVMMA and shared_linear layouts are a
//! bijection per CTA; padded layouts add a non-linear padding step on top of
//! their linear component ([`PaddedShared::padded_offset`]); partitioned
//! layouts add a `partition` input dim.

pub(crate) mod common;
mod nvmma;
mod padded;
mod swizzled;

pub use nvmma::NvmmaShared;
pub use padded::{PaddedShared, PartitionedShared};
pub use swizzled::{SharedLinear, SwizzledShared};

//! The error type of the algebra: one variant per precondition Triton asserts.

use crate::DimName;

/// Everything a [`crate::LinearLayout`] operation can reject. Each message
/// names the violated precondition and the offending values.
/// (Variant fields are the values named in each variant's message.)
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// A size that must be a power of two is not.
    #[error("{what} must be a power of two, got {value}")]
    NotPowerOfTwo { what: String, value: i64 },
    /// A basis component is negative.
    #[error("basis {index} of in dim '{in_dim}' has a negative component {value}")]
    NegativeComponent {
        in_dim: DimName,
        index: usize,
        value: i64,
    },
    /// A basis has the wrong number of components.
    #[error("basis {index} of in dim '{in_dim}' has {found} components, expected {expected} (one per out dim)")]
    BasisLength {
        in_dim: DimName,
        index: usize,
        expected: usize,
        found: usize,
    },
    /// A basis component does not fit its out dim.
    #[error("basis {index} of in dim '{in_dim}' has component {value} for out dim '{out_dim}' of size {size}")]
    ComponentOutOfRange {
        in_dim: DimName,
        index: usize,
        out_dim: DimName,
        value: u64,
        size: u64,
    },
    /// The layout does not reach every output value.
    #[error("layout is not surjective: rank {rank} < {out_bits} output bits")]
    NotSurjective { rank: u32, out_bits: u32 },
    /// More bits than fit in one machine word.
    #[error("too many {which} bits: {bits} > 64")]
    TooManyBits { which: &'static str, bits: u32 },
    /// More input or output dims than [`crate::layout::MAX_DIMS`].
    #[error("too many {which} dims: {dims} (at most {limit})")]
    TooManyDims {
        which: &'static str,
        dims: usize,
        limit: usize,
    },
    /// A dim name appears twice.
    #[error("duplicate {which} dim '{name}'")]
    DuplicateDim { which: &'static str, name: DimName },
    /// A named dim is missing.
    #[error("{which} dim '{name}' not found")]
    MissingDim { which: &'static str, name: DimName },
    /// Two sets of dims that must agree do not.
    #[error("{what}: expected {expected:?}, found {found:?}")]
    DimMismatch {
        what: &'static str,
        expected: Vec<DimName>,
        found: Vec<DimName>,
    },
    /// Sizes that must agree do not.
    #[error("{what}: dim '{dim}' has size {found}, expected {expected}")]
    SizeMismatch {
        what: &'static str,
        dim: DimName,
        expected: u64,
        found: u64,
    },
    /// Two dim orders that cannot be merged.
    #[error(
        "supremum does not exist: {first:?} and {second:?} order their common dims differently"
    )]
    NoSupremum {
        first: Vec<DimName>,
        second: Vec<DimName>,
    },
    /// `invert` of a layout that is not a bijection.
    #[error("layout is not invertible: {reason}")]
    NotInvertible { reason: String },
    /// `invert_and_compose` where the outer layout does not cover the image.
    #[error("outer layout does not cover this layout's image")]
    NotCovered,
    /// A permutation argument is not one.
    #[error("{what}: {value:?} is not a permutation of 0..{len}")]
    NotAPermutation {
        what: &'static str,
        value: Vec<usize>,
        len: usize,
    },
    /// Catch-all for a precondition with a specific message.
    #[error("{0}")]
    Invalid(String),
    /// Malformed JSON.
    #[error("invalid layout JSON: {0}")]
    Json(String),
}

/// Result alias of the crate.
pub type Result<T, E = LayoutError> = std::result::Result<T, E>;

/// `log2(value)` for a power of two, else [`LayoutError::NotPowerOfTwo`]
/// (values above `i64::MAX` are reported as `i64::MAX`).
pub(crate) fn check_pow2(what: impl Into<String>, value: u64) -> Result<u32> {
    check_pow2_with(value, || what.into())
}

/// [`check_pow2`] with the description built only on error (hot paths build
/// many layouts and must not format a message per dim).
#[inline]
pub(crate) fn check_pow2_with(value: u64, what: impl FnOnce() -> String) -> Result<u32> {
    if value.is_power_of_two() {
        Ok(value.trailing_zeros())
    } else {
        Err(LayoutError::NotPowerOfTwo {
            what: what(),
            value: i64::try_from(value).unwrap_or(i64::MAX),
        })
    }
}

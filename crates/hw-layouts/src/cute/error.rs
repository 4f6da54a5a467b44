//! The error type of the CuTe bridge: every variant carries the mode, value
//! or text that caused it.

use linear_layout::LayoutError;

/// Why CuTe text was rejected or a layout could not cross the bridge.
///
/// A *mode path* names a flattened mode by its indices from the top:
/// `1` is top-level mode 1, `1.0` its first sub-mode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CuteError {
    /// Malformed CuTe text; `pos` is a byte offset into the input.
    #[error("CuTe parse error at byte {pos}: expected {expected}, found {found}")]
    Parse {
        /// Byte offset of the problem.
        pos: usize,
        /// What the grammar wanted.
        expected: String,
        /// What was there.
        found: String,
    },
    /// Input past a stated bound (nesting depth, number of modes, a value).
    #[error("CuTe {what} is {value}, the limit is {limit}")]
    TooLarge {
        /// What was counted.
        what: &'static str,
        /// The value found.
        value: u64,
        /// The bound.
        limit: u64,
    },
    /// Shape and stride do not have the same tuple profile.
    #[error("shape {shape} and stride {stride} are not congruent (same nesting)")]
    NotCongruent {
        /// The shape, printed.
        shape: String,
        /// The stride, printed.
        stride: String,
    },
    /// A mode whose extent is not a power of two (a GF(2) map has `2^k`
    /// inputs); [`crate::cute::pad_to_power_of_two`] gives the padded layout.
    #[error("mode {mode} has shape {shape}, not a power of two: not linear over GF(2); pad it to {padded} (cute::pad_to_power_of_two) and mask coordinates >= {shape}")]
    ShapeNotPowerOfTwo {
        /// Mode path.
        mode: String,
        /// The extent.
        shape: i64,
        /// The next power of two.
        padded: u64,
    },
    /// A negative stride (offsets decrease: not linear over GF(2)).
    #[error("mode {mode} has negative stride {stride}: not linear over GF(2)")]
    NegativeStride {
        /// Mode path.
        mode: String,
        /// The stride.
        stride: i64,
    },
    /// Two coordinate bits whose offsets share a bit: adding them carries, so
    /// `L(x + y) = L(x) + L(y) != L(x) ^ L(y)`.
    #[error("not linear over GF(2): mode {mode} (shape {shape}, stride {stride}) gives offset {offset}, which shares bits with offset {other_offset} of mode {other_mode}, so adding them carries ({offset} + {other_offset} != {offset} ^ {other_offset})")]
    Carry {
        /// Mode path of the later coordinate bit.
        mode: String,
        /// Its shape.
        shape: i64,
        /// Its stride.
        stride: i64,
        /// The offset of its coordinate bit.
        offset: u64,
        /// Mode path of the earlier bit it collides with.
        other_mode: String,
        /// The offset of that bit.
        other_offset: u64,
    },
    /// A composed layout with a non-zero offset is affine, not linear.
    #[error("offset {0} between the swizzle and the layout makes the map affine, not linear")]
    NonZeroOffset(i64),
    /// A swizzle CuTe itself rejects (`|shift| < bits`).
    #[error("invalid Swizzle<{bits},{base},{shift}>: CuTe needs |shift| >= bits")]
    BadSwizzle {
        /// `B`
        bits: i64,
        /// `M`
        base: i64,
        /// `S`
        shift: i64,
    },
    /// A layout that cannot take the asked-for form (a shared layout that is
    /// not a bijection, a TV layout without two modes, ...).
    #[error("{0}")]
    Unsupported(String),
    /// A linear layout with no `Shape:Stride` form (with at most one swizzle).
    #[error("not expressible as CuTe Shape:Stride: {0}")]
    NotExpressible(String),
    /// A precondition of the linear-layout algebra.
    #[error(transparent)]
    Layout(#[from] LayoutError),
}

impl From<CuteError> for crate::HwError {
    fn from(e: CuteError) -> Self {
        match e {
            CuteError::Parse {
                pos,
                expected,
                found,
            } => crate::HwError::Parse {
                pos,
                expected,
                found,
            },
            CuteError::Layout(l) => crate::HwError::Layout(l),
            other => crate::error::invalid("CuTe", other.to_string()),
        }
    }
}

/// Result alias of the CuTe bridge.
pub type Result<T, E = CuteError> = std::result::Result<T, E>;

//! The error type of hardware layouts and their text syntax.

use linear_layout::LayoutError;

/// A rejected layout: bad text, bad parameters, or an algebra precondition.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HwError {
    /// Malformed attribute text: `pos` is a byte offset into the input.
    #[error("parse error at byte {pos}: expected {expected}, found {found}")]
    Parse {
        /// Byte offset of the first unexpected character.
        pos: usize,
        /// What the grammar allows there.
        expected: String,
        /// What the text holds there.
        found: String,
    },
    /// A parameter Triton rejects (names the layout, the field and the value).
    #[error("invalid {layout} layout: {message}")]
    InvalidParam {
        /// The attribute's name (`blocked`, `amd_mfma`, ...).
        layout: &'static str,
        /// Which field is wrong, with its value and the rule it breaks.
        message: String,
    },
    /// Attributes, lists and dicts nested deeper than
    /// [`crate::syntax::MAX_DEPTH`] (`pos`: where the level past the limit
    /// opens).
    #[error("parse error at byte {pos}: nesting deeper than the limit of {limit} levels (attributes, lists and dicts)")]
    TooDeep {
        /// Byte offset where the level past the limit opens.
        pos: usize,
        /// The nesting limit.
        limit: usize,
    },
    /// More than [`crate::syntax::MAX_KEYS`] keys in one attribute or dict
    /// (`pos`: where the key past the limit starts).
    #[error("parse error at byte {pos}: more than {limit} keys in one attribute or dict")]
    TooManyKeys {
        /// Byte offset of the key past the limit.
        pos: usize,
        /// The limit.
        limit: usize,
    },
    /// A key given twice in one attribute or dict (MLIR refuses it).
    #[error("parse error at byte {pos}: duplicate key '{key}' (each key may appear once)")]
    DuplicateKey {
        /// Byte offset of the second occurrence.
        pos: usize,
        /// The repeated key.
        key: String,
    },
    /// The shape does not suit the layout (rank, power of two, too small).
    #[error("invalid shape {shape:?}: {message}")]
    InvalidShape {
        /// The shape as given, dim0 first.
        shape: Vec<u64>,
        /// The rule it breaks.
        message: String,
    },
    /// An attribute name we do not know.
    #[error("unknown layout attribute '{0}'")]
    UnknownAttribute(String),
    /// A precondition of the layout algebra failed.
    #[error(transparent)]
    Layout(#[from] LayoutError),
}

/// Result alias of the crate.
pub type Result<T, E = HwError> = std::result::Result<T, E>;

/// Shorthand for [`HwError::InvalidParam`].
pub fn invalid(layout: &'static str, message: impl Into<String>) -> HwError {
    HwError::InvalidParam {
        layout,
        message: message.into(),
    }
}

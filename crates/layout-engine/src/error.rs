//! The error type of the layout engine.

/// A rejected program or assignment. Every variant names the offending
/// value, op or line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// Malformed IR text at a 1-based line.
    #[error("line {line}: {message}")]
    Parse {
        /// The line (1-based).
        line: usize,
        /// What is wrong there.
        message: String,
    },
    /// An op the reader does not know.
    #[error("line {line}: unknown op '{op}'")]
    UnknownOp {
        /// The line (1-based).
        line: usize,
        /// The op's name.
        op: String,
    },
    /// A use of an SSA value that was never defined.
    #[error("line {line}: use of undefined value '{name}'")]
    Undefined {
        /// The line (1-based) of the use.
        line: usize,
        /// The value's name.
        name: String,
    },
    /// Nesting deeper than [`crate::parse::MAX_DEPTH`].
    #[error("line {line}: nesting deeper than {max} levels")]
    TooDeep {
        /// The line (1-based) that opens one level too many.
        line: usize,
        /// The limit.
        max: usize,
    },
    /// A layout the hardware-layout crate rejects.
    #[error("line {line}: layout {text}: {message}")]
    Layout {
        /// The line (1-based).
        line: usize,
        /// The layout attribute's text.
        text: String,
        /// Why it is rejected.
        message: String,
    },
    /// Something the engine does not support (names what).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A conversion the cost model could not plan.
    #[error("conversion of {value} ({shape:?}): {message}")]
    Plan {
        /// The converted value's name.
        value: String,
        /// Its tensor shape.
        shape: Vec<u64>,
        /// Why it could not be planned.
        message: String,
    },
}

/// Result alias of the crate.
pub type Result<T, E = EngineError> = std::result::Result<T, E>;

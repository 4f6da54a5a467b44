//! The error type of the layout engine.

/// A rejected program or assignment. Every variant names the offending
/// value, op or line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// Malformed IR text at a 1-based line.
    #[error("line {line}: {message}")]
    Parse { line: usize, message: String },
    /// An op the reader does not know.
    #[error("line {line}: unknown op '{op}'")]
    UnknownOp { line: usize, op: String },
    /// A use of an SSA value that was never defined.
    #[error("line {line}: use of undefined value '{name}'")]
    Undefined { line: usize, name: String },
    /// Nesting deeper than [`crate::parse::MAX_DEPTH`].
    #[error("line {line}: nesting deeper than {max} levels")]
    TooDeep { line: usize, max: usize },
    /// A layout the hardware-layout crate rejects.
    #[error("line {line}: layout {text}: {message}")]
    Layout {
        line: usize,
        text: String,
        message: String,
    },
    /// Something the engine does not support (names what).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A conversion the cost model could not plan.
    #[error("conversion of {value} ({shape:?}): {message}")]
    Plan {
        value: String,
        shape: Vec<u64>,
        message: String,
    },
}

/// Result alias of the crate.
pub type Result<T, E = EngineError> = std::result::Result<T, E>;

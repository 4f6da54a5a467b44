//! The CLI's one error type. Every subcommand returns [`CliError`]; `main`
//! prints the first line of its `Display` after `linlayout: ` on stderr and
//! exits 1 for output that cannot be written ([`CliError::Output`],
//! [`CliError::Write`]) and 2 for the rest (`crate::output` states the
//! rule). A library crate's error is carried as it is (its `Display` is
//! the line the user sees); the CLI's own refusals name the flag or the
//! value they refuse.

use thiserror::Error;

/// Why a `linlayout` command failed.
#[derive(Debug, Error)]
pub enum CliError {
    /// A value on the command line or in an input file that the command
    /// refuses; the message names the flag and the value.
    #[error("{0}")]
    Input(String),
    /// An input file that cannot be read.
    #[error("cannot read '{path}': {source}")]
    Read {
        /// The file as given.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// An output file that cannot be written.
    #[error("cannot write '{path}': {source}")]
    Write {
        /// The file as given.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The output (stdout) cannot be written, e.g. to a full disk.
    #[error("cannot write the output: {0}")]
    Output(std::io::Error),
    /// The algebra refused (e.g. a non-invertible composition).
    #[error(transparent)]
    Layout(#[from] linear_layout::LayoutError),
    /// A Triton layout attribute that does not parse or does not fit the
    /// shape.
    #[error(transparent)]
    Hardware(#[from] hw_layouts::HwError),
    /// CuTe text that does not parse or has no linear form.
    #[error(transparent)]
    Cute(#[from] hw_layouts::cute::CuteError),
    /// A conversion, swizzle or bank-conflict computation refused, or its
    /// simulation failed.
    #[error(transparent)]
    Codegen(#[from] layout_codegen::CodegenError),
    /// A picture or view that cannot be drawn.
    #[error(transparent)]
    View(#[from] layout_view::ViewError),
    /// A kernel the layout engine cannot assign layouts to.
    #[error(transparent)]
    Engine(#[from] layout_engine::EngineError),
    /// CUDA that cannot be emitted for the pair.
    #[error(transparent)]
    Cuda(#[from] layout_cuda::EmitError),
}

impl From<String> for CliError {
    fn from(message: String) -> Self {
        CliError::Input(message)
    }
}

impl From<&str> for CliError {
    fn from(message: &str) -> Self {
        CliError::Input(message.to_string())
    }
}

//! `linlayout show` and `linlayout matrix`.

/// Arguments of `show`.
#[derive(clap::Args)]
pub struct ShowArgs {
    /// Tensor shape, e.g. 16x16.
    #[arg(long)]
    pub shape: String,
    /// The layout attribute text, '-' for stdin, '@file' for a file.
    pub layout: String,
}

/// Arguments of `matrix`.
#[derive(clap::Args)]
pub struct MatrixArgs {
    /// Tensor shape, e.g. 16x16.
    #[arg(long)]
    pub shape: String,
    /// The layout attribute text, '-' for stdin, '@file' for a file.
    pub layout: String,
}

/// Runs `show`.
pub fn run_show(_a: ShowArgs) -> Result<(), String> {
    Err("show is not implemented yet".into())
}

/// Runs `matrix`.
pub fn run_matrix(_a: MatrixArgs) -> Result<(), String> {
    Err("matrix is not implemented yet".into())
}

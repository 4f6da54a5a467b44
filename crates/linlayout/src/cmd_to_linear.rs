//! `linlayout to-linear`.

/// Arguments of `to-linear`.
#[derive(clap::Args)]
pub struct Args {
    /// Tensor shape, e.g. 128x64.
    #[arg(long)]
    pub shape: String,
    /// Print JSON with the oracle's keys plus "shape".
    #[arg(long)]
    pub json: bool,
    /// Threads per warp (64 for AMD CDNA).
    #[arg(long, default_value_t = 32)]
    pub threads_per_warp: u32,
    /// The layout attribute text, '-' for stdin, '@file' for a file.
    pub layout: String,
}

/// Runs the command.
pub fn run(_a: Args) -> Result<(), String> {
    Err("to-linear is not implemented yet".into())
}

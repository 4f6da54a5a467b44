//! `linlayout from-cute` and `linlayout to-cute`: CuTe layouts in and out
//! (the conventions of `hw_layouts::cute`: top-level CuTe mode `k` is
//! `dimk`; a plain layout maps coordinate → element offset, Triton's shared
//! layouts the inverse; a TV layout maps (thread, value) → column-major
//! tile index).

use crate::error::CliError;
use crate::input::{parse_shape, read_layout_text};
use hw_layouts::cute;
use hw_layouts::linear::{distributed_linear_mlir, shared_linear_mlir};
use hw_layouts::{Encoding, Space};
use linear_layout::LinearLayout;

/// Arguments of `from-cute`.
#[derive(clap::Args)]
pub struct FromArgs {
    /// Read the layout as a thread-value layout (thread, value) -> tile
    /// index of a tile of --shape, and print a #ttg.linear.
    #[arg(long, requires = "shape")]
    pub tv: bool,
    /// Tile shape for --tv, e.g. 16x8.
    #[arg(long)]
    pub shape: Option<String>,
    /// Alignment (bytes) printed in the #ttg.shared_linear.
    #[arg(long, default_value_t = 16)]
    pub alignment: u64,
    /// The CuTe text, e.g. 'Swizzle<3,3,3> o (8,64):(64,1)'; '-' for stdin,
    /// '@file' for a file.
    pub layout: String,
}

/// Arguments of `to-cute`.
#[derive(clap::Args)]
pub struct ToArgs {
    /// Tensor shape, e.g. 8x64.
    #[arg(long)]
    pub shape: String,
    /// The Triton layout attribute text, '-' for stdin, '@file' for a file.
    pub layout: String,
}

/// The linear layout of CuTe text: with a tile shape, a TV layout as a
/// distributed layout; without, a shared layout (offset → dims).
pub fn linear_from_cute(text: &str, tile: Option<&[u64]>) -> Result<LinearLayout, CliError> {
    let c = cute::parse(text)?;
    match tile {
        Some(t) => cute::tv_to_distributed(&c, t),
        None => cute::to_shared_linear(&c),
    }
    .map_err(CliError::from)
}

/// The layout `show` draws for CuTe text: a shared layout (offset → dims),
/// unless `--shape` is given and differs from the layout's mode sizes, when
/// the text is a TV layout over a tile of that shape. (Where a TV layout's
/// mode sizes equal the tile shape, `from-cute --tv` says it explicitly.)
pub fn show_layout(text: &str, shape: Option<&[u64]>) -> Result<LinearLayout, CliError> {
    let c = cute::parse(text)?;
    let sizes: Option<Vec<u64>> = c
        .layout
        .modes()
        .iter()
        .map(|m| m.size().and_then(|s| u64::try_from(s).ok()))
        .collect();
    match shape {
        Some(t) if sizes.as_deref() != Some(t) => linear_from_cute(text, Some(t)),
        _ => linear_from_cute(text, None),
    }
}

/// Runs `from-cute`.
pub fn run_from(a: FromArgs) -> Result<(), CliError> {
    println!("{}", render_from(&a)?);
    Ok(())
}

/// The text `from-cute` prints.
pub fn render_from(a: &FromArgs) -> Result<String, CliError> {
    if a.alignment == 0 || !a.alignment.is_power_of_two() {
        return Err(format!("--alignment must be a power of two, got {}", a.alignment).into());
    }
    let text = read_layout_text(&a.layout)?;
    if a.tv {
        let shape = parse_shape(a.shape.as_deref().unwrap_or_default())?;
        let l = linear_from_cute(&text, Some(&shape))?;
        let lanes = l.in_dim_size(linear_layout::DimName::LANE);
        if lanes != 32 {
            return Err(format!(
                "a #ttg.linear has 32 lanes, but the thread mode has {lanes} threads (thread bits 0-4 are lanes)"
            ).into());
        }
        Ok(distributed_linear_mlir(&l))
    } else {
        if a.shape.is_some() {
            return Err("--shape is for --tv; a plain CuTe layout's modes give its shape".into());
        }
        Ok(shared_linear_mlir(
            &linear_from_cute(&text, None)?,
            a.alignment,
        ))
    }
}

/// Runs `to-cute`.
pub fn run_to(a: ToArgs) -> Result<(), CliError> {
    println!("{}", render_to(&a)?);
    Ok(())
}

/// The text `to-cute` prints.
pub fn render_to(a: &ToArgs) -> Result<String, CliError> {
    let shape = parse_shape(&a.shape)?;
    let text = read_layout_text(&a.layout)?;
    let enc = Encoding::parse(&text)?;
    let l = enc.to_linear_layout(&shape)?;
    let c = match enc.space() {
        Space::Shared => cute::from_shared_linear(&l),
        Space::Distributed => cute::to_tv(&l),
        Space::TensorMemory => {
            return Err("tensor memory layouts have no CuTe form here".into());
        }
    };
    c.map(|c| c.to_string()).map_err(CliError::from)
}

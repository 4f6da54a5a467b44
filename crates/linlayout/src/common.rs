//! What every subcommand shares: the hardware flags (`--threads-per-warp`,
//! `--num-warps`), the element type (`--dtype`, one default everywhere),
//! and the size limits checked before any work starts.
//!
//! Argument order is the same everywhere: the source layout first, the
//! destination second (`convert`, `swizzle`, `explain invert-and-compose`,
//! `explain swizzle`; `bank-conflicts` takes the distributed layout that
//! stores, then the shared layout it stores into).

use crate::error::CliError;

pub use layout_codegen::limits::shape_text;
use linear_layout::{DimName, LinearLayout};

/// The default element type of every subcommand and of the Python package:
/// `f16`, the operand type of the matmuls whose layouts are converted most
/// (and the default the Python package, `swizzle`, `explain` and `show`'s
/// bank view already had; only `convert` defaulted to `f32`).
pub const DEFAULT_DTYPE: &str = "f16";

pub use layout_codegen::limits::{check_plan_layout, check_plan_shape};

/// The most tensor elements (and hardware indices) `show` draws or prints
/// whole: 2^18 (512x512). The views list every element, so time and output
/// grow with the tensor: measured with the release binary on a shared
/// 2-core machine, 512x512 takes 0.20 s (text) and 0.58 s / 50 MB (SVG),
/// so 1024x1024 would pass 2 s; layout-view's own limit, 2^22 (2048x2048),
/// took 23 s and 317 MB in a debug build. A `--rows/--cols` window may be
/// of a layout of any size and holds at most as many cells: the text view
/// and the picture of a window of a layout beyond layout-view's table limit
/// solve for the window's cells only (`layout_view::HolderSolver`).
pub const MAX_VIEW_ELEMENTS: u64 = 1 << 18;

/// Refuses a `--rows/--cols` window of more than [`MAX_VIEW_ELEMENTS`]
/// cells (the other dims count whole), naming the window and the limit.
pub fn check_window_size(shape: &[u64], window: &layout_view::Window) -> Result<(), CliError> {
    let rank = shape.len();
    let len = |r: &Option<std::ops::Range<u64>>, n: u64| {
        r.as_ref().map_or(n, |r| r.end.saturating_sub(r.start))
    };
    let cells = shape.iter().enumerate().fold(1u128, |acc, (d, &n)| {
        let n = if rank >= 2 && d == rank - 2 {
            len(&window.rows, n)
        } else if d == rank - 1 {
            len(&window.cols, n)
        } else {
            n
        };
        acc * u128::from(n)
    });
    if cells > u128::from(MAX_VIEW_ELEMENTS) {
        return Err(format!(
            "the window has {cells} cells; show prints or draws at most {MAX_VIEW_ELEMENTS} (2^{}) at once",
            MAX_VIEW_ELEMENTS.trailing_zeros()
        ).into());
    }
    Ok(())
}

/// Refuses a whole view of more than [`MAX_VIEW_ELEMENTS`] elements or
/// hardware indices, naming the shape and the limit.
pub fn check_view_size(ll: &LinearLayout, shape: &[u64]) -> Result<(), CliError> {
    let limit = MAX_VIEW_ELEMENTS.trailing_zeros();
    let elements: u32 = shape.iter().map(|s| s.trailing_zeros()).sum();
    let hardware = ll.total_in_dim_size_log2();
    if elements.max(hardware) > limit {
        return Err(format!(
            "shape {} has 2^{elements} elements (2^{hardware} hardware indices); show prints or draws at most 2^{limit} (e.g. 512x512): use --rows/--cols for a window",
            shape_text(shape)
        ).into());
    }
    Ok(())
}

/// `--threads-per-warp` and `--num-warps`: checks on a distributed layout.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct HardwareArgs {
    /// Threads per warp, 32 (NVIDIA) or 64 (AMD CDNA). When given, every
    /// distributed layout must have exactly that many lanes.
    #[arg(long, value_name = "N")]
    pub threads_per_warp: Option<u32>,
    /// Warps per CTA. When given, every distributed layout must have exactly
    /// that many warps.
    #[arg(long, value_name = "N")]
    pub num_warps: Option<u32>,
}

impl HardwareArgs {
    /// Checks the flags' own values.
    pub fn validate(&self) -> Result<(), CliError> {
        if let Some(t) = self.threads_per_warp {
            if t != 32 && t != 64 {
                return Err(format!("--threads-per-warp must be 32 or 64, got {t}").into());
            }
        }
        if let Some(w) = self.num_warps {
            if w == 0 || !w.is_power_of_two() || w > 1 << 16 {
                return Err(
                    format!("--num-warps must be a power of two from 1 to 65536, got {w}").into(),
                );
            }
        }
        Ok(())
    }

    /// `what` (a distributed layout: it has a `lane` or `warp` input dim)
    /// has the lane and warp counts the flags ask for; other layouts pass.
    pub fn check(&self, ll: &LinearLayout, what: &str) -> Result<(), CliError> {
        if !is_distributed(ll) {
            return Ok(());
        }
        let size = |d| in_size(ll, d);
        if let Some(t) = self.threads_per_warp {
            let lanes = size(DimName::LANE);
            if lanes != u64::from(t) {
                return Err(format!(
                    "{what} has {lanes} threads per warp but --threads-per-warp is {t}"
                )
                .into());
            }
        }
        if let Some(w) = self.num_warps {
            let warps = size(DimName::WARP);
            if warps != u64::from(w) {
                return Err(format!("{what} has {warps} warps but --num-warps is {w}").into());
            }
        }
        Ok(())
    }
}

/// Whether `ll` is a distributed layout (register, lane or warp inputs).
fn is_distributed(ll: &LinearLayout) -> bool {
    [DimName::REGISTER, DimName::LANE, DimName::WARP]
        .into_iter()
        .any(|d| ll.has_in_dim(d))
}

/// The size of input dim `d`, 1 when absent.
fn in_size(ll: &LinearLayout, d: DimName) -> u64 {
    if ll.has_in_dim(d) {
        ll.in_dim_size(d)
    } else {
        1
    }
}

/// Two distributed layouts of one conversion run on the same threads: the
/// same lanes per warp, warps and CTAs (named, with both counts).
pub fn check_same_threads(src: &LinearLayout, dst: &LinearLayout) -> Result<(), CliError> {
    if !is_distributed(src) || !is_distributed(dst) {
        return Ok(());
    }
    Ok(layout_codegen::limits::check_same_threads(src, dst)?)
}

/// `--dtype` (or the older `--bitwidth`): the element type.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct DtypeArgs {
    /// Element type: f16 (default), bf16, f32, f64, i8, f8E4M3FN, i16, i32,
    /// i64, ... (sets the bit width).
    #[arg(long, value_name = "TYPE")]
    pub dtype: Option<String>,
    /// Element bit width (8, 16, 32, 64) instead of --dtype.
    #[arg(
        long,
        value_name = "BITS",
        visible_alias = "elem-bits",
        conflicts_with = "dtype"
    )]
    pub bitwidth: Option<u32>,
}

impl DtypeArgs {
    /// The element bit width: `--bitwidth`, else `--dtype`'s, else f16's.
    pub fn bits(&self) -> Result<u32, CliError> {
        match (self.bitwidth, &self.dtype) {
            (Some(b), _) => {
                if matches!(b, 8 | 16 | 32 | 64) {
                    Ok(b)
                } else {
                    Err(format!("--bitwidth must be 8, 16, 32 or 64, got {b}").into())
                }
            }
            (None, Some(d)) => dtype_bitwidth(d),
            (None, None) => dtype_bitwidth(DEFAULT_DTYPE),
        }
    }
}

/// Bit width of a Triton element type name.
pub fn dtype_bitwidth(dtype: &str) -> Result<u32, CliError> {
    let d = dtype.trim().to_ascii_lowercase();
    let w = match d.as_str() {
        "f16" | "bf16" | "fp16" | "i16" | "u16" => 16,
        "f32" | "fp32" | "i32" | "u32" | "tf32" => 32,
        "f64" | "fp64" | "i64" | "u64" => 64,
        "i8" | "u8" | "i1" => 8,
        _ if d.starts_with("f8") || d.starts_with("fp8") => 8,
        _ => {
            return Err(format!(
                "unknown dtype '{dtype}' (expected f16, bf16, f32, f64, i8, f8..., i16, i32, i64)"
            )
            .into())
        }
    };
    Ok(w)
}

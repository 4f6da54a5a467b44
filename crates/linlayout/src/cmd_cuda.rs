//! `linlayout cuda`: CUDA for a conversion between two distributed layouts,
//! from `layout_cuda::device_fn` (the device function with its calling
//! convention, a load-convert-store kernel, or the benchmark program).

use crate::cmd_codegen::{dtype_bitwidth, read_layout, shape_arg};
use crate::error::CliError;
use clap::Args as ClapArgs;
use layout_cuda::device_fn::{case_for_pair, emit, Output};
use linear_layout::DimName;

/// Largest tile the emitter takes (elements): the suite's largest is
/// 128×256; beyond this the swizzle search and the unrolled code grow
/// without bound.
const MAX_TILE: u64 = 1 << 16;
/// Most registers (elements) per thread on either side: 255 is the
/// hardware's register file per thread.
const MAX_REGISTERS: u64 = 128;

#[derive(ClapArgs)]
pub struct Args {
    /// Tile shape, e.g. 128x128 (rank 2, powers of two).
    #[arg(long)]
    pub shape: String,
    /// Element type: f16, bf16, f32, i8, f8..., f64 (sets the bit width).
    #[arg(long, default_value = "f16")]
    pub dtype: String,
    /// Source layout (Triton attribute text, `@file`, `-` for stdin, or JSON bases).
    pub src: String,
    /// Destination layout.
    pub dst: String,
    /// Emit the `__device__` function converting one thread's registers
    /// (the default), with its offset helpers and sizes.
    #[arg(long, group = "what")]
    pub device_function: bool,
    /// Emit a standalone load-convert-store kernel (no host code).
    #[arg(long, group = "what")]
    pub kernel: bool,
    /// Emit the benchmark program: kernel, element check of the forward
    /// result on random data, event timing (build with nvcc, run with
    /// `./prog R tiles reps`).
    #[arg(long, group = "what")]
    pub bench: bool,
    /// Name of the function or program (a C identifier).
    #[arg(long, default_value = "cvt")]
    pub name: String,
    /// Write to this file instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<String>,
}

pub fn run(a: Args) -> Result<(), CliError> {
    let shape = shape_arg(&a.shape)?;
    if shape.len() != 2 {
        return Err(format!(
            "shape '{}' has rank {}; the CUDA emitter takes rank-2 tiles",
            a.shape,
            shape.len()
        )
        .into());
    }
    let tile: u64 = shape.iter().product();
    if tile > MAX_TILE {
        return Err(format!(
            "shape '{}' has {tile} elements; at most {MAX_TILE}",
            a.shape
        )
        .into());
    }
    let bits = dtype_bitwidth(&a.dtype)?;
    let src = read_layout(&a.src, &shape, "source")?;
    let dst = read_layout(&a.dst, &shape, "destination")?;
    for (what, l) in [("source", &src), ("destination", &dst)] {
        let regs = l.in_dim_size(DimName::REGISTER);
        if regs > MAX_REGISTERS {
            return Err(format!(
                "{what} layout holds {regs} registers per thread; at most {MAX_REGISTERS}"
            )
            .into());
        }
        if l.in_dim_size(DimName::BLOCK) != 1 {
            return Err(format!(
                "{what} layout spans {} CTAs; the emitter converts within one CTA",
                l.in_dim_size(DimName::BLOCK)
            )
            .into());
        }
        // Else the emitter's composition failed naming neither layout
        // ("outer layout does not cover this layout's image").
        if !l.is_surjective() {
            return Err(format!("{what} layout does not cover the whole {} tile", a.shape).into());
        }
        if l.in_dim_size(DimName::LANE) != 32 {
            return Err(format!(
                "{what} layout has {} lanes; NVIDIA warps have 32",
                l.in_dim_size(DimName::LANE)
            )
            .into());
        }
    }
    let what = if a.kernel {
        Output::Kernel
    } else if a.bench {
        Output::Bench
    } else {
        Output::DeviceFunction
    };
    let case = case_for_pair(&a.name, &src, &dst, &shape, bits)?;
    let code = emit(&case, what)?;
    match &a.output {
        Some(path) => std::fs::write(path, code).map_err(|source| CliError::Write {
            path: path.to_string(),
            source,
        }),
        None => {
            print!("{code}");
            Ok(())
        }
    }
}

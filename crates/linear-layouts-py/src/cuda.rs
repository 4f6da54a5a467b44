//! `_cuda(src, dst, bitwidth, what, name)`: CUDA source for a conversion
//! (`layout_cuda::device_fn`): the device function with its calling
//! convention, a load-convert-store kernel, or the benchmark program. The
//! tile shape is the layouts' output dimension sizes.

use super::{run, PyLayout};
use layout_cuda::device_fn::{case_for_pair, emit, Output};
use linear_layout::DimName;
use pyo3::prelude::*;

/// Largest tile (elements) and registers per thread the emitter takes
/// (the CLI's limits: beyond them the swizzle search and the unrolled code
/// grow without bound).
const MAX_TILE: u64 = 1 << 16;
const MAX_REGISTERS: u64 = 128;

#[pyfunction]
pub(crate) fn _cuda(
    src: &PyLayout,
    dst: &PyLayout,
    bitwidth: u32,
    what: &str,
    name: &str,
) -> PyResult<String> {
    let (s, d) = (&src.inner, &dst.inner);
    run(|| -> Result<String, String> {
        let output = match what {
            "device_function" => Output::DeviceFunction,
            "kernel" => Output::Kernel,
            "bench" => Output::Bench,
            _ => {
                return Err(format!(
                    "unknown output '{what}' (expected 'device_function', 'kernel' or 'bench')"
                ))
            }
        };
        if s.num_out_dims() != 2 {
            return Err(format!(
                "the CUDA emitter takes rank-2 layouts, not {} output dimensions",
                s.num_out_dims()
            ));
        }
        let shape: Vec<u64> = (0..2).map(|i| s.out_dim_size(DimName::dim(i))).collect();
        let tile: u64 = shape.iter().product();
        if tile > MAX_TILE {
            return Err(format!("tile {shape:?} has {tile} elements; at most {MAX_TILE}"));
        }
        for (side, l) in [("source", s), ("destination", d)] {
            let regs = l.in_dim_size(DimName::REGISTER);
            if regs > MAX_REGISTERS {
                return Err(format!(
                    "{side} layout holds {regs} registers per thread; at most {MAX_REGISTERS}"
                ));
            }
            if l.in_dim_size(DimName::LANE) != 32 || l.in_dim_size(DimName::BLOCK) != 1 {
                return Err(format!(
                    "{side} layout has {} lanes and {} CTAs; the emitter takes 32 lanes in one CTA",
                    l.in_dim_size(DimName::LANE),
                    l.in_dim_size(DimName::BLOCK)
                ));
            }
        }
        let case = case_for_pair(name, s, d, &shape, bitwidth).map_err(|e| e.to_string())?;
        emit(&case, output).map_err(|e| e.to_string())
    })
}

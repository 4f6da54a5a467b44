//! The memory model of one warp-wide shared-memory instruction: which
//! lane moves which register to or from which scratch slot, and the
//! wavefronts of its phases (vector `st/ld.shared` and `stmatrix` /
//! `ldmatrix`, as the [module doc](super) states them).

use super::SimulatorConfig;
use crate::error::{CodegenError, Result};
use crate::plan::Access;
use crate::tiling::MatrixInstruction;
use crate::wavefront::{matrix_wavefronts, phases_of};

/// `(lane, index into the access's registers, scratch slot)`.
pub(super) type Move = (u64, usize, u64);

/// The element moves of one warp-wide instruction for one warp: `(lane,
/// index into registers, slot)`, with the wavefronts of its phases.
pub(super) fn transfers(
    config: &SimulatorConfig,
    what: &str,
    a: &Access,
    nlane: u64,
    warp: u64,
    bitwidth: u32,
    scratch: u64,
) -> Result<(Vec<Move>, Vec<u64>)> {
    let bytes = (bitwidth as u64).max(8) / 8;
    let mut moves = Vec::new();
    let Some(MatrixInstruction { count, trans }) = a.matrix else {
        let v = a.registers.len() as u64;
        let mut starts = Vec::with_capacity(nlane as usize);
        for l in 0..nlane {
            let off = a.address.eval(l, warp);
            if off + v > scratch {
                return Err(CodegenError::OutOfBounds {
                    what: what.into(),
                    offset: off,
                    size: scratch,
                });
            }
            if !v.is_power_of_two() || off & (v - 1) != 0 {
                return Err(CodegenError::Misaligned {
                    what: what.into(),
                    byte_address: off * bytes,
                    bytes: v * bytes,
                });
            }
            starts.push(off * bytes);
            moves.extend((0..v).map(|j| (l, j as usize, off + j)));
        }
        return Ok((moves, phases_of(config.banks, &starts, v * bytes)));
    };
    let bad = |why: String| Err(CodegenError::Invalid(format!("{what}: {why}")));
    if config.banks != 32 {
        return bad(format!(
            "ldmatrix/stmatrix are NVIDIA instructions; the {}-bank model has none",
            config.banks
        ));
    }
    if ![1, 2, 4].contains(&count) {
        return bad(format!("matrix count {count}, expected 1, 2 or 4"));
    }
    let bw_ok = if trans {
        bitwidth == 16
    } else {
        [8, 16, 32].contains(&bitwidth)
    };
    if !bw_ok {
        return bad(format!(
            "{bitwidth}-bit elements in a matrix instruction{}",
            if trans {
                " with .trans (16-bit only)"
            } else {
                " (8, 16 or 32 bits)"
            }
        ));
    }
    if nlane != 32 {
        return bad(format!(
            "matrix instructions need 32-lane warps, not {nlane}"
        ));
    }
    let r = 32 / bitwidth as u64;
    if a.registers.len() as u64 != count * r {
        return bad(format!(
            "x{count} of {bitwidth}-bit elements passes {} registers, not {}",
            count * r,
            a.registers.len()
        ));
    }
    let row_elems = 16 / bytes;
    let mut rows = Vec::with_capacity(8 * count as usize);
    for t in 0..8 * count {
        let off = a.address.eval(t, warp);
        if off + row_elems > scratch {
            return Err(CodegenError::OutOfBounds {
                what: format!("{what} (row of lane {t})"),
                offset: off,
                size: scratch,
            });
        }
        if !off.is_multiple_of(row_elems) {
            return Err(CodegenError::Misaligned {
                what: format!("{what} (row of lane {t})"),
                byte_address: off * bytes,
                bytes: 16,
            });
        }
        rows.push(off);
    }
    for t in 0..32 {
        for i in 0..count {
            for e in 0..r {
                let slot = MatrixInstruction { count, trans }.slot(&rows, t, i, e, r);
                moves.push((t, (i * r + e) as usize, slot));
            }
        }
    }
    let starts: Vec<u64> = rows.iter().map(|o| o * bytes).collect();
    Ok((moves, matrix_wavefronts(&starts, count)))
}

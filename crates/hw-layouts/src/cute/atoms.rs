//! CUTLASS's thread-value layouts of the MMA and `ldmatrix`/`stmatrix`
//! atoms, as CuTe defines them (numbers from CUTLASS's
//! `include/cute/atom/mma_traits_sm80.hpp`, `mma_traits_sm89.hpp`,
//! `mma_traits_sm90_gmma.hpp`, `copy_traits_sm75.hpp`,
//! `copy_traits_sm90.hpp`), with the tile each one indexes.
//!
//! An MMA atom's layouts map `(thread, value)` to the column-major index of
//! its tile: `A` is `M x K`, `B` is `N x K` (both K-major, CUTLASS's `TN`),
//! `C` is `M x N`. Triton's `B` operand is `K x N`, so `B`'s modes are
//! transposed on the way (see [`Atom::to_distributed`]).
//!
//! A copy atom's layouts map `(thread, value)` to a **bit** of the data
//! moved; for `ldmatrix` (`LDSM_N`) the destination layout indexes rows of
//! 128 bits (eight 16-bit elements) stacked matrix after matrix, row-major.
//! [`upcast_bits`] turns it into element units.

use super::error::{CuteError, Result};
use super::from_linear::from_columns;
use super::layout::CuteLayout;
use super::syntax::parse;
use super::to_linear::{mode_columns, tv_to_distributed};
use linear_layout::{DimName, LinearLayout};

/// Which operand of an MMA atom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// `A`, `M x K`.
    A,
    /// `B`, `N x K` in CuTe (`K x N` in Triton).
    B,
    /// The accumulator `C`/`D`, `M x N`.
    C,
}

/// One CUTLASS atom layout: its name, operand, CuTe text and the tile
/// `[mode 0 extent, mode 1 extent]` its index is column-major over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Atom {
    /// CUTLASS's name of the instruction (or of the GMMA layout).
    pub name: &'static str,
    /// The operand, `None` for a copy atom.
    pub operand: Option<Operand>,
    /// The layout as CuTe writes it.
    pub cute: &'static str,
    /// The tile its index covers, CuTe's mode order.
    pub tile: [u64; 2],
}

const SM80_16X8_ROW: &str = "((4,8),(2,2)):((32,1),(16,8))";
const SM80_8X8_ROW: &str = "((4,8),2):((16,1),8)";

/// The SM80/SM89 `mma.sync` atoms (F16/BF16 16x8x8 and 16x8x16, INT8 and
/// FP8 16x8x32; F32-accumulating variants share these layouts).
pub const MMA_SYNC: &[Atom] = &[
    Atom {
        name: "SM80_16x8x8_F16F16F16F16_TN",
        operand: Some(Operand::A),
        cute: SM80_16X8_ROW,
        tile: [16, 8],
    },
    Atom {
        name: "SM80_16x8x8_F16F16F16F16_TN",
        operand: Some(Operand::B),
        cute: SM80_8X8_ROW,
        tile: [8, 8],
    },
    Atom {
        name: "SM80_16x8x8_F16F16F16F16_TN",
        operand: Some(Operand::C),
        cute: SM80_16X8_ROW,
        tile: [16, 8],
    },
    Atom {
        name: "SM80_16x8x16_F16F16F16F16_TN",
        operand: Some(Operand::A),
        cute: "((4,8),(2,2,2)):((32,1),(16,8,128))",
        tile: [16, 16],
    },
    Atom {
        name: "SM80_16x8x16_F16F16F16F16_TN",
        operand: Some(Operand::B),
        cute: "((4,8),(2,2)):((16,1),(8,64))",
        tile: [8, 16],
    },
    Atom {
        name: "SM80_16x8x16_F16F16F16F16_TN",
        operand: Some(Operand::C),
        cute: SM80_16X8_ROW,
        tile: [16, 8],
    },
    Atom {
        name: "SM80_16x8x32_S32S8S8S32_TN",
        operand: Some(Operand::A),
        cute: "((4,8),(4,2,2)):((64,1),(16,8,256))",
        tile: [16, 32],
    },
    Atom {
        name: "SM80_16x8x32_S32S8S8S32_TN",
        operand: Some(Operand::B),
        cute: "((4,8),(4,2)):((32,1),(8,128))",
        tile: [8, 32],
    },
    Atom {
        name: "SM80_16x8x32_S32S8S8S32_TN",
        operand: Some(Operand::C),
        cute: SM80_16X8_ROW,
        tile: [16, 8],
    },
    Atom {
        name: "SM89_16x8x32_F32E4M3E4M3F32_TN",
        operand: Some(Operand::A),
        cute: "((4,8),(4,2,2)):((64,1),(16,8,256))",
        tile: [16, 32],
    },
    Atom {
        name: "SM89_16x8x32_F32E4M3E4M3F32_TN",
        operand: Some(Operand::B),
        cute: "((4,8),(4,2)):((32,1),(8,128))",
        tile: [8, 32],
    },
    Atom {
        name: "SM89_16x8x32_F32E4M3E4M3F32_TN",
        operand: Some(Operand::C),
        cute: SM80_16X8_ROW,
        tile: [16, 8],
    },
];

/// SM90 GMMA's accumulator `CLayout_64xN` (four warps, `M = 64`):
/// `((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512))`. `N` a multiple of 8;
/// `N = 96, 192` have a non-power-of-two value mode and are not linear.
pub fn gmma_accumulator(n: u64) -> Result<CuteLayout> {
    if n == 0 || !n.is_multiple_of(8) || n > 256 {
        return Err(CuteError::Unsupported(format!(
            "GMMA N must be a multiple of 8 up to 256, got {n}"
        )));
    }
    parse(&format!(
        "((4,8,4),(2,2,{})):((128,1,16),(64,8,512))",
        n / 8
    ))
}

/// `ldmatrix` without `.trans` (`SM75_U32x{1,2,4}_LDSM_N`): the destination
/// (thread, value) → bit layout of `count` 8x8 matrices of 16-bit elements.
/// `stmatrix` (`SM90_U32x{1,2,4}_STSM_N`) uses the same layout as its
/// source.
pub fn ldsm_n_dst(count: u32) -> Result<CuteLayout> {
    let text = match count {
        1 => "(32,32):(32,1)",
        2 => "(32,(32,2)):(32,(1,1024))",
        4 => "(32,(32,4)):(32,(1,1024))",
        _ => {
            return Err(CuteError::Unsupported(format!(
                "ldmatrix moves 1, 2 or 4 matrices, not {count}"
            )))
        }
    };
    parse(text)
}

/// `ldmatrix.trans` (`SM75_U16x{2,4,8}_LDSM_T`, i.e. 1, 2 or 4 matrices):
/// the destination (thread, value) → bit layout. Thread `t` receives
/// column `t / 4`, rows `2 (t mod 4)` and `+1` of each matrix.
pub fn ldsm_t_dst(count: u32) -> Result<CuteLayout> {
    let text = match count {
        1 => "((4,8),(16,2)):((256,16),(1,128))",
        2 => "((4,8),(16,2,2)):((256,16),(1,128,1024))",
        4 => "((4,8),(16,2,4)):((256,16),(1,128,1024))",
        _ => {
            return Err(CuteError::Unsupported(format!(
                "ldmatrix moves 1, 2 or 4 matrices, not {count}"
            )))
        }
    };
    parse(text)
}

/// A (thread, value) → bit layout in units of `bits`-bit elements (CuTe's
/// `upcast`): the value bits below `bits` must be the low value bits at
/// strides `1, 2, 4, ...`; they are dropped and every other offset divided
/// by `bits`.
pub fn upcast_bits(c: &CuteLayout, bits: u64) -> Result<CuteLayout> {
    let mut cols = mode_columns(&c.layout)?;
    if cols.len() != 2 || !bits.is_power_of_two() {
        return Err(CuteError::Unsupported(format!(
            "upcast needs a (thread, value) layout and a power-of-two width, got {} and {bits}",
            c.layout
        )));
    }
    let k = bits.trailing_zeros() as usize;
    let low: Vec<u64> = (0..k).map(|i| 1u64 << i).collect();
    if cols[1].len() < k || cols[1][..k] != low[..] {
        return Err(CuteError::Unsupported(format!(
            "the value mode of {} does not start with {bits} contiguous bits",
            c.layout
        )));
    }
    cols[1].drain(..k);
    if let Some(&bad) = cols.iter().flatten().find(|&&x| !x.is_multiple_of(bits)) {
        return Err(CuteError::Unsupported(format!(
            "offset {bad} is not a multiple of {bits} bits"
        )));
    }
    for x in cols.iter_mut().flatten() {
        *x /= bits;
    }
    from_columns(&cols, &["thr".into(), "val".into()], true)
}

impl Atom {
    /// The parsed CuTe layout.
    pub fn layout(&self) -> Result<CuteLayout> {
        parse(self.cute)
    }

    /// The atom as a distributed layout `(register, lane) → (dim0, dim1)`
    /// in Triton's operand orientation: `A` `M x K`, `B` `K x N` (CuTe's
    /// `N x K` transposed), `C` `M x N`.
    pub fn to_distributed(&self) -> Result<LinearLayout> {
        let l = tv_to_distributed(&self.layout()?, &self.tile)?;
        if self.operand == Some(Operand::B) {
            let (d0, d1) = (DimName::dim(0), DimName::dim(1));
            let t = DimName::new("cute_b_tmp");
            let l = l
                .rename_out_dim(d0, t)?
                .rename_out_dim(d1, d0)?
                .rename_out_dim(t, d1)?;
            return Ok(l.transpose_outs(&[d0, d1])?);
        }
        Ok(l)
    }
}

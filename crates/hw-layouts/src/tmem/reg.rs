//! The tcgen05.ld / tcgen05.st register layouts (Triton's
//! `getDistributedLayoutForTmemLdSt`, behind Gluon's
//! `_compute_tmem_reg_layout`).
//!
//! Given the tensor-memory layout `T: row, col → (dim0, dim1)` of one CTA
//! and a message atom `A: register, lane → (row, col)` (one warp's part of
//! one tcgen05 message), the register layout is `T ∘ A'`, where `A'` extends
//! the atom with repetitions along columns (registers), the warps (warps
//! 0-3 own TMEM rows 0-31, 32-63, 64-95, 96-127; extra warps take row 16
//! or further columns, or broadcast), and is then checked to be a
//! permutation-like layout (every basis moves one dim; bijective once
//! broadcast bases are dropped). Sub-32-bit elements are first packed
//! (`contig` consecutive columns per 32-bit register), unpacked, or
//! padded. The CTA (`block`) bases are the tensor-memory layout's.

use super::TensorMemory;
use crate::error::{invalid, HwError, Result};
use linear_layout::{divide_left, DimName, LinearLayout};

const TMEM_REG: &str = "tmem_reg";

/// A tcgen05 message shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TmemAtom {
    /// 32 lanes × 32 bits: lane `l` reads row `l`.
    I32x32b,
    /// 16 lanes × 64 bits.
    I16x64b,
    /// 16 lanes × 128 bits.
    I16x128b,
    /// 16 lanes × 256 bits.
    I16x256b,
}

impl TmemAtom {
    /// The atom's `register, lane → (row, col)` bases (32-bit columns) and
    /// its `(rows, cols)` extent (Triton's `getTileLayout`).
    fn tile(self) -> (Vec<[u64; 2]>, Vec<[u64; 2]>, u64, u64) {
        match self {
            TmemAtom::I32x32b => (vec![], (0..5).map(|i| [1 << i, 0]).collect(), 32, 1),
            TmemAtom::I16x64b => (vec![], vec![[8, 0], [0, 1], [1, 0], [2, 0], [4, 0]], 16, 2),
            TmemAtom::I16x128b => (
                vec![[8, 0]],
                vec![[0, 1], [0, 2], [1, 0], [2, 0], [4, 0]],
                16,
                4,
            ),
            TmemAtom::I16x256b => (
                vec![[0, 1], [8, 0]],
                vec![[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
                16,
                8,
            ),
        }
    }
}

/// The arguments of Gluon's `_compute_tmem_reg_layout` (the oracle's
/// `tmem_reg` records' `params`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TmemRegParams {
    /// Element bitwidth (8, 16, 32).
    pub element_bitwidth: u64,
    /// Tensor shape `[M, N]`.
    pub shape: Vec<u64>,
    /// Allocation shape (rank ≥ 2).
    pub alloc_shape: Vec<u64>,
    /// The tensor-memory layout.
    pub tmem_layout: TensorMemory,
    /// Warps (power of two ≥ 4).
    pub num_warps: u64,
    /// `"32x32b"`, `"16x64b"`, `"16x128b"`, `"16x256b"` or `"32x32b_splitn"`.
    pub atom: String,
}

/// A distributed layout as explicit bases `(dim0, dim1)` per in dim.
#[derive(Clone, Debug, Default)]
struct Bases {
    reg: Vec<[u64; 2]>,
    lane: Vec<[u64; 2]>,
    warp: Vec<[u64; 2]>,
}

/// `T` as explicit row / col bases (standard out order).
fn row_col(ll: &LinearLayout) -> (Vec<[u64; 2]>, Vec<[u64; 2]>) {
    let get =
        |d: DimName| -> Vec<[u64; 2]> { ll.bases(d).into_iter().map(|b| [b[0], b[1]]).collect() };
    (get(DimName::ROW), get(DimName::COL))
}

/// `T(row = r, col = c)`.
fn apply(rows: &[[u64; 2]], cols: &[[u64; 2]], r: u64, c: u64) -> [u64; 2] {
    let mut out = [0, 0];
    for (i, b) in rows.iter().enumerate() {
        if r >> i & 1 == 1 {
            out[0] ^= b[0];
            out[1] ^= b[1];
        }
    }
    for (i, b) in cols.iter().enumerate() {
        if c >> i & 1 == 1 {
            out[0] ^= b[0];
            out[1] ^= b[1];
        }
    }
    out
}

/// GF(2) rank of packed vectors.
fn rank(vs: impl IntoIterator<Item = u128>) -> usize {
    let mut basis: Vec<u128> = Vec::new();
    for mut v in vs {
        for &b in &basis {
            v = v.min(v ^ b);
        }
        if v != 0 {
            basis.push(v);
            basis.sort_unstable_by(|a, b| b.cmp(a));
        }
    }
    basis.len()
}

fn pack(v: [u64; 2]) -> u128 {
    v[0] as u128 | (v[1] as u128) << 64
}

/// The register layout of a tcgen05.ld / st of `atom` for the per-CTA
/// tensor-memory layout `ll` (`row, col → dim0, dim1`) with elements of
/// `bitwidth` bits, or `None` where Triton finds none.
fn layout_for(ll: &LinearLayout, atom: TmemAtom, num_warps: u64, bitwidth: u64) -> Option<Bases> {
    let (col, d1) = (DimName::COL, DimName::dim(1));
    if bitwidth != 32 {
        // Pack `contig` consecutive columns into one 32-bit register.
        let mut best = 1u64;
        let mut quot = ll.clone();
        let mut contig = 2u64;
        while bitwidth * contig <= 32 {
            match divide_left(ll, &LinearLayout::try_identity_1d(contig, col, d1).ok()?) {
                Some(q) => {
                    quot = q;
                    best = contig;
                }
                None => break,
            }
            contig *= 2;
        }
        if best > 1 {
            let ret = layout_for(&quot, atom, num_warps, bitwidth * best)?;
            return Some(prepend_regs(ret, best));
        }
        let zeros = LinearLayout::try_zeros_1d(32 / bitwidth, col, d1, 1).ok()?;
        let unpacked = zeros
            .try_mul(&LinearLayout::try_identity_1d(2, col, d1).ok()?)
            .ok()?;
        if bitwidth == 16 {
            if let Some(q) = divide_left(ll, &unpacked) {
                let ret = layout_for(&q, atom, num_warps, 32)?;
                return Some(prepend_regs(ret, 2));
            }
        }
        if let Some(q) = divide_left(ll, &zeros) {
            return layout_for(&q, atom, num_warps, 32);
        }
        if ll.in_dim_size(col) == 1 {
            return layout_for(ll, atom, num_warps, 32);
        }
        return None;
    }
    let (rows, cols) = row_col(ll);
    let (n_rows_ll, n_cols_ll) = (1u64 << rows.len(), 1u64 << cols.len());
    let (mut t_reg, mut t_lane, t_rows, t_cols) = atom.tile();
    let mut n_cols_missing = n_cols_ll / t_cols;
    if n_cols_missing == 0 || t_rows > n_rows_ll {
        return None;
    }
    let instr32 = atom == TmemAtom::I32x32b;
    let layout16 = rows.get(4).is_some_and(|b| *b == [0, 0]);
    // The atom alone must not map two of its slots to one element.
    let mut lanes_used = t_lane.clone();
    if instr32 {
        lanes_used.pop();
    }
    let comp: Vec<u128> = t_reg
        .iter()
        .chain(lanes_used.iter())
        .map(|b| pack(apply(&rows, &cols, b[0], b[1])))
        .collect();
    if rank(comp.iter().copied()) != comp.len() {
        return None;
    }
    #[derive(PartialEq)]
    enum Row16 {
        None,
        Warp,
        Reg,
    }
    let row16 = if !instr32 && !layout16 {
        if num_warps > 4 {
            Row16::Warp
        } else {
            Row16::Reg
        }
    } else {
        Row16::None
    };
    let mut warps_to_tile = num_warps / if row16 == Row16::Warp { 8 } else { 4 };
    let warp_broadcast = warps_to_tile / n_cols_missing.min(warps_to_tile);
    warps_to_tile /= warp_broadcast;
    n_cols_missing /= warps_to_tile;
    let mut tile_cols = t_cols;
    if n_cols_missing > 1 {
        if instr32 && layout16 {
            // Lane 16 would read repeated rows: use 16x32bx2, whose second
            // half reads further columns.
            t_lane.remove(0);
            for b in &mut t_lane {
                b[0] /= 2;
            }
            let half = n_cols_missing / 2;
            let mut c = 1;
            while c < half {
                t_reg.push([0, tile_cols * c]);
                c *= 2;
            }
            tile_cols *= half;
            t_lane.push([0, tile_cols]);
            tile_cols *= 2;
        } else {
            let mut c = 1;
            while c < n_cols_missing {
                t_reg.push([0, tile_cols * c]);
                c *= 2;
            }
            tile_cols *= n_cols_missing;
        }
    }
    let mut t_warp: Vec<[u64; 2]> = vec![[32, 0], [64, 0]];
    match row16 {
        Row16::Warp => t_warp.push([16, 0]),
        Row16::Reg => t_reg.push([16, 0]),
        Row16::None => {}
    }
    let mut c = 1;
    while c < warps_to_tile {
        t_warp.push([0, tile_cols * c]);
        c *= 2;
    }
    tile_cols *= warps_to_tile;
    let mut wb = 1;
    while wb < warp_broadcast {
        t_warp.push([0, 0]);
        wb *= 2;
    }
    if tile_cols > n_cols_ll || 128 > n_rows_ll {
        return None;
    }
    let map = |v: &Vec<[u64; 2]>| -> Vec<[u64; 2]> {
        v.iter().map(|b| apply(&rows, &cols, b[0], b[1])).collect()
    };
    let ret = Bases {
        reg: map(&t_reg),
        lane: map(&t_lane),
        warp: map(&t_warp),
    };
    let all: Vec<[u64; 2]> = ret
        .reg
        .iter()
        .chain(&ret.lane)
        .chain(&ret.warp)
        .copied()
        .collect();
    if all.iter().any(|b| b[0] != 0 && b[1] != 0) {
        return None;
    }
    let nonzero: Vec<u128> = all
        .iter()
        .filter(|b| **b != [0, 0])
        .map(|b| pack(*b))
        .collect();
    let out_bits = ll.out_dim_size(DimName::dim(0)).trailing_zeros() as usize
        + ll.out_dim_size(d1).trailing_zeros() as usize;
    if nonzero.len() != out_bits || rank(nonzero.iter().copied()) != out_bits {
        return None;
    }
    Some(ret)
}

/// `identity1D(k, register, dim1) * ret`: `log2 k` new low register bases
/// along dim1, and every dim1 component of `ret` scaled by `k`.
fn prepend_regs(ret: Bases, k: u64) -> Bases {
    let scale =
        |v: Vec<[u64; 2]>| -> Vec<[u64; 2]> { v.into_iter().map(|b| [b[0], b[1] * k]).collect() };
    let mut reg: Vec<[u64; 2]> = Vec::new();
    let mut c = 1;
    while c < k {
        reg.push([0, c]);
        c *= 2;
    }
    reg.extend(scale(ret.reg));
    Bases {
        reg,
        lane: scale(ret.lane),
        warp: scale(ret.warp),
    }
}

/// Gluon's `_compute_tmem_reg_layout`: the register layout (`register,
/// lane, warp, block → dim0, dim1`) of a tcgen05.ld / st of `p.atom` for a
/// tensor of `p.shape` in the tensor-memory layout `p.tmem_layout`. The
/// `32x32b_splitn` variant is the 32x32b layout with the register basis
/// `[0, N/2]` made the last register basis (so that a `split` along N
/// separates registers), as Gluon does.
pub fn tmem_reg_layout(p: &TmemRegParams) -> Result<LinearLayout> {
    if p.num_warps < 4 || !p.num_warps.is_power_of_two() {
        return Err(invalid(
            TMEM_REG,
            format!(
                "num_warps must be a power of two and >= 4, got {}",
                p.num_warps
            ),
        ));
    }
    if p.shape.len() != 2 {
        return Err(invalid(
            TMEM_REG,
            format!("expected a 2D tensor, got shape {:?}", p.shape),
        ));
    }
    if p.alloc_shape.len() < 2 {
        return Err(invalid(
            TMEM_REG,
            format!(
                "alloc_shape must have rank >= shape rank, got {:?} and {:?}",
                p.alloc_shape, p.shape
            ),
        ));
    }
    if let Some(d) = p
        .alloc_shape
        .iter()
        .find(|&&d| d == 0 || !d.is_power_of_two())
    {
        return Err(invalid(
            TMEM_REG,
            format!(
                "alloc shape {:?} has dimension {d}: not a positive power of two",
                p.alloc_shape
            ),
        ));
    }
    let tail = &p.alloc_shape[p.alloc_shape.len() - 2..];
    if p.shape.iter().zip(tail).any(|(s, a)| s > a) {
        return Err(invalid(
            TMEM_REG,
            format!(
                "shape must be less than or equal to allocShape. shape = {:?}, allocShape = {:?}",
                p.shape, p.alloc_shape
            ),
        ));
    }
    crate::shape::check_shape(&p.shape)?;
    if !matches!(p.element_bitwidth, 8 | 16 | 32) {
        return Err(invalid(
            TMEM_REG,
            format!(
                "element bitwidth must be 8, 16 or 32, got {}",
                p.element_bitwidth
            ),
        ));
    }
    let (atom, splitn) = match p.atom.as_str() {
        "32x32b" => (TmemAtom::I32x32b, false),
        "32x32b_splitn" => (TmemAtom::I32x32b, true),
        "16x64b" => (TmemAtom::I16x64b, false),
        "16x128b" => (TmemAtom::I16x128b, false),
        "16x256b" => (TmemAtom::I16x256b, false),
        "16x32bx2" => {
            return Err(invalid(
                TMEM_REG,
                "Atom 16x32bx2 is inferred implicitly and cannot be requested explicitly",
            ))
        }
        other => return Err(invalid(TMEM_REG, format!("unknown instr_variant: {other}"))),
    };
    let t = &p.tmem_layout;
    t.check_element_bitwidth(p.element_bitwidth)?;
    let full = t.to_linear_layout(&p.shape)?;
    let pc = super::per_cta_2d(&p.shape, &t.cga, "tensor_memory_encoding")?;
    let ll = t.per_cta_layout(pc[0], pc[1])?;
    let Some(mut b) = layout_for(&ll, atom, p.num_warps, p.element_bitwidth) else {
        return Err(invalid(
            TMEM_REG,
            format!(
                "TMEM layout '{}' unsupported for shape {:?} and num_warps {}",
                if splitn { "32x32b" } else { p.atom.as_str() },
                p.shape,
                p.num_warps
            ),
        ));
    };
    if splitn {
        split_n(&mut b, p.shape[1], p.element_bitwidth)?;
    }
    let v = |x: Vec<[u64; 2]>| -> Vec<Vec<u64>> { x.into_iter().map(|b| b.to_vec()).collect() };
    let bases = vec![
        (DimName::REGISTER, v(b.reg)),
        (DimName::LANE, v(b.lane)),
        (DimName::WARP, v(b.warp)),
        (DimName::BLOCK, full.bases(DimName::BLOCK)),
    ];
    let outs = vec![(DimName::dim(0), p.shape[0]), (DimName::dim(1), p.shape[1])];
    LinearLayout::new(bases, outs, false).map_err(HwError::from)
}

/// Gluon's `32x32b_splitn` fix-up: the last register basis must be
/// `[0, N/2]`; take it from a lane or a warp (past the first two) basis.
fn split_n(b: &mut Bases, n: u64, bitwidth: u64) -> Result<()> {
    let half = [0, n / 2];
    if b.reg.is_empty() {
        if b.lane.last() != Some(&half) {
            return Err(invalid(
                TMEM_REG,
                format!("splitn with 1 register requires the last lane basis to be [0, N / 2], got {:?}", b.lane),
            ));
        }
        b.reg.push(half);
        *b.lane.last_mut().expect("lane bases") = [0, 0];
        return Ok(());
    }
    if *b.reg.last().expect("register bases") == half {
        return Ok(());
    }
    let num_reg = 1u64 << b.reg.len();
    if num_reg <= 32 / bitwidth {
        return Err(invalid(
            TMEM_REG,
            format!(
                "To be able to `tmem.load` into `tl.split` you need to have more than {} {bitwidth}-bit registers",
                32 / bitwidth
            ),
        ));
    }
    let last = b.reg.len() - 1;
    if let Some(i) = b.lane.iter().position(|x| *x == half) {
        std::mem::swap(&mut b.reg[last], &mut b.lane[i]);
        return Ok(());
    }
    if let Some(i) = b.warp.iter().skip(2).position(|x| *x == half) {
        std::mem::swap(&mut b.reg[last], &mut b.warp[i + 2]);
        return Ok(());
    }
    Err(invalid(
        TMEM_REG,
        "splitn requires at least one basis of the form [0, N / 2] in lanes or warps[2:] bases",
    ))
}

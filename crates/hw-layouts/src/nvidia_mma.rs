//! `#ttg.nvidia_mma` (Ampere `mma.sync` v2, Hopper `wgmma` v3) accumulator
//! layouts as linear layouts.
//!
//! The instruction tile is Triton's `nvidiaMmaTile(tile, kWidth = 2, order =
//! row-major, repOrder = row-major)`: with `n` the tile's minor (last) dim and
//! `m` the one before it, the map `register × lane → (m, n)` is the product
//!
//! ```text
//! identity_1d(kWidth, register, n) * identity_1d(4, lane, n)
//!   * identity_1d(8, lane, m) * identity_1d(m_tile / 8, register, m)
//!   * identity_1d(n_tile / (4 kWidth), register, n)
//! ```
//!
//! (for m16n8: register (0,1), (8,0); lane (0,2), (0,4), (1,0), (2,0), (4,0)).
//! Warps tile the CTA along `identity_nd(warp, warpsPerCTA, order)` with
//! row-major order for Ampere (N first) and column-major order for Hopper
//! (M first: a warpgroup's 4 warps stack 16-row slices). The result is
//! fitted to the shape with the CGA layout (`combineCtaCgaWithShape`).

use crate::blocked::{
    check_fields, check_pow2_list, check_rank, check_total_bits, fmt_list, identity_nd,
    matrix_order, transpose_like, uint_field, uint_list, Cga,
};
use crate::cga::combine_cta_cga_with_shape;
use crate::error::{invalid, Result};
use crate::syntax::Attribute;
use linear_layout::{DimName, LinearLayout};

const L: &str = "nvidia_mma";

/// `#ttg.nvidia_mma<{versionMajor, versionMinor, warpsPerCTA[, CGALayout], instrShape}>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NvidiaMma {
    /// 2 (Ampere) or 3 (Hopper).
    pub version_major: u32,
    /// Printed as given (0 in practice).
    pub version_minor: u32,
    /// Warps of a CTA along each dim (rank 2, or 3 for batched Ampere).
    pub warps_per_cta: Vec<u64>,
    /// Ampere: the tile `[M, N]` (`[16, 8]`, `[8, 8]` for fp64, `[1, 16,
    /// 8]` batched; the batch entry is ignored). Hopper: `[M, N, K]` =
    /// `[16, N, K]` (only M and N are read; longer lists print back as
    /// given).
    pub instr_shape: Vec<u64>,
    /// The CGA layout.
    pub cga: Cga,
}

impl NvidiaMma {
    /// Reads the attribute; rejects what Triton cannot build (version not
    /// 2/3, ranks that do not match, warps not powers of two, bad CGA).
    /// `instrShape` is checked where a conversion uses it (the accumulator
    /// needs M and N that split into power-of-two repetitions of 8; a dot
    /// operand reads only M), as Triton 3.9 does.
    pub fn from_attr(a: &Attribute) -> Result<Self> {
        check_fields(
            a,
            &[
                "versionMajor",
                "versionMinor",
                "warpsPerCTA",
                "instrShape",
                "CGALayout",
                "CTAsPerCGA",
                "CTASplitNum",
                "CTAOrder",
            ],
            L,
        )?;
        let version_major = uint_field(a, "versionMajor", L)?;
        if version_major != 2 && version_major != 3 {
            return Err(invalid(
                L,
                format!("versionMajor must be 2 (Ampere) or 3 (Hopper), got {version_major}"),
            ));
        }
        let version_minor = match a.get("versionMinor") {
            Some(_) => uint_field(a, "versionMinor", L)?,
            None => 0,
        };
        if version_minor > 1 << 20 {
            return Err(invalid(
                L,
                format!("versionMinor = {version_minor} out of range"),
            ));
        }
        let warps_per_cta = uint_list(a, "warpsPerCTA", L)?;
        let instr_shape = uint_list(a, "instrShape", L)?;
        let rank = warps_per_cta.len();
        check_pow2_list(&warps_per_cta, "warpsPerCTA", L)?;
        check_total_bits(&warps_per_cta, "warpsPerCTA", L)?;
        // Triton's attribute verifier does not look at instrShape: only the
        // conversions use it (and assert on tiles they cannot build, checked
        // in `nvidia_mma_tile`). Ampere: one entry per dim (the batch entry
        // is ignored); Hopper: [M, N, K, ..] (only M and N are read).
        if version_major == 2 {
            if rank != 2 && rank != 3 {
                return Err(invalid(
                    L,
                    format!("warpsPerCTA = {warps_per_cta:?}: rank must be 2 or 3"),
                ));
            }
            // Triton accepts any rank here (a dot operand's parent is
            // printed and used as given, e.g. `[16, 8, 1]` with rank-2
            // warps); the accumulator conversion checks it.
            if instr_shape.len() != 2 && instr_shape.len() != 3 {
                return Err(invalid(
                    L,
                    format!(
                        "instrShape = {instr_shape:?} must have 2 or 3 entries for versionMajor 2"
                    ),
                ));
            }
        } else {
            if rank != 2 {
                return Err(invalid(
                    L,
                    format!(
                        "warpsPerCTA = {warps_per_cta:?}: Hopper (versionMajor 3) needs rank 2"
                    ),
                ));
            }
            if instr_shape.len() < 2 || instr_shape.len() > 8 {
                return Err(invalid(
                    L,
                    format!("instrShape = {instr_shape:?} must be [M, N, K] for versionMajor 3"),
                ));
            }
        }
        if instr_shape.iter().any(|&x| x > 1 << 16) {
            return Err(invalid(
                L,
                format!("instrShape = {instr_shape:?} is out of range"),
            ));
        }
        let cga = Cga::from_attr(a, rank, L)?;
        Ok(NvidiaMma {
            version_major: version_major as u32,
            version_minor: version_minor as u32,
            warps_per_cta,
            instr_shape,
            cga,
        })
    }

    /// Rank of the layout.
    pub fn rank(&self) -> usize {
        self.warps_per_cta.len()
    }

    /// Hopper (`versionMajor = 3`).
    pub fn is_hopper(&self) -> bool {
        self.version_major == 3
    }

    /// The accumulator tile `[.., M, N]` (rank entries).
    pub fn tile_shape(&self) -> Vec<u64> {
        if self.is_hopper() {
            vec![self.instr_shape[0], self.instr_shape[1]]
        } else {
            self.instr_shape.clone()
        }
    }

    /// Triton's warp order: row-major for Ampere, column-major for Hopper.
    pub fn warp_order(&self) -> Vec<usize> {
        matrix_order(self.rank(), !self.is_hopper())
    }

    /// The linear layout for a tensor of `shape`.
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        let rank = self.rank();
        check_rank(shape, rank, L)?;
        if !self.is_hopper() && self.instr_shape.len() != rank {
            return Err(invalid(
                L,
                format!(
                    "instrShape = {:?} must have rank {rank} (as warpsPerCTA) for versionMajor 2",
                    self.instr_shape
                ),
            ));
        }
        let order = matrix_order(rank, true);
        let tile = nvidia_mma_tile(&self.tile_shape(), 2, &order, &order)?;
        let warps = identity_nd(DimName::WARP, &self.warps_per_cta, &self.warp_order())?;
        let cta = tile.try_mul(&transpose_like(&warps, &tile)?)?;
        combine_cta_cga_with_shape(&cta, &self.cga.layout(rank)?, shape)
    }

    /// Triton's printed form.
    pub fn to_mlir(&self) -> String {
        format!(
            "#ttg.nvidia_mma<{{versionMajor = {}, versionMinor = {}, warpsPerCTA = {}{}, instrShape = {}}}>",
            self.version_major,
            self.version_minor,
            fmt_list(&self.warps_per_cta),
            self.cga.mlir_suffix(),
            fmt_list(&self.instr_shape)
        )
    }
}

/// Triton's `nvidiaMmaTile(tileShape, kWidth, order, repOrder)`: the
/// `register × lane` layout of one mma fragment (see the module doc), out
/// dims in `rep_order` order (all dims present, the non-matrix ones size 1).
/// `inner = order[0]` holds kWidth consecutive registers and 4 lanes,
/// `outer = order[1]` 8 lanes; the registers then repeat `m / 8` times along
/// outer and `n / (4 kWidth)` times along inner.
pub(crate) fn nvidia_mma_tile(
    tile_shape: &[u64],
    k_width: u64,
    order: &[usize],
    rep_order: &[usize],
) -> Result<LinearLayout> {
    let rank = rep_order.len();
    let inner = order[0];
    let outer = order[1];
    let m = tile_shape[outer];
    let n = tile_shape[inner];
    // Triton asserts m % 8 == 0 and n % (4 kWidth) == 0; the repetition
    // counts m / 8 and n / (4 kWidth) must then be powers of two, or 0 (an
    // identity of size 0 is the empty layout). k_width is a power of two.
    let reps_ok = |x: u64| x == 0 || x.is_power_of_two();
    if k_width == 0
        || m & 7 != 0
        || n & (4 * k_width - 1) != 0
        || !reps_ok(m / 8)
        || !reps_ok(n / (4 * k_width))
    {
        return Err(invalid(
            "nvidia_mma",
            format!(
                "tile {tile_shape:?} does not split into power-of-two repetitions of 8 x {} lane tiles",
                4 * k_width
            ),
        ));
    }
    let ones = vec![1u64; rank];
    let di = DimName::dim(inner);
    let dout = DimName::dim(outer);
    let parts = [
        LinearLayout::try_identity_1d(k_width, DimName::REGISTER, di)?,
        LinearLayout::try_identity_1d(4, DimName::LANE, di)?,
        LinearLayout::try_identity_1d(8, DimName::LANE, dout)?,
        LinearLayout::try_identity_1d(m / 8, DimName::REGISTER, dout)?,
        LinearLayout::try_identity_1d(n / (k_width * 4), DimName::REGISTER, di)?,
    ];
    let mut l = identity_nd(DimName::REGISTER, &ones, rep_order)?;
    for p in &parts {
        l = l.try_mul(p)?;
    }
    Ok(l)
}

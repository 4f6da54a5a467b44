//! `#ttg.amd_mfma`: the accumulator layout of AMD CDNA MFMA instructions
//! and the layouts of their A / B operands.

use super::{
    check_attr, check_k_width_power_of_two, check_operand, check_rank, dim, fmt_cga, fmt_list,
    get_bool, get_uint, get_uint_list, identity_nd, matrix_order, mul, order_for_dot_operand,
    read_cga, with_batch_dim, with_cga,
};
use crate::cga::cga_from_bases;
use crate::error::{invalid, Result};
use crate::syntax::Attribute;
use linear_layout::{DimName, LinearLayout};

const NAME: &str = "amd_mfma";
/// Lanes per wavefront on CDNA.
const WARP_SIZE: u64 = 64;

/// `#ttg.amd_mfma<{version = v, warpsPerCTA = [..], instrShape = [M, N(, K)],
/// isTransposed = b[, CGALayout = [..]][, tilesPerWarp = [..]][,
/// elementBitWidth = 64]}>`.
///
/// The accumulator of one MFMA instruction is an `M x N` tile (M = dim
/// `rank-2`, N = dim `rank-1`) spread over the 64 lanes of a wavefront;
/// `(M, N)` is one of `(32, 32)`, `(16, 16)`, `(64, 4)`, `(4, 64)`.
/// Each lane holds `height` consecutive rows (4, or 1 for 64-bit
/// elements); `isTransposed` swaps the roles of M and N (consecutive
/// columns per lane). Warps, then `tilesPerWarp` and tensor repetitions
/// extend it: N first over the whole tensor, then M (see
/// [`Mfma::to_linear_layout`]).
///
/// ```
/// use hw_layouts::amd::Mfma;
/// use hw_layouts::syntax::Attribute;
/// let a = Attribute::parse(
///     "#ttg.amd_mfma<{version = 3, warpsPerCTA = [1, 1], instrShape = [16, 16, 16], isTransposed = false}>",
/// ).unwrap();
/// let l = Mfma::from_attr(&a).unwrap().to_linear_layout(&[16, 16]).unwrap();
/// // Lane l holds column l % 16 and rows 4 * (l / 16) + r for registers
/// // r = 0..4 (the mfma_f32_16x16 accumulator).
/// assert_eq!(
///     l.bases_json().to_string(),
///     r#"{"register":[[1,0],[2,0]],"lane":[[0,1],[0,2],[0,4],[0,8],[4,0],[8,0]],"warp":[],"block":[]}"#
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mfma {
    /// Architecture generation (1 gfx908, 2 gfx90a, 3 gfx942, 4 gfx950; the
    /// verifier accepts 0..=4). Does not change the layout.
    pub version: u32,
    /// Warps per CTA along each tensor dim (rank entries).
    pub warps_per_cta: Vec<u64>,
    /// `[M, N]` or `[M, N, K]` of the instruction, as written.
    pub instr_shape: Vec<u64>,
    /// Lanes hold consecutive N elements instead of consecutive M ones.
    pub is_transposed: bool,
    /// Instruction tiles per warp along each dim, as written (`None`: all
    /// ones, Triton's default of `len(instrShape)` ones).
    pub tiles_per_warp: Option<Vec<u64>>,
    /// Bit width of the accumulator elements: 32 or 64.
    pub element_bit_width: u32,
    /// CGA `block` bases in CTA-tile units (empty: one CTA).
    pub cga_bases: Vec<Vec<u64>>,
}

impl Mfma {
    /// Reads the attribute. Accepts Triton 3.9's fields and the legacy
    /// `versionMajor` / `versionMinor` (minor must be 0) and `CTAsPerCGA` /
    /// `CTASplitNum` / `CTAOrder` forms. Checks what Triton's verifier
    /// checks (version 0..=4, `(M, N)` one of the four shapes,
    /// `elementBitWidth` 32 or 64) and, because Triton's builders skip the
    /// verifier and would assert later, also powers of two and ranks.
    pub fn from_attr(a: &Attribute) -> Result<Self> {
        check_attr(
            a,
            NAME,
            "an MFMA",
            &[
                "version",
                "versionMajor",
                "versionMinor",
                "warpsPerCTA",
                "instrShape",
                "isTransposed",
                "CGALayout",
                "CTAsPerCGA",
                "CTASplitNum",
                "CTAOrder",
                "tilesPerWarp",
                "elementBitWidth",
            ],
        )?;
        let version = match (
            get_uint(a, NAME, "version")?,
            get_uint(a, NAME, "versionMajor")?,
        ) {
            (Some(v), None) => v,
            (None, Some(v)) => {
                if let Some(minor) = get_uint(a, NAME, "versionMinor")? {
                    if minor != 0 {
                        return Err(invalid(
                            NAME,
                            format!("versionMinor must be 0, got {minor}"),
                        ));
                    }
                }
                v
            }
            (Some(_), Some(_)) => {
                return Err(invalid(
                    NAME,
                    "give either version or versionMajor, not both",
                ))
            }
            (None, None) => return Err(invalid(NAME, "missing field 'version'")),
        };
        let warps_per_cta = get_uint_list(a, NAME, "warpsPerCTA")?
            .ok_or_else(|| invalid(NAME, "missing field 'warpsPerCTA'"))?;
        let instr_shape = get_uint_list(a, NAME, "instrShape")?
            .ok_or_else(|| invalid(NAME, "missing field 'instrShape'"))?;
        let is_transposed = get_bool(a, NAME, "isTransposed")?
            .ok_or_else(|| invalid(NAME, "missing field 'isTransposed'"))?;
        let tiles_per_warp = get_uint_list(a, NAME, "tilesPerWarp")?;
        let element_bit_width = get_uint(a, NAME, "elementBitWidth")?.unwrap_or(32);
        let rank = warps_per_cta.len();
        let cga_bases = read_cga(a, NAME, rank)?;
        let m = Mfma {
            version: u32::try_from(version).unwrap_or(u32::MAX),
            warps_per_cta,
            instr_shape,
            is_transposed,
            tiles_per_warp,
            element_bit_width: u32::try_from(element_bit_width).unwrap_or(u32::MAX),
            cga_bases,
        };
        m.validate()?;
        Ok(m)
    }

    /// Triton's verifier plus the preconditions its layout builder asserts.
    pub fn validate(&self) -> Result<()> {
        if self.version > 4 {
            return Err(invalid(
                NAME,
                format!("version must be in the [0, 4] range, got {}", self.version),
            ));
        }
        let rank = self.warps_per_cta.len();
        if rank != 2 && rank != 3 {
            return Err(invalid(
                NAME,
                format!(
                    "warpsPerCTA {:?} must have 2 or 3 entries",
                    self.warps_per_cta
                ),
            ));
        }
        if self.instr_shape.len() != 2 && self.instr_shape.len() != 3 {
            return Err(invalid(
                NAME,
                format!(
                    "instrShape {:?} must be [M, N] or [M, N, K]",
                    self.instr_shape
                ),
            ));
        }
        let (m, n) = (self.instr_shape[0], self.instr_shape[1]);
        if ![(32, 32), (16, 16), (64, 4), (4, 64)].contains(&(m, n)) {
            return Err(invalid(
                NAME,
                format!("invalid (mDim, nDim) combination: ({m}, {n})"),
            ));
        }
        if self.element_bit_width != 32 && self.element_bit_width != 64 {
            return Err(invalid(
                NAME,
                format!(
                    "elementBitWidth must be 32 or 64, got {}",
                    self.element_bit_width
                ),
            ));
        }
        // Triton's identity1D(0) is the empty layout: a 0 entry acts like 1
        // wherever Triton only multiplies by it (it is accepted by Triton
        // 3.9; warpsPerCTA[N] = 0 makes it divide by zero, reported by
        // to_linear_layout).
        for &w in &self.warps_per_cta {
            if w != 0 && !w.is_power_of_two() {
                return Err(invalid(
                    NAME,
                    format!(
                        "warpsPerCTA {:?} entries must be powers of two",
                        self.warps_per_cta
                    ),
                ));
            }
        }
        // Triton keeps bases in 32-bit ints; far larger counts cannot be
        // laid out (and would overflow the 64-bit packed bases here).
        let warp_bits: u32 = self
            .warps_per_cta
            .iter()
            .map(|w| w.max(&1).trailing_zeros())
            .sum();
        if warp_bits > 20 {
            return Err(invalid(
                NAME,
                format!("warpsPerCTA {:?}: more than 2^20 warps", self.warps_per_cta),
            ));
        }
        if let Some(t) = &self.tiles_per_warp {
            // Triton reads only the M and N entries (indices rank-2 and
            // rank-1) and ignores the others (its parser's default has
            // len(instrShape) ones; a batch entry is never used).
            if t.len() < rank {
                return Err(invalid(
                    NAME,
                    format!("tilesPerWarp {t:?} needs at least rank {rank} entries"),
                ));
            }
        }
        cga_from_bases(&self.cga_bases, rank)?;
        Ok(())
    }

    /// The rank (number of tensor dims).
    pub fn rank(&self) -> usize {
        self.warps_per_cta.len()
    }

    /// Instruction tiles per warp along dim `d` (1 by default). Checked
    /// only where Triton uses it (the accumulator reads the M and N
    /// entries, an operand only its non-K one): a power of two, or 0 which
    /// Triton's `identity1D(0)` treats like 1.
    pub fn tiles_per_warp_at(&self, d: usize) -> Result<u64> {
        let x = match &self.tiles_per_warp {
            Some(t) => t.get(d).copied().unwrap_or(1),
            None => 1,
        };
        if (x != 0 && !x.is_power_of_two()) || x > 1 << 20 {
            return Err(invalid(
                NAME,
                format!(
                    "tilesPerWarp {:?}: entry {d} = {x} must be a power of two (at most 2^20)",
                    self.tiles_per_warp.as_deref().unwrap_or(&[])
                ),
            ));
        }
        Ok(x)
    }

    /// Warps per CTA (product of `warpsPerCTA`).
    pub fn num_warps(&self) -> u64 {
        self.warps_per_cta.iter().map(|&w| w.max(1)).product()
    }

    fn mn(&self) -> (u64, u64) {
        (self.instr_shape[0], self.instr_shape[1])
    }

    /// The accumulator layout for a tensor of `shape` (Triton's
    /// `AMDMfmaEncodingAttr::toLinearLayout`). With M = dim `rank-2`, N = dim
    /// `rank-1`, `height` = 4 (1 for 64-bit elements) and `tiles = M·N /
    /// (64·height)`, the product (first factor = lowest bits) is:
    ///
    /// * not transposed: `register` `height` rows along M, `lane` N columns
    ///   then `64/N` row groups along M, `register` `tiles` more along M;
    ///   transposed: the same with M and N swapped (64x4 must be transposed);
    /// * `register` `tilesPerWarp[N]` tiles, `warp` `warpsPerCTA[N]`, then
    ///   `register` repetitions covering the rest of N
    ///   (`shape[N] / (N·warpsN·tilesN)`), then `register` `tilesPerWarp[M]`
    ///   and `warp` `warpsPerCTA[M]` along M; `warp` `warpsPerCTA[0]` along
    ///   the batch dim;
    /// * Triton's `combineCtaCgaWithShape` (more M repetitions in
    ///   `register`, broadcast where the tensor is smaller, CGA `block`).
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        self.validate()?;
        let rank = self.rank();
        check_rank(NAME, shape, rank)?;
        let (m_dim, n_dim) = self.mn();
        if m_dim == 64 && n_dim == 4 && !self.is_transposed {
            return Err(invalid(
                NAME,
                "64x4 mfma must be transposed (isTransposed = true)",
            ));
        }
        let (reg, lane, warp) = (DimName::REGISTER, DimName::LANE, DimName::WARP);
        let (mi, ni) = (rank - 2, rank - 1);
        let (dm, dn) = (dim(mi), dim(ni));
        let height: u64 = if self.element_bit_width == 64 { 1 } else { 4 };
        let tiles = m_dim * n_dim / (WARP_SIZE * height);
        let id = LinearLayout::try_identity_1d;

        let mut tile = if !self.is_transposed {
            let regs = id(height, reg, dm)?;
            let lanes = mul(&id(n_dim, lane, dn)?, &id(WARP_SIZE / n_dim, lane, dm)?)?;
            let mut t = mul(&regs, &lanes)?;
            if tiles > 0 {
                t = mul(&t, &id(tiles, reg, dm)?)?;
            }
            t
        } else {
            let regs = id(height, reg, dn)?;
            let lanes = mul(&id(m_dim, lane, dm)?, &id(WARP_SIZE / m_dim, lane, dn)?)?;
            let mut t = mul(&regs, &lanes)?;
            if tiles > 0 {
                t = mul(&t, &id(tiles, reg, dn)?)?;
            }
            t
        };
        tile = tile.transpose_outs(&[dn, dm])?;

        let (tpw_m, tpw_n) = (self.tiles_per_warp_at(mi)?, self.tiles_per_warp_at(ni)?);
        let (w_m, w_n) = (self.warps_per_cta[mi], self.warps_per_cta[ni]);
        tile = mul(&tile, &id(tpw_n, reg, dn)?)?;
        tile = mul(&tile, &id(w_n, warp, dn)?)?;
        // Repetitions over the rest of N; Triton divides by
        // N·warpsN·tilesN and crashes (SIGFPE) when one of them is 0.
        let n_span = n_dim.saturating_mul(w_n).saturating_mul(tpw_n);
        if n_span == 0 {
            return Err(invalid(
                NAME,
                format!(
                    "warpsPerCTA[N] = {w_n} and tilesPerWarp[N] = {tpw_n} must be non-zero (Triton divides by them)"
                ),
            ));
        }
        tile = mul(&tile, &id(shape[ni] / n_span, reg, dn)?)?;
        tile = mul(&tile, &id(tpw_m, reg, dm)?)?;
        tile = mul(&tile, &id(w_m, warp, dm)?)?;
        if rank == 3 {
            let db = dim(0);
            tile = with_batch_dim(&tile, db)?;
            tile = mul(&tile, &id(self.warps_per_cta[0], warp, db)?)?;
        }
        with_cga(&tile, &self.cga_bases, rank, shape)
    }

    /// The layout of operand A (`op_idx = 0`, tensor `[.., M, K]`) or B
    /// (`op_idx = 1`, `[.., K, N]`) of an MFMA with this accumulator layout
    /// (Triton's `mfmaDotToLinearLayout`). With `nonK` = M for A, N for B
    /// (the instruction's size `nonKDim` along it):
    ///
    /// * `register` `k_width` consecutive K elements, `lane` `nonKDim` along
    ///   non-K then `64/nonKDim` along K;
    /// * for the 64x64 operand of a 64x4 (A) or 4x64 (B) instruction,
    ///   `register` 16 more along K (the K tile grows 16x);
    /// * `register` repetitions over the rest of `shape[K]`, then
    ///   `tilesPerWarp[nonK]` along non-K;
    /// * `warp` = `warpsPerCTA` in row-major order over all dims (warps that
    ///   the parent puts along the other operand's dim land on K and are
    ///   then broadcast by the shape clipping, since registers cover K);
    /// * `combineCtaCgaWithShape` with out dims ordered K, non-K, batch.
    pub fn dot_operand_layout(
        &self,
        op_idx: u32,
        k_width: u32,
        shape: &[u64],
    ) -> Result<LinearLayout> {
        self.validate()?;
        let rank = self.rank();
        check_operand(NAME, shape, rank, op_idx)?;
        if k_width == 0 {
            return Err(invalid(
                "dot_op",
                "ttg.dot_op kWidth parameter is mandatory for MFMA parent",
            ));
        }
        check_k_width_power_of_two(k_width)?;
        let (reg, lane, warp) = (DimName::REGISTER, DimName::LANE, DimName::WARP);
        let (m_dim, n_dim) = self.mn();
        let non_k_index = if op_idx == 0 { rank - 2 } else { rank - 1 };
        let k_index = if op_idx == 0 { rank - 1 } else { rank - 2 };
        let non_k_dim = if op_idx == 0 { m_dim } else { n_dim };
        let k_size = shape[k_index];
        let order = order_for_dot_operand(op_idx, rank, true);
        let (dk, dnk) = (dim(order[0]), dim(order[1]));
        let id = LinearLayout::try_identity_1d;

        let regs = id(u64::from(k_width), reg, dk)?;
        let lanes = mul(
            &id(non_k_dim, lane, dnk)?,
            &id(WARP_SIZE / non_k_dim, lane, dk)?,
        )?;
        let mut tile = mul(&regs, &lanes)?;
        let mut k_tile = WARP_SIZE / non_k_dim * u64::from(k_width);
        if (m_dim == 64 && n_dim == 4 && op_idx == 0) || (m_dim == 4 && n_dim == 64 && op_idx == 1)
        {
            tile = mul(&tile, &id(16, reg, dk)?)?;
            k_tile *= 16;
        }
        if k_size > k_tile {
            tile = mul(&tile, &id(k_size / k_tile, reg, dk)?)?;
        }
        tile = mul(&tile, &id(self.tiles_per_warp_at(non_k_index)?, reg, dnk)?)?;
        tile = tile.transpose_outs(&[dk, dnk])?;
        if rank == 3 {
            tile = with_batch_dim(&tile, dim(order[2]))?;
        }
        let warps = identity_nd(warp, &self.warps_per_cta, &matrix_order(rank, true))?;
        let mut cta = mul(&tile, &warps)?;
        if !cta.has_in_dim(warp) {
            // All warp counts 0 (Triton's identity1D(0) is empty): one warp.
            cta = mul(&cta, &id(1, warp, dk)?)?;
        }
        with_cga(&cta, &self.cga_bases, rank, shape)
    }

    /// Triton 3.9's printed form: `version`, `warpsPerCTA`, `instrShape`,
    /// `isTransposed`, then `CGALayout` (when there are block bases),
    /// `tilesPerWarp` (when not all ones) and `elementBitWidth` (when not
    /// 32). Legacy input prints in the new syntax.
    pub fn to_mlir(&self) -> String {
        let mut s = format!(
            "#ttg.amd_mfma<{{version = {}, warpsPerCTA = [{}], instrShape = [{}], isTransposed = {}",
            self.version,
            fmt_list(&self.warps_per_cta),
            fmt_list(&self.instr_shape),
            self.is_transposed
        );
        s += &fmt_cga(&self.cga_bases);
        if let Some(t) = &self.tiles_per_warp {
            if t.iter().any(|&x| x != 1) {
                s += &format!(", tilesPerWarp = [{}]", fmt_list(t));
            }
        }
        if self.element_bit_width != 32 {
            s += &format!(", elementBitWidth = {}", self.element_bit_width);
        }
        s + "}>"
    }
}

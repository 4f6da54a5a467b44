//! `#ttg.amd_wmma`: the accumulator layout of AMD WMMA instructions (RDNA3
//! v1, RDNA4 v2, gfx1250 v3) and the layouts of their A / B operands.

use super::{
    check_attr, check_k_width_power_of_two, check_operand, check_rank, dim, fmt_bases, fmt_cga,
    fmt_list, get_bool, get_uint, get_uint_list, matrix_order, mul, order_for_dot_operand,
    read_cga, uint_matrix, with_batch_dim, with_cga,
};
use crate::cga::cga_from_bases;
use crate::error::{invalid, Result};
use crate::syntax::Attribute;
use linear_layout::utils::action_remove_broadcasted_regs;
use linear_layout::{DimName, LinearLayout};

const NAME: &str = "amd_wmma";
/// Lanes per wavefront for WMMA.
const WARP_SIZE: u64 = 32;
/// Triton's default `instrShape`.
const DEFAULT_INSTR: [u64; 3] = [16, 16, 16];

/// `#ttg.amd_wmma<{version = v, isTranspose = b, ctaLayout = {register =
/// [..], warp = [..]}[, CGALayout = [..]][, instrShape = [M, N, K]][, rank =
/// r]}>`.
///
/// One instruction's accumulator is a 16x16 tile over 32 lanes (the
/// "tile"); `ctaLayout` is a linear layout `(register, warp) -> dims` in
/// units of that tile, saying which repetitions each lane holds in its
/// registers and which tile each warp computes. The older
/// `warpsPerCTA = [..]` form is turned into the `ctaLayout` Triton's
/// `chooseWmmaCTALinearLayout` builds (row-major: warps along the last dim
/// first).
///
/// ```
/// use hw_layouts::amd::Wmma;
/// use hw_layouts::syntax::Attribute;
/// let a = Attribute::parse(
///     "#ttg.amd_wmma<{version = 2, isTranspose = false, ctaLayout = {warp = []}}>",
/// ).unwrap();
/// let l = Wmma::from_attr(&a).unwrap().to_linear_layout(&[16, 16]).unwrap();
/// // RDNA4: lane l holds column l % 16 and rows 8 * (l / 16) + r, r = 0..8.
/// assert_eq!(
///     l.bases_json().to_string(),
///     r#"{"register":[[1,0],[2,0],[4,0]],"lane":[[0,1],[0,2],[0,4],[0,8],[8,0]],"warp":[],"block":[]}"#
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wmma {
    /// 1 (RDNA3), 2 (RDNA4), 3 (gfx1250).
    pub version: u32,
    /// `isTranspose`: lanes hold consecutive N elements.
    pub is_transposed: bool,
    /// `ctaLayout.register` bases (tile units, rank components each).
    pub register_bases: Vec<Vec<u64>>,
    /// `ctaLayout.warp` bases (tile units; zero = broadcast warp).
    pub warp_bases: Vec<Vec<u64>>,
    /// `[M, N, K]` of the instruction.
    pub instr_shape: Vec<u64>,
    /// CGA `block` bases in CTA-tile units.
    pub cga_bases: Vec<Vec<u64>>,
    /// Tensor rank (2 or 3).
    pub rank: usize,
}

impl Wmma {
    /// Reads the attribute: Triton 3.9's `ctaLayout` form or the older
    /// `warpsPerCTA` (+ optional `tilesPerWarp`) form, CGA as `CGALayout`
    /// or the legacy CTA triple, `instrShape` (default `[16, 16, 16]`),
    /// `rank` (default: the bases' length, else 2).
    ///
    /// Triton's own parser is stricter: it requires `warp = [...]` in
    /// `ctaLayout` and `rank = 3` for rank 3 — although its printer omits
    /// both. We accept the printer's form too; when `rank` is given it must
    /// match the bases ("Serialized rank and rank deduced from LL need to
    /// match"). Checks Triton's verifier (version 1..=3, the instruction
    /// shapes of each version) and that `ctaLayout` is surjective, as
    /// Triton's parser does.
    pub fn from_attr(a: &Attribute) -> Result<Self> {
        check_attr(
            a,
            NAME,
            "a WMMA",
            &[
                "version",
                "isTranspose",
                "ctaLayout",
                "warpsPerCTA",
                "tilesPerWarp",
                "CGALayout",
                "CTAsPerCGA",
                "CTASplitNum",
                "CTAOrder",
                "instrShape",
                "rank",
            ],
        )?;
        let version = get_uint(a, NAME, "version")?
            .ok_or_else(|| invalid(NAME, "missing field 'version'"))?;
        let is_transposed = get_bool(a, NAME, "isTranspose")?.unwrap_or(false);
        let instr_shape =
            get_uint_list(a, NAME, "instrShape")?.unwrap_or_else(|| DEFAULT_INSTR.to_vec());
        let serialized_rank = get_uint(a, NAME, "rank")?;

        let (register_bases, warp_bases, deduced_rank) = match (
            a.get("ctaLayout"),
            a.get("warpsPerCTA"),
        ) {
            (Some(_), Some(_)) => {
                return Err(invalid(
                    NAME,
                    "give either ctaLayout or warpsPerCTA, not both",
                ))
            }
            (Some(v), None) => {
                let d = v.as_dict().ok_or_else(|| {
                    invalid(
                        NAME,
                        format!("ctaLayout must be {{register = [..], warp = [..]}}, got {v}"),
                    )
                })?;
                let mut reg = vec![];
                let mut warp = vec![];
                for (k, val) in d {
                    match k.as_str() {
                        "register" => reg = uint_matrix(val, NAME, "ctaLayout.register")?,
                        "warp" => warp = uint_matrix(val, NAME, "ctaLayout.warp")?,
                        other => {
                            return Err(invalid(
                                NAME,
                                format!("ctaLayout has an unknown input dim '{other}' (expected register, warp)"),
                            ))
                        }
                    }
                }
                let deduced = reg.first().or(warp.first()).map(Vec::len);
                (reg, warp, deduced)
            }
            (None, Some(_)) => {
                let warps = get_uint_list(a, NAME, "warpsPerCTA")?.unwrap_or_default();
                let rank = warps.len();
                let tpw = get_uint_list(a, NAME, "tilesPerWarp")?.unwrap_or_else(|| vec![1; rank]);
                let tpw = if tpw.len() != rank && tpw.iter().all(|&x| x == 1) {
                    vec![1; rank]
                } else {
                    tpw
                };
                let (reg, warp) = choose_cta_bases(&warps, &tpw)?;
                (reg, warp, Some(rank))
            }
            (None, None) => return Err(invalid(NAME, "missing field 'ctaLayout'")),
        };
        if a.get("tilesPerWarp").is_some() && a.get("ctaLayout").is_some() {
            return Err(invalid(
                NAME,
                "tilesPerWarp goes with warpsPerCTA, not with ctaLayout",
            ));
        }
        let rank = match (deduced_rank, serialized_rank) {
            (Some(r), Some(s)) if r as u64 != s => {
                return Err(invalid(
                    NAME,
                    format!("Serialized rank and rank deduced from LL need to match: rank = {s}, bases have {r} entries"),
                ))
            }
            (Some(r), _) => r,
            (None, Some(s)) => s as usize,
            (None, None) => match a.get("CGALayout").and_then(|v| v.as_int_matrix()) {
                Some(m) if !m.is_empty() => m[0].len(),
                _ => 2,
            },
        };
        let cga_bases = read_cga(a, NAME, rank)?;
        let w = Wmma {
            version: u32::try_from(version).unwrap_or(u32::MAX),
            is_transposed,
            register_bases,
            warp_bases,
            instr_shape,
            cga_bases,
            rank,
        };
        w.validate()?;
        Ok(w)
    }

    /// Triton's verifier and parser checks.
    pub fn validate(&self) -> Result<()> {
        if !(1..=3).contains(&self.version) {
            return Err(invalid(
                NAME,
                format!(
                    "WMMA version must be in the [1, 3] range, got {}",
                    self.version
                ),
            ));
        }
        let valid: &[[u64; 3]] = match self.version {
            1 => &[[16, 16, 16]],
            2 => &[[16, 16, 16], [16, 16, 32]],
            _ => &[[16, 16, 4], [16, 16, 32], [16, 16, 64], [16, 16, 128]],
        };
        if !valid.iter().any(|v| v[..] == self.instr_shape[..]) {
            return Err(invalid(
                NAME,
                format!(
                    "invalid WMMA v{} instruction shape {:?} (valid: {:?})",
                    self.version, self.instr_shape, valid
                ),
            ));
        }
        if self.rank != 2 && self.rank != 3 {
            return Err(invalid(
                NAME,
                format!("rank must be 2 or 3, got {}", self.rank),
            ));
        }
        for (what, bases) in [
            ("register", &self.register_bases),
            ("warp", &self.warp_bases),
        ] {
            for b in bases {
                if b.len() != self.rank {
                    return Err(invalid(
                        NAME,
                        format!(
                            "ctaLayout.{what} basis {b:?} must have {} entries",
                            self.rank
                        ),
                    ));
                }
            }
        }
        self.cta_layout()?;
        cga_from_bases(&self.cga_bases, self.rank)?;
        Ok(())
    }

    /// `ctaLayout` as a linear layout `(register, warp) -> (dim0, ..)`, out
    /// sizes inferred (smallest power of two above each largest component);
    /// must be surjective (Triton's parser requires it).
    pub fn cta_layout(&self) -> Result<LinearLayout> {
        LinearLayout::with_inferred_out_sizes(
            vec![
                (DimName::REGISTER, self.register_bases.clone()),
                (DimName::WARP, self.warp_bases.clone()),
            ],
            DimName::standard_out_dims(self.rank),
        )
        .map_err(|e| {
            invalid(
                NAME,
                format!("ctaLayout is not a valid surjective layout: {e}"),
            )
        })
    }

    /// Warps per CTA: `2^len(warp bases)`.
    pub fn num_warps(&self) -> u64 {
        1u64 << self.warp_bases.len()
    }

    /// Triton's `getTileLayout`: one instruction's 16x16 (32x16) accumulator
    /// over 32 lanes, written in (a, b) = (dims[order[0]], dims[order[1]])
    /// with `order = getMatrixOrder(rank, rowMajor = !isTranspose)`:
    ///
    /// * v1: `register` (0,2), (0,4), (0,8); `lane` (1,0), (2,0), (4,0),
    ///   (8,0), (0,1) (lane bit 4 moves one b-row, registers skip rows);
    /// * v2/v3: `register` (0,1), (0,2), (0,4) (plus (0,16) for 32x16);
    ///   `lane` (1,0)..(8,0), (0,8).
    ///
    /// Out dims in standard order.
    fn tile_layout(&self) -> Result<LinearLayout> {
        let rank = self.rank;
        let order = matrix_order(rank, !self.is_transposed);
        let (da, db) = (dim(order[0]), dim(order[1]));
        let p = |v: &[[u64; 2]]| v.iter().map(|x| x.to_vec()).collect::<Vec<_>>();
        let lanes_v1 = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1]];
        let lanes_v2 = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8]];
        let (regs, lanes) = if self.version == 1 {
            (p(&[[0, 2], [0, 4], [0, 8]]), p(&lanes_v1))
        } else if self.instr_shape[0] == 32 && self.instr_shape[1] == 16 {
            (p(&[[0, 1], [0, 2], [0, 4], [0, 16]]), p(&lanes_v2))
        } else {
            (p(&[[0, 1], [0, 2], [0, 4]]), p(&lanes_v2))
        };
        let mut tile = LinearLayout::with_inferred_out_sizes(
            vec![(DimName::REGISTER, regs), (DimName::LANE, lanes)],
            vec![da, db],
        )?;
        if rank == 3 {
            tile = with_batch_dim(&tile, dim(0))?;
        }
        Ok(tile.transpose_outs(&DimName::standard_out_dims(rank))?)
    }

    /// The accumulator layout for a tensor of `shape` (Triton's
    /// `AMDWmmaEncodingAttr::toLinearLayout`): `tile * ctaLayout` (the
    /// ctaLayout's bases scaled by the tile size), out dims in row-major
    /// repetition order (last dim first), then `combineCtaCgaWithShape`.
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        self.validate()?;
        check_rank(NAME, shape, self.rank)?;
        let l = mul(&self.tile_layout()?, &self.cta_layout()?)?;
        let rep: Vec<DimName> = matrix_order(self.rank, true).into_iter().map(dim).collect();
        let l = l.transpose_outs(&rep)?;
        with_cga(&l, &self.cga_bases, self.rank, shape)
    }

    /// The layout of operand A (`op_idx = 0`) or B (`op_idx = 1`) (Triton's
    /// `wmmaDotOperandToLinearLayout`), in (K, non-K) terms:
    ///
    /// * `register` `k_width` along K, `lane` 16 along non-K, then `lane`
    ///   bit 4: the next `k_width` K elements (v2/v3) or the same ones
    ///   (v1: zero basis, the two half-waves duplicate);
    /// * `register` repetitions up to the instruction's K
    ///   (`K / (2·k_width)`), and non-K repetitions for 32-row instructions;
    /// * times `ctaLayout` with its K components zeroed and its then-zero
    ///   register bases dropped (warps along K broadcast);
    /// * out dims ordered K, non-K, batch, then `combineCtaCgaWithShape` with
    ///   the parent's CGA bases, K components zeroed (the operand's CGA).
    ///
    /// `k_width` must satisfy Triton's dot-operand verifier: 8/16 for v1,
    /// 4/8/16 for v2, non-zero for v3 (and a power of two).
    pub fn dot_operand_layout(
        &self,
        op_idx: u32,
        k_width: u32,
        shape: &[u64],
    ) -> Result<LinearLayout> {
        self.validate()?;
        let rank = self.rank;
        check_operand(NAME, shape, rank, op_idx)?;
        let ok = match self.version {
            1 => [8, 16].contains(&k_width),
            2 => [4, 8, 16].contains(&k_width),
            _ => k_width != 0,
        };
        if !ok {
            let want = match self.version {
                1 => "8/16",
                2 => "4/8/16",
                _ => "non-zero",
            };
            return Err(invalid(
                "dot_op",
                format!(
                    "ttg.dot_op kWidth parameter must be {want} for WMMA v{}, got {k_width}",
                    self.version
                ),
            ));
        }
        check_k_width_power_of_two(k_width)?;
        let (reg, lane) = (DimName::REGISTER, DimName::LANE);
        let order = order_for_dot_operand(op_idx, rank, true);
        let (dk, dnk) = (dim(order[0]), dim(order[1]));
        let k_dim = self.instr_shape[2];
        let non_k_dim = if op_idx == 0 {
            self.instr_shape[0]
        } else {
            self.instr_shape[1]
        };
        let kw = u64::from(k_width);
        let tile_dim = 16u64;
        let non_k_repeat = non_k_dim / tile_dim;
        let k_depth = WARP_SIZE / tile_dim;
        let id = LinearLayout::try_identity_1d;

        let mut tile = mul(&id(kw, reg, dk)?, &id(tile_dim, lane, dnk)?)?;
        let depth = if self.version == 1 {
            LinearLayout::try_zeros_1d(k_depth, lane, dk, 1)?
        } else {
            id(k_depth, lane, dk)?
        };
        tile = mul(&tile, &depth)?;
        tile = mul(&tile, &id(k_dim / (k_depth * kw), reg, dk)?)?;
        if non_k_repeat > 1 {
            tile = mul(&tile, &id(non_k_repeat, reg, dnk)?)?;
        }

        // ctaLayout with the K components projected away, out sizes
        // re-inferred, then the all-zero register bases removed.
        let k_pos = order[0];
        let zero_k = |bs: &[Vec<u64>]| -> Vec<Vec<u64>> {
            bs.iter()
                .map(|b| {
                    let mut b = b.clone();
                    b[k_pos] = 0;
                    b
                })
                .collect()
        };
        let cta = LinearLayout::with_inferred_out_sizes(
            vec![
                (reg, zero_k(&self.register_bases)),
                (DimName::WARP, zero_k(&self.warp_bases)),
            ],
            DimName::standard_out_dims(rank),
        )?;
        let cta = action_remove_broadcasted_regs(&cta).apply(&cta)?;
        let l = mul(&tile, &cta)?;
        let rep: Vec<DimName> = order.iter().map(|&d| dim(d)).collect();
        let l = l.transpose_outs(&rep)?;
        // The operand's CGA layout (Triton's DotOperandEncodingAttr::
        // getCGALayout): the parent's with the K component of every block
        // basis zeroed, i.e. CTAs split along K hold the same data.
        with_cga(&l, &zero_k(&self.cga_bases), rank, shape)
    }

    fn mlir(&self, parseable: bool) -> String {
        let mut cta = vec![];
        if !self.register_bases.is_empty() {
            cta.push(format!("register = {}", fmt_bases(&self.register_bases)));
        }
        if !self.warp_bases.is_empty() || parseable {
            cta.push(format!("warp = {}", fmt_bases(&self.warp_bases)));
        }
        let mut s = format!(
            "#ttg.amd_wmma<{{version = {}, isTranspose = {}, ctaLayout = {{{}}}",
            self.version,
            self.is_transposed,
            cta.join(", ")
        );
        s += &fmt_cga(&self.cga_bases);
        if self.instr_shape[..] != DEFAULT_INSTR[..] {
            s += &format!(", instrShape = [{}]", fmt_list(&self.instr_shape));
        }
        if parseable && self.rank != 2 {
            s += &format!(", rank = {}", self.rank);
        }
        s + "}>"
    }

    /// Text that Triton 3.9's parser reads back to this layout: Triton's
    /// printed form plus what its parser needs and its printer omits
    /// (`warp = []` for one warp, `rank = 3` for rank 3) — the oracle's
    /// `mlir` field.
    pub fn to_mlir(&self) -> String {
        self.mlir(true)
    }

    /// Triton 3.9's printer output exactly (empty `ctaLayout` entries and
    /// `rank` omitted; not always parseable by Triton) — the oracle's
    /// `mlir_printed` field where it differs from `mlir`.
    pub fn to_mlir_triton_printed(&self) -> String {
        self.mlir(false)
    }
}

/// A list of bases, one `Vec` of rank components each.
type Bases = Vec<Vec<u64>>;

/// Triton's `chooseWmmaCTALinearLayout(rank, warpsPerCTA, tilesPerWarp)`:
/// for each dim in row-major order (last dim first), `tilesPerWarp[d]`
/// register repetitions then `warpsPerCTA[d]` warps along it. Returns the
/// (register, warp) bases in standard dim order.
fn choose_cta_bases(warps: &[u64], tiles: &[u64]) -> Result<(Bases, Bases)> {
    let rank = warps.len();
    if tiles.len() != rank {
        return Err(invalid(
            NAME,
            format!("tilesPerWarp {tiles:?} must have as many entries as warpsPerCTA {warps:?}"),
        ));
    }
    let mut l = LinearLayout::empty();
    for d in matrix_order(rank, true) {
        for (size, in_dim, what) in [
            (tiles[d], DimName::REGISTER, "tilesPerWarp"),
            (warps[d], DimName::WARP, "warpsPerCTA"),
        ] {
            if size == 0 || !size.is_power_of_two() {
                return Err(invalid(
                    NAME,
                    format!("{what} entries must be powers of two, got {size}"),
                ));
            }
            l = mul(&l, &LinearLayout::try_identity_1d(size, in_dim, dim(d))?)?;
        }
    }
    let l = l.transpose_outs(&DimName::standard_out_dims(rank))?;
    let get = |d: DimName| if l.has_in_dim(d) { l.bases(d) } else { vec![] };
    Ok((get(DimName::REGISTER), get(DimName::WARP)))
}

//! `#ttg.dot_op<{opIdx, parent, kWidth}>`: the A (`opIdx = 0`, `M × K`) or
//! B (`opIdx = 1`, `K × N`) operand of a dot, in registers, as a linear
//! layout. K is the last dim for A and the second-to-last for B.
//!
//! * NVIDIA MMA parent (Triton's `nvidiaDotToLinearLayout`): the fragment
//!   tile is `[instrM, kWidth·8]` for A and `[kWidth·8, 8]` for B (`kWidth·4`
//!   instead of `kWidth·8` for the fp64 `m8n8k4` tile, `instrM = 8`), laid out
//!   by `nvidia_mma_tile` with K as the fast dim; warps follow the parent's
//!   warps (row-major for Ampere, column-major for Hopper) with the warps
//!   along K **broadcast** (zero bases): they share the operand. Hopper only
//!   takes A from registers.
//! * Blocked parent (FMA dot, `fmaDotToLinearLayout`): every thread holds the
//!   whole K extent: registers are `sizePerThread` with K replaced by
//!   `shape[K]`; lanes and warps are the parent's with K broadcast.
//! * AMD MFMA / WMMA parents: delegated to `crate::amd`.
//!
//! The CGA layout is the parent's with the K component of every block basis
//! set to 0 (CTAs along K hold the same operand).

use crate::blocked::{
    broadcasted_dot_operand_layout, check_fields, check_rank, dims_in_order, identity_nd,
    order_for_dot_operand, transpose_like, uint_field, Cga,
};
use crate::cga::combine_cta_cga_with_shape;
use crate::encoding::Encoding;
use crate::error::{invalid, Result};
use crate::nvidia_mma::{nvidia_mma_tile, NvidiaMma};
use crate::syntax::Attribute;
use crate::{blocked::Blocked, slice::distributed_rank, slice::read_parent};
use linear_layout::{DimName, LinearLayout};

const L: &str = "dot_op";

/// `#ttg.dot_op<{opIdx, parent[, kWidth]}>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DotOperand {
    /// 0 = A (`M × K`), 1 = B (`K × N`).
    pub op_idx: u32,
    /// The dot's accumulator layout: `nvidia_mma`, `blocked`, `amd_mfma` or
    /// `amd_wmma`.
    pub parent: Box<Encoding>,
    /// Consecutive K elements per thread per instruction (0 = absent, as
    /// for blocked parents).
    pub k_width: u32,
}

impl DotOperand {
    /// Reads the attribute: `opIdx` 0/1; kWidth a power of two for MMA
    /// parents, absent (or 0) for blocked parents; Hopper only for A.
    pub fn from_attr(a: &Attribute) -> Result<Self> {
        check_fields(a, &["opIdx", "parent", "kWidth"], L)?;
        let op_idx = uint_field(a, "opIdx", L)?;
        if op_idx > 1 {
            return Err(invalid(L, format!("opIdx must be 0 or 1, got {op_idx}")));
        }
        let k_width = match a.get("kWidth") {
            Some(_) => uint_field(a, "kWidth", L)?,
            None => 0,
        };
        if k_width > 1 << 20 {
            return Err(invalid(L, format!("kWidth = {k_width} is out of range")));
        }
        let (pa, parent) = read_parent(a, L)?;
        match &parent {
            Encoding::NvidiaMma(m) => {
                if k_width == 0 || !k_width.is_power_of_two() {
                    return Err(invalid(
                        L,
                        format!("kWidth must be a power of two ≥ 1 for an nvidia_mma parent, got {k_width}"),
                    ));
                }
                if m.is_hopper() && op_idx != 0 {
                    return Err(invalid(
                        L,
                        "ttg.dot_op opIdx parameter must be 0 for Hopper MMA parent, since Hopper WGMMA only allows first operand to be in registers",
                    ));
                }
            }
            Encoding::Blocked(_) => {
                if k_width != 0 {
                    return Err(invalid(
                        L,
                        format!("kWidth must be absent (0) for a blocked parent, got {k_width}"),
                    ));
                }
            }
            Encoding::AmdMfma(_) | Encoding::AmdWmma(_) => {
                if k_width == 0 {
                    return Err(invalid(L, "kWidth is required for an AMD MMA parent"));
                }
            }
            _ => {
                return Err(invalid(
                    L,
                    format!(
                        "parent {} must be nvidia_mma, blocked, amd_mfma or amd_wmma",
                        pa.full_name()
                    ),
                ))
            }
        }
        if let Some(r) = distributed_rank(&parent) {
            if r != 2 && r != 3 {
                return Err(invalid(
                    L,
                    format!("the parent has rank {r}, a dot operand needs rank 2 or 3"),
                ));
            }
        }
        Ok(DotOperand {
            op_idx: op_idx as u32,
            parent: Box::new(parent),
            k_width: k_width as u32,
        })
    }

    /// The K dim of this operand for `rank`.
    pub fn k_dim(&self, rank: usize) -> usize {
        if self.op_idx == 0 {
            rank - 1
        } else {
            rank - 2
        }
    }

    /// The linear layout for a tensor of `shape`.
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        match &*self.parent {
            Encoding::NvidiaMma(m) => self.nvidia(m, shape),
            Encoding::Blocked(b) => self.fma(b, shape),
            Encoding::AmdMfma(m) => m.dot_operand_layout(self.op_idx, self.k_width, shape),
            Encoding::AmdWmma(w) => w.dot_operand_layout(self.op_idx, self.k_width, shape),
            other => Err(invalid(
                L,
                format!("unsupported parent {}", other.to_mlir()),
            )),
        }
    }

    /// The parent's CGA layout with the K component of each basis zeroed.
    fn cga(&self, parent: &Cga, rank: usize) -> Result<LinearLayout> {
        let k = self.k_dim(rank);
        let bases = parent
            .bases
            .iter()
            .map(|b| {
                let mut b = b.clone();
                b[k] = 0;
                b
            })
            .collect();
        Cga { bases }.layout(rank)
    }

    fn nvidia(&self, mma: &NvidiaMma, shape: &[u64]) -> Result<LinearLayout> {
        let rank = mma.rank();
        check_rank(shape, rank, L)?;
        let kw = self.k_width as u64;
        let instr_m = mma.instr_shape[rank - 2];
        let k_mult = if instr_m == 8 { 4 } else { 8 };
        let mut tile = vec![1u64; rank];
        if self.op_idx == 0 {
            tile[rank - 2] = instr_m;
            tile[rank - 1] = kw * k_mult;
        } else {
            tile[rank - 2] = kw * k_mult;
            tile[rank - 1] = 8;
        }
        let order = order_for_dot_operand(self.op_idx, rank, true);
        let cta = nvidia_mma_tile(&tile, kw, &order, &order)?;
        let warps = broadcasted_dot_operand_layout(
            &mma.warps_per_cta,
            &mma.warp_order(),
            self.k_dim(rank),
            DimName::WARP,
        )?;
        let cta = cta.try_mul(&transpose_like(&warps, &cta)?)?;
        combine_cta_cga_with_shape(&cta, &self.cga(&mma.cga, rank)?, shape)
    }

    fn fma(&self, b: &Blocked, shape: &[u64]) -> Result<LinearLayout> {
        let rank = b.rank();
        check_rank(shape, rank, L)?;
        let k = self.k_dim(rank);
        let mut thread_size = b.size_per_thread.clone();
        thread_size[k] = shape[k];
        let rep = dims_in_order(&b.order);
        let regs = identity_nd(DimName::REGISTER, &thread_size, &b.order)?;
        let lanes =
            broadcasted_dot_operand_layout(&b.threads_per_warp, &b.order, k, DimName::LANE)?;
        let warps = broadcasted_dot_operand_layout(&b.warps_per_cta, &b.order, k, DimName::WARP)?;
        let cta = regs
            .transpose_outs(&rep)?
            .try_mul(&lanes.transpose_outs(&rep)?)?
            .try_mul(&warps.transpose_outs(&rep)?)?;
        combine_cta_cga_with_shape(&cta, &self.cga(&b.cga, rank)?, shape)
    }

    /// Triton's printed form (`kWidth` omitted when 0).
    pub fn to_mlir(&self) -> String {
        let kw = if self.k_width == 0 {
            String::new()
        } else {
            format!(", kWidth = {}", self.k_width)
        };
        format!(
            "#ttg.dot_op<{{opIdx = {}, parent = {}{kw}}}>",
            self.op_idx,
            self.parent.to_mlir()
        )
    }
}

//! `#ttg.padded_shared` and `#ttg.partitioned_shared`.

use super::common::*;
use crate::encoding::Encoding;
use crate::error::{invalid, HwError, Result};
use crate::shape::check_shape;
use crate::syntax::{Attribute, Value};
use linear_layout::utils::identity_standard_nd;
use linear_layout::{DimName, LinearLayout};

const PADDED: &str = "padded_shared";

/// `#ttg.padded_shared<[interval:+pad, ...] {offset = [[..]], block =
/// [[..]]}>`, or the identity shorthand `{order = [..], shape = [..]}`.
///
/// Two steps. The **linear component** `offset, block → dim0..` (bases as
/// given, block bases in tensor elements; the shorthand is
/// `identityStandardND(offset, shape, order)`) says which tensor element
/// sits at logical offset `o` of an unpadded buffer. The **padding** then
/// moves logical offset `o` to physical offset
/// `o + Σ_pairs (o >> log2 interval) << log2 pad` ([`Self::padded_offset`]):
/// after every `interval` elements, `pad` unused elements are inserted, and
/// the paddings of several pairs add up. The padding is not GF(2)-linear, so
/// [`Self::to_linear_layout`] returns the linear component only.
///
/// Triton's checks: at least one pair; intervals and paddings powers of two
/// (≥ 1), intervals distinct; every offset basis non-zero and moving along
/// at most one dim; no two offsets holding the same element; the component
/// surjective onto its inferred shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaddedShared {
    /// `(interval, padding)` pairs, in elements, as written.
    pub intervals: Vec<(u64, u64)>,
    /// Offset bases, low bit first.
    pub offset: Vec<Vec<u64>>,
    /// Block bases, in tensor elements.
    pub block: Vec<Vec<u64>>,
    layout: LinearLayout,
}

impl PaddedShared {
    /// Builds and validates a padded layout from its pairs and bases.
    pub fn new(
        intervals: Vec<(u64, u64)>,
        offset: Vec<Vec<u64>>,
        block: Vec<Vec<u64>>,
    ) -> Result<Self> {
        Self::build(intervals, offset, block, None)
    }

    /// [`Self::new`] with the rank given (needed when there are no bases:
    /// a one-element tensor).
    fn build(
        intervals: Vec<(u64, u64)>,
        offset: Vec<Vec<u64>>,
        block: Vec<Vec<u64>>,
        rank: Option<usize>,
    ) -> Result<Self> {
        if intervals.is_empty() {
            return Err(invalid(PADDED, "needs at least one interval:+padding pair"));
        }
        for &(i, p) in &intervals {
            if i == 0 || !i.is_power_of_two() {
                return Err(invalid(
                    PADDED,
                    format!("interval {i} is not a power of two"),
                ));
            }
            if p == 0 || !p.is_power_of_two() {
                return Err(invalid(
                    PADDED,
                    format!("padding {p} (of interval {i}) is not a power of two"),
                ));
            }
        }
        for (k, &(i, _)) in intervals.iter().enumerate() {
            if intervals[..k].iter().any(|&(j, _)| j == i) {
                return Err(invalid(PADDED, format!("interval {i} appears twice")));
            }
        }
        let Some(rank) = offset.first().or(block.first()).map(|b| b.len()).or(rank) else {
            return Err(invalid(
                PADDED,
                "no offset or block bases: cannot tell the rank",
            ));
        };
        if rank == 0 {
            return Err(invalid(PADDED, "bases of rank 0"));
        }
        if let Some(b) = offset.iter().chain(block.iter()).find(|b| b.len() != rank) {
            return Err(invalid(
                PADDED,
                format!(
                    "basis {b:?} has {} components, expected rank {rank}",
                    b.len()
                ),
            ));
        }
        for b in &offset {
            if b.iter().any(|&c| c != 0 && !c.is_power_of_two()) {
                return Err(invalid(
                    PADDED,
                    format!("Each offset basis must be 0 or a power of two, got {b:?}"),
                ));
            }
            if b.iter().filter(|&&c| c != 0).count() > 1 {
                return Err(invalid(
                    PADDED,
                    format!("Each offset basis must move in at most one dimension, got {b:?}"),
                ));
            }
        }
        let bases = vec![
            (DimName::OFFSET, offset.clone()),
            (DimName::BLOCK, block.clone()),
        ];
        let sizes = inferred_sizes(&bases, rank);
        let layout = LinearLayout::new(bases, shape_pairs(&sizes), false)?;
        if !layout.is_surjective() {
            return Err(invalid(
                PADDED,
                format!(
                    "Layout is expected to be surjective onto {sizes:?}: offset = {}, block = {}",
                    fmt_matrix(&offset),
                    fmt_matrix(&block)
                ),
            ));
        }
        let off_only = layout.sublayout(&[DimName::OFFSET], &DimName::standard_out_dims(rank))?;
        if !off_only.is_injective() {
            return Err(invalid(
                PADDED,
                format!(
                    "Broadcasting in offset dimension is not supported: offset = {}",
                    fmt_matrix(&offset)
                ),
            ));
        }
        Ok(PaddedShared {
            intervals,
            offset,
            block,
            layout,
        })
    }

    /// The identity shorthand: offset bits walk `shape` in `order` (fastest
    /// first), one CTA.
    pub fn with_identity_for(
        intervals: Vec<(u64, u64)>,
        shape: &[u64],
        order: &[usize],
    ) -> Result<Self> {
        check_shape(shape)?;
        if order.len() != shape.len() {
            return Err(invalid(
                PADDED,
                format!("order {order:?} does not have the rank of shape {shape:?}"),
            ));
        }
        check_perm(order, PADDED, "order")?;
        let l = identity_standard_nd(DimName::OFFSET, shape, order)?
            .transpose_outs(&DimName::standard_out_dims(shape.len()))?;
        Self::build(
            intervals,
            l.bases(DimName::OFFSET),
            vec![],
            Some(shape.len()),
        )
    }

    /// Reads `#ttg.padded_shared<[..] {..}>`.
    pub fn from_attr(a: &Attribute) -> Result<Self> {
        if (a.dialect.as_str(), a.name.as_str()) != ("ttg", "padded_shared") {
            return Err(HwError::UnknownAttribute(a.full_name()));
        }
        check_fields(a, PADDED, &["offset", "block", "order", "shape"])?;
        let pairs = a
            .padding
            .as_ref()
            .ok_or_else(|| invalid(PADDED, "missing the [interval:+padding, ...] list"))?;
        let mut intervals = Vec::new();
        for &(i, p) in pairs {
            if i <= 0 || p <= 0 {
                return Err(invalid(
                    PADDED,
                    format!("interval {i} / padding {p} must be positive"),
                ));
            }
            intervals.push((i as u64, p as u64));
        }
        if let Some(order) = a.get("order") {
            if a.get("offset").is_some() || a.get("block").is_some() {
                return Err(invalid(
                    PADDED,
                    "give either {order, shape} or {offset, block}, not both",
                ));
            }
            let order: Vec<usize> = u64_list(order, PADDED, "order")?
                .into_iter()
                .map(|x| x as usize)
                .collect();
            let shape = u64_list(
                a.get("shape")
                    .ok_or_else(|| invalid(PADDED, "'order' needs 'shape'"))?,
                PADDED,
                "shape",
            )?;
            return Self::with_identity_for(intervals, &shape, &order);
        }
        let get = |k: &str| -> Result<Vec<Vec<u64>>> {
            match a.get(k) {
                Some(v) => u64_matrix(v, PADDED, k),
                None => Ok(vec![]),
            }
        };
        if a.get("offset").is_none() {
            return Err(invalid(
                PADDED,
                "missing field 'offset' (or 'order' and 'shape')",
            ));
        }
        Self::new(intervals, get("offset")?, get("block")?)
    }

    /// The rank.
    pub fn rank(&self) -> usize {
        self.layout.num_out_dims()
    }

    /// The physical element offset of logical offset `o`:
    /// `o + Σ_pairs (o >> log2 interval) << log2 padding` (saturating at
    /// `u64::MAX`, far beyond any allocation).
    ///
    /// ```
    /// use hw_layouts::Encoding;
    /// let Encoding::PaddedShared(p) =
    ///     Encoding::parse("#ttg.padded_shared<[4:+1, 8:+2] {order = [1, 0], shape = [4, 4]}>").unwrap()
    /// else { unreachable!() };
    /// // 9 = 0b1001: two full 4-element intervals (+2) and one 8-element interval (+2).
    /// assert_eq!(p.padded_offset(9), 9 + 2 + 2);
    /// ```
    pub fn padded_offset(&self, offset: u64) -> u64 {
        self.intervals.iter().fold(offset, |acc, &(i, p)| {
            acc.saturating_add((offset >> i.trailing_zeros()) << p.trailing_zeros())
        })
    }

    /// What Triton 3.9's Python binding reports for this layout (the
    /// oracle's `linear`): the offset bases as given and the block bases as
    /// Gluon reads them back, in CTA-tile units (element basis `b` becomes
    /// `b[d] / extent[d]`, the extent being the offset part's out size).
    /// Triton's README says element units; its data says tile units.
    pub fn to_triton_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        let full = self.to_linear_layout(shape)?;
        let rank = self.rank();
        let mut ext = vec![1u64; rank];
        for b in &self.offset {
            for (d, &c) in b.iter().enumerate() {
                if c != 0 {
                    ext[d] = ext[d].max((c + 1).next_power_of_two());
                }
            }
        }
        let block: Vec<Vec<u64>> = self
            .block
            .iter()
            .map(|b| b.iter().zip(&ext).map(|(&c, &e)| c / e).collect())
            .collect();
        Ok(LinearLayout::new(
            vec![
                (DimName::OFFSET, self.offset.clone()),
                (DimName::BLOCK, block),
            ],
            full.out_dims(),
            false,
        )?)
    }

    /// The linear component (`offset, block → dim0..`); `shape` must equal
    /// its out sizes.
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        stored_layout(&self.layout, shape)
    }

    /// The order of the identity shorthand, if the component is one: dims
    /// in the order their bits appear, then size-1 dims from the highest
    /// index down (Triton's printer).
    fn identity_order(&self) -> Option<(Vec<usize>, Vec<u64>)> {
        if !self.block.is_empty() {
            return None;
        }
        let rank = self.rank();
        let shape: Vec<u64> = (0..rank)
            .map(|d| self.layout.out_dim_size(DimName::dim(d)))
            .collect();
        let mut order: Vec<usize> = Vec::new();
        for b in &self.offset {
            let d = b.iter().position(|&c| c != 0)?;
            if !order.contains(&d) {
                order.push(d);
            }
        }
        for d in (0..rank).rev() {
            if !order.contains(&d) {
                order.push(d);
            }
        }
        let id = identity_standard_nd(DimName::OFFSET, &shape, &order)
            .ok()?
            .transpose_outs(&DimName::standard_out_dims(rank))
            .ok()?;
        (id.bases(DimName::OFFSET) == self.offset).then_some((order, shape))
    }

    /// Triton's printed form (the `{order, shape}` shorthand when the
    /// component is an identity with one CTA).
    pub fn to_mlir(&self) -> String {
        let pairs: Vec<String> = self
            .intervals
            .iter()
            .map(|(i, p)| format!("{i}:+{p}"))
            .collect();
        let body = match self.identity_order() {
            Some((order, shape)) => {
                format!("order = {}, shape = {}", fmt_list(&order), fmt_list(&shape))
            }
            None => format!(
                "offset = {}, block = {}",
                fmt_matrix(&self.offset),
                fmt_matrix(&self.block)
            ),
        };
        format!("#ttg.padded_shared<[{}] {{{body}}}>", pairs.join(", "))
    }
}

const PARTITIONED: &str = "partitioned_shared";

/// `#ttg.partitioned_shared<{numPartitions = P, numGroups = G, partitionDim
/// = d, partitionLayout = #inner}>`: the tensor is cut along dim `d` into
/// `P·G` equal pieces laid out by `#inner` (on the piece shape); consecutive
/// pieces go to the `P` partitions (separate allocations), then the `G`
/// groups follow inside each partition:
/// `inner(piece shape) × identity1D(P, partition, d) × identity1D(G, offset, d)`
/// (in dims `offset, block, partition`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionedShared {
    /// Number of partitions (power of two ≥ 2).
    pub num_partitions: u64,
    /// Number of groups per partition (power of two ≥ 1).
    pub num_groups: u64,
    /// The partitioned dim.
    pub partition_dim: usize,
    /// The layout of one piece (a shared layout).
    pub partition_layout: Box<Encoding>,
}

impl PartitionedShared {
    /// Reads `#ttg.partitioned_shared<{...}>`.
    pub fn from_attr(a: &Attribute) -> Result<Self> {
        if (a.dialect.as_str(), a.name.as_str()) != ("ttg", "partitioned_shared") {
            return Err(HwError::UnknownAttribute(a.full_name()));
        }
        check_fields(
            a,
            PARTITIONED,
            &[
                "numPartitions",
                "numGroups",
                "partitionDim",
                "partitionLayout",
            ],
        )?;
        let np = req_u64(a, PARTITIONED, "numPartitions")?;
        let ng = req_u64(a, PARTITIONED, "numGroups")?;
        let pd = req_u64(a, PARTITIONED, "partitionDim")? as usize;
        let inner = match a.get("partitionLayout") {
            Some(Value::Attr(inner)) => Encoding::from_attr(inner)?,
            Some(v) => {
                return Err(invalid(
                    PARTITIONED,
                    format!("partitionLayout must be an attribute, got {v}"),
                ))
            }
            None => return Err(invalid(PARTITIONED, "missing field 'partitionLayout'")),
        };
        Self::new(np, ng, pd, inner)
    }

    /// Builds and validates the layout.
    pub fn new(
        num_partitions: u64,
        num_groups: u64,
        partition_dim: usize,
        inner: Encoding,
    ) -> Result<Self> {
        if num_partitions < 2 || !num_partitions.is_power_of_two() {
            return Err(invalid(
                PARTITIONED,
                format!("numPartitions must be a power of 2 and at least 2, got {num_partitions}"),
            ));
        }
        if num_groups == 0 || !num_groups.is_power_of_two() {
            return Err(invalid(
                PARTITIONED,
                format!("numGroups must be a power of 2, got {num_groups}"),
            ));
        }
        let rank = match &inner {
            Encoding::SwizzledShared(s) => s.order.len(),
            Encoding::NvmmaShared(s) => s.rank,
            Encoding::SharedLinear(s) => s.rank(),
            Encoding::PaddedShared(s) => s.rank(),
            other => {
                return Err(invalid(
                    PARTITIONED,
                    format!(
                        "partitionLayout must be a swizzled, NVMMA, linear or padded shared layout, got {}",
                        other.to_mlir()
                    ),
                ))
            }
        };
        if partition_dim >= rank {
            return Err(invalid(
                PARTITIONED,
                format!(
                    "partitionDim ({partition_dim}) must be less than the layout rank ({rank})"
                ),
            ));
        }
        Ok(PartitionedShared {
            num_partitions,
            num_groups,
            partition_dim,
            partition_layout: Box::new(inner),
        })
    }

    /// The shape of one piece.
    fn piece_shape(&self, shape: &[u64]) -> Result<Vec<u64>> {
        check_shape(shape)?;
        let d = self.partition_dim;
        let n = self
            .num_partitions
            .checked_mul(self.num_groups)
            .ok_or_else(|| invalid(PARTITIONED, "numPartitions × numGroups overflows"))?;
        if d >= shape.len() || !shape[d].is_multiple_of(n) {
            return Err(HwError::InvalidShape {
                shape: shape.to_vec(),
                message: format!("dim {d} must be a multiple of numPartitions × numGroups = {n}"),
            });
        }
        let mut s = shape.to_vec();
        s[d] /= n;
        Ok(s)
    }

    /// The full layout `offset, block, partition → dim0..` (see the type's
    /// doc). Padded inner layouts are refused, as in Triton ("toLinearLayout
    /// does not support partitioned layouts wrapping padded layouts").
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        if matches!(*self.partition_layout, Encoding::PaddedShared(_)) {
            return Err(invalid(
                PARTITIONED,
                "toLinearLayout does not support partitioned layouts wrapping padded layouts",
            ));
        }
        let piece = self.piece_shape(shape)?;
        let inner = self.partition_layout.to_linear_layout(&piece)?;
        let d = DimName::dim(self.partition_dim);
        let l = inner
            .try_mul(&LinearLayout::try_identity_1d(
                self.num_partitions,
                DimName::PARTITION,
                d,
            )?)?
            .try_mul(&LinearLayout::try_identity_1d(
                self.num_groups,
                DimName::OFFSET,
                d,
            )?)?;
        Ok(l)
    }

    /// What Triton 3.9's `to_linear_layout` binding reports: the full layout
    /// without its `partition` input dim (`offset, block` only), out sizes
    /// the smallest powers of two covering the remaining bases.
    pub fn to_triton_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        let full = self.to_linear_layout(shape)?;
        let rank = shape.len();
        let bases: Vec<(DimName, Vec<Vec<u64>>)> = vec![
            (DimName::OFFSET, full.bases(DimName::OFFSET)),
            (
                DimName::BLOCK,
                if full.has_in_dim(DimName::BLOCK) {
                    full.bases(DimName::BLOCK)
                } else {
                    vec![]
                },
            ),
        ];
        let sizes = inferred_sizes(&bases, rank);
        Ok(LinearLayout::new(bases, shape_pairs(&sizes), false)?)
    }

    /// Base alignment in bytes as Triton 3.9 reports it for partitioned
    /// layouts: 16, whatever the piece layout (checked against Triton with
    /// swizzled, NVMMA and shared_linear pieces).
    pub fn alignment(&self) -> u64 {
        16
    }

    /// Triton's printed form.
    pub fn to_mlir(&self) -> String {
        format!(
            "#ttg.partitioned_shared<{{numPartitions = {}, numGroups = {}, partitionDim = {}, partitionLayout = {}}}>",
            self.num_partitions,
            self.num_groups,
            self.partition_dim,
            self.partition_layout.to_mlir()
        )
    }
}

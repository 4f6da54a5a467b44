//! `#ttg.slice<{dim = d, parent = #P}>` as a linear layout.
//!
//! The tensor is the parent's with dim `d` reduced away. For a slice shape
//! `s`, take the parent's layout `P` for the shape `s` with a 1 inserted at
//! `d`, drop out dim `d` (renumbering the dims above it), then remove the
//! `register` bases that became zero (they only repeated along `d`). Lanes,
//! warps and blocks that moved along `d` keep their (now zero) bases: they
//! broadcast. Slices nest: the parent may itself be a slice.

use crate::blocked::{check_fields, uint_field};
use crate::encoding::{Encoding, Space};
use crate::error::{invalid, HwError, Result};
use crate::syntax::Attribute;
use linear_layout::utils::remove_standard_dim;
use linear_layout::{DimName, LinearLayout};

const L: &str = "slice";

/// `#ttg.slice<{dim, parent}>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slice {
    /// The parent dim that is removed.
    pub dim: usize,
    /// Any distributed layout (blocked, MMA, dot operand, linear, slice, …).
    pub parent: Box<Encoding>,
}

/// The `parent` field of a wrapping attribute (`#ttg.slice`,
/// `#ttg.dot_op`): its attribute text and the parsed [`Encoding`]; errors
/// name `layout` when the field is missing or not a layout attribute.
pub(crate) fn read_parent<'a>(
    a: &'a Attribute,
    layout: &'static str,
) -> Result<(&'a Attribute, Encoding)> {
    let p = a
        .get("parent")
        .ok_or_else(|| invalid(layout, "missing field 'parent'"))?;
    let pa = p.as_attr().ok_or_else(|| {
        invalid(
            layout,
            format!("parent must be a layout attribute, got {p}"),
        )
    })?;
    Ok((pa, Encoding::from_attr(pa)?))
}

impl Slice {
    /// Reads the attribute.
    pub fn from_attr(a: &Attribute) -> Result<Self> {
        check_fields(a, &["dim", "parent"], L)?;
        let dim = uint_field(a, "dim", L)?;
        let (pa, parent) = read_parent(a, L)?;
        if parent.space() != Space::Distributed {
            return Err(invalid(
                L,
                format!("parent {} is not a distributed layout", pa.full_name()),
            ));
        }
        if let Some(r) = distributed_rank(&parent) {
            if dim as usize >= r {
                return Err(invalid(
                    L,
                    format!("dim = {dim} is out of range for a rank-{r} parent"),
                ));
            }
            if r < 2 {
                return Err(invalid(L, "the parent must have rank 2 or more"));
            }
        } else if dim > 16 {
            return Err(invalid(L, format!("dim = {dim} is out of range")));
        }
        Ok(Slice {
            dim: dim as usize,
            parent: Box::new(parent),
        })
    }

    /// The linear layout for a tensor of `shape` (the parent's rank minus 1).
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        if let Some(r) = distributed_rank(&self.parent) {
            if shape.len() + 1 != r {
                return Err(HwError::InvalidShape {
                    shape: shape.to_vec(),
                    message: format!(
                        "rank {} does not match the slice layout's rank {} (parent rank {r})",
                        shape.len(),
                        r - 1
                    ),
                });
            }
        }
        if self.dim > shape.len() {
            return Err(HwError::InvalidShape {
                shape: shape.to_vec(),
                message: format!("slice dim {} is out of range", self.dim),
            });
        }
        let mut parent_shape = shape.to_vec();
        parent_shape.insert(self.dim, 1);
        let parent = self.parent.to_linear_layout(&parent_shape)?;
        let sliced = remove_standard_dim(&parent, self.dim)?;
        let mut bases = sliced.all_bases();
        for (d, bs) in &mut bases {
            if *d == DimName::REGISTER {
                bs.retain(|b| b.iter().any(|&c| c != 0));
            }
        }
        Ok(LinearLayout::new(bases, sliced.out_dims(), false)?)
    }

    /// Triton's printed form.
    pub fn to_mlir(&self) -> String {
        format!(
            "#ttg.slice<{{dim = {}, parent = {}}}>",
            self.dim,
            self.parent.to_mlir()
        )
    }
}

/// The rank of a distributed encoding, where it is known from the attribute
/// alone (the families of this crate; `None` for the others).
pub(crate) fn distributed_rank(e: &Encoding) -> Option<usize> {
    match e {
        Encoding::Blocked(b) => Some(b.rank()),
        Encoding::NvidiaMma(m) => Some(m.rank()),
        Encoding::Linear(l) => Some(l.rank()),
        Encoding::Slice(s) => distributed_rank(&s.parent).map(|r| r.saturating_sub(1)),
        Encoding::DotOperand(d) => distributed_rank(&d.parent),
        _ => None,
    }
}

//! [`ColumnAction`]: a permutation or selection of the bases (columns) of one
//! input dim, applied to layouts and to per-register value arrays.

use crate::error::{LayoutError, Result};
use crate::{DimName, LinearLayout};

/// "New column `i` is old column `action[i]`" for input dim `in_dim` of
/// `in_size_log2` bits. Shorter than `in_size_log2` drops columns.
///
/// ```
/// use linear_layout::{ColumnAction, DimName};
/// let a = ColumnAction::new(vec![2, 0, 1], DimName::REGISTER, 3).unwrap();
/// let x: Vec<u32> = (0..8).collect();
/// assert_eq!(a.apply_values(&x).unwrap(), vec![0, 4, 1, 5, 2, 6, 3, 7]);
/// let drop = ColumnAction::new(vec![2, 1], DimName::REGISTER, 3).unwrap();
/// assert_eq!(drop.apply_values(&[1, 2, 3, 4, 5, 6, 7, 8]).unwrap(), vec![1, 5, 3, 7]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ColumnAction {
    action: Vec<usize>,
    in_dim: DimName,
    in_size_log2: u32,
}

impl ColumnAction {
    /// Checks that `action` holds distinct indices below `in_size_log2`.
    pub fn new(action: Vec<usize>, in_dim: DimName, in_size_log2: u32) -> Result<Self> {
        if in_size_log2 > 63 {
            return Err(LayoutError::TooManyBits {
                which: "column action",
                bits: in_size_log2,
            });
        }
        let mut seen = vec![false; in_size_log2 as usize];
        for &a in &action {
            if a >= in_size_log2 as usize || std::mem::replace(&mut seen[a], true) {
                return Err(LayoutError::NotAPermutation {
                    what: "column action",
                    value: action.clone(),
                    len: in_size_log2 as usize,
                });
            }
        }
        Ok(ColumnAction {
            action,
            in_dim,
            in_size_log2,
        })
    }

    /// The identity action on `n` columns.
    pub fn identity(in_dim: DimName, n: u32) -> Self {
        ColumnAction {
            action: (0..n as usize).collect(),
            in_dim,
            in_size_log2: n,
        }
    }

    /// The action as a list.
    pub fn action(&self) -> &[usize] {
        &self.action
    }

    /// The input dim it acts on.
    pub fn in_dim(&self) -> DimName {
        self.in_dim
    }

    /// Whether it keeps every column in place.
    pub fn is_identity(&self) -> bool {
        self.action.len() == self.in_size_log2 as usize
            && self.action.iter().enumerate().all(|(i, &a)| i == a)
    }

    /// Reorders (and selects) the bases of `in_dim` in `layout`.
    pub fn apply(&self, layout: &LinearLayout) -> Result<LinearLayout> {
        let n = layout.in_dim_size_log2(self.in_dim);
        if !layout.has_in_dim(self.in_dim) || n != self.in_size_log2 {
            return Err(LayoutError::SizeMismatch {
                what: "column action applied to a dim of another size",
                dim: self.in_dim,
                expected: 1u64 << self.in_size_log2,
                found: 1u64 << n,
            });
        }
        let ins = layout
            .in_dim_names()
            .map(|d| {
                let cols = layout.packed_bases(d);
                let v = if d == self.in_dim {
                    self.action.iter().map(|&a| cols[a]).collect()
                } else {
                    cols.to_vec()
                };
                (d, v)
            })
            .collect();
        let outs = layout
            .out_dims()
            .into_iter()
            .map(|(n, s)| (n, s.trailing_zeros()))
            .collect();
        LinearLayout::from_packed(ins, outs, false)
    }

    /// Reorders per-register values: `values` has `2^in_size_log2` entries,
    /// the result `2^len(action)`; entry `i` takes `values[j]` where bit `k`
    /// of `i` becomes bit `action[k]` of `j`.
    pub fn apply_values<T: Clone>(&self, values: &[T]) -> Result<Vec<T>> {
        if values.len() != 1usize << self.in_size_log2 {
            return Err(LayoutError::Invalid(format!(
                "column action on {} values, expected {}",
                values.len(),
                1usize << self.in_size_log2
            )));
        }
        Ok((0..1usize << self.action.len())
            .map(|i| {
                let j = self
                    .action
                    .iter()
                    .enumerate()
                    .fold(0, |j, (k, &a)| j | ((i >> k) & 1) << a);
                values[j].clone()
            })
            .collect())
    }

    /// For a full permutation, the inverse action.
    pub fn inverse(&self) -> Result<ColumnAction> {
        if self.action.len() != self.in_size_log2 as usize {
            return Err(LayoutError::Invalid(
                "only a full permutation has an inverse".into(),
            ));
        }
        let mut inv = vec![0; self.action.len()];
        for (i, &a) in self.action.iter().enumerate() {
            inv[a] = i;
        }
        ColumnAction::new(inv, self.in_dim, self.in_size_log2)
    }

    /// `new[i] = self.action[other.action[i]]` (apply `self`, then `other`).
    pub fn left_compose(&self, other: &ColumnAction) -> Result<ColumnAction> {
        let action = other.action.iter().map(|&i| self.action[i]).collect();
        ColumnAction::new(action, self.in_dim, self.in_size_log2)
    }
}

impl std::fmt::Display for ColumnAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let a: Vec<String> = self.action.iter().map(|x| x.to_string()).collect();
        write!(
            f,
            "ColumnAction([{}], {}, {})",
            a.join(", "),
            self.in_dim,
            self.in_size_log2
        )
    }
}

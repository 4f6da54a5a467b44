//! CuTe's values: [`IntTuple`] (an integer or a tuple of them), [`Layout`]
//! (`Shape:Stride`), [`Swizzle`] and [`CuteLayout`] (a layout with an
//! optional swizzle in front), evaluated with CuTe's integer arithmetic.

use super::error::{CuteError, Result};
use std::fmt;

/// An integer or a tuple of `IntTuple`s (CuTe's `IntTuple`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum IntTuple {
    /// A leaf.
    Int(i64),
    /// A tuple of modes (may be empty).
    Tuple(Vec<IntTuple>),
}

impl IntTuple {
    /// The leaves, depth first (CuTe's `flatten`).
    pub fn flatten(&self) -> Vec<i64> {
        let mut out = vec![];
        self.flatten_into(&mut out);
        out
    }

    fn flatten_into(&self, out: &mut Vec<i64>) {
        match self {
            IntTuple::Int(v) => out.push(*v),
            IntTuple::Tuple(t) => t.iter().for_each(|x| x.flatten_into(out)),
        }
    }

    /// Whether `self` and `other` have the same nesting (CuTe's congruence).
    pub fn congruent(&self, other: &IntTuple) -> bool {
        match (self, other) {
            (IntTuple::Int(_), IntTuple::Int(_)) => true,
            (IntTuple::Tuple(a), IntTuple::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.congruent(y))
            }
            _ => false,
        }
    }

    /// The top-level modes: a tuple's elements, or the integer itself.
    pub fn modes(&self) -> Vec<&IntTuple> {
        match self {
            IntTuple::Int(_) => vec![self],
            IntTuple::Tuple(t) => t.iter().collect(),
        }
    }

    /// The paths of the leaves in [`Self::flatten`] order (`"1.0"` = first
    /// leaf of top-level mode 1; a bare integer is mode `"0"`).
    pub fn leaf_paths(&self) -> Vec<String> {
        fn go(t: &IntTuple, prefix: &str, out: &mut Vec<String>) {
            match t {
                IntTuple::Int(_) => out.push(if prefix.is_empty() {
                    "0".into()
                } else {
                    prefix.into()
                }),
                IntTuple::Tuple(ts) => {
                    for (i, x) in ts.iter().enumerate() {
                        let p = if prefix.is_empty() {
                            i.to_string()
                        } else {
                            format!("{prefix}.{i}")
                        };
                        go(x, &p, out);
                    }
                }
            }
        }
        let mut out = vec![];
        go(self, "", &mut out);
        out
    }

    /// The product of the leaves, `None` on overflow.
    pub fn product(&self) -> Option<i64> {
        self.flatten()
            .into_iter()
            .try_fold(1i64, |a, b| a.checked_mul(b))
    }

    /// CuTe's column-major (exclusive prefix product) strides for this shape.
    pub fn compact_strides(&self) -> Option<IntTuple> {
        fn go(t: &IntTuple, acc: &mut i64) -> Option<IntTuple> {
            Some(match t {
                IntTuple::Int(v) => {
                    let s = *acc;
                    *acc = acc.checked_mul(*v)?;
                    IntTuple::Int(s)
                }
                IntTuple::Tuple(ts) => {
                    IntTuple::Tuple(ts.iter().map(|x| go(x, acc)).collect::<Option<_>>()?)
                }
            })
        }
        go(self, &mut 1)
    }
}

impl fmt::Display for IntTuple {
    /// CuTe's C++ print: `8`, `(4,8)`, `((2,4),8)`, `(8)` for a 1-tuple.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IntTuple::Int(v) => write!(f, "{v}"),
            IntTuple::Tuple(t) => {
                write!(f, "(")?;
                for (i, x) in t.iter().enumerate() {
                    if i > 0 {
                        write!(f, ",")?;
                    }
                    write!(f, "{x}")?;
                }
                write!(f, ")")
            }
        }
    }
}

/// A CuTe layout `Shape:Stride`: the function from a coordinate to the
/// offset `Σ coordinate_i · stride_i` over the flattened modes.
///
/// A flat index `i < size` is first split into a coordinate column-major
/// (CuTe's convention: the first mode is fastest, `i mod shape_0` is mode
/// 0's coordinate).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    /// The extents.
    pub shape: IntTuple,
    /// The strides, congruent to `shape`.
    pub stride: IntTuple,
}

impl Layout {
    /// A layout; errors if shape and stride are not congruent.
    pub fn new(shape: IntTuple, stride: IntTuple) -> Result<Layout> {
        if !shape.congruent(&stride) {
            return Err(CuteError::NotCongruent {
                shape: shape.to_string(),
                stride: stride.to_string(),
            });
        }
        Ok(Layout { shape, stride })
    }

    /// A flat layout from `(shape, stride)` pairs: one mode is an integer,
    /// several a tuple.
    pub fn from_modes(modes: &[(i64, i64)]) -> Layout {
        match modes {
            [] => Layout {
                shape: IntTuple::Int(1),
                stride: IntTuple::Int(0),
            },
            [(s, d)] => Layout {
                shape: IntTuple::Int(*s),
                stride: IntTuple::Int(*d),
            },
            _ => Layout {
                shape: IntTuple::Tuple(modes.iter().map(|m| IntTuple::Int(m.0)).collect()),
                stride: IntTuple::Tuple(modes.iter().map(|m| IntTuple::Int(m.1)).collect()),
            },
        }
    }

    /// The flattened `(shape, stride)` modes, first (fastest) first.
    pub fn flat_modes(&self) -> Vec<(i64, i64)> {
        self.shape
            .flatten()
            .into_iter()
            .zip(self.stride.flatten())
            .collect()
    }

    /// The top-level modes as layouts.
    pub fn modes(&self) -> Vec<Layout> {
        self.shape
            .modes()
            .into_iter()
            .zip(self.stride.modes())
            .map(|(s, d)| Layout {
                shape: s.clone(),
                stride: d.clone(),
            })
            .collect()
    }

    /// Number of coordinates (product of the shape), `None` on overflow.
    pub fn size(&self) -> Option<i64> {
        self.shape.product()
    }

    /// The offset of flat index `index` (column-major split), in CuTe's
    /// integer arithmetic: `Σ (index / prefix_i mod shape_i) · stride_i`
    /// (the last mode is not reduced, as CuTe's `crd2idx` does). `None` on
    /// overflow or a zero extent.
    pub fn offset_of(&self, index: i64) -> Option<i64> {
        let modes = self.flat_modes();
        let mut rest = index;
        let mut off = 0i64;
        for (k, &(s, d)) in modes.iter().enumerate() {
            let c = if k + 1 == modes.len() {
                rest
            } else {
                if s <= 0 {
                    return None;
                }
                let c = rest % s;
                rest /= s;
                c
            };
            off = off.checked_add(c.checked_mul(d)?)?;
        }
        Some(off)
    }

    /// `offset_of(size - 1) + 1` (CuTe's `cosize`) for non-negative strides.
    pub fn cosize(&self) -> Option<i64> {
        let n = self.size()?;
        if n == 0 {
            return Some(0);
        }
        self.offset_of(n - 1)?.checked_add(1)
    }
}

impl fmt::Display for Layout {
    /// CuTe's print: `(4,8):(8,1)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.shape, self.stride)
    }
}

/// CuTe's `Swizzle<B, M, S>`: offset `x ↦ x ^ ((x & yyy) >> S)`, where the
/// `B` bits at `M + max(0, S)` (YYY) are XORed into the `B` bits at
/// `M - min(0, S)` (ZZZ). A negative `S` shifts left. Bit 0 is the lowest
/// offset bit. Linear over GF(2) and its own inverse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Swizzle {
    /// `B`: number of bits in the mask.
    pub bits: u32,
    /// `M`: number of low bits kept constant.
    pub base: u32,
    /// `S`: distance from YYY down to ZZZ (`|S| >= B`).
    pub shift: i32,
}

impl Swizzle {
    /// The largest `B + M + |S|` accepted (offsets have at most 62 bits).
    pub const MAX_BITS: u64 = 62;

    /// A swizzle; errors unless `|S| >= B` (CuTe's precondition) and the
    /// swizzle fits 62 bits.
    pub fn new(bits: i64, base: i64, shift: i64) -> Result<Swizzle> {
        let bad = || CuteError::BadSwizzle { bits, base, shift };
        if bits < 0 || base < 0 || shift.unsigned_abs() < bits as u64 {
            return Err(bad());
        }
        let total = (bits as u64)
            .saturating_add(base as u64)
            .saturating_add(shift.unsigned_abs());
        if total > Self::MAX_BITS {
            return Err(CuteError::TooLarge {
                what: "swizzle width B + M + |S|",
                value: total,
                limit: Self::MAX_BITS,
            });
        }
        Ok(Swizzle {
            bits: bits as u32,
            base: base as u32,
            shift: shift as i32,
        })
    }

    /// The YYY mask (source bits).
    pub fn yyy_mask(&self) -> u64 {
        ((1u64 << self.bits) - 1) << (self.base + self.shift.max(0) as u32)
    }

    /// The ZZZ mask (bits XORed into).
    pub fn zzz_mask(&self) -> u64 {
        ((1u64 << self.bits) - 1) << (self.base + (-self.shift).max(0) as u32)
    }

    /// Applies the swizzle to an offset.
    pub fn apply(&self, x: u64) -> u64 {
        let y = x & self.yyy_mask();
        let moved = if self.shift >= 0 {
            y >> self.shift
        } else {
            y << (-self.shift)
        };
        x ^ moved
    }
}

impl fmt::Display for Swizzle {
    /// `Swizzle<B,M,S>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Swizzle<{},{},{}>", self.bits, self.base, self.shift)
    }
}

/// A CuTe layout with an optional swizzle in front: `Swizzle<B,M,S> o
/// offset o Shape:Stride`, the map `coordinate ↦ swizzle(offset +
/// layout(coordinate))` (CuTe's `ComposedLayout`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CuteLayout {
    /// The swizzle applied last, if any.
    pub swizzle: Option<Swizzle>,
    /// The offset added before the swizzle (0 for a linear map).
    pub offset: i64,
    /// The `Shape:Stride` layout.
    pub layout: Layout,
}

impl CuteLayout {
    /// A plain layout without swizzle.
    pub fn plain(layout: Layout) -> CuteLayout {
        CuteLayout {
            swizzle: None,
            offset: 0,
            layout,
        }
    }

    /// The offset of flat index `index` in integer arithmetic (`None` on
    /// overflow or a negative offset under a swizzle).
    pub fn offset_of(&self, index: i64) -> Option<i64> {
        let o = self.layout.offset_of(index)?.checked_add(self.offset)?;
        match self.swizzle {
            None => Some(o),
            Some(sw) => i64::try_from(sw.apply(u64::try_from(o).ok()?)).ok(),
        }
    }
}

impl fmt::Display for CuteLayout {
    /// `Swizzle<3,4,3> o (8,64):(64,1)`; a non-zero offset prints between:
    /// `Swizzle<3,4,3> o 16 o (8,64):(64,1)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(sw) = self.swizzle {
            write!(f, "{sw} o ")?;
            if self.offset != 0 {
                write!(f, "{} o ", self.offset)?;
            }
        } else if self.offset != 0 {
            write!(f, "{} o ", self.offset)?;
        }
        write!(f, "{}", self.layout)
    }
}

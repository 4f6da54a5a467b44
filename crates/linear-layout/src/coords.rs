//! [`Coords`]: the named coordinates returned by `apply`.

use crate::DimName;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut};

/// How many `(dim, value)` pairs a [`Coords`] holds without a heap
/// allocation.
pub const COORDS_INLINE: usize = 4;

/// Named coordinates: `(dim, value)` pairs in dim order, as returned by
/// [`crate::LinearLayout::apply`]. Up to [`COORDS_INLINE`] pairs are stored
/// inline in a fixed array (no allocation, no spill check on the hot path);
/// more spill to a boxed `Vec` (a single pointer, null when unused, so that
/// an inline `Coords` is built with few stores). Dereferences to a slice, so `c[k]`, `c.iter()`,
/// `c.len()`, `c.to_vec()` work as on `&[(DimName, u64)]`.
///
/// ```
/// use linear_layout::{Coords, DimName};
/// let mut c = Coords::new();
/// c.push((DimName::dim(0), 3));
/// c.push((DimName::dim(1), 5));
/// assert_eq!(c[1], (DimName::dim(1), 5));
/// assert_eq!(c, [(DimName::dim(0), 3), (DimName::dim(1), 5)]);
/// let v: Vec<_> = c.into_iter().map(|p| p.1).collect();
/// assert_eq!(v, [3, 5]);
/// ```
#[derive(Clone)]
pub struct Coords {
    /// Number of pairs. At most `COORDS_INLINE`: the pairs are `buf[..len]`;
    /// above, or whenever `spill` is `Some`: they are `spill` (and `buf` is
    /// unused). `spill` is `Some` when `len > COORDS_INLINE`.
    pub(crate) len: usize,
    pub(crate) buf: [(DimName, u64); COORDS_INLINE],
    pub(crate) spill: Spill,
}

/// The heap part of a [`Coords`]: a single pointer, null when unused, so
/// that an inline `Coords` is built with one store for it (an empty `Vec`
/// takes three) and its drop is one test.
#[allow(clippy::box_collection)]
pub(crate) type Spill = Option<Box<Vec<(DimName, u64)>>>;

const FILLER: (DimName, u64) = (DimName::REGISTER, 0);

impl Coords {
    /// No coordinates.
    #[inline]
    pub fn new() -> Self {
        Coords {
            len: 0,
            buf: [FILLER; COORDS_INLINE],
            spill: None,
        }
    }

    /// The coordinates `buf[..len]` (callers pass `len ≤ COORDS_INLINE`;
    /// reads clamp it anyway).
    #[inline]
    pub(crate) fn from_inline(buf: [(DimName, u64); COORDS_INLINE], len: usize) -> Self {
        Coords {
            len,
            buf,
            spill: None,
        }
    }

    /// The pairs `spill` when it is `Some` (then `len` is its length), else
    /// `buf[..len]` (callers pass `len ≤ COORDS_INLINE`; reads clamp it
    /// anyway).
    #[inline]
    pub(crate) fn from_parts(
        buf: [(DimName, u64); COORDS_INLINE],
        len: usize,
        spill: Spill,
    ) -> Self {
        Coords { len, buf, spill }
    }

    /// Appends one pair (spilling to the heap past [`COORDS_INLINE`]).
    #[inline]
    pub fn push(&mut self, x: (DimName, u64)) {
        match &mut self.spill {
            Some(v) => v.push(x),
            None if self.len < COORDS_INLINE => self.buf[self.len] = x,
            None => {
                let mut v = Vec::with_capacity(2 * COORDS_INLINE);
                v.extend_from_slice(&self.buf);
                v.push(x);
                self.spill = Some(Box::new(v));
            }
        }
        self.len += 1;
    }

    /// The pairs as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[(DimName, u64)] {
        match &self.spill {
            None => &self.buf[..self.len.min(COORDS_INLINE)],
            Some(v) => v,
        }
    }

    /// The pairs as a mutable slice.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [(DimName, u64)] {
        match &mut self.spill {
            None => &mut self.buf[..self.len.min(COORDS_INLINE)],
            Some(v) => v,
        }
    }

    /// The pairs as a `Vec`.
    pub fn into_vec(self) -> Vec<(DimName, u64)> {
        match self.spill {
            None => self.buf[..self.len.min(COORDS_INLINE)].to_vec(),
            Some(v) => *v,
        }
    }
}

impl Default for Coords {
    fn default() -> Self {
        Self::new()
    }
}

impl Deref for Coords {
    type Target = [(DimName, u64)];
    #[inline]
    fn deref(&self) -> &Self::Target {
        self.as_slice()
    }
}

impl DerefMut for Coords {
    #[inline]
    fn deref_mut(&mut self) -> &mut Self::Target {
        self.as_mut_slice()
    }
}

impl AsRef<[(DimName, u64)]> for Coords {
    fn as_ref(&self) -> &[(DimName, u64)] {
        self.as_slice()
    }
}

impl fmt::Debug for Coords {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for Coords {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Coords {}

impl PartialEq<[(DimName, u64)]> for Coords {
    fn eq(&self, other: &[(DimName, u64)]) -> bool {
        self.as_slice() == other
    }
}

impl PartialEq<&[(DimName, u64)]> for Coords {
    fn eq(&self, other: &&[(DimName, u64)]) -> bool {
        self.as_slice() == *other
    }
}

impl<const N: usize> PartialEq<[(DimName, u64); N]> for Coords {
    fn eq(&self, other: &[(DimName, u64); N]) -> bool {
        self.as_slice() == other
    }
}

impl PartialEq<Vec<(DimName, u64)>> for Coords {
    fn eq(&self, other: &Vec<(DimName, u64)>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Hash for Coords {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.as_slice().hash(h)
    }
}

impl FromIterator<(DimName, u64)> for Coords {
    fn from_iter<I: IntoIterator<Item = (DimName, u64)>>(it: I) -> Self {
        let mut c = Coords::new();
        for x in it {
            c.push(x);
        }
        c
    }
}

impl Extend<(DimName, u64)> for Coords {
    fn extend<I: IntoIterator<Item = (DimName, u64)>>(&mut self, it: I) {
        for x in it {
            self.push(x);
        }
    }
}

impl From<Vec<(DimName, u64)>> for Coords {
    fn from(v: Vec<(DimName, u64)>) -> Self {
        if v.len() <= COORDS_INLINE {
            v.into_iter().collect()
        } else {
            Coords {
                len: v.len(),
                buf: [FILLER; COORDS_INLINE],
                spill: Some(Box::new(v)),
            }
        }
    }
}

impl From<&[(DimName, u64)]> for Coords {
    fn from(v: &[(DimName, u64)]) -> Self {
        v.iter().copied().collect()
    }
}

impl From<Coords> for Vec<(DimName, u64)> {
    fn from(c: Coords) -> Self {
        c.into_vec()
    }
}

impl<'a> IntoIterator for &'a Coords {
    type Item = &'a (DimName, u64);
    type IntoIter = std::slice::Iter<'a, (DimName, u64)>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// By-value iterator over a [`Coords`].
#[derive(Clone, Debug)]
pub struct CoordsIntoIter {
    coords: Coords,
    next: usize,
}

impl Iterator for CoordsIntoIter {
    type Item = (DimName, u64);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let x = self.coords.get(self.next).copied();
        self.next += x.is_some() as usize;
        x
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.coords.len() - self.next;
        (n, Some(n))
    }
}

impl ExactSizeIterator for CoordsIntoIter {}

impl IntoIterator for Coords {
    type Item = (DimName, u64);
    type IntoIter = CoordsIntoIter;
    fn into_iter(self) -> CoordsIntoIter {
        CoordsIntoIter {
            coords: self,
            next: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pushing past the inline capacity spills to the heap and keeps every
    /// pair in order (compared with a plain `Vec` built the same way).
    #[test]
    fn push_spills_in_order() {
        let mut c = Coords::new();
        let mut v = Vec::new();
        for k in 0..(2 * COORDS_INLINE as u64 + 3) {
            let x = (DimName::dim((k % 8) as usize), k * 7);
            c.push(x);
            v.push(x);
            assert_eq!(c, v);
        }
        assert_eq!(c.clone().into_vec(), v);
        assert_eq!(c.into_iter().collect::<Vec<_>>(), v);
        assert_eq!(Coords::from(v.clone()), v);
        assert_eq!(Coords::from(&v[..3]).len(), 3);
    }
}

//! Linear algebra over GF(2) on bit-packed words.
//!
//! A vector of up to 64 bits is a `u64` (bit `i` = coordinate `i`). A matrix
//! is given by its **columns** (`&[u64]`, column `j` is the image of input bit
//! `j`), which is how a [`crate::LinearLayout`] stores itself, or by its
//! **rows** ([`BitMatrix`]), for row reduction.
//!
//! The workhorse is [`EchelonBasis`]: columns are inserted left to right; a
//! column that is independent of the earlier ones is a *pivot*. Every solve
//! writes its answer in pivot columns only, i.e. free variables are 0 and the
//! earliest independent columns are used, which is Triton's convention.
//!
//! ```
//! use linear_layout::gf2;
//! // columns e0, e1, e0^e1, e2: the third is dependent.
//! let cols = [0b001, 0b010, 0b011, 0b100];
//! assert_eq!(gf2::rank(&cols), 3);
//! assert_eq!(gf2::pivot_columns(&cols), 0b1011);
//! assert_eq!(gf2::solve(&cols, 0b111), Some(0b1011)); // e0 ^ e1 ^ e2
//! assert_eq!(gf2::nullspace(&cols), vec![0b0111]); // c0 ^ c1 ^ c2 = 0
//! ```

/// Iterate over the indices of the set bits of `x`, lowest first.
#[inline]
pub fn bits(mut x: u64) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        if x == 0 {
            None
        } else {
            let b = x.trailing_zeros();
            x &= x - 1;
            Some(b)
        }
    })
}

/// The matrix–vector product `A x` over GF(2) for the matrix with columns
/// `cols`: the XOR of `cols[i]` over the set bits `i` of `x` (bit 0 picks
/// `cols[0]`). Bits of `x` at or above `cols.len()` pick nothing (the matrix
/// has no such column). Columns may be any unsigned type that widens to
/// `u64` (lane maps store `u32`).
///
/// This is how every layout evaluates: the image of an input is the XOR of
/// the bases of its set bits.
///
/// ```
/// use linear_layout::gf2::xor_columns;
/// let cols = [0b0001u64, 0b0110, 0b1000];
/// assert_eq!(xor_columns(&cols, 0b011), 0b0111); // cols[0] ^ cols[1]
/// assert_eq!(xor_columns(&cols, 0b101), 0b1001); // cols[0] ^ cols[2]
/// assert_eq!(xor_columns(&cols, 0), 0);
/// assert_eq!(xor_columns(&cols, 0b1000), 0); // no column 3
/// assert_eq!(xor_columns(&[0b011u64, 0b110], 0b11), 0b101); // bit 1 cancels
/// assert_eq!(xor_columns(&[3u32, 4], 0b11), 7);
/// ```
#[inline]
pub fn xor_columns<T: Copy + Into<u64>>(cols: &[T], x: u64) -> u64 {
    bits(x)
        .map(|i| i as usize)
        .take_while(|&i| i < cols.len())
        .fold(0, |acc, i| acc ^ cols[i].into())
}

/// An echelon basis of a span, built column by column, that remembers how
/// each basis vector is made from the inserted (pivot) columns.
///
/// Invariant: for every lead bit `b` in `present`, `vecs[b]` has lowest set
/// bit `b`; `combos[b]` is the set of inserted column indices whose XOR is
/// `vecs[b]`. Reducing a vector clears its lowest lead bit at a time, which
/// only changes higher bits, so it ends with no lead bit set.
#[derive(Clone, Debug)]
pub struct EchelonBasis {
    vecs: [u64; 64],
    combos: [u64; 64],
    present: u64,
    inserted: u32,
    pivots: u64,
}

impl Default for EchelonBasis {
    fn default() -> Self {
        Self::new()
    }
}

impl EchelonBasis {
    /// The basis of the zero space.
    pub fn new() -> Self {
        EchelonBasis {
            vecs: [0; 64],
            combos: [0; 64],
            present: 0,
            inserted: 0,
            pivots: 0,
        }
    }

    /// Builds the basis of the span of `cols`, inserted in order.
    pub fn from_columns(cols: &[u64]) -> Self {
        let mut b = Self::new();
        for &c in cols {
            b.insert(c);
        }
        b
    }

    /// Reduces `v` against the basis: returns `(residual, combo)` with
    /// `v = residual ^ XOR(columns in combo)`; the residual has no lead bit.
    #[inline]
    pub fn reduce(&self, v: u64) -> (u64, u64) {
        let (mut r, mut c) = (v, 0u64);
        let mut m = r & self.present;
        while m != 0 {
            let b = m.trailing_zeros() as usize;
            r ^= self.vecs[b];
            c ^= self.combos[b];
            m = r & self.present;
        }
        (r, c)
    }

    /// Inserts the next column (index = number inserted so far, at most 64
    /// columns). Returns whether it was independent (a pivot column).
    pub fn insert(&mut self, v: u64) -> bool {
        let idx = self.inserted;
        assert!(idx < 64, "EchelonBasis holds at most 64 columns");
        let (r, c) = self.reduce(v);
        if r == 0 {
            self.inserted += 1;
            return false;
        }
        self.insert_reduced(r, c);
        true
    }

    /// Inserts `v` as the next column only if it is independent of the
    /// span (then it is a pivot); dependent vectors are not counted as
    /// columns. Returns whether it was inserted.
    #[inline]
    pub fn insert_if_independent(&mut self, v: u64) -> bool {
        let (r, c) = self.reduce(v);
        if r == 0 {
            return false;
        }
        self.insert_reduced(r, c);
        true
    }

    fn insert_reduced(&mut self, r: u64, c: u64) {
        let idx = self.inserted;
        assert!(idx < 64, "EchelonBasis holds at most 64 columns");
        self.inserted += 1;
        let lead = r.trailing_zeros() as usize;
        self.vecs[lead] = r;
        self.combos[lead] = c ^ (1u64 << idx);
        self.present |= 1u64 << lead;
        self.pivots |= 1u64 << idx;
    }

    /// Rank of the span.
    pub fn rank(&self) -> u32 {
        self.present.count_ones()
    }

    /// Mask of the inserted columns that were pivots.
    pub fn pivots(&self) -> u64 {
        self.pivots
    }

    /// Whether `v` lies in the span.
    pub fn contains(&self, v: u64) -> bool {
        self.reduce(v).0 == 0
    }

    /// The mask `x` of pivot columns with `XOR_{j in x} col_j = v`, or `None`
    /// when `v` is outside the span.
    pub fn solve(&self, v: u64) -> Option<u64> {
        let (r, c) = self.reduce(v);
        (r == 0).then_some(c)
    }

    /// The basis vectors (one per lead bit, lowest lead first).
    pub fn basis(&self) -> Vec<u64> {
        bits(self.present).map(|b| self.vecs[b as usize]).collect()
    }

    /// Mask of the lead bits (one per basis vector).
    pub fn leads(&self) -> u64 {
        self.present
    }
}

/// Rank of the matrix with the given columns.
pub fn rank(cols: &[u64]) -> u32 {
    EchelonBasis::from_columns(cols).rank()
}

/// Mask of the pivot columns: column `j` is a pivot iff it is independent of
/// columns `0..j`. Requires at most 64 columns.
pub fn pivot_columns(cols: &[u64]) -> u64 {
    EchelonBasis::from_columns(cols).pivots()
}

/// Solves `A x = b` for the matrix with columns `cols`: the mask `x` of
/// columns whose XOR is `b`, free variables 0, or `None` if inconsistent.
pub fn solve(cols: &[u64], b: u64) -> Option<u64> {
    EchelonBasis::from_columns(cols).solve(b)
}

/// A basis of the kernel `{x : A x = 0}`, one vector per non-pivot column
/// `j` (bit `j` set plus the pivot columns that produce column `j`).
pub fn nullspace(cols: &[u64]) -> Vec<u64> {
    let mut basis = EchelonBasis::new();
    let mut out = Vec::new();
    for (j, &c) in cols.iter().enumerate() {
        let (r, combo) = basis.reduce(c);
        if r == 0 {
            out.push(combo | (1u64 << j));
        }
        basis.insert(c);
    }
    out
}

/// Unit vectors `e_i` (`i < nbits`) that complete the span of `vectors` to
/// the whole space `GF(2)^nbits` (the coordinate complement), lowest first.
pub fn complement_basis(vectors: &[u64], nbits: u32) -> Vec<u64> {
    let mut basis = independent_basis(vectors);
    let mut out = Vec::new();
    for i in 0..nbits {
        let e = 1u64 << i;
        if !basis.contains(e) {
            basis.insert(e);
            out.push(e);
        }
    }
    out
}

/// The echelon basis of the span of `vectors` (dependent ones skipped, so
/// any number of vectors is accepted).
pub fn independent_basis(vectors: &[u64]) -> EchelonBasis {
    let mut b = EchelonBasis::new();
    for &x in vectors {
        if !b.contains(x) {
            b.insert(x);
        }
    }
    b
}

/// Whether `v` is in the span of `vectors`.
pub fn in_span(vectors: &[u64], v: u64) -> bool {
    independent_basis(vectors).contains(v)
}

/// The vectors of `gens`, in order, that extend `span(base)`: `g` is kept
/// when it lies outside the span of `base` and of the vectors kept before
/// it. So `base ∪ result` spans `span(base) + span(gens)`, and the result is
/// independent modulo `span(base)`.
///
/// ```
/// use linear_layout::gf2::extend_basis;
/// // 0b011 is new; 0b010 = 0b001 ^ 0b011 is not; 0b100 is new; 0 never is.
/// assert_eq!(extend_basis(&[0b001], &[0b011, 0b010, 0, 0b100]), vec![0b011, 0b100]);
/// ```
pub fn extend_basis(base: &[u64], gens: &[u64]) -> Vec<u64> {
    let mut taken = independent_basis(base);
    gens.iter()
        .copied()
        .filter(|&g| taken.insert_if_independent(g))
        .collect()
}

/// A basis of `span(a) ∩ span(b)`.
pub fn span_intersection(a: &[u64], b: &[u64]) -> Vec<u64> {
    // x = XOR b_T lies in span(a) iff its residual modulo span(a) is 0; the
    // residual is linear, so the intersection is the image of the kernel of
    // the residual map restricted to an independent basis of span(b).
    let ba = independent_basis(a);
    let b = independent_basis(b).basis();
    let residuals: Vec<u64> = b.iter().map(|&x| ba.reduce(x).0).collect();
    nullspace(&residuals)
        .into_iter()
        .map(|k| xor_columns(&b, k))
        .collect()
}

/// A GF(2) matrix stored by rows (`rows[i]` bit `j` = entry `(i, j)`), with
/// at most 64 columns.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BitMatrix {
    /// The rows, bit `j` of a row is column `j`.
    pub rows: Vec<u64>,
    /// Number of columns (≤ 64).
    pub ncols: u32,
}

impl BitMatrix {
    /// The matrix whose column `j` is `cols[j]` and which has `nrows` rows.
    pub fn from_columns(cols: &[u64], nrows: u32) -> Self {
        let mut rows = vec![0u64; nrows as usize];
        for (j, &c) in cols.iter().enumerate() {
            for i in bits(c) {
                if (i as usize) < rows.len() {
                    rows[i as usize] |= 1u64 << j;
                }
            }
        }
        BitMatrix {
            rows,
            ncols: cols.len() as u32,
        }
    }

    /// The columns of the matrix.
    pub fn columns(&self) -> Vec<u64> {
        let mut cols = vec![0u64; self.ncols as usize];
        for (i, &r) in self.rows.iter().enumerate() {
            for j in bits(r) {
                cols[j as usize] |= 1u64 << i;
            }
        }
        cols
    }

    /// Reduced row echelon form: non-zero rows first, each with its leading
    /// (lowest-index) column set and that column clear in every other row.
    pub fn row_reduced(&self) -> BitMatrix {
        let mut rows = self.rows.clone();
        let mut r = 0usize;
        for c in 0..self.ncols {
            let bit = 1u64 << c;
            let Some(p) = (r..rows.len()).find(|&i| rows[i] & bit != 0) else {
                continue;
            };
            rows.swap(r, p);
            let pr = rows[r];
            for (i, row) in rows.iter_mut().enumerate() {
                if i != r && *row & bit != 0 {
                    *row ^= pr;
                }
            }
            r += 1;
        }
        BitMatrix {
            rows,
            ncols: self.ncols,
        }
    }

    /// Rank.
    pub fn rank(&self) -> u32 {
        self.row_reduced().rows.iter().filter(|&&r| r != 0).count() as u32
    }

    /// Pivot columns of the RREF, in increasing order.
    pub fn pivot_columns(&self) -> Vec<u32> {
        self.row_reduced()
            .rows
            .iter()
            .filter(|&&r| r != 0)
            .map(|r| r.trailing_zeros())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn span_all(cols: &[u64]) -> std::collections::HashSet<u64> {
        let mut s = std::collections::HashSet::new();
        for m in 0u64..(1u64 << cols.len()) {
            s.insert(bits(m).fold(0, |a, j| a ^ cols[j as usize]));
        }
        s
    }

    fn brute_rank(cols: &[u64]) -> u32 {
        span_all(cols).len().trailing_zeros()
    }

    proptest! {
        #[test]
        fn rank_matches_brute_force(cols in prop::collection::vec(0u64..256, 0..10)) {
            prop_assert_eq!(rank(&cols), brute_rank(&cols));
            prop_assert_eq!(BitMatrix::from_columns(&cols, 8).rank(), brute_rank(&cols));
        }

        #[test]
        fn pivots_are_earliest_independent(cols in prop::collection::vec(0u64..64, 0..10)) {
            let p = pivot_columns(&cols);
            for j in 0..cols.len() {
                let independent = brute_rank(&cols[..=j]) > brute_rank(&cols[..j]);
                prop_assert_eq!(p >> j & 1 == 1, independent);
            }
            let bm = BitMatrix::from_columns(&cols, 6);
            let rows_piv: u64 = bm.pivot_columns().iter().fold(0, |a, &c| a | 1u64 << c);
            prop_assert_eq!(rows_piv, p);
        }

        #[test]
        fn solve_is_correct_and_uses_pivots(cols in prop::collection::vec(0u64..64, 0..9), b in 0u64..64) {
            let sp = span_all(&cols);
            match solve(&cols, b) {
                Some(x) => {
                    prop_assert_eq!(bits(x).fold(0, |a, j| a ^ cols[j as usize]), b);
                    prop_assert_eq!(x & !pivot_columns(&cols), 0);
                }
                None => prop_assert!(!sp.contains(&b)),
            }
        }

        #[test]
        fn nullspace_is_kernel_basis(cols in prop::collection::vec(0u64..32, 0..9)) {
            let ns = nullspace(&cols);
            let n = cols.len() as u32;
            prop_assert_eq!(ns.len() as u32, n - rank(&cols));
            for &k in &ns {
                prop_assert_eq!(bits(k).fold(0, |a, j| a ^ cols[j as usize]), 0);
            }
            prop_assert_eq!(rank(&ns), ns.len() as u32);
        }

        #[test]
        fn complement_completes_the_space(vs in prop::collection::vec(0u64..64, 0..8)) {
            let comp = complement_basis(&vs, 6);
            let mut all = vs.clone();
            all.extend(&comp);
            prop_assert_eq!(rank(&all), 6);
            prop_assert_eq!(comp.len() as u32, 6 - rank(&vs));
        }

        #[test]
        fn intersection_matches_brute_force(a in prop::collection::vec(0u64..64, 0..5), b in prop::collection::vec(0u64..64, 0..5)) {
            let sa = span_all(&a);
            let sb = span_all(&b);
            let both: std::collections::HashSet<u64> = sa.intersection(&sb).copied().collect();
            let inter = span_intersection(&a, &b);
            prop_assert_eq!(span_all(&inter), both);
            prop_assert_eq!(rank(&inter), inter.len() as u32);
            for &v in &inter { prop_assert!(in_span(&a, v) && in_span(&b, v)); }
        }
    }
}

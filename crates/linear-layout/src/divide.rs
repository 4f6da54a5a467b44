//! Division (the inverse of the product) and quotients by identity dims.

use crate::layout::low_mask;
use crate::{DimName, LinearLayout};

/// The out dims of a quotient `C` of `A` by `B` (either side): `A`'s out
/// dims in `A`'s order, each `log2` reduced by `B`'s; `None` when one of
/// `B`'s in or out dims is not `A`'s or `B` is larger than `A` on an out dim.
fn quotient_out_dims(a: &LinearLayout, b: &LinearLayout) -> Option<Vec<(DimName, u32)>> {
    if b.ins.iter().any(|d| !a.has_in_dim(d.name)) || b.outs.iter().any(|o| !a.has_out_dim(o.name))
    {
        return None;
    }
    if b.outs.iter().any(|o| a.out_dim_size_log2(o.name) < o.log2) {
        return None;
    }
    Some(
        a.outs
            .iter()
            .map(|o| (o.name, o.log2 - b.out_dim_size_log2(o.name)))
            .collect(),
    )
}

/// Left division: `C` with `A == B * C`, or `None` when `A` is not such a
/// product. `B`'s dims must all occur in `A`; `A`'s first bases of each in
/// dim must be `B`'s, and every later basis must be 0 in the low bits that
/// `B` occupies in each out dim. `C` has all of `A`'s dims.
///
/// ```
/// use linear_layout::{divide_left, DimName, LinearLayout};
/// let (r, o) = (DimName::REGISTER, DimName::dim(0));
/// let a = LinearLayout::identity_1d(4, r, o) * LinearLayout::zeros_1d(2, r, o, 1);
/// let c = divide_left(&a, &LinearLayout::identity_1d(4, r, o)).unwrap();
/// assert_eq!(c, LinearLayout::zeros_1d(2, r, o, 1));
/// ```
pub fn divide_left(a: &LinearLayout, b: &LinearLayout) -> Option<LinearLayout> {
    let outs = quotient_out_dims(a, b)?;
    for d in &b.ins {
        if a.in_dim_size_log2(d.name) < d.log2 {
            return None;
        }
    }
    let mut ins = Vec::with_capacity(a.ins.len());
    for d in &a.ins {
        let cols = a.packed_bases(d.name);
        let nb = b.in_dim_size_log2(d.name) as usize;
        // The first nb bases must be B's (0 elsewhere).
        for (k, &c) in cols[..nb].iter().enumerate() {
            let mut expect = 0u64;
            let bc = b.packed_bases(d.name)[k];
            for o in &b.outs {
                let v = bc.wrapping_shr(o.shift) & low_mask(o.log2);
                expect |= v << a.out_dim(o.name)?.shift;
            }
            if c != expect {
                return None;
            }
        }
        let mut rest = Vec::with_capacity(cols.len() - nb);
        for &c in &cols[nb..] {
            let mut packed = 0u64;
            let mut shift = 0u32;
            for (o, &(_, log2c)) in a.outs.iter().zip(&outs) {
                let v = c.wrapping_shr(o.shift) & low_mask(o.log2);
                let lb = o.log2 - log2c;
                if v & low_mask(lb) != 0 {
                    return None;
                }
                packed |= (v >> lb) << shift;
                shift += log2c;
            }
            rest.push(packed);
        }
        ins.push((d.name, rest));
    }
    let c = LinearLayout::from_packed(ins, outs, false).ok()?;
    (b.try_mul(&c).ok()? == *a).then_some(c)
}

/// Right division: `C` with `A == C * B`, or `None` when `A` is not such a
/// product. `C` keeps `A`'s first bases of each in dim; `A`'s last bases must
/// be `B`'s bases shifted above `C`'s out sizes.
///
/// ```
/// use linear_layout::{divide_right, DimName, LinearLayout};
/// let (r, o) = (DimName::REGISTER, DimName::dim(0));
/// let a = LinearLayout::zeros_1d(4, r, o, 1) * LinearLayout::identity_1d(2, r, o);
/// let c = divide_right(&a, &LinearLayout::identity_1d(2, r, o)).unwrap();
/// assert_eq!(c, LinearLayout::zeros_1d(4, r, o, 1));
/// ```
pub fn divide_right(a: &LinearLayout, b: &LinearLayout) -> Option<LinearLayout> {
    let outs = quotient_out_dims(a, b)?;
    let mut ins = Vec::with_capacity(a.ins.len());
    for d in &a.ins {
        let nb = b.in_dim_size_log2(d.name);
        if d.log2 < nb {
            return None;
        }
        let keep = (d.log2 - nb) as usize;
        let mut kept = Vec::with_capacity(keep);
        for &c in &a.packed_bases(d.name)[..keep] {
            // Re-pack into C's (smaller) out dims; components must fit.
            let mut packed = 0u64;
            let mut shift = 0u32;
            for (o, &(_, log2c)) in a.outs.iter().zip(&outs) {
                let v = c.wrapping_shr(o.shift) & low_mask(o.log2);
                if v >> log2c != 0 {
                    return None;
                }
                packed |= v << shift;
                shift += log2c;
            }
            kept.push(packed);
        }
        ins.push((d.name, kept));
    }
    let c = LinearLayout::from_packed(ins, outs, false).ok()?;
    (c.try_mul(b).ok()? == *a).then_some(c)
}

impl LinearLayout {
    /// Removes identity dims: `None` if a dim is not an input dim or the
    /// layout is not `L' × identity(dims)`; otherwise `L'`, the sublayout on
    /// the remaining dims (how Triton minimises conversion layouts).
    pub fn quotient(&self, dims: &[DimName]) -> Option<LinearLayout> {
        if !self.is_trivial_over(dims).ok()? {
            return None;
        }
        let ins: Vec<DimName> = self.in_dim_names().filter(|d| !dims.contains(d)).collect();
        let outs: Vec<DimName> = self.out_dim_names().filter(|d| !dims.contains(d)).collect();
        self.sublayout(&ins, &outs).ok()
    }
}

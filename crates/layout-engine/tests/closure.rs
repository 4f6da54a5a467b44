//! The closure of distributed layouts under shape operations (the paper's
//! appendix theorem), as property tests over random blocked layouts: every
//! shape-op map of `shape_ops` yields a layout, and it agrees with an
//! independent construction (Triton's slice layout from hw-layouts, or the
//! inverse map, or element-by-element evaluation).

use hw_layouts::blocked::{Blocked, Cga};
use hw_layouts::slice::Slice;
use hw_layouts::Encoding;
use layout_engine::shape_ops::{
    canon, collapse_dims, drop_dim, insert_dim, join, lift, reshape, split, transpose,
};
use linear_layout::{DimName, LinearLayout};
use proptest::prelude::*;

/// A random rank-2 or rank-3 blocked layout and a shape (powers of two).
fn blocked_and_shape() -> impl Strategy<Value = (Blocked, Vec<u64>)> {
    (2usize..=3)
        .prop_flat_map(|rank| {
            (
                proptest::collection::vec(0u32..=2, rank), // log2 sizePerThread
                proptest::collection::vec(0u32..=5, rank), // lane split weights
                proptest::collection::vec(0u32..=2, rank), // log2 warps
                Just(rank),
                proptest::collection::vec(0u32..=4, rank), // log2 shape extra
                any::<bool>(),
            )
        })
        .prop_map(|(spt, lanes_w, warps, rank, extra, row_major)| {
            // Distribute the 5 lane bits over dims.
            let mut tpw = vec![1u64; rank];
            let mut left = 5u32;
            for d in 0..rank {
                let take = if d + 1 == rank {
                    left
                } else {
                    lanes_w[d].min(left)
                };
                tpw[d] = 1 << take;
                left -= take;
            }
            let order: Vec<usize> = if row_major {
                (0..rank).rev().collect()
            } else {
                (0..rank).collect()
            };
            let spt: Vec<u64> = spt.iter().map(|&b| 1u64 << b).collect();
            let wpc: Vec<u64> = warps.iter().map(|&b| 1u64 << b).collect();
            let shape: Vec<u64> = (0..rank)
                .map(|d| (1u64 << extra[d]).max(1) * spt[d])
                .collect();
            (
                Blocked::new(spt, tpw, wpc, order, Cga::default()).unwrap(),
                shape,
            )
        })
}

/// Tensor element held by every hardware index (the function table).
fn table(l: &LinearLayout) -> Vec<u64> {
    l.table().unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// reduce(axis) = Triton's slice layout of the parent.
    #[test]
    fn reduce_is_the_slice_layout((b, shape) in blocked_and_shape(), axis in 0usize..3) {
        let axis = axis % shape.len();
        let enc = Encoding::Blocked(b);
        let ll = enc.to_linear_layout(&shape).unwrap();
        let ours = canon(&drop_dim(&ll, axis).unwrap());
        let mut small = shape.clone();
        small.remove(axis);
        let triton = Encoding::Slice(Slice { dim: axis, parent: Box::new(enc) }).to_linear_layout(&small).unwrap();
        prop_assert_eq!(ours, triton);
    }

    /// expand_dims then reduce along the new axis is the identity; the
    /// broadcast lift collapses back to its operand.
    #[test]
    fn expand_reduce_and_broadcast_lift_round_trip((b, shape) in blocked_and_shape(), axis in 0usize..3, grow in 1u32..4) {
        let ll = canon(&Encoding::Blocked(b).to_linear_layout(&shape).unwrap());
        let axis = axis % (shape.len() + 1);
        let e = insert_dim(&ll, axis).unwrap();
        prop_assert_eq!(canon(&drop_dim(&e, axis).unwrap()), ll.clone());
        let mut from = shape.clone();
        from.insert(axis, 1);
        let mut to = from.clone();
        to[axis] = 1 << grow;
        let lifted = lift(&e, &from, &to).unwrap();
        prop_assert!(lifted.is_surjective());
        prop_assert_eq!(canon(&collapse_dims(&lifted, &from).unwrap()), canon(&e));
    }

    /// trans: evaluated element by element, result(h) = permuted operand(h).
    #[test]
    fn trans_permutes_every_element((b, shape) in blocked_and_shape(), rev in any::<bool>()) {
        let ll = Encoding::Blocked(b).to_linear_layout(&shape).unwrap();
        let rank = shape.len();
        let order: Vec<usize> = if rev { (0..rank).rev().collect() } else { (1..rank).chain([0]).collect() };
        let t = transpose(&ll, &order).unwrap();
        let ins: Vec<(DimName, u64)> = ll.in_dims();
        let total: u64 = ins.iter().map(|(_, s)| s).product();
        for h in (0..total).step_by(((total / 64).max(1)) as usize) {
            // Mixed-radix hardware index.
            let mut rest = h;
            let idx: Vec<(DimName, u64)> = ins.iter().map(|&(d, s)| { let v = rest % s; rest /= s; (d, v) }).collect();
            let a = ll.apply(&idx).unwrap();
            let b2 = t.apply(&idx).unwrap();
            for (i, &o) in order.iter().enumerate() {
                prop_assert_eq!(b2[i].1, a[o].1);
            }
        }
        prop_assert_eq!(transpose(&t, &(0..rank).map(|i| order.iter().position(|&o| o == i).unwrap()).collect::<Vec<_>>()).unwrap(), ll);
    }

    /// reshape round-trips, and row-major flattening is preserved
    /// element by element (same flat index for every hardware index).
    #[test]
    fn reshape_keeps_the_row_major_index((b, shape) in blocked_and_shape()) {
        let ll = Encoding::Blocked(b).to_linear_layout(&shape).unwrap();
        let n: u64 = shape.iter().product();
        let flat = reshape(&ll, &[n]).unwrap();
        prop_assert_eq!(reshape(&flat, &shape).unwrap(), ll.clone());
        let (t1, t2) = (table(&ll), table(&flat));
        prop_assert_eq!(t1.len(), t2.len());
        // `table` packs out dims with dim0 lowest; the row-major index of
        // (c0, .., cr) is the same number read with the last dim lowest.
        let bits: Vec<u32> = shape.iter().map(|s| s.trailing_zeros()).collect();
        for (x, y) in t1.iter().zip(&t2) {
            let mut coords = Vec::new();
            let mut rest = *x;
            for &w in &bits { coords.push(rest & ((1 << w) - 1)); rest >>= w; }
            let row_major = coords.iter().zip(&bits).fold(0u64, |acc, (c, &w)| (acc << w) | c);
            prop_assert_eq!(row_major, *y);
        }
    }

    /// join adds one register bit on the new last dim; split removes it.
    #[test]
    fn join_split_round_trip((b, shape) in blocked_and_shape()) {
        let ll = Encoding::Blocked(b).to_linear_layout(&shape).unwrap();
        let j = join(&ll).unwrap();
        prop_assert_eq!(j.in_dim_size(DimName::REGISTER), 2 * ll.in_dim_size(DimName::REGISTER));
        prop_assert!(j.is_surjective());
        prop_assert_eq!(split(&j).unwrap(), ll);
    }
}

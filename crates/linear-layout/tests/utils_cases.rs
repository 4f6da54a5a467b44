//! LayoutUtils helpers beyond Triton's LayoutUtilsTest, and the edges where
//! sizes reach the word limits: hand-derived expectations in comments.

use linear_layout::utils::{
    action_remove_broadcasted_regs, broadcast_as, ensure_layout_not_larger_than,
    factor_maximal_identity_prefix, identity_standard_nd, largest_vectorisation,
    reg_perm_for_divide, remove_standard_dim, reshape_layout, transpose_linear_layout,
};
use linear_layout::{ColumnAction, DimName, LayoutError, LinearLayout};

fn d(s: &str) -> DimName {
    DimName::new(s)
}

fn lls(bases: &[(&str, &[&[u64]])], outs: &[(&str, u64)]) -> LinearLayout {
    LinearLayout::new(
        bases
            .iter()
            .map(|(n, bs)| (d(n), bs.iter().map(|b| b.to_vec()).collect()))
            .collect(),
        outs.iter().map(|(o, s)| (d(o), *s)).collect(),
        false,
    )
    .unwrap()
}

#[test]
fn identity_standard_nd_row_major() {
    // order [1, 0]: dim1 (size 8) is minor: bits 0-2 → dim1, bits 3-4 → dim0.
    // As in Triton the out dims stay in `order` order: [dim1, dim0].
    let raw = identity_standard_nd(DimName::OFFSET, &[4, 8], &[1, 0]).unwrap();
    assert_eq!(
        raw.out_dims(),
        vec![(DimName::dim(1), 8), (DimName::dim(0), 4)]
    );
    let l = raw.transpose_outs(&DimName::standard_out_dims(2)).unwrap();
    assert_eq!(
        l.bases(DimName::OFFSET),
        vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![1, 0], vec![2, 0]]
    );
    assert!(identity_standard_nd(DimName::OFFSET, &[4, 8], &[1, 1]).is_err());
    assert!(identity_standard_nd(DimName::OFFSET, &[4, 6], &[1, 0]).is_err());
}

#[test]
fn ensure_layout_not_larger_than_zeroes_whole_components() {
    // Triton's blocked [4];[4];[4] on shape [8]: 64 → 8; components ≥ 8 are
    // zeroed: register [1, 2], lane [4, 0], warp [0, 0].
    let (r, l, w, o) = (
        DimName::REGISTER,
        DimName::LANE,
        DimName::WARP,
        DimName::dim(0),
    );
    let id = LinearLayout::identity_1d;
    let big = id(4, r, o) * id(4, l, o) * id(4, w, o);
    let s = ensure_layout_not_larger_than(&big, &[(o, 8)], true).unwrap();
    assert_eq!(s.bases(r), vec![vec![1], vec![2]]);
    assert_eq!(s.bases(l), vec![vec![4], vec![0]]);
    assert_eq!(s.bases(w), vec![vec![0], vec![0]]);
    assert_eq!(s.out_dim_size(o), 8);
    // broadcast_registers = false: register bases that became zero go away.
    let regs = id(8, r, o);
    let s = ensure_layout_not_larger_than(&regs, &[(o, 4)], false).unwrap();
    assert_eq!(s.bases(r), vec![vec![1], vec![2]]);
    let s = ensure_layout_not_larger_than(&regs, &[(o, 4)], true).unwrap();
    assert_eq!(s.bases(r), vec![vec![1], vec![2], vec![0]]);
    // Not a power of two, or an unknown dim: errors.
    assert!(ensure_layout_not_larger_than(&regs, &[(o, 3)], true).is_err());
    assert!(ensure_layout_not_larger_than(&regs, &[(d("zz"), 4)], true).is_err());
}

#[test]
fn reshape_and_transpose_layout() {
    // Row-major 4x8 identity: flat = 8 i + j.
    let l = identity_standard_nd(DimName::OFFSET, &[4, 8], &[1, 0])
        .unwrap()
        .transpose_outs(&DimName::standard_out_dims(2))
        .unwrap();
    // As [32]: the identity on the flat index.
    let flat = reshape_layout(&l, &[32]).unwrap();
    assert_eq!(
        flat.bases(DimName::OFFSET),
        vec![vec![1], vec![2], vec![4], vec![8], vec![16]]
    );
    // As [8, 4]: (f / 4, f % 4): 1 → (0,1), 2 → (0,2), 4 → (1,0), 8 → (2,0),
    // 16 → (4,0).
    let r = reshape_layout(&l, &[8, 4]).unwrap();
    assert_eq!(
        r.bases(DimName::OFFSET),
        vec![vec![0, 1], vec![0, 2], vec![1, 0], vec![2, 0], vec![4, 0]]
    );
    assert!(reshape_layout(&l, &[16]).is_err());
    // Transpose [1, 0]: new dim0 = old dim1 (size 8).
    let t = transpose_linear_layout(&l, &[1, 0]).unwrap();
    assert_eq!(
        t.bases(DimName::OFFSET),
        vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![0, 1], vec![0, 2]]
    );
    assert_eq!(
        t.out_dims(),
        vec![(DimName::dim(0), 8), (DimName::dim(1), 4)]
    );
    assert!(transpose_linear_layout(&l, &[0, 0]).is_err());
}

#[test]
fn remove_standard_dim_renames_above() {
    // 3-D identity 2x4x8 (dim2 minor); drop dim0: dim1 → dim0, dim2 → dim1.
    let l = identity_standard_nd(DimName::REGISTER, &[2, 4, 8], &[2, 1, 0])
        .unwrap()
        .transpose_outs(&DimName::standard_out_dims(3))
        .unwrap();
    let r = remove_standard_dim(&l, 0).unwrap();
    assert_eq!(
        r.out_dims(),
        vec![(DimName::dim(0), 4), (DimName::dim(1), 8)]
    );
    // Register bits 0-2 → old dim2 = new dim1; 3-4 → new dim0; 5 → gone.
    assert_eq!(
        r.bases(DimName::REGISTER),
        vec![
            vec![0, 1],
            vec![0, 2],
            vec![0, 4],
            vec![1, 0],
            vec![2, 0],
            vec![0, 0]
        ]
    );
    assert!(matches!(
        remove_standard_dim(&l, 5),
        Err(LayoutError::MissingDim { .. })
    ));
}

#[test]
fn largest_vectorisation_with_register_permutation() {
    // Registers → offsets [2, 1, 8], lane → 4. 32-bit elements: at most 4.
    // identity(4) = offsets [1, 2] after swapping registers 0 and 1; the
    // rest (8, and lane's 4) avoid bits 0-1 → (4, [1, 0, 2]).
    let cvt = lls(
        &[("register", &[&[2], &[1], &[8]]), ("lane", &[&[4]])],
        &[("offset", 16)],
    );
    let (v, perm) = largest_vectorisation(&cvt, DimName::OFFSET, 32, None);
    assert_eq!(v, 4);
    assert_eq!(perm.action(), &[1, 0, 2]);
    // With an explicit max only the identity permutation is allowed: 1.
    let (v, perm) = largest_vectorisation(&cvt, DimName::OFFSET, 32, Some(4));
    assert_eq!(v, 1);
    assert!(perm.is_identity());
    // A max that is not a power of two is rounded down (no panic): 3 → 2,
    // still needing a permutation → 1.
    assert_eq!(
        largest_vectorisation(&cvt, DimName::OFFSET, 32, Some(3)).0,
        1
    );
    // 24-bit elements: 128 / 24 = 5 → 4.
    assert_eq!(largest_vectorisation(&cvt, DimName::OFFSET, 24, None).0, 4);
}

#[test]
fn reg_perm_for_divide_right() {
    // Right division by B (register → 1 in an out dim of size 2) looks for
    // B's basis shifted above the quotient: 1 << (3 - 1) = 4 = A's register
    // 0 → [rest.., matched] = [1, 2, 0].
    let a = lls(&[("register", &[&[4], &[1], &[2]])], &[("dim0", 8)]);
    let b = lls(&[("register", &[&[1]])], &[("dim0", 2)]);
    let p = reg_perm_for_divide(&a, &b, false).unwrap();
    assert_eq!(p.action(), &[1, 2, 0]);
    // Left: B's basis 1 = A's register 1 → [1, 0, 2].
    let p = reg_perm_for_divide(&a, &b, true).unwrap();
    assert_eq!(p.action(), &[1, 0, 2]);
}

#[test]
fn action_remove_broadcasted_regs_keeps_nonzero() {
    let l = lls(&[("register", &[&[1], &[0], &[2], &[0]])], &[("dim0", 4)]);
    assert_eq!(action_remove_broadcasted_regs(&l).action(), &[0, 2]);
    // broadcast_as undoes the removal: 4 values over 16 registers, bits 1
    // and 3 free.
    let v = broadcast_as(&[10, 11, 12, 13], &l).unwrap();
    assert_eq!(&v[..8], &[10, 11, 10, 11, 12, 13, 12, 13]);
    assert_eq!(&v[8..], &v[..8]);
}

#[test]
fn word_size_edges_are_errors_not_panics() {
    // Out size 2^63 is fine; u64::MAX is not a power of two.
    let l = LinearLayout::new(vec![], vec![(d("o"), 1 << 63)], false).unwrap();
    assert_eq!(l.out_dim_size(d("o")), 1 << 63);
    assert!(matches!(
        LinearLayout::new(vec![], vec![(d("o"), u64::MAX)], false),
        Err(LayoutError::NotPowerOfTwo { .. })
    ));
    // A single dim of 64 bits does not fit a u64 size.
    let many: Vec<u64> = (0..64).map(|i| 1u64 << i).collect();
    assert!(LinearLayout::from_packed(vec![(d("i"), many)], vec![(d("o"), 64)], false).is_err());
    // 64 input bits over two dims are fine, but cannot be flattened.
    let l = LinearLayout::identity_1d(1 << 32, d("a"), d("o"))
        * LinearLayout::identity_1d(1 << 32, d("b"), d("p"));
    assert_eq!(l.total_in_dim_size_log2(), 64);
    assert!(l.try_flatten_ins().is_err());
    assert!(l.try_flatten_outs().is_err());
    assert_eq!(l.squeeze_ins(), l);
    assert!(l.table().is_err());
    assert_eq!(l.apply_flat(u64::MAX), u64::MAX);
    // Column actions on absurd sizes.
    assert!(ColumnAction::new(vec![], DimName::REGISTER, 64).is_err());
    // factor_maximal_identity_prefix with an unbounded limit terminates.
    let big = LinearLayout::identity_1d(1 << 63, d("i"), d("o"));
    assert_eq!(
        factor_maximal_identity_prefix(&big, d("i"), d("o"), u64::MAX).0,
        1 << 63
    );
}

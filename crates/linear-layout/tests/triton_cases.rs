//! Our own versions of the behaviour groups of Triton's
//! `unittest/Tools/LinearLayoutTest.cpp` and `LayoutUtilsTest.cpp`, named
//! like Triton's tests (snake_case). Every expected value is derived by hand
//! in a comment (or is a brute-force property), never taken from our output.
//!
//! One file on purpose, although it passes 800 lines: it mirrors Triton's
//! two test files group by group (the `// ----` sections: basics, product,
//! supremum, shape ops, ...), so a reader can put it beside Triton's and
//! check that no case is missing; every test is short and independent.

use linear_layout::utils::{
    basis_mask, broadcast_as, ensure_layout_not_smaller_than, factor_maximal_identity_prefix,
    get_integer_strides, get_reps, input_basis_mask, invert_and_compose_block_local,
    is_image_subset, rename_dims,
};
use linear_layout::{
    divide_left, divide_right, factor_through, supremum, ColumnAction, DimName, LayoutError,
    LinearLayout,
};

fn d(s: &str) -> DimName {
    DimName::new(s)
}

type Bases<'a> = &'a [(&'a str, &'a [&'a [u64]])];

fn to_bases(bases: Bases) -> Vec<(DimName, Vec<Vec<u64>>)> {
    bases
        .iter()
        .map(|(n, bs)| (d(n), bs.iter().map(|b| b.to_vec()).collect()))
        .collect()
}

/// Triton's inferring constructor `LinearLayout(bases, outDimNames)`:
/// out sizes inferred, surjectivity required.
fn ll(bases: Bases, outs: &[&str]) -> LinearLayout {
    LinearLayout::with_inferred_out_sizes(to_bases(bases), outs.iter().map(|o| d(o)).collect())
        .unwrap()
}

/// Triton's `LinearLayout(bases, outDims, requireSurjective)`.
fn lls(bases: Bases, outs: &[(&str, u64)], surj: bool) -> LinearLayout {
    LinearLayout::new(
        to_bases(bases),
        outs.iter().map(|(o, s)| (d(o), *s)).collect(),
        surj,
    )
    .unwrap()
}

fn id(size: u64, i: &str, o: &str) -> LinearLayout {
    LinearLayout::identity_1d(size, d(i), d(o))
}

fn zeros(size: u64, i: &str, o: &str) -> LinearLayout {
    LinearLayout::zeros_1d(size, d(i), d(o), 1)
}

fn names(v: impl Iterator<Item = DimName>) -> Vec<String> {
    v.map(|x| x.to_string()).collect()
}

/// Brute force: `a(c(x)) == b(x)` for every input `x` of `b` (by name).
fn assert_factors(a: &LinearLayout, c: &LinearLayout, b: &LinearLayout) {
    let b_ins = b.in_dims();
    let total: u64 = b_ins.iter().map(|x| x.1).product();
    for x in 0..total {
        let mut rest = x;
        let input: Vec<(DimName, u64)> = b_ins
            .iter()
            .map(|&(n, s)| {
                let v = rest % s;
                rest /= s;
                (n, v)
            })
            .collect();
        let mid = c.apply(&input).unwrap();
        let got = a.apply(&mid).unwrap();
        let want = b.apply(&input).unwrap();
        for (name, v) in want {
            let g = got.iter().find(|p| p.0 == name).unwrap().1;
            assert_eq!(g, v, "out dim {name} at input {input:?}");
        }
    }
}

// ---------------------------------------------------------------- basics

#[test]
fn empty() {
    let l = LinearLayout::empty();
    assert!(l.all_bases().is_empty());
    assert_eq!(l.in_dim_names().count(), 0);
    assert_eq!(l.out_dim_names().count(), 0);
}

#[test]
fn identity_1d() {
    // identity1D(32): bases 2^0..2^4, out size 32 (2^5).
    let l = id(32, "testIns", "testOuts");
    assert_eq!(
        l,
        ll(
            &[("testIns", &[&[1], &[2], &[4], &[8], &[16]])],
            &["testOuts"]
        )
    );
    assert_eq!(names(l.in_dim_names()), ["testIns"]);
    assert_eq!(names(l.out_dim_names()), ["testOuts"]);
    assert_eq!(l.in_dim_size_log2(d("testIns")), 5);
    assert_eq!(l.out_dim_size_log2(d("testOuts")), 5);
}

#[test]
fn identity_1d_size1() {
    // Size 1: the in dim exists with no bases; the out dim has size 1.
    let l = id(1, "testIns", "testOuts");
    assert_eq!(l, ll(&[("testIns", &[])], &["testOuts"]));
    assert_eq!(l.in_dim_size_log2(d("testIns")), 0);
    assert_eq!(l.out_dim_size_log2(d("testOuts")), 0);
    assert_eq!(names(l.out_dim_names()), ["testOuts"]);
}

#[test]
fn zeros_1d() {
    // 32 = 2^5 zero bases, out size 1.
    let l = zeros(32, "ins", "outs");
    assert_eq!(
        l,
        ll(&[("ins", &[&[0], &[0], &[0], &[0], &[0]])], &["outs"])
    );
    assert_eq!(l.out_dim_size(d("outs")), 1);
}

#[test]
fn construct_large_layout() {
    // 25 bases 2^i into one out dim: out size 2^25 inferred, surjective.
    let bases: Vec<Vec<u64>> = (0..25).map(|i| vec![1u64 << i]).collect();
    let l = LinearLayout::with_inferred_out_sizes(vec![(d("in"), bases)], vec![d("out")]).unwrap();
    assert_eq!(l.out_dim_size(d("out")), 1 << 25);
    assert!(l.is_invertible());
}

#[test]
fn get_out_dim_size_log2() {
    // Largest component 2 → inferred size 4 → log2 2.
    let l = ll(
        &[("in0", &[&[0], &[0], &[0]]), ("in1", &[&[1], &[2]])],
        &["dim0"],
    );
    assert_eq!(l.out_dim_size_log2(d("dim0")), 2);
}

#[test]
fn equals_checks_out_dim_sizes() {
    // Same bases {1, 2}, out size 4 vs 8: unequal, but equal ignoring sizes.
    let a = id(4, "in", "out");
    let b = lls(&[("in", &[&[1], &[2]])], &[("out", 8)], false);
    assert!(a != b);
    assert!(a.equal_ignoring_out_dim_sizes(&b));
}

// ---------------------------------------------------------------- product

#[test]
fn multiply_identity() {
    // id16 * id32 on the same dims: 4 + 5 = 9 bases 2^0..2^8.
    let p = id(16, "in", "out") * id(32, "in", "out");
    let want: Vec<Vec<u64>> = (0..9).map(|i| vec![1u64 << i]).collect();
    assert_eq!(p.bases(d("in")), want);
    assert_eq!(p.out_dim_size(d("out")), 512);
    assert_eq!(names(p.in_dim_names()), ["in"]);
    assert_eq!(names(p.out_dim_names()), ["out"]);
}

#[test]
fn multiply_disjoint() {
    // Disjoint dims: block-diagonal, first operand's dims first.
    let p = id(32, "in1", "out1") * id(16, "in2", "out2");
    assert_eq!(
        p,
        ll(
            &[
                ("in1", &[&[1, 0], &[2, 0], &[4, 0], &[8, 0], &[16, 0]]),
                ("in2", &[&[0, 1], &[0, 2], &[0, 4], &[0, 8]]),
            ],
            &["out1", "out2"]
        )
    );
    assert_eq!(names(p.in_dim_names()), ["in1", "in2"]);
    assert_eq!(names(p.out_dim_names()), ["out1", "out2"]);
}

#[test]
fn multiply_by_empty() {
    assert_eq!(
        LinearLayout::empty() * id(32, "in", "out"),
        id(32, "in", "out")
    );
    assert_eq!(
        id(32, "in", "out") * LinearLayout::empty(),
        id(32, "in", "out")
    );
}

#[test]
fn multiply_by_zeros() {
    // id8 then 4 zero bases (zeros out size 1 shifts nothing).
    let p = id(8, "in", "out") * zeros(16, "in", "out");
    assert_eq!(
        p,
        ll(
            &[("in", &[&[1], &[2], &[4], &[0], &[0], &[0], &[0]])],
            &["out"]
        )
    );
}

#[test]
fn multiply_zeros_by_degenerate() {
    // A size-1 in dim with a new out dim of size 1 adds a 0 component.
    let p = zeros(16, "in", "out1") * ll(&[("in", &[])], &["out2"]);
    assert_eq!(
        p,
        ll(
            &[("in", &[&[0, 0], &[0, 0], &[0, 0], &[0, 0]])],
            &["out1", "out2"]
        )
    );
}

#[test]
fn multiply_empty_identity_and_zeros() {
    // identity1D(0) is the empty layout.
    let p = LinearLayout::identity_1d(0, d("in"), d("out")) * zeros(4, "in", "out");
    assert_eq!(p, ll(&[("in", &[&[0], &[0]])], &["out"]));
}

#[test]
fn multiply_overlapping() {
    // Same in dim, different out dims: in bits 0-1 → out1, bits 2-4 → out2.
    let p = id(4, "in", "out1") * id(8, "in", "out2");
    assert_eq!(
        p,
        ll(
            &[("in", &[&[1, 0], &[2, 0], &[0, 1], &[0, 2], &[0, 4]])],
            &["out1", "out2"]
        )
    );
}

#[test]
fn times_equals() {
    let mut p = LinearLayout::empty();
    p *= id(32, "in", "out");
    assert_eq!(p, id(32, "in", "out"));
    p *= &id(2, "in", "out");
    assert_eq!(p, id(64, "in", "out"));
}

#[test]
fn multiply_inconsistent_order_follows_the_first_operand() {
    // Ins [a, b] vs [b, a]: Triton's merge (the code, not its comment) keeps
    // the first operand's order; the bases of each dim still concatenate.
    // x = a:1→1, b:1→2 (out size 4); y = b:1→1, a:1→2 shifted by 4.
    let x = id(2, "a", "o") * id(2, "b", "o");
    let y = id(2, "b", "o") * id(2, "a", "o");
    let p = x.try_mul(&y).unwrap();
    let names: Vec<_> = p.in_dim_names().map(|d| d.as_str()).collect();
    assert_eq!(names, vec!["a", "b"]);
    assert_eq!(p.bases(DimName::new("a")), vec![vec![1], vec![8]]);
    assert_eq!(p.bases(DimName::new("b")), vec![vec![2], vec![4]]);
    // The strict `supremum` still reports the inconsistency.
    let [a, b] = ["a", "b"].map(DimName::new);
    assert!(matches!(
        supremum(&[a, b], &[b, a]),
        Err(LayoutError::NoSupremum { .. })
    ));
}

// ---------------------------------------------------------------- supremum

#[test]
fn supremum_identical_lists() {
    let x = [d("a"), d("b"), d("c")];
    assert_eq!(supremum(&x, &x).unwrap(), x);
}

#[test]
fn supremum_non_unique_first_list_priority() {
    // [a, b] vs [a, c]: b and c are both free after a; the first list wins.
    assert_eq!(
        supremum(&[d("a"), d("b")], &[d("a"), d("c")]).unwrap(),
        [d("a"), d("b"), d("c")]
    );
    // And symmetrically the other way round.
    assert_eq!(
        supremum(&[d("a"), d("c")], &[d("a"), d("b")]).unwrap(),
        [d("a"), d("c"), d("b")]
    );
}

#[test]
fn supremum_non_unique_alternate() {
    // [a, b] vs [b, c] → [a, b, c].
    assert_eq!(
        supremum(&[d("a"), d("b")], &[d("b"), d("c")]).unwrap(),
        [d("a"), d("b"), d("c")]
    );
    // [b, c] vs [a, b]: a must precede b → [a, b, c].
    assert_eq!(
        supremum(&[d("b"), d("c")], &[d("a"), d("b")]).unwrap(),
        [d("a"), d("b"), d("c")]
    );
}

#[test]
fn supremum_different_lengths() {
    assert_eq!(
        supremum(&[d("a"), d("b"), d("c")], &[d("a"), d("d")]).unwrap(),
        [d("a"), d("b"), d("c"), d("d")]
    );
}

#[test]
fn supremum_empty_lists() {
    assert!(supremum(&[], &[]).unwrap().is_empty());
}

#[test]
fn supremum_one_empty_list() {
    assert_eq!(supremum(&[d("a"), d("b")], &[]).unwrap(), [d("a"), d("b")]);
    assert_eq!(supremum(&[], &[d("a"), d("b")]).unwrap(), [d("a"), d("b")]);
}

#[test]
fn supremum_error_on_inconsistent_order() {
    assert!(matches!(
        supremum(&[d("a"), d("b")], &[d("b"), d("a")]),
        Err(LayoutError::NoSupremum { .. })
    ));
}

// ---------------------------------------------------------------- shape ops

#[test]
fn transpose_outs() {
    let l = (id(32, "in1", "out1") * id(16, "in2", "out2"))
        .transpose_outs(&[d("out2"), d("out1")])
        .unwrap();
    assert_eq!(names(l.out_dim_names()), ["out2", "out1"]);
    assert_eq!(
        l,
        ll(
            &[
                ("in1", &[&[0, 1], &[0, 2], &[0, 4], &[0, 8], &[0, 16]]),
                ("in2", &[&[1, 0], &[2, 0], &[4, 0], &[8, 0]]),
            ],
            &["out2", "out1"]
        )
    );
}

#[test]
fn transpose_outs_degenerate() {
    let l = (id(32, "in1", "out1") * id(1, "in2", "out2"))
        .transpose_outs(&[d("out2"), d("out1")])
        .unwrap();
    assert_eq!(names(l.out_dim_names()), ["out2", "out1"]);
    assert_eq!(
        l,
        ll(
            &[
                ("in1", &[&[0, 1], &[0, 2], &[0, 4], &[0, 8], &[0, 16]]),
                ("in2", &[]),
            ],
            &["out2", "out1"]
        )
    );
}

#[test]
fn transpose_ins() {
    let l = (id(32, "in1", "out1") * id(16, "in2", "out2"))
        .transpose_ins(&[d("in2"), d("in1")])
        .unwrap();
    assert_eq!(names(l.in_dim_names()), ["in2", "in1"]);
    assert_eq!(
        l,
        ll(
            &[
                ("in2", &[&[0, 1], &[0, 2], &[0, 4], &[0, 8]]),
                ("in1", &[&[1, 0], &[2, 0], &[4, 0], &[8, 0], &[16, 0]]),
            ],
            &["out1", "out2"]
        )
    );
    // Not a permutation: an error.
    assert!(l.transpose_ins(&[d("in2")]).is_err());
    assert!(l.transpose_ins(&[d("in2"), d("in2")]).is_err());
}

#[test]
fn reshape_ins() {
    // Flat bases [1, 4, 8, 2] re-split as 2 (one basis) and 8 (three).
    let l = ll(&[("in1", &[&[1], &[4], &[8]]), ("in2", &[&[2]])], &["out"]);
    assert_eq!(
        l.reshape_ins(&[(d("in3"), 2), (d("in4"), 8)]).unwrap(),
        ll(&[("in3", &[&[1]]), ("in4", &[&[4], &[8], &[2]])], &["out"])
    );
}

#[test]
fn reshape_ins_degenerate_in() {
    let l = ll(&[("in1", &[&[1], &[4], &[2]]), ("in2", &[])], &["out"]);
    assert_eq!(
        l.reshape_ins(&[(d("in3"), 4), (d("in4"), 2)]).unwrap(),
        ll(&[("in3", &[&[1], &[4]]), ("in4", &[&[2]])], &["out"])
    );
}

#[test]
fn reshape_ins_degenerate_out() {
    let l = ll(&[("in1", &[&[1], &[4]]), ("in2", &[&[2]])], &["out"]);
    assert_eq!(
        l.reshape_ins(&[(d("in3"), 8), (d("in4"), 1)]).unwrap(),
        ll(&[("in3", &[&[1], &[4], &[2]]), ("in4", &[])], &["out"])
    );
}

#[test]
fn reshape_ins_degenerate_first_out() {
    let l = ll(&[("in1", &[&[1], &[4]]), ("in2", &[&[2]])], &["out"]);
    assert_eq!(
        l.reshape_ins(&[(d("in3"), 1), (d("in4"), 8)]).unwrap(),
        ll(&[("in3", &[]), ("in4", &[&[1], &[4], &[2]])], &["out"])
    );
    // Wrong total or a non-power of two: errors.
    assert!(l.reshape_ins(&[(d("in3"), 4)]).is_err());
    assert!(l.reshape_ins(&[(d("in3"), 3), (d("in4"), 8)]).is_err());
}

#[test]
fn flatten_ins() {
    let l = ll(&[("in1", &[&[1], &[4], &[8]]), ("in2", &[&[2]])], &["out"]);
    assert_eq!(
        l.flatten_ins(),
        ll(&[("in1", &[&[1], &[4], &[8], &[2]])], &["out"])
    );
}

#[test]
fn flatten_ins_edge_cases() {
    let a = ll(&[("in1", &[])], &["out"]);
    assert_eq!(a.flatten_ins(), a);
    let b = ll(&[("in1", &[])], &[]);
    assert_eq!(b.flatten_ins(), b);
    let c = ll(&[], &["out"]);
    assert_eq!(c.flatten_ins(), c);
    let e = ll(&[], &[]);
    assert_eq!(e.flatten_ins(), e);
}

#[test]
fn reshape_outs() {
    // Flat out size 16: basis 3 = 0b0011 → (out2 = 1, out3 = 1); 4 → (0, 2).
    let l = ll(&[("in1", &[&[1], &[4], &[8]]), ("in2", &[&[3]])], &["out"]);
    assert_eq!(l.total_out_dim_size(), 16);
    assert_eq!(
        l.reshape_outs(&[(d("out2"), 2), (d("out3"), 8)]).unwrap(),
        ll(
            &[("in1", &[&[1, 0], &[0, 2], &[0, 4]]), ("in2", &[&[1, 1]])],
            &["out2", "out3"]
        )
    );
}

#[test]
fn reshape_outs_degenerate_in() {
    // 4 → (out1 = 0, out2 = 1), 2 → (2, 0) with out1 of size 4.
    let l = ll(&[("in1", &[&[1], &[4], &[2]]), ("in2", &[])], &["out"]);
    assert_eq!(
        l.reshape_outs(&[(d("out1"), 4), (d("out2"), 2)]).unwrap(),
        ll(
            &[("in1", &[&[1, 0], &[0, 1], &[2, 0]]), ("in2", &[])],
            &["out1", "out2"]
        )
    );
}

#[test]
fn reshape_outs_degenerate_out() {
    let l = ll(&[("in1", &[&[1], &[4]]), ("in2", &[&[2]])], &["out"]);
    assert_eq!(
        l.reshape_outs(&[(d("out1"), 8), (d("out2"), 1)]).unwrap(),
        ll(
            &[("in1", &[&[1, 0], &[4, 0]]), ("in2", &[&[2, 0]])],
            &["out1", "out2"]
        )
    );
}

#[test]
fn flatten_outs() {
    // Flat value = out1 + 16 * out2.
    let l = lls(
        &[("in1", &[&[1, 0], &[4, 1], &[8, 4]]), ("in2", &[&[3, 2]])],
        &[("out1", 16), ("out2", 8)],
        false,
    );
    assert_eq!(
        l.flatten_outs(),
        lls(
            &[
                ("in1", &[&[1], &[4 + 16], &[8 + 4 * 16]]),
                ("in2", &[&[3 + 2 * 16]])
            ],
            &[("out1", 16 * 8)],
            false
        )
    );
}

#[test]
fn flatten_outs_edge_cases() {
    let a = ll(&[("in1", &[])], &["out"]);
    assert_eq!(a.flatten_outs(), a);
    let b = ll(&[("in1", &[])], &[]);
    assert_eq!(b.flatten_outs(), b);
    let c = ll(&[], &["out"]);
    assert_eq!(c.flatten_outs(), c);
    let e = ll(&[], &[]);
    assert_eq!(e.flatten_outs(), e);
}

#[test]
fn resize_in_dim() {
    // Growing appends zero bases; shrinking drops the highest ones.
    let l = ll(&[("in", &[&[1], &[2]]), ("other", &[&[4]])], &["out"]);
    let grown = l.resize_in_dim(d("in"), 8).unwrap();
    assert_eq!(grown.bases(d("in")), vec![vec![1], vec![2], vec![0]]);
    assert_eq!(grown.bases(d("other")), vec![vec![4]]);
    let shrunk = l.resize_in_dim(d("in"), 2).unwrap();
    assert_eq!(shrunk.bases(d("in")), vec![vec![1]]);
    assert_eq!(shrunk.out_dim_size(d("out")), 8);
    assert!(!shrunk.is_surjective());
    assert!(l.resize_in_dim(d("in"), 3).is_err());
    assert!(l.resize_in_dim(d("nope"), 2).is_err());
}

#[test]
fn concat_requires_disjoint_dimensions() {
    let a = id(4, "in", "out");
    let err = a.concat_ins(&a).unwrap_err().to_string();
    assert!(err.contains("disjoint input dimensions"), "{err}");
    let err = a.concat_outs(&a).unwrap_err().to_string();
    assert!(err.contains("disjoint output dimensions"), "{err}");
    // Disjoint: concat_ins is x ⊕ y.
    let b = lls(&[("in2", &[&[3]])], &[("out", 4)], false);
    let c = a.concat_ins(&b).unwrap();
    assert_eq!(c.bases(d("in2")), vec![vec![3]]);
    assert_eq!(names(c.in_dim_names()), ["in", "in2"]);
}

#[test]
fn sublayout() {
    let l1 = ll(
        &[("in1", &[&[1, 0], &[0, 1], &[2, 0]]), ("in2", &[&[0, 1]])],
        &["out1", "out2"],
    );
    let want = ll(&[("in1", &[&[1], &[0], &[2]]), ("in2", &[&[0]])], &["out1"]);
    assert_eq!(
        l1.sublayout(&[d("in1"), d("in2")], &[d("out1")]).unwrap(),
        want
    );
    // Argument order does not matter: the layout's own order is kept.
    assert_eq!(
        l1.sublayout(&[d("in2"), d("in1")], &[d("out1")]).unwrap(),
        want
    );
    assert_eq!(
        l1.sublayout(&[d("in2"), d("in1")], &[d("out2"), d("out1")])
            .unwrap(),
        l1
    );
    assert_eq!(
        l1.sublayout(&[d("in1")], &[d("out1")]).unwrap(),
        ll(&[("in1", &[&[1], &[0], &[2]])], &["out1"])
    );
    assert_eq!(l1.sublayout(&[], &[]).unwrap(), LinearLayout::empty());
    assert_eq!(
        l1.sublayout(&[d("in1")], &[]).unwrap(),
        ll(&[("in1", &[&[], &[], &[]])], &[])
    );
    assert_eq!(
        l1.sublayout(&[], &[d("out1")]).unwrap(),
        lls(&[], &[("out1", 4)], false)
    );
    assert!(l1.sublayout(&[d("zzz")], &[]).is_err());
}

#[test]
fn sublayout_is_zero() {
    let i = id(4, "in", "out");
    assert!(!i.sublayout_is_zero(&[d("in")], &[d("out")]));
    assert!(i.sublayout_is_zero(&[], &[d("out")]));
    assert!(i.sublayout_is_zero(&[d("in")], &[]));
    assert!(i.sublayout_is_zero(&[], &[]));
    let l1 = ll(
        &[("in1", &[&[0, 1], &[0, 2]]), ("in2", &[&[1, 1]])],
        &["out1", "out2"],
    );
    assert!(l1.sublayout_is_zero(&[d("in1")], &[d("out1")]));
    assert!(!l1.sublayout_is_zero(&[d("in1")], &[d("out2")]));
    assert!(!l1.sublayout_is_zero(&[d("in2")], &[d("out1")]));
    assert!(!l1.sublayout_is_zero(&[d("in2")], &[d("out2")]));
}

// ---------------------------------------------------------------- apply, compose

#[test]
fn apply() {
    let l = lls(
        &[
            ("in1", &[&[4, 2], &[2, 1], &[1, 0]]),
            ("in2", &[&[1, 2], &[2, 1]]),
        ],
        &[("out1", 8), ("out2", 4)],
        false,
    );
    let v = |x: &[(&str, u64)]| -> Vec<(String, u64)> {
        l.apply(&x.iter().map(|(n, v)| (d(n), *v)).collect::<Vec<_>>())
            .unwrap()
            .iter()
            .map(|(n, v)| (n.to_string(), *v))
            .collect()
    };
    let p = |a: u64, b: u64| vec![("out1".to_string(), a), ("out2".to_string(), b)];
    assert_eq!(v(&[("in1", 0), ("in2", 0)]), p(0, 0));
    // in1 = 1 → basis 0 of in1 = (4, 2); any input order.
    assert_eq!(v(&[("in2", 0), ("in1", 1)]), p(4, 2));
    assert_eq!(v(&[("in2", 1), ("in1", 0)]), p(1, 2));
    // in1 = 7, in2 = 3: (4^2^1 ^ 1^2, 2^1^0 ^ 2^1) = (4, 0).
    assert_eq!(v(&[("in1", 7), ("in2", 3)]), p(4, 0));
    // Missing or unknown dims: errors.
    assert!(l.apply(&[(d("in1"), 1)]).is_err());
    assert!(l.apply(&[(d("in1"), 1), (d("zz"), 0)]).is_err());
    // A dim named twice (and another missing) is an error, as in Triton
    // (the named dims must equal the in dims as a set).
    assert!(matches!(
        l.apply(&[(d("in1"), 1), (d("in1"), 2)]),
        Err(LayoutError::DuplicateDim { .. })
    ));
}

#[test]
fn compose() {
    // l1(in1=1) = (1,1); l2(out1=1) ^ l2(out2=1) = (2,2)^(1,1) = (3,3).
    let l1 = ll(
        &[("in1", &[&[1, 1], &[0, 1]]), ("in2", &[&[1, 0], &[1, 2]])],
        &["out1", "out2"],
    );
    let l2 = ll(
        &[("out1", &[&[2, 2], &[1, 0]]), ("out2", &[&[1, 1], &[2, 1]])],
        &["out3", "out4"],
    );
    let c = l1.compose(&l2).unwrap();
    // in1=2 → (0,1) → l2(out2=1) = (1,1); in2=1 → (1,0) → (2,2);
    // in2=2 → (1,2) → (2,2)^(2,1) = (0,3).
    assert_eq!(
        c,
        lls(
            &[("in1", &[&[3, 3], &[1, 1]]), ("in2", &[&[2, 2], &[0, 3]])],
            &[("out3", 4), ("out4", 4)],
            false
        )
    );
    assert!(!c.is_surjective());
}

#[test]
fn compose_4d() {
    let l1 = ll(
        &[
            ("in0", &[&[1, 0, 0, 0], &[2, 0, 0, 0]]),
            (
                "in1",
                &[&[4, 0, 0, 0], &[8, 0, 0, 0], &[16, 0, 0, 0], &[32, 0, 0, 0]],
            ),
            ("in2", &[&[0, 0, 1, 0], &[0, 0, 0, 1], &[0, 0, 0, 2]]),
            ("in3", &[]),
        ],
        &["out3", "out0", "out1", "out2"],
    );
    let l2 = ll(
        &[
            (
                "out3",
                &[
                    &[1, 0, 0, 0],
                    &[2, 0, 0, 0],
                    &[0, 0, 0, 0],
                    &[0, 0, 0, 0],
                    &[0, 0, 0, 0],
                    &[0, 0, 0, 0],
                ],
            ),
            ("out0", &[&[0, 1, 0, 0]]),
            ("out1", &[&[0, 0, 1, 0]]),
            ("out2", &[&[0, 0, 0, 1], &[0, 0, 0, 2]]),
        ],
        &["out3", "out2", "out1", "out0"],
    );
    // in1's values 4..32 of out3 hit l2's zero bases 2..5 → all zero;
    // in2 maps out1 → out1 and out2 → out2 unchanged.
    assert_eq!(
        l1.compose(&l2).unwrap(),
        lls(
            &[
                ("in0", &[&[1, 0, 0, 0], &[2, 0, 0, 0]]),
                (
                    "in1",
                    &[&[0, 0, 0, 0], &[0, 0, 0, 0], &[0, 0, 0, 0], &[0, 0, 0, 0]]
                ),
                ("in2", &[&[0, 0, 1, 0], &[0, 0, 0, 1], &[0, 0, 0, 2]]),
                ("in3", &[]),
            ],
            &[("out3", 4), ("out2", 2), ("out1", 2), ("out0", 4)],
            false
        )
    );
}

#[test]
fn compose_rejects_mismatched_dims() {
    let a = id(8, "x", "y");
    assert!(matches!(
        a.compose(&id(8, "z", "w")),
        Err(LayoutError::DimMismatch { .. })
    ));
    // Out size 8 does not fit an outer in size 4.
    assert!(matches!(
        a.compose(&id(4, "y", "w")),
        Err(LayoutError::SizeMismatch { .. })
    ));
}

// ---------------------------------------------------------------- invert & compose

#[test]
fn invert_and_compose_simple() {
    // l2^-1: out 1 → in2=2, 2 → 4, 4 → 1. l2^-1(l1(1)) = l2^-1(2) = 4,
    // l2^-1(l1(2)) = l2^-1(1) = 2, l2^-1(l1(4)) = l2^-1(4) = 1.
    let l1 = ll(&[("in1", &[&[2], &[1], &[4]])], &["out"]);
    let l2 = ll(&[("in2", &[&[4], &[1], &[2]])], &["out"]);
    let c = l1.invert_and_compose(&l2).unwrap();
    assert_eq!(c, ll(&[("in1", &[&[4], &[2], &[1]])], &["in2"]));
    assert_eq!(c.compose(&l2).unwrap(), l1);
}

#[test]
fn invert_and_compose_larger_a() {
    // The shared layout covers 256x128, the register layout 64x64.
    let reg = ll(
        &[
            ("register", &[&[0, 1], &[0, 2], &[0, 4], &[0, 32], &[32, 0]]),
            ("lane", &[&[0, 8], &[0, 16], &[1, 0], &[2, 0], &[4, 0]]),
            ("warp", &[&[8, 0], &[16, 0]]),
            ("block", &[]),
        ],
        &["dim0", "dim1"],
    );
    let shared = ll(
        &[
            (
                "offset",
                &[
                    &[0, 1],
                    &[0, 2],
                    &[0, 4],
                    &[0, 8],
                    &[0, 16],
                    &[0, 32],
                    &[0, 64],
                    &[1, 8],
                    &[2, 16],
                    &[4, 32],
                    &[8, 0],
                    &[16, 0],
                    &[32, 0],
                    &[64, 0],
                    &[128, 0],
                ],
            ),
            ("block", &[]),
        ],
        &["dim0", "dim1"],
    );
    // (0, 2^k) for k < 7 is offset 2^k; (32, 0) is offset bit 12 = 4096;
    // (1, 0) = (1, 8) ^ (0, 8) = offset 2^7 ^ 2^3 = 136; likewise 272, 544;
    // (8, 0) = 2^10, (16, 0) = 2^11.
    let want = lls(
        &[
            (
                "register",
                &[&[1, 0], &[2, 0], &[4, 0], &[32, 0], &[4096, 0]],
            ),
            (
                "lane",
                &[&[8, 0], &[16, 0], &[136, 0], &[272, 0], &[544, 0]],
            ),
            ("warp", &[&[1024, 0], &[2048, 0]]),
            ("block", &[]),
        ],
        &[("offset", 32768), ("block", 1)],
        false,
    );
    assert_eq!(reg.invert_and_compose(&shared).unwrap(), want);
    assert_eq!(reg.compose(&shared.invert().unwrap()).unwrap(), want);
}

#[test]
fn invert_and_compose_non_injective() {
    // l2 = [0, 2, 1, 4]: the pivots are bits 1, 2, 3 (bit 0 is zero), so the
    // pseudo-inverse is 1 → 4, 2 → 2, 4 → 8. With l1 = [2, 1, 4]:
    // 2 → 2, 1 → 4, 4 → 8. Out size 16, not surjective.
    let l1 = ll(&[("in1", &[&[2], &[1], &[4]])], &["out"]);
    let l2 = ll(&[("in2", &[&[0], &[2], &[1], &[4]])], &["out"]);
    let c = l1.invert_and_compose(&l2).unwrap();
    assert_eq!(
        c,
        lls(&[("in1", &[&[2], &[4], &[8]])], &[("in2", 16)], false)
    );
    assert!(!c.is_surjective());
    assert_eq!(c.compose(&l2).unwrap(), l1);
}

#[test]
fn invert_and_compose_broadcasted_in_dim() {
    // in2 of l1 is broadcast (zero) → maps to 0.
    let l1 = ll(&[("in1", &[&[2], &[1], &[4]]), ("in2", &[&[0]])], &["out"]);
    let l2 = ll(&[("in", &[&[4], &[1], &[2]])], &["out"]);
    let c = l1.invert_and_compose(&l2).unwrap();
    assert_eq!(
        c,
        ll(&[("in1", &[&[4], &[2], &[1]]), ("in2", &[&[0]])], &["in"])
    );
    assert_eq!(c.compose(&l2).unwrap(), l1);
}

#[test]
fn invert_and_compose_broadcast_at_beginning_of_second() {
    // Same dim name "in" but different bases: no identity shortcut.
    // l2 = [0, 4, 1, 2]: 1 → bit 2 (4), 2 → bit 3 (8), 4 → bit 1 (2).
    let l1 = ll(&[("in", &[&[1], &[2], &[4]])], &["out"]);
    let l2 = ll(&[("in", &[&[0], &[4], &[1], &[2]])], &["out"]);
    let c = l1.invert_and_compose(&l2).unwrap();
    assert_eq!(c, lls(&[("in", &[&[4], &[8], &[2]])], &[("in", 16)], false));
    assert_eq!(c.compose(&l2).unwrap(), l1);
}

#[test]
fn invert_and_compose_broadcast_at_end_of_second() {
    // l2 = [4, 1, 2, 0]: 1 → 2, 2 → 4, 4 → 1.
    let l1 = ll(&[("in1", &[&[1], &[2], &[4]])], &["out"]);
    let l2 = ll(&[("in2", &[&[4], &[1], &[2], &[0]])], &["out"]);
    let c = l1.invert_and_compose(&l2).unwrap();
    assert_eq!(
        c,
        lls(&[("in1", &[&[2], &[4], &[1]])], &[("in2", 16)], false)
    );
    assert!(c.compose(&l2).unwrap().equal_ignoring_out_dim_sizes(&l1));
}

#[test]
fn invert_and_compose_broadcast_beginning_and_end_of_second() {
    // l2 = [0, 4, 1, 2, 0]: 1 → 4, 2 → 8, 4 → 2; out size 32.
    let l1 = ll(&[("in", &[&[1], &[2], &[4]])], &["out"]);
    let l2 = ll(&[("in", &[&[0], &[4], &[1], &[2], &[0]])], &["out"]);
    let c = l1.invert_and_compose(&l2).unwrap();
    assert_eq!(c, lls(&[("in", &[&[4], &[8], &[2]])], &[("in", 32)], false));
    assert_eq!(c.compose(&l2).unwrap(), l1);
}

#[test]
fn invert_and_compose_multidim() {
    let l1 = ll(
        &[
            ("in1", &[&[1, 0], &[0, 1], &[2, 0], &[3, 2]]),
            ("in2", &[&[2, 2]]),
        ],
        &["out1", "out2"],
    );
    let l2 = ll(
        &[("in3", &[&[0, 1], &[1, 0], &[0, 0], &[0, 2], &[2, 1]])],
        &["out2", "out1"],
    );
    let c1 = l1.invert_and_compose(&l2).unwrap();
    assert_eq!(
        c1.compose(&l2).unwrap(),
        l1.transpose_outs(&[d("out2"), d("out1")]).unwrap()
    );
    let c2 = l2.invert_and_compose(&l1).unwrap();
    assert_eq!(
        c2.compose(&l1).unwrap(),
        l2.transpose_outs(&[d("out1"), d("out2")]).unwrap()
    );
}

#[test]
fn invert_and_compose_broadcasted_dims() {
    // in4's zero basis is never a pivot: in1 → in3 identity, in2 → 0.
    let l1 = ll(&[("in1", &[&[1], &[2], &[4]]), ("in2", &[&[0]])], &["out"]);
    let l2 = ll(&[("in3", &[&[1], &[2], &[4]]), ("in4", &[&[0]])], &["out"]);
    let c = l1.invert_and_compose(&l2).unwrap();
    assert_eq!(
        c,
        lls(
            &[("in1", &[&[1, 0], &[2, 0], &[4, 0]]), ("in2", &[&[0, 0]])],
            &[("in3", 8), ("in4", 2)],
            false
        )
    );
    assert_eq!(
        c.compose(&l2).unwrap(),
        l1.transpose_outs(&[d("out")]).unwrap()
    );
}

#[test]
fn invert_and_compose_broadcasted_dims2() {
    let a = ll(&[("in1", &[&[1], &[2]]), ("in2", &[&[0]])], &["out"]);
    let b = ll(&[("in3", &[&[2], &[1]]), ("in4", &[&[0]])], &["out"]);
    let c = a.invert_and_compose(&b).unwrap();
    // 1 = b(in3=2), 2 = b(in3=1).
    assert_eq!(
        c,
        lls(
            &[("in1", &[&[2, 0], &[1, 0]]), ("in2", &[&[0, 0]])],
            &[("in3", 4), ("in4", 2)],
            false
        )
    );
    assert_eq!(c.compose(&b).unwrap(), a);
}

#[test]
fn invert_and_compose_identity_in_dim() {
    // 9 one-bit out dims; register is equal in both (an identity dim), lane
    // and warp are permuted.
    let outs: Vec<String> = (0..9).map(|i| format!("dim{i}")).collect();
    let outs: Vec<&str> = outs.iter().map(|s| s.as_str()).collect();
    let unit = |k: usize| -> Vec<u64> { (0..9).map(|j| u64::from(j == k)).collect() };
    let mk = |reg: &[usize], lane: &[usize], warp: &[usize]| {
        LinearLayout::with_inferred_out_sizes(
            vec![
                (DimName::REGISTER, reg.iter().map(|&k| unit(k)).collect()),
                (DimName::LANE, lane.iter().map(|&k| unit(k)).collect()),
                (DimName::WARP, warp.iter().map(|&k| unit(k)).collect()),
                (DimName::BLOCK, vec![]),
            ],
            outs.iter().map(|o| d(o)).collect(),
        )
        .unwrap()
    };
    let src = mk(&[8, 7], &[6, 5, 4, 3, 2], &[1, 0]);
    let dst = mk(&[8, 7], &[0, 1, 2, 3, 4], &[5, 6]);
    let cvt = dst.invert_and_compose(&src).unwrap();
    // Register is the identity (its bases agree in both layouts).
    assert_eq!(
        cvt.bases(DimName::REGISTER),
        vec![vec![1, 0, 0, 0], vec![2, 0, 0, 0]]
    );
    // And dst(x) = src(cvt(x)) for every x, not only Triton's one point.
    assert_factors(&src, &cvt, &dst);
}

#[test]
fn invert_and_compose_identity_dim_heuristic_beats_pivots() {
    // Both layouts broadcast over warp (zero bases): warp maps to itself
    // (identity), not to warp 0 as the pivot rule alone would give.
    let a = ll(
        &[("lane", &[&[1], &[2]]), ("warp", &[&[0], &[0]])],
        &["dim0"],
    );
    let b = ll(
        &[("lane", &[&[2], &[1]]), ("warp", &[&[0], &[0]])],
        &["dim0"],
    );
    let c = b.invert_and_compose(&a).unwrap();
    assert_eq!(c.bases(d("warp")), vec![vec![0, 1], vec![0, 2]]);
    assert_eq!(c.bases(d("lane")), vec![vec![2, 0], vec![1, 0]]);
    // Without a shared name the pivot rule maps warp to 0.
    let a2 = a.rename_in_dim(d("warp"), d("warp2")).unwrap();
    let c2 = b.invert_and_compose(&a2).unwrap();
    assert_eq!(c2.bases(d("warp")), vec![vec![0, 0], vec![0, 0]]);
}

#[test]
fn invert_and_compose_identity_dims_must_be_untouched() {
    // register has equal bases in both, but this lane basis 3 shares output
    // bit 0 with it, so (as Triton 3.9 does) register is not an identity dim
    // and is solved with the rest: lane 3 = outer register (1) ^ outer lane
    // (2) → (register 1, lane 1); register → register.
    let this = ll(&[("register", &[&[1]]), ("lane", &[&[3]])], &["dim0"]);
    let outer = ll(&[("register", &[&[1]]), ("lane", &[&[2]])], &["dim0"]);
    let c = this.invert_and_compose(&outer).unwrap();
    assert_eq!(c.bases(DimName::REGISTER), vec![vec![1, 0]]);
    assert_eq!(c.bases(DimName::LANE), vec![vec![1, 1]]);
    assert_factors(&outer, &c, &this);
}

#[test]
fn invert_and_compose_identity_heuristic_triton_39() {
    // Found by differential testing against Triton 3.9: a dim with equal
    // bases in both layouts is only kept as the identity when no other in
    // dim touches its output bits. Here lane = [1, 2, 2] in both; with the
    // outer's warp = 5 touching bit 0, lane is solved instead: its third
    // basis 2 goes to the pivot lane bit 1 (2), not to itself (4).
    let this = ll(&[("lane", &[&[1], &[2], &[2]])], &["d"]);
    let outer_touch = lls(
        &[("lane", &[&[1], &[2], &[2]]), ("warp", &[&[5]])],
        &[("d", 8)],
        false,
    );
    let this8 = lls(&[("lane", &[&[1], &[2], &[2]])], &[("d", 8)], false);
    let c = this8.invert_and_compose(&outer_touch).unwrap();
    assert_eq!(c.bases(d("lane")), vec![vec![1, 0], vec![2, 0], vec![2, 0]]);
    // With warp = 4 (disjoint bits) lane is the identity: 1, 2, 4.
    let outer_apart = lls(
        &[("lane", &[&[1], &[2], &[2]]), ("warp", &[&[4]])],
        &[("d", 8)],
        false,
    );
    let c = this8.invert_and_compose(&outer_apart).unwrap();
    assert_eq!(c.bases(d("lane")), vec![vec![1, 0], vec![2, 0], vec![4, 0]]);
    // Alone, lane is the identity too.
    let c = this.invert_and_compose(&this).unwrap();
    assert_eq!(c.bases(d("lane")), vec![vec![1], vec![2], vec![4]]);
}

#[test]
fn invert_and_compose_not_covered_is_an_error() {
    // outer reaches only even values; this layout needs 1.
    let this = id(4, "x", "o");
    let outer = lls(&[("y", &[&[2], &[0]])], &[("o", 4)], false);
    assert!(matches!(
        this.invert_and_compose(&outer),
        Err(LayoutError::NotCovered)
    ));
    // Outer out size smaller than this one's: an error, not a panic.
    assert!(this.invert_and_compose(&id(2, "y", "o")).is_err());
}

#[test]
fn invert_and_compose1() {
    // A 2-D register → shared conversion with a swizzle: shared offset
    // bits 0-2 are columns, 3-4 rows with col ^= row (a 4x8 tile).
    let reg = ll(
        &[
            ("register", &[&[0, 1], &[0, 2]]),
            ("lane", &[&[0, 4], &[1, 0], &[2, 0]]),
        ],
        &["dim0", "dim1"],
    );
    let shared = ll(
        &[("offset", &[&[0, 1], &[0, 2], &[0, 4], &[1, 1], &[2, 2]])],
        &["dim0", "dim1"],
    );
    let c = reg.invert_and_compose(&shared).unwrap();
    // (1, 0) = (1, 1) ^ (0, 1) = offset 8 ^ 1 = 9; (2, 0) = 16 ^ 2 = 18.
    assert_eq!(c.bases(DimName::REGISTER), vec![vec![1], vec![2]]);
    assert_eq!(c.bases(DimName::LANE), vec![vec![4], vec![9], vec![18]]);
    assert_factors(&shared, &c, &reg);
}

#[test]
fn invert_and_compose_block_local_test() {
    // Source A is replicated over block (zero block basis); destination B
    // reads element 2 from block 1. Plain invert_and_compose reads it from
    // block 0 (lane 1); the block-local form reads block 1's own copy.
    let a = ll(
        &[("register", &[&[1]]), ("lane", &[&[2]]), ("block", &[&[0]])],
        &["dim0"],
    );
    let b = ll(&[("register", &[&[1]]), ("block", &[&[2]])], &["dim0"]);
    let plain = b.invert_and_compose(&a).unwrap();
    // C out dims are A's in dims: (register, lane, block).
    assert_eq!(plain.bases(DimName::BLOCK), vec![vec![0, 1, 0]]);
    let local = invert_and_compose_block_local(&a, &b).unwrap();
    assert_eq!(local.bases(DimName::BLOCK), vec![vec![0, 1, 1]]);
    assert_eq!(local.bases(DimName::REGISTER), vec![vec![1, 0, 0]]);
    assert_factors(&a, &local, &b);
    assert_factors(&a, &plain, &b);
}

#[test]
fn factor_through_basic() {
    // A = [1, 0, 2] (pivots: bits 0 and 2). B = [2, 3]:
    // 2 = A(bit 2) → X = 4; 3 = A(bit 0) ^ A(bit 2) → X = 5.
    let a = ll(&[("x", &[&[1], &[0], &[2]])], &["o"]);
    let b = ll(&[("y", &[&[2], &[3]])], &["o"]);
    let x = factor_through(&a, &b).unwrap().unwrap();
    assert_eq!(x, lls(&[("y", &[&[4], &[5]])], &[("x", 8)], false));
    assert_eq!(x.compose(&a).unwrap(), b);
    // Image not contained: None.
    let a2 = lls(&[("x", &[&[1]])], &[("o", 4)], false);
    let b2 = lls(&[("y", &[&[2]])], &[("o", 4)], false);
    assert_eq!(factor_through(&a2, &b2).unwrap(), None);
}

#[test]
fn factor_through_more_than_64_combined_columns() {
    // A: 40-bit identity; B: 40 input bits with scrambled images. Together
    // 80 columns; X must equal B's bases read as A's input.
    let a = id(1 << 40, "x", "o");
    let bases: Vec<Vec<u64>> = (0..40u64)
        .map(|i| vec![(1u64 << ((7 * i) % 40)) ^ ((1u64 << ((7 * i + 3) % 40)) * (i % 2))])
        .collect();
    let b = LinearLayout::new(
        vec![(d("y"), bases.clone())],
        vec![(d("o"), 1 << 40)],
        false,
    )
    .unwrap();
    let x = factor_through(&a, &b).unwrap().unwrap();
    assert_eq!(x.bases(d("y")), bases);
    assert_eq!(x.out_dims(), vec![(d("x"), 1u64 << 40)]);
}

#[test]
fn pseudoinvert_and_invert() {
    // Non-invertible: invert is an error, pseudoinvert still a right inverse.
    let l = ll(&[("x", &[&[1], &[1], &[2]])], &["o"]);
    assert!(matches!(l.invert(), Err(LayoutError::NotInvertible { .. })));
    let p = l.pseudoinvert().unwrap();
    // Pivots are bits 0 and 2: o=1 → x=1, o=2 → x=4.
    assert_eq!(p.bases(d("o")), vec![vec![1], vec![4]]);
    assert_eq!(p.compose(&l).unwrap(), id(4, "o", "o"));
}

// ---------------------------------------------------------------- queries

#[test]
fn num_consecutive_in_out() {
    assert_eq!(id(1, "in", "out").num_consecutive_in_out(), 1);
    assert_eq!(id(4, "in", "out").num_consecutive_in_out(), 4);
    // First in dim is in1 (size 4): 4.
    assert_eq!(
        (id(4, "in1", "out") * id(8, "in2", "out")).num_consecutive_in_out(),
        4
    );
    assert_eq!(
        (id(4, "in", "out1") * id(8, "in", "out2")).num_consecutive_in_out(),
        4
    );
    // First basis is 0 in out1: 1.
    assert_eq!(
        (zeros(4, "in", "out1") * id(4, "in", "out2")).num_consecutive_in_out(),
        1
    );
    // 9 is odd: another basis touches bit 0 → 1.
    assert_eq!(
        ll(&[("in", &[&[1], &[2], &[4], &[9]])], &["out"]).num_consecutive_in_out(),
        1
    );
    // 10 = 0b1010 touches bit 1 → 2.
    assert_eq!(
        ll(&[("in", &[&[1], &[2], &[4], &[10]])], &["out"]).num_consecutive_in_out(),
        2
    );
    // [1, 4, 2]: only basis 0 is in place → 2.
    assert_eq!(
        ll(&[("in", &[&[1], &[4], &[2]])], &["out"]).num_consecutive_in_out(),
        2
    );
    // in2's 18 = 0b10010 touches bit 1 → 2.
    assert_eq!(
        ll(
            &[("in", &[&[1], &[2], &[4]]), ("in2", &[&[8], &[18]])],
            &["out"]
        )
        .num_consecutive_in_out(),
        2
    );
}

#[test]
fn free_variable_masks() {
    assert_eq!(id(4, "in", "out").free_variable_masks(), vec![(d("in"), 0)]);
    assert_eq!(
        zeros(16, "in", "out").free_variable_masks(),
        vec![(d("in"), 0b1111)]
    );
    // Bases [1, 0, 0, 2, 4, 0]: the zeros (bits 1, 2, 5) are free.
    let l = id(2, "in", "out") * zeros(4, "in", "out") * id(4, "in", "out") * zeros(2, "in", "out");
    assert_eq!(l.free_variable_masks(), vec![(d("in"), 0b100110)]);
    // in1 = [(1,1), (2,2), 0], in2 = [(1,0), (0,1), (2,0)]:
    // in1 bit 2 is zero; in2 bit 1: (0,1) = (1,1) ^ (1,0) is dependent;
    // in2 bit 2: (2,0) is new (only (2,2) had a 2 before).
    let l = ll(
        &[
            ("in1", &[&[1, 1], &[2, 2], &[0, 0]]),
            ("in2", &[&[1, 0], &[0, 1], &[2, 0]]),
        ],
        &["out1", "out2"],
    );
    assert_eq!(
        l.free_variable_masks(),
        vec![(d("in1"), 0b100), (d("in2"), 0b10)]
    );
}

#[test]
fn quotient_one_dimension() {
    let l = lls(
        &[("dim1", &[&[1, 0]]), ("dim2", &[&[0, 0]])],
        &[("dim1", 2), ("dim2", 1)],
        false,
    );
    let q = l.quotient(&[d("dim1")]).unwrap();
    assert_eq!(q, zeros(2, "dim2", "dim2"));
    // dim2 is zero, not the identity.
    assert!(q.quotient(&[d("dim2")]).is_none());
}

#[test]
fn quotient_several_dimensions() {
    let l = ll(
        &[
            ("dim1", &[&[1, 0], &[2, 0], &[4, 0]]),
            ("dim2", &[&[0, 1], &[0, 2]]),
        ],
        &["dim1", "dim2"],
    );
    assert!(l.quotient(&[d("dim1"), d("dim2")]).is_some());
}

#[test]
fn quotient_multiple_trivial_dimensions() {
    let l = ll(
        &[
            ("dim1", &[&[1, 0, 2], &[2, 0, 1]]),
            ("dim2", &[&[0, 1, 0], &[0, 2, 0], &[0, 4, 0]]),
            ("dim3", &[&[0, 0, 1], &[0, 0, 2]]),
        ],
        &["dim1", "dim2", "dim3"],
    );
    // dim2 is untouched by the others and touches only itself.
    assert!(l.quotient(&[d("dim2")]).is_some());
    let l = ll(
        &[
            ("dim1", &[&[1, 0, 2], &[2, 0, 1]]),
            ("dim2", &[&[0, 1, 0], &[0, 2, 0], &[0, 4, 0]]),
            ("dim3", &[&[0, 1, 1], &[0, 0, 2]]),
        ],
        &["dim1", "dim2", "dim3"],
    );
    // dim3 now writes into out dim2.
    assert!(l.quotient(&[d("dim2")]).is_none());
}

#[test]
fn quotient_empty_layout() {
    assert!(LinearLayout::empty().quotient(&[d("dim1")]).is_none());
}

#[test]
fn quotient_identity_multiple_dimensions() {
    let l = id(8, "dim1", "dim1") * id(2, "dim2", "dim2") * id(4, "dim3", "dim3");
    let q = l.quotient(&[d("dim1"), d("dim3")]).unwrap();
    assert_eq!(q, id(2, "dim2", "dim2"));
    assert!(q.quotient(&[d("dim2")]).is_some());
}

// ---------------------------------------------------------------- real-world

/// (row, col) of packed 8-bit data → offset in a buffer padded to twice the
/// width: every 8 packed bytes are followed by 8 bytes of padding.
fn packed_coord_to_padded_offset(m: u64, k_packed: u64) -> LinearLayout {
    let off = |lin: u64| (lin / 8) * 16 + lin % 8;
    let rows: Vec<Vec<u64>> = (0..m.trailing_zeros())
        .map(|i| vec![off((1u64 << i) * k_packed)])
        .collect();
    let cols: Vec<Vec<u64>> = (0..k_packed.trailing_zeros())
        .map(|j| vec![off(1u64 << j)])
        .collect();
    LinearLayout::new(
        vec![(d("row"), rows), (d("col"), cols)],
        vec![(d("offset"), m * k_packed * 2)],
        false,
    )
    .unwrap()
}

#[test]
fn blackwell_mixed_precision_dot_scaled_smem() {
    let (m, num_fp4) = (16u64, 128u64);
    let k_packed = num_fp4 / m / 2; // 4
    let k_padded = num_fp4 / m; // 8
    let bases: Vec<Vec<u64>> = (0..(m * k_padded).trailing_zeros())
        .map(|i| {
            let offset = 1u64 << i;
            let lin = offset / 16 * 8 + offset % 8;
            vec![lin / k_packed, lin % k_packed]
        })
        .collect();
    let layout =
        LinearLayout::with_inferred_out_sizes(vec![(d("offset"), bases)], vec![d("row"), d("col")])
            .unwrap();
    let inv = layout.pseudoinvert().unwrap();
    let manual = packed_coord_to_padded_offset(m, k_packed);
    for i in 0..m {
        for j in 0..k_packed {
            let a = manual.apply(&[(d("row"), i), (d("col"), j)]).unwrap();
            let b = inv.apply(&[(d("row"), i), (d("col"), j)]).unwrap();
            assert_eq!(a[0].1, b[0].1, "row {i} col {j}");
        }
    }
}

#[test]
fn blackwell_mixed_precision_dot_scaled_smem_swizzled() {
    let (m, k_padded) = (16u64, 128u64);
    let k_packed = k_padded / 2;
    let (tile_rows, tile_cols, vec_) = (8u64, 8 * 128 / 8, 16u64);
    let packed = |c: u64| c / 16 * 8 + c % 8;
    let mut bases = Vec::new();
    let mut c = 1;
    while c < tile_cols {
        bases.push(vec![0, packed(c)]);
        c *= 2;
    }
    let mut r = 1;
    while r < tile_rows {
        bases.push(vec![r, packed(vec_ * (r % 8))]);
        r *= 2;
    }
    let sw =
        LinearLayout::with_inferred_out_sizes(vec![(d("offset"), bases)], vec![d("row"), d("col")])
            .unwrap();
    let sw = ensure_layout_not_smaller_than(&sw, &[(d("row"), m), (d("col"), k_packed)]).unwrap();
    let inv = sw.pseudoinvert().unwrap();
    let plain = packed_coord_to_padded_offset(m, k_packed);
    for i in 0..m {
        for j in 0..k_packed {
            let off = plain.apply(&[(d("row"), i), (d("col"), j)]).unwrap()[0].1;
            let got = inv.apply(&[(d("row"), i), (d("col"), j)]).unwrap()[0].1;
            let (row, col) = (off / k_padded, off % k_padded);
            let col_sw = ((col / 16) ^ (row % 8)) * 16 + col % 16;
            assert_eq!(row * k_padded + col_sw, got, "row {i} col {j}");
        }
    }
}

// ---------------------------------------------------------------- division

#[test]
fn divide_basic() {
    let b = id(8, "in", "out");
    let c = zeros(16, "in", "out");
    assert_eq!(divide_left(&(&b * &c), &b), Some(c.clone()));
    assert_eq!(divide_right(&(&b * &c), &c), Some(b.clone()));
    assert_eq!(divide_left(&(&c * &b), &c), Some(b.clone()));
    assert_eq!(divide_right(&(&c * &b), &b), Some(c));
}

#[test]
fn divide_non_matching_dims() {
    let a = id(32, "in", "out");
    let b = ll(
        &[("in", &[&[1], &[2], &[4], &[8]]), ("extra", &[&[0]])],
        &["out"],
    );
    assert_eq!(divide_left(&a, &b), None);
    assert_eq!(divide_right(&a, &b), None);
}

#[test]
fn divide_simple() {
    let a = id(8, "in", "out");
    assert_eq!(
        divide_left(&a, &id(4, "in", "out")),
        Some(id(2, "in", "out"))
    );
    assert_eq!(
        divide_right(&a, &id(4, "in", "out")),
        Some(id(2, "in", "out"))
    );
    assert_eq!(divide_left(&a, &a), Some(id(1, "in", "out")));
    assert_eq!(divide_right(&a, &a), Some(id(1, "in", "out")));
}

#[test]
fn divide_2d() {
    let l1 = ll(
        &[
            ("in1", &[&[1, 1], &[2, 2], &[0, 8], &[0, 4]]),
            ("in2", &[&[0, 2], &[0, 1]]),
        ],
        &["out1", "out2"],
    );
    let l2 = ll(
        &[("in1", &[&[1, 1], &[2, 2]]), ("in2", &[&[0, 2], &[0, 1]])],
        &["out1", "out2"],
    );
    let l3 = ll(
        &[("in1", &[&[0, 2], &[0, 1]]), ("in2", &[])],
        &["out1", "out2"],
    );
    // l2 * l3: l3's out2 components are shifted by log2(4) = 2: 2 → 8, 1 → 4.
    assert_eq!(&l2 * &l3, l1);
    assert_eq!(divide_left(&l1, &l2), Some(l3.clone()));
    assert_eq!(divide_right(&l1, &l3), Some(l2));
}

#[test]
fn divide_eliminate_in_dim() {
    let l1 = ll(
        &[("in2", &[&[0, 1], &[1, 0]]), ("in1", &[&[2, 0], &[0, 2]])],
        &["out1", "out2"],
    );
    let l2 = ll(&[("in2", &[&[0, 1], &[1, 0]])], &["out1", "out2"]);
    let l3 = ll(
        &[("in2", &[]), ("in1", &[&[1, 0], &[0, 1]])],
        &["out1", "out2"],
    );
    assert_eq!(&l2 * &l3, l1);
    assert_eq!(divide_left(&l1, &l2), Some(l3));

    let l2 = ll(
        &[("in2", &[&[0, 1], &[1, 0]]), ("in1", &[])],
        &["out1", "out2"],
    );
    let l3 = ll(&[("in1", &[&[1, 0], &[0, 1]])], &["out1", "out2"]);
    assert_eq!(&l2 * &l3, l1);
    assert_eq!(divide_right(&l1, &l3), Some(l2));

    let l4 = ll(
        &[("in1", &[&[0, 1], &[0, 2]]), ("in2", &[])],
        &["out1", "out2"],
    );
    let l5 = ll(&[("in1", &[&[0, 1], &[0, 2]])], &["out1", "out2"]);
    let l6 = ll(&[("in1", &[]), ("in2", &[])], &["out1", "out2"]);
    assert_eq!(&l5 * &l6, l4);
    assert_eq!(divide_left(&l4, &l5), Some(l6.clone()));
    assert_eq!(divide_right(&l4, &l5), Some(l6));

    let l7 = ll(
        &[("in1", &[]), ("in2", &[&[0, 1]]), ("in3", &[])],
        &["out1", "out2"],
    );
    let l8 = ll(&[("in2", &[&[0, 1]])], &["out1", "out2"]);
    let l9 = ll(
        &[("in1", &[]), ("in2", &[]), ("in3", &[])],
        &["out1", "out2"],
    );
    assert_eq!(&l8 * &l9, l7);
    assert_eq!(divide_left(&l7, &l8), Some(l9.clone()));
    assert_eq!(divide_right(&l7, &l8), Some(l9));
}

#[test]
fn divide_eliminate_out_dim() {
    let l1 = ll(
        &[("in2", &[&[1, 0], &[1, 0]]), ("in1", &[&[2, 0], &[0, 1]])],
        &["out1", "out2"],
    );
    let l2 = ll(&[("in2", &[&[1], &[1]])], &["out1"]);
    let l3 = ll(
        &[("in2", &[]), ("in1", &[&[1, 0], &[0, 1]])],
        &["out1", "out2"],
    );
    assert_eq!(&l2 * &l3, l1);
    assert_eq!(divide_left(&l1, &l2), Some(l3));

    let l1 = ll(
        &[("in2", &[&[1, 0], &[0, 2]]), ("in1", &[&[0, 1], &[0, 2]])],
        &["out1", "out2"],
    );
    let l2 = ll(&[("in2", &[&[1]]), ("in1", &[&[1]])], &["out2"]);
    let l3 = ll(
        &[("in2", &[&[1, 0]]), ("in1", &[&[0, 1]])],
        &["out1", "out2"],
    );
    assert_eq!(&l3 * &l2, l1);
    assert_eq!(divide_right(&l1, &l2), Some(l3));

    let l4 = ll(&[("in1", &[&[0, 1], &[0, 2]])], &["out1", "out2"]);
    let l5 = ll(&[], &["out1"]);
    let l6 = ll(&[("in1", &[&[0, 1], &[0, 2]])], &["out1", "out2"]);
    assert_eq!(&l5 * &l6, l4);
    assert_eq!(divide_left(&l4, &l5), Some(l6.clone()));
    assert_eq!(divide_right(&l4, &l5), Some(l6));
}

#[test]
fn divide_of_non_product_is_none() {
    // [1, 4, 2]: the prefix identity(4) would need basis 1 = 2.
    let a = ll(&[("in", &[&[1], &[4], &[2]])], &["out"]);
    assert_eq!(divide_left(&a, &id(4, "in", "out")), None);
    // Later basis 3 overlaps the low bit of identity(2).
    let a = ll(&[("in", &[&[1], &[3]])], &["out"]);
    assert_eq!(divide_left(&a, &id(2, "in", "out")), None);
    // Right: the top basis must be the divisor's basis shifted (2 expected).
    let a = ll(&[("in", &[&[2], &[1]])], &["out"]);
    assert_eq!(divide_right(&a, &id(2, "in", "out")), None);
}

// ---------------------------------------------------------------- ColumnAction

#[test]
fn column_action_apply_layout() {
    let l = ll(&[("in", &[&[1], &[2], &[4]])], &["out"]);
    let a = ColumnAction::new(vec![2, 0, 1], d("in"), 3).unwrap();
    assert_eq!(
        a.apply(&l).unwrap(),
        ll(&[("in", &[&[4], &[1], &[2]])], &["out"])
    );
    // Dropping the third basis and swapping the first two keeps out size 8.
    let a = ColumnAction::new(vec![1, 0], d("in"), 3).unwrap();
    assert_eq!(
        a.apply(&l).unwrap(),
        lls(&[("in", &[&[2], &[1]])], &[("out", 8)], false)
    );
    // Not a selection of distinct columns: an error.
    assert!(ColumnAction::new(vec![1, 1], d("in"), 3).is_err());
    assert!(ColumnAction::new(vec![3], d("in"), 3).is_err());
}

#[test]
fn column_action_apply_values() {
    // [2, 0, 1]: new bit 0 is old bit 2, ... → x0, x4, x1, x5, x2, x6, x3, x7.
    let v: Vec<u32> = (1..=8).collect();
    let a = ColumnAction::new(vec![2, 0, 1], DimName::REGISTER, 3).unwrap();
    assert_eq!(a.apply_values(&v).unwrap(), vec![1, 5, 2, 6, 3, 7, 4, 8]);
    // [2, 1]: drops bit 0 → x0, x4, x2, x6.
    let a = ColumnAction::new(vec![2, 1], DimName::REGISTER, 3).unwrap();
    assert_eq!(a.apply_values(&v).unwrap(), vec![1, 5, 3, 7]);
    assert!(a.apply_values(&v[..4]).is_err());
}

// ---------------------------------------------------------------- toString

#[test]
fn empty_to_string() {
    assert_eq!(LinearLayout::empty().to_string(), "\n(empty layout)");
    assert_eq!(format!("{:#}", LinearLayout::empty()), "(empty layout)");
    assert_eq!(
        ll(&[], &["dim0"]).to_string(),
        "\n(empty layout with out-dims [dim0 (size 1)])"
    );
}

#[test]
fn to_string_format() {
    let l = id(4, "lane", "dim0") * id(2, "warp", "dim1") * id(1, "block", "dim0");
    let want = "\n - lane=1 -> (1, 0)\n   lane=2 -> (2, 0)\n - warp=1 -> (0, 1)\n - block is a size 1 dimension\nwhere out dims are: [dim0 (size 4), dim1 (size 2)]";
    assert_eq!(l.to_string(), want);
}

// ================================================================ LayoutUtils

#[test]
fn square_sublayout_is_identity() {
    assert!(id(4, "in", "in").square_sublayout_is_identity(&[d("in")]));
    assert!(id(4, "in", "in").square_sublayout_is_identity(&[]));
    let l1 = lls(
        &[
            ("in1", &[&[1, 1], &[2, 2], &[4, 4]]),
            ("in2", &[&[2, 1], &[1, 2]]),
        ],
        &[("in1", 8), ("in2", 8)],
        false,
    );
    assert!(l1.square_sublayout_is_identity(&[d("in1")]));
    // in2 has 4 inputs but 8 outputs.
    assert!(!l1.square_sublayout_is_identity(&[d("in2")]));
    // in1 → in1 of size 8 (4 * 2), in2 → 16, in3 → 2 with basis (4, 8, 1).
    let l2 = id(4, "in1", "in1")
        * id(8, "in2", "in2")
        * lls(
            &[("in3", &[&[1, 1, 1]])],
            &[("in1", 2), ("in2", 2), ("in3", 2)],
            false,
        );
    assert!(!l2.square_sublayout_is_identity(&[d("in1")]));
    assert!(!l2.square_sublayout_is_identity(&[d("in2")]));
    assert!(l2.square_sublayout_is_identity(&[d("in3")]));
    assert!(!l2.square_sublayout_is_identity(&[d("in1"), d("in2")]));
    let l3 = id(4, "in1", "in1") * id(8, "in2", "in2");
    assert!(l3.square_sublayout_is_identity(&[d("in1")]));
    assert!(l3.square_sublayout_is_identity(&[d("in2")]));
    assert!(l3.square_sublayout_is_identity(&[d("in1"), d("in2")]));
    // Flattened check (Triton): ins [a, b], outs [b, a] is not the identity.
    let l4 = (id(2, "a", "a") * id(2, "b", "b"))
        .transpose_outs(&[d("b"), d("a")])
        .unwrap();
    assert!(!l4.square_sublayout_is_identity(&[d("a"), d("b")]));
}

#[test]
fn integer_strides() {
    let l = ll(
        &[("x", &[&[2], &[4]]), ("y", &[&[1]]), ("broadcast", &[&[0]])],
        &["out"],
    );
    assert_eq!(get_integer_strides(&l, d("out"), &[d("x")]), Some(vec![2]));
    assert_eq!(basis_mask(&l, &[d("x")], d("out")), 0b110);
    assert_eq!(
        get_integer_strides(&l, d("out"), &[d("x"), d("y"), d("broadcast")]),
        Some(vec![2, 1, 0])
    );
    assert_eq!(basis_mask(&l, &[d("broadcast")], d("out")), 0);
}

#[test]
fn integer_strides_reject_non_integer_and_overlapping() {
    // [4, 2, 1] is not stride << i.
    let l = ll(&[("x", &[&[4], &[2], &[1]])], &["out"]);
    assert_eq!(get_integer_strides(&l, d("out"), &[d("x")]), None);
    // y's 2 overlaps x's mask 0b11.
    let l = lls(
        &[("x", &[&[1], &[2]]), ("y", &[&[2]])],
        &[("out", 4)],
        false,
    );
    assert_eq!(get_integer_strides(&l, d("out"), &[d("x")]), None);
    assert_eq!(get_integer_strides(&l, d("out"), &[d("x"), d("y")]), None);
}

#[test]
fn basis_mask_test() {
    let l = lls(
        &[
            ("x", &[&[1, 8], &[2, 16]]),
            ("y", &[&[4, 1]]),
            ("broadcast", &[&[0, 0]]),
        ],
        &[("out0", 8), ("out1", 32)],
        false,
    );
    assert_eq!(basis_mask(&l, &[d("x")], d("out0")), 0b0011);
    assert_eq!(basis_mask(&l, &[d("x"), d("y")], d("out0")), 0b0111);
    assert_eq!(
        basis_mask(&l, &[d("x"), d("broadcast")], d("out1")),
        0b11000
    );
    assert_eq!(basis_mask(&l, &[], d("out0")), 0);
}

#[test]
fn input_basis_mask_test() {
    let l = lls(
        &[
            ("x", &[&[1, 0], &[0, 2], &[0, 0], &[4, 8]]),
            ("y", &[&[2, 0]]),
        ],
        &[("out0", 8), ("out1", 16)],
        false,
    );
    assert_eq!(input_basis_mask(&l, d("x"), &[d("out0")]), 0b1001);
    assert_eq!(input_basis_mask(&l, d("x"), &[d("out1")]), 0b1010);
    assert_eq!(
        input_basis_mask(&l, d("x"), &[d("out0"), d("out1")]),
        0b1011
    );
    assert_eq!(input_basis_mask(&l, d("x"), &[]), 0);
}

#[test]
fn factor_maximal_identity_prefix_test() {
    // x = [1, 2, 8], other = [4]: identity(4) divides (8 and 4 avoid bits
    // 0-1), identity(8) would need x's third basis to be 4.
    let l = lls(
        &[("x", &[&[1], &[2], &[8]]), ("other", &[&[4]])],
        &[("out", 16)],
        false,
    );
    let (size, q) = factor_maximal_identity_prefix(&l, d("x"), d("out"), 8);
    assert_eq!(size, 4);
    assert_eq!(&id(size, "x", "out") * &q, l);
}

#[test]
fn rename_dims_preserves_order() {
    let l = lls(
        &[("a", &[&[1, 0]]), ("b", &[&[0, 1]])],
        &[("x", 2), ("y", 2)],
        true,
    );
    let r = rename_dims(
        &l,
        &[(d("a"), d("b")), (d("b"), d("a"))],
        &[(d("x"), d("y")), (d("y"), d("x"))],
    )
    .unwrap();
    assert_eq!(names(r.in_dim_names()), ["b", "a"]);
    assert_eq!(names(r.out_dim_names()), ["y", "x"]);
    assert_eq!(
        r,
        lls(
            &[("b", &[&[1, 0]]), ("a", &[&[0, 1]])],
            &[("y", 2), ("x", 2)],
            true
        )
    );
    assert_eq!(
        names(l.rename_in_dim(d("a"), d("c")).unwrap().in_dim_names()),
        ["c", "b"]
    );
    // Collisions and missing dims are errors.
    assert!(rename_dims(&l, &[(d("a"), d("b"))], &[]).is_err());
    assert!(rename_dims(&l, &[(d("q"), d("r"))], &[]).is_err());
}

#[test]
fn image_subset() {
    let superset = lls(
        &[("x", &[&[1, 1], &[2, 0]])],
        &[("out0", 4), ("out1", 2)],
        false,
    );
    // (out0 = 3, out1 = 1) = (1,1) ^ (2,0); out dims in the other order.
    let subset = lls(&[("other", &[&[1, 3]])], &[("out1", 2), ("out0", 4)], false);
    // (1, 0): an odd out0 always comes with out1 = 1 in the superset.
    let outside = lls(&[("other", &[&[1, 0]])], &[("out0", 4), ("out1", 2)], false);
    let smaller = lls(&[("other", &[&[1, 1]])], &[("out0", 2), ("out1", 2)], false);
    let wrong = lls(&[("other", &[&[1]])], &[("different", 2)], false);
    assert!(is_image_subset(&subset, &superset));
    assert!(is_image_subset(&smaller, &superset));
    assert!(!is_image_subset(&superset, &subset));
    assert!(!is_image_subset(&outside, &superset));
    assert!(!is_image_subset(&subset, &wrong));
}

#[test]
fn get_reps_with_subset_of_output_dims() {
    let cvt = ll(&[("in", &[&[1, 0], &[0, 1]])], &["out0", "out1"]);
    let tile = ll(&[("in", &[&[1]])], &["out0"]);
    // The tile's basis is zeroed; the rest (0, 1) avoids the tile's bits.
    assert_eq!(
        get_reps(&cvt, &tile),
        Some(lls(
            &[("in", &[&[0, 0], &[0, 1]])],
            &[("out0", 2), ("out1", 2)],
            false
        ))
    );
}

#[test]
fn broadcast_as_uses_free_variables() {
    // register = [1, 0, 1]: bit 1 is zero and bit 2 repeats bit 0, so both
    // are free; 2 distinct values spread over 8 registers by bit 0.
    let l = lls(&[("register", &[&[1], &[0], &[1]])], &[("dim0", 2)], false);
    assert_eq!(
        broadcast_as(&["a", "b"], &l).unwrap(),
        vec!["a", "b", "a", "b", "a", "b", "a", "b"]
    );
    assert!(broadcast_as(&["a"], &l).is_err());
}

//! The §4.1 matrix of the paper's layout A, transcribed by hand from the
//! paper, against `BitMatrix` of layout A built from 1-D products.

use layout_view::BitMatrix;
use linear_layout::{DimName, LinearLayout};

/// Layout A: sizePerThread [2, 2], threadsPerWarp [4, 8], warpsPerCTA
/// [2, 1], order [1, 0] on 16×16 (dim1 = j is the fastest dim).
fn layout_a() -> LinearLayout {
    let (reg, lane, warp) = (DimName::REGISTER, DimName::LANE, DimName::WARP);
    let (d0, d1) = (DimName::dim(0), DimName::dim(1));
    let id = LinearLayout::identity_1d;
    let a = id(2, reg, d1) * id(2, reg, d0) * id(8, lane, d1) * id(4, lane, d0) * id(2, warp, d0);
    a.transpose_outs(&[d0, d1]).unwrap()
}

#[test]
fn paper_matrix_a() {
    // The paper's matrix: rows j[0..4] then i[0..4]; columns Reg[0..2],
    // Thr[0..5], Wrp[0].
    let paper = [
        "10000000", "00100000", "00010000", "00001000", // j
        "01000000", "00000100", "00000010", "00000001", // i
    ];
    let m = BitMatrix::of(&layout_a());
    let order = [
        "dim1[0]", "dim1[1]", "dim1[2]", "dim1[3]", "dim0[0]", "dim0[1]", "dim0[2]", "dim0[3]",
    ];
    for (want, label) in paper.iter().zip(order) {
        let r = m.row_labels.iter().position(|l| l == label).unwrap();
        let got: String = m.bits[r].iter().map(|b| b.to_string()).collect();
        assert_eq!(&got, want, "row {label}");
    }
    assert_eq!(
        m.col_labels,
        [
            "register[0]",
            "register[1]",
            "lane[0]",
            "lane[1]",
            "lane[2]",
            "lane[3]",
            "lane[4]",
            "warp[0]"
        ]
    );
}

#[test]
fn text_form() {
    // Hand-written: the columns of layout A grouped by input dim.
    let want = &r#"
         register  lane       warp
         0 1       0 1 2 3 4  0
dim0[0]  0 1       0 0 0 0 0  0
dim0[1]  0 0       0 0 0 1 0  0
dim0[2]  0 0       0 0 0 0 1  0
dim0[3]  0 0       0 0 0 0 0  1
dim1[0]  1 0       0 0 0 0 0  0
dim1[1]  0 0       1 0 0 0 0  0
dim1[2]  0 0       0 1 0 0 0  0
dim1[3]  0 0       0 0 1 0 0  0
"#[1..];
    assert_eq!(layout_view::matrix_text(&layout_a()), want);
}

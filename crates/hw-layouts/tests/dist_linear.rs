//! `#ttg.linear` / `#ttg.generic_linear` and the linear-layout printers.

use hw_layouts::linear::{distributed_linear_mlir, shared_linear_mlir};
use hw_layouts::syntax::Attribute;
use hw_layouts::Encoding;
use linear_layout::{DimName, LinearLayout};
use serde_json::json;

fn parse(text: &str) -> Encoding {
    Encoding::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// When the tensor differs from the bases' extent, Triton re-fits the
/// layout. Expected bases: Triton 3.9.0's `to_linear_layout` of a Gluon
/// `DistributedLinearLayout` with these bases at these shapes.
#[test]
fn linear_refits_to_other_shapes_like_triton() {
    let l = parse("#ttg.linear<{register = [[0, 1], [4, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [0, 8]], warp = [[8, 0]], block = []}>");
    // Larger: repetitions in the layout's order (dim1 first: the first
    // register basis moves dim1).
    assert_eq!(
        l.to_linear_layout(&[32, 64]).unwrap().bases_json(),
        json!({"register": [[0, 1], [4, 0], [0, 16], [0, 32], [16, 0]],
               "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [0, 8]], "warp": [[8, 0]], "block": []})
    );
    let l = parse("#ttg.linear<{register = [[4, 0], [0, 1]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [0, 8]], warp = [[8, 0]], block = []}>");
    assert_eq!(
        l.to_linear_layout(&[64, 32]).unwrap().bases_json()["register"],
        json!([[4, 0], [0, 1], [16, 0], [32, 0], [0, 16]])
    );
    // Smaller: lanes/warps that fall off become 0, registers are dropped.
    let l = parse("#ttg.linear<{register = [[0, 1], [4, 0], [0, 8]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [8, 0]], warp = [[0, 0]], block = []}>");
    assert_eq!(
        l.to_linear_layout(&[4, 4]).unwrap().bases_json(),
        json!({"register": [[0, 1]], "lane": [[0, 2], [0, 0], [1, 0], [2, 0], [0, 0]],
               "warp": [[0, 0]], "block": []})
    );
}

#[test]
fn linear_at_its_own_shape_is_its_bases() {
    let text = "#ttg.generic_linear<{register = [[0, 0, 2], [0, 1, 0], [0, 0, 0]], lane = [[0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 2], [0, 0, 0]], warp = [[0, 2, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]], block = []}>";
    let e = parse(text);
    assert_eq!(e.to_mlir(), text, "duplicate bases print as generic_linear");
    let l = e.to_linear_layout(&[1, 4, 4]).unwrap();
    assert_eq!(
        l.bases(DimName::REGISTER),
        vec![vec![0, 0, 2], vec![0, 1, 0], vec![0, 0, 0]]
    );
    assert_eq!(
        l.out_dims().iter().map(|o| o.1).collect::<Vec<_>>(),
        vec![1, 4, 4]
    );
}

#[test]
fn bad_linear_bases_are_rejected() {
    for (text, why) in [
        ("#ttg.linear<{register = [[1], [2]], lane = [[4], [8], [16], [32]], warp = [], block = []}>", "16 lanes"),
        ("#ttg.linear<{register = [[1], [2, 0]], lane = [[4], [8], [16], [32], [64]], warp = [], block = []}>", "ragged rank"),
        ("#ttg.linear<{register = [[1], [4]], lane = [[8], [16], [32], [64], [128]], warp = [], block = []}>", "not surjective (2 missing)"),
        ("#ttg.linear<{register = [[3]], lane = [[4], [8], [16], [32], [64]], warp = [], block = []}>", "register basis not a single bit"),
        ("#ttg.linear<{register = [[-1]], lane = [[4], [8], [16], [32], [64]], warp = [], block = []}>", "negative"),
        ("#ttg.linear<{register = [[1]], warp = [], block = []}>", "lane missing"),
        ("#ttg.linear<{register = [], lane = [[], [], [], [], []], warp = [], block = []}>", "rank 0"),
        ("#ttg.linear<{register = [[1]], lane = [[2], [4], [8], [16], [32]], warp = [], block = [], extra = 1}>", "unknown field"),
    ] {
        assert!(Encoding::parse(text).is_err(), "{why}: {text}");
    }
    // Surjective at its own extent, but shape rank 2 asked for rank 1.
    let e = parse("#ttg.linear<{register = [[1]], lane = [[2], [4], [8], [16], [32]], warp = [], block = []}>");
    assert!(e.to_linear_layout(&[8, 8]).is_err());
}

#[test]
fn distributed_printer_round_trips() {
    for (text, shape) in [
        ("#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0], CGALayout = [[0, 1], [1, 0]]}>", vec![64u64, 128]),
        ("#ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 4}>", vec![64, 32]),
        ("#ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>", vec![8]),
    ] {
        let l = parse(text).to_linear_layout(&shape).unwrap();
        let printed = distributed_linear_mlir(&l);
        assert!(printed.starts_with("#ttg.linear<{register = "), "{printed}");
        let back = parse(&printed).to_linear_layout(&shape).unwrap();
        assert_eq!(back.bases_json(), l.bases_json(), "{printed}");
    }
    // Hand-written layout: the exact text.
    let l = LinearLayout::new(
        vec![
            (DimName::REGISTER, vec![vec![0, 1]]),
            (
                DimName::LANE,
                vec![vec![0, 2], vec![0, 4], vec![1, 0], vec![2, 0], vec![4, 0]],
            ),
            (DimName::WARP, vec![]),
            (DimName::BLOCK, vec![]),
        ],
        vec![(DimName::dim(0), 8), (DimName::dim(1), 8)],
        true,
    )
    .unwrap();
    assert_eq!(
        distributed_linear_mlir(&l),
        "#ttg.linear<{register = [[0, 1]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [], block = []}>"
    );
}

#[test]
fn shared_printer_matches_triton_text() {
    // Texts as Triton 3.9 prints them (oracle records): `block` omitted
    // when empty.
    let l = LinearLayout::new(
        vec![
            (DimName::OFFSET, vec![vec![1, 0], vec![0, 1], vec![0, 2]]),
            (DimName::BLOCK, vec![]),
        ],
        vec![(DimName::dim(0), 2), (DimName::dim(1), 4)],
        true,
    )
    .unwrap();
    let t = shared_linear_mlir(&l, 16);
    assert_eq!(
        t,
        "#ttg.shared_linear<{offset = [[1, 0], [0, 1], [0, 2]]}, alignment = 16>"
    );
    let l = LinearLayout::new(
        vec![
            (DimName::OFFSET, vec![vec![1, 0], vec![0, 1]]),
            (DimName::BLOCK, vec![vec![0, 2], vec![0, 4], vec![0, 0]]),
        ],
        vec![(DimName::dim(0), 2), (DimName::dim(1), 8)],
        false,
    )
    .unwrap();
    let t = shared_linear_mlir(&l, 1024);
    assert_eq!(
        t,
        "#ttg.shared_linear<{offset = [[1, 0], [0, 1]], block = [[0, 2], [0, 4], [0, 0]]}, alignment = 1024>"
    );
    // It parses back to the same fields.
    let a = Attribute::parse(&t).unwrap();
    assert_eq!(a.full_name(), "ttg.shared_linear");
    assert_eq!(
        a.get("offset").unwrap().as_int_matrix().unwrap(),
        vec![vec![1, 0], vec![0, 1]]
    );
    assert_eq!(
        a.get("block").unwrap().as_int_matrix().unwrap(),
        vec![vec![0, 2], vec![0, 4], vec![0, 0]]
    );
    assert_eq!(a.get("alignment").unwrap().as_int(), Some(1024));
}

/// Extreme parameters give errors (or layouts), never panics.
#[test]
fn extreme_parameters_do_not_panic() {
    let big = 1u64 << 29;
    let texts = vec![
        format!("#ttg.linear<{{register = [[{big}, 0, 0], [0, {big}, 0], [0, 0, {big}]], lane = [[1, 0, 0], [2, 0, 0], [4, 0, 0], [8, 0, 0], [16, 0, 0]], warp = [], block = []}}>"),
        format!("#ttg.blocked<{{sizePerThread = [1, 1, 1], threadsPerWarp = [32, 1, 1], warpsPerCTA = [1, 1, 1], order = [0, 1, 2], CGALayout = [[{big}, 0, 0], [0, {big}, 0], [0, 0, {big}]]}}>"),
        "#ttg.blocked<{sizePerThread = [1048576, 1048576], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [0, 1]}>".to_string(),
        "#ttg.blocked<{sizePerThread = [1024, 1024], threadsPerWarp = [32, 1], warpsPerCTA = [1024, 1024], order = [0, 1]}>".to_string(),
        "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0], CTAsPerCGA = [1073741824], CTASplitNum = [1], CTAOrder = [0]}>".to_string(),
        "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1048576, 1048576], instrShape = [4096, 4096]}>".to_string(),
        "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>, kWidth = 1024}>".to_string(),
        "#ttg.dot_op<{opIdx = 1, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [0, 1]}>}>".to_string(),
        "#ttg.slice<{dim = 9, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [0, 1]}>}>".to_string(),
        "#ttg.slice<{dim = 0, parent = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>}>".to_string(),
        "#ttg.dot_op<{opIdx = 0, parent = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 1, 1], threadsPerWarp = [32, 1, 1], warpsPerCTA = [1, 1, 1], order = [0, 1, 2]}>}>, kWidth = 2}>".to_string(),
    ];
    let shapes: Vec<Vec<u64>> = vec![
        vec![1 << 30, 1 << 30, 1 << 30],
        vec![1 << 20, 1 << 20],
        vec![1 << 13, 1 << 13, 1 << 13],
        vec![1, 1],
        vec![1],
        vec![1 << 40],
        vec![2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
    ];
    for t in &texts {
        if let Ok(e) = Encoding::parse(t) {
            for s in &shapes {
                let _ = e.to_linear_layout(s);
            }
            let _ = e.to_mlir();
        }
    }
}

/// Gluon's `DistributedLinearLayout(..., shape)`: out sizes are the given
/// shape. The sample reject s2-L00212 (warp basis 4096 for shape [2]) and
/// a non-surjective set of bases are refused, as Triton refused them.
#[test]
fn from_bases_uses_the_given_shape() {
    use hw_layouts::linear::Linear;
    let z5 = vec![vec![0i64]; 5];
    let bad = Linear::from_bases([&[], &z5, &[vec![0], vec![1], vec![4096]], &[]], &[2]);
    assert!(bad.is_err());
    let lanes: Vec<Vec<i64>> = vec![vec![4], vec![8], vec![16], vec![32], vec![64]];
    // Surjective onto 128 but the shape says 256: refused.
    assert!(Linear::from_bases([&[vec![1], vec![2]], &lanes, &[], &[]], &[256]).is_err());
    let ok = Linear::from_bases([&[vec![1], vec![2]], &lanes, &[], &[]], &[128]).unwrap();
    assert_eq!(ok.layout.out_dims(), vec![(DimName::dim(0), 128)]);
    assert_eq!(
        ok.to_mlir(),
        "#ttg.linear<{register = [[1], [2]], lane = [[4], [8], [16], [32], [64]], warp = [], block = []}>"
    );
}

//! Unit tests of the shared-memory and tensor-memory layouts, with the
//! expectations of Triton's own unit tests (named after them:
//! `unittest/Dialect/TritonGPU/LinearLayoutConversionsTest.cpp` and
//! `unittest/Tools/LinearLayoutTest.cpp`), plus hand derivations and a
//! property test (every swizzled / NVMMA layout is invertible, paper
//! Def. 4.14).

use hw_layouts::shared::{NvmmaShared, PaddedShared, SwizzledShared};
use hw_layouts::tmem::TensorMemory;
use hw_layouts::Encoding;
use linear_layout::{DimName, LinearLayout};
use proptest::prelude::*;

type B = Vec<Vec<u64>>;

fn b(v: &[&[u64]]) -> B {
    v.iter().map(|x| x.to_vec()).collect()
}

fn swz(vec: u64, per_phase: u64, max_phase: u64, order: &[usize]) -> SwizzledShared {
    SwizzledShared::new(vec, per_phase, max_phase, order.to_vec()).unwrap()
}

fn nvmma(sw: u64, transposed: bool, ebw: u64, rank: usize) -> NvmmaShared {
    NvmmaShared::new(sw, transposed, ebw, false, rank).unwrap()
}

/// Checks offset bases, no block bases, and out sizes = shape.
fn check_shared(l: &LinearLayout, shape: &[u64], offset: B) {
    assert_eq!(l.bases(DimName::OFFSET), offset);
    assert_eq!(l.bases(DimName::BLOCK), B::new());
    let sizes: Vec<u64> = (0..shape.len())
        .map(|d| l.out_dim_size(DimName::dim(d)))
        .collect();
    assert_eq!(sizes, shape);
}

fn identity_bases(order_and_sizes: &[(usize, u64)], rank: usize) -> B {
    let mut v = B::new();
    for &(d, n) in order_and_sizes {
        let mut s = 1;
        while s < n {
            let mut x = vec![0; rank];
            x[d] = s;
            v.push(x);
            s *= 2;
        }
    }
    v
}

#[test]
fn shared_simple_1d() {
    // SharedSimple1D: identity1D(1024, offset, dim0) × identity1D(1, block).
    let l = swz(1, 1, 1, &[0]).to_linear_layout(&[1024]).unwrap();
    check_shared(&l, &[1024], identity_bases(&[(0, 1024)], 1));
}

#[test]
fn shared_simple_2d() {
    // SharedSimple2D: order [1, 0] → dim1 bits, then dim0 bits.
    let l = swz(1, 1, 1, &[1, 0]).to_linear_layout(&[128, 128]).unwrap();
    check_shared(&l, &[128, 128], identity_bases(&[(1, 128), (0, 128)], 2));
    // SharedSimple2D_Order01.
    let l = swz(1, 1, 1, &[0, 1]).to_linear_layout(&[128, 128]).unwrap();
    check_shared(&l, &[128, 128], identity_bases(&[(0, 128), (1, 128)], 2));
}

#[test]
fn shared_swizzled_2d() {
    // SharedSwizzled2D_MaxPhaseOnly
    let l = swz(1, 1, 4, &[1, 0]).to_linear_layout(&[32, 32]).unwrap();
    check_shared(
        &l,
        &[32, 32],
        b(&[
            &[0, 1],
            &[0, 2],
            &[0, 4],
            &[0, 8],
            &[0, 16],
            &[1, 1],
            &[2, 2],
            &[4, 0],
            &[8, 0],
            &[16, 0],
        ]),
    );
    // SharedSwizzled2D_PerPhaseMaxPhase
    let l = swz(1, 2, 4, &[1, 0]).to_linear_layout(&[32, 32]).unwrap();
    check_shared(
        &l,
        &[32, 32],
        b(&[
            &[0, 1],
            &[0, 2],
            &[0, 4],
            &[0, 8],
            &[0, 16],
            &[1, 0],
            &[2, 1],
            &[4, 2],
            &[8, 0],
            &[16, 0],
        ]),
    );
    // SharedSwizzled2D_Vec
    let l = swz(2, 1, 4, &[1, 0]).to_linear_layout(&[4, 8]).unwrap();
    check_shared(
        &l,
        &[4, 8],
        b(&[&[0, 1], &[0, 2], &[0, 4], &[1, 2], &[2, 4]]),
    );
    // SharedSwizzled2D_PerPhaseMaxPhaseVec
    let l = swz(2, 2, 4, &[1, 0]).to_linear_layout(&[32, 32]).unwrap();
    check_shared(
        &l,
        &[32, 32],
        b(&[
            &[0, 1],
            &[0, 2],
            &[0, 4],
            &[0, 8],
            &[0, 16],
            &[1, 0],
            &[2, 2],
            &[4, 4],
            &[8, 0],
            &[16, 0],
        ]),
    );
    // SharedSwizzled2D_Order01
    let l = swz(1, 1, 4, &[0, 1]).to_linear_layout(&[4, 8]).unwrap();
    check_shared(
        &l,
        &[4, 8],
        b(&[&[1, 0], &[2, 0], &[1, 1], &[2, 2], &[0, 4]]),
    );
}

#[test]
fn shared_swizzled_4d() {
    // SharedSwizzled4D
    let l = swz(2, 2, 4, &[3, 2, 1, 0])
        .to_linear_layout(&[2, 4, 32, 32])
        .unwrap();
    check_shared(
        &l,
        &[2, 4, 32, 32],
        b(&[
            &[0, 0, 0, 1],
            &[0, 0, 0, 2],
            &[0, 0, 0, 4],
            &[0, 0, 0, 8],
            &[0, 0, 0, 16],
            &[0, 0, 1, 0],
            &[0, 0, 2, 2],
            &[0, 0, 4, 4],
            &[0, 0, 8, 0],
            &[0, 0, 16, 0],
            &[0, 1, 0, 0],
            &[0, 2, 0, 0],
            &[1, 0, 0, 0],
        ]),
    );
}

#[test]
fn shared_1d_swizzle() {
    // Shared1DSwizzle: a [64, 1] tensor has no columns to swizzle.
    let l = swz(2, 2, 4, &[1, 0]).to_linear_layout(&[64, 1]).unwrap();
    check_shared(&l, &[64, 1], identity_bases(&[(0, 64)], 2));
}

#[test]
fn leading_offset_2d() {
    // LeadingOffset_8x16_4_2
    let l = nvmma(32, false, 16, 2).to_linear_layout(&[8, 16]).unwrap();
    check_shared(
        &l,
        &[8, 16],
        b(&[
            &[0, 1],
            &[0, 2],
            &[0, 4],
            &[0, 8],
            &[1, 0],
            &[2, 0],
            &[4, 8],
        ]),
    );
    // LeadingOffset_128x16_4_2
    let l = nvmma(32, false, 16, 2)
        .to_linear_layout(&[128, 16])
        .unwrap();
    check_shared(
        &l,
        &[128, 16],
        b(&[
            &[0, 1],
            &[0, 2],
            &[0, 4],
            &[0, 8],
            &[1, 0],
            &[2, 0],
            &[4, 8],
            &[8, 0],
            &[16, 0],
            &[32, 0],
            &[64, 0],
        ]),
    );
    // LeadingOffset_8x32_2_4
    let l = nvmma(64, false, 16, 2).to_linear_layout(&[8, 32]).unwrap();
    check_shared(
        &l,
        &[8, 32],
        b(&[
            &[0, 1],
            &[0, 2],
            &[0, 4],
            &[0, 8],
            &[0, 16],
            &[1, 0],
            &[2, 8],
            &[4, 16],
        ]),
    );
    // LeadingOffset_8x64_1_8
    let l = nvmma(128, false, 16, 2).to_linear_layout(&[8, 64]).unwrap();
    check_shared(
        &l,
        &[8, 64],
        b(&[
            &[0, 1],
            &[0, 2],
            &[0, 4],
            &[0, 8],
            &[0, 16],
            &[0, 32],
            &[1, 8],
            &[2, 16],
            &[4, 32],
        ]),
    );
    // LeadingOffset_8x64_1_8_32b
    let l = nvmma(128, false, 32, 2).to_linear_layout(&[8, 64]).unwrap();
    check_shared(
        &l,
        &[8, 64],
        b(&[
            &[0, 1],
            &[0, 2],
            &[0, 4],
            &[0, 8],
            &[0, 16],
            &[1, 4],
            &[2, 8],
            &[4, 16],
            &[0, 32],
        ]),
    );
    // LeadingOffset_128x128_1_8_128b_transposed
    let l = nvmma(128, true, 32, 2)
        .to_linear_layout(&[128, 128])
        .unwrap();
    check_shared(
        &l,
        &[128, 128],
        b(&[
            &[1, 0],
            &[2, 0],
            &[4, 0],
            &[8, 0],
            &[16, 0],
            &[4, 1],
            &[8, 2],
            &[16, 4],
            &[0, 8],
            &[0, 16],
            &[0, 32],
            &[0, 64],
            &[32, 0],
            &[64, 0],
        ]),
    );
}

#[test]
fn leading_offset_3d() {
    // LeadingOffset_32x4x64_1_8_32b
    let l = nvmma(64, false, 32, 3)
        .to_linear_layout(&[32, 4, 64])
        .unwrap();
    check_shared(
        &l,
        &[32, 4, 64],
        b(&[
            &[0, 0, 1],
            &[0, 0, 2],
            &[0, 0, 4],
            &[0, 0, 8],
            &[0, 1, 0],
            &[0, 2, 4],
            &[1, 0, 8],
            &[2, 0, 0],
            &[4, 0, 0],
            &[8, 0, 0],
            &[16, 0, 0],
            &[0, 0, 16],
            &[0, 0, 32],
        ]),
    );
    // LeadingOffset_64x4x32_1_8_32b_transposed
    let l = nvmma(64, true, 32, 3)
        .to_linear_layout(&[64, 4, 32])
        .unwrap();
    check_shared(
        &l,
        &[64, 4, 32],
        b(&[
            &[1, 0, 0],
            &[2, 0, 0],
            &[4, 0, 0],
            &[8, 0, 0],
            &[0, 0, 4],
            &[4, 0, 8],
            &[8, 0, 16],
            &[0, 1, 0],
            &[0, 2, 0],
            &[0, 0, 1],
            &[0, 0, 2],
            &[16, 0, 0],
            &[32, 0, 0],
        ]),
    );
}

#[test]
fn mmav5_fp4_padded() {
    // MMAv5Fp4Padded: offset 8 maps to the same element as offset 0.
    let n = NvmmaShared::new(128, false, 8, true, 2).unwrap();
    let l = n.to_linear_layout(&[32, 64]).unwrap();
    check_shared(
        &l,
        &[32, 64],
        b(&[
            &[0, 1],
            &[0, 2],
            &[0, 4],
            &[0, 0],
            &[0, 8],
            &[0, 16],
            &[0, 32],
            &[1, 8],
            &[2, 16],
            &[4, 32],
            &[8, 0],
            &[16, 0],
        ]),
    );
}

/// `getPackedCoordtoPaddedOffset` of LinearLayoutTest: packed coordinate
/// (row, col) of an `M × KPacked` byte matrix → its offset in the padded
/// buffer, where each 8 packed bytes are followed by 8 padding bytes.
fn padded_offset_of_packed(row: u64, col: u64, k_packed: u64) -> u64 {
    let lin = row * k_packed + col;
    (lin / 8) * 16 + lin % 8
}

#[test]
fn blackwell_mixed_precision_dot_scaled_smem() {
    // BlackwellMixedPrecisionDotScaledSMEM, on our NVMMA fp4 core matrix
    // with the swizzle disabled (8 rows × 128 padded = 64 packed bytes):
    // the pseudo-inverse sends every packed coordinate to its padded offset.
    let n = NvmmaShared::new(128, false, 8, true, 2).unwrap();
    let core = n.core_matrix_layout(true).unwrap();
    let inv = core.pseudoinvert().unwrap();
    for i in 0..8 {
        for j in 0..64 {
            let got = inv
                .apply(&[(DimName::dim(0), i), (DimName::dim(1), j)])
                .unwrap()[0]
                .1;
            assert_eq!(got, padded_offset_of_packed(i, j, 64), "({i}, {j})");
        }
    }
}

#[test]
fn blackwell_mixed_precision_dot_scaled_smem_swizzled() {
    // BlackwellMixedPrecisionDotScaledSMEMSwizzled: M = 16, 128 padded
    // bytes per row; the swizzled padded offset is row·128 + ((col/16) ⊕
    // (row mod 8))·16 + col mod 16 of the unswizzled padded (row, col).
    let n = NvmmaShared::new(128, false, 8, true, 2).unwrap();
    let l = n.to_linear_layout(&[16, 64]).unwrap();
    let inv = l
        .sublayout(&[DimName::OFFSET], &DimName::standard_out_dims(2))
        .unwrap()
        .pseudoinvert()
        .unwrap();
    for i in 0..16 {
        for j in 0..64 {
            let plain = padded_offset_of_packed(i, j, 64);
            let (row, col) = (plain / 128, plain % 128);
            let want = row * 128 + ((col / 16) ^ (row % 8)) * 16 + col % 16;
            let got = inv
                .apply(&[(DimName::dim(0), i), (DimName::dim(1), j)])
                .unwrap()[0]
                .1;
            assert_eq!(got, want, "({i}, {j})");
        }
    }
}

fn tmem(m: u64, n: u64) -> TensorMemory {
    TensorMemory::new(m, n, 1, vec![], false, false).unwrap()
}

fn check_tmem(l: &LinearLayout, rows: B, cols: B, block: B) {
    assert_eq!(l.bases(DimName::ROW), rows);
    assert_eq!(l.bases(DimName::COL), cols);
    assert_eq!(l.bases(DimName::BLOCK), block);
}

#[test]
fn tensor_memory_block_m_64() {
    // TensorMemory_blockM_64
    let t = tmem(64, 64);
    let cols6 = b(&[&[0, 1], &[0, 2], &[0, 4], &[0, 8], &[0, 16], &[0, 32]]);
    check_tmem(
        &t.to_linear_layout(&[128, 64]).unwrap(),
        b(&[
            &[1, 0],
            &[2, 0],
            &[4, 0],
            &[8, 0],
            &[64, 0],
            &[16, 0],
            &[32, 0],
        ]),
        cols6.clone(),
        vec![],
    );
    // The tensor just fits blockM × blockN: row 16 is unused (zero).
    check_tmem(
        &t.to_linear_layout(&[64, 64]).unwrap(),
        b(&[
            &[1, 0],
            &[2, 0],
            &[4, 0],
            &[8, 0],
            &[0, 0],
            &[16, 0],
            &[32, 0],
        ]),
        cols6.clone(),
        vec![],
    );
    // Repeats M, then N.
    let mut c = cols6.clone();
    c.extend(b(&[&[128, 0], &[0, 64]]));
    check_tmem(
        &t.to_linear_layout(&[256, 128]).unwrap(),
        b(&[
            &[1, 0],
            &[2, 0],
            &[4, 0],
            &[8, 0],
            &[64, 0],
            &[16, 0],
            &[32, 0],
        ]),
        c,
        vec![],
    );
    // With shape[0] == 64, row 16 holds the next N block.
    let mut c = cols6;
    c.push(vec![0, 128]);
    check_tmem(
        &t.to_linear_layout(&[64, 256]).unwrap(),
        b(&[
            &[1, 0],
            &[2, 0],
            &[4, 0],
            &[8, 0],
            &[0, 64],
            &[16, 0],
            &[32, 0],
        ]),
        c,
        vec![],
    );
}

#[test]
fn tensor_memory_block_m_128() {
    // TensorMemory_blockM_128
    let t = tmem(128, 128);
    let rows = identity_bases(&[(0, 128)], 2);
    let cols = identity_bases(&[(1, 128)], 2);
    check_tmem(
        &t.to_linear_layout(&[128, 128]).unwrap(),
        rows.clone(),
        cols.clone(),
        vec![],
    );
    let mut c = cols.clone();
    c.push(vec![128, 0]);
    check_tmem(
        &t.to_linear_layout(&[256, 128]).unwrap(),
        rows.clone(),
        c.clone(),
        vec![],
    );
    c.push(vec![0, 128]);
    check_tmem(&t.to_linear_layout(&[256, 256]).unwrap(), rows, c, vec![]);
}

#[test]
fn tensor_memory_fp4_padded() {
    // TensorMemory_fp4Padded: zeros1D(2, col) then identity1D(64, col, dim1).
    let t = TensorMemory::new(128, 64, 1, vec![], false, true).unwrap();
    let mut cols = vec![vec![0, 0]];
    cols.extend(identity_bases(&[(1, 64)], 2));
    check_tmem(
        &t.to_linear_layout(&[128, 64]).unwrap(),
        identity_bases(&[(0, 128)], 2),
        cols,
        vec![],
    );
}

#[test]
fn tensor_memory_cta_split() {
    // TensorMemory_CTASplit: a CGA split along N is the one-CTA layout of
    // the half shape × identity1D(2, block, dim1).
    let t = TensorMemory::new(128, 64, 1, vec![vec![0, 1]], false, false).unwrap();
    let one = tmem(128, 64).to_linear_layout(&[128, 64]).unwrap();
    let l = t.to_linear_layout(&[128, 128]).unwrap();
    assert_eq!(l.bases(DimName::ROW), one.bases(DimName::ROW));
    assert_eq!(l.bases(DimName::COL), one.bases(DimName::COL));
    assert_eq!(l.bases(DimName::BLOCK), b(&[&[0, 64]]));
}

#[test]
fn padded_offset_hand_derivation() {
    // [4:+1, 8:+2]: offset 13 = 0b1101 passes 3 full 4-element intervals
    // (+3·1) and 1 full 8-element interval (+1·2): 13 + 3 + 2 = 18.
    let Encoding::PaddedShared(p) =
        Encoding::parse("#ttg.padded_shared<[4:+1, 8:+2] {order = [1, 0], shape = [4, 4]}>")
            .unwrap()
    else {
        panic!("not padded")
    };
    assert_eq!(p.padded_offset(13), 18);
    assert_eq!(p.padded_offset(0), 0);
    assert_eq!(p.padded_offset(3), 3);
    assert_eq!(p.padded_offset(4), 5);
    // The physical offsets of one allocation are strictly increasing.
    let offs: Vec<u64> = (0..16).map(|o| p.padded_offset(o)).collect();
    assert!(offs.windows(2).all(|w| w[0] < w[1]));
    // The linear component is the identity in order [1, 0].
    let l = p.to_linear_layout(&[4, 4]).unwrap();
    check_shared(&l, &[4, 4], identity_bases(&[(1, 4), (0, 4)], 2));
}

#[test]
fn padded_checks() {
    for bad in [
        "#ttg.padded_shared<[3:+1] {order = [1, 0], shape = [4, 4]}>",
        "#ttg.padded_shared<[4:+3] {order = [1, 0], shape = [4, 4]}>",
        "#ttg.padded_shared<[4:+1, 4:+2] {order = [1, 0], shape = [4, 4]}>",
        "#ttg.padded_shared<[4:+1] {offset = [[0, 1], [0, 0]], block = []}>",
        "#ttg.padded_shared<[4:+1] {offset = [[1, 1], [0, 2]], block = []}>",
        "#ttg.padded_shared<[4:+1] {offset = [[0, 1], [0, 1]], block = []}>",
    ] {
        assert!(Encoding::parse(bad).is_err(), "{bad}");
    }
    let ok = PaddedShared::new(vec![(8, 1), (2, 4)], b(&[&[0, 1], &[1, 0]]), vec![]).unwrap();
    assert_eq!(ok.padded_offset(3), 3 + 4);
}

#[test]
fn legacy_shared_syntax() {
    let e = Encoding::parse(
        "#triton_gpu.shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0], hasLeadingOffset = false}>",
    )
    .unwrap();
    assert_eq!(
        e.to_mlir(),
        "#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}>"
    );
    let l = e.to_linear_layout(&[4, 8]).unwrap();
    check_shared(
        &l,
        &[4, 8],
        b(&[&[0, 1], &[0, 2], &[0, 4], &[1, 2], &[2, 4]]),
    );
    // Legacy CTA layout: 2 CTAs split along dim0.
    let e = Encoding::parse(
        "#ttg.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>",
    )
    .unwrap();
    assert_eq!(
        e.to_mlir(),
        "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0], CGALayout = [[1, 0]]}>"
    );
    let l = e.to_linear_layout(&[4, 4]).unwrap();
    assert_eq!(l.bases(DimName::BLOCK), b(&[&[2, 0]]));
    // Legacy leading offset (the old wgmma layout) equals NVMMA 128B, 16-bit
    // (LeadingOffset_8x64_1_8 of the older test file).
    let e = Encoding::parse(
        "#ttg.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], hasLeadingOffset = true}>",
    )
    .unwrap();
    assert_eq!(
        e.to_linear_layout(&[8, 64]).unwrap(),
        nvmma(128, false, 16, 2).to_linear_layout(&[8, 64]).unwrap()
    );
}

#[test]
fn bad_inputs_are_errors() {
    for bad in [
        "#ttg.swizzled_shared<{vec = 0, perPhase = 1, maxPhase = 1, order = [1, 0]}>",
        "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 1]}>",
        "#ttg.swizzled_shared<{vec = 1, perPhase = -1, maxPhase = 1, order = [1, 0]}>",
        "#ttg.nvmma_shared<{swizzlingByteWidth = 48, transposed = false, elementBitWidth = 16}>",
        "#ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = false, elementBitWidth = 12}>",
        "#ttg.shared_linear<{offset = [[0, 1], [0, 1]]}, alignment = 16>",
        "#ttg.shared_linear<{offset = [[0, 1], [1, 0]]}, alignment = 24>",
        "#ttng.tensor_memory_encoding<blockM = 32, blockN = 64, colStride = 1>",
        "#ttng.tensor_memory_encoding<blockM = 64, blockN = 1024, colStride = 1>",
        "#ttng.tensor_memory_encoding<blockM = 64, blockN = 64, colStride = 3>",
        "#ttng.tensor_memory_encoding<blockM = 64, blockN = 64, colStride = 1, CGALayout = [[0, 1]], twoCTAs = true>",
        "#ttg.partitioned_shared<{numPartitions = 1, numGroups = 1, partitionDim = 0, partitionLayout = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>}>",
        "#ttg.partitioned_shared<{numPartitions = 2, numGroups = 1, partitionDim = 2, partitionLayout = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>}>",
    ] {
        assert!(Encoding::parse(bad).is_err(), "{bad}");
    }
    // Valid attributes, impossible shapes.
    let cases: [(&str, &[u64]); 6] = [
        ("#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 64}>", &[4, 16]),
        ("#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>", &[8, 32]),
        ("#ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = false, elementBitWidth = 16, rank = 1}>", &[64]),
        ("#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>", &[4, 6]),
        ("#ttg.partitioned_shared<{numPartitions = 4, numGroups = 2, partitionDim = 1, partitionLayout = #ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 2, order = [1, 0]}>}>", &[4, 4]),
        ("#ttg.partitioned_shared<{numPartitions = 2, numGroups = 1, partitionDim = 0, partitionLayout = #ttg.padded_shared<[128:+16] {order = [1, 0], shape = [16, 2]}>}>", &[32, 2]),
    ];
    for (text, shape) in cases {
        let e = Encoding::parse(text).unwrap();
        assert!(e.to_linear_layout(shape).is_err(), "{text} {shape:?}");
    }
}

#[test]
fn partitioned_full_layout() {
    // Hand derivation: pieces of [4, 8] (swizzled vec 2, maxPhase 2, order
    // [1, 0]: rows (1, 2), (2, 0)); partition bit → dim0 + 4, group bit →
    // dim0 + 8.
    let e = Encoding::parse(
        "#ttg.partitioned_shared<{numPartitions = 2, numGroups = 2, partitionDim = 0, partitionLayout = #ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 2, order = [1, 0]}>}>",
    )
    .unwrap();
    let Encoding::PartitionedShared(p) = &e else {
        panic!()
    };
    let l = p.to_linear_layout(&[16, 8]).unwrap();
    assert_eq!(
        l.bases(DimName::OFFSET),
        b(&[&[0, 1], &[0, 2], &[0, 4], &[1, 2], &[2, 0], &[8, 0]])
    );
    assert_eq!(l.bases(DimName::PARTITION), b(&[&[4, 0]]));
    assert!(l.is_invertible());
    let t = p.to_triton_linear_layout(&[16, 8]).unwrap();
    assert!(!t.has_in_dim(DimName::PARTITION));
}

fn shape_for(bits: &[u32]) -> Vec<u64> {
    bits.iter().map(|&b| 1u64 << b).collect()
}

proptest! {
    /// Paper Def. 4.14: a swizzled shared layout is a bijection between
    /// (offset, block) and the tensor (no broadcast CTAs here).
    #[test]
    fn swizzled_layouts_are_invertible(
        vec_log in 0u32..5, pp_log in 0u32..4, mp_log in 0u32..5,
        rank in 1usize..4, perm_seed in 0usize..6,
        bits in proptest::collection::vec(0u32..6, 3),
        cga_bits in 0u32..3,
    ) {
        let mut order: Vec<usize> = (0..rank).collect();
        // A permutation from the seed.
        for i in (1..rank).rev() {
            order.swap(i, perm_seed % (i + 1));
        }
        let shape = shape_for(&bits[..rank]);
        let mut s = swz(1 << vec_log, 1 << pp_log, 1 << mp_log, &order);
        // CTAs split along dim0 (tile units), only where the tensor has room.
        let cga_n = cga_bits.min(bits[0]);
        s.cga = (0..cga_n).map(|i| {
            let mut v = vec![0; rank];
            v[0] = 1 << i;
            v
        }).collect();
        let l = s.to_linear_layout(&shape).unwrap();
        prop_assert!(l.is_invertible(), "{} {:?}\n{}", s.to_mlir(), shape, l);
        // Round trip through the text form.
        let e = Encoding::parse(&s.to_mlir()).unwrap();
        prop_assert_eq!(e.to_linear_layout(&shape).unwrap(), l);
    }

    /// Paper Def. 4.14 for NVMMA layouts: invertible whenever Triton accepts
    /// the shape (fp4Padded layouts alias on purpose, and Triton's
    /// swizzle-0 transposed rank-3 layouts broadcast, so both are left out).
    #[test]
    fn nvmma_layouts_are_invertible(
        sw_i in 0usize..4, ebw_i in 0usize..4, transposed in any::<bool>(),
        rank in 2usize..4,
        bits in proptest::collection::vec(0u32..9, 3),
    ) {
        let sw = [0u64, 32, 64, 128][sw_i];
        let ebw = [8u64, 16, 32, 64][ebw_i];
        prop_assume!(!(sw == 0 && transposed && rank >= 3));
        let n = nvmma(sw, transposed, ebw, rank);
        let shape = shape_for(&bits[..rank]);
        prop_assume!(shape.iter().product::<u64>() <= 1 << 16);
        match n.to_linear_layout(&shape) {
            Ok(l) => {
                prop_assert!(l.is_invertible(), "{} {:?}\n{}", n.to_mlir(), shape, l);
                let e = Encoding::parse(&n.to_mlir()).unwrap();
                prop_assert_eq!(e.to_linear_layout(&shape).unwrap(), l);
            }
            Err(e) => {
                // Only the documented "too small" refusals.
                let msg = e.to_string();
                prop_assert!(msg.contains("too small") || msg.contains("collapsed shapePerCTA"), "{}", msg);
            }
        }
    }
}

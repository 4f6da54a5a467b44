//! CUTLASS's MMA and ldmatrix atoms (CuTe's numbers, `hw_layouts::cute::atoms`)
//! converted through the bridge equal hw-layouts' Triton layouts for the same
//! instruction: `nvidia_mma` v2 / v3 accumulators and `dot_op` operands
//! (themselves checked against Triton 3.9 in `oracle.rs`).
//!
//! Coordinate convention (the module doc of `cute`): CuTe mode 0 is dim0;
//! CuTe's `B` is `N x K` where Triton's is `K x N`, so `B` is transposed.

use hw_layouts::cute::{self, atoms, atoms::Operand};
use hw_layouts::Encoding;
use linear_layout::{DimName, LinearLayout};

fn triton(attr: &str, shape: &[u64]) -> LinearLayout {
    let l = Encoding::parse(attr)
        .unwrap()
        .to_linear_layout(shape)
        .unwrap();
    // One CTA: drop the size-1 block dim.
    l.sublayout(
        &[DimName::REGISTER, DimName::LANE, DimName::WARP],
        &[DimName::dim(0), DimName::dim(1)],
    )
    .unwrap()
}

fn mma_v2() -> &'static str {
    "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>"
}

/// Bases of `l` as `(dim, bases)`, ignoring dims of size 1 (a one-warp
/// CuTe atom has no warp bases; Triton's layout has a size-1 warp dim).
fn bases(l: &LinearLayout) -> Vec<(DimName, Vec<Vec<u64>>)> {
    l.all_bases()
        .into_iter()
        .filter(|(_, b)| !b.is_empty())
        .collect()
}

#[test]
fn sm80_sm89_mma_sync_atoms_equal_triton_mma_v2() {
    for atom in atoms::MMA_SYNC {
        let k_width = if atom.name.contains("x32") { 4 } else { 2 };
        let (m, n, k) = match atom.name {
            x if x.contains("16x8x8_") => (16, 8, 8),
            x if x.contains("16x8x16_") => (16, 8, 16),
            _ => (16, 8, 32),
        };
        let want = match atom.operand.unwrap() {
            Operand::C => triton(mma_v2(), &[m, n]),
            Operand::A => triton(
                &format!(
                    "#ttg.dot_op<{{opIdx = 0, parent = {}, kWidth = {k_width}}}>",
                    mma_v2()
                ),
                &[m, k],
            ),
            Operand::B => triton(
                &format!(
                    "#ttg.dot_op<{{opIdx = 1, parent = {}, kWidth = {k_width}}}>",
                    mma_v2()
                ),
                &[k, n],
            ),
        };
        // Where they differ: Triton's kWidth-2 operand tile is 16 wide in K,
        // so a K = 8 operand (the 16x8x8 atom's A and B) holds each element
        // twice, its top register basis zero; CuTe's atom holds it once.
        let want = if k == 8 && atom.operand != Some(Operand::C) {
            let regs = want.bases(DimName::REGISTER);
            assert_eq!(regs.last(), Some(&vec![0, 0]), "{}", atom.name);
            want.remove_zero_bases_along_dim(DimName::REGISTER)
        } else {
            want
        };
        let got = atom.to_distributed().unwrap();
        assert_eq!(
            bases(&got),
            bases(&want),
            "{} {:?}: {}",
            atom.name,
            atom.operand,
            atom.cute
        );
        assert_eq!(got.out_dims(), want.out_dims(), "{}", atom.name);
    }
}

#[test]
fn sm90_gmma_accumulators_equal_triton_mma_v3() {
    for n in [8, 16, 32, 64, 128, 256] {
        let c = atoms::gmma_accumulator(n).unwrap();
        let got = cute::tv_to_distributed(&c, &[64, n]).unwrap();
        let want = triton(
            &format!("#ttg.nvidia_mma<{{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, {n}, 16]}}>"),
            &[64, n],
        );
        assert_eq!(bases(&got), bases(&want), "64x{n}: {c}");
        // And back: the Triton layout prints as CUTLASS's CLayout_64xN, coalesced.
        let back = cute::to_tv(&want).unwrap().to_string();
        let expect = if n == 8 {
            "((4,8,4),(2,2)):((128,1,16),(64,8))".to_string()
        } else {
            format!("((4,8,4),(2,2,{})):((128,1,16),(64,8,512))", n / 8)
        };
        assert_eq!(back, expect);
    }
    // N = 96: the value mode has extent 12, not a power of two.
    let e = cute::tv_to_distributed(&atoms::gmma_accumulator(96).unwrap(), &[64, 128]).unwrap_err();
    assert!(e.to_string().contains("mode 1.2 has shape 12"), "{e}");
}

/// `ldmatrix` (no `.trans`), read in 16-bit elements: `.x2` moves two 8x8
/// matrices stacked into a 16x8 tile, which is the `mma.sync` accumulator
/// fragment; `.x4` loads the 16x16 `A` operand when lane `l` supplies row
/// `l mod 8` of matrix `l / 8`, matrices ordered (rows 0-7, k 0-7), (rows
/// 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15) — stacked row bit 3
/// is row bit 3, stacked row bit 4 is k bit 3.
#[test]
fn ldmatrix_atoms_equal_triton_fragments() {
    let frag = |count: u32| -> LinearLayout {
        let c = atoms::upcast_bits(&atoms::ldsm_n_dst(count).unwrap(), 16).unwrap();
        // Row-major bit index over 8-element rows: dim0 = column, dim1 = row.
        let l = cute::tv_to_distributed(&c, &[8, 8 * count as u64]).unwrap();
        let (d0, d1) = (DimName::dim(0), DimName::dim(1));
        let t = DimName::new("tmp");
        let l = l
            .rename_out_dim(d0, t)
            .unwrap()
            .rename_out_dim(d1, d0)
            .unwrap()
            .rename_out_dim(t, d1)
            .unwrap();
        l.transpose_outs(&[d0, d1]).unwrap()
    };
    assert_eq!(
        atoms::upcast_bits(&atoms::ldsm_n_dst(1).unwrap(), 16)
            .unwrap()
            .to_string(),
        "(32,2):(2,1)"
    );
    // .x1: the first 8 rows of the accumulator fragment.
    let acc = triton(mma_v2(), &[16, 8]);
    let x1 = frag(1);
    assert_eq!(x1.bases(DimName::LANE), acc.bases(DimName::LANE));
    assert_eq!(
        x1.bases(DimName::REGISTER),
        acc.bases(DimName::REGISTER)[..1].to_vec()
    );
    // .x2: the whole 16x8 accumulator fragment.
    assert_eq!(bases(&frag(2)), bases(&acc));
    // .x4: the A operand after the stacking above.
    let x4 = frag(4);
    let relabel = |b: &Vec<u64>| vec![b[0] & 15, b[1] | (b[0] >> 4) << 3];
    let a = triton(
        &format!(
            "#ttg.dot_op<{{opIdx = 0, parent = {}, kWidth = 2}}>",
            mma_v2()
        ),
        &[16, 16],
    );
    for d in [DimName::REGISTER, DimName::LANE] {
        let got: Vec<Vec<u64>> = x4.bases(d).iter().map(relabel).collect();
        assert_eq!(got, a.bases(d), "{d}");
    }
}

/// `ldmatrix.trans` in 16-bit elements loads the `B` operand (Triton's
/// `K x N`, memory rows are K): `.x2.trans` is the 16x8 `B` fragment as is;
/// `.x4.trans` the 16x16 one with matrices ordered (k 0-7, n 0-7), (k 8-15,
/// n 0-7), (k 0-7, n 8-15), (k 8-15, n 8-15): stacked row bit 4 is n bit 3.
#[test]
fn ldmatrix_trans_atoms_equal_triton_b_operand() {
    let frag = |count: u32| -> LinearLayout {
        let c = atoms::upcast_bits(&atoms::ldsm_t_dst(count).unwrap(), 16).unwrap();
        let l = cute::tv_to_distributed(&c, &[8, 8 * count as u64]).unwrap();
        let (d0, d1) = (DimName::dim(0), DimName::dim(1));
        let t = DimName::new("tmp");
        let l = l
            .rename_out_dim(d0, t)
            .unwrap()
            .rename_out_dim(d1, d0)
            .unwrap()
            .rename_out_dim(t, d1)
            .unwrap();
        l.transpose_outs(&[d0, d1]).unwrap()
    };
    let b = |n: u64| {
        triton(
            &format!(
                "#ttg.dot_op<{{opIdx = 1, parent = {}, kWidth = 2}}>",
                mma_v2()
            ),
            &[16, n],
        )
    };
    assert_eq!(bases(&frag(2)), bases(&b(8)));
    let x4 = frag(4);
    let relabel = |v: &Vec<u64>| vec![v[0] & 15, v[1] | (v[0] >> 4) << 3];
    for d in [DimName::REGISTER, DimName::LANE] {
        let got: Vec<Vec<u64>> = x4.bases(d).iter().map(relabel).collect();
        assert_eq!(got, b(16).bases(d), "{d}");
    }
    // .x1.trans: the first 8 rows (k) of the 16x8 B fragment.
    let x1 = frag(1);
    assert_eq!(x1.bases(DimName::LANE), b(8).bases(DimName::LANE));
    assert_eq!(
        x1.bases(DimName::REGISTER),
        b(8).bases(DimName::REGISTER)[..1].to_vec()
    );
}

#[test]
fn atom_text_round_trips_through_triton() {
    // Every MMA atom: CuTe → distributed → CuTe gives the same function
    // (printed coalesced: CuTe's (2,2):(16,8) stays, (4,8):(32,1) stays).
    for atom in atoms::MMA_SYNC {
        let c = atom.layout().unwrap();
        let l = cute::tv_to_distributed(&c, &atom.tile).unwrap();
        let back = cute::to_tv(&l).unwrap();
        assert_eq!(
            cute::tv_to_distributed(&back, &atom.tile).unwrap(),
            l,
            "{}",
            atom.cute
        );
        assert_eq!(back.to_string(), atom.cute.to_string(), "{}", atom.name);
    }
}

//! ld/st tiling plans, checked by executing the instructions' hardware
//! semantics (vector ld/st.shared, ldmatrix/stmatrix with and without
//! .trans) against the register → offset map.

use layout_codegen::tiling::{
    best_tiling, check_tiling, matrix_plan, vector_plan, TileInstruction, TilingCheckError,
    TilingError,
};
use linear_layout::{DimName, LinearLayout};

mod common;
use common::Rng;

const REG: DimName = DimName::REGISTER;
const LANE: DimName = DimName::LANE;
const WARP: DimName = DimName::WARP;
const OFF: DimName = DimName::OFFSET;

/// Ampere `mma` accumulator layout of a 16×16 tile (two m16n8 tiles), one
/// warp: registers → (col 1, row 8, col 8); lanes → (col 2, col 4, row 1,
/// row 2, row 4).
fn mma16x16() -> LinearLayout {
    LinearLayout::new(
        vec![
            (REG, vec![vec![0, 1], vec![8, 0], vec![0, 8]]),
            (
                LANE,
                vec![vec![0, 2], vec![0, 4], vec![1, 0], vec![2, 0], vec![4, 0]],
            ),
            (WARP, vec![]),
        ],
        vec![(DimName::dim(0), 16), (DimName::dim(1), 16)],
        true,
    )
    .unwrap()
}

/// Shared memory 16×16, row-major (`row_major`) or column-major: offset
/// bits 0..4 are the fast dim.
fn shared16x16(row_major: bool) -> LinearLayout {
    let (fast, slow) = if row_major { (1, 0) } else { (0, 1) };
    let bases = (0..8)
        .map(|k| {
            let mut v = vec![0, 0];
            if k < 4 {
                v[fast] = 1 << k;
            } else {
                v[slow] = 1 << (k - 4);
            }
            v
        })
        .collect();
    LinearLayout::new(
        vec![(OFF, bases)],
        vec![(DimName::dim(0), 16), (DimName::dim(1), 16)],
        true,
    )
    .unwrap()
}

/// By hand (cvt = offsets of registers (1, 128, 8), lanes (2, 4, 16, 32,
/// 64)): register 0 and lanes 0, 1 form the 16-byte row tile, registers 1
/// and 2 pick 4 matrices: one `stmatrix.x4` per thread.
#[test]
fn mma_to_row_major_uses_stmatrix_x4() {
    let cvt = mma16x16().invert_and_compose(&shared16x16(true)).unwrap();
    assert_eq!(
        cvt.bases(REG),
        vec![vec![1], vec![128], vec![8]],
        "cvt by hand"
    );
    let plan = matrix_plan(&cvt, 16, false, 4).unwrap();
    assert_eq!(
        plan.instruction,
        TileInstruction::Matrix {
            count: 4,
            trans: false
        }
    );
    assert_eq!(plan.instructions_per_thread, 1);
    check_tiling(&plan, &cvt).unwrap();
    // Lane 8 supplies row 0 of matrix 1 = register 1's rows: offset 128.
    assert_eq!(plan.address(0, 8, 0), 128);
    // x2 and x1 also work, with 2 and 4 instructions.
    for (max, n) in [(2, 2), (1, 4)] {
        let p = matrix_plan(&cvt, 16, false, max).unwrap();
        assert_eq!(p.instructions_per_thread, n);
        check_tiling(&p, &cvt).unwrap();
    }
    assert_eq!(best_tiling(&cvt, 16).unwrap(), plan);
    // Vectorised st.shared: only register 0 is contiguous: 2 elements.
    let v = vector_plan(&cvt, 16, 128).unwrap();
    assert_eq!(v.instruction, TileInstruction::VectorShared { vec: 2 });
    check_tiling(&v, &cvt).unwrap();
}

/// Column-major shared memory: no register holds offset 1, so neither the
/// plain tile nor vectors apply; lanes 2, 3, 4 hold offsets 1, 2, 4, so
/// `.trans` x4 does.
#[test]
fn mma_to_column_major_uses_trans() {
    let cvt = mma16x16().invert_and_compose(&shared16x16(false)).unwrap();
    assert!(matches!(
        matrix_plan(&cvt, 16, false, 4),
        Err(TilingError::NotDivisible { .. })
    ));
    let t = matrix_plan(&cvt, 16, true, 4).unwrap();
    assert_eq!(
        t.instruction,
        TileInstruction::Matrix {
            count: 4,
            trans: true
        }
    );
    check_tiling(&t, &cvt).unwrap();
    assert_eq!(best_tiling(&cvt, 16).unwrap(), t);
    assert_eq!(
        vector_plan(&cvt, 16, 128).unwrap().instruction,
        TileInstruction::VectorShared { vec: 1 }
    );
}

/// Generalised vectorisation: registers in reversed order (column-major
/// registers over a row-major buffer) need the register permutation.
#[test]
fn register_permutation_enables_vectors() {
    let cvt = LinearLayout::new(
        vec![
            (REG, vec![vec![4], vec![2], vec![1]]),
            (LANE, (3..8).map(|k| vec![1 << k]).collect()),
        ],
        vec![(OFF, 256)],
        true,
    )
    .unwrap();
    let v = vector_plan(&cvt, 16, 128).unwrap();
    assert_eq!(v.instruction, TileInstruction::VectorShared { vec: 8 });
    assert_eq!(v.register_permutation, vec![2, 1, 0]);
    check_tiling(&v, &cvt).unwrap();
    let v64 = vector_plan(&cvt, 16, 64).unwrap();
    assert_eq!(v64.instruction, TileInstruction::VectorShared { vec: 4 });
    check_tiling(&v64, &cvt).unwrap();
    // Without the permutation the checker rejects the plan, naming the
    // register.
    let mut bad = v.clone();
    bad.register_permutation = vec![0, 1, 2];
    assert!(matches!(
        check_tiling(&bad, &cvt),
        Err(TilingCheckError::WrongOffset {
            warp: 0,
            instruction: 0,
            lane: 0,
            register: 1,
            ..
        })
    ));
}

/// Random bijections (register, 32 lanes, warps) → offset: every plan a
/// planner returns passes the instruction-level check; the generator is
/// biased so that every kind occurs.
#[test]
fn random_maps_plans_pass() {
    let mut rng = Rng(0xfeed);
    let mut kinds = std::collections::BTreeMap::new();
    for n in 0..600 {
        let nr = 1 + rng.below(4) as usize;
        let nw = rng.below(3) as usize;
        let total = nr + 5 + nw;
        let mut bits: Vec<u64> = (0..total).map(|k| 1 << k).collect();
        rng.shuffle(&mut bits);
        let (mut regs, mut lanes, mut warps) = (
            bits[..nr].to_vec(),
            bits[nr..nr + 5].to_vec(),
            bits[nr + 5..].to_vec(),
        );
        // Bias: a third get the plain matrix tile for 16-bit elements
        // (a register holds offset 1, lanes 0, 1 hold 2, 4), a third the
        // .trans tile (lanes 2, 3, 4 hold 1, 2, 4).
        let mut rest: Vec<u64> = bits.iter().copied().filter(|&x| x > 4).collect();
        rng.shuffle(&mut rest);
        match rng.below(3) {
            0 => {
                regs = [vec![1], rest[..nr - 1].to_vec()].concat();
                rng.shuffle(&mut regs);
                lanes = [vec![2, 4], rest[nr - 1..nr + 2].to_vec()].concat();
                warps = rest[nr + 2..].to_vec();
            }
            1 => {
                lanes = vec![rest[0], rest[1], 1, 2, 4];
                regs = rest[2..2 + nr].to_vec();
                warps = rest[2 + nr..].to_vec();
            }
            _ => {}
        }
        let ws = warps;
        assert_eq!(
            regs.iter().chain(&lanes).chain(&ws).fold(0, |a, &b| a | b),
            (1 << total) - 1
        );
        let cvt = LinearLayout::new(
            vec![
                (REG, regs.iter().map(|&b| vec![b]).collect()),
                (LANE, lanes.iter().map(|&b| vec![b]).collect()),
                (WARP, ws.iter().map(|&b| vec![b]).collect()),
            ],
            vec![(OFF, 1 << total)],
            true,
        )
        .unwrap();
        for bw in [8, 16, 32] {
            let plans = [
                matrix_plan(&cvt, bw, false, 4),
                matrix_plan(&cvt, bw, true, 4),
                vector_plan(&cvt, bw, 128),
            ];
            for p in plans.into_iter().flatten() {
                check_tiling(&p, &cvt).unwrap_or_else(|e| panic!("{n} bw {bw}: {e}\n{cvt}\n{p:?}"));
                *kinds.entry(format!("{:?}", p.instruction)).or_insert(0) += 1;
            }
        }
    }
    let matrices: usize = kinds
        .iter()
        .filter(|(k, _)| k.contains("trans: false"))
        .map(|x| x.1)
        .sum();
    let trans: usize = kinds
        .iter()
        .filter(|(k, _)| k.contains("trans: true"))
        .map(|x| x.1)
        .sum();
    assert!(matrices > 50 && trans > 50, "{kinds:?}");
}

#[test]
fn bad_inputs_are_errors() {
    let cvt = mma16x16().invert_and_compose(&shared16x16(true)).unwrap();
    assert!(matches!(
        matrix_plan(&cvt, 64, false, 4),
        Err(TilingError::UnsupportedBitwidth { bitwidth: 64, .. })
    ));
    assert!(matches!(
        matrix_plan(&cvt, 8, true, 4),
        Err(TilingError::UnsupportedBitwidth { bitwidth: 8, .. })
    ));
    assert!(matches!(
        matrix_plan(&cvt, 16, false, 3),
        Err(TilingError::UnsupportedBitwidth { .. })
    ));
    assert!(matches!(
        vector_plan(&mma16x16(), 16, 128),
        Err(TilingError::BadShape { .. })
    ));
    let small = LinearLayout::identity_1d(2, REG, OFF) * LinearLayout::identity_1d(16, LANE, OFF);
    assert!(matches!(
        matrix_plan(&small, 16, false, 4),
        Err(TilingError::NeedsFullWarp { lanes: 16, .. })
    ));
    // A corrupted plan: wrong lane address.
    let mut p = matrix_plan(&cvt, 16, false, 4).unwrap();
    p.lane_bases[0] ^= 16;
    assert!(check_tiling(&p, &cvt).is_err());
    let mut p = matrix_plan(&cvt, 16, false, 4).unwrap();
    p.lane_bases[0] ^= 1;
    assert!(matches!(
        check_tiling(&p, &cvt),
        Err(TilingCheckError::Misaligned { lane: 1, .. })
    ));
    let mut p = matrix_plan(&cvt, 16, false, 4).unwrap();
    p.instructions_per_thread = 2;
    assert!(matches!(
        check_tiling(&p, &cvt),
        Err(TilingCheckError::Coverage { .. })
    ));
}

/// Real layouts: every (distributed, shared) pair of Triton's oracle with
/// the same shape, one CTA and 32 lanes gives `cvt = dist⁻¹ ∘ shared`
/// (register, lane, warp → offset); every plan the planners return must
/// pass the instruction-level check.
#[test]
fn triton_oracle_pairs() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/triton-oracle/sample-layouts.jsonl"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let recs: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let shape = |r: &serde_json::Value| -> Vec<u64> {
        r["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect()
    };
    let (mut pairs, mut found) = (0, std::collections::BTreeMap::new());
    for d in recs.iter().filter(|r| r["space"] == "dist") {
        for s in recs
            .iter()
            .filter(|r| r["space"] == "shared" && shape(r) == shape(d))
        {
            let dl = LinearLayout::from_json(&d["linear"], Some(&shape(d))).unwrap();
            let sl = LinearLayout::from_json(&s["linear"], Some(&shape(s))).unwrap();
            if dl.in_dim_size(DimName::BLOCK) != 1
                || sl.in_dim_size(DimName::BLOCK) != 1
                || dl.in_dim_size(LANE) != 32
            {
                continue;
            }
            let Ok(cvt) = dl.invert_and_compose(&sl) else {
                continue;
            };
            let cvt = cvt.sublayout(&[REG, LANE, WARP], &[OFF]).unwrap();
            pairs += 1;
            let bw = s["elem_bitwidth"].as_u64().unwrap() as u32;
            let plans = [
                matrix_plan(&cvt, bw, false, 4),
                matrix_plan(&cvt, bw, true, 4),
                vector_plan(&cvt, bw, 128),
            ];
            for p in plans.into_iter().flatten() {
                check_tiling(&p, &cvt)
                    .unwrap_or_else(|e| panic!("{} -> {}: {e}\n{cvt}", d["id"], s["id"]));
                *found.entry(format!("{:?}", p.instruction)).or_insert(0) += 1;
            }
        }
    }
    // Observed on this sample: 59 pairs, 3 stmatrix.x4, 3 .trans x4, vector
    // widths 1 to 16.
    let count = |k: &str| found.get(k).copied().unwrap_or(0);
    assert!(pairs >= 40, "{pairs}");
    assert!(count("Matrix { count: 4, trans: false }") >= 1, "{found:?}");
    assert!(count("Matrix { count: 4, trans: true }") >= 1, "{found:?}");
    assert!(count("VectorShared { vec: 8 }") >= 1, "{found:?}");
}

#[test]
fn malformed_plans_are_errors_not_panics() {
    let cvt = mma16x16().invert_and_compose(&shared16x16(true)).unwrap();
    let mut p = matrix_plan(&cvt, 16, false, 4).unwrap();
    p.instruction = TileInstruction::Matrix {
        count: 8,
        trans: false,
    };
    assert!(matches!(
        check_tiling(&p, &cvt),
        Err(TilingCheckError::BadPlan(_))
    ));
    let mut p = vector_plan(&cvt, 16, 128).unwrap();
    p.instruction = TileInstruction::VectorShared { vec: 0 };
    assert!(matches!(
        check_tiling(&p, &cvt),
        Err(TilingCheckError::BadPlan(_))
    ));
    let mut p = matrix_plan(&cvt, 16, false, 4).unwrap();
    p.bitwidth = 0;
    assert!(matches!(
        check_tiling(&p, &cvt),
        Err(TilingCheckError::BadPlan(_))
    ));
}

#[test]
fn plan_serialises() {
    let cvt = mma16x16().invert_and_compose(&shared16x16(true)).unwrap();
    let plan = best_tiling(&cvt, 16).unwrap();
    let back: layout_codegen::tiling::TilingPlan =
        serde_json::from_str(&serde_json::to_string(&plan).unwrap()).unwrap();
    assert_eq!(back, plan);
}

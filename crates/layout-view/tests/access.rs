//! The access pattern of `layout_view::access` (addresses enumerated one by
//! one) against Triton 3.9's bank-conflict counts and hand derivations.
//!
//! Relation tested (module docs of `layout_view::access`): Triton's count
//! `c` is the number of *extra wavefronts per phase* of every access; all
//! phases of a linear access cost the same, so the first instruction costs
//! `W = phases · (c + 1)` wavefronts. It must hold whenever
//! 1. our enumerated vector width equals Triton's (`largest_vectorisation`,
//!    as `layout_codegen::bank_conflicts::analyse_bank_conflicts` reports),
//!    and
//! 2. Triton's formula models the hardware for the pair, i.e.
//!    `layout_codegen`'s exact closed form equals its Triton formula (no
//!    lane offset mixing sub-word bits with row bits).
//!
//! When (1) holds but not (2), the hardware needs more: `W > phases · (c + 1)`
//! and `W = phases · (exact + 1)`. When (1) fails our width is larger
//! (some register column carries a vector bit together with others: the
//! lanes still store whole vectors, in a register order Triton's
//! `largest_vectorisation` does not consider), and the relation does not
//! apply.

use layout_view::access::first_access;
use linear_layout::LinearLayout;
use serde_json::Value;

/// Triton 3.9's bank-conflict records (the sample and seed 23; seeds 7 and
/// 11 behave the same and are left out for time).
fn records() -> Vec<Value> {
    let mut out = Vec::new();
    for name in ["sample-bank-conflicts.jsonl", "seed23-bank-conflicts.jsonl"] {
        let path = format!(
            "{}/../../tests/data/triton-oracle/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        for l in std::fs::read_to_string(path).unwrap().lines() {
            out.push(serde_json::from_str(l).unwrap());
        }
    }
    out
}

fn shape_of(rec: &Value) -> Vec<u64> {
    rec["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect()
}

#[test]
fn first_instruction_wavefronts_match_tritons_conflicts() {
    let (mut exact_cases, mut sub_word, mut other_vec) = (0, 0, 0);
    for rec in records() {
        let shape = shape_of(&rec);
        let bits = rec["bitwidth"].as_u64().unwrap();
        let triton = rec["conflicts"].as_u64().unwrap();
        let reg = LinearLayout::from_json(&rec["reg"]["linear"], Some(&shape)).unwrap();
        let smem = LinearLayout::from_json(&rec["shared"]["linear"], Some(&shape)).unwrap();
        let a = first_access(&reg, &smem, &shape, bits).unwrap();
        let codegen =
            layout_codegen::bank_conflicts::analyse_bank_conflicts(&reg, &smem, bits as u32)
                .unwrap();
        assert_eq!(
            codegen.conflicts, triton,
            "{}: layout_codegen vs oracle",
            rec["id"]
        );
        let exact =
            layout_codegen::bank_conflicts::exact_bank_conflicts(&reg, &smem, bits as u32).unwrap();
        // Every phase of the first instruction costs the same.
        assert!(
            a.phase_wavefronts
                .iter()
                .all(|&w| w == a.phase_wavefronts[0]),
            "{}: {:?}",
            rec["id"],
            a.phase_wavefronts
        );
        if a.vec != codegen.vec {
            // Our vectors are the hardware's: a register group stored in a
            // fixed order by every lane. Triton also requires the other
            // register columns to leave the vector bits alone, so its width
            // is never larger.
            assert!(a.vec > codegen.vec, "{}", rec["id"]);
            other_vec += 1;
            continue;
        }
        if exact == triton {
            exact_cases += 1;
            assert_eq!(
                a.wavefronts,
                a.phases * (triton + 1),
                "{}: W = phases·(c+1) with c = {triton}",
                rec["id"]
            );
        } else {
            sub_word += 1;
            assert!(a.wavefronts > a.phases * (triton + 1), "{}", rec["id"]);
            assert_eq!(a.wavefronts, a.phases * (exact + 1), "{}", rec["id"]);
        }
    }
    eprintln!("exact {exact_cases}, sub-word {sub_word}, other vector width {other_vec}");
    assert!(
        exact_cases >= 250,
        "only {exact_cases} records tested the relation"
    );
    assert!(sub_word >= 3, "only {sub_word} sub-word records");
}

fn layout(v: Value, shape: &[u64]) -> LinearLayout {
    LinearLayout::from_json(&v, Some(shape)).unwrap()
}

/// A 16×32 tile, 32-bit elements, one warp: 4 lanes down × 8 lanes across,
/// 4 consecutive columns per thread (`sizePerThread = [1, 4]`), rows 4..16
/// in registers.
fn blocked_16x32() -> LinearLayout {
    layout(
        serde_json::json!({"register": [[0,1],[0,2],[4,0],[8,0]],
            "lane": [[0,4],[0,8],[0,16],[1,0],[2,0]], "warp": [], "block": []}),
        &[16, 32],
    )
}

/// Column-major shared tile: offset = row + 16 · col. By hand, register 0
/// of lane `l` holds (l >> 3, 4 · (l & 7)) at offset (l >> 3) + 64 · (l & 7),
/// word = offset, bank = l >> 3: four banks, each serving the 8 distinct
/// words of the lanes with the same l >> 3. Registers 0 and 1 are 16 apart:
/// no vector. One phase (4 bytes per lane) of 8 wavefronts, every touched
/// cell conflicting.
#[test]
fn column_major_tile_hand_derivation() {
    let smem = layout(
        serde_json::json!({"offset": [[1,0],[2,0],[4,0],[8,0],[0,1],[0,2],[0,4],[0,8],[0,16]], "block": []}),
        &[16, 32],
    );
    let a = first_access(&blocked_16x32(), &smem, &[16, 32], 32).unwrap();
    assert_eq!((a.vec, a.phases, a.lanes_per_phase), (1, 1, 32));
    assert_eq!(a.phase_wavefronts, vec![8]);
    assert_eq!(a.wavefronts, 8);
    let want: Vec<u64> = (0..32u64).map(|l| (l >> 3) + 64 * (l & 7)).collect();
    let mut sorted = want.clone();
    sorted.sort();
    assert_eq!(a.touched.keys().copied().collect::<Vec<_>>(), sorted);
    assert_eq!(a.conflicting.iter().copied().collect::<Vec<_>>(), sorted);
    for l in 0..32u64 {
        assert_eq!(a.banks_of(want[l as usize]), vec![l >> 3]);
    }
}

/// Row-major shared tile: offset = 32 · row + col. Registers 0..3 of a lane
/// are 4 consecutive offsets from a multiple of 4: a 16-byte vector, so 4
/// phases of 8 lanes; the 8 lanes of phase 0 cover row 0, offsets 0..32 =
/// bytes 0..128, every bank once: 1 wavefront per phase, 4 in all, no
/// conflict.
#[test]
fn row_major_tile_vectorised_and_conflict_free() {
    let smem = layout(
        serde_json::json!({"offset": [[0,1],[0,2],[0,4],[0,8],[0,16],[1,0],[2,0],[4,0],[8,0]], "block": []}),
        &[16, 32],
    );
    let a = first_access(&blocked_16x32(), &smem, &[16, 32], 32).unwrap();
    assert_eq!(
        (a.vec, a.bytes_per_lane, a.phases, a.lanes_per_phase),
        (4, 16, 4, 8)
    );
    assert_eq!(a.phase_wavefronts, vec![1, 1, 1, 1]);
    assert!(a.conflicting.is_empty());
    // Lane l: row l >> 3, columns 4 (l & 7) .. + 4.
    let want: Vec<u64> = (0..32u64)
        .flat_map(|l| (0..4).map(move |k| 32 * (l >> 3) + 4 * (l & 7) + k))
        .collect();
    let mut sorted = want;
    sorted.sort();
    assert_eq!(a.touched.keys().copied().collect::<Vec<_>>(), sorted);
    assert_eq!(a.lanes[9].registers, vec![0, 1, 2, 3]);
}

#[test]
fn bad_inputs_are_errors() {
    let smem = layout(
        serde_json::json!({"offset": [[0,1],[0,2],[0,4],[0,8],[0,16],[1,0],[2,0],[4,0],[8,0]], "block": []}),
        &[16, 32],
    );
    let reg = blocked_16x32();
    assert!(first_access(&reg, &smem, &[16, 32], 12).is_err());
    assert!(first_access(&smem, &reg, &[16, 32], 32).is_err());
    assert!(first_access(&reg, &smem, &[32, 16], 32).is_err());
}

/// The bank picture with the column-major access (reviewed by eye: four
/// red bank columns 0..3 on every even line, the legend says 8
/// wavefronts).
#[test]
fn bank_picture_with_access_snapshot() {
    let smem = layout(
        serde_json::json!({"offset": [[1,0],[2,0],[4,0],[8,0],[0,1],[0,2],[0,4],[0,8],[0,16]], "block": []}),
        &[16, 32],
    );
    let a = first_access(&blocked_16x32(), &smem, &[16, 32], 32).unwrap();
    let pic = layout_view::svg::bank_picture_access(&smem, &[16, 32], 32, Some(&a)).unwrap();
    let again = layout_view::svg::bank_picture_access(&smem, &[16, 32], 32, Some(&a)).unwrap();
    assert_eq!(pic.svg, again.svg, "deterministic");
    // Without an access pattern: the plain bank picture.
    let plain = layout_view::svg::bank_picture(&smem, &[16, 32], 32).unwrap();
    assert!(!plain.svg.contains("class=\"conflict\""));
    assert!(
        pic.panels[0].info[64].ends_with("BANK CONFLICT"),
        "{}",
        pic.panels[0].info[64]
    );
    insta::assert_snapshot!("bank_access_16x32", pic.svg);
}

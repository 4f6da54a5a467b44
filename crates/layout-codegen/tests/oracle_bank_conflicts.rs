//! Triton 3.9's `bankConflictsMemDesc` answers (tests/data/triton-oracle/
//! sample-bank-conflicts.jsonl, produced by Triton itself) against
//! [`bank_conflicts`], and the brute-force counter against both.

use layout_codegen::bank_conflicts::{
    bank_conflicts, brute_force_bank_conflicts, exact_bank_conflicts,
};
use linear_layout::LinearLayout;
use serde_json::Value;

fn records(name: &str) -> Vec<Value> {
    let path = format!(
        "{}/../../tests/data/triton-oracle/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn shape(r: &Value) -> Vec<u64> {
    r["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect()
}

#[test]
fn bank_conflicts_match_triton_on_every_sample() {
    let recs = records("sample-bank-conflicts.jsonl")
        .into_iter()
        .chain(records("seed7-bank-conflicts.jsonl"))
        .chain(records("seed11-bank-conflicts.jsonl"))
        .chain(records("seed23-bank-conflicts.jsonl"))
        .chain(records("seed41-bank-conflicts.jsonl"))
        .chain(records("seed53-bank-conflicts.jsonl"))
        .chain(records("seed67-bank-conflicts.jsonl"))
        .chain(records("seed97-bank-conflicts.jsonl"))
        .collect::<Vec<_>>();
    assert!(recs.len() >= 650, "expected the 49 + 239 + 373 cases");
    let mut pass = 0;
    let mut failures = Vec::new();
    for r in &recs {
        let shape = shape(r);
        let reg = LinearLayout::from_json(&r["reg"]["linear"], Some(&shape)).unwrap();
        let smem = LinearLayout::from_json(&r["shared"]["linear"], Some(&shape)).unwrap();
        let bw = r["bitwidth"].as_u64().unwrap() as u32;
        let want = r["conflicts"].as_u64().unwrap();
        match bank_conflicts(&reg, &smem, bw) {
            Ok(got) if got == want => pass += 1,
            other => failures.push(format!("{}: got {other:?}, Triton {want}", r["id"])),
        }
    }
    println!("bank conflicts: {pass}/{} match Triton", recs.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// True when some lane basis of one phase, written as an element offset,
/// has a sub-word bit (a bit below log2(32 / bitwidth)) set together with
/// other bits: Triton's formula treats such a lane as conflict-free, the
/// hardware does not (two lanes hit the same bank in different rows).
fn lane_mixes_sub_word_bits(reg: &LinearLayout, smem: &LinearLayout, bw: u32) -> bool {
    use layout_codegen::bank_conflicts::{analyse_bank_conflicts, remove_broadcast_registers};
    use linear_layout::DimName;
    let a = analyse_bank_conflicts(reg, smem, bw).unwrap();
    let nb = remove_broadcast_registers(reg).unwrap();
    let cvt = nb.invert_and_compose(smem).unwrap();
    let sub_word = (32 / bw as u64).max(1) - 1;
    cvt.bases(DimName::LANE)
        .iter()
        .take(a.lane_tile.len())
        .any(|b| b[0] & sub_word != 0 && b[0] & !sub_word != 0)
}

#[test]
fn brute_force_agrees_with_triton_on_every_sample() {
    let recs = records("sample-bank-conflicts.jsonl")
        .into_iter()
        .chain(records("seed7-bank-conflicts.jsonl"))
        .chain(records("seed11-bank-conflicts.jsonl"))
        .chain(records("seed23-bank-conflicts.jsonl"))
        .chain(records("seed41-bank-conflicts.jsonl"))
        .chain(records("seed53-bank-conflicts.jsonl"))
        .chain(records("seed67-bank-conflicts.jsonl"))
        .chain(records("seed97-bank-conflicts.jsonl"))
        .collect::<Vec<_>>();
    let (mut pass, mut mixed, mut skipped) = (0, 0, 0);
    let mut failures = Vec::new();
    for r in &recs {
        let shape = shape(r);
        // Brute force enumerates every address: keep debug runs short.
        if shape.iter().product::<u64>() > 1 << 15 {
            skipped += 1;
            continue;
        }
        let reg = LinearLayout::from_json(&r["reg"]["linear"], Some(&shape)).unwrap();
        let smem = LinearLayout::from_json(&r["shared"]["linear"], Some(&shape)).unwrap();
        let bw = r["bitwidth"].as_u64().unwrap() as u32;
        let want = r["conflicts"].as_u64().unwrap();
        let b = brute_force_bank_conflicts(&reg, &smem, bw).unwrap();
        // The exact formula counts what the brute force counts, everywhere.
        let exact = exact_bank_conflicts(&reg, &smem, bw).unwrap();
        assert_eq!(exact, b.max_conflicts, "{}: exact formula", r["id"]);
        // Linear layouts: every phase of every access costs the same.
        assert_eq!(b.max_conflicts, b.min_conflicts, "{}", r["id"]);
        if lane_mixes_sub_word_bits(&reg, &smem, bw) {
            // The hardware can only be worse than the formula here.
            mixed += 1;
            if b.max_conflicts == want {
                pass += 1;
            } else if b.max_conflicts < want {
                failures.push(format!(
                    "{}: mixed lane, brute {b:?}, Triton {want}",
                    r["id"]
                ));
            }
        } else if b.max_conflicts == want {
            pass += 1;
        } else {
            failures.push(format!("{}: brute force {b:?}, Triton {want}", r["id"]));
        }
    }
    println!(
        "brute force: {pass}/{} equal Triton ({mixed} with sub-word-mixing lanes, where hardware may count more; {skipped} larger than 2^15 elements skipped)",
        recs.len() - skipped
    );
    assert!(pass >= 400);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

//! The wavefront counter's rule for guarded accesses
//! ([`predicated_access_wavefronts`]) against ncu on an H200: 336 one-warp
//! accesses (ld/st of 4, 8 and 16 bytes, four address schemes, fourteen
//! lane masks) measured by `bench/gpu/tools/predicated_wavefronts.cu`
//! (`bench/gpu/results/2026-11-29-h200/predicated/`).
//!
//! * Stores: the rule equals ncu on all 168.
//! * Loads: the rule equals ncu on 155 of 168 and is above it on the other
//!   13, never below: the load unit sometimes serves lanes of two phases in
//!   one wavefront (13 of the 112 8- and 16-byte loads: 7 and 6), which the
//!   rule does not model; ncu never goes below the merged count (the most
//!   distinct words of one bank among all active lanes).

use layout_codegen::wavefront::{phase_wavefronts, predicated_access_wavefronts};

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../bench/gpu/results/2026-11-29-h200/predicated"
);

struct Access {
    op: String,
    bytes: u64,
    starts: Vec<Option<u64>>,
    ncu: u64,
}

fn accesses() -> Vec<Access> {
    let configs = std::fs::read_to_string(format!("{DIR}/configs.txt")).unwrap();
    let table = std::fs::read_to_string(format!("{DIR}/table.tsv")).unwrap();
    let rows: Vec<&str> = table.lines().skip(1).collect();
    let lines: Vec<&str> = configs.lines().collect();
    assert_eq!(lines.len(), rows.len());
    lines
        .iter()
        .zip(rows)
        .map(|(c, r)| {
            let c: Vec<&str> = c.split_whitespace().collect();
            let r: Vec<&str> = r.split('\t').collect();
            assert_eq!((c[0], c[1], c[2], c[3]), (r[0], r[1], r[2], r[3]));
            let mask = u32::from_str_radix(c[3].trim_start_matches("0x"), 16).unwrap();
            let starts = c[4..36]
                .iter()
                .enumerate()
                .map(|(l, a)| (mask >> l & 1 == 1).then(|| a.parse().unwrap()))
                .collect();
            Access {
                op: c[0].to_string(),
                bytes: c[1].parse().unwrap(),
                starts,
                ncu: r[4].parse().unwrap(),
            }
        })
        .collect()
}

fn model(a: &Access) -> u64 {
    predicated_access_wavefronts(&a.starts, a.bytes)
        .iter()
        .sum()
}

fn merged(a: &Access) -> u64 {
    let active: Vec<u64> = a.starts.iter().flatten().copied().collect();
    phase_wavefronts(&active, a.bytes, 32)
}

#[test]
fn stores_equal_ncu() {
    let stores: Vec<Access> = accesses().into_iter().filter(|a| a.op == "st").collect();
    assert_eq!(stores.len(), 168);
    for a in &stores {
        assert_eq!(model(a), a.ncu, "{} bytes {:?}", a.bytes, a.starts);
    }
}

#[test]
fn loads_never_below_ncu() {
    let loads: Vec<Access> = accesses().into_iter().filter(|a| a.op == "ld").collect();
    assert_eq!(loads.len(), 168);
    let mut above = 0;
    for a in &loads {
        let m = model(a);
        assert!(
            m >= a.ncu,
            "{} bytes {:?}: {m} < ncu {}",
            a.bytes,
            a.starts,
            a.ncu
        );
        assert!(merged(a) <= a.ncu, "{} bytes {:?}", a.bytes, a.starts);
        above += usize::from(m > a.ncu);
    }
    // 4-byte loads are one phase: never merged.
    assert!(loads
        .iter()
        .filter(|a| a.bytes == 4)
        .all(|a| model(a) == a.ncu));
    assert_eq!(above, 13);
}

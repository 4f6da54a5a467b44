//! Triton's own layouts (the oracle's `linear`, from Triton 3.9) through the
//! CuTe bridge and back: every shared layout of one CTA that linear → CuTe
//! accepts must come back bit for bit from the CuTe text it printed (but
//! for padding above the highest offset reached, which CuTe cannot say), and
//! every one it refuses must be refused for a stated reason; the same for
//! distributed layouts of 32 lanes as thread-value layouts.

use hw_layouts::cute::{self, CuteError};
use linear_layout::{DimName, LinearLayout};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn records() -> Vec<Value> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/triton-oracle");
    let mut v = vec![];
    for f in [
        "sample-layouts.jsonl",
        "seed41-layouts.jsonl",
        "shared-extra-layouts.jsonl",
        "shared-grid-layouts.jsonl",
        "shared-grid2-layouts.jsonl",
    ] {
        let text = std::fs::read_to_string(dir.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        v.extend(
            text.lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| serde_json::from_str::<Value>(l).unwrap()),
        );
    }
    v
}

/// The record's layout with size-1 / empty `block` dropped, or None if it
/// spans several CTAs.
fn one_cta(rec: &Value) -> Option<LinearLayout> {
    let shape: Vec<u64> = rec["shape"]
        .as_array()?
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    let l = LinearLayout::from_json(&rec["linear"], Some(&shape)).ok()?;
    if l.has_in_dim(DimName::BLOCK) && l.in_dim_size(DimName::BLOCK) > 1 {
        return None;
    }
    let ins: Vec<DimName> = l.in_dim_names().filter(|&d| d != DimName::BLOCK).collect();
    let outs: Vec<DimName> = l.out_dim_names().collect();
    l.sublayout(&ins, &outs).ok()
}

/// `l` without its zero offset bases above the highest non-zero one: CuTe
/// has no allocation size, so padding above every reached offset is lost.
fn without_top_padding(l: &LinearLayout) -> LinearLayout {
    let mut offset = l.bases(DimName::OFFSET);
    while offset.last().is_some_and(|b| b.iter().all(|&x| x == 0)) {
        offset.pop();
    }
    LinearLayout::new(vec![(DimName::OFFSET, offset)], l.out_dims(), false).unwrap()
}

#[test]
fn triton_shared_layouts_round_trip_through_cute() {
    let mut tally: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut swizzled = 0;
    let mut padded = 0;
    for rec in records() {
        let kind = rec["kind"].as_str().unwrap_or("");
        if !["swizzled_shared", "nvmma_shared", "shared_linear"].contains(&kind) {
            continue;
        }
        let Some(l) = one_cta(&rec) else { continue };
        let entry = tally.entry(kind.to_string()).or_default();
        match cute::from_shared_linear(&l) {
            Ok(c) => {
                entry.0 += 1;
                swizzled += c.swizzle.is_some() as usize;
                let text = c.to_string();
                let back = cute::to_shared_linear(&cute::parse(&text).unwrap()).unwrap();
                assert_eq!(back, without_top_padding(&l), "{} -> {text}", rec["mlir"]);
                padded += (back.total_in_dim_size() > l.total_out_dim_size()) as usize;
            }
            Err(CuteError::NotExpressible(why)) => {
                entry.1 += 1;
                // CUTE_WHY=1 lists every refusal.
                if std::env::var("CUTE_WHY").is_ok() {
                    eprintln!("{} {}: {why}", rec["mlir"], rec["shape"]);
                }
                assert_eq!(kind, "shared_linear", "{}: {why}", rec["mlir"]);
                assert!(
                    why.contains("share bits") || why.contains("not a bijection"),
                    "{}: {why}",
                    rec["mlir"]
                );
            }
            Err(e) => panic!("{}: {e}", rec["mlir"]),
        }
    }
    eprintln!("shared (expressed, refused): {tally:?}; {swizzled} behind a swizzle, {padded} with padding");
    let expressed: usize = tally.values().map(|t| t.0).sum();
    assert!(
        expressed > 1700 && swizzled > 800,
        "{tally:?}, {swizzled} swizzled"
    );
    // Every swizzled_shared and nvmma_shared layout is a CuTe layout (behind
    // a swizzle, with padding where the allocation is larger than the tensor).
    for k in ["swizzled_shared", "nvmma_shared"] {
        assert_eq!(tally[k].1, 0, "{k}: {tally:?}");
    }
    assert!(padded > 100, "{padded} with padding");
}

#[test]
fn triton_distributed_layouts_round_trip_as_tv_layouts() {
    let mut tally: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for rec in records() {
        let kind = rec["kind"].as_str().unwrap_or("");
        if !["blocked", "nvidia_mma", "dot_op", "linear", "slice"].contains(&kind) {
            continue;
        }
        let Some(l) = one_cta(&rec) else { continue };
        if !l.has_in_dim(DimName::LANE)
            || l.in_dim_size(DimName::LANE) != 32
            || l.num_out_dims() > 2
        {
            continue;
        }
        let entry = tally.entry(kind.to_string()).or_default();
        match cute::to_tv(&l) {
            Ok(c) => {
                entry.0 += 1;
                let tile: Vec<u64> = l.out_dims().iter().map(|d| d.1).collect();
                let back =
                    cute::tv_to_distributed(&cute::parse(&c.to_string()).unwrap(), &tile).unwrap();
                let ins: Vec<DimName> = l.in_dim_names().collect();
                assert_eq!(
                    back.transpose_ins(&ins).unwrap().bases(DimName::REGISTER),
                    l.bases(DimName::REGISTER),
                    "{}",
                    rec["mlir"]
                );
                assert_eq!(
                    back.bases(DimName::LANE),
                    l.bases(DimName::LANE),
                    "{}",
                    rec["mlir"]
                );
                let warps = if l.has_in_dim(DimName::WARP) {
                    l.bases(DimName::WARP)
                } else {
                    vec![]
                };
                assert_eq!(back.bases(DimName::WARP), warps, "{}", rec["mlir"]);
            }
            Err(CuteError::NotExpressible(why)) => {
                entry.1 += 1;
                assert!(why.contains("share bits"), "{}: {why}", rec["mlir"]);
            }
            Err(e) => panic!("{}: {e}", rec["mlir"]),
        }
    }
    eprintln!("distributed (expressed, refused): {tally:?}");
    assert!(
        tally.values().map(|t| t.0).sum::<usize>() > 100,
        "{tally:?}"
    );
}

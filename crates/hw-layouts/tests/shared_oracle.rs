//! Differential test of the shared-memory and tensor-memory families against
//! Triton 3.9's own answers (`tests/data/triton-oracle/*.jsonl`, produced by
//! `gen_oracle.py` through Triton's Gluon bindings).
//!
//! For every record of our kinds: parse `mlir`, build the layout for
//! `shape`, compare `bases_json()` with `linear` exactly, and check that
//! `to_mlir()` reprints `mlir`. Where Triton's binding reports an incomplete
//! layout (`linear_incomplete`: partitioned drops `partition`, tensor memory
//! drops `block`), the Triton-compatible view is compared and the full
//! layout is checked to extend it. `tmem_reg` records are rebuilt from their
//! `params`. Every reject of our kinds must be an `Err`.

use hw_layouts::shared::{PaddedShared, PartitionedShared};
use hw_layouts::syntax::Attribute;
use hw_layouts::tmem::{tmem_reg_layout, TensorMemory, TmemRegParams};
use hw_layouts::Encoding;
use linear_layout::{DimName, LinearLayout};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

const KINDS: &[&str] = &[
    "swizzled_shared",
    "nvmma_shared",
    "shared_linear",
    "padded_shared",
    "partitioned_shared",
    "tensor_memory",
    "tensor_memory_scales",
    "tmem_reg",
];

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/triton-oracle")
}

fn read_jsonl(name: &str) -> Vec<Value> {
    let path = data_dir().join(name);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return vec![];
    };
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("valid JSON line"))
        .collect()
}

fn layout_records() -> Vec<Value> {
    let mut v = read_jsonl("sample-layouts.jsonl");
    assert!(
        !v.is_empty(),
        "sample-layouts.jsonl missing in {:?}",
        data_dir()
    );
    v.extend(read_jsonl("shared-extra-layouts.jsonl"));
    v.extend(read_jsonl("shared-tmem-reg-grid-layouts.jsonl"));
    v.extend(read_jsonl("shared-grid-layouts.jsonl"));
    v.extend(read_jsonl("shared-grid2-layouts.jsonl"));
    v
}

fn u64s(v: &Value) -> Vec<u64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_u64().expect("u64"))
        .collect()
}

/// Like [`u64s`], but an error (not a panic) for negative or odd entries.
fn try_u64s(v: &Value, what: &str) -> Result<Vec<u64>, String> {
    v.as_array()
        .ok_or(format!("{what} is not a list"))?
        .iter()
        .map(|x| {
            x.as_u64()
                .ok_or(format!("{what} entry {x} is not a non-negative integer"))
        })
        .collect()
}

/// Only the given keys of a bases object.
fn pick(v: &Value, keys: &[&str]) -> Value {
    let mut m = serde_json::Map::new();
    for k in keys {
        if let Some(x) = v.get(*k) {
            m.insert((*k).to_string(), x.clone());
        }
    }
    Value::Object(m)
}

/// Checks one layout record; `Err(reason)` on a mismatch.
fn check_record(r: &Value) -> Result<(), String> {
    let kind = r["kind"].as_str().unwrap();
    let shape = u64s(&r["shape"]);
    let want = &r["linear"];
    if kind == "tmem_reg" {
        let p = tmem_params(&r["params"]).map_err(|e| format!("params: {e}"))?;
        let got = tmem_reg_layout(&p).map_err(|e| format!("tmem_reg_layout: {e}"))?;
        let got = got.bases_json();
        return if &got == want {
            Ok(())
        } else {
            Err(format!("got {got}\nwant {want}"))
        };
    }
    let text = r["mlir"].as_str().unwrap();
    let attr = Attribute::parse(text).map_err(|e| format!("parse: {e}"))?;
    let enc = Encoding::from_attr(&attr).map_err(|e| format!("from_attr: {e}"))?;
    if let Some(want) = r.get("alignment").and_then(Value::as_u64) {
        let got = match &enc {
            Encoding::SwizzledShared(s) => Some(s.alignment()),
            Encoding::NvmmaShared(s) => Some(s.alignment()),
            Encoding::SharedLinear(s) => Some(s.alignment),
            Encoding::PartitionedShared(s) => Some(s.alignment()),
            _ => None,
        };
        if got != Some(want) {
            return Err(format!("alignment {got:?}, want {want}"));
        }
    }
    let printed = enc.to_mlir();
    if printed != text {
        return Err(format!("to_mlir: {printed}\n   want: {text}"));
    }
    let got = match &enc {
        Encoding::PartitionedShared(p) => {
            let full = p.to_linear_layout(&shape).map_err(|e| e.to_string())?;
            check_partition_extends(p, &full, &shape)?;
            p.to_triton_linear_layout(&shape)
                .map_err(|e| e.to_string())?
                .bases_json()
        }
        Encoding::TensorMemory(t) => {
            let full = t.to_linear_layout(&shape).map_err(|e| e.to_string())?;
            check_block_extends(&full, &shape)?;
            t.to_triton_linear_layout(&shape)
                .map_err(|e| e.to_string())?
                .bases_json()
        }
        Encoding::TensorMemoryScales(t) => {
            let full = t.to_linear_layout(&shape).map_err(|e| e.to_string())?;
            // Triton keeps a CTA split of a dim the tensor does not fill
            // (shape [512, 1], CGALayout [[0, 1]]: out sizes [512, 2]); the
            // oracle records those sizes as `linear_shape`.
            // Records without `linear_shape` (the grid files): Triton's
            // rule as seen in every record that has it, max(shape, the
            // number of CTAs along the dim).
            let sizes: Vec<u64> = r
                .get("linear_shape")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_u64).collect())
                .unwrap_or_else(|| {
                    (0..shape.len())
                        .map(|d| {
                            let split = t.cga.iter().filter(|b| b[d] != 0).count() as u32;
                            shape[d].max(1 << split)
                        })
                        .collect()
                });
            check_block_extends(&full, &sizes)?;
            t.to_triton_linear_layout(&shape)
                .map_err(|e| e.to_string())?
                .bases_json()
        }
        Encoding::PaddedShared(p) => {
            let l = p.to_linear_layout(&shape).map_err(|e| e.to_string())?;
            padded_oracle_view(p, &l)
        }
        e => e
            .to_linear_layout(&shape)
            .map_err(|e| e.to_string())?
            .bases_json(),
    };
    let want = match kind {
        "tensor_memory" | "tensor_memory_scales" => pick(want, &["row", "col"]),
        _ => want.clone(),
    };
    if got == want {
        Ok(())
    } else {
        Err(format!("got {got}\nwant {want}"))
    }
}

/// The oracle's padded records hold the offset bases as given and the
/// block bases as Gluon reads them back (`PaddedSharedLayout.cga_layout`,
/// in CTA-tile units): element basis `b` → `b[d] / (per-CTA extent in d)`,
/// where the per-CTA extent is the offset part's out size.
fn padded_oracle_view(p: &PaddedShared, l: &LinearLayout) -> Value {
    let rank = p.rank();
    let offs = l
        .sublayout(&[DimName::OFFSET], &DimName::standard_out_dims(rank))
        .unwrap();
    let mut ext = vec![1u64; rank];
    for b in offs.bases(DimName::OFFSET) {
        for (d, &c) in b.iter().enumerate() {
            if c != 0 {
                ext[d] = ext[d].max((c + 1).next_power_of_two());
            }
        }
    }
    let block: Vec<Vec<u64>> = p
        .block
        .iter()
        .map(|b| b.iter().zip(&ext).map(|(&c, &e)| c / e).collect())
        .collect();
    serde_json::json!({"offset": p.offset, "block": block})
}

/// The full partitioned layout = Triton's view plus `log2 P` partition
/// bases, each moving only along the partition dim.
fn check_partition_extends(
    p: &PartitionedShared,
    full: &LinearLayout,
    shape: &[u64],
) -> Result<(), String> {
    let parts = full.bases(DimName::PARTITION);
    if parts.len() != p.num_partitions.trailing_zeros() as usize {
        return Err(format!("partition bases {parts:?}"));
    }
    let piece = shape[p.partition_dim] / (p.num_partitions * p.num_groups);
    for (i, b) in parts.iter().enumerate() {
        for (d, &c) in b.iter().enumerate() {
            let want = if d == p.partition_dim { piece << i } else { 0 };
            if c != want {
                return Err(format!("partition basis {i} = {b:?}, piece {piece}"));
            }
        }
    }
    if !full.is_surjective() {
        return Err("full partitioned layout is not surjective".into());
    }
    Ok(())
}

/// A full tensor-memory layout has the expected out sizes (the shape, or
/// Triton's `linear_shape` where it differs) and a `block` dim.
fn check_block_extends(full: &LinearLayout, shape: &[u64]) -> Result<(), String> {
    for (d, &s) in shape.iter().enumerate() {
        if full.out_dim_size(DimName::dim(d)) != s {
            return Err(format!(
                "full layout out sizes {:?} vs shape {shape:?}",
                full.out_dims()
            ));
        }
    }
    if !full.has_in_dim(DimName::BLOCK) || !full.is_surjective() {
        return Err("full layout lacks block or is not surjective".into());
    }
    Ok(())
}

fn tmem_layout_from(p: &Value) -> Result<TensorMemory, String> {
    let block = try_u64s(&p["block"], "block")?;
    if block.len() != 2 {
        return Err(format!("block {block:?} is not [M, N]"));
    }
    let cga = cga_bases(&p["cga_layout"])?;
    TensorMemory::new(
        block[0],
        block[1],
        p["col_stride"].as_u64().ok_or("col_stride")?,
        cga,
        p["two_ctas"].as_bool().unwrap_or(false),
        p.get("fp4_padded")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    )
    .map_err(|e| e.to_string())
}

fn tmem_params(p: &Value) -> Result<TmemRegParams, String> {
    Ok(TmemRegParams {
        element_bitwidth: p["element_bitwidth"].as_u64().ok_or("element_bitwidth")?,
        shape: try_u64s(&p["shape"], "shape")?,
        alloc_shape: try_u64s(&p["alloc_shape"], "alloc_shape")?,
        tmem_layout: tmem_layout_from(&p["tmem_layout"])?,
        num_warps: p["num_warps"].as_u64().ok_or("num_warps")?,
        atom: p["atom"].as_str().ok_or("atom")?.to_string(),
    })
}

fn cga_bases(v: &Value) -> Result<Vec<Vec<u64>>, String> {
    if v.is_null() {
        return Ok(vec![]);
    }
    if v.get("legacy").is_some() {
        return Err("legacy CGA in a tmem layout".into());
    }
    v.as_array()
        .ok_or("cga_layout is not a list")?
        .iter()
        .map(|b| try_u64s(b, "cga_layout basis"))
        .collect()
}

// ----- rejects: parameters → attribute text --------------------------------

fn ints(v: &Value) -> String {
    // Keeps negative numbers: rejects may carry them.
    v.to_string().replace(',', ", ")
}

fn cga_text(v: &Value) -> String {
    match v {
        Value::Array(a) if a.is_empty() => String::new(),
        Value::Array(_) => format!(", CGALayout = {}", ints(v)),
        Value::Object(o) => {
            let l = &o["legacy"];
            format!(
                ", CTAsPerCGA = {}, CTASplitNum = {}, CTAOrder = {}",
                ints(&l[0]),
                ints(&l[1]),
                ints(&l[2])
            )
        }
        _ => String::new(),
    }
}

/// The attribute text Gluon's constructor would build from `params`
/// (padded `cga_layout`, in tile units, becomes element block bases).
fn params_to_mlir(p: &Value, shape: &[u64]) -> Result<String, String> {
    let cls = p["cls"].as_str().unwrap_or("");
    Ok(match cls {
        "SwizzledSharedLayout" => format!(
            "#ttg.swizzled_shared<{{vec = {}, perPhase = {}, maxPhase = {}, order = {}{}}}>",
            p["vec"],
            p["per_phase"],
            p["max_phase"],
            ints(&p["order"]),
            cga_text(&p["cga_layout"])
        ),
        "NVMMASharedLayout" => format!(
            "#ttg.nvmma_shared<{{swizzlingByteWidth = {}, transposed = {}, elementBitWidth = {}, fp4Padded = {}, rank = {}{}}}>",
            p["swizzle_byte_width"],
            p["transposed"],
            p["element_bitwidth"],
            p["fp4_padded"],
            p["rank"],
            cga_text(&p["cga_layout"])
        ),
        "SharedLinearLayout" => format!(
            "#ttg.shared_linear<{{offset = {}, block = {}}}, alignment = {}>",
            ints(&p["offset_bases"]),
            ints(&p["block_bases"]),
            p["alignment"]
        ),
        "PaddedSharedLayout" => {
            let pairs: Vec<String> = p["interval_padding_pairs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| format!("{}:+{}", x[0], x[1]))
                .collect();
            let cga = p["cga_layout"].as_array().cloned().unwrap_or_default();
            let ncta = 1u64 << cga.len();
            let _ = ncta;
            // Per-CTA extent along each dim = shape / grid.
            let rank = shape.len();
            let mut grid = vec![1i64; rank];
            for b in &cga {
                for (d, c) in b.as_array().unwrap().iter().enumerate() {
                    let c = c.as_i64().unwrap_or(0);
                    if d < rank && c > 0 {
                        grid[d] = grid[d].max(2 * c);
                    }
                }
            }
            let block: Vec<Vec<i64>> = cga
                .iter()
                .map(|b| {
                    b.as_array()
                        .unwrap()
                        .iter()
                        .enumerate()
                        .map(|(d, c)| {
                            let per = if d < rank { shape[d] as i64 / grid[d] } else { 1 };
                            c.as_i64().unwrap_or(0) * per
                        })
                        .collect()
                })
                .collect();
            format!(
                "#ttg.padded_shared<[{}] {{offset = {}, block = {}}}>",
                pairs.join(", "),
                ints(&p["offset_bases"]),
                ints(&serde_json::json!(block))
            )
        }
        "PartitionedSharedLayout" => format!(
            "#ttg.partitioned_shared<{{numPartitions = {}, numGroups = {}, partitionDim = {}, partitionLayout = {}}}>",
            p["num_partitions"],
            p["num_groups"],
            p["partition_dim"],
            {
                let mut inner_shape = shape.to_vec();
                let d = p["partition_dim"].as_u64().unwrap_or(0) as usize;
                let n = p["num_partitions"].as_u64().unwrap_or(1) * p["num_groups"].as_u64().unwrap_or(1);
                if d < inner_shape.len() && n > 0 {
                    inner_shape[d] /= n;
                }
                params_to_mlir(&p["partition_layout"], &inner_shape)?
            }
        ),
        "TensorMemoryLayout" => format!(
            "#ttng.tensor_memory_encoding<blockM = {}, blockN = {}, colStride = {}{}{}>",
            p["block"][0],
            p["block"][1],
            p["col_stride"],
            cga_text(&p["cga_layout"]),
            if p["two_ctas"].as_bool() == Some(true) { ", twoCTAs = true" } else { "" }
        ),
        "TensorMemoryScalesLayout" | "RubinTensorMemoryScalesLayout" => {
            let mut parts = vec![];
            if let Some(o) = p.get("block_rep_order").and_then(Value::as_str) {
                parts.push(format!("blockRepOrder = {o}"));
            }
            let c = cga_text(&p["cga_layout"]);
            if !c.is_empty() {
                parts.push(c.trim_start_matches(", ").to_string());
            }
            format!("#ttng.tensor_memory_scales_encoding<{}>", parts.join(", "))
        }
        other => return Err(format!("unknown class {other}")),
    })
}

#[test]
fn oracle_layouts_match_triton() {
    run_oracle(|k| k != "tmem_reg");
}

#[test]
fn oracle_tmem_reg_layouts_match_triton() {
    run_oracle(|k| k == "tmem_reg");
}

fn run_oracle(select: impl Fn(&str) -> bool) {
    let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for r in layout_records() {
        let kind = r["kind"].as_str().unwrap().to_string();
        if !KINDS.contains(&kind.as_str()) || !select(&kind) {
            continue;
        }
        let res = std::panic::catch_unwind(|| check_record(&r))
            .unwrap_or_else(|_| Err("PANIC".to_string()));
        let e = counts.entry(kind.clone()).or_default();
        e.1 += 1;
        match res {
            Ok(()) => e.0 += 1,
            Err(msg) => failures.push(format!(
                "{} {} {} shape {}: {msg}",
                r["id"], kind, r["mlir"], r["shape"]
            )),
        }
    }
    for (k, (ok, n)) in &counts {
        println!("{k:22} {ok}/{n}");
    }
    for f in failures.iter().take(40) {
        println!("FAIL {f}");
    }
    assert!(!counts.is_empty());
    assert!(failures.is_empty(), "{} oracle mismatches", failures.len());
}

#[test]
fn oracle_rejects_are_errors() {
    let mut n = 0;
    let mut failures = Vec::new();
    let mut rejects = read_jsonl("sample-rejects.jsonl");
    rejects.extend(read_jsonl("shared-extra-rejects.jsonl"));
    rejects.extend(read_jsonl("shared-tmem-reg-grid-rejects.jsonl"));
    rejects.extend(read_jsonl("shared-grid-rejects.jsonl"));
    rejects.extend(read_jsonl("shared-grid2-rejects.jsonl"));
    for r in rejects {
        let kind = r["kind"].as_str().unwrap_or("");
        if !KINDS.contains(&kind) || r["query"] != "layout" {
            continue;
        }
        n += 1;
        let shape: Vec<i64> = r["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_i64().unwrap())
            .collect();
        let limitation = r.get("triton_limitation").is_some();
        let outcome = std::panic::catch_unwind(|| -> Result<(), String> {
            if shape.iter().any(|&s| s <= 0) {
                return Err("non-positive shape".into());
            }
            let shape: Vec<u64> = shape.iter().map(|&s| s as u64).collect();
            if kind == "tmem_reg" {
                let p = tmem_params(&r["params"])?;
                let l = tmem_reg_layout(&p).map_err(|e| e.to_string())?;
                // Triton then asks for the layout at the record's shape.
                hw_layouts::check_shape(&shape).map_err(|e| e.to_string())?;
                let _ = l;
                return Ok(());
            }
            if let Some(declared) = r["params"].get("shape") {
                // Gluon's PaddedSharedLayout also states its shape.
                let d = try_u64s(declared, "params.shape")?;
                let text = params_to_mlir(&r["params"], &shape)?;
                let enc = Encoding::parse(&text).map_err(|e| e.to_string())?;
                enc.to_linear_layout(&d).map_err(|e| e.to_string())?;
            }
            // Grid rejects carry Triton's printed text, sampled ones their
            // Gluon parameters.
            let text = match (r.get("params"), r.get("mlir").and_then(Value::as_str)) {
                (None, Some(t)) => t.to_string(),
                _ => params_to_mlir(&r["params"], &shape)?,
            };
            let enc = Encoding::parse(&text).map_err(|e| e.to_string())?;
            if let Encoding::TensorMemory(t) = &enc {
                let ebw = r["ebw"]
                    .as_u64()
                    .or(r["elem_bitwidth"].as_u64())
                    .unwrap_or(32);
                t.check_element_bitwidth(ebw).map_err(|e| e.to_string())?;
            }
            enc.to_linear_layout(&shape).map_err(|e| e.to_string())?;
            Ok(())
        });
        match outcome {
            Err(_) => failures.push(format!("{} PANIC", r["id"])),
            Ok(Ok(())) if !limitation => {
                failures.push(format!("{} {kind} accepted: {}", r["id"], r["error"]))
            }
            Ok(Ok(())) => println!(
                "{} accepted (Triton limitation: {})",
                r["id"], r["triton_limitation"]
            ),
            Ok(Err(e)) => println!("{} {kind} rejected: {e}", r["id"]),
        }
    }
    println!("{n} rejects of our kinds");
    assert!(n > 0);
    assert!(failures.is_empty(), "{failures:#?}");
}

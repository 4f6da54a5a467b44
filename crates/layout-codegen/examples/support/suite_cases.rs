//! The conversion cases of the GPU suite, read from the suite's own record
//! (`bench/gpu/generated/cases.json`, written by
//! `cargo run -p layout-cuda --bin gpu-suite` with every case's source and
//! destination bases), so this list cannot drift from the suite. Variants
//! of the same conversions (`_smem`, `_mx`, `_full`, `_branch`, `_transposed`), gathers and
//! the partial cross-warp cases are left out. Shared by the
//! `triton_vs_ours` example and the `choice_*` tests through `#[path]`.

use linear_layout::LinearLayout;
use serde_json::Value;

/// One conversion case.
pub struct SuiteCase {
    pub name: String,
    pub bits: u32,
    pub src: LinearLayout,
    pub dst: LinearLayout,
}

/// The cases, layouts built (panics name the case: these are fixed inputs).
pub fn suite_cases() -> Vec<SuiteCase> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../bench/gpu/generated/cases.json"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let cases: Vec<Value> = serde_json::from_str(&text).expect("cases.json");
    cases
        .iter()
        .filter(|c| c.get("kind").is_none())
        .filter(|c| {
            let n = c["name"].as_str().unwrap_or("");
            !n.starts_with("partial_")
                && ![
                    "_smem",
                    "_mx",
                    "_full",
                    "_branch",
                    "_partial",
                    "_transposed",
                ]
                .iter()
                .any(|v| n.ends_with(v))
        })
        .map(|c| {
            let name = c["name"].as_str().expect("name").to_string();
            let shape: Vec<u64> = c["shape"]
                .as_array()
                .expect("shape")
                .iter()
                .map(|v| v.as_u64().expect("size"))
                .collect();
            let layout = |k: &str| {
                LinearLayout::from_json(&c[k], Some(&shape))
                    .unwrap_or_else(|e| panic!("{name}: {k}: {e}"))
            };
            SuiteCase {
                bits: c["bits"].as_u64().expect("bits") as u32,
                src: layout("src"),
                dst: layout("dst"),
                name,
            }
        })
        .collect()
}

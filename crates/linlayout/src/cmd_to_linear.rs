//! `linlayout to-linear`: the linear layout of a Triton layout attribute for
//! a tensor shape, printed as Triton's `#ttg.linear` (distributed layouts),
//! `#ttg.shared_linear` (shared layouts) or, with `--json`, one JSON object
//! with the bases per input dim (the Triton oracle's `linear` keys) plus
//! `"shape"`.

use crate::error::CliError;
use crate::input::{parse_shape, read_layout_text};
use hw_layouts::linear::{distributed_linear_mlir, shared_linear_mlir};
use hw_layouts::syntax::Attribute;
use hw_layouts::{Encoding, Space};
use linear_layout::{DimName, LinearLayout};
use serde_json::{Map, Value};

/// Arguments of `to-linear`.
#[derive(clap::Args)]
pub struct Args {
    /// Tensor shape, e.g. 128x64.
    #[arg(long)]
    pub shape: String,
    /// Print JSON with the oracle's keys plus "shape": what Triton 3.9's
    /// `to_linear_layout` reports (for partitioned shared and multi-CTA
    /// tensor memory that drops an input dim; padded shared gives block
    /// bases in CTA-tile units).
    #[arg(long)]
    pub json: bool,
    /// With --json: the complete layout instead of Triton's report (every
    /// input dim, e.g. `partition`, element units everywhere).
    #[arg(long, requires = "json")]
    pub full: bool,
    #[command(flatten)]
    pub hardware: crate::common::HardwareArgs,
    /// The layout attribute text, '-' for stdin, '@file' for a file.
    pub layout: String,
}

/// Runs the command: prints the layout, or returns a one-line error.
pub fn run(a: Args) -> Result<(), CliError> {
    println!("{}", render(&a)?);
    Ok(())
}

/// The text `run` prints.
pub fn render(a: &Args) -> Result<String, CliError> {
    a.hardware.validate()?;
    let shape = parse_shape(&a.shape)?;
    let text = read_layout_text(&a.layout)?;
    let enc = Encoding::parse(&text)?;
    let ll = enc.to_linear_layout(&shape)?;
    let space = enc.space();
    if space == Space::Distributed {
        a.hardware.check(&ll, "the layout")?;
    }
    if a.json {
        // Triton's own report (the oracle's `linear`) unless --full.
        let ll = if a.full {
            ll
        } else {
            enc.to_triton_linear_layout(&shape)?
        };
        if a.full {
            // The layout's own out-dim sizes: the tensor's shape, except where
            // a CTA basis reaches past it (tensor-memory scales split over
            // CTAs along a dim of size 1), so that the output reads back.
            let mut v = ll.bases_json();
            let sizes: Vec<u64> = ll.out_dim_names().map(|d| ll.out_dim_size(d)).collect();
            v["shape"] = Value::from(sizes);
            return Ok(v.to_string());
        }
        let keys: &[DimName] = match space {
            Space::Distributed => &[
                DimName::REGISTER,
                DimName::LANE,
                DimName::WARP,
                DimName::BLOCK,
            ],
            Space::Shared => &[DimName::OFFSET, DimName::BLOCK],
            Space::TensorMemory => &[DimName::ROW, DimName::COL],
        };
        return Ok(bases_object(&ll, keys, &shape).to_string());
    }
    Ok(match space {
        Space::Distributed => distributed_linear_mlir(&ll),
        Space::Shared => shared_linear_mlir(&ll, shared_alignment(&enc)),
        Space::TensorMemory => {
            let parts: Vec<String> = [DimName::ROW, DimName::COL]
                .iter()
                .map(|&d| format!("{d} = {}", Value::from(bases_or_empty(&ll, d))))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
    })
}

/// The bases of `d`, or none when the layout lacks that input dim.
fn bases_or_empty(ll: &LinearLayout, d: DimName) -> Vec<Vec<u64>> {
    if ll.has_in_dim(d) {
        ll.bases(d)
    } else {
        vec![]
    }
}

/// `{"<key>": [[..]], ..., "shape": [..]}` with exactly `keys`.
fn bases_object(ll: &LinearLayout, keys: &[DimName], shape: &[u64]) -> Value {
    let mut m = Map::new();
    for &d in keys {
        m.insert(d.to_string(), Value::from(bases_or_empty(ll, d)));
    }
    m.insert("shape".into(), Value::from(shape.to_vec()));
    Value::Object(m)
}

/// Triton's base-address alignment (bytes) of a shared layout: 16 for
/// swizzled (and padded / partitioned), `128 << (swizzle / 32 …)` for NVMMA
/// (128, 256, 512, 1024 for 0, 32, 64, 128-byte swizzles), the given value
/// for `shared_linear`. Read from the printed attribute.
fn shared_alignment(enc: &Encoding) -> u64 {
    let Ok(a) = Attribute::parse(&enc.to_mlir()) else {
        return 16;
    };
    let int = |k: &str| a.get(k).and_then(|v| v.as_int());
    match a.name.as_str() {
        "shared_linear" => int("alignment").map_or(16, |x| x.max(1) as u64),
        "nvmma_shared" => match int("swizzlingByteWidth").unwrap_or(0) {
            32 => 256,
            64 => 512,
            128 => 1024,
            _ => 128,
        },
        _ => 16,
    }
}

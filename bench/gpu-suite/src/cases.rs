//! The suite's cases as data: `bench/gpu/cases.toml` read into
//! [`Suite`]. A case names its layouts by Triton attribute text (or by a
//! key of the file's `[layouts]` table holding such text); its element
//! type by name (`f8`/`f16`/`bf16`/`f32`, ...). Adding a case is one entry
//! in that file.

use serde::Deserialize;
use std::collections::BTreeMap;

/// Errors reading the case file.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The path given.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not valid TOML of the expected shape.
    #[error("{path}: {source}")]
    Parse {
        /// The path given.
        path: String,
        /// The parser's message.
        source: toml::de::Error,
    },
    /// An element type that is not one of the known names.
    #[error("case '{case}': unknown dtype '{dtype}' (expected one of f8, u8, i8, f16, bf16, u16, f32, u32, i32, f64)")]
    Dtype {
        /// The case.
        case: String,
        /// The name given.
        dtype: String,
    },
    /// Two cases with one name.
    #[error("case name '{0}' appears twice")]
    Duplicate(String),
}

/// Element width in bits of a dtype name.
pub fn dtype_bits(dtype: &str) -> Option<u32> {
    Some(match dtype {
        "f8" | "u8" | "i8" | "e4m3" | "e5m2" => 8,
        "f16" | "bf16" | "u16" | "i16" => 16,
        "f32" | "u32" | "i32" | "tf32" => 32,
        "f64" | "u64" | "i64" => 64,
        _ => return None,
    })
}

/// One conversion `src → dst` of the suite.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Conversion {
    /// Identifier (a C identifier fragment; the program is `<name>.cu`).
    pub name: String,
    /// Tile shape `[M, N]`.
    pub shape: [u64; 2],
    /// Element type name.
    pub dtype: String,
    /// Warps per CTA.
    pub warps: u32,
    /// Source layout: attribute text or a `[layouts]` key.
    pub src: String,
    /// Destination layout: attribute text or a `[layouts]` key.
    pub dst: String,
    /// Through shared memory even where a warp-shuffle plan exists (the
    /// comparison programs of the paper's Figure 5).
    #[serde(default)]
    pub force_shared: bool,
    /// Also emit the stmatrix/ldmatrix variant `<name>_mx`.
    #[serde(default)]
    pub matrix_variant: bool,
    /// Chosen after the suite was tuned and never tuned on: measured to
    /// see how the planner does on pairs it was not shaped by.
    #[serde(default)]
    pub held_out: bool,
}

/// A partial cross-warp conversion with its full twin `<name>_full`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Partial {
    /// Identifier.
    pub name: String,
    /// Tile shape.
    pub shape: [u64; 2],
    /// Element type name.
    pub dtype: String,
    /// Warps per CTA.
    pub warps: u32,
    /// Source layout.
    pub src: String,
    /// Destination layout.
    pub dst: String,
    /// Also emit the form with run-time warp-class branches (`_branch`).
    #[serde(default)]
    pub branch_variant: bool,
}

/// A gather along `axis` with source, index and result all in `layout`
/// (the paper's Figure 6), emitted as `<name>_shfl` and `<name>_smem`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gather {
    /// Identifier.
    pub name: String,
    /// Tile shape.
    pub shape: [u64; 2],
    /// Element type name.
    pub dtype: String,
    /// Warps per CTA.
    pub warps: u32,
    /// The layout of source, index and result.
    pub layout: String,
    /// The gathered axis.
    pub axis: usize,
}

/// The whole case file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Suite {
    /// Named attribute texts the cases refer to.
    #[serde(default)]
    pub layouts: BTreeMap<String, String>,
    /// Conversions, in program order.
    #[serde(default)]
    pub conversion: Vec<Conversion>,
    /// Partial cross-warp conversions.
    #[serde(default)]
    pub partial: Vec<Partial>,
    /// Gathers.
    #[serde(default)]
    pub gather: Vec<Gather>,
}

impl Suite {
    /// Parses the text of a case file (`path` names it in errors) and
    /// checks dtypes and names.
    pub fn parse(text: &str, path: &str) -> Result<Suite, CaseError> {
        let suite: Suite = toml::from_str(text).map_err(|source| CaseError::Parse {
            path: path.into(),
            source,
        })?;
        let mut seen = std::collections::HashSet::new();
        let named = suite
            .conversion
            .iter()
            .map(|c| (&c.name, &c.dtype))
            .chain(suite.partial.iter().map(|c| (&c.name, &c.dtype)))
            .chain(suite.gather.iter().map(|c| (&c.name, &c.dtype)));
        for (name, dtype) in named {
            if dtype_bits(dtype).is_none() {
                return Err(CaseError::Dtype {
                    case: name.clone(),
                    dtype: dtype.clone(),
                });
            }
            if !seen.insert(name.clone()) {
                return Err(CaseError::Duplicate(name.clone()));
            }
        }
        Ok(suite)
    }

    /// Reads and parses a case file.
    pub fn read(path: &str) -> Result<Suite, CaseError> {
        let text = std::fs::read_to_string(path).map_err(|source| CaseError::Read {
            path: path.into(),
            source,
        })?;
        Suite::parse(&text, path)
    }

    /// The attribute text of a layout field: a `[layouts]` key's text, or
    /// the field itself.
    pub fn attr<'a>(&'a self, field: &'a str) -> &'a str {
        self.layouts.get(field).map_or(field, String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_case_file_parses_and_every_layout_builds() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../gpu/cases.toml");
        let suite = Suite::read(path).unwrap();
        assert!(suite.conversion.len() >= 25 + 8);
        assert!(suite.conversion.iter().filter(|c| c.held_out).count() >= 8);
        let build = |attr: &str, shape: [u64; 2]| {
            hw_layouts::Encoding::parse(attr)
                .and_then(|e| e.to_linear_layout(&shape))
                .unwrap_or_else(|e| panic!("{attr}: {e}"))
        };
        for c in &suite.conversion {
            let (s, d) = (
                build(suite.attr(&c.src), c.shape),
                build(suite.attr(&c.dst), c.shape),
            );
            for l in [&s, &d] {
                assert_eq!(
                    l.in_dim_size(linear_layout::DimName::WARP),
                    u64::from(c.warps),
                    "{}",
                    c.name
                );
            }
        }
        for g in &suite.gather {
            build(suite.attr(&g.layout), g.shape);
        }
    }

    #[test]
    fn bad_files_are_errors_naming_the_value() {
        let e = Suite::parse(
            "[[conversion]]\nname = \"x\"\nshape = [64, 64]\ndtype = \"f12\"\nwarps = 4\nsrc = \"a\"\ndst = \"b\"\n",
            "t.toml",
        )
        .unwrap_err();
        assert!(e.to_string().contains("f12"), "{e}");
        let e = Suite::parse("[[conversion]]\nname = \"x\"\n", "t.toml").unwrap_err();
        assert!(e.to_string().contains("t.toml"), "{e}");
        let one = "[[gather]]\nname = \"g\"\nshape = [32, 32]\ndtype = \"u32\"\nwarps = 4\nlayout = \"l\"\naxis = 1\n";
        let e = Suite::parse(&format!("{one}{one}"), "t.toml").unwrap_err();
        assert!(matches!(e, CaseError::Duplicate(ref n) if n == "g"), "{e}");
        assert!(Suite::parse("colour = 3\n", "t.toml").is_err());
    }
}

//! `linlayout show` and `linlayout matrix`.
//!
//! The layout is either a Triton attribute (`#ttg.blocked<{...}>`, parsed
//! by `hw_layouts` and converted for `--shape`) or a JSON object of bases
//! (`{"register": [[0, 1]], "lane": [...], ...}`, optionally with
//! `"out_dims"`, or an oracle record with `"linear"` and `"shape"`), given
//! inline (an argument starting with `{`), with `@file`, or with
//! `--json-layout FILE`.

use crate::error::CliError;
use crate::input::{parse_shape, read_layout_text};
use layout_view::{html, svg, text, LayoutKind};
use linear_layout::LinearLayout;
use serde_json::Value;

/// Where the layout comes from (shared by `show` and `matrix`).
#[derive(clap::Args)]
pub struct LayoutSource {
    /// Tensor shape, e.g. 16x16 (required for attributes; for JSON layouts
    /// it defaults to the record's "shape" or the bases' extent).
    #[arg(long)]
    pub shape: Option<String>,
    /// Read the layout as JSON bases from this file.
    #[arg(long, value_name = "FILE")]
    pub json_layout: Option<String>,
    #[command(flatten)]
    pub hardware: crate::common::HardwareArgs,
    /// The layout attribute text or a JSON object ('{...}'), '-' for stdin,
    /// '@file' for a file.
    pub layout: Option<String>,
}

/// Arguments of `show`.
#[derive(clap::Args)]
pub struct ShowArgs {
    #[command(flatten)]
    pub source: LayoutSource,
    /// Print the hardware view (what each register of each lane holds)
    /// instead of the tensor view; with --svg/--html, draw it.
    #[arg(long)]
    pub hw: bool,
    /// Only rows a..b (half-open) of the tensor view (second-to-last dim).
    #[arg(long, value_name = "a..b")]
    pub rows: Option<String>,
    /// Only columns c..d (half-open) of the tensor view (last dim).
    #[arg(long, value_name = "c..d")]
    pub cols: Option<String>,
    /// Write an SVG picture to this file (distributed: tensor grid coloured
    /// by warp, or the hardware view with --hw; shared: the bank view;
    /// tensor memory: TMEM lanes × columns).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<String>,
    /// Write a standalone HTML page (the picture plus a pointer read-out).
    #[arg(long, value_name = "FILE")]
    pub html: Option<String>,
    /// The element type of the bank view of shared layouts.
    #[command(flatten)]
    pub dtype: crate::common::DtypeArgs,
    /// With a shared layout and --svg/--html: a distributed layout (attribute
    /// or JSON, same --shape) whose first shared-memory access of warp 0 is
    /// drawn on the bank view: touched cells outlined, bank conflicts in red,
    /// the instruction's wavefronts in the legend.
    #[arg(long, value_name = "LAYOUT")]
    pub access: Option<String>,
}

/// Arguments of `matrix`.
#[derive(clap::Args)]
pub struct MatrixArgs {
    #[command(flatten)]
    pub source: LayoutSource,
}

/// Builds the layout and its shape from the command line.
fn load(src: &LayoutSource) -> Result<(LinearLayout, Vec<u64>), CliError> {
    src.hardware.validate()?;
    let shape = src.shape.as_deref().map(parse_shape).transpose()?;
    let (text, from_file) = match (&src.json_layout, &src.layout) {
        (Some(_), Some(_)) => {
            return Err("give either --json-layout FILE or a layout argument, not both".into())
        }
        (Some(path), None) => (
            crate::input::read_file_bounded(path, crate::input::MAX_LAYOUT_BYTES)?,
            true,
        ),
        (None, Some(arg)) => (read_layout_text(arg)?, false),
        (None, None) => {
            return Err(
                "no layout given: pass an attribute, a JSON object or --json-layout FILE".into(),
            )
        }
    };
    let text = text.trim();
    // An attribute's layout may reach past the tensor's shape (tensor-memory
    // scales split over CTAs along a dim of size 1 get out size 2): its own
    // out sizes are the view's shape. JSON and CuTe text must match --shape.
    let from_attribute = !(from_file || text.starts_with('{')) && text.starts_with('#');
    let ll = if from_file || text.starts_with('{') {
        let v: Value =
            serde_json::from_str(text).map_err(|e| format!("invalid JSON layout: {e}"))?;
        let (bases, rec_shape) = match v.get("linear") {
            Some(lin) => (lin.clone(), v.get("shape").cloned()),
            None => (v.clone(), None),
        };
        let rec_shape: Option<Vec<u64>> = match rec_shape {
            Some(Value::Array(a)) => Some(
                a.iter()
                    .map(|x| {
                        x.as_u64()
                            .ok_or_else(|| format!("invalid \"shape\" entry {x}"))
                    })
                    .collect::<Result<_, _>>()?,
            ),
            Some(other) => return Err(format!("invalid \"shape\" {other}: expected a list").into()),
            None => None,
        };
        let sh = shape.clone().or(rec_shape);
        LinearLayout::from_json(&bases, sh.as_deref())
            .map_err(|e| format!("invalid JSON layout: {e}"))?
    } else if !text.starts_with('#') {
        // CuTe text (see cmd_cute::show_layout).
        crate::cmd_cute::show_layout(text, shape.as_deref())?
    } else {
        let shape = shape.clone().ok_or_else(|| {
            "--shape is required for a layout attribute (e.g. --shape 16x16)".to_string()
        })?;
        hw_layouts::Encoding::parse(text).and_then(|enc| enc.to_linear_layout(&shape))?
    };
    src.hardware.check(&ll, "the layout")?;
    let out: Vec<u64> = ll.out_dims().iter().map(|d| d.1).collect();
    if let Some(s) = shape.filter(|_| !from_attribute) {
        if s != out {
            return Err(format!(
                "--shape {} does not match the layout's output sizes {}",
                crate::common::shape_text(&s),
                crate::common::shape_text(&out)
            )
            .into());
        }
    }
    Ok((ll, out))
}

fn write(path: &str, contents: &str) -> Result<(), CliError> {
    std::fs::write(path, contents).map_err(|source| CliError::Write {
        path: path.to_string(),
        source,
    })
}

/// Runs `show`.
pub fn run_show(a: ShowArgs) -> Result<(), CliError> {
    let elem_bits = u64::from(a.dtype.bits()?);
    let (ll, shape) = load(&a.source)?;
    let kind = LayoutKind::of(&ll)?;
    let window = text::Window {
        rows: a
            .rows
            .as_deref()
            .map(text::Window::parse_range)
            .transpose()?,
        cols: a
            .cols
            .as_deref()
            .map(text::Window::parse_range)
            .transpose()?,
    };
    let windowed = window != text::Window::default();
    if windowed {
        crate::common::check_window_size(&shape, &window)?;
    } else {
        crate::common::check_view_size(&ll, &shape)?;
    }
    let picture = a.svg.is_some() || a.html.is_some();
    if windowed && (a.hw || (picture && kind != LayoutKind::Distributed)) {
        return Err(
            "--rows/--cols select part of the tensor view (text, or picture of a distributed layout); not of --hw or of the bank picture"
                .into(),
        );
    }
    if a.access.is_some() && (!picture || kind != LayoutKind::Shared || a.hw) {
        return Err(
            "--access draws an access pattern on the bank picture: it needs a shared layout and --svg or --html"
                .into(),
        );
    }
    if picture {
        let access = match &a.access {
            Some(text) => {
                let src = LayoutSource {
                    shape: Some(
                        shape
                            .iter()
                            .map(|s| s.to_string())
                            .collect::<Vec<_>>()
                            .join("x"),
                    ),
                    json_layout: None,
                    hardware: a.source.hardware.clone(),
                    layout: Some(text.clone()),
                };
                let (reg, _) = load(&src).map_err(|e| format!("--access: {e}"))?;
                Some(
                    layout_view::access::first_access(&reg, &ll, &shape, elem_bits)
                        .map_err(|e| format!("--access: {e}"))?,
                )
            }
            None => None,
        };
        let pic = match (kind, a.hw) {
            (LayoutKind::Distributed, false) => svg::tensor_picture_window(&ll, &shape, &window),
            (LayoutKind::Distributed, true) => svg::hardware_picture(&ll, &shape),
            (LayoutKind::Shared, _) => {
                svg::bank_picture_access(&ll, &shape, elem_bits, access.as_ref())
            }
            (LayoutKind::TensorMemory, _) => svg::tmem_picture(&ll, &shape),
        }?;
        if let Some(p) = &a.svg {
            write(p, &pic.svg)?;
        }
        if let Some(p) = &a.html {
            write(p, &html::page(&pic))?;
        }
        return Ok(());
    }
    let out = if a.hw {
        text::hardware_view(&ll, &shape)
    } else {
        text::tensor_view_window(&ll, &shape, &window)
    }?;
    print!("{out}");
    Ok(())
}

/// Runs `matrix`.
pub fn run_matrix(a: MatrixArgs) -> Result<(), CliError> {
    let (ll, _) = load(&a.source)?;
    print!("{}", layout_view::matrix_text(&ll));
    Ok(())
}

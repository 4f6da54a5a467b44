//! `linlayout engine`: layouts for a whole kernel. Front end only: the
//! work is `layout_engine`'s.
//!
//! - `linlayout engine kernel.ttir --target sm90 --num-warps 4 [--json] [--explain]`:
//!   the program as Triton's TTGIR (a layout on every tensor type, aliases
//!   at the top, a `ttg.convert_layout` per conversion), then the
//!   conversions with class, plan and predicted cost as a comment block;
//!   `--explain` adds every conflict with its candidates and their costs;
//!   `--json` has the same, the TTGIR text under `ttgir`.
//! - `linlayout engine --compare RECORDS.jsonl --json`: one JSON line per
//!   oracle record, ours against Triton's pre-pipeline assignment (the
//!   file plain or gzip-compressed, as the committed corpora are).
//! - `--objective conversions` (either form): the engine ranks its
//!   candidates by the conversions' cost, the other terms breaking ties
//!   (`layout_engine::engine::Objective`); `total` is the default.

use crate::error::CliError;
use crate::input::{read_bounded, ReadError, MAX_KERNEL_BYTES};
use layout_engine::anchors::Target;
use layout_engine::cost::Pricer;
use layout_engine::engine::{Objective, Options};
use layout_engine::report::{compare_record_with, run_engine_with};
use std::io::{BufRead, Write};

/// Arguments of `engine`.
#[derive(clap::Args)]
pub struct Args {
    /// The kernel's TTIR (layout-free), '-' for stdin.
    #[arg(required_unless_present = "compare", conflicts_with = "compare")]
    pub kernel: Option<String>,
    /// Target: sm80, sm90 or gfx942.
    #[arg(long, default_value = "sm90")]
    pub target: String,
    /// Warps per CTA (a power of two up to 64).
    #[arg(long, default_value_t = 4)]
    pub num_warps: u64,
    /// Print JSON (with the TTGIR text under `ttgir`) instead of the TTGIR.
    #[arg(long)]
    pub json: bool,
    /// List every conflict with the candidates considered and their costs.
    #[arg(long)]
    pub explain: bool,
    /// Compare with Triton on oracle records (JSON lines, schema
    /// engine-oracle/1; plain or gzip-compressed).
    #[arg(long, value_name = "RECORDS.jsonl")]
    pub compare: Option<String>,
    /// What the engine minimises: `total` (conversions, reductions,
    /// gathers and compute alike) or `conversions` (the conversions' cost
    /// first, the rest breaking ties).
    #[arg(long, default_value = "total", value_name = "total|conversions")]
    pub objective: String,
}

/// The kernel's text, at most [`MAX_KERNEL_BYTES`].
fn read_input(path: &str) -> Result<String, CliError> {
    let (r, what): (Box<dyn std::io::Read>, String) = if path == "-" {
        (Box::new(std::io::stdin().lock()), "stdin".into())
    } else {
        let f = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
        (Box::new(f), path.to_string())
    };
    read_bounded(r, &what, MAX_KERNEL_BYTES).map_err(|e| match e {
        ReadError::Io(e) => format!("{what}: {e}").into(),
        ReadError::TooLong(m) => CliError::Input(m),
    })
}

/// The lines of a records file: gzip-compressed (recognised by its first
/// two bytes, `1f 8b`, whatever its name) or plain text.
fn record_lines(path: &str) -> Result<Box<dyn BufRead>, CliError> {
    let f = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    let mut f = std::io::BufReader::new(f);
    let gzip = f
        .fill_buf()
        .map_err(|e| format!("{path}: {e}"))?
        .starts_with(&[0x1f, 0x8b]);
    Ok(if gzip {
        Box::new(std::io::BufReader::new(
            flate2::bufread::MultiGzDecoder::new(f),
        ))
    } else {
        Box::new(f)
    })
}

/// The longest record line `--compare` reads: 16 MiB (the oracle's
/// records are at most 1.2 MB; a longer line is an error naming it, so
/// that memory stays bounded whatever the input). A record carries two
/// kernels the engine reads (its TTIR and Triton's TTGIR), so twice
/// [`MAX_KERNEL_BYTES`]: at 64 MiB one record could take about 4 GB.
const MAX_RECORD_LINE: u64 = 16 << 20;

/// `--compare`: one JSON line per record of `path` on `out`; a line that
/// is not JSON gives an error line naming it; an unreadable file, a
/// corrupt gzip stream, a line that is not UTF-8 or longer than
/// [`MAX_RECORD_LINE`] a one-line error.
fn compare(
    path: &str,
    objective: Objective,
    pricer: &mut Pricer,
    out: &mut impl Write,
) -> Result<(), CliError> {
    compare_lines(path, MAX_RECORD_LINE, objective, pricer, out)
}

/// [`compare`] with lines of at most `max_line` bytes.
fn compare_lines(
    path: &str,
    max_line: u64,
    objective: Objective,
    pricer: &mut Pricer,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let mut reader = record_lines(path)?;
    let mut bytes = Vec::new();
    for k in 0.. {
        bytes.clear();
        let n = std::io::Read::take(&mut reader, max_line + 1)
            .read_until(b'\n', &mut bytes)
            .map_err(|e| format!("{path}: {e}"))?;
        if n == 0 {
            break;
        }
        if bytes.len() as u64 > max_line {
            return Err(format!("{path}: line {} is longer than {max_line} bytes", k + 1).into());
        }
        let line =
            std::str::from_utf8(&bytes).map_err(|e| format!("{path}: line {}: {e}", k + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let v = match serde_json::from_str::<serde_json::Value>(line) {
            Ok(r) => compare_record_with(&r, objective, pricer),
            Err(e) => {
                serde_json::json!({"id": format!("line {}", k + 1), "error": format!("not JSON: {e}")})
            }
        };
        let _ = writeln!(out, "{v}");
    }
    Ok(())
}

/// Runs the command.
pub fn run(a: Args) -> Result<(), CliError> {
    let mut pricer = Pricer::new();
    let objective = Objective::parse(&a.objective).ok_or_else(|| {
        format!(
            "--objective must be total or conversions, got '{}'",
            a.objective
        )
    })?;
    if let Some(path) = &a.compare {
        let out = std::io::stdout();
        return compare(path, objective, &mut pricer, &mut out.lock());
    }
    let target = Target::parse(&a.target)
        .ok_or_else(|| format!("--target must be sm80, sm90 or gfx942, got '{}'", a.target))?;
    let text = read_input(a.kernel.as_deref().unwrap_or("-"))?;
    let opts = Options::new(target, a.num_warps).with_objective(objective);
    let rep = run_engine_with(&text, opts, &mut pricer)?;
    if a.json {
        let mut v = serde_json::to_value(&rep).map_err(|e| e.to_string())?;
        if !a.explain {
            if let Some(o) = v.as_object_mut() {
                o.remove("decisions");
            }
        }
        println!("{v}");
    } else {
        print!("{}", rep.text(a.explain));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(kernel: Option<&str>, target: &str, compare: Option<&str>) -> Args {
        Args {
            kernel: kernel.map(str::to_string),
            target: target.into(),
            num_warps: 4,
            json: false,
            explain: false,
            compare: compare.map(str::to_string),
            objective: "total".into(),
        }
    }

    #[test]
    fn bad_input_is_a_one_line_error() {
        let e = run(args(Some("/nonexistent.ttir"), "sm90", None)).unwrap_err();
        assert!(e.to_string().contains("/nonexistent.ttir"), "{e}");
        let e = run(args(Some("-"), "sm70", None)).unwrap_err();
        assert!(e.to_string().contains("sm70"), "{e}");
        let e = run(args(None, "sm90", Some("/nonexistent.jsonl"))).unwrap_err();
        assert!(e.to_string().contains("/nonexistent.jsonl"), "{e}");
        let mut a = args(None, "sm90", Some("/nonexistent.jsonl"));
        a.objective = "cheapest".into();
        let e = run(a).unwrap_err();
        assert!(e.to_string().contains("cheapest"), "{e}");
    }

    /// `--compare` reads a gzip-compressed corpus as its plain text: the
    /// same lines for the first three records of the sample, given plain
    /// and compressed; a corrupt stream is a one-line error naming the
    /// file.
    #[test]
    fn compare_reads_gzip_and_plain_alike() {
        use std::io::Read;
        let sample = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../layout-engine/tests/data/sample.jsonl.gz"
        );
        let mut text = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(sample).unwrap())
            .read_to_string(&mut text)
            .unwrap();
        let head: String = text.lines().take(3).map(|l| format!("{l}\n")).collect();
        let dir = std::env::temp_dir().join(format!("linlayout-compare-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (plain, gz, bad) = (
            dir.join("r.jsonl"),
            dir.join("r.jsonl.gz"),
            dir.join("bad.gz"),
        );
        std::fs::write(&plain, &head).unwrap();
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(head.as_bytes()).unwrap();
        let zipped = enc.finish().unwrap();
        std::fs::write(&gz, &zipped).unwrap();
        std::fs::write(&bad, &zipped[..zipped.len() / 2]).unwrap();
        let out = |p: &std::path::Path| {
            let mut v = Vec::new();
            compare(
                p.to_str().unwrap(),
                Objective::Total,
                &mut Pricer::new(),
                &mut v,
            )
            .map(|_| v)
        };
        let (a, b) = (out(&plain).unwrap(), out(&gz).unwrap());
        assert_eq!(String::from_utf8(a.clone()).unwrap().lines().count(), 3);
        assert_eq!(a, b);
        let e = out(&bad).unwrap_err().to_string();
        assert!(e.contains("bad.gz") && !e.contains('\n'), "{e}");
        // Lines longer than the bound, or not UTF-8: one-line errors naming
        // the line.
        let longest = head.lines().map(str::len).max().unwrap() as u64;
        let limited = |p: &std::path::Path, max: u64| {
            let mut v = Vec::new();
            compare_lines(
                p.to_str().unwrap(),
                max,
                Objective::Total,
                &mut Pricer::new(),
                &mut v,
            )
            .map(|_| v)
        };
        assert_eq!(limited(&gz, longest + 1).unwrap(), b);
        let e = limited(&gz, longest - 1).unwrap_err().to_string();
        assert!(e.contains("longer than") && e.contains("line "), "{e}");
        let latin = dir.join("latin1.jsonl");
        std::fs::write(&latin, b"{\"id\": \"\xe9\"}\n").unwrap();
        let e = out(&latin).unwrap_err().to_string();
        assert!(e.contains("line 1") && !e.contains('\n'), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

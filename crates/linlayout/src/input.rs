//! Reading layouts and shapes from the command line.
#![allow(dead_code)] // used as the commands land

use crate::error::CliError;
use std::io::Read;

/// Parses `128x64` (or `128,64`) into a shape.
pub fn parse_shape(s: &str) -> Result<Vec<u64>, CliError> {
    s.split(['x', 'X', ','])
        .map(|p| {
            p.trim().parse::<u64>().map_err(|_| {
                format!("invalid shape '{s}': '{p}' is not a non-negative integer").into()
            })
        })
        .collect()
}

/// The most bytes a layout read from a file or stdin may have: 4 MiB. The
/// largest layout record of the oracle corpora is 70 KB; parsing costs up
/// to about 70 bytes of memory per byte of text (a JSON object of 2 million
/// bases, 16 MB, took 1.2 GB and 3.3 s), and `@/dev/zero` read until the
/// memory ran out.
pub const MAX_LAYOUT_BYTES: u64 = 4 << 20;

/// The most bytes a kernel (`engine`'s TTIR) may have: 8 MiB, seven times
/// the largest record of the engine corpora (1.2 MB, its TTIR and five
/// TTGIRs). The engine takes about 60 bytes of memory per byte of TTIR
/// (25 MB of elementwise ops took 1.3 GB and 10 s).
pub const MAX_KERNEL_BYTES: u64 = 8 << 20;

/// Reads all of `r` as UTF-8 text, at most `limit` bytes: more is an error
/// naming `what` (a file, or stdin) and the limit; text that is not UTF-8
/// is an [`std::io::ErrorKind::InvalidData`] error, as
/// [`Read::read_to_string`] gives.
pub fn read_bounded(r: impl Read, what: &str, limit: u64) -> Result<String, ReadError> {
    let mut bytes = Vec::new();
    r.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLong(format!(
            "{what} is longer than {limit} bytes ({} MiB), the most this command reads",
            limit >> 20
        )));
    }
    String::from_utf8(bytes).map_err(|_| {
        ReadError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        ))
    })
}

/// Why [`read_bounded`] failed.
#[derive(Debug)]
pub enum ReadError {
    /// The reader failed, or the text is not UTF-8.
    Io(std::io::Error),
    /// More than the limit: the message names the input and the limit.
    TooLong(String),
}

/// `path`'s text, at most `limit` bytes; a failure names the file.
pub fn read_file_bounded(path: &str, limit: u64) -> Result<String, CliError> {
    let f = std::fs::File::open(path).map_err(|source| CliError::Read {
        path: path.to_string(),
        source,
    })?;
    read_bounded(f, &format!("'{path}'"), limit).map_err(|e| match e {
        ReadError::Io(source) => CliError::Read {
            path: path.to_string(),
            source,
        },
        ReadError::TooLong(m) => CliError::Input(m),
    })
}

/// Stdin's text, at most `limit` bytes.
pub fn read_stdin_bounded(limit: u64) -> Result<String, CliError> {
    read_bounded(std::io::stdin().lock(), "stdin", limit).map_err(|e| match e {
        ReadError::Io(e) => format!("cannot read stdin: {e}").into(),
        ReadError::TooLong(m) => CliError::Input(m),
    })
}

/// The attribute text: the argument itself, or stdin when it is `-`, or the
/// contents of a file when it starts with `@` (from either, at most
/// [`MAX_LAYOUT_BYTES`]).
pub fn read_layout_text(arg: &str) -> Result<String, CliError> {
    if arg == "-" {
        Ok(read_stdin_bounded(MAX_LAYOUT_BYTES)?.trim().to_string())
    } else if let Some(path) = arg.strip_prefix('@') {
        Ok(read_file_bounded(path, MAX_LAYOUT_BYTES)?
            .trim()
            .to_string())
    } else {
        Ok(arg.to_string())
    }
}

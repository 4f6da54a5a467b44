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

/// The attribute text: the argument itself, or stdin when it is `-`, or the
/// contents of a file when it starts with `@`.
pub fn read_layout_text(arg: &str) -> Result<String, CliError> {
    if arg == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| format!("cannot read stdin: {e}"))?;
        Ok(s.trim().to_string())
    } else if let Some(path) = arg.strip_prefix('@') {
        std::fs::read_to_string(path)
            .map(|s| s.trim().to_string())
            .map_err(|source| CliError::Read {
                path: path.to_string(),
                source,
            })
    } else {
        Ok(arg.to_string())
    }
}

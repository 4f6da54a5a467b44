//! The CLI's own failures in one line each: clap's usage errors (clap
//! prints them over several lines) and failed writes to stdout (`print!`
//! panics on them, e.g. `linlayout ... > /dev/full`).

use crate::error::CliError;
use std::io::Write;

/// The failed write a `print!` panic message describes ("failed printing to
/// stdout: No space left on device (os error 28)"), as one line for the
/// user; `None` for any other panic.
pub fn write_failure(panic_message: &str) -> Option<String> {
    panic_message
        .strip_prefix("failed printing to stdout: ")
        .map(|why| format!("cannot write the output: {why}"))
}

/// Flushes stdout at the end of a command (a buffered tail that cannot be
/// written, e.g. to a full disk, is an error, not silently lost).
pub fn flush_stdout() -> Result<(), CliError> {
    std::io::stdout().flush().map_err(CliError::Output)
}

/// Clap's usage error as one line: its message with the listed items
/// joined, then the usage, e.g. "the following required arguments were not
/// provided: <SRC> <DST> (usage: linlayout convert --shape <SHAPE> <SRC>
/// <DST>)".
pub fn usage_error_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut message = Vec::new();
    let mut usage = None;
    for line in text.lines().map(str::trim) {
        if let Some(u) = line.strip_prefix("Usage: ") {
            usage = Some(u.to_string());
        } else if !line.is_empty() && !line.starts_with("For more information") {
            message.push(line.strip_prefix("error: ").unwrap_or(line));
        }
    }
    let mut one = message.join(" ");
    if let Some(u) = usage {
        one.push_str(&format!(" (usage: {u})"));
    }
    one
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn print_panics_become_write_errors_and_others_do_not() {
        assert_eq!(
            write_failure("failed printing to stdout: No space left on device (os error 28)")
                .as_deref(),
            Some("cannot write the output: No space left on device (os error 28)")
        );
        assert_eq!(write_failure("index out of bounds"), None);
    }
}

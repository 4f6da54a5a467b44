//! The CLI's own failures in one line each: clap's usage errors (clap
//! prints them over several lines) and failed writes to stdout (`print!`
//! panics on them, e.g. `linlayout ... > /dev/full`), and the one rule for
//! exit statuses:
//!
//! | status | when |
//! |---|---|
//! | 0 | done; also when the reader of stdout closes it early (`\| head`): the rest is dropped quietly, as `cat` does |
//! | 1 | the output cannot be written: stdout (a full disk) or a file the command was told to write (`--svg`, `--html`, `-o`) |
//! | 2 | bad input: usage, a value, an input file that cannot be read, a layout the library refuses |
//! | 101 | an internal error (a bug) |
//!
//! Every failure but a closed pipe prints one line, `linlayout: ...`, on
//! stderr.

use crate::error::CliError;
use std::io::{ErrorKind, Write};

/// Exit status: the output cannot be written.
pub const EXIT_OUTPUT: u8 = 1;
/// Exit status: bad input (also clap's usage errors).
pub const EXIT_INPUT: u8 = 2;
/// Exit status: an internal error (a panic that is not a failed write).
pub const EXIT_INTERNAL: u8 = 101;

/// The rule above, as `linlayout --help` ends with it.
pub const EXIT_STATUS_HELP: &str = "Exit status: 0 done (also when the reader closes the pipe \
early, as `| head` does); 1 the output cannot be written (stdout, or a file named by --svg, \
--html or -o); 2 bad input (usage, a value, an input file, a layout the library refuses); 101 \
internal error. Failures print one line on stderr.";

/// What `main` does with a failed command: the exit status and the line
/// for stderr, or `None` for a reader that closed stdout early (exit 0,
/// nothing printed: the output is simply no longer wanted).
pub fn failure(e: &CliError) -> Option<(u8, String)> {
    let line = |e: &CliError| {
        let msg = e.to_string();
        msg.lines().next().unwrap_or("error").to_string()
    };
    match e {
        CliError::Output(io) if io.kind() == ErrorKind::BrokenPipe => None,
        CliError::Output(_) | CliError::Write { .. } => Some((EXIT_OUTPUT, line(e))),
        _ => Some((EXIT_INPUT, line(e))),
    }
}

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
/// joined, then the usage, e.g. `the following required arguments were not
/// provided: <SRC> <DST> (usage: linlayout convert --shape <SHAPE> <SRC>
/// <DST>)`.
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

    #[test]
    fn output_failures_exit_1_a_closed_pipe_0_and_bad_input_2() {
        let io = |k| std::io::Error::from(k);
        // The final flush: a full disk is an output failure, a closed pipe
        // is not a failure at all.
        let (code, line) = failure(&CliError::Output(io(ErrorKind::StorageFull))).unwrap();
        assert_eq!(code, EXIT_OUTPUT);
        assert!(line.starts_with("cannot write the output: "), "{line}");
        assert_eq!(failure(&CliError::Output(io(ErrorKind::BrokenPipe))), None);
        let write = CliError::Write {
            path: "a.svg".into(),
            source: io(ErrorKind::PermissionDenied),
        };
        assert_eq!(failure(&write).map(|f| f.0), Some(EXIT_OUTPUT));
        let read = CliError::Read {
            path: "a.txt".into(),
            source: io(ErrorKind::NotFound),
        };
        assert_eq!(failure(&read).map(|f| f.0), Some(EXIT_INPUT));
        // Only the first line of a message is printed.
        assert_eq!(
            failure(&CliError::Input("bad shape\nmore".into())),
            Some((EXIT_INPUT, "bad shape".into()))
        );
    }
}

//! The exact line a failing command prints on stderr (`linlayout: ` and the
//! first line of the error's Display) and its exit status 2, for each kind
//! of the CLI's own errors. The other CLI tests check that a message names
//! the offending value (a substring); these pin the whole line, so that a
//! change to the error type cannot reword what the user reads. Expected
//! lines are written out from the messages' wording, not read from the tool.

use std::process::Command;

const BLOCKED: &str = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>";

fn stderr_line(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_linlayout"))
        .args(args)
        .output()
        .expect("run linlayout");
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(out.stdout.is_empty(), "{args:?}");
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn a_shape_that_is_not_a_number_is_named_whole() {
    assert_eq!(
        stderr_line(&["to-linear", "--shape", "4xq", BLOCKED]),
        "linlayout: invalid shape '4xq': 'q' is not a non-negative integer\n"
    );
}

#[test]
fn a_shape_that_is_not_a_power_of_two_is_named_whole() {
    assert_eq!(
        stderr_line(&["convert", "--shape", "4x6", BLOCKED, BLOCKED]),
        "linlayout: invalid shape '4x6': every dim must be a power of two, got 6\n"
    );
}

#[test]
fn an_unreadable_file_names_the_path_and_the_os_error() {
    assert_eq!(
        stderr_line(&["show", "--json-layout", "/nonexistent/x.json"]),
        "linlayout: cannot read '/nonexistent/x.json': No such file or directory (os error 2)\n"
    );
}

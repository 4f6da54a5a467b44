//! The exit-status rule of `linlayout` (`crate::output`, `linlayout
//! --help`): 0 done, also when the reader closes stdout early; 1 the output
//! cannot be written (stdout or a named output file); 2 bad input. Each
//! case runs the binary with the failure set up for real: a pipe whose
//! reader is gone, `/dev/full`, a missing input file.

use std::process::{Command, Output, Stdio};

const BLOCKED: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>";
const BLOCKED_T: &str = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>";

fn linlayout() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_linlayout"));
    c.stdin(Stdio::null());
    c
}

/// Runs `args` with stdout a pipe whose read end is already closed.
fn into_closed_pipe(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    linlayout()
        .args(args)
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("run linlayout")
}

/// Runs `args` with stdout `/dev/full` (every write: no space left).
fn into_full_disk(args: &[&str]) -> Option<Output> {
    let full = std::fs::File::create("/dev/full").ok()?;
    Some(linlayout().args(args).stdout(full).output().expect("run"))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const COMMANDS: [&[&str]; 4] = [
    &["to-linear", "--shape", "16x16", BLOCKED],
    &["show", "--shape", "16x16", BLOCKED],
    &["matrix", "--shape", "16x16", BLOCKED],
    &["convert", "--shape", "16x16", BLOCKED, BLOCKED_T],
];

#[test]
fn a_closed_pipe_ends_quietly_with_0() {
    for args in COMMANDS {
        let o = into_closed_pipe(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o), "", "{args:?}");
    }
}

#[test]
fn output_that_cannot_be_written_exits_1_with_one_line() {
    for args in COMMANDS {
        let Some(o) = into_full_disk(args) else {
            return; // no /dev/full on this system
        };
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("linlayout: cannot write the output: "),
            "{err}"
        );
    }
    let dir = std::env::temp_dir().join(format!("linlayout-exit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A directory cannot be written as a file.
    let target = dir.to_str().unwrap();
    let o = linlayout()
        .args(["show", "--shape", "16x16", "--svg", target, BLOCKED])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.starts_with(&format!("linlayout: cannot write '{target}'")),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_input_exits_2_with_one_line() {
    for args in [
        &["to-linear", "--shape", "16x16", "@/nonexistent/layout.txt"][..],
        &["to-linear", "--shape", "16x3", BLOCKED],
        &["to-linear", "--shape", "16x16", "#ttg.blocked<{"],
        &["to-linear", "--no-such-flag"],
    ] {
        let o = linlayout().args(args).output().unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("linlayout: "), "{err}");
    }
}

#[test]
fn help_states_the_rule() {
    let o = linlayout().arg("--help").output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout).replace('\n', " ");
    for needle in [
        "Exit status: 0 done",
        "1 the output cannot be written",
        "2 bad input",
    ] {
        assert!(out.contains(needle), "{needle:?} not in --help: {out}");
    }
}

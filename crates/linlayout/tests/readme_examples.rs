//! The README's CLI examples against the binary's real output: every
//! `$ linlayout ...` line of a ```` ```console ```` block whose arguments
//! are complete (no `'...'` or `'<...>'` placeholders) is run, must exit 0,
//! and must print the lines shown under it (a line `...` stands for any
//! number of lines).

use std::path::PathBuf;
use std::process::Command;

/// One example: the arguments after `linlayout` and the shown output.
struct Example {
    line: usize,
    args: Vec<String>,
    expected: Vec<String>,
}

/// Splits a shell line on spaces, honouring single quotes (the README uses
/// no other quoting); `None` for an unterminated quote.
fn split_words(s: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quoted = false;
    for c in s.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                in_word = true;
            }
            ' ' if !quoted => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            _ => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if quoted {
        return None;
    }
    if in_word {
        words.push(cur);
    }
    Some(words)
}

/// The command part of a `$ ` line: up to a `#` comment outside quotes
/// that follows whitespace.
fn strip_comment(s: &str) -> &str {
    let mut quoted = false;
    let mut prev = ' ';
    for (i, c) in s.char_indices() {
        if c == '\'' {
            quoted = !quoted;
        } else if c == '#' && !quoted && prev == ' ' {
            return s[..i].trim_end();
        }
        prev = c;
    }
    s.trim_end()
}

fn examples(readme: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut in_console = false;
    let mut current: Option<Example> = None;
    for (n, line) in readme.lines().enumerate() {
        if line.starts_with("```") {
            if let Some(e) = current.take() {
                out.push(e);
            }
            in_console = !in_console && line.trim() == "```console";
            continue;
        }
        if !in_console {
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ ") {
            if let Some(e) = current.take() {
                out.push(e);
            }
            let Some(words) = split_words(strip_comment(cmd)) else {
                panic!("README line {}: unbalanced quote", n + 1);
            };
            current = Some(Example {
                line: n + 1,
                args: words,
                expected: Vec::new(),
            });
        } else if let Some(e) = current.as_mut() {
            e.expected.push(line.to_string());
        }
    }
    out
}

/// Whether an argument is a placeholder for something the reader fills in.
fn placeholder(arg: &str) -> bool {
    arg == "..." || arg.contains("{...") || (arg.starts_with('<') && arg.ends_with('>'))
}

/// `actual` matches `expected`, where an expected `...` line matches any
/// run of lines (including none).
fn matches(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((e, rest)) if e.trim() == "..." => {
            (0..=actual.len()).any(|k| matches(rest, &actual[k..]))
        }
        Some((e, rest)) => actual
            .split_first()
            .is_some_and(|(a, tail)| a == e && matches(rest, tail)),
    }
}

#[test]
fn readme_cli_examples_print_what_the_readme_shows() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    let readme = std::fs::read_to_string(&path).expect("README.md");
    let all = examples(&readme);
    let mut checked = 0;
    let mut with_output = 0;
    for e in &all {
        assert_eq!(
            e.args.first().map(String::as_str),
            Some("linlayout"),
            "README line {}",
            e.line
        );
        if e.args.iter().any(|a| placeholder(a)) {
            continue;
        }
        let dir = std::env::temp_dir().join(format!("linlayout-readme-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_linlayout"))
            .args(&e.args[1..])
            .current_dir(&dir)
            .output()
            .expect("run linlayout");
        std::fs::remove_dir_all(&dir).ok();
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "README line {}: exit {:?}: {}",
            e.line,
            o.status.code(),
            String::from_utf8_lossy(&o.stderr)
        );
        if !e.expected.is_empty() {
            let actual: Vec<&str> = stdout.lines().collect();
            assert!(
                matches(&e.expected, &actual),
                "README line {}: the README shows\n{}\nbut the binary prints\n{}",
                e.line,
                e.expected.join("\n"),
                stdout
            );
            with_output += 1;
        }
        checked += 1;
    }
    // The README's examples that must stay runnable (a guard against the
    // parser above silently skipping everything).
    assert!(
        checked >= 6 && with_output >= 5,
        "{checked} run, {with_output} with output"
    );
}

#[test]
fn the_matcher_can_fail() {
    let exp = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(matches(&exp(&["a", "...", "d"]), &["a", "b", "c", "d"]));
    assert!(!matches(&exp(&["a", "...", "d"]), &["a", "b", "c"]));
    assert!(!matches(&exp(&["a", "b"]), &["a", "b", "c"]));
    assert_eq!(
        split_words("x 'a b' c").unwrap(),
        vec!["x".to_string(), "a b".into(), "c".into()]
    );
    assert_eq!(strip_comment("a '#b' # c"), "a '#b'");
}

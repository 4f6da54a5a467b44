//! Bracket-aware text helpers for MLIR's printed form: top-level splits
//! and searches that skip `<...>`, `(...)`, `[...]`, `{...}` and string
//! literals, and treat `->` as an arrow rather than a closing `>`.

use crate::error::{EngineError, Result};

/// Deepest bracket nesting accepted in one line (Triton prints at most a
/// few levels; a slice of a slice of ... of a layout adds two per level).
pub const MAX_BRACKET_DEPTH: usize = 128;

/// Byte offsets `i` in `s` at bracket depth 0 (outside string literals),
/// with the depth check.
fn top_level_positions(s: &str, line: usize) -> Result<Vec<bool>> {
    let mut top = vec![false; s.len()];
    scan_top_level(s, line, |r, t| top[r].fill(t))?;
    Ok(top)
}

/// Bytes that open or close a bracket or a string literal: the only ones
/// where the depth changes (`->`'s `>` is checked where it is met).
const STRUCTURAL: [bool; 256] = {
    let mut t = [false; 256];
    let mut k = 0;
    let bytes = b"\"<([{>)]}";
    while k < bytes.len() {
        t[bytes[k] as usize] = true;
        k += 1;
    }
    t
};

/// Calls `f(range, at_top)` for consecutive byte ranges of `s` covering
/// it, each of one top-levelness (inside string literals, after the
/// opening quote, `at_top` is false), and checks the depth; the one
/// scanner behind [`top_level_positions`] and [`find_top`]. Runs of bytes
/// that change no depth are skipped by a table lookup each.
fn scan_top_level(
    s: &str,
    line: usize,
    mut f: impl FnMut(std::ops::Range<usize>, bool),
) -> Result<()> {
    let b = s.as_bytes();
    let mut depth: usize = 0;
    let mut i = 0;
    while i < b.len() {
        let start = i;
        while i < b.len() && !STRUCTURAL[b[i] as usize] {
            i += 1;
        }
        if i > start {
            f(start..i, depth == 0);
        }
        let Some(&c) = b.get(i) else { break };
        match c {
            b'"' => {
                f(i..i + 1, depth == 0);
                // The literal, escapes included, up to its closing quote.
                let start = i + 1;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                let end = (i + 1).min(b.len());
                if end > start {
                    f(start..end, false);
                }
            }
            b'<' | b'(' | b'[' | b'{' => {
                f(i..i + 1, depth == 0);
                depth += 1;
                if depth > MAX_BRACKET_DEPTH {
                    return Err(EngineError::TooDeep {
                        line,
                        max: MAX_BRACKET_DEPTH,
                    });
                }
            }
            b'>' if i > 0 && b[i - 1] == b'-' => f(i..i + 1, depth == 0),
            _ => {
                depth = depth.saturating_sub(1);
                f(i..i + 1, depth == 0);
            }
        }
        i += 1;
    }
    Ok(())
}

/// Splits `s` at top-level occurrences of `sep`, trimming each piece;
/// an empty input gives no pieces.
pub fn split_top(s: &str, sep: char, line: usize) -> Result<Vec<&str>> {
    let top = top_level_positions(s, line)?;
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if c == sep && top[i] {
            out.push(s[start..i].trim());
            start = i + c.len_utf8();
        }
    }
    let last = s[start..].trim();
    if !last.is_empty() || !out.is_empty() {
        out.push(last);
    }
    Ok(out)
}

/// The first top-level occurrence of `pat` in `s` (byte offset).
pub fn find_top(s: &str, pat: &str, line: usize) -> Result<Option<usize>> {
    // `str::match_indices` order (left to right, non-overlapping), the
    // first match at top level; the whole line is scanned for the depth
    // check.
    let mut matches = s.match_indices(pat).map(|(i, _)| i).peekable();
    let mut found = None;
    scan_top_level(s, line, |r, top| {
        while let Some(&i) = matches.peek() {
            if i >= r.end {
                break;
            }
            matches.next();
            if top && found.is_none() && i >= r.start {
                found = Some(i);
            }
        }
    })?;
    Ok(found)
}

/// The last top-level occurrence of `pat` in `s` (byte offset).
pub fn rfind_top(s: &str, pat: &str, line: usize) -> Result<Option<usize>> {
    let top = top_level_positions(s, line)?;
    Ok(s.rmatch_indices(pat).map(|(i, _)| i).find(|&i| top[i]))
}

/// The name Triton gives the next alias of family `base` among `aliases`
/// (`(name, definition)` pairs): `#base`, then `#base1`, `#base2`, ….
pub fn next_alias(aliases: &[(String, String)], base: &str) -> String {
    let k = aliases
        .iter()
        .filter(|(n, _)| n.trim_start_matches('#').trim_end_matches(char::is_numeric) == base)
        .count();
    if k == 0 {
        format!("#{base}")
    } else {
        format!("#{base}{k}")
    }
}

/// Every SSA reference `%name` / `%name#k` in `s`, in order.
pub fn value_refs(s: &str) -> Vec<&str> {
    value_ref_spans(s)
        .into_iter()
        .map(|(a, b)| &s[a..b])
        .collect()
}

/// The byte spans `(start, end)` of [`value_refs`], in order.
pub fn value_ref_spans(s: &str) -> Vec<(usize, usize)> {
    ValueRefSpans {
        b: s.as_bytes(),
        i: 0,
    }
    .collect()
}

/// [`value_ref_spans`] without collecting them.
pub fn value_ref_span_iter(s: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    ValueRefSpans {
        b: s.as_bytes(),
        i: 0,
    }
}

/// The scanner behind [`value_ref_spans`].
struct ValueRefSpans<'a> {
    b: &'a [u8],
    i: usize,
}

impl Iterator for ValueRefSpans<'_> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        let b = self.b;
        let mut i = self.i;
        while i < b.len() {
            if b[i] == b'%' {
                let start = i;
                i += 1;
                // MLIR suffix ids: letters, digits and `$ . _ -` (`%c-8_i32`).
                while i < b.len()
                    && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'$' | b'.' | b'-'))
                {
                    i += 1;
                }
                if i < b.len() && b[i] == b'#' {
                    let h = i;
                    i += 1;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                    if i == h + 1 {
                        i = h;
                    }
                }
                if i > start + 1 {
                    self.i = i;
                    return Some((start, i));
                }
            } else {
                i += 1;
            }
        }
        self.i = i;
        None
    }
}

/// The integer after `key = ` in `s` (`axis = 1 : i32` gives 1).
pub fn int_attr(s: &str, key: &str) -> Option<i64> {
    let pat = format!("{key} = ");
    let i = s.find(&pat)? + pat.len();
    let digits: String = s[i..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse().ok()
}

/// The list after `key = array<i32: ` in `s` (`order = array<i32: 1, 0>`).
pub fn array_attr(s: &str, key: &str) -> Option<Vec<i64>> {
    let pat = format!("{key} = array<i32: ");
    let i = s.find(&pat)? + pat.len();
    let end = s[i..].find('>')? + i;
    s[i..end]
        .split(',')
        .map(|x| x.trim().parse().ok())
        .collect()
}

/// `s` without its source locations: every `loc(...)` group that starts a
/// token (after whitespace, `(` or the line's start), with the whitespace
/// before it, skipping string literals (`loc("x_ptr"(#loc))`,
/// `loc(#loc12)`, `loc("f.py":3:7)`). MLIR prints them after an op, a
/// function argument or a block argument when the module is dumped with
/// debug info (Triton's `compiled.asm["ttir"]` has them); they carry no
/// semantics for the engine. Unbalanced groups are kept as written.
///
/// ```
/// use layout_engine::text::strip_locations;
/// assert_eq!(
///     strip_locations(r#"%a = tt.load %p : tensor<4x!tt.ptr<f16>> loc(#loc29)"#),
///     "%a = tt.load %p : tensor<4x!tt.ptr<f16>>"
/// );
/// assert_eq!(
///     strip_locations(r#"tt.func @k(%x: !tt.ptr<f16> loc("x"(#loc)), %n: i32 loc("n"(#loc))) {"#),
///     "tt.func @k(%x: !tt.ptr<f16>, %n: i32) {"
/// );
/// ```
pub fn strip_locations(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains("loc(") {
        return std::borrow::Cow::Borrowed(s);
    }
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    let mut in_str = false;
    while i < b.len() {
        let c = b[i];
        if in_str {
            if c == b'\\' && i + 1 < b.len() {
                out.push_str(&s[i..i + 2]);
                i += 2;
                continue;
            }
            in_str = c != b'"';
        } else if c == b'"' {
            in_str = true;
        } else if s[i..].starts_with("loc(") && (i == 0 || matches!(b[i - 1], b' ' | b'\t' | b'('))
        {
            if let Some(end) = group_end(b, i + 3) {
                let trimmed = out.trim_end_matches([' ', '\t']).len();
                out.truncate(trimmed);
                i = end + 1;
                continue;
            }
        }
        // `i` is on a char boundary: every byte the loop steps over one at
        // a time is ASCII or the first byte of a char it copies whole.
        let ch = s[i..].chars().next().unwrap_or(' ');
        out.push(ch);
        i += ch.len_utf8();
    }
    std::borrow::Cow::Owned(out)
}

/// The index of the `)` closing the `(` at `open`, skipping string literals.
fn group_end(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_str = false;
    let mut i = open;
    while i < b.len() {
        let c = b[i];
        if in_str {
            if c == b'\\' {
                i += 2;
                continue;
            }
            in_str = c != b'"';
        } else {
            match c {
                b'"' => in_str = true,
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_top_skips_brackets_and_arrows() {
        let s = "tensor<4x!tt.ptr<f16>, #a>, i32 -> f32, x";
        assert_eq!(
            split_top(s, ',', 1).unwrap(),
            vec!["tensor<4x!tt.ptr<f16>, #a>", "i32 -> f32", "x"]
        );
        assert_eq!(find_top("a -> (b, c)", "->", 1).unwrap(), Some(2));
    }

    /// The scanner's definition, byte by byte: depth 0 outside string
    /// literals (an opening quote and brackets at their outer depth, `->`
    /// an arrow, a closing bracket at the depth after it).
    fn reference_top(s: &str) -> Option<Vec<bool>> {
        let b = s.as_bytes();
        let mut top = vec![false; b.len()];
        let (mut depth, mut in_str, mut i) = (0usize, false, 0);
        while i < b.len() {
            let c = b[i];
            if in_str {
                if c == b'\\' {
                    i += 2;
                    continue;
                }
                in_str = c != b'"';
                i += 1;
                continue;
            }
            match c {
                b'"' => {
                    top[i] = depth == 0;
                    in_str = true;
                }
                b'<' | b'(' | b'[' | b'{' => {
                    top[i] = depth == 0;
                    depth += 1;
                    if depth > MAX_BRACKET_DEPTH {
                        return None;
                    }
                }
                b'>' if i > 0 && b[i - 1] == b'-' => top[i] = depth == 0,
                b'>' | b')' | b']' | b'}' => {
                    depth = depth.saturating_sub(1);
                    top[i] = depth == 0;
                }
                _ => top[i] = depth == 0,
            }
            i += 1;
        }
        Some(top)
    }

    proptest::proptest! {
        /// The run-skipping scanner gives the definition's top-level table
        /// (and its depth error) on text of brackets, quotes, escapes and
        /// arrows, nested past the limit at times.
        #[test]
        fn top_level_positions_are_the_definition(
            tokens in proptest::collection::vec(
                proptest::sample::select(vec![
                    "a", " ", "<", ">", "->", "\"", "\\", "(", ")", "{", "}", "[", "]", "-", "<<<<",
                ]),
                0..64,
            ),
            deep in proptest::bool::weighted(0.1),
        ) {
            let mut s = tokens.concat();
            if deep {
                s = "(".repeat(MAX_BRACKET_DEPTH) + &s;
            }
            proptest::prop_assert_eq!(top_level_positions(&s, 1).ok(), reference_top(&s));
        }
    }

    proptest::proptest! {
        /// The streaming `find_top` answers as the table of top-level
        /// positions and `str::match_indices` do (first non-overlapping
        /// match at depth 0), on text of brackets, quotes, escapes, arrows
        /// and repeats of the pattern.
        #[test]
        fn find_top_is_the_first_top_level_match(
            tokens in proptest::collection::vec(
                proptest::sample::select(vec![
                    "to", " ", "<", ">", "->", "\"", "\\", "(", ")", "{", "]", "-", " to to",
                ]),
                0..16,
            ),
            pat in proptest::sample::select(vec!["->", " to ", "to to", ">", "-"]),
        ) {
            let s = tokens.concat();
            let reference = top_level_positions(&s, 1)
                .map(|top| s.match_indices(pat).map(|(i, _)| i).find(|&i| top[i]));
            let got = find_top(&s, pat, 1);
            proptest::prop_assert_eq!(format!("{reference:?}"), format!("{got:?}"));
        }
    }

    #[test]
    fn value_refs_reads_result_indices() {
        assert_eq!(
            value_refs("%43#1, %arg5 [%c0_i32] %x# %c-8_i32"),
            vec!["%43#1", "%arg5", "%c0_i32", "%x", "%c-8_i32"]
        );
    }

    #[test]
    fn deep_brackets_are_an_error() {
        let s = "<".repeat(MAX_BRACKET_DEPTH + 1);
        assert!(matches!(
            split_top(&s, ',', 7),
            Err(EngineError::TooDeep { line: 7, .. })
        ));
    }
}

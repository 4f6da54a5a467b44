//! Triton's MLIR attribute syntax as a generic tree.
//!
//! Grammar (what Triton's printer emits, plus the legacy `#triton_gpu.`
//! prefix):
//!
//! ```text
//! attribute := '#' dialect '.' name '<' items? '>'
//! items     := item ((',' | whitespace) item)*
//! item      := dict | key '=' value | padding
//! padding   := '[' int ':' '+' int (',' int ':' '+' int)* ']'
//! dict      := '{' (key '=' value (',' key '=' value)*)? '}'
//! value     := int | 'true' | 'false' | ident | string | list | dict | attribute
//! list      := '[' (value (',' value)*)? ']'
//! ```
//!
//! Three rules follow Triton's (MLIR's) parser rather than being lenient:
//! integers are unsigned (`-0` is refused, as MLIR refuses a negative
//! literal for an unsigned parameter: "integer constant out of range"); a
//! key may appear once per attribute or dict (MLIR: "duplicate key 'order'
//! in dictionary attribute"); and nesting of attributes, lists and dicts is
//! at most [`MAX_DEPTH`] levels, so that no input, however deep, can
//! exhaust the stack of the recursive-descent parser.
//!
//! ```
//! use hw_layouts::syntax::{Attribute, Value};
//! let a = Attribute::parse("#ttg.slice<{dim = 1, parent = #ttg.blocked<{order = [1, 0]}>}>").unwrap();
//! assert_eq!(a.name, "slice");
//! assert_eq!(a.get("dim"), Some(&Value::Int(1)));
//! let p = a.get("parent").unwrap().as_attr().unwrap();
//! assert_eq!(p.get("order").unwrap().as_int_list().unwrap(), vec![1, 0]);
//! ```

use crate::error::{HwError, Result};
use std::fmt;

/// The deepest nesting of attributes, lists and dicts the parser accepts.
///
/// Triton prints at most about 6 levels (a `dot_op` of a `slice` of an
/// `nvidia_mma` with a list of `CGALayout` bases); 64 leaves room for any
/// hand-written layout while bounding the parser's recursion. Each level
/// costs at least 1.6 KB of stack (5 000 levels, about 160 KB of text,
/// overflowed the CLI's 8 MB main-thread stack; 2 000 did not), so 64
/// levels (about 100 KB at that rate, 170 KB if a level cost 1 KB more) stay
/// far below even a 2 MB spawned-thread stack.
pub const MAX_DEPTH: usize = 64;

/// The most keys of one attribute or dict the parser accepts.
///
/// Triton's attributes have at most about a dozen (`amd_mfma`); each new
/// key is compared with the ones before it (duplicates are refused), so
/// the bound keeps that linear in the text: 500 000 keys (5.5 MB) took
/// more than 10 s.
pub const MAX_KEYS: usize = 64;

/// A parsed attribute `#dialect.name<...>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attribute {
    /// `ttg`, `ttng` (legacy `triton_gpu` is normalised to `ttg`).
    pub dialect: String,
    /// The mnemonic: `blocked`, `slice`, `nvidia_mma`, ...
    pub name: String,
    /// `[interval:+pad, ...]` of `padded_shared`, if present.
    pub padding: Option<Vec<(i64, i64)>>,
    /// All `key = value` entries, from the `{...}` dict and bare pairs, in
    /// text order.
    pub fields: Vec<(String, Value)>,
    /// Byte offset of the attribute in the parsed text (for errors).
    pub pos: usize,
}

/// A value in an attribute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A non-negative integer (the parser refuses a leading `-`).
    Int(i64),
    /// `true` / `false`.
    Bool(bool),
    /// A bare identifier such as `kThenMn`.
    Ident(String),
    /// A quoted string.
    Str(String),
    /// `[a, b, ...]`.
    List(Vec<Value>),
    /// `{k = v, ...}`.
    Dict(Vec<(String, Value)>),
    /// A nested attribute.
    Attr(Box<Attribute>),
}

impl Value {
    /// The integer, if this is one.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }
    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }
    /// The nested attribute, if this is one.
    pub fn as_attr(&self) -> Option<&Attribute> {
        match self {
            Value::Attr(a) => Some(a),
            _ => None,
        }
    }
    /// A list of integers.
    pub fn as_int_list(&self) -> Option<Vec<i64>> {
        match self {
            Value::List(v) => v.iter().map(Value::as_int).collect(),
            _ => None,
        }
    }
    /// A list of lists of integers (bases).
    pub fn as_int_matrix(&self) -> Option<Vec<Vec<i64>>> {
        match self {
            Value::List(v) => v.iter().map(Value::as_int_list).collect(),
            _ => None,
        }
    }
    /// The entries of a dict.
    pub fn as_dict(&self) -> Option<&[(String, Value)]> {
        match self {
            Value::Dict(d) => Some(d),
            _ => None,
        }
    }
}

impl Attribute {
    /// Parses one attribute; the whole input must be consumed (surrounding
    /// whitespace allowed).
    pub fn parse(text: &str) -> Result<Attribute> {
        let mut p = Parser {
            s: text.as_bytes(),
            i: 0,
            depth: 0,
            key: String::new(),
        };
        p.ws();
        let a = p.attribute()?;
        p.ws();
        if p.i != p.s.len() {
            return Err(p.err("end of input"));
        }
        Ok(a)
    }

    /// `dialect.name`, e.g. `ttg.blocked`.
    pub fn full_name(&self) -> String {
        format!("{}.{}", self.dialect, self.name)
    }

    /// The value of field `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.fields.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Field names not in `allowed` (for "unknown field" errors).
    pub fn unknown_fields(&self, allowed: &[&str]) -> Vec<&str> {
        self.fields
            .iter()
            .map(|(k, _)| k.as_str())
            .filter(|k| !allowed.contains(k))
            .collect()
    }

    /// The optional boolean field `key` (`true` / `false`), else an error
    /// naming `layout`, the field and the value.
    pub(crate) fn bool_field(&self, layout: &'static str, key: &str) -> Result<Option<bool>> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => v.as_bool().map(Some).ok_or_else(|| {
                crate::error::invalid(layout, format!("{key} must be true or false, got {v}"))
            }),
        }
    }

    /// Rejects the first field not in `allowed`: `unknown field 'f'`,
    /// followed by ` (<listed>: a, b, ...)` when `listed` names the list of
    /// allowed fields (the families word it differently: `allowed` for
    /// shared and tensor memory, `known` for AMD, no list for the others).
    pub(crate) fn check_fields(
        &self,
        layout: &'static str,
        allowed: &[&str],
        listed: Option<&str>,
    ) -> Result<()> {
        let Some(f) = self.unknown_fields(allowed).first().copied() else {
            return Ok(());
        };
        let message = match listed {
            Some(w) => format!("unknown field '{f}' ({w}: {})", allowed.join(", ")),
            None => format!("unknown field '{f}'"),
        };
        Err(crate::error::invalid(layout, message))
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    /// Attributes, lists and dicts currently open.
    depth: usize,
    /// The key whose value is being read (named in value errors).
    key: String,
}

impl Parser<'_> {
    fn err(&self, expected: &str) -> HwError {
        let found = if self.i >= self.s.len() {
            "end of input".to_string()
        } else {
            let rest = String::from_utf8_lossy(&self.s[self.i..]);
            let tok: String = rest.chars().take(16).collect();
            format!("'{tok}'")
        };
        HwError::Parse {
            pos: self.i,
            expected: expected.to_string(),
            found,
        }
    }

    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: u8) -> Result<()> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.err(&format!("'{}'", c as char)))
        }
    }

    fn ident(&mut self) -> Result<String> {
        self.ws();
        let start = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric() || self.s[self.i] == b'_')
        {
            self.i += 1;
        }
        if start == self.i || self.s[start].is_ascii_digit() {
            self.i = start;
            return Err(self.err("an identifier"));
        }
        // ASCII letters, digits and '_' only: always valid UTF-8.
        Ok(std::str::from_utf8(&self.s[start..self.i])
            .unwrap_or_default()
            .to_owned())
    }

    fn int(&mut self) -> Result<i64> {
        self.ws();
        let start = self.i;
        if self.peek() == Some(b'-') {
            let within = if self.key.is_empty() {
                String::new()
            } else {
                format!(" in '{}'", self.key)
            };
            return Err(self.err(&format!(
                "a non-negative integer{within} (Triton's layout parameters are unsigned; MLIR: integer constant out of range)"
            )));
        }
        while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
            self.i += 1;
        }
        let t = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
        t.parse::<i64>().map_err(|_| {
            self.i = start;
            self.err("an integer below 2^63")
        })
    }

    /// Enters one level of nesting (an attribute, list or dict) at the
    /// current position; refuses beyond [`MAX_DEPTH`].
    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(HwError::TooDeep {
                pos: self.i,
                limit: MAX_DEPTH,
            });
        }
        Ok(())
    }

    /// `key` must not be among `fields` yet (MLIR refuses duplicate keys),
    /// and `fields` must have room for it ([`MAX_KEYS`]).
    fn fresh_key(&self, fields: &[(String, Value)], key: &str, pos: usize) -> Result<()> {
        if fields.len() >= MAX_KEYS {
            return Err(HwError::TooManyKeys {
                pos,
                limit: MAX_KEYS,
            });
        }
        if fields.iter().any(|(k, _)| k == key) {
            return Err(HwError::DuplicateKey {
                pos,
                key: key.to_string(),
            });
        }
        Ok(())
    }

    fn attribute(&mut self) -> Result<Attribute> {
        self.ws();
        let pos = self.i;
        self.enter()?;
        let a = self.attribute_body(pos)?;
        self.depth -= 1;
        Ok(a)
    }

    /// [`Self::attribute`] after its depth check.
    fn attribute_body(&mut self, pos: usize) -> Result<Attribute> {
        self.expect(b'#')?;
        let mut dialect = self.ident()?;
        self.expect(b'.')?;
        let name = self.ident()?;
        if dialect == "triton_gpu" {
            dialect = "ttg".into();
        } else if dialect == "triton_nvidia_gpu" {
            dialect = "ttng".into();
        }
        self.expect(b'<')?;
        let mut a = Attribute {
            dialect,
            name,
            padding: None,
            fields: Vec::new(),
            pos,
        };
        loop {
            self.ws();
            match self.peek() {
                Some(b'>') => {
                    self.i += 1;
                    return Ok(a);
                }
                Some(b',') if !a.fields.is_empty() || a.padding.is_some() => {
                    self.i += 1;
                }
                Some(b'{') => {
                    self.i += 1;
                    self.enter()?;
                    self.dict_body_into(&mut a.fields)?;
                    self.depth -= 1;
                }
                Some(b'[') if a.padding.is_none() && a.fields.is_empty() => {
                    self.i += 1;
                    a.padding = Some(self.padding()?);
                }
                Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                    let at = self.i;
                    let k = self.ident()?;
                    self.fresh_key(&a.fields, &k, at)?;
                    self.key.clone_from(&k);
                    self.expect(b'=')?;
                    let v = self.value()?;
                    a.fields.push((k, v));
                }
                _ => return Err(self.err("'>', '{', a padding list or 'key = value'")),
            }
        }
    }

    fn padding(&mut self) -> Result<Vec<(i64, i64)>> {
        "padding".clone_into(&mut self.key);
        let mut v = Vec::new();
        loop {
            let interval = self.int()?;
            self.expect(b':')?;
            self.expect(b'+')?;
            let pad = self.int()?;
            v.push((interval, pad));
            if self.eat(b']') {
                return Ok(v);
            }
            self.expect(b',')?;
        }
    }

    /// After '{': `k = v, ...}`.
    fn dict_body(&mut self) -> Result<Vec<(String, Value)>> {
        let mut d = Vec::new();
        self.dict_body_into(&mut d)?;
        Ok(d)
    }

    /// [`Self::dict_body`] appending to `d` (no intermediate vector).
    fn dict_body_into(&mut self, d: &mut Vec<(String, Value)>) -> Result<()> {
        if self.eat(b'}') {
            return Ok(());
        }
        d.reserve(8);
        loop {
            self.ws();
            let at = self.i;
            let k = self.key()?;
            self.fresh_key(d, &k, at)?;
            self.key.clone_from(&k);
            self.expect(b'=')?;
            let v = self.value()?;
            d.push((k, v));
            if self.eat(b'}') {
                return Ok(());
            }
            self.expect(b',')?;
        }
    }

    fn key(&mut self) -> Result<String> {
        self.ws();
        if self.peek() == Some(b'"') {
            return self.string();
        }
        self.ident()
    }

    fn string(&mut self) -> Result<String> {
        self.expect(b'"')?;
        let start = self.i;
        while self.i < self.s.len() && self.s[self.i] != b'"' {
            self.i += 1;
        }
        if self.i >= self.s.len() {
            return Err(self.err("a closing '\"'"));
        }
        let s = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
        self.i += 1;
        Ok(s)
    }

    fn value(&mut self) -> Result<Value> {
        self.ws();
        let v = match self.peek() {
            Some(b'[') => {
                self.i += 1;
                self.enter()?;
                let mut items = Vec::new();
                if !self.eat(b']') {
                    items.reserve(4);
                    loop {
                        items.push(self.value()?);
                        if self.eat(b']') {
                            break;
                        }
                        self.expect(b',')?;
                    }
                }
                self.depth -= 1;
                Value::List(items)
            }
            Some(b'{') => {
                self.i += 1;
                self.enter()?;
                let d = self.dict_body()?;
                self.depth -= 1;
                Value::Dict(d)
            }
            Some(b'#') => Value::Attr(Box::new(self.attribute()?)),
            Some(b'"') => Value::Str(self.string()?),
            Some(c) if c == b'-' || c == b'+' || c.is_ascii_digit() => Value::Int(self.int()?),
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                let id = self.ident()?;
                match id.as_str() {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    _ => Value::Ident(id),
                }
            }
            _ => return Err(self.err("a value (integer, boolean, list, dict or attribute)")),
        };
        // Optional MLIR type suffix such as `: i32`.
        let save = self.i;
        if self.eat(b':') && self.ident().is_err() {
            self.i = save;
        }
        Ok(v)
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(i) => write!(f, "{i}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Ident(s) => f.write_str(s),
            Value::Str(s) => write!(f, "\"{s}\""),
            Value::List(v) => {
                f.write_str("[")?;
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_str("]")
            }
            Value::Dict(d) => {
                f.write_str("{")?;
                for (i, (k, v)) in d.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k} = {v}")?;
                }
                f.write_str("}")
            }
            Value::Attr(a) => write!(f, "{a}"),
        }
    }
}

impl fmt::Display for Attribute {
    /// Prints `#dialect.name<{k = v, ...}>` (padding list first when set).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}.{}<", self.dialect, self.name)?;
        if let Some(p) = &self.padding {
            let items: Vec<String> = p.iter().map(|(i, q)| format!("{i}:+{q}")).collect();
            write!(f, "[{}] ", items.join(", "))?;
        }
        if !self.fields.is_empty() {
            write!(f, "{}", Value::Dict(self.fields.clone()))?;
        }
        f.write_str(">")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form_triton_prints() {
        for t in [
            "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0], CGALayout = [[0, 1]]}>",
            "#ttng.tensor_memory_encoding<blockM = 128, blockN = 8, colStride = 1>",
            "#ttng.tensor_memory_scales_encoding<>",
            "#ttg.padded_shared<[4:+16, 8:+4] {offset = [[0, 2], [1, 0]], block = []}>",
            "#ttg.shared_linear<{offset = [[0, 2], [1, 0]]}, alignment = 1024>",
            "#ttg.amd_wmma<{version = 2, isTranspose = false, ctaLayout = {register = [[0, 2], [0, 1]], warp = []}}>",
            "#triton_gpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0], CTAsPerCGA = [1], CTASplitNum = [1], CTAOrder = [0]}>",
            "#ttng.tensor_memory_scales_encoding<blockRepOrder = kThenMn>",
        ] {
            let a = Attribute::parse(t).unwrap_or_else(|e| panic!("{t}: {e}"));
            // Re-parse our own printing: the tree is stable.
            let again = Attribute::parse(&a.to_string()).unwrap();
            assert_eq!(again.fields, a.fields);
            assert_eq!(again.padding, a.padding);
        }
    }

    #[test]
    fn errors_point_at_the_token() {
        let e = Attribute::parse("#ttg.blocked<{order = [1, 0}>").unwrap_err();
        match e {
            HwError::Parse { pos, .. } => assert_eq!(pos, 27),
            other => panic!("{other}"),
        }
        assert!(Attribute::parse("garbage").is_err());
        assert!(Attribute::parse("#ttg.blocked<{order = [1, 0]}> trailing").is_err());
        assert!(Attribute::parse("#ttg.blocked<{order = }>").is_err());
    }

    /// `n` slices around a blocked layout: `n + 1` attributes, each with a
    /// dict, and the blocked layout's lists one level further in.
    fn nested_slices(n: usize) -> String {
        let inner = "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>";
        format!(
            "{}{inner}{}",
            "#ttg.slice<{dim = 0, parent = ".repeat(n),
            "}>".repeat(n)
        )
    }

    #[test]
    fn nesting_at_the_limit_parses_and_beyond_it_is_refused() {
        // Depth of the innermost list: 2 per attribute (attribute + dict),
        // plus 1 for the list itself.
        let fits = (MAX_DEPTH - 1) / 2 - 1;
        assert!(Attribute::parse(&nested_slices(fits)).is_ok());
        let e = Attribute::parse(&nested_slices(fits + 1)).unwrap_err();
        assert!(
            matches!(
                e,
                HwError::TooDeep {
                    limit: MAX_DEPTH,
                    ..
                }
            ),
            "{e}"
        );
        // Far beyond the limit (the depth that overflowed the stack): the
        // same error, found without recursing further.
        let e = Attribute::parse(&nested_slices(100_000)).unwrap_err();
        assert!(e.to_string().contains("limit of 64 levels"), "{e}");
        // Lists alone nest the same way.
        let deep_list = format!(
            "#ttg.linear<{{register = {}1{}}}>",
            "[".repeat(70),
            "]".repeat(70)
        );
        assert!(matches!(
            Attribute::parse(&deep_list),
            Err(HwError::TooDeep { .. })
        ));
    }

    #[test]
    fn negative_literals_are_refused_as_mlir_refuses_them() {
        for t in [
            "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [-0, 1]}>",
            "#ttg.padded_shared<[4:+-16] {offset = [[0, 1]], block = []}>",
            "#ttng.tensor_memory_encoding<blockM = -128, blockN = 8, colStride = 1>",
        ] {
            let e = Attribute::parse(t).unwrap_err().to_string();
            assert!(e.contains("non-negative integer") && e.contains("found '-"), "{t}: {e}");
        }
    }

    #[test]
    fn duplicate_keys_are_refused_naming_the_key() {
        let e = Attribute::parse("#ttg.blocked<{order = [1, 0], order = [0, 1]}>").unwrap_err();
        assert_eq!(
            e,
            HwError::DuplicateKey {
                pos: 30,
                key: "order".into()
            }
        );
        // Across the dict and a bare pair, and inside a nested dict.
        assert!(Attribute::parse("#ttg.shared_linear<{alignment = 16}, alignment = 16>").is_err());
        let e =
            Attribute::parse("#ttg.amd_wmma<{ctaLayout = {warp = [], warp = []}}>").unwrap_err();
        assert!(e.to_string().contains("duplicate key 'warp'"), "{e}");
    }

    /// `#ttg.blocked<{k0 = 1, ...}>` with `n` keys, in the attribute's dict
    /// or in a dict value.
    fn keys(n: usize, nested: bool) -> String {
        let ks: Vec<String> = (0..n).map(|i| format!("k{i} = 1")).collect();
        if nested {
            format!("#ttg.amd_wmma<{{ctaLayout = {{{}}}}}>", ks.join(", "))
        } else {
            format!("#ttg.blocked<{{{}}}>", ks.join(", "))
        }
    }

    #[test]
    fn keys_beyond_the_limit_are_refused() {
        for nested in [false, true] {
            assert!(Attribute::parse(&keys(MAX_KEYS, nested)).is_ok());
            let e = Attribute::parse(&keys(MAX_KEYS + 1, nested)).unwrap_err();
            assert!(
                matches!(
                    e,
                    HwError::TooManyKeys {
                        limit: MAX_KEYS,
                        ..
                    }
                ),
                "{e}"
            );
            assert!(e.to_string().contains("more than 64 keys"), "{e}");
            // 500 000 keys (5.5 MB), each compared with every key before
            // it, took more than 10 s: refused at the 65th.
            assert!(Attribute::parse(&keys(500_000, nested)).is_err());
        }
    }
}

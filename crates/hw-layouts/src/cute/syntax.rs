//! Reading CuTe text: `(4,8):(8,1)`, `((2,4),8):((1,16),2)`, `8` (compact
//! strides implied), CuTe's static integers `_8`, pycute's `(4, 8)` and
//! `(8,)`, and composed layouts `Swizzle<3,4,3> o (8,64):(64,1)`,
//! `Sw<3,4,3> o _0 o ...` (C++) or `SW_3_4_3 o 0 o ...` (pycute).
//!
//! Grammar (spaces allowed between tokens):
//! ```text
//! cute    := [swizzle 'o'] [int 'o'] layout
//! swizzle := ('Swizzle' | 'Sw') '<' int ',' int ',' int '>' | 'SW_' int '_' int '_' int
//! layout  := tuple [':' tuple]          -- no stride: column-major compact
//! tuple   := int | '(' [tuple (',' tuple)* [',']] ')'
//! int     := ['-'] ['_'] digits
//! ```
//! Bounded: nesting depth ≤ [`MAX_DEPTH`], at most [`MAX_LEAVES`] integers,
//! every integer below `2^62` in magnitude.

use super::error::{CuteError, Result};
use super::layout::{CuteLayout, IntTuple, Layout, Swizzle};

/// Deepest tuple nesting accepted.
pub const MAX_DEPTH: usize = 32;
/// Most integers in one shape (or stride) accepted.
pub const MAX_LEAVES: usize = 1024;
const MAX_VALUE: u64 = 1 << 62;

/// Parses CuTe text (see the module doc for the grammar).
///
/// ```
/// use hw_layouts::cute::parse;
/// let l = parse("Swizzle<3,4,3> o (8,64):(64,1)").unwrap();
/// assert_eq!(l.to_string(), "Swizzle<3,4,3> o (8,64):(64,1)");
/// assert_eq!(parse("SW_3_4_3 o 0 o (8, 64):(64, 1)").unwrap(), l);
/// assert_eq!(parse("(4,8)").unwrap().to_string(), "(4,8):(1,4)");
/// ```
pub fn parse(text: &str) -> Result<CuteLayout> {
    let mut p = Parser {
        s: text.as_bytes(),
        pos: 0,
        leaves: 0,
    };
    let r = p.cute()?;
    p.ws();
    if p.pos != p.s.len() {
        return Err(p.err("end of input"));
    }
    Ok(r)
}

/// Parses a plain `Shape:Stride` layout (no swizzle, no offset).
pub fn parse_layout(text: &str) -> Result<Layout> {
    let c = parse(text)?;
    if c.swizzle.is_some() || c.offset != 0 {
        return Err(CuteError::Parse {
            pos: 0,
            expected: "a plain Shape:Stride layout".into(),
            found: format!("'{c}'"),
        });
    }
    Ok(c.layout)
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    leaves: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn err(&self, expected: &str) -> CuteError {
        let rest = &self.s[self.pos.min(self.s.len())..];
        let found = if rest.is_empty() {
            "end of input".to_string()
        } else {
            let t: String = String::from_utf8_lossy(&rest[..rest.len().min(16)]).into();
            format!("'{t}'")
        };
        CuteError::Parse {
            pos: self.pos,
            expected: expected.into(),
            found,
        }
    }

    fn eat(&mut self, lit: &str) -> bool {
        self.ws();
        if self.s[self.pos..].starts_with(lit.as_bytes()) {
            self.pos += lit.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, lit: &str) -> Result<()> {
        if self.eat(lit) {
            Ok(())
        } else {
            Err(self.err(&format!("'{lit}'")))
        }
    }

    /// `'o'` as a separate word (not the start of an identifier).
    fn eat_compose(&mut self) -> bool {
        self.ws();
        let save = self.pos;
        if self.eat("o") {
            let next = self.s.get(self.pos).copied();
            if !matches!(next, Some(c) if c.is_ascii_alphanumeric() || c == b'_') {
                return true;
            }
        }
        self.pos = save;
        false
    }

    fn int(&mut self) -> Result<i64> {
        self.ws();
        let start = self.pos;
        let neg = self.eat("-");
        if self.s.get(self.pos) == Some(&b'_') {
            self.pos += 1;
        }
        let d0 = self.pos;
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
            self.pos += 1;
        }
        if self.pos == d0 {
            self.pos = start;
            return Err(self.err("an integer"));
        }
        let digits = std::str::from_utf8(&self.s[d0..self.pos]).unwrap_or("");
        let v: u64 = match digits.parse() {
            Ok(v) if v < MAX_VALUE => v,
            _ => {
                return Err(CuteError::TooLarge {
                    what: "integer",
                    value: digits.parse().unwrap_or(u64::MAX),
                    limit: MAX_VALUE - 1,
                })
            }
        };
        let v = v as i64;
        Ok(if neg { -v } else { v })
    }

    fn tuple(&mut self, depth: usize) -> Result<IntTuple> {
        if depth > MAX_DEPTH {
            return Err(CuteError::TooLarge {
                what: "tuple nesting depth",
                value: depth as u64,
                limit: MAX_DEPTH as u64,
            });
        }
        if self.eat("(") {
            let mut items = vec![];
            if self.eat(")") {
                return Ok(IntTuple::Tuple(items));
            }
            loop {
                items.push(self.tuple(depth + 1)?);
                if self.eat(",") {
                    if self.eat(")") {
                        break;
                    }
                    continue;
                }
                if self.eat(")") {
                    break;
                }
                return Err(self.err("',' or ')'"));
            }
            Ok(IntTuple::Tuple(items))
        } else {
            let v = self.int().map_err(|e| match e {
                CuteError::Parse { pos, found, .. } => CuteError::Parse {
                    pos,
                    expected: "an integer or '('".into(),
                    found,
                },
                e => e,
            })?;
            self.leaves += 1;
            if self.leaves > MAX_LEAVES {
                return Err(CuteError::TooLarge {
                    what: "number of integers",
                    value: self.leaves as u64,
                    limit: MAX_LEAVES as u64,
                });
            }
            Ok(IntTuple::Int(v))
        }
    }

    fn swizzle(&mut self) -> Result<Option<Swizzle>> {
        self.ws();
        let (b, m, s) = if self.eat("Swizzle<") || self.eat("Sw<") {
            let b = self.int()?;
            self.expect(",")?;
            let m = self.int()?;
            self.expect(",")?;
            let s = self.int()?;
            self.expect(">")?;
            (b, m, s)
        } else if self.eat("SW_") {
            let b = self.int()?;
            self.expect("_")?;
            let m = self.int()?;
            self.expect("_")?;
            let s = self.int()?;
            (b, m, s)
        } else {
            return Ok(None);
        };
        if !self.eat_compose() {
            return Err(self.err("'o' after the swizzle"));
        }
        Swizzle::new(b, m, s).map(Some)
    }

    fn cute(&mut self) -> Result<CuteLayout> {
        let swizzle = self.swizzle()?;
        // An offset is an integer followed by `o`; otherwise the integer
        // starts the layout.
        self.ws();
        let save = (self.pos, self.leaves);
        let mut offset = 0;
        if let Ok(v) = self.int() {
            if self.eat_compose() {
                offset = v;
            } else {
                (self.pos, self.leaves) = save;
            }
        } else {
            (self.pos, self.leaves) = save;
        }
        let shape = self.tuple(0)?;
        self.leaves = 0;
        let stride = if self.eat(":") {
            let at = self.pos;
            let stride = self.tuple(0)?;
            if !shape.congruent(&stride) {
                return Err(CuteError::Parse {
                    pos: at,
                    expected: format!("a stride congruent to shape {shape}"),
                    found: format!("'{stride}'"),
                });
            }
            stride
        } else {
            shape.compact_strides().ok_or(CuteError::TooLarge {
                what: "size of the shape",
                value: u64::MAX,
                limit: i64::MAX as u64,
            })?
        };
        Ok(CuteLayout {
            swizzle,
            offset,
            layout: Layout::new(shape, stride)?,
        })
    }
}

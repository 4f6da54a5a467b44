//! The engine's assignment printed as Triton's TTGIR: the program as
//! Triton's layout passes would leave it.
//!
//! - Layout aliases head the module with Triton's names (`#blocked`,
//!   `#blocked1`, `#mma`, `#linear`, `#shared`, `#smem`); slices and dot
//!   operands print inline with their parent's alias, as Triton prints them.
//! - The module carries `ttg.num-ctas`, `ttg.num-warps`, `ttg.target` and
//!   `ttg.threads-per-warp`.
//! - Every `tensor<…>` type carries its encoding. A linear map prints as
//!   its canonical attribute (the first of the most specific family: mma,
//!   then `dot_op`, slice, blocked, linear) unless an op's result takes
//!   the attribute Triton infers from its operands (`spelling`: a reduce's
//!   `#ttg.slice` of its operand's, an expand_dims's parent of its
//!   operand's slice, an elementwise op's operand attribute). Where a use
//!   wants another attribute of its value's map than the value has (an
//!   expand_dims operand as the slice of its result's, a dot operand as
//!   `#ttg.dot_op` of the dot's, a yield as its loop's), an
//!   attribute-only `%acN = ttg.convert_layout` right before the use
//!   spells it so: no data moves and it is not one of the engine's
//!   conversions. Each SSA value has one type at its definition and at
//!   every use.
//! - Every conversion of [`crate::assignment::conversions`] is a
//!   `%cvtN = ttg.convert_layout` in the converted value's block, right
//!   before the first op that reads it (or holds a reader), as Triton's
//!   passes place them (a loop body's loads are all issued before the
//!   conversions of their values; a dot's operand conversions sit right
//!   before the dot), and every use that sees its destination layout reads
//!   `%cvtN`. On the H200 (2026-11-29, `bench/engine-gpu`, 164 kernels,
//!   `results/2026-11-29-h200/placement/`) this placement ran 1.0% to 4.6%
//!   faster (geometric means per case set) than placing each conversion
//!   right after the value's definition, and the controls whose
//!   assignment equals Triton's came to 1.000 of Triton's time.
//! - A use that sees index arithmetic in another layout (a
//!   rematerialisation, [`Assignment::remat`]) reads a copy of the value's
//!   producers recomputed in that layout (`%rmN`, printed after each
//!   original producer; an operand's layout is the backward map of the
//!   producer: broadcast collapses, expand_dims slices, trans and reshape
//!   invert, join splits).
//! - A dot whose result is wgmma (mma v3) is Triton's
//!   `ttng.warp_group_dot`; an operand the engine reads from shared memory
//!   goes through `ttg.local_alloc` into a `!ttg.memdesc` of an
//!   `#ttg.nvmma_shared` layout.
//! - A `tt.dot_scaled` prints as the ops Triton 3.9's decomposition makes
//!   of it on sm80 and sm90 (`scaled_dot`; its values are `%dsN`), so
//!   that the program compiles without a scaled MMA.
//!
//! The crate's own reader ([`crate::parse_program`]) reads the text back;
//! `tests/ttgir_roundtrip.rs` checks, on every record of the corpora, that
//! the checker accepts what it reads, that every value and use reads back
//! in the engine's linear layout, and that there is one data-moving
//! `ttg.convert_layout` per conversion; `tests/ttgir_spelling.rs` checks
//! the attribute rules above; `tools/triton_parse.py` (outside CI) feeds
//! the text to Triton 3.9's own parser and verifiers.
//!
//! Submodules: `insert` (the conversions and recomputed copies to print),
//! `attributes` (the canonical attribute of each map, and the aliases),
//! `spelling` (the attribute each value and use carries, op by op),
//! `scaled_dot` (the decomposition of `tt.dot_scaled`),
//! `types` (one op's text with its operands and types rewritten); this file
//! walks the program's lines.

use crate::anchors::Target;
use crate::assignment::{Assignment, Layout};
use crate::error::{EngineError, Result};
use crate::ir::{OpId, OpKind, Program, ValueId};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use hw_layouts::Encoding;
use linear_layout::LinearLayout;

mod attributes;
mod insert;
mod scaled_dot;
mod spelling;
mod types;

pub use spelling::ATTRIBUTE_CONVERT_PREFIX;

/// Name prefix of a value recomputed in another layout (`%rm0`, ...).
pub const RECOMPUTED_PREFIX: &str = "%rm";

/// Name prefix of a value of a `tt.dot_scaled`'s printed decomposition
/// (`%ds0`, ...; the last op defines the `tt.dot_scaled`'s own result).
pub const DECOMPOSED_PREFIX: &str = "%ds";

/// The printed program and what was inserted into it.
#[derive(Clone, Debug)]
pub struct Ttgir {
    /// The TTGIR text.
    pub text: String,
    /// `ttg.convert_layout` ops inserted (one per conversion).
    pub convert_ops: usize,
    /// Ops recomputed in another layout for rematerialised uses.
    pub recomputed_ops: usize,
    /// `ttg.local_alloc` ops inserted for dot operands read from shared memory.
    pub shared_allocs: usize,
    /// Attribute-only `ttg.convert_layout` ops inserted (a use that wants
    /// another attribute of its value's map; no data moves, and none is
    /// one of [`crate::assignment::conversions`]).
    pub attribute_converts: usize,
    /// The result of each conversion's `ttg.convert_layout`, in the order
    /// of [`crate::assignment::conversions`].
    pub convert_names: Vec<String>,
    /// The aliases at the top, `(#name, attribute)`.
    pub aliases: Vec<(String, String)>,
    /// The canonical attribute of each linear map of the assignment (a
    /// value prints with it unless Triton's inference gives it another
    /// attribute of its map: see the module doc).
    pub canonical: HashMap<LinearLayout, Encoding>,
}

/// An op inserted after the definition of a value.
enum Inserted {
    /// `name = ttg.convert_layout v : src -> dst`.
    Convert {
        name: String,
        value: ValueId,
        src: Box<Layout>,
        dst: Box<Layout>,
    },
    /// `name = ttg.local_alloc value` (a wgmma operand read from shared
    /// memory, allocated where its value is defined, so that a
    /// loop-invariant operand is written once, before the loop).
    LocalAlloc {
        name: String,
        value: ValueId,
        memdesc: String,
    },
    /// `name = ttg.memdesc_trans of` (order `[1, 0]`): the transposed view
    /// of an allocation, read by a dot whose operand is `tt.trans` of the
    /// allocated value.
    MemdescTrans {
        name: String,
        of: String,
        from: String,
        to: String,
    },
    /// The defining op of a value recomputed with result `name` in `layout`.
    Recompute {
        name: String,
        op: OpId,
        layout: Box<Layout>,
        operands: Vec<(String, Option<Layout>)>,
    },
}

struct Printer<'a> {
    p: &'a Program,
    a: &'a Assignment,
    names: HashSet<String>,
    /// (value, linear map) → the name of the value in that layout.
    renamed: HashMap<(ValueId, LinearLayout), String>,
    /// Ops to print after the definition of each value.
    after: HashMap<ValueId, Vec<Inserted>>,
    /// Conversions to print right before an op (a register dot operand
    /// converted at its use, [`crate::assignment::converts_at_use`]).
    before: HashMap<OpId, Vec<Inserted>>,
    /// (op, operand) → the name that use reads (its conversion at the use).
    renamed_use: HashMap<(OpId, usize), String>,
    /// Every layout printed, for [`Printer::canonical`].
    seen: Vec<Layout>,
    /// Linear map → the encoding printed for it.
    canon: HashMap<LinearLayout, Encoding>,
    /// Maps whose encoding stays a dot's own (its instruction shape).
    pinned: HashSet<LinearLayout>,
    aliases: Vec<(String, String)>,
    /// Encoding → its text in a type ([`Printer::enc_text`]), memoised:
    /// printing a rank-11 `#ttg.linear` at every use was two thirds of
    /// printing the sample's sort kernel.
    enc_texts: Vec<(Encoding, String)>,
    counter: usize,
    /// Conversions, recomputed ops, shared allocations, attribute-only
    /// conversions.
    counts: (usize, usize, usize, usize),
    /// The input's lines.
    lines: Vec<String>,
    convert_names: Vec<String>,
    /// Printed value name → the attribute of its type (its spelling).
    spell: HashMap<String, Encoding>,
    /// (value name, attribute) → the attribute-only conversion that
    /// spells it so, and the block path where it was written.
    attribute_converts: HashMap<(String, String), (String, Vec<usize>)>,
    /// The path of open blocks (ids) at the line being printed.
    scope: Vec<usize>,
    blocks: usize,
    /// Spelled operand and result layouts of ops whose types print on
    /// their closing line (`tt.reduce`, `tt.scan`).
    pending: HashMap<OpId, spelling::Spelled>,
    /// wgmma operands read from shared memory → the memdesc the dot reads
    /// and its type ([`Inserted::LocalAlloc`]).
    smem_refs: HashMap<(OpId, usize), (String, String)>,
}

/// Prints `a` over `p` (read from `text`) as TTGIR for `target` and
/// `num_warps` warps (see the module doc).
///
/// ```
/// use layout_engine::{anchors::Target, cost::Pricer, engine::{assign, Options}};
/// let ttir = "module {
///   tt.func public @k(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
///     %0 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
///     %1 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
///     %2 = tt.addptr %1, %0 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
///     %3 = tt.load %2 : tensor<128x!tt.ptr<f32>>
///     tt.store %2, %3 : tensor<128x!tt.ptr<f32>>
///     tt.return
///   }
/// }";
/// let p = layout_engine::parse_program(ttir).unwrap();
/// let out = assign(&p, Options::new(Target::Sm80, 4), &mut Pricer::new()).unwrap();
/// let g = layout_engine::ttgir::print_ttgir(&p, ttir, &out.assignment, Target::Sm80, 4).unwrap();
/// assert!(g.text.starts_with("#blocked = #ttg.blocked<"));
/// assert!(g.text.contains("\"ttg.num-warps\" = 4 : i32"));
/// assert!(g.text.contains("%3 = tt.load %2 : tensor<128x!tt.ptr<f32>, #blocked>"));
/// // It reads back with the same layouts.
/// let back = layout_engine::parse_program(&g.text).unwrap();
/// let a = layout_engine::Assignment::from_types(&back).unwrap();
/// assert!(layout_engine::check(&back, &a).is_empty());
/// ```
pub fn print_ttgir(
    p: &Program,
    text: &str,
    a: &Assignment,
    target: Target,
    num_warps: u64,
) -> Result<Ttgir> {
    let mut pr = Printer {
        p,
        a,
        names: p.values.iter().map(|v| v.name.clone()).collect(),
        renamed: HashMap::new(),
        after: HashMap::new(),
        before: HashMap::new(),
        renamed_use: HashMap::new(),
        seen: Vec::new(),
        canon: HashMap::new(),
        aliases: Vec::new(),
        enc_texts: Vec::new(),
        counter: 0,
        counts: (0, 0, 0, 0),
        // Source locations go (their `#loc` definitions are dropped with
        // the other `#` lines): the reader read past them, and a reference
        // left without its definition would not parse.
        lines: text
            .lines()
            .map(|l| crate::text::strip_locations(l).into_owned())
            .collect(),
        convert_names: Vec::new(),
        spell: HashMap::new(),
        attribute_converts: HashMap::new(),
        scope: Vec::new(),
        blocks: 0,
        pending: HashMap::new(),
        smem_refs: HashMap::new(),
        pinned: HashSet::new(),
    };
    pr.plan()?;
    pr.choose_canonical();
    pr.agree_with_inference();
    let body = pr.body(target, num_warps)?;
    let mut out = String::new();
    for (n, def) in &pr.aliases {
        out.push_str(&format!("{n} = {def}\n"));
    }
    out.push_str(&body);
    Ok(Ttgir {
        text: out,
        convert_ops: pr.counts.0,
        recomputed_ops: pr.counts.1,
        shared_allocs: pr.counts.2,
        attribute_converts: pr.counts.3,
        convert_names: pr.convert_names,
        aliases: pr.aliases,
        canonical: pr.canon,
    })
}

fn unsupported(m: String) -> EngineError {
    EngineError::Unsupported(m)
}

fn target_name(t: Target) -> &'static str {
    match t {
        Target::Sm80 => "cuda:80",
        Target::Sm90 => "cuda:90",
        Target::Gfx942 => "hip:gfx942",
    }
}

fn indent_of(raw: &str) -> &str {
    &raw[..raw.len() - raw.trim_start().len()]
}

impl Printer<'_> {
    fn fresh(&mut self, base: &str) -> String {
        loop {
            let n = format!("{base}{}", self.counter);
            self.counter += 1;
            if self.names.insert(n.clone()) {
                return n;
            }
        }
    }

    fn layout(&self, v: ValueId) -> Option<&Layout> {
        self.a.layout(v)
    }

    /// The engine's layout of `v` with `v`'s spelling.
    fn value_spelled(&self, v: ValueId) -> Option<Layout> {
        let l = self.layout(v)?;
        Some(self.spelled_as(&self.p.values[v].name, l))
    }

    /// A block opens: a new id on the scope path.
    fn enter(&mut self) {
        self.blocks += 1;
        self.scope.push(self.blocks);
    }

    fn leave(&mut self) {
        self.scope.pop();
    }

    /// The reference and layout operand `i` of `o` reads.
    fn operand(&self, o: OpId, i: usize) -> (String, Option<Layout>) {
        let p = self.p;
        let v = p.ops[o].operands[i];
        let own = self.layout(v).cloned();
        if let (Some(n), Some(l)) = (self.renamed_use.get(&(o, i)), self.a.uses.get(&(o, i))) {
            return (n.clone(), Some(l.clone()));
        }
        match self.a.uses.get(&(o, i)) {
            Some(l) if own.as_ref().is_some_and(|x| x.ll != l.ll) => {
                let n = self
                    .renamed
                    .get(&(v, l.ll.clone()))
                    .cloned()
                    .unwrap_or_else(|| p.values[v].name.clone());
                (n, Some(l.clone()))
            }
            _ => (p.values[v].name.clone(), own),
        }
    }

    fn emit_after(&mut self, values: &[ValueId], indent: &str, out: &mut String) {
        for &v in values {
            let Some(items) = self.after.remove(&v) else {
                continue;
            };
            self.emit_items(&items, indent, out);
        }
    }

    /// Conversions placed right before op `o` ([`Printer::before`]).
    fn emit_before(&mut self, o: OpId, indent: &str, out: &mut String) {
        if let Some(items) = self.before.remove(&o) {
            self.emit_items(&items, indent, out);
        }
    }

    fn emit_items(&mut self, items: &[Inserted], indent: &str, out: &mut String) {
        {
            for it in items {
                match it {
                    Inserted::Convert {
                        name,
                        value,
                        src,
                        dst,
                    } => {
                        let n = &self.p.values[*value].name;
                        let src = self.spelled_as(n, src);
                        let dst = Layout {
                            encoding: std::sync::Arc::new(self.canonical(dst)),
                            ll: dst.ll.clone(),
                        };
                        self.define(name, &dst);
                        let (s, d) = (
                            self.tensor_type(*value, &src),
                            self.tensor_type(*value, &dst),
                        );
                        out.push_str(&format!(
                            "{indent}{name} = ttg.convert_layout {n} : {s} -> {d}\n"
                        ));
                    }
                    Inserted::LocalAlloc {
                        name,
                        value,
                        memdesc,
                    } => {
                        let n = &self.p.values[*value].name;
                        let l = self
                            .value_spelled(*value)
                            .expect("allocated values have layouts");
                        let t = self.tensor_type(*value, &l);
                        out.push_str(&format!(
                            "{indent}{name} = ttg.local_alloc {n} : ({t}) -> {memdesc}\n"
                        ));
                    }
                    Inserted::MemdescTrans { name, of, from, to } => {
                        out.push_str(&format!(
                            "{indent}{name} = ttg.memdesc_trans {of} {{order = array<i32: 1, 0>}} : {from} -> {to}\n"
                        ));
                    }
                    Inserted::Recompute {
                        name,
                        op,
                        layout,
                        operands,
                    } => {
                        let raw = self.p_line(*op);
                        let sp = self.spell_op(
                            *op,
                            operands,
                            &[(name.clone(), Some((**layout).clone()))],
                            indent,
                            out,
                        );
                        let line = self.render(*op, Some(name), &sp.operands, &sp.results, &raw);
                        out.push_str(&format!("{indent}{line}\n"));
                    }
                }
            }
        }
    }

    fn p_line(&self, o: OpId) -> String {
        self.lines
            .get(self.p.ops[o].line.wrapping_sub(1))
            .cloned()
            .unwrap_or_default()
    }

    /// The program text, line by line (the reader's region rules).
    fn body(&mut self, target: Target, num_warps: u64) -> Result<String> {
        enum Frame {
            Other,
            Op(OpId),
        }
        let p = self.p;
        let by_line: HashMap<usize, OpId> = p
            .ops
            .iter()
            .enumerate()
            .map(|(o, op)| (op.line, o))
            .collect();
        let mut out = String::new();
        let mut stack: Vec<Frame> = Vec::new();
        let lines = self.lines.clone();
        for (i, raw) in lines.iter().enumerate() {
            let line = i + 1;
            let s = raw.trim();
            let indent = indent_of(raw);
            let inner = format!("{indent}  ");
            if s.is_empty() || s.starts_with("//") || s.starts_with('#') {
                if !s.starts_with('#') {
                    out.push_str(raw);
                    out.push('\n');
                }
                continue;
            }
            if let Some(rest) = s.strip_prefix("module") {
                let attrs = format!(
                    "\"ttg.num-ctas\" = 1 : i32, \"ttg.num-warps\" = {num_warps} : i32, ttg.target = \"{}\", \"ttg.threads-per-warp\" = {} : i32",
                    target_name(target),
                    target.threads_per_warp()
                );
                let rest = rest.trim_start();
                let rest = rest.strip_prefix("attributes {").map_or_else(
                    || format!("attributes {{{attrs}}} {rest}"),
                    |r| format!("attributes {{{attrs}, {r}"),
                );
                out.push_str(&format!("{indent}module {rest}\n"));
                if s.ends_with('{') {
                    stack.push(Frame::Other);
                    self.enter();
                }
                continue;
            }
            if s.starts_with("tt.func") {
                let slots: Vec<Option<Layout>> = p
                    .args
                    .iter()
                    .filter(|&&v| p.is_tensor(v))
                    .map(|&v| self.value_spelled(v))
                    .collect();
                let l = self.retype(s, &slots);
                out.push_str(&format!("{indent}{l}\n"));
                stack.push(Frame::Other);
                self.enter();
                self.emit_after(&p.args, &inner, &mut out);
                continue;
            }
            if let Some(rest) = s.strip_prefix('}') {
                let frame = stack.pop();
                self.leave();
                let rest = rest.trim();
                let Some(Frame::Op(o)) = frame else {
                    out.push_str(raw);
                    out.push('\n');
                    continue;
                };
                if rest.ends_with('{') && (rest.starts_with("else") || rest.starts_with("do")) {
                    out.push_str(raw);
                    out.push('\n');
                    stack.push(Frame::Op(o));
                    self.enter();
                    continue;
                }
                let spelled = self.pending.remove(&o);
                if let (true, Some(sp)) = (rest.starts_with(')'), spelled) {
                    let op = &p.ops[o];
                    let ops: Vec<Option<Layout>> = (0..op.operands.len())
                        .filter(|&k| p.is_tensor(op.operands[k]))
                        .map(|k| sp.operands[k].1.clone())
                        .collect();
                    let res: Vec<Option<Layout>> = (0..op.results.len())
                        .filter(|&k| p.is_tensor(op.results[k]))
                        .map(|k| sp.results[k].clone())
                        .collect();
                    let slots = self.slots(rest, &op.kind, &ops, &res);
                    let l = self.retype(s, &slots);
                    out.push_str(&format!("{indent}{l}\n"));
                } else {
                    out.push_str(raw);
                    out.push('\n');
                }
                let results = p.ops[o].results.clone();
                self.emit_after(&results, indent, &mut out);
                continue;
            }
            if s.starts_with("^bb") {
                let Some(Frame::Op(o)) = stack.last() else {
                    out.push_str(raw);
                    out.push('\n');
                    continue;
                };
                let o = *o;
                let args = p.ops[o].regions.iter().flat_map(|r| r.args.iter()).copied();
                // The block's arguments: those whose name the line defines.
                let names: HashSet<&str> = crate::text::value_refs(s).into_iter().collect();
                let args: Vec<ValueId> = args
                    .filter(|&v| names.contains(p.values[v].name.as_str()))
                    .collect();
                let slots: Vec<Option<Layout>> = args
                    .iter()
                    .filter(|&&v| p.is_tensor(v))
                    .map(|&v| self.value_spelled(v))
                    .collect();
                let l = self.retype(s, &slots);
                out.push_str(&format!("{indent}{l}\n"));
                self.emit_after(&args, &inner, &mut out);
                continue;
            }
            let Some(&o) = by_line.get(&line) else {
                return Err(unsupported(format!("line {line}: no op read here")));
            };
            let op = &p.ops[o];
            let opens = s.ends_with('{');
            if !p.in_combine_region(o) {
                self.emit_before(o, indent, &mut out);
            }
            let decomposed = if op.kind == OpKind::DotScaled {
                self.decomposition(o, target, num_warps)
            } else {
                None
            };
            if p.in_combine_region(o) {
                out.push_str(raw);
                out.push('\n');
            } else if let Some(c) = decomposed {
                self.scaled_dot(o, &c, indent, &mut out)?;
            } else if op.kind == OpKind::Dot
                && op
                    .results
                    .first()
                    .and_then(|&r| self.layout(r))
                    .is_some_and(
                        |l| matches!(&*l.encoding, Encoding::NvidiaMma(m) if m.version_major == 3),
                    )
            {
                self.warp_group_dot(o, indent, &mut out)?;
            } else {
                let operands: Vec<(String, Option<Layout>)> =
                    (0..op.operands.len()).map(|k| self.operand(o, k)).collect();
                let results: Vec<(String, Option<Layout>)> = op
                    .results
                    .iter()
                    .map(|&r| (p.values[r].name.clone(), self.layout(r).cloned()))
                    .collect();
                let sp = self.spell_op(o, &operands, &results, indent, &mut out);
                let l = self.render(o, None, &sp.operands, &sp.results, raw);
                out.push_str(&format!("{indent}{l}\n"));
                if opens {
                    self.pending.insert(o, sp);
                }
            }
            if opens {
                stack.push(Frame::Op(o));
                self.enter();
                let args = p.ops[o]
                    .regions
                    .first()
                    .map(|r| r.args.clone())
                    .unwrap_or_default();
                self.emit_after(&args, &inner, &mut out);
            } else {
                let results = op.results.clone();
                self.emit_after(&results, indent, &mut out);
            }
        }
        let left: usize = self
            .after
            .values()
            .chain(self.before.values())
            .map(Vec::len)
            .sum();
        if left > 0 {
            return Err(unsupported(format!(
                "{left} inserted ops found no definition to follow"
            )));
        }
        Ok(out)
    }
}

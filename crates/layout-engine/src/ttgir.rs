//! The engine's assignment printed as Triton's TTGIR: the program as
//! Triton's layout passes would leave it.
//!
//! - Layout aliases head the module with Triton's names (`#blocked`,
//!   `#blocked1`, `#mma`, `#linear`, `#shared`, `#smem`); slices and dot
//!   operands print inline with their parent's alias, as Triton prints them.
//! - The module carries `ttg.num-ctas`, `ttg.num-warps`, `ttg.target` and
//!   `ttg.threads-per-warp`.
//! - Every `tensor<…>` type carries its encoding. One linear map prints as
//!   one attribute everywhere (the first of the most specific family:
//!   mma, then `dot_op`, slice, blocked, linear), so an SSA value has one
//!   type at its definition and at every use. (An mma v2 accumulator and
//!   the `dot_op(opIdx = 0, kWidth = 2)` of its parent can be one map,
//!   as in chained dots: it prints as the mma, which the checker accepts
//!   as that operand and Triton would write through a no-op
//!   `ttg.convert_layout`.)
//! - Every conversion of [`crate::assignment::conversions`] is a
//!   `%cvtN = ttg.convert_layout` right after the converted value's
//!   definition (inside a loop where the value is), and every use that
//!   sees its destination layout reads `%cvtN`.
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
//!
//! The crate's own reader ([`crate::parse_program`]) reads the text back;
//! `tests/ttgir_roundtrip.rs` checks, on every record of the corpora, that
//! the checker accepts what it reads, that every value and use reads back
//! in the engine's linear layout, and that there is one `ttg.convert_layout`
//! per conversion.

use crate::anchors::Target;
use crate::assignment::{conversions, Assignment, Layout};
use crate::error::{EngineError, Result};
use crate::ir::{OpId, OpKind, Program, ValueId};
use crate::shape_ops::{canon, collapse_dims, drop_dim, reshape, split, transpose};
use crate::text::find_top;
use hw_layouts::slice::Slice;
use hw_layouts::Encoding;
use linear_layout::LinearLayout;
use std::collections::{HashMap, HashSet};

/// Name prefix of a value recomputed in another layout (`%rm0`, ...).
pub const RECOMPUTED_PREFIX: &str = "%rm";

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
    /// The result of each conversion's `ttg.convert_layout`, in the order
    /// of [`crate::assignment::conversions`].
    pub convert_names: Vec<String>,
    /// The aliases at the top, `(#name, attribute)`.
    pub aliases: Vec<(String, String)>,
    /// The attribute printed for each linear map of the assignment.
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
    /// Every layout printed, for [`Printer::canonical`].
    seen: Vec<Layout>,
    /// Linear map → the encoding printed for it.
    canon: HashMap<LinearLayout, Encoding>,
    aliases: Vec<(String, String)>,
    counter: usize,
    counts: (usize, usize, usize),
    /// The input's lines.
    lines: Vec<String>,
    convert_names: Vec<String>,
    /// Linear map → its printed attribute (once the attributes are chosen).
    printed: HashMap<LinearLayout, String>,
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
/// let out = assign(&p, Options { target: Target::Sm80, num_warps: 4 }, &mut Pricer::new()).unwrap();
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
        seen: Vec::new(),
        canon: HashMap::new(),
        aliases: Vec::new(),
        counter: 0,
        counts: (0, 0, 0),
        lines: text.lines().map(str::to_string).collect(),
        convert_names: Vec::new(),
        printed: HashMap::new(),
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
        convert_names: pr.convert_names,
        aliases: pr.aliases,
        canonical: pr.canon,
    })
}

fn unsupported(m: String) -> EngineError {
    EngineError::Unsupported(m)
}

/// Lower is preferred when one linear map has several attributes.
fn family_rank(e: &Encoding) -> u8 {
    match e {
        Encoding::NvidiaMma(_) | Encoding::AmdMfma(_) | Encoding::AmdWmma(_) => 0,
        Encoding::DotOperand(_) => 1,
        Encoding::Slice(_) => 2,
        Encoding::Blocked(_) => 3,
        Encoding::Linear(_) => 5,
        _ => 4,
    }
}

fn target_name(t: Target) -> &'static str {
    match t {
        Target::Sm80 => "cuda:80",
        Target::Sm90 => "cuda:90",
        Target::Gfx942 => "hip:gfx942",
    }
}

/// Byte offsets and texts of every `%name` / `%name#k` reference in `s`
/// (the rules of [`crate::text::value_refs`]).
fn ref_spans(s: &str) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'%' {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
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
            out.push((start, i));
        }
    }
    out
}

/// Byte spans `(start, end)` of the `tensor<…>` types of `s` that are not
/// nested in another `<…>` (a tensor inside `!tt.tensordesc<…>` is the
/// descriptor's block type, which carries no distributed layout).
fn tensor_spans(s: &str) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut angle = 0usize;
    let mut i = 0;
    while i < b.len() {
        if angle == 0 && s[i..].starts_with("tensor<") {
            let open = i + "tensor".len();
            let mut depth = 0usize;
            let mut j = open;
            while j < b.len() {
                match b[j] {
                    b'<' => depth += 1,
                    b'>' if b[j - 1] != b'-' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            if j >= b.len() {
                return out;
            }
            out.push((i, j + 1));
            i = j + 1;
            continue;
        }
        match b[i] {
            b'<' => angle += 1,
            b'>' if i > 0 && b[i - 1] != b'-' => angle = angle.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    out
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

    /// Conversions and recomputed producers, before any text is printed.
    // LinearLayout's only interior mutability is a lazily built evaluator
    // that Hash and Eq ignore.
    #[allow(clippy::mutable_key_type)]
    fn plan(&mut self) -> Result<()> {
        let p = self.p;
        for l in self.a.layouts.iter().flatten() {
            self.seen.push(l.clone());
        }
        for c in conversions(p, self.a)? {
            let name = self.fresh("%cvt");
            self.convert_names.push(name.clone());
            self.renamed
                .insert((c.value, c.dst.ll.clone()), name.clone());
            self.seen.push(c.dst.clone());
            self.after
                .entry(c.value)
                .or_default()
                .push(Inserted::Convert {
                    name,
                    value: c.value,
                    src: Box::new(c.src),
                    dst: Box::new(c.dst),
                });
            self.counts.0 += 1;
        }
        let mut remat: Vec<(OpId, usize)> = self
            .a
            .remat
            .iter()
            .filter(|(_, &r)| r)
            .map(|(&k, _)| k)
            .collect();
        remat.sort_unstable();
        for (o, i) in remat {
            let v = p.ops[o].operands[i];
            if let Some(l) = self.a.uses.get(&(o, i)).cloned() {
                self.recompute(v, &l, 0)?;
            }
        }
        for l in self.a.uses.values() {
            self.seen.push(l.clone());
        }
        Ok(())
    }

    /// The name of `v` recomputed in `l` (or `v` itself when it has `l`).
    fn recompute(&mut self, v: ValueId, l: &Layout, depth: usize) -> Result<String> {
        let p = self.p;
        if self.layout(v).is_some_and(|x| x.ll == l.ll) || !p.is_tensor(v) {
            return Ok(p.values[v].name.clone());
        }
        if let Some(n) = self.renamed.get(&(v, l.ll.clone())) {
            return Ok(n.clone());
        }
        if depth > p.ops.len() {
            return Err(unsupported(format!(
                "recomputing {}: cycle",
                p.values[v].name
            )));
        }
        let o = p.def_op(v).ok_or_else(|| {
            unsupported(format!(
                "{} is recomputed in another layout but has no defining op",
                p.values[v].name
            ))
        })?;
        let op = &p.ops[o];
        if op.results.len() != 1 || !op.regions.is_empty() {
            return Err(unsupported(format!(
                "line {}: cannot recompute {} in another layout",
                op.line, op.name
            )));
        }
        let mut operands = Vec::new();
        for (j, &w) in op.operands.iter().enumerate() {
            if !p.is_tensor(w) {
                operands.push((p.values[w].name.clone(), None));
                continue;
            }
            let lw = self.backward(o, j, l)?;
            let n = self.recompute(w, &lw, depth + 1)?;
            operands.push((n, Some(lw)));
        }
        let name = self.fresh(RECOMPUTED_PREFIX);
        self.renamed.insert((v, l.ll.clone()), name.clone());
        self.seen.push(l.clone());
        for lw in operands.iter().filter_map(|x| x.1.clone()) {
            self.seen.push(lw);
        }
        self.after.entry(v).or_default().push(Inserted::Recompute {
            name: name.clone(),
            op: o,
            layout: Box::new(l.clone()),
            operands,
        });
        self.counts.1 += 1;
        Ok(name)
    }

    /// The layout operand `j` of `o` has when `o`'s result has `l`.
    fn backward(&self, o: OpId, j: usize, l: &Layout) -> Result<Layout> {
        let p = self.p;
        let op = &p.ops[o];
        let w = op.operands[j];
        let ws: Vec<u64> = p.values[w].ty.tensor_shape().unwrap_or(&[]).to_vec();
        let linear = matches!(l.encoding, Encoding::Linear(_));
        Ok(match &op.kind {
            OpKind::Broadcast => {
                let want = collapse_dims(&l.ll, &ws)?;
                match (!linear).then(|| Layout::new(l.encoding.clone(), &ws)) {
                    Some(Ok(x)) if canon(&x.ll) == canon(&want) => x,
                    _ => Layout::from_ll(want),
                }
            }
            OpKind::ExpandDims { axis } => {
                let want = drop_dim(&l.ll, *axis)?;
                let slice = Encoding::Slice(Slice {
                    dim: *axis,
                    parent: Box::new(l.encoding.clone()),
                });
                match (!linear).then(|| Layout::new(slice, &ws)) {
                    Some(Ok(x)) if canon(&x.ll) == canon(&want) => x,
                    _ => Layout::from_ll(want),
                }
            }
            OpKind::Trans { order } => {
                let mut inv = vec![0; order.len()];
                for (k, &d) in order.iter().enumerate() {
                    if d < inv.len() {
                        inv[d] = k;
                    }
                }
                Layout::from_ll(transpose(&l.ll, &inv)?)
            }
            OpKind::Reshape => Layout::from_ll(reshape(&l.ll, &ws)?),
            OpKind::Join => Layout::from_ll(split(&l.ll)?),
            _ => l.clone(),
        })
    }

    // LinearLayout's only interior mutability is a lazily built evaluator
    // that Hash and Eq ignore.
    #[allow(clippy::mutable_key_type)]
    fn choose_canonical(&mut self) {
        for l in std::mem::take(&mut self.seen) {
            match self.canon.get(&l.ll) {
                Some(e) if family_rank(e) <= family_rank(&l.encoding) => {}
                _ => {
                    self.canon.insert(l.ll.clone(), l.encoding.clone());
                }
            }
        }
    }

    fn canonical(&self, l: &Layout) -> Encoding {
        self.canon
            .get(&l.ll)
            .cloned()
            .unwrap_or_else(|| l.encoding.clone())
    }

    /// Prints `l`'s map as `e` when `e` denotes exactly that map.
    fn prefer(&mut self, l: &Layout, e: Encoding, shape: &[u64]) -> bool {
        if self.canonical(l) == e {
            return false;
        }
        match Layout::new(e.clone(), shape) {
            Ok(x) if x.ll == l.ll => {
                self.canon.insert(l.ll.clone(), e);
                true
            }
            _ => false,
        }
    }

    /// Triton infers some result types from operand attributes (not maps):
    /// `expand_dims` takes a `#ttg.slice` of the result's attribute,
    /// `reduce` returns the slice of its operand's, `broadcast` keeps its
    /// operand's. Where the map allows it, the attributes printed are the
    /// ones Triton infers (a few rounds, each rule changing an attribute
    /// only to one of the same map).
    fn agree_with_inference(&mut self) {
        let p = self.p;
        // (op, its first operand's layout, its tensor results' layouts):
        // the program's ops and the recomputed copies.
        let mut sites: Vec<(OpId, Layout, Vec<Layout>)> = Vec::new();
        for o in p.walk() {
            let op = &p.ops[o];
            if p.in_combine_region(o) || op.operands.is_empty() || !p.is_tensor(op.operands[0]) {
                continue;
            }
            let Some(lo) = self.operand(o, 0).1 else {
                continue;
            };
            let res: Vec<Layout> = op
                .results
                .iter()
                .filter_map(|&r| self.layout(r).cloned())
                .collect();
            sites.push((o, lo, res));
        }
        for items in self.after.values() {
            for it in items {
                if let Inserted::Recompute {
                    op,
                    layout,
                    operands,
                    ..
                } = it
                {
                    if let Some(Some(lo)) = operands.first().map(|x| x.1.clone()) {
                        sites.push((*op, lo, vec![(**layout).clone()]));
                    }
                }
            }
        }
        for _round in 0..4 {
            let mut changed = false;
            for (o, lo, res) in &sites {
                let op = &p.ops[*o];
                let v = op.operands[0];
                let vs = p.values[v].ty.tensor_shape().unwrap_or(&[]).to_vec();
                let Some(lr) = res.first() else { continue };
                let rs = crate::shape_ops::out_shape(&lr.ll);
                match op.kind {
                    OpKind::ExpandDims { axis } => {
                        let s = Encoding::Slice(Slice {
                            dim: axis,
                            parent: Box::new(self.canonical(lr)),
                        });
                        if self.prefer(lo, s, &vs) {
                            changed = true;
                        } else if let Encoding::Slice(s) = self.canonical(lo) {
                            if s.dim == axis {
                                changed |= self.prefer(lr, *s.parent, &rs);
                            }
                        }
                    }
                    OpKind::Reduce { axis } => {
                        let parent = self.canonical(lo);
                        for lr in res {
                            let rs = crate::shape_ops::out_shape(&lr.ll);
                            let s = Encoding::Slice(Slice {
                                dim: axis,
                                parent: Box::new(parent.clone()),
                            });
                            changed |= self.prefer(lr, s, &rs);
                        }
                    }
                    OpKind::Broadcast => {
                        let e = self.canonical(lr);
                        if !self.prefer(lo, e, &vs) {
                            let e = self.canonical(lo);
                            changed |= self.prefer(lr, e, &rs);
                        } else {
                            changed = true;
                        }
                    }
                    _ => {}
                }
            }
            if !changed {
                break;
            }
        }
    }

    fn alias(&mut self, def: String, base: &str) -> String {
        if let Some((n, _)) = self.aliases.iter().find(|(_, d)| *d == def) {
            return n.clone();
        }
        let k = self
            .aliases
            .iter()
            .filter(|(n, _)| n.trim_start_matches('#').trim_end_matches(char::is_numeric) == base)
            .count();
        let n = if k == 0 {
            format!("#{base}")
        } else {
            format!("#{base}{k}")
        };
        self.aliases.push((n.clone(), def));
        n
    }

    /// An encoding as Triton prints it in a type: families by alias,
    /// slices and dot operands inline around their parent's alias.
    fn enc_text(&mut self, e: &Encoding) -> String {
        match e {
            Encoding::Slice(s) => {
                let inner = self.enc_text(&s.parent);
                e.to_mlir().replacen(&s.parent.to_mlir(), &inner, 1)
            }
            Encoding::DotOperand(d) => {
                let inner = self.enc_text(&d.parent);
                e.to_mlir().replacen(&d.parent.to_mlir(), &inner, 1)
            }
            _ => {
                let m = e.to_mlir();
                let base = match e {
                    Encoding::Blocked(_) => "blocked",
                    Encoding::NvidiaMma(_) | Encoding::AmdMfma(_) | Encoding::AmdWmma(_) => "mma",
                    Encoding::Linear(_) => "linear",
                    _ => "layout",
                };
                self.alias(m, base)
            }
        }
    }

    /// The printed encoding of a layout (the canonical attribute of its map).
    fn layout_text(&mut self, l: &Layout) -> String {
        if let Some(t) = self.printed.get(&l.ll) {
            return t.clone();
        }
        let e = self.canonical(l);
        let t = self.enc_text(&e);
        self.printed.insert(l.ll.clone(), t.clone());
        t
    }

    fn tensor_type(&mut self, v: ValueId, l: &Layout) -> String {
        let ty = &self.p.values[v].ty;
        let dims: String = ty
            .tensor_shape()
            .unwrap_or(&[])
            .iter()
            .map(|d| format!("{d}x"))
            .collect();
        let elem = ty.elem().to_string();
        format!("tensor<{dims}{elem}, {}>", self.layout_text(l))
    }

    /// `seg` with its k-th `tensor<…>` type given `slots[k]` (the last slot
    /// where there are fewer slots than types).
    fn retype(&mut self, seg: &str, slots: &[Option<Layout>]) -> String {
        let spans = tensor_spans(seg);
        if spans.is_empty() || slots.is_empty() {
            return seg.to_string();
        }
        let mut out = String::with_capacity(seg.len() + 32 * spans.len());
        let mut last = 0;
        for (k, &(s, e)) in spans.iter().enumerate() {
            out.push_str(&seg[last..s]);
            let slot = slots.get(k).or(slots.last()).cloned().flatten();
            let inner = &seg[s + "tensor<".len()..e - 1];
            match slot {
                Some(l) => {
                    let enc = self.layout_text(&l);
                    out.push_str(&format!("tensor<{inner}, {enc}>"));
                }
                None => out.push_str(&seg[s..e]),
            }
            last = e;
        }
        out.push_str(&seg[last..]);
        out
    }

    /// Slots of a type list: `ops -> res`, `op to res`, or one list.
    fn slots(
        &self,
        seg: &str,
        kind: &OpKind,
        ops: &[Option<Layout>],
        res: &[Option<Layout>],
    ) -> Vec<Option<Layout>> {
        let pick = |v: &[Option<Layout>], k: usize| v.get(k).or(v.last()).cloned().flatten();
        let split_at = find_top(seg, "->", 0)
            .ok()
            .flatten()
            .map(|i| (i, 2))
            .or_else(|| find_top(seg, " to ", 0).ok().flatten().map(|i| (i, 4)));
        if let Some((i, _)) = split_at {
            let nl = tensor_spans(&seg[..i]).len();
            let nr = tensor_spans(&seg[i..]).len();
            return (0..nl)
                .map(|k| pick(ops, k))
                .chain((0..nr).map(|k| pick(res, k)))
                .collect();
        }
        let n = tensor_spans(seg).len();
        if matches!(kind, OpKind::Yield | OpKind::Condition) || (n == ops.len() && n > 0) {
            return (0..n).map(|k| pick(ops, k)).collect();
        }
        let one = if res.is_empty() {
            pick(ops, 0)
        } else {
            pick(res, 0)
        };
        vec![one; n]
    }

    /// The reference and layout operand `i` of `o` reads.
    fn operand(&self, o: OpId, i: usize) -> (String, Option<Layout>) {
        let p = self.p;
        let v = p.ops[o].operands[i];
        let own = self.layout(v).cloned();
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

    /// One op line: results renamed by `lhs`, operands by `operands`,
    /// tensor types from the operand and result layouts.
    fn render(
        &mut self,
        o: OpId,
        lhs: Option<&str>,
        operands: &[(String, Option<Layout>)],
        results: &[Option<Layout>],
        raw: &str,
    ) -> String {
        let p = self.p;
        let op = &p.ops[o];
        let s = raw.trim();
        let (old_lhs, body) = match (s.starts_with('%'), s.find(" = ")) {
            (true, Some(eq)) => (&s[..eq], &s[eq + 3..]),
            _ => ("", s),
        };
        // Operand references, in order (region arguments named in a head
        // are not operands and stay).
        let mut b = String::with_capacity(body.len() + 16);
        let mut last = 0;
        let mut k = 0;
        for (st, en) in ref_spans(body) {
            if k < op.operands.len() && body[st..en] == p.values[op.operands[k]].name {
                b.push_str(&body[last..st]);
                b.push_str(&operands[k].0);
                last = en;
                k += 1;
            }
        }
        b.push_str(&body[last..]);
        let tensor_ops: Vec<Option<Layout>> = op
            .operands
            .iter()
            .zip(operands)
            .filter(|(&v, _)| p.is_tensor(v))
            .map(|(_, x)| x.1.clone())
            .collect();
        let tensor_res: Vec<Option<Layout>> = op
            .results
            .iter()
            .zip(results)
            .filter(|(&v, _)| p.is_tensor(v))
            .map(|(_, l)| l.clone())
            .collect();
        let typed_from = if b.trim_end().ends_with('{') {
            0
        } else {
            find_top(&b, " : ", op.line)
                .ok()
                .flatten()
                .unwrap_or(b.len())
        };
        let seg = b[typed_from..].to_string();
        let slots = self.slots(&seg, &op.kind, &tensor_ops, &tensor_res);
        let seg = self.retype(&seg, &slots);
        let body = format!("{}{seg}", &b[..typed_from]);
        let lhs = lhs.unwrap_or(old_lhs);
        if lhs.is_empty() {
            body
        } else {
            format!("{lhs} = {body}")
        }
    }

    fn memdesc(&mut self, v: ValueId) -> String {
        let ty = &self.p.values[v].ty;
        let shape = ty.tensor_shape().unwrap_or(&[]).to_vec();
        let elem = ty.elem().to_string();
        let bits = ty.elem_bits() as u64;
        let row = shape.last().copied().unwrap_or(1) * bits / 8;
        let swizzle = [128, 64, 32].into_iter().find(|&s| row >= s).unwrap_or(0);
        let shared = self.alias(
            format!(
                "#ttg.nvmma_shared<{{swizzlingByteWidth = {swizzle}, transposed = false, elementBitWidth = {bits}}}>"
            ),
            "shared",
        );
        let smem = self.alias("#ttg.shared_memory".to_string(), "smem");
        let dims: String = shape.iter().map(|d| format!("{d}x")).collect();
        format!("!ttg.memdesc<{dims}{elem}, {shared}, {smem}>")
    }

    /// `tt.dot` with a wgmma result as `ttng.warp_group_dot`, operands read
    /// from shared memory through `ttg.local_alloc`.
    fn warp_group_dot(&mut self, o: OpId, indent: &str, out: &mut String) -> Result<()> {
        let p = self.p;
        let op = &p.ops[o];
        let r = op.results[0];
        let res = self.layout(r).cloned();
        let mut refs = Vec::new();
        let mut tys = Vec::new();
        for i in 0..op.operands.len().min(3) {
            let v = op.operands[i];
            let (n, l) = self.operand(o, i);
            let l = l.ok_or_else(|| unsupported(format!("{} has no layout", p.values[v].name)))?;
            let t = self.tensor_type(v, &l);
            if i < 2 && self.a.shared_operands.contains(&(o, i)) {
                let m = self.fresh("%smem");
                let md = self.memdesc(v);
                out.push_str(&format!(
                    "{indent}{m} = ttg.local_alloc {n} : ({t}) -> {md}\n"
                ));
                self.counts.2 += 1;
                refs.push(m);
                tys.push(md);
            } else {
                refs.push(n);
                tys.push(t);
            }
        }
        let precision = match () {
            _ if op.text.contains("inputPrecision = tf32x3") => 1,
            _ if op.text.contains("inputPrecision = ieee") => 2,
            _ if op.text.contains("inputPrecision = bf16x3") => 3,
            _ => 0,
        };
        let mut attrs = format!("inputPrecision = {precision} : i32");
        if let Some(n) = crate::text::int_attr(&op.text, "maxNumImpreciseAcc") {
            attrs.push_str(&format!(", maxNumImpreciseAcc = {n} : i32"));
        }
        let rt = match &res {
            Some(l) => self.tensor_type(r, l),
            None => return Err(unsupported(format!("{} has no layout", p.values[r].name))),
        };
        if refs.len() < 3 {
            return Err(unsupported(format!(
                "line {}: dot without accumulator",
                op.line
            )));
        }
        out.push_str(&format!(
            "{indent}{} = ttng.warp_group_dot {}, {}, {} {{{attrs}}} : {} * {} -> {rt}\n",
            p.values[r].name, refs[0], refs[1], refs[2], tys[0], tys[1]
        ));
        Ok(())
    }

    fn emit_after(&mut self, values: &[ValueId], indent: &str, out: &mut String) {
        for &v in values {
            let Some(items) = self.after.remove(&v) else {
                continue;
            };
            for it in &items {
                match it {
                    Inserted::Convert {
                        name,
                        value,
                        src,
                        dst,
                    } => {
                        let (s, d) = (self.tensor_type(*value, src), self.tensor_type(*value, dst));
                        let n = &self.p.values[*value].name;
                        out.push_str(&format!(
                            "{indent}{name} = ttg.convert_layout {n} : {s} -> {d}\n"
                        ));
                    }
                    Inserted::Recompute {
                        name,
                        op,
                        layout,
                        operands,
                    } => {
                        let raw = self.p_line(*op);
                        let line = self.render(
                            *op,
                            Some(name),
                            operands,
                            &[Some((**layout).clone())],
                            &raw,
                        );
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
                }
                continue;
            }
            if s.starts_with("tt.func") {
                let slots: Vec<Option<Layout>> = p
                    .args
                    .iter()
                    .filter(|&&v| p.is_tensor(v))
                    .map(|&v| self.layout(v).cloned())
                    .collect();
                let l = self.retype(s, &slots);
                out.push_str(&format!("{indent}{l}\n"));
                stack.push(Frame::Other);
                self.emit_after(&p.args, &inner, &mut out);
                continue;
            }
            if let Some(rest) = s.strip_prefix('}') {
                let frame = stack.pop();
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
                    continue;
                }
                if rest.starts_with(')') {
                    let op = &p.ops[o];
                    let ops: Vec<Option<Layout>> = (0..op.operands.len())
                        .filter(|&k| p.is_tensor(op.operands[k]))
                        .map(|k| self.operand(o, k).1)
                        .collect();
                    let res: Vec<Option<Layout>> = op
                        .results
                        .iter()
                        .filter(|&&r| p.is_tensor(r))
                        .map(|&r| self.layout(r).cloned())
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
                    .map(|&v| self.layout(v).cloned())
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
            if p.in_combine_region(o) {
                out.push_str(raw);
                out.push('\n');
            } else if op.kind == OpKind::Dot
                && op
                    .results
                    .first()
                    .and_then(|&r| self.layout(r))
                    .is_some_and(
                        |l| matches!(&l.encoding, Encoding::NvidiaMma(m) if m.version_major == 3),
                    )
            {
                self.warp_group_dot(o, indent, &mut out)?;
            } else {
                let operands: Vec<(String, Option<Layout>)> =
                    (0..op.operands.len()).map(|k| self.operand(o, k)).collect();
                let results: Vec<Option<Layout>> = op
                    .results
                    .iter()
                    .map(|&r| self.layout(r).cloned())
                    .collect();
                let l = self.render(o, None, &operands, &results, raw);
                out.push_str(&format!("{indent}{l}\n"));
            }
            if opens {
                stack.push(Frame::Op(o));
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
        let left: usize = self.after.values().map(Vec::len).sum();
        if left > 0 {
            return Err(unsupported(format!(
                "{left} inserted ops found no definition to follow"
            )));
        }
        Ok(out)
    }
}

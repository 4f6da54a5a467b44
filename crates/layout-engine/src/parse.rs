//! The reader: Triton's printed TTIR (and TTGIR, whose tensor types carry
//! layouts and whose `#name = ...` aliases head the module) into a
//! [`Program`].
//!
//! MLIR prints one op per line; a line ending in `{` opens a region
//! (`tt.func`, `scf.for`/`if`/`while`, the generic `"tt.reduce"(...) ({`),
//! a line starting with `}` closes one (`} else {` and `} do {` open the
//! next region of the same op, `}) : (...) -> ...` gives a reduce or scan
//! its types). The reader keeps an explicit stack of open regions (no
//! recursion), bounded by [`MAX_DEPTH`]; an op outside [`classify`]'s list
//! is an [`EngineError::UnknownOp`] naming it and its line.

use crate::error::{EngineError, Result};
use crate::ir::{Def, Op, OpKind, Program, Region, Type, Value, ValueId};
use crate::text::{array_attr, find_top, int_attr, rfind_top, split_top, value_refs};

/// Deepest region nesting accepted (function, loops, ifs, combine regions).
pub const MAX_DEPTH: usize = 64;

/// The op family of an op name, or `None` for an op the engine does not know.
pub fn classify(name: &str, text: &str) -> Option<OpKind> {
    let axis = || int_attr(text, "axis").unwrap_or(0).max(0) as usize;
    Some(match name {
        "arith.constant" => OpKind::Constant,
        n if n.starts_with("arith.") || n.starts_with("math.") => OpKind::Elementwise,
        "tt.addptr"
        | "tt.bitcast"
        | "tt.clampf"
        | "tt.precise_divf"
        | "tt.precise_sqrt"
        | "tt.approx_divf"
        | "tt.fp_to_fp"
        | "tt.int_to_ptr"
        | "tt.ptr_to_int"
        | "tt.mulhiui"
        | "tt.extern_elementwise"
        | "tt.elementwise_inline_asm" => OpKind::Elementwise,
        "tt.get_program_id"
        | "tt.get_num_programs"
        | "tt.assert"
        | "tt.print"
        | "ttg.barrier"
        | "gpu.barrier" => OpKind::Scalar,
        "tt.make_range" => OpKind::MakeRange,
        "tt.splat" => OpKind::Splat,
        "tt.broadcast" => OpKind::Broadcast,
        "tt.expand_dims" => OpKind::ExpandDims { axis: axis() },
        "tt.load" => OpKind::Load,
        "tt.store" => OpKind::Store,
        "tt.atomic_rmw" | "tt.atomic_cas" => OpKind::Atomic,
        "tt.dot" => OpKind::Dot,
        "tt.dot_scaled" => OpKind::DotScaled,
        "tt.reduce" => OpKind::Reduce { axis: axis() },
        "tt.scan" => OpKind::Scan { axis: axis() },
        "tt.reduce.return" | "tt.scan.return" => OpKind::CombineReturn,
        "tt.trans" => OpKind::Trans {
            order: array_attr(text, "order")
                .unwrap_or_default()
                .into_iter()
                .map(|x| x.max(0) as usize)
                .collect(),
        },
        "tt.reshape" => OpKind::Reshape,
        "tt.join" => OpKind::Join,
        "tt.split" => OpKind::Split,
        "tt.gather" => OpKind::Gather { axis: axis() },
        "tt.histogram" => OpKind::Histogram,
        "tt.cat" => OpKind::Cat,
        "tt.make_tensor_descriptor"
        | "tt.descriptor_load"
        | "tt.descriptor_store"
        | "tt.descriptor_gather"
        | "tt.descriptor_scatter"
        | "tt.descriptor_reduce" => OpKind::Descriptor,
        "scf.for" => OpKind::For,
        "scf.if" => OpKind::If,
        "scf.while" => OpKind::While,
        "scf.yield" => OpKind::Yield,
        "scf.condition" => OpKind::Condition,
        "tt.return" => OpKind::Return,
        "ttg.convert_layout" => OpKind::ConvertLayout,
        "ttng.warp_group_dot" => OpKind::WarpGroupDot,
        "ttg.local_alloc"
        | "ttg.local_load"
        | "ttg.local_store"
        | "ttg.local_dealloc"
        | "ttg.memdesc_trans"
        | "ttg.memdesc_reshape"
        | "ttg.memdesc_index"
        | "ttg.memdesc_subslice"
        | "ttng.warp_group_dot_wait"
        | "ttng.fence_async_shared"
        | "ttg.async_copy_global_to_local"
        | "ttg.async_commit_group"
        | "ttg.async_wait"
        | "ttg.fp4_to_fp"
        | "ttg.upcast_mxfp"
        | "ttg.global_scratch_alloc"
        | "ttng.tensormap_create"
        | "ttng.tensormap_fenceproxy_acquire"
        | "ttng.reinterpret_tensor_descriptor"
        | "ttng.async_tma_copy_global_to_local"
        | "ttng.async_tma_copy_local_to_global"
        | "ttng.async_tma_store_wait"
        | "ttng.init_barrier"
        | "ttng.inval_barrier"
        | "ttng.barrier_expect"
        | "ttng.wait_barrier"
        | "ttng.arrive_barrier" => OpKind::Memory,
        _ => return None,
    })
}

/// Reads one `tt.func` from TTIR or TTGIR text.
///
/// ```
/// let p = layout_engine::parse::parse_program("module {
///   tt.func public @k(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
///     %0 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
///     %1 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
///     %2 = tt.addptr %1, %0 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
///     %3 = tt.load %2 : tensor<128x!tt.ptr<f32>>
///     tt.store %2, %3 : tensor<128x!tt.ptr<f32>>
///     tt.return
///   }
/// }").unwrap();
/// assert_eq!(p.ops.len(), 6);
/// assert_eq!(p.values[p.ops[3].results[0]].ty.elem(), "f32");
/// assert_eq!(p.arg_divisibility, vec![16]);
/// ```
pub fn parse_program(text: &str) -> Result<Program> {
    Reader::default().run(text)
}

enum Frame {
    Module,
    Func,
    /// An op whose last region is open.
    Op(usize),
}

#[derive(Default)]
struct Reader {
    p: Program,
    names: foldhash::HashMap<String, ValueId>,
    aliases: Vec<(String, String)>,
    stack: Vec<Frame>,
    seen_func: bool,
    /// Types already read, by their text (a kernel repeats a few types on
    /// every line); emptied when an alias is defined.
    types: std::cell::RefCell<foldhash::HashMap<String, Type>>,
}

fn perr(line: usize, message: impl Into<String>) -> EngineError {
    EngineError::Parse {
        line,
        message: message.into(),
    }
}

impl Reader {
    fn run(mut self, text: &str) -> Result<Program> {
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let s = raw.trim();
            // Source locations (`#loc3 = loc(...)` lines, `loc(...)` after
            // ops and arguments) carry no semantics.
            let loc_alias = s.starts_with("#loc")
                && s.split_once(" = ")
                    .is_some_and(|(_, d)| d.trim_start().starts_with("loc("));
            if s.is_empty() || s.starts_with("//") || loc_alias {
                continue;
            }
            self.line(&crate::text::strip_locations(s), line)?;
        }
        if !self.seen_func {
            return Err(perr(text.lines().count().max(1), "no tt.func found"));
        }
        if self.stack.iter().any(|f| !matches!(f, Frame::Module)) {
            return Err(perr(
                text.lines().count().max(1),
                "input ends inside an open region",
            ));
        }
        Ok(self.p)
    }

    fn depth_check(&self, line: usize) -> Result<()> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(EngineError::TooDeep {
                line,
                max: MAX_DEPTH,
            });
        }
        Ok(())
    }

    fn line(&mut self, s: &str, line: usize) -> Result<()> {
        if let Some(rest) = s.strip_prefix('#') {
            let (name, def) = rest
                .split_once(" = ")
                .ok_or_else(|| perr(line, format!("malformed alias '{s}'")))?;
            let def = self.resolve(def.trim());
            self.aliases.push((name.trim().to_string(), def));
            self.types.borrow_mut().clear();
            return Ok(());
        }
        if s.starts_with("module") {
            self.depth_check(line)?;
            if let Some(n) = int_attr(s, "\"ttg.num-warps\"") {
                self.p.num_warps = Some(n.max(0) as u64);
            }
            if let Some(n) = int_attr(s, "\"ttg.threads-per-warp\"") {
                self.p.threads_per_warp = Some(n.max(0) as u64);
            }
            if s.ends_with('{') {
                self.stack.push(Frame::Module);
            }
            return Ok(());
        }
        if s.starts_with('}') {
            return self.close(s, line);
        }
        if s.starts_with("^bb") {
            return self.block_args(s, line);
        }
        if s.starts_with("tt.func") {
            return self.func(s, line);
        }
        if !matches!(self.stack.last(), Some(Frame::Func | Frame::Op(_))) {
            return Err(perr(line, format!("op outside a function: '{s}'")));
        }
        self.op(s, line)
    }

    /// Replaces `#alias` references by their definitions.
    fn resolve(&self, s: &str) -> String {
        if !s.contains('#') || self.aliases.is_empty() {
            return s.to_string();
        }
        let mut out = String::with_capacity(s.len());
        let mut rest = s;
        while let Some(i) = rest.find('#') {
            out.push_str(&rest[..i]);
            let after = &rest[i + 1..];
            let n = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            let name = &after[..n];
            let dotted = after[n..].starts_with('.');
            match self.aliases.iter().find(|(a, _)| a == name) {
                Some((_, def)) if !dotted => out.push_str(def),
                _ => {
                    out.push('#');
                    out.push_str(name);
                }
            }
            rest = &after[n..];
        }
        out.push_str(rest);
        out
    }

    fn parse_type(&self, s: &str, line: usize) -> Result<Type> {
        let s = s.trim();
        if let Some(t) = self.types.borrow().get(s) {
            return Ok(t.clone());
        }
        let t = self.parse_type_uncached(s, line)?;
        self.types.borrow_mut().insert(s.to_string(), t.clone());
        Ok(t)
    }

    fn parse_type_uncached(&self, s: &str, line: usize) -> Result<Type> {
        if let Some(inner) = s.strip_prefix("tensor<").and_then(|x| x.strip_suffix('>')) {
            let parts = split_top(inner, ',', line)?;
            let (shape, elem) = shape_and_elem(parts.first().copied().unwrap_or(""), line)?;
            let encoding = parts.get(1).map(|e| self.resolve(e));
            return Ok(Type::Tensor {
                shape,
                elem,
                encoding,
            });
        }
        if let Some(inner) = s
            .strip_prefix("!ttg.memdesc<")
            .and_then(|x| x.strip_suffix('>'))
        {
            let parts = split_top(inner, ',', line)?;
            let (shape, elem) = shape_and_elem(parts.first().copied().unwrap_or(""), line)?;
            return Ok(Type::MemDesc { shape, elem });
        }
        if s.is_empty() {
            return Err(perr(line, "missing type"));
        }
        Ok(Type::Scalar(s.to_string()))
    }

    fn define(&mut self, name: &str, ty: Type, def: Def) -> ValueId {
        let id = self.p.values.len();
        self.p.values.push(Value {
            name: name.to_string(),
            ty,
            def,
        });
        self.names.insert(name.to_string(), id);
        id
    }

    fn lookup(&self, name: &str, line: usize) -> Result<ValueId> {
        self.names
            .get(name)
            .copied()
            .ok_or_else(|| EngineError::Undefined {
                line,
                name: name.to_string(),
            })
    }

    fn current_region(&mut self) -> &mut Region {
        match self.stack.last() {
            Some(Frame::Op(o)) => {
                let o = *o;
                let op = &mut self.p.ops[o];
                if op.regions.is_empty() {
                    op.regions.push(Region::default());
                }
                op.regions.last_mut().expect("pushed above")
            }
            _ => &mut self.p.body,
        }
    }

    fn loop_depth_and_parent(&self) -> (usize, Option<usize>) {
        let mut depth = 0;
        let mut parent = None;
        for f in self.stack.iter().rev() {
            if let Frame::Op(o) = f {
                if parent.is_none() {
                    parent = Some(*o);
                }
                if matches!(self.p.ops[*o].kind, OpKind::For | OpKind::While) {
                    depth += 1;
                }
            }
        }
        (depth, parent)
    }

    fn func(&mut self, s: &str, line: usize) -> Result<()> {
        self.depth_check(line)?;
        if self.seen_func {
            return Err(EngineError::Unsupported(format!(
                "line {line}: a second tt.func (one function per program)"
            )));
        }
        self.seen_func = true;
        let at = s
            .find('@')
            .ok_or_else(|| perr(line, "tt.func without @name"))?;
        let open = s[at..]
            .find('(')
            .map(|i| i + at)
            .ok_or_else(|| perr(line, "tt.func without an argument list"))?;
        self.p.name = s[at + 1..open].to_string();
        // The argument list is the bracket group starting at `open`.
        let inner = matching_group(s, open, line)?;
        for (k, a) in split_top(inner, ',', line)?.into_iter().enumerate() {
            let (name, rest) = a
                .split_once(':')
                .ok_or_else(|| perr(line, format!("malformed argument '{a}'")))?;
            let rest = rest.trim();
            let (ty, attrs) = match find_top(rest, "{", line)? {
                Some(i) => (&rest[..i], &rest[i..]),
                None => (rest, ""),
            };
            let ty = self.parse_type(ty, line)?;
            let div = int_attr(attrs, "tt.divisibility").unwrap_or(1).max(1) as u64;
            let id = self.define(name.trim(), ty, Def::FuncArg(k));
            self.p.args.push(id);
            self.p.arg_divisibility.push(div);
        }
        if !s.ends_with('{') {
            return Err(perr(line, "tt.func without a body"));
        }
        self.stack.push(Frame::Func);
        Ok(())
    }

    fn block_args(&mut self, s: &str, line: usize) -> Result<()> {
        let Some(Frame::Op(o)) = self.stack.last() else {
            return Err(perr(line, "block arguments outside an op region"));
        };
        let o = *o;
        let open = s.find('(').ok_or_else(|| perr(line, "malformed block"))?;
        let inner = matching_group(s, open, line)?;
        let region = self.p.ops[o].regions.len().saturating_sub(1);
        let first = self.current_region().args.len();
        for (k, a) in split_top(inner, ',', line)?.into_iter().enumerate() {
            let (name, ty) = a
                .split_once(':')
                .ok_or_else(|| perr(line, format!("malformed block argument '{a}'")))?;
            let ty = self.parse_type(ty, line)?;
            let id = self.define(
                name.trim(),
                ty,
                Def::RegionArg {
                    op: o,
                    region,
                    index: first + k,
                },
            );
            self.current_region().args.push(id);
        }
        Ok(())
    }

    fn close(&mut self, s: &str, line: usize) -> Result<()> {
        let frame = self
            .stack
            .pop()
            .ok_or_else(|| perr(line, "'}' without an open region"))?;
        let Frame::Op(o) = frame else {
            return Ok(());
        };
        let rest = s[1..].trim();
        if rest.ends_with('{') && (rest.starts_with("else") || rest.starts_with("do")) {
            self.p.ops[o].regions.push(Region::default());
            self.stack.push(Frame::Op(o));
            return Ok(());
        }
        if let Some(types) = rest.strip_prefix(')') {
            // `}) : (operand types) -> result types` of a generic op.
            let types = types.trim().strip_prefix(':').unwrap_or(types).trim();
            let res = match find_top(types, "->", line)? {
                Some(i) => &types[i + 2..],
                None => types,
            };
            let res = strip_parens(res.trim());
            let tys = split_top(res, ',', line)?;
            let results = self.p.ops[o].results.clone();
            if tys.len() != results.len() {
                return Err(perr(
                    line,
                    format!(
                        "{} gives {} result types for {} results",
                        self.p.ops[o].name,
                        tys.len(),
                        results.len()
                    ),
                ));
            }
            for (v, t) in results.into_iter().zip(tys) {
                self.p.values[v].ty = self.parse_type(t, line)?;
            }
        }
        Ok(())
    }

    fn op(&mut self, s: &str, line: usize) -> Result<()> {
        // Results.
        let (result_names, body) = split_results(s, line)?;
        // Op name (generic form in quotes).
        let (name, rest) = if let Some(q) = body.strip_prefix('"') {
            let end = q
                .find('"')
                .ok_or_else(|| perr(line, "unterminated op name"))?;
            (&q[..end], &q[end + 1..])
        } else {
            let end = body.find([' ', '(']).unwrap_or(body.len());
            (&body[..end], &body[end..])
        };
        let rest = rest.trim();
        let kind = classify(name, rest).ok_or_else(|| EngineError::UnknownOp {
            line,
            op: name.to_string(),
        })?;
        let opens = rest.ends_with('{');
        if opens {
            self.depth_check(line)?;
        }
        let (loop_depth, parent) = self.loop_depth_and_parent();
        let id = self.p.ops.len();
        let mut op = Op {
            name: name.to_string(),
            kind: kind.clone(),
            line,
            operands: vec![],
            results: vec![],
            regions: vec![],
            loop_depth,
            parent,
            text: rest.to_string(),
        };
        let mut region_args: Vec<(String, Type)> = Vec::new();
        let result_types: Vec<Type> = match kind {
            OpKind::For => {
                // scf.for %iv = %lb to %ub step %st [iter_args(%a = %x, ..)] [-> (T..)] : Tiv {
                let head = rest.trim_end_matches('{').trim();
                let colon = rfind_top(head, " : ", line)?
                    .ok_or_else(|| perr(line, "scf.for without an induction type"))?;
                let iv_ty = self.parse_type(&head[colon + 3..], line)?;
                let head = &head[..colon];
                let (head, res_tys) = match find_top(head, "->", line)? {
                    Some(i) => (&head[..i], self.type_list(&head[i + 2..], line)?),
                    None => (head, vec![]),
                };
                let refs = value_refs(head);
                let iv = refs
                    .first()
                    .ok_or_else(|| perr(line, "scf.for without an induction variable"))?;
                region_args.push((iv.to_string(), iv_ty));
                let (bounds, iters) = match head.find("iter_args(") {
                    Some(i) => (&head[..i], &head[i..]),
                    None => (head, ""),
                };
                for r in value_refs(bounds).into_iter().skip(1) {
                    op.operands.push(self.lookup(r, line)?);
                }
                let pairs = value_refs(iters);
                if pairs.len() & 1 == 1 || pairs.len() / 2 != res_tys.len() {
                    return Err(perr(
                        line,
                        "scf.for iter_args do not match its result types",
                    ));
                }
                for (k, pair) in pairs.chunks(2).enumerate() {
                    region_args.push((pair[0].to_string(), res_tys[k].clone()));
                    op.operands.push(self.lookup(pair[1], line)?);
                }
                res_tys
            }
            OpKind::While => {
                // scf.while (%a = %x, ..) : (T..) -> (R..) {
                let head = rest.trim_end_matches('{').trim();
                let arrow = find_top(head, "->", line)?
                    .ok_or_else(|| perr(line, "scf.while without result types"))?;
                let res_tys = self.type_list(&head[arrow + 2..], line)?;
                // `scf.while (%a = %x, ..) : (T..) -> ..` or `scf.while : () -> ()`.
                let colon = rfind_top(&head[..arrow], ":", line)?
                    .ok_or_else(|| perr(line, "scf.while without operand types"))?;
                let arg_tys = self.type_list(&head[colon + 1..arrow], line)?;
                let pairs = value_refs(&head[..colon]);
                if pairs.len() & 1 == 1 || pairs.len() / 2 != arg_tys.len() {
                    return Err(perr(line, "scf.while arguments do not match their types"));
                }
                for (k, pair) in pairs.chunks(2).enumerate() {
                    region_args.push((pair[0].to_string(), arg_tys[k].clone()));
                    op.operands.push(self.lookup(pair[1], line)?);
                }
                res_tys
            }
            OpKind::If => {
                let head = rest.trim_end_matches('{').trim();
                let (cond, res_tys) = match find_top(head, "->", line)? {
                    Some(i) => (&head[..i], self.type_list(&head[i + 2..], line)?),
                    None => (head, vec![]),
                };
                for r in value_refs(cond) {
                    op.operands.push(self.lookup(r, line)?);
                }
                res_tys
            }
            OpKind::Reduce { .. } | OpKind::Scan { .. } if opens => {
                for r in value_refs(rest) {
                    op.operands.push(self.lookup(r, line)?);
                }
                // Types arrive on the closing `}) : ...` line.
                vec![Type::Scalar(String::new()); result_names.len()]
            }
            _ => {
                if opens {
                    return Err(perr(line, format!("{name} does not take a region")));
                }
                // `op : T` (no operands, `ttg.local_alloc : () -> ..`) or
                // `op OPERANDS : T`.
                let (operand_text, types) = match rest.strip_prefix(": ") {
                    Some(t) => ("", t.trim()),
                    None => match find_top(rest, " : ", line)? {
                        Some(i) => (&rest[..i], rest[i + 3..].trim()),
                        None => (rest, ""),
                    },
                };
                for r in value_refs(operand_text) {
                    op.operands.push(self.lookup(r, line)?);
                }
                self.result_types(name, &kind, types, result_names.len(), line)?
            }
        };
        if result_types.len() != result_names.len() {
            return Err(perr(
                line,
                format!(
                    "{name} has {} results but {} result types",
                    result_names.len(),
                    result_types.len()
                ),
            ));
        }
        self.p.ops.push(op);
        self.current_region().ops.push(id);
        for (k, (n, t)) in result_names.iter().zip(result_types).enumerate() {
            let v = self.define(n, t, Def::Result { op: id, index: k });
            self.p.ops[id].results.push(v);
        }
        if opens {
            self.p.ops[id].regions.push(Region::default());
            self.stack.push(Frame::Op(id));
            for (k, (n, t)) in region_args.into_iter().enumerate() {
                let v = self.define(
                    &n,
                    t,
                    Def::RegionArg {
                        op: id,
                        region: 0,
                        index: k,
                    },
                );
                self.current_region().args.push(v);
            }
        }
        Ok(())
    }

    fn type_list(&self, s: &str, line: usize) -> Result<Vec<Type>> {
        split_top(strip_parens(s.trim()), ',', line)?
            .into_iter()
            .map(|t| self.parse_type(t, line))
            .collect()
    }

    /// Result types from an op's trailing type text (see the module doc).
    fn result_types(
        &self,
        name: &str,
        kind: &OpKind,
        types: &str,
        n: usize,
        line: usize,
    ) -> Result<Vec<Type>> {
        if n == 0 {
            return Ok(vec![]);
        }
        if let Some(i) = find_top(types, "->", line)? {
            let tys = self.type_list(&types[i + 2..], line)?;
            // tt.split: one type for both halves.
            if tys.len() == 1 && n > 1 {
                return Ok(vec![tys[0].clone(); n]);
            }
            return Ok(tys);
        }
        if let Some(i) = find_top(types, " to ", line)? {
            return Ok(vec![self.parse_type(&types[i + 4..], line)?]);
        }
        // `arith.constant true` prints no type.
        if name == "arith.constant" && types.is_empty() {
            return Ok(vec![Type::Scalar("i1".into()); n]);
        }
        let list = split_top(types, ',', line)?;
        let last = list
            .last()
            .ok_or_else(|| perr(line, format!("{name} without a type")))?;
        let t = match (kind, name) {
            (_, "arith.cmpi" | "arith.cmpf") => match self.parse_type(last, line)? {
                Type::Tensor {
                    shape, encoding, ..
                } => Type::Tensor {
                    shape,
                    elem: "i1".into(),
                    encoding,
                },
                _ => Type::Scalar("i1".into()),
            },
            (OpKind::Load, _) => {
                let first = list.first().copied().unwrap_or(last);
                match self.parse_type(first, line)? {
                    Type::Tensor {
                        shape,
                        elem,
                        encoding,
                    } => Type::Tensor {
                        shape,
                        elem: pointee(&elem),
                        encoding,
                    },
                    Type::Scalar(e) => Type::Scalar(pointee(&e)),
                    t => t,
                }
            }
            // `tt.addptr %p, %off : PTR_TYPE, OFFSET_TYPE`: the result is the pointer's type.
            (_, "tt.addptr") => self.parse_type(list[0], line)?,
            (OpKind::Descriptor, "tt.make_tensor_descriptor") => {
                Type::Scalar(format!("!tt.tensordesc{last}"))
            }
            _ => self.parse_type(last, line)?,
        };
        Ok(vec![t; n])
    }
}

/// `!tt.ptr<f16>` → `f16`; anything else unchanged.
fn pointee(e: &str) -> String {
    e.strip_prefix("!tt.ptr<")
        .and_then(|x| x.strip_suffix('>'))
        .map(str::to_string)
        .unwrap_or_else(|| e.to_string())
}

fn strip_parens(s: &str) -> &str {
    s.strip_prefix('(')
        .and_then(|x| x.strip_suffix(')'))
        .unwrap_or(s)
}

/// The text inside the bracket group opening at byte `open` of `s`.
fn matching_group(s: &str, open: usize, line: usize) -> Result<&str> {
    let b = s.as_bytes();
    let mut depth = 0usize;
    for (i, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b'<' => depth += 1,
            b'>' if i > 0 && b[i - 1] == b'-' => {}
            b'>' | b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Ok(&s[open + 1..i]);
                }
            }
            _ => {}
        }
    }
    Err(perr(line, "unbalanced brackets"))
}

/// Splits `%a, %b = rest` / `%5:2 = rest` into result names and the rest.
fn split_results(s: &str, line: usize) -> Result<(Vec<String>, &str)> {
    if !s.starts_with('%') {
        return Ok((vec![], s));
    }
    let eq = s
        .find(" = ")
        .ok_or_else(|| perr(line, format!("malformed op '{s}'")))?;
    let mut names = Vec::new();
    for part in s[..eq].split(',') {
        let part = part.trim();
        if let Some((base, count)) = part.split_once(':') {
            let count: usize = count
                .parse()
                .map_err(|_| perr(line, format!("malformed result count in '{part}'")))?;
            if count > 4096 {
                return Err(perr(line, format!("{count} results")));
            }
            names.extend((0..count).map(|k| format!("{base}#{k}")));
        } else {
            names.push(part.to_string());
        }
    }
    if names.iter().any(|n| n.len() < 2 || !n.starts_with('%')) {
        return Err(perr(line, format!("malformed results in '{s}'")));
    }
    Ok((names, s[eq + 3..].trim()))
}

/// `64x64x!tt.ptr<f16>` → (`[64, 64]`, `!tt.ptr<f16>`).
fn shape_and_elem(s: &str, line: usize) -> Result<(Vec<u64>, String)> {
    let mut shape = Vec::new();
    let mut rest = s.trim();
    loop {
        let n = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if n == 0 || !rest[n..].starts_with('x') {
            break;
        }
        let d: u64 = rest[..n]
            .parse()
            .map_err(|_| perr(line, format!("dimension '{}' too large", &rest[..n])))?;
        if d == 0 {
            return Err(perr(line, format!("zero dimension in '{s}'")));
        }
        shape.push(d);
        if shape.len() > 32 {
            return Err(perr(line, format!("rank above 32 in '{s}'")));
        }
        rest = &rest[n + 1..];
    }
    if rest.is_empty() {
        return Err(perr(line, format!("no element type in '{s}'")));
    }
    Ok((shape, rest.to_string()))
}

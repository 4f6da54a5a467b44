//! One op's text: operand references rewired, every `tensor<…>` type
//! given its printed attribute by position (`operands -> results`,
//! `operand to result`, or one list), and wgmma dots with their
//! `ttg.local_alloc` operands.

use super::{unsupported, Printer};
use crate::assignment::Layout;
use crate::error::Result;
use crate::ir::{OpId, OpKind, ValueId};
use crate::text::{find_top, value_ref_spans};

/// Byte spans `(start, end)` of the `tensor<…>` types of `s` that are not
/// nested in another `<…>` (a tensor inside `!tt.tensordesc<…>` is the
/// descriptor's block type, which carries no distributed layout).
pub(super) fn tensor_spans(s: &str) -> Vec<(usize, usize)> {
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

impl Printer<'_> {
    pub(super) fn tensor_type(&mut self, v: ValueId, l: &Layout) -> String {
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
    pub(super) fn retype(&mut self, seg: &str, slots: &[Option<Layout>]) -> String {
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
    pub(super) fn slots(
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

    /// One op line: results renamed by `lhs`, operands by `operands`,
    /// tensor types from the operand and result layouts.
    pub(super) fn render(
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
        for (st, en) in value_ref_spans(body) {
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

    pub(super) fn memdesc(&mut self, v: ValueId) -> String {
        self.memdesc_of(v, None, false)
    }

    /// The memdesc of `v` written from registers in `regs`, in Triton's
    /// NVMMA shared layout: row-major (`transposed = false`) unless `regs`
    /// holds a rank-2 tile contiguous along dim 0 ([`column_contiguous`]), which is
    /// stored column-major (`transposed = true`) so that each thread's
    /// consecutive elements stay consecutive in memory, as Triton chooses
    /// from the register layout's order. The swizzle is the widest of 128,
    /// 64, 32 bytes that the contiguous dim fills. With `view`, the view of
    /// that allocation with its two dims exchanged (`ttg.memdesc_trans`):
    /// the same bytes, the other `transposed`. Measured on the H200
    /// (2026-11-25, `bench/engine-gpu`, case 075): a column-contiguous
    /// `128x32` tile stored row-major with a 64-byte swizzle ran the
    /// attention backward kernel at 0.62x Triton's.
    pub(super) fn memdesc_of(
        &mut self,
        v: ValueId,
        regs: Option<&crate::assignment::Layout>,
        view: bool,
    ) -> String {
        let ty = &self.p.values[v].ty;
        let mut shape = ty.tensor_shape().unwrap_or(&[]).to_vec();
        let elem = ty.elem().to_string();
        let bits = ty.elem_bits() as u64;
        let col_major = shape.len() == 2 && regs.is_some_and(column_contiguous);
        let contiguous = if col_major {
            shape[0]
        } else {
            shape.last().copied().unwrap_or(1)
        };
        let row = contiguous * bits / 8;
        let swizzle = [128, 64, 32].into_iter().find(|&s| row >= s).unwrap_or(0);
        let transposed = col_major != view;
        if view {
            shape.reverse();
        }
        let shared = self.alias(
            format!(
                "#ttg.nvmma_shared<{{swizzlingByteWidth = {swizzle}, transposed = {transposed}, elementBitWidth = {bits}}}>"
            ),
            "shared",
        );
        let smem = self.alias("#ttg.shared_memory".to_string(), "smem");
        let dims: String = shape.iter().map(|d| format!("{d}x")).collect();
        format!("!ttg.memdesc<{dims}{elem}, {shared}, {smem}>")
    }

    /// `tt.dot` with a wgmma result as `ttng.warp_group_dot`, operands read
    /// from shared memory through `ttg.local_alloc`.
    pub(super) fn warp_group_dot(&mut self, o: OpId, indent: &str, out: &mut String) -> Result<()> {
        let p = self.p;
        let op = &p.ops[o];
        let r = op.results[0];
        let n_ops = op.operands.len().min(3);
        // Operands read from shared memory are memdescs, not spelled.
        let operands: Vec<(String, Option<Layout>)> = (0..n_ops)
            .map(|i| {
                let (n, l) = self.operand(o, i);
                let shared = i < 2 && self.a.shared_operands.contains(&(o, i));
                (n, if shared { None } else { l })
            })
            .collect();
        let results = [(p.values[r].name.clone(), self.layout(r).cloned())];
        let sp = self.spell_op(o, &operands, &results, indent, out);
        let res = sp.results.first().cloned().flatten();
        let mut refs = Vec::new();
        let mut tys = Vec::new();
        for (i, (n, _)) in operands.iter().enumerate() {
            let v = op.operands[i];
            if let Some((m, md)) = self.smem_refs.get(&(o, i)) {
                refs.push(m.clone());
                tys.push(md.clone());
            } else if i < 2 && self.a.shared_operands.contains(&(o, i)) {
                let n = n.clone();
                let l = self.operand(o, i).1;
                let l =
                    l.ok_or_else(|| unsupported(format!("{} has no layout", p.values[v].name)))?;
                let l = self.spelled_as(&n, &l);
                let t = self.tensor_type(v, &l);
                let m = self.fresh("%smem");
                let md = self.memdesc(v);
                out.push_str(&format!(
                    "{indent}{m} = ttg.local_alloc {n} : ({t}) -> {md}\n"
                ));
                self.counts.2 += 1;
                refs.push(m);
                tys.push(md);
            } else {
                let (n, l) = sp.operands[i].clone();
                let l =
                    l.ok_or_else(|| unsupported(format!("{} has no layout", p.values[v].name)))?;
                let t = self.tensor_type(v, &l);
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
}

/// Whether a rank-2 register layout is contiguous along dim 0: a blocked
/// layout whose `order` starts with dim 0 (Triton's rule); another layout
/// when a thread's first register basis steps one element along dim 0
/// (consecutive elements in a thread), else, when it steps along neither
/// dim by one, the first lane basis does.
fn column_contiguous(l: &crate::assignment::Layout) -> bool {
    use linear_layout::DimName;
    if let hw_layouts::Encoding::Blocked(b) = &*l.encoding {
        return b.order.first() == Some(&0);
    }
    for d in [DimName::REGISTER, DimName::LANE] {
        if !l.ll.has_in_dim(d) {
            continue;
        }
        match l.ll.bases(d).first().map(|b| b.as_slice()) {
            Some([1, 0]) => return true,
            Some([0, 1]) => return false,
            _ => {}
        }
    }
    false
}

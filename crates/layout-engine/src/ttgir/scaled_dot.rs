//! `tt.dot_scaled` printed as Triton 3.9's decomposition, so that the
//! printed TTGIR compiles on targets without a scaled MMA (sm80, sm90),
//! with the layouts of [`crate::scaled_dot`].
//!
//! The ops are those Triton 3.9's pre-pipeline TTGIR holds for a bf16 dot
//! with a scaled fp4 operand (the corpora's `dot_scaled` records), in its
//! order: the operands (and the accumulator) transposed when the
//! product is, `ttg.fp4_to_fp` of the packed operand, the scale widened to
//! bf16 (`arith.extui` to i16, `arith.shli` by 7 into the exponent,
//! `arith.maxui` with 64, the smallest scale's bf16 bits, `tt.bitcast`;
//! unless `fastMath`, `math.fma(s, 0, s)`, which turns the NaN scale's
//! infinity into NaN), reshaped `[X, K/f] → [X, K/f, 1]`, broadcast to
//! `[X, K/f, f]`, reshaped to `[X, K]` and multiplied in; then `tt.dot`
//! (mma v2) or `ttng.warp_group_dot` (wgmma, the other operand through
//! `ttg.local_alloc`, transposed by `ttg.memdesc_trans`), and the result
//! transposed back. An fp8 operand (`e4m3`, `e5m2`) is reinterpreted
//! (`tt.bitcast` of its bytes) and widened by `tt.fp_to_fp` instead of
//! `fp4_to_fp`. Other kinds (fp16 compute, an fp4, fp8 or scaled operand 1
//! of the decomposed dot) print the `tt.dot_scaled` op itself
//! ([`Printer::decomposition`] answers `None`).

use super::{unsupported, Printer, DECOMPOSED_PREFIX};
use crate::anchors::Target;
use crate::assignment::Layout;
use crate::error::Result;
use crate::ir::OpId;
use crate::scaled_dot::{fp8_type, scaled_dot_layout, ScaledDotChoice};
use crate::shape_ops;
use hw_layouts::Encoding;

/// `transpose` order text of a rank-2 `tt.trans`.
const ORDER: &str = "{order = array<i32: 1, 0>}";

impl Printer<'_> {
    /// The decomposition op `o` prints as, if it is a `tt.dot_scaled` of a
    /// kind this module prints (module doc).
    pub(super) fn decomposition(
        &self,
        o: OpId,
        target: Target,
        num_warps: u64,
    ) -> Option<ScaledDotChoice> {
        let p = self.p;
        let op = &p.ops[o];
        let c = scaled_dot_layout(p, op, target, num_warps)?;
        let [f0, f1] = &c.frame;
        let printable = (matches!(f0.ty.as_str(), "bf16" | "e2m1") || fp8_type(&f0.ty).is_some())
            && f1.ty == "bf16"
            && f1.scale.is_none()
            && (f0.ty == "e2m1") == f0.packed.is_some()
            && f0.enc.is_some()
            && p.values[op.results[0]].ty.elem() == "f32";
        printable.then_some(c)
    }

    /// `tensor<SHAPExELEM, L>`.
    fn ty(&mut self, shape: &[u64], elem: &str, l: &Layout) -> String {
        let dims: String = shape.iter().map(|d| format!("{d}x")).collect();
        format!("tensor<{dims}{elem}, {}>", self.layout_text(l))
    }

    /// Prints `tt.dot_scaled` op `o` as the decomposition `c`
    /// ([`Printer::decomposition`]).
    pub(super) fn scaled_dot(
        &mut self,
        o: OpId,
        c: &ScaledDotChoice,
        indent: &str,
        out: &mut String,
    ) -> Result<()> {
        let p = self.p;
        let op = &p.ops[o];
        let fast_math = op.text.contains("fastMath = true");
        let mut refs = Vec::new();
        let mut tys = Vec::new();
        for (idx, fo) in c.frame.iter().enumerate() {
            let v = op.operands[fo.operand];
            let (name, l) = self.operand(o, fo.operand);
            let l = l.ok_or_else(|| unsupported(format!("{name} has no layout")))?;
            let l = self.spelled_as(&name, &l);
            let vshape = p.values[v].ty.tensor_shape().unwrap_or(&[]).to_vec();
            let velem = p.values[v].ty.elem().to_string();
            let src_ty = self.ty(&vshape, &velem, &l);
            let Some(enc) = &fo.enc else {
                // wgmma's B: through shared memory.
                let m = self.fresh("%smem");
                let md = self.memdesc_of(v, Some(&l), false);
                out.push_str(&format!(
                    "{indent}{m} = ttg.local_alloc {name} : ({src_ty}) -> {md}\n"
                ));
                self.counts.2 += 1;
                if c.transposed {
                    let t = self.fresh("%smem");
                    let view = self.memdesc_of(v, Some(&l), true);
                    out.push_str(&format!(
                        "{indent}{t} = ttg.memdesc_trans {m} {ORDER} : {md} -> {view}\n"
                    ));
                    refs.push(t);
                    tys.push(view);
                } else {
                    refs.push(m);
                    tys.push(md);
                }
                continue;
            };
            let in_enc = fo.packed.clone().unwrap_or_else(|| enc.clone());
            let in_shape = if fo.packed.is_some() {
                if idx == 0 {
                    [fo.shape[0], fo.shape[1] / 2]
                } else {
                    [fo.shape[0] / 2, fo.shape[1]]
                }
            } else {
                fo.shape
            };
            let in_l = Layout::new(in_enc, &in_shape)?;
            let in_ty = self.ty(&in_shape, &velem, &in_l);
            let mut cur = self.fresh(DECOMPOSED_PREFIX);
            if c.transposed {
                out.push_str(&format!(
                    "{indent}{cur} = tt.trans {name} {ORDER} : {src_ty} -> {in_ty}\n"
                ));
            } else {
                // The same map, spelled as the dot operand (no data moves).
                out.push_str(&format!(
                    "{indent}{cur} = ttg.convert_layout {name} : {src_ty} -> {in_ty}\n"
                ));
                self.counts.3 += 1;
            }
            let enc_l = Layout::new(enc.clone(), &fo.shape)?;
            let op_ty = self.ty(&fo.shape, "bf16", &enc_l);
            if let Some(f8) = fp8_type(&fo.ty) {
                // `tt.fp_to_fp` reads the fp8 type: the loaded bytes are
                // reinterpreted first.
                if velem != f8 {
                    let b = self.fresh(DECOMPOSED_PREFIX);
                    let bty = self.ty(&in_shape, f8, &in_l);
                    out.push_str(&format!(
                        "{indent}{b} = tt.bitcast {cur} : {in_ty} -> {bty}\n"
                    ));
                    cur = b;
                }
                let bty = self.ty(&in_shape, f8, &in_l);
                let u = self.fresh(DECOMPOSED_PREFIX);
                out.push_str(&format!(
                    "{indent}{u} = tt.fp_to_fp {cur} : {bty} -> {op_ty}\n"
                ));
                cur = u;
            }
            if fo.packed.is_some() {
                let u = self.fresh(DECOMPOSED_PREFIX);
                let axis = if idx == 0 { 1 } else { 0 };
                out.push_str(&format!(
                    "{indent}{u} = ttg.fp4_to_fp {cur} {{axis = {axis} : i32}} : {in_ty} -> {op_ty}\n"
                ));
                cur = u;
            }
            if let Some(s) = fo.scale {
                cur = self.scale_chain(o, s, &cur, &fo.shape, &enc_l, fast_math, indent, out)?;
            }
            refs.push(cur);
            tys.push(op_ty);
        }
        // The accumulator, in the dot's frame.
        let dshape = [c.frame[0].shape[0], c.frame[1].shape[1]];
        let mma = Layout::new(c.mma.clone(), &dshape)?;
        let cv = op.operands[c.accumulator];
        let celem = p.values[cv].ty.elem().to_string();
        let acc_ty = self.ty(&dshape, &celem, &mma);
        let (cn, cl) = self.operand(o, c.accumulator);
        let cl = cl.ok_or_else(|| unsupported(format!("{cn} has no layout")))?;
        let cl = self.spelled_as(&cn, &cl);
        let cshape = p.values[cv].ty.tensor_shape().unwrap_or(&[]).to_vec();
        let c_ty = self.ty(&cshape, &celem, &cl);
        let acc = self.fresh(DECOMPOSED_PREFIX);
        if c.transposed {
            out.push_str(&format!(
                "{indent}{acc} = tt.trans {cn} {ORDER} : {c_ty} -> {acc_ty}\n"
            ));
        } else {
            out.push_str(&format!(
                "{indent}{acc} = ttg.convert_layout {cn} : {c_ty} -> {acc_ty}\n"
            ));
            self.counts.3 += 1;
        }
        let r = op.results[0];
        let rname = p.values[r].name.clone();
        let dot = if c.transposed {
            self.fresh(DECOMPOSED_PREFIX)
        } else {
            rname.clone()
        };
        let wgmma = matches!(&c.mma, Encoding::NvidiaMma(m) if m.version_major == 3);
        if wgmma {
            out.push_str(&format!(
                "{indent}{dot} = ttng.warp_group_dot {}, {}, {acc} {{inputPrecision = 0 : i32}} : {} * {} -> {acc_ty}\n",
                refs[0], refs[1], tys[0], tys[1]
            ));
        } else {
            out.push_str(&format!(
                "{indent}{dot} = tt.dot {}, {}, {acc} : {} * {} -> {acc_ty}\n",
                refs[0], refs[1], tys[0], tys[1]
            ));
        }
        if c.transposed {
            let rl = self
                .value_spelled(r)
                .ok_or_else(|| unsupported(format!("{rname} has no layout")))?;
            let rshape = p.values[r].ty.tensor_shape().unwrap_or(&[]).to_vec();
            let r_ty = self.ty(&rshape, &celem, &rl);
            out.push_str(&format!(
                "{indent}{rname} = tt.trans {dot} {ORDER} : {acc_ty} -> {r_ty}\n"
            ));
            self.define(&rname, &rl);
        } else {
            self.define(&rname, &mma);
        }
        Ok(())
    }

    /// The scale of a dot operand of shape `shape = [X, K]` in `enc_l`,
    /// widened, broadcast and multiplied into `value` (module doc); the
    /// product's name.
    #[allow(clippy::too_many_arguments)]
    fn scale_chain(
        &mut self,
        o: OpId,
        s: usize,
        value: &str,
        shape: &[u64; 2],
        enc_l: &Layout,
        fast_math: bool,
        indent: &str,
        out: &mut String,
    ) -> Result<String> {
        let p = self.p;
        let sv = p.ops[o].operands[s];
        let sshape = p.values[sv].ty.tensor_shape().unwrap_or(&[]).to_vec();
        let selem = p.values[sv].ty.elem().to_string();
        let (sn, sl) = self.operand(o, s);
        let sl = sl.ok_or_else(|| unsupported(format!("{sn} has no layout")))?;
        let sl = self.spelled_as(&sn, &sl);
        let (x, k) = (shape[0], shape[1]);
        let blocks = sshape.get(1).copied().unwrap_or(0);
        if sshape.len() != 2 || blocks == 0 || k % blocks != 0 {
            return Err(unsupported(format!("scale {sn} of shape {sshape:?}")));
        }
        let f = k / blocks;
        let t8 = self.ty(&sshape, &selem, &sl);
        let t16 = self.ty(&sshape, "i16", &sl);
        let tbf = self.ty(&sshape, "bf16", &sl);
        let mut line = |pr: &mut Self, text: String| -> String {
            let n = pr.fresh(DECOMPOSED_PREFIX);
            out.push_str(&format!("{indent}{n} = {text}\n"));
            n
        };
        let e = line(self, format!("arith.extui {sn} : {t8} to {t16}"));
        let c7 = line(self, format!("arith.constant dense<7> : {t16}"));
        let sh = line(self, format!("arith.shli {e}, {c7} : {t16}"));
        let c64 = line(self, format!("arith.constant dense<64> : {t16}"));
        let mx = line(self, format!("arith.maxui {sh}, {c64} : {t16}"));
        let mut bf = line(self, format!("tt.bitcast {mx} : {t16} -> {tbf}"));
        if !fast_math {
            let z = line(self, format!("arith.constant dense<0.000000e+00> : {tbf}"));
            bf = line(self, format!("math.fma {bf}, {z}, {bf} : {tbf}"));
        }
        let l3 = Layout::from_ll(shape_ops::reshape(&enc_l.ll, &[x, blocks, f])?);
        let t3a = self.ty(&[x, blocks, 1], "bf16", &l3);
        let t3b = self.ty(&[x, blocks, f], "bf16", &l3);
        let top = self.ty(shape, "bf16", enc_l);
        let r3 = line(
            self,
            format!("tt.reshape {bf} efficient_layout : {tbf} -> {t3a}"),
        );
        let bc = line(self, format!("tt.broadcast {r3} : {t3a} -> {t3b}"));
        let r2 = line(self, format!("tt.reshape {bc} : {t3b} -> {top}"));
        Ok(line(self, format!("arith.mulf {value}, {r2} : {top}")))
    }
}

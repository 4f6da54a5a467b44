//! `tt.dot_scaled` on targets without a scaled MMA (sm80, sm90): the
//! layouts of Triton 3.9's decomposition (AccelerateMatmul's
//! `DecomposeScaledBlocked`), without rewriting the program.
//!
//! Triton lowers `D = (A · 2^sA) · (B · 2^sB) + C` as a plain dot of 16-bit
//! operands (the compute type: fp16 if either side is fp16, else bf16):
//! an fp4 (`e2m1`, two values per byte along K) operand is unpacked by
//! `ttg.fp4_to_fp`, an fp8 one widened by `tt.fp_to_fp`, and a scale `s`
//! of shape `[X, K / f]` (`X` the operand's non-K dim, `f` the block size,
//! 32 for mx formats) is widened to the compute type, broadcast along a
//! new last dim to `f`, reshaped to the operand's shape, and multiplied in.
//! Every step after the scale's load is elementwise or a view, so each
//! input's layout is a linear map of the dot operand's:
//!
//! * **Which dot.** With only B scaled (A a plain 16-bit operand), Triton
//!   computes the transposed product `Dᵀ = Bᵀ · Aᵀ` so that the unpacked
//!   operand is opIdx 0; otherwise `D = A · B`. (Observed with Triton 3.9
//!   compiling `bf16 × e2m1`, `bf16 × e4m3`, `e2m1 × bf16`, `e4m3 × bf16`,
//!   `e2m1 × e2m1` and `e4m3 × e4m3` for sm80 and sm90.) The dot of shape
//!   `[P, Q]` (`[N, M]` transposed) takes the anchors of an ordinary 16-bit
//!   dot ([`crate::anchors::dot_layout_with_warps`]); on mma v2 its
//!   operands have `kWidth = 32 / 4 = 8` when an fp4 operand is present
//!   (AccelerateMatmul's original bit width of an `fp4_to_fp` slice is 4),
//!   else `32 / 8` or `32 / 16`.
//! * **Operands.** An operand in registers (mma v2 both, wgmma opIdx 0)
//!   wants its `#ttg.dot_op` layout; an fp4 one, before `fp4_to_fp`, the
//!   same `dot_op` with half the `kWidth` on its packed shape (K halved);
//!   transposed back to the program's orientation when the dot is.
//!   wgmma's opIdx 1 is read from shared memory: no layout is wanted.
//! * **Scales.** With `U` the operand's 16-bit layout in the dot's frame,
//!   opIdx 0 `[X, K]`: `reshape(U, [X, K/f, f])`, dim 2 collapsed (the
//!   broadcast seen backward), `reshape` to `[X, K/f]`; opIdx 1 `[K, X]`:
//!   `reshape(U, [K/f, f, X])`, dim 1 collapsed, reshaped to `[K/f, X]`
//!   and transposed to `[X, K/f]` (Triton takes B's scale as `[N, K/f]`
//!   and transposes it first). All-zero register bases are dropped.
//!
//! `tests/anchors_corpus.rs` compares the result, operand and scale layouts
//! with Triton's pre-pipeline TTGIR on every `dot_scaled` record.
//! Targets other than sm80/sm90 and ranks other than 2 are not modelled
//! ([`scaled_dot_layout`] returns `None`).

use crate::anchors::{dot_layout_with_warps, DotChain, Target};
use crate::ir::{Op, OpKind, Program, ValueId};
use crate::shape_ops;
use crate::text::value_refs;
use hw_layouts::Encoding;
use linear_layout::LinearLayout;

/// The operands of one `tt.dot_scaled`: `a [scale sa], b [scale sb], c
/// lhs = TA rhs = TB`, as operand indices of the op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScaledDotOperands {
    /// A's operand index (always 0).
    pub a: usize,
    /// A's scale, if given.
    pub a_scale: Option<usize>,
    /// B's operand index.
    pub b: usize,
    /// B's scale, if given.
    pub b_scale: Option<usize>,
    /// The accumulator's operand index.
    pub c: usize,
    /// `lhs = …`: `bf16`, `fp16`, `e2m1`, `e4m3`, `e5m2`.
    pub lhs: String,
    /// `rhs = …`.
    pub rhs: String,
}

/// Reads the operand structure of a `tt.dot_scaled` op; `None` when its
/// text does not have the form `a [scale sa], b [scale sb], c lhs = TA rhs
/// = TB`.
pub fn scaled_dot_operands(op: &Op) -> Option<ScaledDotOperands> {
    if op.kind != OpKind::DotScaled {
        return None;
    }
    let t = &op.text;
    let lhs_at = t.find(" lhs = ")?;
    let ty = |key: &str| -> Option<String> {
        let at = t.find(key)? + key.len();
        let word: String = t[at..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        (!word.is_empty()).then_some(word)
    };
    let (lhs, rhs) = (ty(" lhs = ")?, ty(" rhs = ")?);
    let head = &t[..lhs_at];
    // Split at the top-level commas: three groups, each `%v` or `%v scale %s`.
    let groups: Vec<&str> = head.split(',').collect();
    if groups.len() != 3 {
        return None;
    }
    let counts: Vec<usize> = groups.iter().map(|g| value_refs(g).len()).collect();
    if counts[2] != 1 || !(1..=2).contains(&counts[0]) || !(1..=2).contains(&counts[1]) {
        return None;
    }
    if counts.iter().sum::<usize>() != op.operands.len() {
        return None;
    }
    let a_scale = (counts[0] == 2).then_some(1);
    let b = counts[0];
    let b_scale = (counts[1] == 2).then_some(b + 1);
    Some(ScaledDotOperands {
        a: 0,
        a_scale,
        b,
        b_scale,
        c: b + counts[1],
        lhs,
        rhs,
    })
}

/// One operand of the decomposed dot, in the dot's frame (opIdx 0: `[P,
/// K]`, opIdx 1: `[K, Q]`).
#[derive(Clone, Debug)]
pub struct FrameOperand {
    /// The `tt.dot_scaled` operand index of the value.
    pub operand: usize,
    /// The operand index of its scale, if any.
    pub scale: Option<usize>,
    /// Its element kind (`bf16`, `fp16`, `e2m1`, `e4m3`, `e5m2`).
    pub ty: String,
    /// Its 16-bit `#ttg.dot_op` encoding when read from registers (`None`:
    /// wgmma's shared-memory operand).
    pub enc: Option<Encoding>,
    /// For `e2m1`: the encoding of the packed bytes before `fp4_to_fp`.
    pub packed: Option<Encoding>,
    /// Its 16-bit shape in the dot's frame.
    pub shape: [u64; 2],
}

/// The elementwise ops of Triton's decomposition of `tt.dot_scaled` op `op`
/// (module doc) that cost instructions: `(operand index, op name, registers
/// per register of that operand as the dot reads it)`, 16-bit results all.
/// A scaled operand is multiplied by its broadcast scale (`arith.mulf`;
/// an fp4 operand has two 16-bit values per byte read), an fp8 one first
/// widened (`tt.fp_to_fp`); each scale is widened by `arith.extui`,
/// `arith.shli` and `arith.maxui`, and, unless `fastMath`, `math.fma`.
/// Bitcasts, reshapes, broadcasts, transposes and `ttg.fp4_to_fp` are not
/// listed (`layout_engine::compute` counts them as renamings or not at
/// all, in Triton's TTGIR alike). Empty when the op's form is not read.
pub fn decomposition_ops(op: &Op) -> Vec<(usize, &'static str, u64)> {
    let Some(f) = scaled_dot_operands(op) else {
        return Vec::new();
    };
    let fast_math = op.text.contains("fastMath = true");
    let mut ops = Vec::new();
    for (v, scale, ty) in [(f.a, f.a_scale, &f.lhs), (f.b, f.b_scale, &f.rhs)] {
        let per = if is_fp4(ty) { 2 } else { 1 };
        if fp8_type(ty).is_some() {
            ops.push((v, "tt.fp_to_fp", per));
        }
        if let Some(s) = scale {
            ops.push((v, "arith.mulf", per));
            ops.extend(["arith.extui", "arith.shli", "arith.maxui"].map(|n| (s, n, 1)));
            if !fast_math {
                ops.push((s, "math.fma", 1));
            }
        }
    }
    ops
}

/// The layouts Triton's decomposition of a `tt.dot_scaled` gives its result
/// and wants of its operands (module doc).
#[derive(Clone, Debug)]
pub struct ScaledDotChoice {
    /// Whether Triton computes the transposed product `Bᵀ · Aᵀ`.
    pub transposed: bool,
    /// The decomposed dot's operands, opIdx 0 then 1.
    pub frame: [FrameOperand; 2],
    /// The decomposed dot's accumulator encoding (shape `[N, M]` when
    /// transposed).
    pub mma: Encoding,
    /// The result's (and the accumulator's) layout, shape `[M, N]`.
    pub result: LinearLayout,
    /// The accumulator's operand index.
    pub accumulator: usize,
    /// `(operand index, layout)` for every operand read in registers, the
    /// scales included; the accumulator is not listed.
    pub wants: Vec<(usize, LinearLayout)>,
}

fn is_fp4(ty: &str) -> bool {
    ty == "e2m1"
}

/// The MLIR element type of an fp8 kind (`e4m3`, `e5m2`), `None` for the
/// others.
pub fn fp8_type(ty: &str) -> Option<&'static str> {
    match ty {
        "e4m3" => Some("f8E4M3FN"),
        "e5m2" => Some("f8E5M2"),
        _ => None,
    }
}

fn elem_bits_of(ty: &str) -> u32 {
    match ty {
        "e2m1" => 4,
        t if fp8_type(t).is_some() => 8,
        _ => 16,
    }
}

/// The layouts of a `tt.dot_scaled` of result shape `[M, N]` (module doc),
/// for `num_warps` warps; `None` on targets or ranks the module does not
/// model, or shapes that do not fit (an odd scale block).
pub fn scaled_dot_layout(
    p: &Program,
    op: &Op,
    target: Target,
    num_warps: u64,
) -> Option<ScaledDotChoice> {
    if target == Target::Gfx942 {
        return None;
    }
    let form = scaled_dot_operands(op)?;
    let shape = |v: ValueId| p.values[v].ty.tensor_shape().map(<[u64]>::to_vec);
    let rs = shape(*op.results.first()?)?;
    let (ash, bsh) = (shape(op.operands[form.a])?, shape(op.operands[form.b])?);
    if rs.len() != 2 || ash.len() != 2 || bsh.len() != 2 {
        return None;
    }
    let (m, n) = (rs[0], rs[1]);
    let k = ash[1] * if is_fp4(&form.lhs) { 2 } else { 1 };
    let transposed = form.a_scale.is_none() && form.b_scale.is_some();
    let dshape = if transposed { [n, m] } else { [m, n] };
    let orig = elem_bits_of(&form.lhs).min(elem_bits_of(&form.rhs));
    let choice = dot_layout_with_warps(
        target,
        &dshape,
        k,
        16,
        false,
        DotChain::default(),
        num_warps,
        None,
    )
    .with_mma_v2_operand_bits(orig);
    let r = choice.result.to_linear_layout(&dshape).ok()?;
    let result = if transposed {
        shape_ops::transpose(&r, &[1, 0]).ok()?
    } else {
        r
    };
    let reg_a = choice.a.clone().or(choice.a_in_registers.clone());
    // Dot-frame operand idx → (program operand, its scale, its type, encoding).
    let frame = if transposed {
        [
            (form.b, form.b_scale, &form.rhs, reg_a),
            (form.a, form.a_scale, &form.lhs, choice.b.clone()),
        ]
    } else {
        [
            (form.a, form.a_scale, &form.lhs, reg_a),
            (form.b, form.b_scale, &form.rhs, choice.b.clone()),
        ]
    };
    let mut wants = Vec::new();
    let mut operands = Vec::new();
    for (idx, (v, scale, ty, enc)) in frame.into_iter().enumerate() {
        let x = dshape[idx];
        let full = if idx == 0 { [x, k] } else { [k, x] };
        let mut fo = FrameOperand {
            operand: v,
            scale,
            ty: ty.clone(),
            enc: enc.clone(),
            packed: None,
            shape: full,
        };
        let Some(enc) = enc else {
            operands.push(fo);
            continue;
        };
        let u = enc.to_linear_layout(&full).ok()?;
        let value = if is_fp4(ty) {
            let Encoding::DotOperand(mut d) = enc.clone() else {
                return None;
            };
            if d.k_width < 2 {
                return None;
            }
            d.k_width /= 2;
            let packed = if idx == 0 { [x, k / 2] } else { [k / 2, x] };
            let e = Encoding::DotOperand(d);
            let l = e.to_linear_layout(&packed).ok()?;
            fo.packed = Some(e);
            l
        } else {
            u.clone()
        };
        let value = if transposed {
            shape_ops::transpose(&value, &[1, 0]).ok()?
        } else {
            value
        };
        wants.push((v, value));
        if let Some(s) = scale {
            let ssh = shape(op.operands[s])?;
            if ssh.len() != 2 || ssh[1] == 0 || k % ssh[1] != 0 {
                return None;
            }
            let blocks = ssh[1];
            let f = k / blocks;
            let l = if idx == 0 {
                let l = shape_ops::reshape(&u, &[x, blocks, f]).ok()?;
                let l = shape_ops::collapse_dims(&l, &[x, blocks, 1]).ok()?;
                shape_ops::reshape(&l, &[x, blocks]).ok()?
            } else {
                let l = shape_ops::reshape(&u, &[blocks, f, x]).ok()?;
                let l = shape_ops::collapse_dims(&l, &[blocks, 1, x]).ok()?;
                let l = shape_ops::reshape(&l, &[blocks, x]).ok()?;
                shape_ops::transpose(&l, &[1, 0]).ok()?
            };
            wants.push((s, shape_ops::canon(&l)));
        }
        operands.push(fo);
    }
    let frame: [FrameOperand; 2] = operands.try_into().ok()?;
    Some(ScaledDotChoice {
        transposed,
        frame,
        mma: choice.result,
        result,
        accumulator: form.c,
        wants,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_program;

    /// A kernel of one `tt.dot_scaled` on constants.
    fn kernel(a: &str, b: &str, sa: bool, sb: bool, lhs: &str, rhs: &str) -> Program {
        let scale = "tensor<128x2xi8>";
        let bscale = "tensor<64x2xi8>";
        let a_op = if sa { "%a scale %sa" } else { "%a" };
        let b_op = if sb { "%b scale %sb" } else { "%b" };
        let mut types = format!("{a} * {b}");
        if sa {
            types.push_str(&format!(", {scale}"));
        }
        if sb {
            types.push_str(&format!(", {bscale}"));
        }
        parse_program(&format!(
            "module {{
  tt.func public @k() {{
    %c = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
    %a = arith.constant dense<0> : {a}
    %b = arith.constant dense<0> : {b}
    %sa = arith.constant dense<0> : {scale}
    %sb = arith.constant dense<0> : {bscale}
    %d = tt.dot_scaled {a_op}, {b_op}, %c lhs = {lhs} rhs = {rhs} {{fastMath = false}} : {types} -> tensor<128x64xf32>
    tt.return
  }}
}}"
        ))
        .unwrap()
    }

    /// `bf16 × e2m1`, B scaled (Triton transposes the product).
    fn bf16_e2m1() -> Program {
        kernel(
            "tensor<128x64xbf16>",
            "tensor<32x64xi8>",
            false,
            true,
            "bf16",
            "e2m1",
        )
    }

    /// `e2m1 × bf16`, A scaled.
    fn e2m1_bf16() -> Program {
        kernel(
            "tensor<128x32xi8>",
            "tensor<64x64xbf16>",
            true,
            false,
            "e2m1",
            "bf16",
        )
    }

    fn dot(p: &Program) -> &Op {
        p.ops.iter().find(|o| o.kind == OpKind::DotScaled).unwrap()
    }

    fn warps(c: &ScaledDotChoice) -> Vec<u64> {
        match &c.mma {
            Encoding::NvidiaMma(m) => m.warps_per_cta.clone(),
            e => panic!("not an mma: {e:?}"),
        }
    }

    #[test]
    fn reads_which_operand_is_scaled() {
        let p = bf16_e2m1();
        let f = scaled_dot_operands(dot(&p)).unwrap();
        assert_eq!(
            (f.a, f.a_scale, f.b, f.b_scale, f.c),
            (0, None, 1, Some(2), 3)
        );
        assert_eq!((f.lhs.as_str(), f.rhs.as_str()), ("bf16", "e2m1"));
        let p = e2m1_bf16();
        let f = scaled_dot_operands(dot(&p)).unwrap();
        assert_eq!(
            (f.a, f.a_scale, f.b, f.b_scale, f.c),
            (0, Some(1), 2, None, 3)
        );
    }

    /// The warps Triton 3.9 gave these dots (sm80 and sm90, 4 warps,
    /// `bf16 × e2m1` transposed to a 64x128 dot, `e2m1 × bf16` not).
    #[test]
    fn transposes_when_only_b_is_scaled() {
        let p = bf16_e2m1();
        let c = scaled_dot_layout(&p, dot(&p), Target::Sm80, 4).unwrap();
        assert!(c.transposed);
        assert_eq!(warps(&c), vec![1, 4]);
        let c = scaled_dot_layout(&p, dot(&p), Target::Sm90, 4).unwrap();
        assert_eq!(warps(&c), vec![4, 1]);
        // A (bf16) is wgmma's shared-memory operand: only B and its scale.
        assert_eq!(c.wants.iter().map(|w| w.0).collect::<Vec<_>>(), vec![1, 2]);
        let p = e2m1_bf16();
        let c = scaled_dot_layout(&p, dot(&p), Target::Sm80, 4).unwrap();
        assert!(!c.transposed);
        assert_eq!(warps(&c), vec![2, 2]);
        assert_eq!(c.wants.len(), 3);
        assert!(scaled_dot_layout(&p, dot(&p), Target::Gfx942, 4).is_none());
    }
}

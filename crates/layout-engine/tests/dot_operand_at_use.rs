//! A conversion into a register dot operand (`#ttg.dot_op` of an mma v2
//! or blocked accumulator) of more than 32 registers per thread is
//! printed inside the loop of the dot that reads it, never hoisted above
//! it (`assignment::converts_at_use`): a hoisted operand stays live in
//! registers through the loop, and the sm80 attention kernels spilled for
//! it.

mod common;

use hw_layouts::Encoding;
use layout_engine::anchors::Target;
use layout_engine::cost::Pricer;
use layout_engine::engine::{assign, Options};
use layout_engine::ir::{OpKind, Type};
use layout_engine::ttgir::print_ttgir;
use layout_engine::{parse_program, Layout};
use linear_layout::DimName;

/// The 32-bit registers per thread of a printed type whose attribute is
/// a register dot operand (`None` for any other type).
fn register_dot_operand(ty: &Type) -> Option<u64> {
    let Type::Tensor {
        shape,
        encoding: Some(text),
        ..
    } = ty
    else {
        return None;
    };
    let Ok(e @ Encoding::DotOperand(_)) = Encoding::parse(text) else {
        return None;
    };
    let Encoding::DotOperand(d) = &e else {
        return None;
    };
    let in_registers = match d.parent.as_ref() {
        Encoding::NvidiaMma(m) => m.version_major < 3,
        Encoding::Blocked(_) => true,
        _ => false,
    };
    let l = Layout::new(e.clone(), shape).ok()?;
    let elems = l.ll.in_dim_size(DimName::REGISTER);
    in_registers.then(|| (elems * u64::from(ty.elem_bits())).div_ceil(32))
}

#[test]
fn register_dot_operands_convert_in_the_dots_loop() {
    let mut pricer = Pricer::new();
    let (mut checked, mut in_loops) = (0, 0);
    for r in common::records() {
        let ttir = r["ttir"].as_str().unwrap();
        if r["target"] != "sm80" || !ttir.contains("tt.dot ") || !ttir.contains("scf.for") {
            continue;
        }
        let id = common::id(&r);
        let p = parse_program(ttir).unwrap();
        let nw = r["options"]["num_warps"].as_u64().unwrap();
        let opts = Options::new(Target::Sm80, nw);
        let out = assign(&p, opts, &mut pricer).unwrap();
        let g = print_ttgir(&p, ttir, &out.assignment, Target::Sm80, nw).unwrap();
        let q = parse_program(&g.text).unwrap();
        for (o, op) in q.ops.iter().enumerate() {
            if op.kind != OpKind::ConvertLayout {
                continue;
            }
            let Some(&res) = op.results.first() else {
                continue;
            };
            let Some(regs) = register_dot_operand(&q.values[res].ty) else {
                continue;
            };
            if regs <= 32 {
                continue;
            }
            for (u, user) in q.ops.iter().enumerate() {
                if user.kind != OpKind::Dot || !user.operands.contains(&res) {
                    continue;
                }
                assert_eq!(
                    op.loop_depth, user.loop_depth,
                    "{id}: conversion op {o} at depth {} feeds the dot (op {u}) at depth {}",
                    op.loop_depth, user.loop_depth
                );
                checked += 1;
                in_loops += usize::from(user.loop_depth > 0);
            }
        }
    }
    assert!(checked >= 10 && in_loops >= 10, "{checked} {in_loops}");
}

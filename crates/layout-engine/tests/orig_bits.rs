//! mma v2 operands take AccelerateMatmul's kWidth: `32 / min(orig bits of A,
//! orig bits of B)` (`anchors::orig_bit_width`), checked against what Triton
//! 3.9 gave five small sm80 kernels (`tests/data/orig_bits.ndjson`, made by
//! `tools/orig_bits.py`): a bf16 operand cast from an i8 load, scaled by an
//! i8-loaded vector, joined from two i8 loads (no halving at the join),
//! joined from two bf16 loads, and plain bf16.

mod common;

use hw_layouts::Encoding;
use layout_engine::anchors::{orig_bit_width, Target};
use layout_engine::cost::Pricer;
use layout_engine::engine::{assign, Options};
use layout_engine::ir::OpKind;
use layout_engine::ttgir::print_ttgir;
use layout_engine::{parse_program, Assignment};

#[test]
fn dot_operands_take_tritons_k_width() {
    let records = common::records_in("orig_bits.ndjson");
    assert_eq!(records.len(), 5);
    let mut pricer = Pricer::new();
    for r in &records {
        let name = r["name"].as_str().unwrap();
        let want = r["k_width"].as_u64().unwrap() as u32;
        let ttir = r["ttir"].as_str().unwrap();
        let p = parse_program(ttir).unwrap();
        let dot = p
            .walk()
            .into_iter()
            .find(|&o| p.ops[o].kind == OpKind::Dot)
            .expect("a dot");
        let (a, b) = (p.ops[dot].operands[0], p.ops[dot].operands[1]);
        let bits = orig_bit_width(&p, a).min(orig_bit_width(&p, b));
        assert_eq!(32 / bits, want, "{name}: orig bits {bits}");
        // The engine's printed TTGIR, read back: both operands of the dot.
        let opts = Options::new(Target::Sm80, 4);
        let out = assign(&p, opts, &mut pricer).unwrap();
        let g = print_ttgir(&p, ttir, &out.assignment, Target::Sm80, 4).unwrap();
        let gp = parse_program(&g.text).unwrap();
        let ga = Assignment::from_types(&gp).unwrap();
        let gdot = gp
            .walk()
            .into_iter()
            .find(|&o| gp.ops[o].kind == OpKind::Dot)
            .expect("a dot in the TTGIR");
        for i in 0..2 {
            let l = ga.layout(gp.ops[gdot].operands[i]).expect("operand layout");
            match &*l.encoding {
                Encoding::DotOperand(d) => assert_eq!(d.k_width, want, "{name}: operand {i}"),
                e => panic!("{name}: operand {i} is {e:?}"),
            }
        }
    }
}

//! Axis analysis of `x / c` (the packed-fp4 pointer `k / 2 + range`):
//! checked against the arithmetic by hand, including divisors that break
//! the fact.

use layout_engine::axis::analyse;
use layout_engine::parse_program;

/// The divisibility of the value named `name` in a loop over `k` from 0
/// with step `step`, where `name = k / div`.
fn divisibility(step: u32, div: u32) -> u64 {
    let ttir = format!(
        "module {{
  tt.func public @k(%arg0: i32) {{
    %c0_i32 = arith.constant 0 : i32
    %cs = arith.constant {step} : i32
    %cd = arith.constant {div} : i32
    scf.for %arg1 = %c0_i32 to %arg0 step %cs  : i32 {{
      %0 = arith.divsi %arg1, %cd : i32
      %1 = tt.splat %0 : i32 -> tensor<64xi32>
      %2 = tt.make_range {{end = 64 : i32, start = 0 : i32}} : tensor<64xi32>
      %3 = arith.addi %1, %2 : tensor<64xi32>
    }}
    tt.return
  }}
}}"
    );
    let p = parse_program(&ttir).expect("reads");
    let info = analyse(&p);
    let v = p.values.iter().position(|v| v.name == "%0").expect("%0");
    info[v].divisibility[0]
}

#[test]
fn division_by_a_constant_divisor_keeps_the_quotient_divisibility() {
    // k = 128·j: k / 2 = 64·j, k / 128 = j.
    assert_eq!(divisibility(128, 2), 64);
    assert_eq!(divisibility(128, 128), 1);
    assert_eq!(divisibility(128, 32), 4);
    // k = 2·j: k / 4 is not a multiple of anything (2 / 4 = 0, 6 / 4 = 1).
    assert_eq!(divisibility(2, 4), 1);
    // A divisor that is not a power of two: 128 / 3 = 42, 256 / 3 = 85.
    assert_eq!(divisibility(128, 3), 1);
}

//! Axis analysis (Triton's `AxisInfo`): per tensor dim, the *contiguity*
//! (length of runs of consecutive integers), the *divisibility* (largest
//! power of two dividing the first element of every run; bytes for
//! pointers) and the *constancy* (length of runs of equal values).
//!
//! Transfer rules (Triton's, for the ops index arithmetic uses):
//! `make_range [s, e)`: contiguity `e - s`, divisibility `2^v(s)`;
//! `splat`/constants: constancy = shape; `add`/`addptr`: contiguity
//! `max(gcd(c_a, k_b), gcd(k_a, c_b))`, divisibility `gcd(d_a, d_b·bytes)`;
//! `mul`: divisibility `d_a·d_b`; `rem`: contiguity `gcd(c_a, d_b)`; `expand_dims`: a run-1 dim whose
//! divisibility is the operand's (every element starts a run);
//! `broadcast`: constancy = the new extent; a loop's induction variable:
//! divisibility `gcd(d_lb, d_step)`; loop-carried values: the
//! meet (gcd) of the initial and the yielded value, after two sweeps.
//! Unknown producers (loads, reductions) give 1 everywhere.

use crate::ir::{Def, OpKind, Program, Type, ValueId};

/// Largest divisibility tracked (Triton's cap for the value 0).
pub const MAX_DIVISOR: u64 = 1 << 30;

/// Axis facts of one value; scalars have one entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AxisInfo {
    /// Contiguity per dim.
    pub contiguity: Vec<u64>,
    /// Divisibility per dim (bytes for pointers).
    pub divisibility: Vec<u64>,
    /// Constancy per dim.
    pub constancy: Vec<u64>,
    /// The value, when a known integer constant.
    pub constant: Option<i64>,
}

fn hp2(c: i64) -> u64 {
    if c == 0 {
        MAX_DIVISOR
    } else {
        (1u64 << c.unsigned_abs().trailing_zeros().min(30)).min(MAX_DIVISOR)
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl AxisInfo {
    fn unknown(rank: usize) -> AxisInfo {
        AxisInfo {
            contiguity: vec![1; rank],
            divisibility: vec![1; rank],
            constancy: vec![1; rank],
            constant: None,
        }
    }

    fn meet(&self, o: &AxisInfo) -> AxisInfo {
        if self.contiguity.len() != o.contiguity.len() {
            return AxisInfo::unknown(self.contiguity.len());
        }
        let z = |a: &[u64], b: &[u64]| a.iter().zip(b).map(|(&x, &y)| gcd(x, y)).collect();
        AxisInfo {
            contiguity: z(&self.contiguity, &o.contiguity),
            divisibility: z(&self.divisibility, &o.divisibility),
            constancy: z(&self.constancy, &o.constancy),
            constant: if self.constant == o.constant {
                self.constant
            } else {
                None
            },
        }
    }
}

fn rank_of(t: &Type) -> usize {
    t.tensor_shape().map(|s| s.len()).unwrap_or(1).max(1)
}

fn shape_of(t: &Type) -> Vec<u64> {
    t.tensor_shape()
        .map(<[u64]>::to_vec)
        .unwrap_or_else(|| vec![1])
}

fn pointee_bytes(t: &Type) -> u64 {
    let e = t.elem();
    let inner = e
        .strip_prefix("!tt.ptr<")
        .and_then(|x| x.strip_suffix('>'))
        .unwrap_or(e);
    (crate::ir::elem_bits(inner) as u64 / 8).max(1)
}

/// The axis facts of every value (indexed by [`ValueId`]).
pub fn analyse(p: &Program) -> Vec<AxisInfo> {
    let mut info: Vec<AxisInfo> = p
        .values
        .iter()
        .map(|v| AxisInfo::unknown(rank_of(&v.ty)))
        .collect();
    for (k, &a) in p.args.iter().enumerate() {
        let d = p.arg_divisibility.get(k).copied().unwrap_or(1);
        info[a].divisibility = vec![d.min(MAX_DIVISOR); info[a].divisibility.len()];
    }
    let order = p.walk();
    for sweep in 0..2 {
        for &o in &order {
            let op = &p.ops[o];
            // Loop-carried: initial value, then the meet with the yielded one.
            if matches!(op.kind, OpKind::For) {
                let body = &op.regions[0];
                // The induction variable: lb + k·step.
                if let (Some(&iv), Some(&lb), Some(&st)) =
                    (body.args.first(), op.operands.first(), op.operands.get(2))
                {
                    let d = gcd(info[lb].divisibility[0], info[st].divisibility[0]);
                    info[iv] = AxisInfo {
                        divisibility: vec![d],
                        ..AxisInfo::unknown(1)
                    };
                }
                let yielded = body
                    .ops
                    .last()
                    .map(|&t| p.ops[t].operands.clone())
                    .unwrap_or_default();
                for (k, &arg) in body.args.iter().enumerate().skip(1) {
                    let Some(&init) = op.operands.get(3 + k - 1) else {
                        continue;
                    };
                    let mut i = info[init].clone();
                    if sweep == 1 {
                        if let Some(&y) = yielded.get(k - 1) {
                            i = i.meet(&info[y]);
                        }
                    }
                    info[arg] = i;
                }
                continue;
            }
            let Some(&r) = op.results.first() else {
                continue;
            };
            let rty = &p.values[r].ty;
            let rank = rank_of(rty);
            let shape = shape_of(rty);
            let x = |i: usize| op.operands.get(i).map(|&v| info[v].clone());
            let new = match (&op.kind, op.name.as_str()) {
                (OpKind::Constant, _) => {
                    let c = constant_value(&op.text);
                    AxisInfo {
                        contiguity: vec![1; rank],
                        divisibility: vec![c.map(hp2).unwrap_or(1); rank],
                        constancy: shape.clone(),
                        constant: c,
                    }
                }
                (OpKind::MakeRange, _) => {
                    let s = crate::text::int_attr(&op.text, "start").unwrap_or(0);
                    let e = crate::text::int_attr(&op.text, "end").unwrap_or(1);
                    AxisInfo {
                        contiguity: vec![(e - s).max(1) as u64],
                        divisibility: vec![hp2(s)],
                        constancy: vec![1],
                        constant: None,
                    }
                }
                (OpKind::Splat, _) => {
                    let a = x(0).unwrap_or_else(|| AxisInfo::unknown(1));
                    AxisInfo {
                        contiguity: vec![1; rank],
                        divisibility: vec![a.divisibility[0]; rank],
                        constancy: shape.clone(),
                        constant: a.constant,
                    }
                }
                (OpKind::ExpandDims { axis }, _) => {
                    let mut a = x(0).unwrap_or_else(|| AxisInfo::unknown(rank - 1));
                    let all_runs_one = a.contiguity.iter().all(|&c| c == 1);
                    let d = if all_runs_one {
                        a.divisibility.iter().copied().min().unwrap_or(1)
                    } else {
                        1
                    };
                    let ax = (*axis).min(a.contiguity.len());
                    a.contiguity.insert(ax, 1);
                    a.divisibility.insert(ax, d);
                    a.constancy.insert(ax, 1);
                    a
                }
                // A reshape that only inserts or removes unit dims moves
                // the facts of the other dims; a unit dim gets
                // expand_dims's facts.
                (OpKind::Reshape, _) => {
                    let from = op
                        .operands
                        .first()
                        .map(|&v| shape_of(&p.values[v].ty))
                        .unwrap_or_default();
                    let big =
                        |s: &[u64]| -> Vec<usize> { (0..s.len()).filter(|&d| s[d] > 1).collect() };
                    let (bf, bt) = (big(&from), big(&shape));
                    match x(0) {
                        Some(a)
                            if a.contiguity.len() == from.len()
                                && bf.len() == bt.len()
                                && bf.iter().zip(&bt).all(|(&f, &t)| from[f] == shape[t]) =>
                        {
                            let unit_div = if a.contiguity.iter().all(|&c| c == 1) {
                                a.divisibility.iter().copied().min().unwrap_or(1)
                            } else {
                                1
                            };
                            let mut u = AxisInfo::unknown(rank);
                            u.constant = a.constant;
                            for d in 0..rank {
                                match bt.iter().position(|&t| t == d) {
                                    Some(k) => {
                                        u.contiguity[d] = a.contiguity[bf[k]];
                                        u.divisibility[d] = a.divisibility[bf[k]];
                                        u.constancy[d] = a.constancy[bf[k]];
                                    }
                                    None => u.divisibility[d] = unit_div,
                                }
                            }
                            u
                        }
                        _ => AxisInfo::unknown(rank),
                    }
                }
                // A layout conversion keeps every element's value.
                (OpKind::ConvertLayout, _) => match x(0) {
                    Some(a) if a.contiguity.len() == rank => a,
                    _ => AxisInfo::unknown(rank),
                },
                (OpKind::Broadcast, _) => {
                    let mut a = x(0).unwrap_or_else(|| AxisInfo::unknown(rank));
                    let from = op
                        .operands
                        .first()
                        .map(|&v| shape_of(&p.values[v].ty))
                        .unwrap_or_default();
                    if a.constancy.len() == rank && from.len() == rank {
                        for d in 0..rank {
                            if from[d] == 1 && shape[d] > 1 {
                                a.constancy[d] = shape[d];
                            }
                        }
                    }
                    a
                }
                (_, "arith.addi" | "tt.addptr" | "arith.subi") => {
                    let (Some(a), Some(b)) = (x(0), x(1)) else {
                        continue;
                    };
                    if a.contiguity.len() != rank || b.contiguity.len() != rank {
                        AxisInfo::unknown(rank)
                    } else {
                        let scale = if op.name == "tt.addptr" {
                            pointee_bytes(&p.values[r].ty)
                        } else {
                            1
                        };
                        let sub = op.name == "arith.subi";
                        AxisInfo {
                            contiguity: (0..rank)
                                .map(|d| {
                                    let l = gcd(a.contiguity[d], b.constancy[d]);
                                    if sub {
                                        l
                                    } else {
                                        l.max(gcd(a.constancy[d], b.contiguity[d]))
                                    }
                                })
                                .collect(),
                            divisibility: (0..rank)
                                .map(|d| {
                                    if b.constant == Some(0) {
                                        a.divisibility[d]
                                    } else {
                                        gcd(
                                            a.divisibility[d],
                                            (b.divisibility[d] * scale).min(MAX_DIVISOR),
                                        )
                                    }
                                })
                                .collect(),
                            constancy: (0..rank)
                                .map(|d| gcd(a.constancy[d], b.constancy[d]))
                                .collect(),
                            constant: match (a.constant, b.constant, sub) {
                                (Some(u), Some(v), false) => u.checked_add(v),
                                (Some(u), Some(v), true) => u.checked_sub(v),
                                _ => None,
                            },
                        }
                    }
                }
                (_, "arith.muli") => {
                    let (Some(a), Some(b)) = (x(0), x(1)) else {
                        continue;
                    };
                    if a.contiguity.len() != rank || b.contiguity.len() != rank {
                        AxisInfo::unknown(rank)
                    } else {
                        AxisInfo {
                            contiguity: (0..rank)
                                .map(|d| match (a.constant, b.constant) {
                                    (_, Some(1)) => a.contiguity[d],
                                    (Some(1), _) => b.contiguity[d],
                                    _ => 1,
                                })
                                .collect(),
                            divisibility: (0..rank)
                                .map(|d| {
                                    (a.divisibility[d].saturating_mul(b.divisibility[d]))
                                        .min(MAX_DIVISOR)
                                })
                                .collect(),
                            constancy: (0..rank)
                                .map(|d| gcd(a.constancy[d], b.constancy[d]))
                                .collect(),
                            constant: a
                                .constant
                                .zip(b.constant)
                                .and_then(|(u, v)| u.checked_mul(v)),
                        }
                    }
                }
                (_, "arith.divsi" | "arith.divui") => {
                    // x / c for a positive constant c that divides x's
                    // divisibility d: x = c·(d/c)·k, so x / c is exact and
                    // a multiple of d/c (and constant where x is). Any
                    // other divisor: nothing is known (floor division
                    // breaks runs).
                    let (Some(a), Some(b)) = (x(0), x(1)) else {
                        continue;
                    };
                    if a.contiguity.len() != rank || b.contiguity.len() != rank {
                        AxisInfo::unknown(rank)
                    } else {
                        let c = b.constant.filter(|&c| {
                            c > 0 && b.constancy.iter().zip(&shape).all(|(k, s)| k >= s)
                        });
                        AxisInfo {
                            contiguity: vec![1; rank],
                            divisibility: (0..rank)
                                .map(|d| match c {
                                    Some(c) if a.divisibility[d] % c as u64 == 0 => {
                                        a.divisibility[d] / c as u64
                                    }
                                    _ => 1,
                                })
                                .collect(),
                            constancy: (0..rank)
                                .map(|d| match c {
                                    Some(_) => a.constancy[d],
                                    None => gcd(a.constancy[d], b.constancy[d]),
                                })
                                .collect(),
                            constant: a.constant.zip(c).and_then(|(u, v)| (u >= 0).then(|| u / v)),
                        }
                    }
                }
                (_, "arith.remsi" | "arith.remui") => {
                    // x % n: runs survive up to n's divisibility.
                    let (Some(a), Some(b)) = (x(0), x(1)) else {
                        continue;
                    };
                    if a.contiguity.len() != rank || b.contiguity.len() != rank {
                        AxisInfo::unknown(rank)
                    } else {
                        AxisInfo {
                            contiguity: (0..rank)
                                .map(|d| gcd(a.contiguity[d], b.divisibility[d]))
                                .collect(),
                            divisibility: (0..rank)
                                .map(|d| gcd(a.divisibility[d], b.divisibility[d]))
                                .collect(),
                            constancy: (0..rank)
                                .map(|d| gcd(a.constancy[d], b.constancy[d]))
                                .collect(),
                            constant: None,
                        }
                    }
                }
                (
                    _,
                    "arith.extsi" | "arith.extui" | "arith.trunci" | "tt.bitcast" | "tt.int_to_ptr"
                    | "tt.ptr_to_int",
                ) => match x(0) {
                    Some(a) if a.contiguity.len() == rank => a,
                    _ => continue,
                },
                _ => {
                    // Conservative: constancy survives elementwise ops.
                    let mut u = AxisInfo::unknown(rank);
                    if op.kind == OpKind::Elementwise {
                        for &v in &op.operands {
                            if info[v].constancy.len() == rank {
                                for d in 0..rank {
                                    u.constancy[d] = if u.constancy[d] == 1 && v == op.operands[0] {
                                        info[v].constancy[d]
                                    } else {
                                        gcd(u.constancy[d], info[v].constancy[d])
                                    };
                                }
                            }
                        }
                    }
                    u
                }
            };
            info[r] = new;
        }
    }
    // Keep region-argument facts of non-loop regions unknown.
    for (v, val) in p.values.iter().enumerate() {
        if let Def::RegionArg { op, .. } = val.def {
            if !matches!(p.ops[op].kind, OpKind::For) {
                info[v] = AxisInfo::unknown(rank_of(&val.ty));
            }
        }
    }
    info
}

/// The integer of `arith.constant` text (`0 : i32`, `dense<16> : tensor<..>`).
fn constant_value(text: &str) -> Option<i64> {
    let t = text.trim();
    let t = t
        .strip_prefix("dense<")
        .map(|x| x.split('>').next().unwrap_or(""))
        .unwrap_or(t);
    let t = t.split(':').next()?.trim();
    if t == "true" {
        return Some(1);
    }
    if t == "false" {
        return Some(0);
    }
    t.parse().ok()
}

/// The axis facts of value `v` (convenience).
pub fn of(info: &[AxisInfo], v: ValueId) -> &AxisInfo {
    &info[v]
}

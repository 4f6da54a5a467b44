//! An assignment: a distributed layout for every tensor value, and the
//! layout each use sees (a conversion where it differs from the value's).
//!
//! Triton's TTGIR carries its assignment in its types
//! ([`Assignment::from_types`]); its conversions are explicit
//! `ttg.convert_layout` ops. The engine's assignment is over the layout-free
//! TTIR and records conversions as uses that see another layout.

use crate::error::{EngineError, Result};
use crate::ir::{OpId, OpKind, Program, Type, ValueId};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use hw_layouts::{Encoding, Space};
use linear_layout::LinearLayout;
use std::sync::Arc;

/// A layout of one value: its Triton attribute and its linear layout for
/// the value's shape (`register, lane, warp, block → dim0, dim1, …`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The attribute (`#ttg.blocked<..>`, `#ttg.linear<..>`, ...), shared:
    /// a layout is cloned wherever a value or use takes it, and a deep
    /// copy of a rank-11 `#ttg.linear` (its bases) was a twentieth of the
    /// engine's time on the sample's sort kernel.
    pub encoding: Arc<Encoding>,
    /// Its linear layout for the value's shape.
    pub ll: LinearLayout,
}

impl Layout {
    /// The layout of `encoding` for `shape`.
    pub fn new(encoding: Encoding, shape: &[u64]) -> Result<Layout> {
        let ll = encoding.to_linear_layout(shape).map_err(|e| {
            EngineError::Unsupported(format!("layout {} for {shape:?}: {e}", encoding.to_mlir()))
        })?;
        Ok(Layout {
            encoding: Arc::new(encoding),
            ll,
        })
    }

    /// A layout given only as a linear map (printed as `#ttg.linear`).
    pub fn from_ll(ll: LinearLayout) -> Layout {
        Layout {
            encoding: Arc::new(Encoding::Linear(hw_layouts::linear::Linear::from_layout(
                ll.clone(),
            ))),
            ll,
        }
    }

    /// Triton's attribute text.
    pub fn mlir(&self) -> String {
        self.encoding.to_mlir()
    }
}

/// A layout for every tensor value and, where a use sees another layout,
/// that layout.
#[derive(Clone, Debug, Default)]
pub struct Assignment {
    /// Per value (indexed by [`ValueId`]); `None` for non-tensors.
    pub layouts: Vec<Option<Layout>>,
    /// `(op, operand index)` → the layout that use sees, when it differs
    /// from the value's (a conversion or a rematerialisation).
    pub uses: HashMap<(OpId, usize), Layout>,
    /// Uses whose different layout is obtained by recomputing the value's
    /// producers in that layout (no data moves), not by a conversion.
    pub remat: HashMap<(OpId, usize), bool>,
    /// Dot operands read from shared memory (wgmma's A and B): no
    /// register layout is required of them.
    pub shared_operands: HashSet<(OpId, usize)>,
}

impl Assignment {
    /// The rematerialised uses (`remat` set), in `(op, operand)` order.
    pub fn rematerialised(&self) -> Vec<(OpId, usize)> {
        let mut uses: Vec<(OpId, usize)> = self
            .remat
            .iter()
            .filter(|(_, &r)| r)
            .map(|(&k, _)| k)
            .collect();
        uses.sort_unstable();
        uses
    }

    /// Reads the layouts from a TTGIR program's tensor types.
    pub fn from_types(p: &Program) -> Result<Assignment> {
        let mut layouts = Vec::with_capacity(p.values.len());
        for v in &p.values {
            let l = match &v.ty {
                Type::Tensor {
                    shape,
                    encoding: Some(text),
                    ..
                } => {
                    let enc = Encoding::parse(text).map_err(|e| EngineError::Layout {
                        line: 0,
                        text: text.clone(),
                        message: format!("{}: {e}", v.name),
                    })?;
                    if enc.space() != Space::Distributed {
                        return Err(EngineError::Layout {
                            line: 0,
                            text: text.clone(),
                            message: format!("{} is not a distributed layout", v.name),
                        });
                    }
                    Some(Layout::new(enc, shape)?)
                }
                Type::Tensor { encoding: None, .. } => {
                    return Err(EngineError::Unsupported(format!(
                        "{} has no layout (TTIR, not TTGIR)",
                        v.name
                    )))
                }
                _ => None,
            };
            layouts.push(l);
        }
        Ok(Assignment {
            layouts,
            uses: HashMap::new(),
            remat: HashMap::new(),
            shared_operands: HashSet::new(),
        })
    }

    /// The layout of value `v`.
    pub fn layout(&self, v: ValueId) -> Option<&Layout> {
        self.layouts.get(v).and_then(|l| l.as_ref())
    }

    /// The layout operand `i` of op `o` sees.
    pub fn seen(&self, p: &Program, o: OpId, i: usize) -> Option<&Layout> {
        self.uses
            .get(&(o, i))
            .or_else(|| self.layout(p.ops[o].operands[i]))
    }
}

/// A conversion: a value seen in another layout.
#[derive(Clone, Debug)]
pub struct Conversion {
    /// The converted value.
    pub value: ValueId,
    /// The op that needs it (a `ttg.convert_layout` in TTGIR, the using op
    /// in the engine's assignment).
    pub op: OpId,
    /// Source and destination layouts.
    pub src: Layout,
    /// Destination layout.
    pub dst: Layout,
    /// Enclosing loops.
    pub depth: usize,
    /// Element bits (pointers 64).
    pub bits: u32,
    /// Placed right before the using op `op` (only that use reads it),
    /// not after the value's definition ([`converts_at_use`]).
    pub at_use: bool,
}

/// Registers per thread above which a register dot operand is converted
/// at its use inside a loop rather than once before it
/// ([`converts_at_use`]): 32, a quarter of what each of the two spilling
/// kernels below held through its loop (128 per hoisted operand), an
/// eighth of the 255 a thread can have.
pub const HOIST_REGISTERS: u64 = 32;

/// Whether the conversion of `v` for its use by op `o` into `seen` goes
/// right before that use rather than after `v`'s definition: `seen` is a
/// dot operand held in registers (`#ttg.dot_op` of an mma v2 or a
/// blocked accumulator) of more than [`HOIST_REGISTERS`] 32-bit registers
/// per thread, and `o` sits in a loop `v` is defined outside of.
/// Converted once before the loop, the operand stays live in registers
/// through the whole loop: the engine's TTGIR of the sm80 flash attention
/// forward hoisted Q (64x128 fp16, replicated over the 4 warps: 128
/// registers per thread) and of the attention backward K and V (128
/// each), spilled 1072 and 1196 bytes per thread against Triton's 480 and
/// 728 (ptxas, sm_90a) and ran 0.882x and 0.860x Triton's on the H200
/// (`bench/engine-gpu/README.md`, known limits). Triton converts at the
/// use, inside the loop.
pub fn converts_at_use(p: &Program, o: OpId, v: ValueId, seen: &Layout) -> bool {
    let Encoding::DotOperand(d) = &*seen.encoding else {
        return false;
    };
    let in_registers = match d.parent.as_ref() {
        Encoding::NvidiaMma(m) => m.version_major < 3,
        Encoding::Blocked(_) => true,
        _ => false,
    };
    let bits = u64::from(p.values[v].ty.elem_bits());
    let registers = (seen.ll.in_dim_size(linear_layout::DimName::REGISTER) * bits).div_ceil(32);
    in_registers && registers > HOIST_REGISTERS && p.ops[o].loop_depth > p.def_depth(v)
}

/// The conversions of an assignment: TTGIR's `ttg.convert_layout` ops
/// plus, for the engine's assignments, one conversion per value and
/// destination layout that some use sees (not rematerialised), placed
/// right after the value's definition (at its loop depth) and shared by
/// every use that wants it, except a register dot operand converted at
/// its use inside a loop ([`converts_at_use`]: one per use, at the use's
/// loop depth).
// LinearLayout's only interior mutability is a lazily built evaluator that
// Hash and Eq ignore.
#[allow(clippy::mutable_key_type)]
pub fn conversions(p: &Program, a: &Assignment) -> Result<Vec<Conversion>> {
    let mut out = Vec::new();
    let mut placed: HashSet<(ValueId, LinearLayout)> = HashSet::new();
    for o in p.walk() {
        let op = &p.ops[o];
        if op.kind == OpKind::ConvertLayout {
            let (Some(&src_v), Some(&dst_v)) = (op.operands.first(), op.results.first()) else {
                continue;
            };
            let (Some(src), Some(dst)) = (a.layout(src_v), a.layout(dst_v)) else {
                continue;
            };
            out.push(Conversion {
                value: src_v,
                op: o,
                src: src.clone(),
                dst: dst.clone(),
                depth: op.loop_depth,
                bits: p.values[src_v].ty.elem_bits(),
                at_use: false,
            });
        }
        for (i, &v) in op.operands.iter().enumerate() {
            let Some(seen) = a.uses.get(&(o, i)) else {
                continue;
            };
            if a.remat.get(&(o, i)).copied().unwrap_or(false) {
                continue;
            }
            let Some(src) = a.layout(v) else { continue };
            if src.ll == seen.ll {
                continue;
            }
            let at_use = converts_at_use(p, o, v, seen);
            if !at_use && !placed.insert((v, seen.ll.clone())) {
                continue;
            }
            out.push(Conversion {
                value: v,
                op: o,
                src: src.clone(),
                dst: seen.clone(),
                depth: if at_use {
                    op.loop_depth
                } else {
                    p.def_depth(v)
                },
                bits: p.values[v].ty.elem_bits(),
                at_use,
            });
        }
    }
    Ok(out)
}

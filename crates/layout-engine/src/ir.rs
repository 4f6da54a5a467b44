//! The tile-program IR: a Triton function as SSA values and ops with
//! nested regions, read from TTIR (no layouts) or TTGIR (a layout on every
//! tensor type).
//!
//! Values and ops live in arenas ([`Program::values`], [`Program::ops`]);
//! a [`Region`] lists its block arguments and its ops in program order, so
//! a walk in region order is a walk in dominance order.

use serde::Serialize;

/// Index of a value in [`Program::values`].
pub type ValueId = usize;
/// Index of an op in [`Program::ops`].
pub type OpId = usize;

/// A type as written in the IR.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Type {
    /// `tensor<SHAPExELEM[, #enc]>`: `encoding` is the layout text with
    /// aliases resolved (TTGIR) or `None` (TTIR).
    Tensor {
        /// The shape, dim0 first.
        shape: Vec<u64>,
        /// The element type (`f16`, `i32`, `!tt.ptr<f16>`, ...).
        elem: String,
        /// The layout text, if any.
        encoding: Option<String>,
    },
    /// `!ttg.memdesc<...>`: a shared-memory (or tensor-memory) buffer.
    MemDesc {
        /// The buffer's shape, dim0 first.
        shape: Vec<u64>,
        /// The element type.
        elem: String,
    },
    /// A scalar (`i32`, `f16`, `!tt.ptr<f16>`, `!tt.tensordesc<...>`, ...).
    Scalar(String),
}

impl Type {
    /// The tensor shape, if a tensor.
    pub fn tensor_shape(&self) -> Option<&[u64]> {
        match self {
            Type::Tensor { shape, .. } => Some(shape),
            _ => None,
        }
    }

    /// The element type text (the pointee for pointers is not resolved).
    pub fn elem(&self) -> &str {
        match self {
            Type::Tensor { elem, .. } | Type::MemDesc { elem, .. } | Type::Scalar(elem) => elem,
        }
    }

    /// Bits of one element: pointers 64, `iN`/`fN`/`bfN` N, fp8 8.
    pub fn elem_bits(&self) -> u32 {
        elem_bits(self.elem())
    }

    /// The layout text of a tensor, if any.
    pub fn encoding(&self) -> Option<&str> {
        match self {
            Type::Tensor { encoding, .. } => encoding.as_deref(),
            _ => None,
        }
    }
}

/// Bits of an element type name (`!tt.ptr<..>` 64, `i1` 8 as stored, `f8E4M3FN` 8).
pub fn elem_bits(e: &str) -> u32 {
    if e.starts_with("!tt.ptr") {
        return 64;
    }
    if e.starts_with("f8") {
        return 8;
    }
    let rest = e.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let digits = &rest[..rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len())];
    match digits.parse::<u32>() {
        Ok(1) => 8,
        Ok(b) if b > 0 => b,
        _ => 32,
    }
}

/// What defines a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Def {
    /// A function argument.
    FuncArg(usize),
    /// Result `index` of an op.
    Result {
        /// The op.
        op: OpId,
        /// Which of its results.
        index: usize,
    },
    /// Argument `index` of region `region` of an op (loop-carried values,
    /// combine-region arguments).
    RegionArg {
        /// The op owning the region.
        op: OpId,
        /// Which of its regions.
        region: usize,
        /// Which of the region's arguments.
        index: usize,
    },
}

/// An SSA value.
#[derive(Clone, Debug, Serialize)]
pub struct Value {
    /// The name as written (`%12`, `%5#1`, `%arg3`).
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// Its definition.
    pub def: Def,
}

/// A region: block arguments and ops in program order.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Region {
    /// Block arguments (`scf.for` induction variable and iter args,
    /// `^bb0(...)` of combine regions).
    pub args: Vec<ValueId>,
    /// Ops in program order.
    pub ops: Vec<OpId>,
}

/// The op families the engine reasons about (Triton's names).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum OpKind {
    /// `arith.*` / `math.*` / elementwise `tt.*` (addptr, bitcast, clampf,
    /// precise/approx div, fp_to_fp, int_to_ptr, ...): every tensor
    /// operand and result in one layout.
    Elementwise,
    /// `arith.constant` (splat constants have any layout).
    Constant,
    /// Scalar-only ops (`tt.get_program_id`, `tt.get_num_programs`, ...).
    Scalar,
    /// `tt.make_range`.
    MakeRange,
    /// `tt.splat`.
    Splat,
    /// `tt.broadcast`.
    Broadcast,
    /// `tt.expand_dims {axis}`.
    ExpandDims {
        /// The new dim's position.
        axis: usize,
    },
    /// `tt.load`.
    Load,
    /// `tt.store`.
    Store,
    /// `tt.atomic_rmw` / `tt.atomic_cas`.
    Atomic,
    /// `tt.dot`.
    Dot,
    /// `tt.dot_scaled`.
    DotScaled,
    /// `tt.reduce {axis}` with its combine region.
    Reduce {
        /// The reduced dim.
        axis: usize,
    },
    /// `tt.scan {axis}` with its combine region.
    Scan {
        /// The scanned dim.
        axis: usize,
    },
    /// `tt.reduce.return` / `tt.scan.return`.
    CombineReturn,
    /// `tt.trans {order}`.
    Trans {
        /// Result dim `i` is operand dim `order[i]`.
        order: Vec<usize>,
    },
    /// `tt.reshape`.
    Reshape,
    /// `tt.join`.
    Join,
    /// `tt.split`.
    Split,
    /// `tt.gather {axis}`.
    Gather {
        /// The dim gathered along.
        axis: usize,
    },
    /// `tt.histogram`.
    Histogram,
    /// `tt.cat`.
    Cat,
    /// `tt.make_tensor_descriptor`, `tt.descriptor_load/store/gather/...`.
    Descriptor,
    /// `scf.for`.
    For,
    /// `scf.if`.
    If,
    /// `scf.while`.
    While,
    /// `scf.yield`.
    Yield,
    /// `scf.condition`.
    Condition,
    /// `tt.return`.
    Return,
    /// `ttg.convert_layout` (TTGIR only).
    ConvertLayout,
    /// TTGIR-only ops the checker does not constrain: shared/tensor-memory
    /// ops (`ttg.local_alloc`, `ttg.local_load`, `ttg.memdesc_trans`, ...)
    /// and upcasts (`ttg.fp4_to_fp`, `ttg.upcast_mxfp`).
    Memory,
    /// `ttng.warp_group_dot` (wgmma).
    WarpGroupDot,
}

/// An op.
#[derive(Clone, Debug, Serialize)]
pub struct Op {
    /// Full name (`tt.load`, `arith.addf`).
    pub name: String,
    /// Its family.
    pub kind: OpKind,
    /// 1-based line of the op in the text.
    pub line: usize,
    /// Operands.
    pub operands: Vec<ValueId>,
    /// Results.
    pub results: Vec<ValueId>,
    /// Nested regions (`scf.for` 1, `scf.if` 1-2, `scf.while` 2, reduce 1).
    pub regions: Vec<Region>,
    /// Enclosing `scf.for`/`scf.while` loops.
    pub loop_depth: usize,
    /// The op's parent op, `None` at function level.
    pub parent: Option<OpId>,
    /// The text after the op name (attributes and types), for printing.
    pub text: String,
}

/// A function: arguments, body, and the arenas.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Program {
    /// `@name` of the `tt.func`.
    pub name: String,
    /// Function arguments.
    pub args: Vec<ValueId>,
    /// `tt.divisibility` of each argument (1 when absent).
    pub arg_divisibility: Vec<u64>,
    /// The function body.
    pub body: Region,
    /// Every value.
    pub values: Vec<Value>,
    /// Every op.
    pub ops: Vec<Op>,
    /// `num-warps` from the module attributes (TTGIR), if present.
    pub num_warps: Option<u64>,
    /// `threads-per-warp` from the module attributes, if present.
    pub threads_per_warp: Option<u64>,
}

impl Program {
    /// Ops in dominance order (a pre-order walk of the regions).
    pub fn walk(&self) -> Vec<OpId> {
        let mut out = Vec::with_capacity(self.ops.len());
        let mut stack: Vec<OpId> = self.body.ops.iter().rev().copied().collect();
        while let Some(o) = stack.pop() {
            out.push(o);
            for r in self.ops[o].regions.iter().rev() {
                stack.extend(r.ops.iter().rev().copied());
            }
        }
        out
    }

    /// Uses of every value: `(op, operand index)`.
    pub fn uses(&self) -> Vec<Vec<(OpId, usize)>> {
        let mut u = vec![Vec::new(); self.values.len()];
        for (o, op) in self.ops.iter().enumerate() {
            for (i, &v) in op.operands.iter().enumerate() {
                u[v].push((o, i));
            }
        }
        u
    }

    /// The op defining `v`, if a result.
    pub fn def_op(&self, v: ValueId) -> Option<OpId> {
        match self.values[v].def {
            Def::Result { op, .. } => Some(op),
            _ => None,
        }
    }

    /// Loops enclosing the definition of `v` (a conversion of `v` placed
    /// right after its definition runs this deep).
    pub fn def_depth(&self, v: ValueId) -> usize {
        match self.values[v].def {
            Def::FuncArg(_) => 0,
            Def::Result { op, .. } => self.ops[op].loop_depth,
            Def::RegionArg { op, .. } => {
                self.ops[op].loop_depth
                    + usize::from(matches!(self.ops[op].kind, OpKind::For | OpKind::While))
            }
        }
    }

    /// Tensor values (those that get a distributed layout).
    pub fn is_tensor(&self, v: ValueId) -> bool {
        matches!(self.values[v].ty, Type::Tensor { .. })
    }

    /// Whether the op sits inside a reduce/scan combine region (scalars only).
    pub fn in_combine_region(&self, mut o: OpId) -> bool {
        while let Some(p) = self.ops[o].parent {
            if matches!(
                self.ops[p].kind,
                OpKind::Reduce { .. } | OpKind::Scan { .. }
            ) {
                return true;
            }
            o = p;
        }
        false
    }
}

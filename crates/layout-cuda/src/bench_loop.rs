//! The benchmark loop `R × { cvt_fwd ; +1 on the destination ; cvt_bwd ;
//! +1 on the source }` as CUDA text, with its shared-memory buffers and
//! barriers placed by a [`Schedule`] (the conversions' device functions hold
//! only the barrier between their stores and loads).

use crate::packed_add;
use crate::scratch::{Direction, Schedule};
use std::fmt::Write;

/// Which register arrays of the benchmark loop are XOR-folded into the
/// variable `sink_` (declared by the caller, which must make it
/// observable: a global store under a run-time condition that never holds,
/// since an unused value is removed by ptxas even behind `asm volatile`).
/// A replicated (broadcast) layout holds elements the way back need not
/// read (e.g. each warp returns from its own copy of a replicated A
/// operand); where the warp id is a compile-time constant (warp-specialised
/// partial programs) the compiler would otherwise drop the loads of the
/// unread copies, which a real consumer (an MMA) reads. Costs one XOR per
/// register per iteration.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Sink {
    /// Fold the source-layout registers (`a`).
    pub src: bool,
    /// Fold the destination-layout registers (`b`).
    pub dst: bool,
}

impl Sink {
    /// For a conversion `src ↔ dst`: fold the registers of each layout that
    /// is not injective.
    pub(crate) fn for_layouts(
        src: &linear_layout::LinearLayout,
        dst: &linear_layout::LinearLayout,
    ) -> Sink {
        Sink {
            src: !src.is_injective(),
            dst: !dst.is_injective(),
        }
    }

    /// Whether any array is folded (the caller declares `sink_`).
    pub(crate) fn any(self) -> bool {
        self.src || self.dst
    }
}

/// Where the loop's conversions find their scratch and how they wait.
#[derive(Clone, Debug)]
pub(crate) struct Scratch {
    /// Buffers, barriers and unrolling.
    pub schedule: Schedule,
    /// Elements of the `smem` pointer's type per buffer: buffer `b` starts
    /// at `smem + b·stride`.
    pub stride: u64,
    /// The barrier statement (`__syncthreads()`, `PARTIAL_SYNC()`).
    pub sync: &'static str,
}

impl Scratch {
    /// The `smem` argument of a conversion on buffer `b`.
    fn pointer(&self, buffer: Option<u32>) -> String {
        match buffer {
            Some(b) if b > 0 => format!("smem + {}u", b as u64 * self.stride),
            _ => "smem".to_string(),
        }
    }
}

/// Emits `for (it < R)` over the schedule's body: `step(s, direction,
/// smem)` writes one conversion (its call with the `smem` argument given,
/// then whatever follows it); a barrier follows where the schedule says.
/// An unrolled body runs `R / 2` times, then one more half when `R` is odd.
pub(crate) fn emit_scheduled(
    s: &mut String,
    scratch: &Scratch,
    mut step: impl FnMut(&mut String, Direction, &str),
) {
    let steps = &scratch.schedule.steps;
    let mut body = |s: &mut String, n: usize| {
        for st in &steps[..n] {
            step(s, st.direction, &scratch.pointer(st.buffer));
            if st.barrier_after {
                writeln!(s, "    {};", scratch.sync).unwrap();
            }
        }
    };
    if scratch.schedule.unroll() == 1 {
        writeln!(s, "  for (int it = 0; it < R; ++it) {{").unwrap();
        body(s, steps.len());
        writeln!(s, "  }}").unwrap();
    } else {
        writeln!(s, "  int it = 0;\n  for (; it + 1 < R; it += 2) {{").unwrap();
        body(s, steps.len());
        writeln!(s, "  }}\n  if (it < R) {{").unwrap();
        body(s, 2);
        writeln!(s, "  }}").unwrap();
    }
}

/// The benchmark loop over `held = (source, destination)` registers: the
/// element arrays `a`, `b` (`+= 1`), or with `packed = Some(bits)` the
/// packed words `aw`, `bw` (word-native `cvt_*`, one `add_u8x4` /
/// `add_u16x2` per word). `sink` folds the arrays it names into `sink_`.
pub(crate) fn emit_bench_loop(
    s: &mut String,
    held: (u64, u64),
    packed: Option<u32>,
    sink: Sink,
    scratch: &Scratch,
) {
    let (ns, nd) = held;
    let (a, b, k) = if packed.is_some() {
        ("aw", "bw", "j")
    } else {
        ("a", "b", "i")
    };
    let op = |arr: &str| match packed {
        Some(bits) => {
            let (_, add, one) = packed_add(bits);
            format!("{arr}[{k}] = {add}({arr}[{k}], {one})")
        }
        None => format!("{arr}[{k}] += 1"),
    };
    emit_scheduled(s, scratch, |s, direction, smem| {
        let (name, from, to, n, fold) = match direction {
            Direction::Forward => ("cvt_fwd", a, b, nd, sink.dst),
            Direction::Backward => ("cvt_bwd", b, a, ns, sink.src),
        };
        writeln!(s, "    {name}({from}, {to}, {smem}, lane, warp);").unwrap();
        writeln!(
            s,
            "#pragma unroll\n    for (int {k} = 0; {k} < {n}; ++{k}) {};",
            op(to)
        )
        .unwrap();
        if fold {
            emit_sink_fold(s, to, n);
        }
    });
}

/// `sink_ ^= arr[i]` over the `n` registers of `arr`.
fn emit_sink_fold(s: &mut String, arr: &str, n: u64) {
    writeln!(
        s,
        "#pragma unroll\n    for (int i = 0; i < {n}; ++i) sink_ ^= (uint32_t){arr}[i];"
    )
    .unwrap();
}

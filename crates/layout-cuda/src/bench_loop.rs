//! The benchmark loop `R × { cvt_fwd ; +1 on the destination ; cvt_bwd ;
//! +1 on the source }`, then one more `cvt_fwd` whose result the kernel
//! stores by the destination layout (the forward check), as CUDA text, with its shared-memory buffers and
//! barriers placed by a [`Schedule`] (the conversions' device functions hold
//! only the barrier between their stores and loads).

use crate::shared_words::WordPacking;
use crate::{ctype, emit_pack, emit_unpack, packed_add};
use layout_codegen::loop_plan::LoopPlan;
use layout_codegen::loop_schedule::{Direction, Schedule};
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

    /// Declares `sink_` in the kernel body, where any array is folded.
    pub(crate) fn emit_declaration(self, s: &mut String) {
        if self.any() {
            writeln!(s, "  uint32_t sink_ = 0u;").unwrap();
        }
    }

    /// Makes `sink_` observable after the loop, where any array is folded:
    /// a store under a condition the benchmark never meets (it never runs
    /// R = INT_MAX; the compiler cannot know that, so every folded load
    /// stays).
    pub(crate) fn emit_observation(self, s: &mut String) {
        if self.any() {
            writeln!(
                s,
                "  if (R == 0x7fffffff && sink_ == 0x2545f491u) gout[threadIdx.x] = 0;"
            )
            .unwrap();
        }
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
    /// The scratch of `plan` ([`LoopPlan`]: its schedule, and its buffers
    /// of `buffer_bytes` as `bits`-wide elements) with the barrier
    /// statement `sync`.
    pub(crate) fn new(plan: &LoopPlan, bits: u32, sync: &'static str) -> Scratch {
        Scratch {
            schedule: plan.schedule.clone(),
            stride: plan.buffer_bytes * 8 / u64::from(bits),
            sync,
        }
    }

    /// The `smem` argument of a conversion on buffer `b`.
    fn pointer(&self, buffer: Option<u32>) -> String {
        match buffer {
            Some(b) if b > 0 => format!("smem + {}u", b as u64 * self.stride),
            _ => "smem".to_string(),
        }
    }
}

/// How the benchmark loop holds its data between conversions and what the
/// conversions take.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Held<'a> {
    /// One element per register in `a` (source layout) and `b`
    /// (destination layout), in each layout's register order; the
    /// conversions take and return those arrays. For 32- and 64-bit
    /// elements, where a register is an element.
    Elements,
    /// 8/16-bit elements packed `32 / bits` to a word in `aw`, `bw`, always
    /// *consecutively* (register `e·j + k` in slot `k` of word `j`): the
    /// order in which a consumer such as `mma.sync` takes its operands and
    /// Triton's lowering delivers them. What each conversion takes is
    /// `plan` ([`Packings`]): element arrays, so it unpacks its input and
    /// packs its output, or words packed as its plan packs them (see
    /// [`crate::shared_words`]), so a packing other than the consecutive one
    /// is repacked before and after it (byte permutes, timed with the
    /// conversion they serve).
    Words { bits: u32, plan: Packings<'a> },
}

/// The packed words each conversion of the loop takes: `(input, output)`
/// packings, or `None` for element arrays.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Packings<'a> {
    /// `cvt_fwd`'s: the source layout's registers, the destination's.
    pub fwd: Option<(&'a WordPacking, &'a WordPacking)>,
    /// `cvt_bwd`'s: the destination layout's registers, the source's.
    pub bwd: Option<(&'a WordPacking, &'a WordPacking)>,
}

impl<'a> Packings<'a> {
    /// Both directions on one pair of packings (`src` of the source
    /// layout's registers, `dst` of the destination's), or elements.
    pub fn both(plan: Option<(&'a WordPacking, &'a WordPacking)>) -> Self {
        Packings {
            fwd: plan,
            bwd: plan.map(|(s, d)| (d, s)),
        }
    }
}

impl Held<'_> {
    /// The loop's arrays `(source, destination)` and the index variable of
    /// its per-register loops.
    fn arrays(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Held::Elements => ("a", "b", "i"),
            Held::Words { .. } => ("aw", "bw", "j"),
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

/// The conversion that follows the loop, emitted by `step` on the buffer
/// the schedule gives the step after `R` iterations (`steps[0]`, or
/// `steps[2]` after an odd `R` of an unrolled body): the schedule is
/// race-free as a loop, so this step needs no barrier of its own before it,
/// and nothing after it touches shared memory.
fn emit_after_loop(s: &mut String, scratch: &Scratch, mut step: impl FnMut(&mut String, &str)) {
    let steps = &scratch.schedule.steps;
    if scratch.schedule.unroll() == 1 {
        step(s, &scratch.pointer(steps[0].buffer));
    } else {
        writeln!(s, "  if (R & 1) {{").unwrap();
        step(s, &scratch.pointer(steps[2].buffer));
        writeln!(s, "  }} else {{").unwrap();
        step(s, &scratch.pointer(steps[0].buffer));
        writeln!(s, "  }}").unwrap();
    }
}

/// One conversion `name` from the loop's array `from` to `to` (`n_from`,
/// `n_to` registers, elements) in the form `held` asks for.
fn emit_call(
    s: &mut String,
    held: Held<'_>,
    (name, direction): (&str, Direction),
    (from, to): (&str, &str),
    (n_from, n_to): (u64, u64),
    smem: &str,
) {
    match held {
        Held::Elements => {
            writeln!(s, "    {name}({from}, {to}, {smem}, lane, warp);").unwrap();
        }
        Held::Words { bits, plan } => {
            let packing = match direction {
                Direction::Forward => plan.fwd,
                Direction::Backward => plan.bwd,
            };
            let Some((pf, pt)) = packing else {
                let t = ctype(bits);
                let (cf, ct) = (consecutive(bits, n_from), consecutive(bits, n_to));
                writeln!(s, "    {{\n    {t} x_[{n_from}], y_[{n_to}];").unwrap();
                emit_unpack(s, &cf, from, "x_", bits);
                writeln!(s, "    {name}(x_, y_, {smem}, lane, warp);").unwrap();
                emit_pack(s, &ct, "y_", to, bits);
                writeln!(s, "    }}").unwrap();
                return;
            };
            if pf.is_consecutive() && pt.is_consecutive() {
                writeln!(s, "    {name}({from}, {to}, {smem}, lane, warp);").unwrap();
                return;
            }
            writeln!(s, "    {{").unwrap();
            let input = if pf.is_consecutive() {
                from.to_string()
            } else {
                writeln!(s, "    uint32_t x_[{}];", pf.num_words()).unwrap();
                emit_repack(s, (&consecutive(bits, n_from), from), (pf, "x_"), bits);
                "x_".to_string()
            };
            if pt.is_consecutive() {
                writeln!(s, "    {name}({input}, {to}, {smem}, lane, warp);").unwrap();
            } else {
                writeln!(s, "    uint32_t y_[{}];", pt.num_words()).unwrap();
                writeln!(s, "    {name}({input}, y_, {smem}, lane, warp);").unwrap();
                emit_repack(s, (pt, "y_"), (&consecutive(bits, n_to), to), bits);
            }
            writeln!(s, "    }}").unwrap();
        }
    }
}

fn consecutive(bits: u32, n: u64) -> WordPacking {
    WordPacking::consecutive(bits, n).expect("register counts are powers of two")
}

/// `to[j] = ⊕_k element(to.register(j, k)) << k·bits`, each element taken
/// from its slot of `from`'s words: the repacking of one thread's words
/// from one packing to another, as byte permutes (`__byte_perm`, one `prmt`
/// each): one per output word whose elements come from at most two input
/// words (always for 16-bit elements), three otherwise (two pairs, then a
/// merge). Shift-and-mask forms of a 4×4 byte transpose did not fold into
/// `prmt` (H200, 2026-11-24: 8-bit shared-word conversions ran 3× slower
/// with them, ALU-bound).
pub(crate) fn emit_repack(
    s: &mut String,
    (pf, from): (&WordPacking, &str),
    (pt, to): (&WordPacking, &str),
    bits: u32,
) {
    let eb = u64::from(bits / 8); // bytes per element
    for j in 0..pt.num_words() {
        // (input word, byte offset within it) of each output byte.
        let bytes: Vec<(u64, u64)> = (0..pt.per_word())
            .flat_map(|k| {
                let (w, slot) = pf.locate(pt.register(j, k));
                (0..eb).map(move |b| (w, slot * eb + b))
            })
            .collect();
        let mut words: Vec<u64> = bytes.iter().map(|x| x.0).collect();
        words.sort_unstable();
        words.dedup();
        // Selector taking output byte n from `x` (0-3) or `y` (4-7).
        let selector = |pick: &dyn Fn(u64, u64) -> Option<u64>| -> u32 {
            bytes.iter().enumerate().fold(0u32, |sel, (n, &(w, o))| {
                sel | (pick(w, o).unwrap_or(0) as u32) << (4 * n)
            })
        };
        if words.len() <= 2 {
            let (x, y) = (words[0], *words.last().unwrap_or(&words[0]));
            let sel = selector(&|w, o| Some(if w == x { o } else { 4 + o }));
            writeln!(
                s,
                "    {to}[{j}] = __byte_perm({from}[{x}], {from}[{y}], {sel:#06x}u);"
            )
            .unwrap();
            continue;
        }
        // Up to four input words: pair (0, 1) and pair (2, 3) each into a
        // word holding their bytes at the final positions, then merge.
        let pair = |a: u64, b: u64| {
            selector(&|w, o| {
                if w == a {
                    Some(o)
                } else if w == b {
                    Some(4 + o)
                } else {
                    None
                }
            })
        };
        let (w0, w1) = (words[0], words[1]);
        let (w2, w3) = (words[2], *words.get(3).unwrap_or(&words[2]));
        let merge = bytes.iter().enumerate().fold(0u32, |sel, (n, &(w, _))| {
            let from_hi = w == w2 || w == w3;
            sel | ((n as u32) + if from_hi { 4 } else { 0 }) << (4 * n)
        });
        writeln!(
            s,
            "    {to}[{j}] = __byte_perm(__byte_perm({from}[{w0}], {from}[{w1}], {:#06x}u), __byte_perm({from}[{w2}], {from}[{w3}], {:#06x}u), {merge:#06x}u);",
            pair(w0, w1),
            pair(w2, w3)
        )
        .unwrap();
    }
}

/// The benchmark loop over `regs = (source, destination)` registers held
/// as `held` says (`+= 1` per element, or one `add_u8x4` / `add_u16x2` per
/// word), then one more forward conversion (the step the schedule gives
/// next, with no `+1`), so that after it the destination array (`b`, or
/// `bw` packed consecutively) holds the destination layout's registers of
/// the source data advanced by `2R`: the forward result the caller stores
/// by the destination layout and the host checks. `sink` folds the arrays
/// it names into `sink_`.
pub(crate) fn emit_bench_loop(
    s: &mut String,
    regs: (u64, u64),
    held: Held<'_>,
    sink: Sink,
    scratch: &Scratch,
) {
    let (ns, nd) = regs;
    let (a, b, k) = held.arrays();
    let (held_s, held_d) = match held {
        Held::Elements => (ns, nd),
        Held::Words { bits, .. } => (ns * u64::from(bits) / 32, nd * u64::from(bits) / 32),
    };
    let op = |arr: &str| match held {
        Held::Words { bits, .. } => {
            let (_, add, one) = packed_add(bits);
            format!("{arr}[{k}] = {add}({arr}[{k}], {one})")
        }
        Held::Elements => format!("{arr}[{k}] += 1"),
    };
    emit_scheduled(s, scratch, |s, direction, smem| {
        let (name, from, to, n, fold, regs) = match direction {
            Direction::Forward => ("cvt_fwd", a, b, held_d, sink.dst, (ns, nd)),
            Direction::Backward => ("cvt_bwd", b, a, held_s, sink.src, (nd, ns)),
        };
        emit_call(s, held, (name, direction), (from, to), regs, smem);
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
    writeln!(
        s,
        "  // The forward result: the destination registers the host checks."
    )
    .unwrap();
    emit_after_loop(s, scratch, |s, smem| {
        emit_call(
            s,
            held,
            ("cvt_fwd", Direction::Forward),
            (a, b),
            (ns, nd),
            smem,
        );
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

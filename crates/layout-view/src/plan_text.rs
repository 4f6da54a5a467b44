//! Conversion plans ([`layout_codegen::plan::ConversionPlan`]) as text: the
//! one printer that `linlayout convert` and Python's
//! `linear_layouts.convert(...).text` share.
//!
//! Notation (the plan's own data, nothing recomputed):
//!
//! - an affine address `c ^ lane[i]·x ^ warp[k]·y` is the constant `c`
//!   XOR the value `x` for every set bit `i` of the lane id and `y` for
//!   every set bit `k` of the warp id ([`layout_codegen::plan::Address`]);
//! - `st.shared v4 r[0, 1, 2, 3] @ addr`: a vector access of four registers,
//!   in that order, at element offset `addr` (+0, +1, ...);
//! - `ldmatrix.x4.trans r[...] @ row addr`: a matrix access, `addr` the
//!   element offset of the 16-byte row each lane supplies;
//! - warp programs: `v<k>` is value slot `k`; slots below the program's
//!   input count start as the source registers.
//!
//! ```
//! use layout_codegen::plan::ConversionPlan;
//! let plan = ConversionPlan::RegisterPermutation { src_register: vec![1, 0] };
//! assert_eq!(
//!     layout_view::plan_text::plan_text(&plan),
//!     "plan: register permutation (dst register <- src register)\n  r0 <- r1\n  r1 <- r0\n"
//! );
//! ```

use layout_codegen::packed_shuffle::WordProgram;
use layout_codegen::plan::{Access, Address, ConversionPlan, Regroup, RegroupAt};
use layout_codegen::shuffle::{LanePredicate, ShflMode, WarpInstr};
use layout_codegen::shuffle_words::WordInstr;
use linear_layout::{DimName, LinearLayout};

/// `#ttg.shared_linear<{offset = [[..], ...]}, alignment = A>`: the
/// `offset` bases of a shared layout in Triton's attribute syntax
/// (alignment in bytes).
pub fn shared_linear_text(l: &LinearLayout, alignment: u64) -> String {
    let v: Vec<String> = l
        .bases(DimName::OFFSET)
        .iter()
        .map(|b| {
            let xs: Vec<String> = b.iter().map(|x| x.to_string()).collect();
            format!("[{}]", xs.join(", "))
        })
        .collect();
    format!(
        "#ttg.shared_linear<{{offset = [{}]}}, alignment = {alignment}>",
        v.join(", ")
    )
}

/// `#ttg.linear<{register = .., lane = .., warp = .., block = ..}>`: a
/// distributed layout in Triton's attribute syntax.
pub fn distributed_linear_text(l: &LinearLayout) -> String {
    let part = |d: DimName| {
        let v: Vec<String> = l
            .bases(d)
            .iter()
            .map(|b| {
                let xs: Vec<String> = b.iter().map(|x| x.to_string()).collect();
                format!("[{}]", xs.join(", "))
            })
            .collect();
        format!("{d} = [{}]", v.join(", "))
    };
    let parts: Vec<String> = [
        DimName::REGISTER,
        DimName::LANE,
        DimName::WARP,
        DimName::BLOCK,
    ]
    .into_iter()
    .map(part)
    .collect();
    format!("#ttg.linear<{{{}}}>", parts.join(", "))
}

/// The text of a staged plan: the regroup (which bits it exchanges, its
/// shuffles and the `prmt` selectors of lane 0 and of the last lane), the
/// intermediate layout, then the word-stage plan ([`plan_text`]) in the
/// order they run.
pub fn staged_text(regroup: &Regroup, then: &ConversionPlan) -> String {
    let c = regroup.program.cost();
    let mut head = format!(
        "plan: staged, {}-bit elements: the regroup {} the word-level plan\n",
        regroup.bitwidth,
        match regroup.at {
            RegroupAt::Before => "before",
            RegroupAt::After => "after",
        }
    );
    let pairs: Vec<String> = regroup
        .lane_bits
        .iter()
        .enumerate()
        .map(|(i, a)| format!("register bit {i} <-> lane bit {a}"))
        .collect();
    head.push_str(&format!(
        "  regroup: {} per thread: {} shfl.sync.bfly, {} prmt ({} words)\n",
        pairs.join(", "),
        c.shuffles,
        c.permutes,
        regroup.program.num_inputs
    ));
    head.push_str(&format!(
        "  intermediate layout: {}\n",
        distributed_linear_text(&regroup.intermediate_layout)
    ));
    let last = regroup.program.lanes as usize - 1;
    for (k, ins) in regroup.program.instrs.iter().enumerate() {
        let t = match ins {
            WordInstr::Permute {
                dst,
                x,
                y,
                selector,
            } => format!(
                "w{dst} = prmt(w{x}, w{y}, lane 0: {:#06x} .. lane {last}: {:#06x})",
                selector[0], selector[last]
            ),
            WordInstr::Shuffle { dst, src, mode } => match mode {
                ShflMode::Xor { mask } => format!("w{dst} = shfl.bfly(w{src}, lane ^ {mask})"),
                ShflMode::Idx { .. } => format!("w{dst} = shfl.idx(w{src})"),
            },
        };
        head.push_str(&format!("    {k}: {t}\n"));
    }
    let body = plan_text(then);
    let (before, after) = match regroup.at {
        RegroupAt::Before => (head, body),
        RegroupAt::After => (body, head),
    };
    format!("{before}{after}")
}

/// `name[i]·x` for every non-zero `x = v[i]`, joined by ` ^ `.
fn terms(name: &str, v: &[u64]) -> String {
    v.iter()
        .enumerate()
        .filter(|(_, &x)| x != 0)
        .map(|(i, x)| format!("{name}[{i}]·{x}"))
        .collect::<Vec<_>>()
        .join(" ^ ")
}

/// An affine address of lane and warp: `c ^ lane[i]·x ^ warp[k]·y`.
pub fn address_text(a: &Address) -> String {
    let mut t = vec![a.constant.to_string()];
    for s in [terms("lane", &a.lane), terms("warp", &a.warp)] {
        if !s.is_empty() {
            t.push(s);
        }
    }
    t.join(" ^ ")
}

/// One shared-memory instruction of a plan: `st.shared` / `ld.shared`
/// with [`access_text`], or `stmatrix` / `ldmatrix` `.x<count>[.trans]
/// r[...] @ row <address>` (the 16-byte row each lane supplies;
/// [`Access`] says which register holds which element).
pub fn instruction_text(a: &Access, store: bool) -> String {
    match a.matrix {
        None => format!(
            "{} {}",
            if store { "st.shared" } else { "ld.shared" },
            access_text(a)
        ),
        Some(m) => format!(
            "{}.x{}{} r{:?} @ row {}",
            if store { "stmatrix" } else { "ldmatrix" },
            m.count,
            if m.trans { ".trans" } else { "" },
            a.registers,
            address_text(&a.address)
        ),
    }
}

/// One shared-memory access: `v<n> r[<registers>] @ <address>`.
pub fn access_text(a: &Access) -> String {
    format!(
        "v{} r{:?} @ {}",
        a.registers.len(),
        a.registers,
        address_text(&a.address)
    )
}

/// One instruction of a warp program (`v` = value slot; slots below the
/// program's `num_inputs` start as the source registers).
pub fn warp_instr_text(ins: &WarpInstr) -> String {
    let pred = |c: &LanePredicate| match c {
        LanePredicate::Parity { mask } => format!("parity(lane & {mask:#x})"),
        LanePredicate::Equals { bases, value } => format!("B·lane == {value} (B = {bases:?})"),
    };
    match ins {
        WarpInstr::Copy { dst, src } => format!("v{dst} = v{src}"),
        WarpInstr::Shuffle { dst, src, mode } => match mode {
            ShflMode::Xor { mask } => format!("v{dst} = shfl.bfly(v{src}, lane ^ {mask})"),
            ShflMode::Idx { src_lane } => format!(
                "v{dst} = shfl.idx(v{src}, lane {} ^ L·lane (L = {:?}))",
                src_lane.constant, src_lane.bases
            ),
        },
        WarpInstr::Select {
            dst,
            cond,
            if_true,
            if_false,
        } => format!("v{dst} = {} ? v{if_true} : v{if_false}", pred(cond)),
        WarpInstr::Pack { dst, parts } => {
            let p: Vec<String> = parts.iter().map(|x| format!("v{x}")).collect();
            format!("v{dst} = prmt.pack({}) (low part first)", p.join(", "))
        }
        WarpInstr::Unpack { dsts, src } => {
            let d: Vec<String> = dsts.iter().map(|x| format!("v{x}")).collect();
            format!("{} = prmt.unpack(v{src})", d.join(", "))
        }
    }
}

/// A warp program over packed 32-bit words (what runs for 8/16-bit
/// elements where the planner takes that form), one instruction per line:
/// `w<k>` is word slot `k`; slots below the input count start as the source
/// words (word `j` holds registers `e·j .. e·j + e − 1`, `e = 32 / bits`,
/// the lowest register in the low bits). A permute's selector is shown per
/// lane when lanes differ (`sel[lane]`), else once.
pub fn word_program_text(prog: &WordProgram) -> String {
    let mut out = String::new();
    let c = prog.cost();
    out.push_str(&format!(
        "plan: warp program on packed 32-bit words, {} instructions ({} shfl.sync, {} prmt), {}-bit elements\n",
        prog.instrs.len(),
        c.shuffles,
        c.permutes,
        prog.bitwidth
    ));
    for (k, ins) in prog.instrs.iter().enumerate() {
        let text = match ins {
            WordInstr::Permute {
                dst,
                x,
                y,
                selector,
            } => {
                let sel = selector_text(selector);
                format!("w{dst} = prmt(w{x}, w{y}, {sel})")
            }
            WordInstr::Shuffle { dst, src, mode } => match mode {
                ShflMode::Xor { mask } => format!("w{dst} = shfl.bfly(w{src}, lane ^ {mask})"),
                ShflMode::Idx { src_lane } => format!(
                    "w{dst} = shfl.idx(w{src}, lane {} ^ L·lane (L = {:?}))",
                    src_lane.constant, src_lane.bases
                ),
            },
        };
        out.push_str(&format!("  {k}: {text}\n"));
    }
    let outs: Vec<String> = prog
        .outputs
        .iter()
        .enumerate()
        .map(|(i, s)| format!("word{i}=w{s}"))
        .collect();
    out.push_str(&format!("  outputs: {}\n", outs.join(" ")));
    out
}

/// A per-lane `prmt` selector: one value when every lane has it, else
/// `sel(lane bits [b0, b1, ..]) = [v0, v1, ..]`, the value for each
/// combination of the lane bits it depends on (`b0` the low index bit).
fn selector_text(selector: &[u32]) -> String {
    let n = selector.len();
    let bits: Vec<usize> = (0..n.trailing_zeros() as usize)
        .filter(|&k| (0..n).any(|l| selector[l] != selector[l ^ (1 << k)]))
        .collect();
    if bits.is_empty() {
        return format!("{:#06x}", selector.first().copied().unwrap_or(0));
    }
    let values: Vec<String> = (0..1usize << bits.len())
        .map(|i| {
            let lane: usize = bits
                .iter()
                .enumerate()
                .filter(|(j, _)| i >> j & 1 == 1)
                .map(|(_, &b)| 1 << b)
                .sum();
            format!("{:#06x}", selector[lane])
        })
        .collect();
    format!("sel(lane bits {bits:?}) = [{}]", values.join(", "))
}

/// The plan, one instruction per line (each line ends with `\n`): its
/// kind and size on the first line, then the instructions, indented.
pub fn plan_text(plan: &ConversionPlan) -> String {
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    match plan {
        ConversionPlan::NoOp { registers } => line(format!(
            "plan: no-op ({registers} registers per thread already hold their elements)"
        )),
        ConversionPlan::RegisterPermutation { src_register } => {
            line("plan: register permutation (dst register <- src register)".into());
            for (i, s) in src_register.iter().enumerate() {
                line(format!("  r{i} <- r{s}"));
            }
        }
        ConversionPlan::WarpShuffle { shuffles } => {
            line(format!(
                "plan: {} warp shuffles (shfl.sync.idx)",
                shuffles.len()
            ));
            // Shuffle addresses depend on the lane only.
            let affine = |a: &Address| {
                let mut t = vec![a.constant.to_string()];
                let l = terms("lane", &a.lane);
                if !l.is_empty() {
                    t.push(l);
                }
                t.join(" ^ ")
            };
            for sh in shuffles {
                let sel = match &sh.select {
                    Some((cols, want)) => format!(" if B·lane == {want} (B = {cols:?})"),
                    None => String::new(),
                };
                line(format!(
                    "  r[{}] <- shfl(r[{}], from lane {}){sel}",
                    affine(&sh.dst_register),
                    affine(&sh.src_register),
                    affine(&sh.src_lane)
                ));
            }
        }
        ConversionPlan::WarpProgram(prog) => {
            let c = prog.cost();
            line(format!(
                "plan: warp program, {} instructions ({} shfl.sync, {} selp, {} prmt), {}-bit elements",
                prog.instrs.len(),
                c.shuffles,
                c.selects,
                c.prmt,
                prog.bitwidth
            ));
            for (k, ins) in prog.instrs.iter().enumerate() {
                line(format!("  {k}: {}", warp_instr_text(ins)));
            }
            let outs: Vec<String> = prog
                .outputs
                .iter()
                .enumerate()
                .map(|(i, s)| format!("r{i}=v{s}"))
                .collect();
            line(format!("  outputs: {}", outs.join(" ")));
        }
        ConversionPlan::SharedMemory(p) => {
            if let Some(n) = &p.note {
                line(format!("note: {n}"));
            }
            line(format!(
                "plan: through shared memory, {} round(s), scratch {} bytes{}",
                p.rounds.len(),
                p.scratch_bytes,
                if p.warp_private {
                    ", warp-private (each warp touches only its own part)"
                } else {
                    ""
                }
            ));
            line(format!(
                "  shared layout: {}",
                shared_linear_text(&p.shared_layout, 16)
            ));
            for (i, r) in p.rounds.iter().enumerate() {
                line(format!("  round {i}:"));
                for s in &r.stores {
                    line(format!("    {}", instruction_text(s, true)));
                }
                line(if p.warp_private {
                    "    warp barrier".into()
                } else {
                    "    barrier".into()
                });
                for l in &r.loads {
                    line(format!("    {}", instruction_text(l, false)));
                }
            }
            for (to, from) in &p.copies {
                line(format!("  r{to} <- r{from} (broadcast copy)"));
            }
        }
    }
    out
}

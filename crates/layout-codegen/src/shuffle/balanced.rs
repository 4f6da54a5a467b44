//! The balanced warp-shuffle planner: programs whose shuffles and selects
//! are traded against each other so that the roofline
//! `max(shuffles, ALU / ALU_PER_CYCLE)` of [`crate::cost`] is least.
//!
//! # Terms
//! Take a warp-local conversion, `C = dst⁻¹ ∘ src` trivial over warp and
//! block (as in [`general_shuffle_plan`]). Destination register `d` of lane
//! `l` holds source register `C_reg(d, 0) ⊕ M(l)` of source lane
//! `C_lane(d, 0) ⊕ Λ(l)`, with `M(l) = C_reg(0, l)` and `Λ(l) = C_lane(0,
//! l)` linear. For each value `s` of the image of `M` the lanes
//! `K_s = {l : M(l) = s}` (a coset of `ker M`) read one warp-uniform source
//! register, `C_reg(d, 0) ⊕ s`: a *term* `(d, s)`. Only the keepers `K_s`
//! matter, so the term's route is
//! * *own*: `C_lane(d, 0) ⊕ Λ(l) = l` on `K_s` (no instruction);
//! * *butterfly* `c`: `C_lane(d, 0) ⊕ Λ(l) = l ⊕ c` on `K_s`
//!   (`shfl.sync.bfly` with mask `c`);
//! * otherwise `shfl.sync.idx` from `C_lane(d, 0) ⊕ Λ(l)`.
//!
//! Register `d` is then a select chain over its terms, `|image M| − 1`
//! selects (`M(l) = s` is an [`LanePredicate::Equals`]).
//!
//! # Merging butterflies
//! Two butterflies with the same mask `c` whose senders are disjoint can
//! share one shuffle: the senders of term `(d, s)` are `K_s ⊕ c = {m :
//! M(m) = s ⊕ M(c)}`, so terms with different `v = s ⊕ M(c)` have disjoint
//! senders, and the merged shuffle sends `select(M(m) = v_b, r_b, r_a)`.
//! Each merge takes one shuffle from the shared-memory pipe and gives one
//! select to the ALU pipe. For a one-bit register↔lane exchange the two
//! terms of a register pair merged are Triton's *Ship* (select,
//! `shfl.bfly`, two selects); unmerged, *shuffle-then-select* (two
//! shuffles, two selects). With `S₀` shuffles and `A₀` selects unmerged
//! and `m` merges the roofline is `max(S₀ − m, (A₀ + m) / 2)`, least near
//! `m = (2·S₀ − A₀) / 3`: for `swap1_64x64_f32` (16 pairs, `S₀ = A₀ = 32`)
//! 11 merges give 21 shuffles and 43 selects, 21.5 cycles, where Ship (16
//! merges) costs 24.
//!
//! # Steps
//! A conversion whose register and lane bases are a permutation of each
//! other may also run as a sequence of one-bit exchanges: while a source
//! register basis is the destination's lane basis `b` and source lane basis
//! `b` is a destination register basis, swap the two (an intermediate
//! layout); the last step converts to `dst` (a register renaming when the
//! lanes are in place). Each step is planned by terms; merges are counted
//! over all steps. Two transpositions (`swap2_64x64_f32`) cost 8 shuffles
//! and 8 selects per 4 registers unmerged (4 and 12 as two Ships), where
//! Triton's Swap needs 3 shuffles but 16 selects: with 21 of the 32
//! merges, 43 shuffles and 85 selects (43 cycles) against Swap's 24 and
//! 128 (64 cycles).
//!
//! [`BalancedPrograms`] offers, for the direct and the stepwise structure,
//! the programs with the roofline-optimal merge count, with all merges and
//! (unless the program is large) with none and with merge counts in steps
//! of whole words: the packed-word form of 8/16-bit programs
//! ([`crate::packed_shuffle::WordProgram::from_program`]) may prefer
//! another than the element roofline.
//!
//! ```
//! use layout_codegen::shuffle::{balanced_shuffle_plan, check_warp_program};
//! use linear_layout::{DimName, LinearLayout};
//! let (reg, lane, d0) = (DimName::REGISTER, DimName::LANE, DimName::dim(0));
//! // 4 registers (elements 1, 2), lanes (elements 4..128); dst exchanges
//! // register bit 0 with lane bit 0: two register pairs.
//! let src = LinearLayout::identity_1d(4, reg, d0) * LinearLayout::identity_1d(32, lane, d0);
//! let dst = LinearLayout::new(
//!     vec![
//!         (reg, vec![vec![4], vec![2]]),
//!         (lane, vec![vec![1], vec![8], vec![16], vec![32], vec![64]]),
//!     ],
//!     vec![(d0, 128)],
//!     true,
//! ).unwrap();
//! let plan = balanced_shuffle_plan(&src, &dst, 32).unwrap();
//! check_warp_program(&plan.program, &src, &dst).unwrap();
//! // S₀ = A₀ = 4: one merge (Ship on one pair, shuffle-then-select on the
//! // other): 3 shuffles, 5 selects, max(3, 2.5) = 3 cycles (two Ships, 2
//! // shuffles and 6 selects, also cost 3; ties take fewer merges).
//! assert_eq!((plan.cost.shuffles, plan.cost.selects), (3, 5));
//! ```

use super::*;
use crate::cost::ALU_PER_CYCLE;
use linear_layout::{gf2, DimName, LinearLayout};
use std::collections::HashMap;

/// How a term's value reaches the lanes that keep it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Route {
    /// Every keeper reads its own register.
    Own,
    /// Keeper `l` reads lane `l ⊕ mask`.
    Xor(u32),
    /// Keeper `l` reads lane `src_lane(l)`.
    Idx(LaneMap),
}

/// Destination register `d` takes source register `src` in the lanes with
/// `M(l) = s`.
#[derive(Clone, Debug)]
struct Term {
    src: usize,
    s: u64,
    route: Route,
}

/// One destination register of a step: its terms, or a replica of an
/// earlier register.
#[derive(Clone, Debug)]
enum Reg {
    Terms(Vec<Term>),
    Replica(usize),
}

/// A term: `(destination register, index among its terms)`.
type TermId = (usize, usize);

/// The butterflies of one mask whose senders are the lanes with `M(m) = v`.
type Coset = (u64, Vec<TermId>);

/// One conversion step planned by terms.
#[derive(Clone, Debug)]
struct Step {
    /// `M` on lane bits: the source-register offset a lane reads.
    m_bases: Vec<u64>,
    regs: Vec<Reg>,
}

impl Step {
    fn plan(src: &LinearLayout, dst: &LinearLayout) -> Result<Step, ShuffleError> {
        let dec = super::general::LaneDecomposition::new(src, dst)?;
        let (lanes, zero_mask) = (dec.lanes, dec.zero_mask);
        let mut regs = Vec::new();
        for d in 0..dst.in_dim_size(DimName::REGISTER) {
            if d & zero_mask != 0 {
                regs.push(Reg::Replica((d & !zero_mask) as usize));
                continue;
            }
            let (base_reg, src_lane) = dec.base(d)?;
            let terms = dec
                .image
                .iter()
                .map(|&s| {
                    let mut offsets = (0..lanes)
                        .filter(|&l| dec.m(l) == s)
                        .map(|l| src_lane.apply(l) ^ l);
                    let first = offsets.next().expect("s is in the image of M");
                    let route = match (first, offsets.all(|o| o == first)) {
                        (0, true) => Route::Own,
                        (c, true) => Route::Xor(c),
                        _ => Route::Idx(src_lane.clone()),
                    };
                    Term {
                        src: (base_reg ^ s) as usize,
                        s,
                        route,
                    }
                })
                .collect();
            regs.push(Reg::Terms(terms));
        }
        Ok(Step {
            m_bases: dec.m_bases,
            regs,
        })
    }

    /// The step's terms (replicas have none).
    fn terms(&self) -> usize {
        self.regs
            .iter()
            .map(|r| match r {
                Reg::Terms(t) => t.len(),
                Reg::Replica(_) => 0,
            })
            .sum()
    }

    /// `M(lane)`.
    fn m(&self, lane: u32) -> u64 {
        gf2::xor_columns(&self.m_bases, lane.into())
    }

    /// The shuffles of the step with up to `budget` merges (decremented by
    /// the merges made): each group is `(register, term)` indices sharing
    /// one shuffle, the first term's route; groups of butterflies have one
    /// term per sender coset `v = s ⊕ M(mask)`.
    fn groups(&self, budget: &mut usize) -> Vec<Vec<(usize, usize)>> {
        let mut groups = Vec::new();
        // Butterflies by mask, then by sender coset, in program order.
        let mut by_mask: Vec<(u32, Vec<Coset>)> = Vec::new();
        for (d, reg) in self.regs.iter().enumerate() {
            let Reg::Terms(terms) = reg else { continue };
            for (k, t) in terms.iter().enumerate() {
                match &t.route {
                    Route::Own => {}
                    Route::Idx(_) => groups.push(vec![(d, k)]),
                    Route::Xor(c) => {
                        let v = t.s ^ self.m(*c);
                        let i = match by_mask.iter().position(|x| x.0 == *c) {
                            Some(i) => i,
                            None => {
                                by_mask.push((*c, Vec::new()));
                                by_mask.len() - 1
                            }
                        };
                        let cosets = &mut by_mask[i].1;
                        match cosets.iter_mut().find(|x| x.0 == v) {
                            Some(x) => x.1.push((d, k)),
                            None => cosets.push((v, vec![(d, k)])),
                        }
                    }
                }
            }
        }
        for (_, mut cosets) in by_mask {
            for c in &mut cosets {
                c.1.reverse(); // pop() takes them in program order
            }
            loop {
                // A new shuffle from the fullest coset, then one term of
                // each other coset while merges are left.
                cosets.sort_by_key(|c| std::cmp::Reverse(c.1.len()));
                let Some(first) = cosets.first_mut().and_then(|c| c.1.pop()) else {
                    break;
                };
                let mut group = vec![first];
                for c in cosets.iter_mut().skip(1) {
                    if *budget == 0 {
                        break;
                    }
                    if let Some(t) = c.1.pop() {
                        group.push(t);
                        *budget -= 1;
                    }
                }
                groups.push(group);
            }
        }
        groups
    }

    /// Emits the step into `prog`: source register `r` is in slot
    /// `inputs[r]`; returns the slots of the destination registers.
    fn emit(&self, prog: &mut WarpProgram, inputs: &[Slot], budget: &mut usize) -> Vec<Slot> {
        let terms = |d: usize| match &self.regs[d] {
            Reg::Terms(t) => t,
            Reg::Replica(_) => unreachable!("groups hold terms only"),
        };
        let mut got: Vec<Vec<Option<Slot>>> = self
            .regs
            .iter()
            .map(|r| match r {
                Reg::Terms(t) => t
                    .iter()
                    .map(|t| (t.route == Route::Own).then(|| inputs[t.src]))
                    .collect(),
                Reg::Replica(_) => Vec::new(),
            })
            .collect();
        // Values to shuffle, by mode, in program order.
        type Sends = Vec<(Slot, Vec<(usize, usize)>)>;
        let mut pending: Vec<(ShflMode, Sends)> = Vec::new();
        // Index in `pending` by mode: a mask, or the constant of an idx
        // map (the step's idx maps share their bases, `Λ`).
        let mut by_mode: HashMap<(bool, u32), usize> = HashMap::new();
        for group in self.groups(budget) {
            let (d0, k0) = group[0];
            let route = terms(d0)[k0].route.clone();
            let mut sent = inputs[terms(d0)[k0].src];
            if let Route::Xor(c) = route {
                let mc = self.m(c);
                for &(d, k) in &group[1..] {
                    let t = &terms(d)[k];
                    let (prev, value) = (sent, inputs[t.src]);
                    sent = prog.push(|dst| WarpInstr::Select {
                        dst,
                        cond: LanePredicate::Equals {
                            bases: self.m_bases.clone(),
                            value: t.s ^ mc,
                        },
                        if_true: value,
                        if_false: prev,
                    });
                }
            }
            let mode = match route {
                Route::Xor(mask) => ShflMode::Xor { mask },
                Route::Idx(src_lane) => ShflMode::Idx { src_lane },
                Route::Own => unreachable!("own terms need no shuffle"),
            };
            let key = match &mode {
                ShflMode::Xor { mask } => (false, *mask),
                ShflMode::Idx { src_lane } => (true, src_lane.constant),
            };
            match by_mode.get(&key) {
                Some(&i) => pending[i].1.push((sent, group)),
                None => {
                    by_mode.insert(key, pending.len());
                    pending.push((mode, vec![(sent, group)]));
                }
            }
        }
        // Shuffles of one mode move `32 / bitwidth` values per word: the
        // merged ones first, then the registers sent as they are, in slot
        // order (a source word's parts stay together).
        let per_word = (32 / prog.bitwidth.max(1)).max(1) as usize;
        for (mode, mut values) in pending {
            values.sort_by_key(|(sent, group)| (group.len() == 1, *sent));
            for chunk in values.chunks(per_word) {
                let ys: Vec<Slot> = if let [(sent, _)] = chunk {
                    let (src, mode) = (*sent, mode.clone());
                    vec![prog.push(|dst| WarpInstr::Shuffle { dst, src, mode })]
                } else {
                    let parts = chunk.iter().map(|c| c.0).collect();
                    let word = prog.push(|dst| WarpInstr::Pack { dst, parts });
                    let mode = mode.clone();
                    let y = prog.push(|dst| WarpInstr::Shuffle {
                        dst,
                        src: word,
                        mode,
                    });
                    let dsts: Vec<Slot> = chunk.iter().map(|_| prog.new_slot()).collect();
                    prog.instrs.push(WarpInstr::Unpack {
                        dsts: dsts.clone(),
                        src: y,
                    });
                    dsts
                };
                for ((_, group), y) in chunk.iter().zip(ys) {
                    for &(d, k) in group {
                        got[d][k] = Some(y);
                    }
                }
            }
        }
        let mut outputs: Vec<Slot> = Vec::with_capacity(self.regs.len());
        for (d, reg) in self.regs.iter().enumerate() {
            let out = match reg {
                Reg::Replica(e) => outputs[*e],
                Reg::Terms(terms) => {
                    let mut result: Option<Slot> = None;
                    for (t, g) in terms.iter().zip(&got[d]) {
                        let g = g.expect("every term is routed");
                        result = Some(match result {
                            Some(prev) if prev != g => prog.push(|dst| WarpInstr::Select {
                                dst,
                                cond: LanePredicate::Equals {
                                    bases: self.m_bases.clone(),
                                    value: t.s,
                                },
                                if_true: g,
                                if_false: prev,
                            }),
                            _ => g,
                        });
                    }
                    result.expect("the image of M is non-empty")
                }
            };
            outputs.push(out);
        }
        outputs
    }
}

/// The intermediate layouts of the stepwise structure (module doc), `src`
/// and `dst` excluded: each swaps one register basis of the previous with
/// the lane basis `b` it has in `dst`, where the previous lane basis `b` is
/// a register basis of `dst`. At most one step per lane bit.
fn exchange_steps(src: &LinearLayout, dst: &LinearLayout) -> Vec<LinearLayout> {
    let mut steps = Vec::new();
    let mut cur = src.clone();
    let dst_reg = dst.packed_bases(DimName::REGISTER).to_vec();
    let dst_lane = dst.packed_bases(DimName::LANE).to_vec();
    loop {
        let reg = cur.packed_bases(DimName::REGISTER);
        let lane = cur.packed_bases(DimName::LANE);
        let found = reg.iter().enumerate().find_map(|(a, &v)| {
            let b = dst_lane.iter().position(|&x| x == v && v != 0)?;
            (lane[b] != v && lane[b] != 0 && dst_reg.contains(&lane[b])).then_some((a, b))
        });
        let Some((a, b)) = found else { break };
        let mut bases = cur.all_bases();
        let (ri, li) = (
            bases.iter().position(|x| x.0 == DimName::REGISTER),
            bases.iter().position(|x| x.0 == DimName::LANE),
        );
        let (Some(ri), Some(li)) = (ri, li) else {
            break;
        };
        let r = std::mem::take(&mut bases[ri].1[a]);
        let l = std::mem::replace(&mut bases[li].1[b], r);
        bases[ri].1[a] = l;
        let Ok(next) = LinearLayout::new(bases, cur.out_dims(), false) else {
            break;
        };
        steps.push(next.clone());
        cur = next;
    }
    steps
}

/// A program of `steps` (`(from, to)` layouts chained) with `merges`
/// merges at most, and the merges it made.
fn emit_steps(
    steps: &[Step],
    lanes: u32,
    bitwidth: u32,
    n_src: usize,
    merges: usize,
) -> (WarpProgram, usize) {
    let mut prog = WarpProgram::new(lanes, bitwidth, n_src);
    let mut regs: Vec<Slot> = (0..n_src).collect();
    let mut budget = merges;
    for step in steps {
        regs = step.emit(&mut prog, &regs, &mut budget);
    }
    prog.outputs = regs;
    (prog, merges - budget)
}

/// The model's in-warp cycles of a program ([`crate::cost::shuffle_cycles`]).
fn cycles(c: &ShuffleCost) -> f64 {
    (c.shuffles as f64).max((c.selects + c.prmt) as f64 / ALU_PER_CYCLE)
}

/// Terms above which only two merge counts per structure are offered
/// (each is a program to prove): the suite's largest in-warp pair has 256;
/// a 512x512 16-bit transpose in one warp has 2^18 and took 32 s to plan
/// in a debug build with four.
const WORD_STEP_TERMS: usize = 1 << 14;

/// The balanced programs of one conversion, built one at a time
/// ([`BalancedPrograms::program`]) so that a caller comparing them (the
/// planner, by its word-form cost) holds one at a time.
#[derive(Clone, Debug)]
pub struct BalancedPrograms {
    structures: Vec<Vec<Step>>,
    lanes: u32,
    bitwidth: u32,
    n_src: usize,
    /// `(structure, merges, in-warp cycles)`, cheapest first.
    choices: Vec<(usize, usize, f64)>,
}

impl BalancedPrograms {
    /// The programs of `src → dst` (module doc): for the direct structure
    /// and, when it exists, the stepwise one, the merge count optimal for
    /// the in-warp roofline and all merges, and up to `WORD_STEP_TERMS`
    /// terms also none and, for 8/16-bit elements, up to 16 merge counts
    /// in steps of whole words; shuffles of one mode are packed `32 /
    /// bitwidth` values to a word.
    ///
    /// Errors: an unsupported bit width, layouts that disagree, a
    /// conversion that leaves the warp ([`ShuffleError::NotWarpLocal`]).
    pub fn new(
        src: &LinearLayout,
        dst: &LinearLayout,
        bitwidth: u32,
    ) -> Result<Self, ShuffleError> {
        check_bitwidth(bitwidth)?;
        let mut structures = vec![vec![Step::plan(src, dst)?]];
        let inter = exchange_steps(src, dst);
        if !inter.is_empty() {
            let chain: Vec<&LinearLayout> = std::iter::once(src)
                .chain(&inter)
                .chain(std::iter::once(dst))
                .collect();
            let steps = chain
                .windows(2)
                .map(|p| Step::plan(p[0], p[1]))
                .collect::<Result<Vec<_>, _>>()?;
            structures.push(steps);
        }
        let mut me = BalancedPrograms {
            structures,
            lanes: src.in_dim_size(DimName::LANE) as u32,
            bitwidth,
            n_src: src.in_dim_size(DimName::REGISTER) as usize,
            choices: Vec::new(),
        };
        let mut choices = Vec::new();
        for k in 0..me.structures.len() {
            let cost = |m| me.emit(k, m).0.cost();
            let (all, max) = me.emit(k, usize::MAX);
            let all = all.cost();
            let none = cost(0);
            let (s0, a0) = (none.shuffles, none.selects);
            // max(s0 − m, (a0 + m) / 2) is least where both sides meet.
            let meet = ((2 * s0) as f64 - a0 as f64) / 3.0;
            let mut ms: Vec<usize> = [meet.floor(), meet.ceil()]
                .iter()
                .map(|m| (m.max(0.0) as usize).min(max))
                .collect();
            // Packed words: the word form's counts are not the element
            // program's, so merge counts in whole words (with 8 of them
            // `swap1_128x128_f8` reaches 22 cycles, with 16 21.5). Large
            // programs: the roofline's choice and all merges only.
            let per_word = (32 / bitwidth) as usize;
            let terms: usize = me.structures[k].iter().map(Step::terms).sum();
            ms.push(max);
            if terms <= WORD_STEP_TERMS {
                ms.push(0);
            }
            if per_word > 1 && terms <= WORD_STEP_TERMS {
                let step = (max / 16).max(1).next_multiple_of(per_word);
                ms.extend((step..max).step_by(step));
            }
            ms.sort_unstable();
            ms.dedup();
            for m in ms {
                let c = cycles(&match m {
                    0 => none,
                    m if m == max => all,
                    m => cost(m),
                });
                choices.push((k, m, c));
            }
        }
        // Cheapest first; at equal cycles fewer merges (fewer selects).
        choices.sort_by(|a, b| a.2.total_cmp(&b.2).then(a.1.cmp(&b.1)));
        me.choices = choices;
        Ok(me)
    }

    /// How many programs there are.
    pub fn len(&self) -> usize {
        self.choices.len()
    }

    /// Whether there are none (never: every conversion has one).
    pub fn is_empty(&self) -> bool {
        self.choices.is_empty()
    }

    /// Program `i` (`i < len()`), cheapest under the model's in-warp
    /// roofline first; `None` beyond the last.
    pub fn program(&self, i: usize) -> Option<WarpShufflePlan> {
        let &(k, m, _) = self.choices.get(i)?;
        let program = self.emit(k, m).0;
        Some(WarpShufflePlan {
            strategy: ShuffleStrategy::Balanced,
            decomposition: None,
            cost: program.cost(),
            program,
        })
    }

    /// The program of structure `k` with at most `merges` merges, and the
    /// merges it made.
    fn emit(&self, k: usize, merges: usize) -> (WarpProgram, usize) {
        emit_steps(
            &self.structures[k],
            self.lanes,
            self.bitwidth,
            self.n_src,
            merges,
        )
    }
}

/// Every program of [`BalancedPrograms`] of `src → dst`, cheapest under the
/// model's in-warp roofline first.
///
/// Errors: those of [`BalancedPrograms::new`].
pub fn balanced_shuffle_plans(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<Vec<WarpShufflePlan>, ShuffleError> {
    let programs = BalancedPrograms::new(src, dst, bitwidth)?;
    Ok((0..programs.len())
        .filter_map(|i| programs.program(i))
        .collect())
}

/// The cheapest of [`balanced_shuffle_plans`] under the model's in-warp
/// roofline `max(shuffles, (selects + prmt) / ALU_PER_CYCLE)`.
///
/// Errors: those of [`BalancedPrograms::new`].
pub fn balanced_shuffle_plan(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<WarpShufflePlan, ShuffleError> {
    Ok(BalancedPrograms::new(src, dst, bitwidth)?
        .program(0)
        .expect("every structure offers its roofline's choice"))
}

//! The paper's warp-shuffle planner (§5.4): coset rounds, one `shfl.idx`
//! each.

use super::*;
use linear_layout::{gf2, DimName, LinearLayout};

/// All values of the span of `gens` (sorted, deduplicated).
fn span_values(gens: &[u64]) -> Vec<u64> {
    let mut span = vec![0u64];
    for &g in gens {
        if !span.contains(&g) {
            let more: Vec<u64> = span.iter().map(|&s| s ^ g).collect();
            span.extend(more);
        }
    }
    span.sort_unstable();
    span
}

/// The paper's warp-shuffle algorithm (§5.4), generalised to broadcasting
/// and non-distributed layouts where it applies.
///
/// With `C = dst⁻¹ ∘ src` on `(dst register, lane) → (src register, src
/// lane)` (destination broadcast registers dropped):
/// * `V`: up to `log2(32 / bitwidth)` destination register bits whose image
///   under `C` is a source register vector (the vectorisation: moved
///   together in one 32-bit word);
/// * the other destination register bits `R` index the rounds; the round
///   subspace is the graph `W = {(f(l), l)}` of a linear `f: lanes →
///   span(R)` (the paper's `G ∪ I`), chosen greedily, lane bit by lane bit,
///   so that `g(l) = C(f(l), l)` satisfies `ker g_lane ⊆ ker g_reg`: each
///   source lane then sends one word per round, register `H(lane)` with
///   `H ∘ g_lane = g_reg`.
/// * round `r ∈ span(R)` (`2^|R|` rounds, one `shfl.idx` each): with
///   `(c_reg, c_lane) = C(r, 0)`, lane `s` sends the word of register
///   `c_reg ⊕ H(s ⊕ c_lane)` (selects over the image of `H`), lane `l`
///   reads lane `c_lane ⊕ g_lane(l)` and receives destination registers
///   `r ⊕ f(l) ⊕ span(V)` (selects over the image of `f`).
///
/// `NoRoundStructure` when the greedy choice of `f` fails (possible with
/// broadcasting); [`general_shuffle_plan`] always works.
pub fn paper_shuffle_plan(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<WarpShufflePlan, ShuffleError> {
    check_bitwidth(bitwidth)?;
    let c = warp_local_conversion(src, dst)?;
    let lanes = src.in_dim_size(DimName::LANE) as u32;
    let n_lane_bits = src.in_dim_size_log2(DimName::LANE);
    let n_src_lane_bits = n_lane_bits;
    let n_src_regs = src.in_dim_size(DimName::REGISTER) as usize;
    // C(dst reg, dst lane) packed as src_lane | src_reg << n_src_lane_bits.
    let ev = |r: u64, l: u64| -> Result<u64, ShuffleError> {
        let (reg, lane) = register_lane_image(&c, r, l)?;
        Ok(lane | reg << n_src_lane_bits)
    };
    let lane_mask = (1u64 << n_src_lane_bits) - 1;
    let dst_kept = nonzero_reg_bits(dst);
    let reg_cols: Vec<u64> = dst_kept
        .iter()
        .map(|&b| ev(1 << b, 0))
        .collect::<Result<_, _>>()?;
    let lane_cols: Vec<u64> = (0..n_lane_bits)
        .map(|k| ev(0, 1 << k))
        .collect::<Result<_, _>>()?;
    // V: compact dst register bits mapping to independent pure src
    // register vectors.
    let max_pack = (32 / bitwidth).trailing_zeros() as usize;
    let mut v_bits: Vec<usize> = Vec::new();
    let mut v_imgs: Vec<u64> = Vec::new();
    for (k, &col) in reg_cols.iter().enumerate() {
        if v_bits.len() == max_pack {
            break;
        }
        if col != 0 && col & lane_mask == 0 {
            let mut trial = v_imgs.clone();
            trial.push(col);
            if gf2::rank(&trial) as usize == trial.len() {
                v_bits.push(k);
                v_imgs.push(col);
            }
        }
    }
    let r_bits: Vec<usize> = (0..reg_cols.len())
        .filter(|k| !v_bits.contains(k))
        .collect();
    let r_cols: Vec<u64> = r_bits.iter().map(|&k| reg_cols[k]).collect();
    // Freedom on the source side: any element of ker(S) on (register,
    // lane) may be added (broadcast copies), packed like C's values.
    let n_src_reg_bits = src.in_dim_size_log2(DimName::REGISTER);
    let src_cols: Vec<u64> = src
        .packed_bases(DimName::REGISTER)
        .iter()
        .chain(src.packed_bases(DimName::LANE))
        .copied()
        .collect();
    let kernel: Vec<u64> = gf2::nullspace(&src_cols)
        .into_iter()
        .map(|x| x >> n_src_reg_bits | (x & ((1 << n_src_reg_bits) - 1)) << n_src_lane_bits)
        .collect();
    let kernel_span = span_values(&kernel);
    // Greedy f: f_k ∈ span(R) (as a mask over r_bits), smallest popcount
    // first, plus a kernel element, keeping rank(g_lane) == rank(g) on the
    // prefix.
    let mut f_masks: Vec<u64> = Vec::new();
    let mut g_cols: Vec<u64> = Vec::new();
    let mut cands: Vec<u64> = (0..1u64 << r_bits.len()).collect();
    cands.sort_by_key(|m| (m.count_ones(), *m));
    for (k, &lane_col) in lane_cols.iter().enumerate() {
        let found = cands.iter().find_map(|&m| {
            kernel_span.iter().find_map(|&kap| {
                let g = gf2::xor_columns(&r_cols, m) ^ lane_col ^ kap;
                let mut all = g_cols.clone();
                all.push(g);
                let lanes_only: Vec<u64> = all.iter().map(|x| x & lane_mask).collect();
                (gf2::rank(&lanes_only) == gf2::rank(&all)).then_some((m, g))
            })
        });
        let Some((m, g)) = found else {
            return Err(ShuffleError::NoRoundStructure {
                detail: format!("no round subspace extends to lane bit {k}"),
            });
        };
        f_masks.push(m);
        g_cols.push(g);
    }
    // H: src lanes -> src regs with H(g_lane(e_k)) = g_reg(e_k).
    let mut basis: Vec<u64> = Vec::new();
    let mut h_vals: Vec<u64> = Vec::new();
    for &g in &g_cols {
        let gl = g & lane_mask;
        let mut trial = basis.clone();
        trial.push(gl);
        if gl != 0 && gf2::rank(&trial) as usize == trial.len() {
            basis.push(gl);
            h_vals.push(g >> n_src_lane_bits);
        }
    }
    for b in 0..n_src_lane_bits {
        let e = 1u64 << b;
        let mut trial = basis.clone();
        trial.push(e);
        if gf2::rank(&trial) as usize == trial.len() {
            basis.push(e);
            h_vals.push(0);
        }
    }
    let h_cols: Vec<u64> = (0..n_src_lane_bits)
        .map(|b| {
            let x = gf2::solve(&basis, 1 << b).expect("basis of the lane space");
            gf2::xor_columns(&h_vals, x)
        })
        .collect();
    let g_lane: Vec<u32> = g_cols.iter().map(|&g| (g & lane_mask) as u32).collect();
    let f_cols: Vec<u64> = f_masks.clone(); // masks over r_bits
    let h_image = span_values(&h_cols);
    let f_image = span_values(&f_cols);
    let mut prog = WarpProgram::new(lanes, bitwidth, n_src_regs);
    let n_parts = 1usize << v_bits.len();
    // Source words: word(b) packs src registers b ⊕ C(v), v over span(V).
    let mut words: std::collections::BTreeMap<u64, Slot> = std::collections::BTreeMap::new();
    let mut word = |prog: &mut WarpProgram, b: u64| -> Slot {
        if let Some(&s) = words.get(&b) {
            return s;
        }
        let s = if n_parts == 1 {
            b as usize
        } else {
            let parts: Vec<Slot> = (0..n_parts as u64)
                .map(|p| (b ^ (gf2::xor_columns(&v_imgs, p) >> n_src_lane_bits)) as usize)
                .collect();
            prog.push(|dst| WarpInstr::Pack { dst, parts })
        };
        words.insert(b, s);
        s
    };
    // Rounds.
    let mut received: Vec<Slot> = Vec::with_capacity(1 << r_bits.len());
    for r in 0..1u64 << r_bits.len() {
        let cr = gf2::xor_columns(&r_cols, r);
        let (c_reg, c_lane) = (cr >> n_src_lane_bits, (cr & lane_mask) as u32);
        let h_c = gf2::xor_columns(&h_cols, c_lane as u64);
        let mut send: Option<Slot> = None;
        for &kappa in &h_image {
            let w = word(&mut prog, c_reg ^ h_c ^ kappa);
            send = Some(match send {
                None => w,
                Some(prev) => prog.push(|dst| WarpInstr::Select {
                    dst,
                    cond: LanePredicate::Equals {
                        bases: h_cols.clone(),
                        value: kappa,
                    },
                    if_true: w,
                    if_false: prev,
                }),
            });
        }
        let send = send.expect("image of H is non-empty");
        let src_lane = LaneMap {
            bases: g_lane.clone(),
            constant: c_lane,
        };
        let got = if src_lane.is_identity() {
            send
        } else {
            prog.push(|dst| WarpInstr::Shuffle {
                dst,
                src: send,
                mode: ShflMode::Idx { src_lane },
            })
        };
        received.push(got);
    }
    // Destination words d ∈ span(R): from round d ⊕ f(l).
    let mut dst_elems: Vec<Slot> = vec![0; 1 << reg_cols.len()];
    for d in 0..1u64 << r_bits.len() {
        let mut res: Option<Slot> = None;
        for &phi in &f_image {
            let w = received[(d ^ phi) as usize];
            res = Some(match res {
                None => w,
                Some(prev) => prog.push(|dst| WarpInstr::Select {
                    dst,
                    cond: LanePredicate::Equals {
                        bases: f_cols.clone(),
                        value: phi,
                    },
                    if_true: w,
                    if_false: prev,
                }),
            });
        }
        let res = res.expect("image of f is non-empty");
        let base = expand(d, &r_bits.iter().map(|&b| b as u32).collect::<Vec<_>>());
        let v32: Vec<u32> = v_bits.iter().map(|&b| b as u32).collect();
        if n_parts == 1 {
            dst_elems[base as usize] = res;
        } else {
            let dsts: Vec<Slot> = (0..n_parts).map(|_| prog.new_slot()).collect();
            for (p, &s) in dsts.iter().enumerate() {
                dst_elems[(base | expand(p as u64, &v32)) as usize] = s;
            }
            prog.instrs.push(WarpInstr::Unpack { dsts, src: res });
        }
    }
    let n_dst_regs = dst.in_dim_size(DimName::REGISTER);
    prog.outputs = (0..n_dst_regs)
        .map(|o| dst_elems[compress(o, &dst_kept) as usize])
        .collect();
    let cost = prog.cost();
    Ok(WarpShufflePlan {
        strategy: ShuffleStrategy::PaperRounds,
        decomposition: None,
        program: prog,
        cost,
    })
}

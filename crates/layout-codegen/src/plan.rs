//! Conversion plans: what a conversion between two distributed layouts
//! does, as plain data (no code is emitted). [`crate::simulator`] executes
//! them.
//!
//! Conventions: register indices are the full register in-dim values of the
//! layouts (broadcast registers included); an [`Address`] is an *element*
//! offset in the scratch buffer (byte address = offset × bytes per element),
//! XOR-linear in the lane and warp ids plus a constant:
//! `offset(lane, warp) = constant ⊕ ⨁_{i: bit i of lane} lane[i] ⊕
//! ⨁_{i: bit i of warp} warp[i]`.

use crate::bank_conflicts::{
    exact_conflicts, phase_lane_offsets, remove_broadcast_registers, reps_dim,
};
use crate::conversion::{classify, conversion_layout, minimal_cvt_layout, ConversionKind};
use crate::error::{check_bitwidth, CodegenError, Result};
use crate::swizzle::{optimal_swizzling, SwizzleResult};
use linear_layout::{gf2, DimName, LinearLayout};
use serde::Serialize;

/// An element offset, XOR-linear in lane and warp.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Address {
    /// The register-dependent constant part.
    pub constant: u64,
    /// Offset contributed by each lane bit.
    pub lane: Vec<u64>,
    /// Offset contributed by each warp bit.
    pub warp: Vec<u64>,
}

impl Address {
    /// The lane- and warp-independent address `c`.
    pub fn constant(c: u64) -> Address {
        Address {
            constant: c,
            lane: vec![],
            warp: vec![],
        }
    }

    /// Whether this maps every lane to itself (no warp part): a "shuffle"
    /// from one's own lane is a local register move.
    pub fn is_identity_lane(&self) -> bool {
        self.constant == 0
            && self.warp.iter().all(|&w| w == 0)
            && self.lane.iter().enumerate().all(|(i, &c)| c == 1 << i)
    }

    /// The element offset for `lane`, `warp`.
    pub fn eval(&self, lane: u64, warp: u64) -> u64 {
        let mut o = self.constant;
        for (i, &b) in self.lane.iter().enumerate() {
            if lane >> i & 1 == 1 {
                o ^= b;
            }
        }
        for (i, &b) in self.warp.iter().enumerate() {
            if warp >> i & 1 == 1 {
                o ^= b;
            }
        }
        o
    }
}

/// One vector shared-memory instruction, the same for every thread: element
/// `j` of the vector at `address` is register `registers[j]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Access {
    /// Registers, one per vector element, lowest address first.
    pub registers: Vec<u64>,
    /// Where the vector starts (aligned to its length).
    pub address: Address,
}

/// One round: a barrier, every store, a barrier, every load.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Round {
    /// `st.shared` instructions (from source registers).
    pub stores: Vec<Access>,
    /// `ld.shared` instructions (into destination registers).
    pub loads: Vec<Access>,
}

/// A conversion through a swizzled shared-memory buffer.
#[derive(Clone, Debug, Serialize)]
pub struct SharedMemoryPlan {
    /// The swizzled layout (offset → tensor, `linear` JSON form; for a
    /// multi-CTA conversion, offset → CTA-local coordinates, see
    /// [`cta_local`]).
    pub shared: serde_json::Value,
    /// The swizzled layout itself.
    #[serde(skip)]
    pub shared_layout: LinearLayout,
    /// Element bit width (sub-byte widths are not modelled).
    pub bitwidth: u32,
    /// Elements per lane per store / per load instruction.
    pub store_vec: u64,
    /// See `store_vec`.
    pub load_vec: u64,
    /// Scratch elements (one round).
    pub scratch_elems: u64,
    /// Scratch bytes.
    pub scratch_bytes: u64,
    /// The rounds (each reuses the scratch buffer).
    pub rounds: Vec<Round>,
    /// After the loads: `(dst register, copy of dst register)` for
    /// destination registers that are broadcast copies of a loaded one.
    pub copies: Vec<(u64, u64)>,
    /// Barriers executed (2 per round, the first round's leading one aside).
    pub barriers: u64,
    /// Analytic store conflicts (extra wavefronts per phase).
    pub store_conflicts: u64,
    /// Analytic load conflicts.
    pub load_conflicts: u64,
    /// The swizzle's paper lower bound (log2 wavefronts of the worse side).
    pub lower_bound_log2: u32,
    /// Why shared memory is used when the conversion's class is cheaper
    /// (see [`plan_via_shared_memory`]).
    pub note: Option<String>,
}

/// One `shfl.sync.idx` of a warp-shuffle plan: every lane `l` sends its
/// register `src_register.eval(l, 0)`; lane `l` reads the value sent by lane
/// `src_lane.eval(l, 0)` and, when `select` holds (or is absent), writes it
/// to its register `dst_register.eval(l, 0)`. Lane-dependent register
/// choices (non-empty `lane` parts) cost selects.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Shuffle {
    /// Register each lane sends, XOR-linear in the sending lane.
    pub src_register: Address,
    /// Source lane, XOR-linear in the reading lane.
    pub src_lane: Address,
    /// Register each lane writes, XOR-linear in the reading lane.
    pub dst_register: Address,
    /// `(columns, expected)`: keep the value iff the XOR of `columns[i]`
    /// over the set bits `i` of the lane id equals `expected`.
    pub select: Option<(Vec<u64>, u64)>,
}

impl Shuffle {
    /// Selects this shuffle costs per thread: a multiplexer over the
    /// registers a lane may send (`2^rank − 1`), one select per register a
    /// lane may write when that register depends on the lane, and the
    /// predicate.
    pub fn selects(&self) -> u64 {
        let n = |a: &Address| 1u64 << gf2::rank(&a.lane);
        let recv = n(&self.dst_register);
        (n(&self.src_register) - 1) + if recv > 1 { recv } else { 0 } + self.select.is_some() as u64
    }
}

/// A conversion plan.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ConversionPlan {
    /// Nothing to do: every destination register already holds its element.
    NoOp {
        /// Registers per thread.
        registers: u64,
    },
    /// Destination register `i` takes source register `src_register[i]`.
    RegisterPermutation {
        /// Source register per destination register.
        src_register: Vec<u64>,
    },
    /// Within each warp, by shuffles (then selects).
    WarpShuffle {
        /// The shuffles, in order (they only read source registers).
        shuffles: Vec<Shuffle>,
    },
    /// Through shared memory.
    SharedMemory(Box<SharedMemoryPlan>),
}

impl ConversionPlan {
    /// The class name used in JSON.
    pub fn kind_name(&self) -> &'static str {
        match self {
            ConversionPlan::NoOp { .. } => "noop",
            ConversionPlan::RegisterPermutation { .. } => "register",
            ConversionPlan::WarpShuffle { .. } => "shuffle",
            ConversionPlan::SharedMemory(_) => "shared",
        }
    }
}

/// Plans the conversion of `src` to `dst` (distributed layouts of one CTA,
/// same tensor) for `bitwidth`-bit elements.
///
/// Cross-CTA conversions are an explicit [`CodegenError::Unsupported`].
pub fn plan_conversion(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<ConversionPlan> {
    check_bitwidth(bitwidth)?;
    let kind = classify(src, dst)?;
    match kind {
        ConversionKind::CrossCta => Err(CodegenError::Unsupported(
            "the conversion moves data between CTAs (block level); cross-CTA plans \
             are not implemented"
                .into(),
        )),
        ConversionKind::NoOp => Ok(ConversionPlan::NoOp {
            registers: dst.in_dim_size(DimName::REGISTER),
        }),
        ConversionKind::RegisterPermutation => {
            // minimal layout: dst register -> src register.
            let m = minimal_cvt_layout(src, dst)?;
            let n = dst.in_dim_size(DimName::REGISTER);
            let src_register = (0..n)
                .map(|r| {
                    let out = m.apply(&[(DimName::REGISTER, r)])?;
                    Ok(out
                        .iter()
                        .find(|(d, _)| *d == DimName::REGISTER)
                        .map_or(0, |x| x.1))
                })
                .collect::<Result<Vec<u64>>>()?;
            Ok(ConversionPlan::RegisterPermutation { src_register })
        }
        ConversionKind::WarpShuffle => plan_shuffle(src, dst),
        ConversionKind::SharedMemory => Ok(ConversionPlan::SharedMemory(Box::new(plan_shared(
            src, dst, bitwidth, None,
        )?))),
    }
}

/// Plans a conversion through shared memory whatever its class (for
/// comparisons; cross-CTA conversions are still refused).
pub fn plan_via_shared_memory(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<SharedMemoryPlan> {
    check_bitwidth(bitwidth)?;
    if classify(src, dst)? == ConversionKind::CrossCta {
        return Err(CodegenError::Unsupported(
            "the conversion moves data between CTAs".into(),
        ));
    }
    let kind = classify(src, dst)?;
    let note = (kind != ConversionKind::SharedMemory).then(|| {
        format!(
            "a {} conversion, planned through shared memory on request",
            kind.short_name()
        )
    });
    plan_shared(src, dst, bitwidth, note)
}

/// A warp-local conversion as shuffles. With `comp` =
/// `dst.invert_and_compose(src)` restricted to registers and lanes,
/// `(r', l') = (A r ⊕ B l, C r ⊕ D l)` is the source of destination
/// register `r` of lane `l`. For each `r` and each `b ∈ span(B)`: every lane
/// sends register `A r ⊕ b`, lane `l` reads lane `C r ⊕ D l` and keeps the
/// value iff `B l = b`. That is `R · 2^rank(B)` shuffles (`rank(B) ≤ 1` for
/// Triton's shuffle class) and as many selects when `B ≠ 0`.
fn plan_shuffle(src: &LinearLayout, dst: &LinearLayout) -> Result<ConversionPlan> {
    if let Some(shuffles) = shuffle_rounds(src, dst) {
        return Ok(ConversionPlan::WarpShuffle { shuffles });
    }
    let comp = conversion_layout(src, dst)?;
    let outs: Vec<DimName> = comp.out_dim_names().collect();
    let part = |v: &[u64], d: DimName| outs.iter().position(|&o| o == d).map_or(0, |k| v[k]);
    let split = |d: DimName| -> Result<(Vec<u64>, Vec<u64>)> {
        let mut regs = Vec::new();
        let mut lanes = Vec::new();
        for b in comp.bases(d) {
            if part(&b, DimName::WARP) != 0 || part(&b, DimName::BLOCK) != 0 {
                return Err(CodegenError::Invalid(
                    "shuffle plan for a conversion that crosses warps".into(),
                ));
            }
            regs.push(part(&b, DimName::REGISTER));
            lanes.push(part(&b, DimName::LANE));
        }
        Ok((regs, lanes))
    };
    let (a, c) = split(DimName::REGISTER)?;
    let (b, d) = split(DimName::LANE)?;
    let span_b: Vec<u64> = {
        let basis = gf2::independent_basis(&b).basis();
        (0..1u64 << basis.len())
            .map(|k| gf2::bits(k).fold(0, |acc, i| acc ^ basis[i as usize]))
            .collect()
    };
    let xor_cols = |cols: &[u64], x: u64| gf2::bits(x).fold(0, |acc, i| acc ^ cols[i as usize]);
    let mut shuffles = Vec::new();
    for r in 0..dst.in_dim_size(DimName::REGISTER) {
        let (ar, cr) = (xor_cols(&a, r), xor_cols(&c, r));
        for &bv in &span_b {
            shuffles.push(Shuffle {
                src_register: Address::constant(ar ^ bv),
                src_lane: Address {
                    constant: cr,
                    lane: d.clone(),
                    warp: vec![],
                },
                dst_register: Address::constant(r),
                select: (span_b.len() > 1).then(|| (b.clone(), bv)),
            });
        }
    }
    Ok(ConversionPlan::WarpShuffle { shuffles })
}

/// The paper's intra-warp exchange (§5.4) for layouts without broadcast:
/// with `I = span(T_src) ∩ span(T_dst)` (lane bases), `E`, `F` completing
/// `I` to each side's lanes and `G = {e_i ⊕ f_i}`, the subspace
/// `K = span(I ∪ G)` meets each side's register span only in 0, so every
/// coset `o_i ⊕ K` (one per register, `o_i` ranging over a complement `Rc`)
/// holds exactly one element of every lane on both sides. Round `i` is one
/// shuffle: each lane sends its element of the coset (a register affine in
/// its lane id) and receives the one its destination wants there. `R`
/// shuffles in all (against `R · 2^rank(B)` for the simple scheme); `None`
/// when the preconditions fail (broadcast, unequal register counts).
fn shuffle_rounds(src: &LinearLayout, dst: &LinearLayout) -> Option<Vec<Shuffle>> {
    let (reg, lane) = (DimName::REGISTER, DimName::LANE);
    let ra = src.packed_bases(reg).to_vec();
    let ta = src.packed_bases(lane).to_vec();
    let rb = dst.packed_bases(reg).to_vec();
    let tb = dst.packed_bases(lane).to_vec();
    let injective = |r: &[u64], t: &[u64]| {
        let all: Vec<u64> = r.iter().chain(t).copied().collect();
        gf2::rank(&all) as usize == all.len()
    };
    if ra.len() != rb.len() || ta.len() != tb.len() || !injective(&ra, &ta) || !injective(&rb, &tb)
    {
        return None;
    }
    let inter = gf2::span_intersection(&ta, &tb);
    let complete = |gens: &[u64]| -> Vec<u64> {
        let mut taken = inter.clone();
        let mut out = Vec::new();
        for &g in gens {
            if !gf2::in_span(&taken, g) {
                taken.push(g);
                out.push(g);
            }
        }
        out
    };
    let (e, f) = (complete(&ta), complete(&tb));
    if e.len() != f.len() {
        return None;
    }
    let k: Vec<u64> = inter
        .iter()
        .copied()
        .chain(e.iter().zip(&f).map(|(x, y)| x ^ y))
        .collect();
    // Solvers: (registers ++ K) for each side, (registers ++ lanes) of src.
    let solver = |r: &[u64]| -> Option<gf2::EchelonBasis> {
        let cols: Vec<u64> = r.iter().chain(&k).copied().collect();
        (gf2::rank(&cols) as usize == cols.len()).then(|| gf2::EchelonBasis::from_columns(&cols))
    };
    let (sa, sb) = (solver(&ra)?, solver(&rb)?);
    let src_hw: Vec<u64> = ra.iter().chain(&ta).copied().collect();
    let sh = gf2::EchelonBasis::from_columns(&src_hw);
    // Rc: complete K to span(ra ∪ k) with register vectors of src.
    let mut rc = Vec::new();
    let mut taken = k.clone();
    for &x in &ra {
        if !gf2::in_span(&taken, x) {
            taken.push(x);
            rc.push(x);
        }
    }
    let nreg = ra.len();
    let reg_mask = (1u64 << nreg) - 1;
    let xor = |cols: &[u64], m: u64| gf2::bits(m).fold(0, |acc, i| acc ^ cols[i as usize]);
    let mut out = Vec::new();
    for i in 0..(1u64 << rc.len()) {
        let o = xor(&rc, i);
        // Register holding the coset element, affine in the lane.
        let reg_of = |s: &gf2::EchelonBasis, t: &[u64]| -> Option<Address> {
            Some(Address {
                constant: s.solve(o)? & reg_mask,
                lane: t
                    .iter()
                    .map(|&c| s.solve(c).map(|m| m & reg_mask))
                    .collect::<Option<Vec<u64>>>()?,
                warp: vec![],
            })
        };
        let src_register = reg_of(&sa, &ta)?;
        let dst_register = reg_of(&sb, &tb)?;
        // Element wanted by lane l: x(l) = rb·dst_register(l) ⊕ tb·l; its src lane.
        let x0 = xor(&rb, dst_register.constant);
        let lane_of = |x: u64| sh.solve(x).map(|m| m >> nreg);
        let src_lane = Address {
            constant: lane_of(x0)?,
            lane: (0..tb.len())
                .map(|j| lane_of(xor(&rb, dst_register.lane[j]) ^ tb[j]))
                .collect::<Option<Vec<u64>>>()?,
            warp: vec![],
        };
        out.push(Shuffle {
            src_register,
            src_lane,
            dst_register,
            select: None,
        });
    }
    Some(out)
}

/// The register index of the full layout for index `k` of the layout with
/// its zero register bases removed.
fn expand_register(full: &LinearLayout, k: u64) -> u64 {
    let cols = full.packed_bases(DimName::REGISTER);
    let nonzero: Vec<usize> = (0..cols.len()).filter(|&i| cols[i] != 0).collect();
    nonzero
        .iter()
        .enumerate()
        .fold(0, |r, (j, &i)| r | ((k >> j) & 1) << i)
}

/// The access map of one side: `side.invert_and_compose(scratch)` as packed
/// columns over (register, lane, warp), each `offset | round << off_bits`.
struct SideMap {
    reg: Vec<u64>,
    lane: Vec<u64>,
    warp: Vec<u64>,
}

fn side_map(side: &LinearLayout, scratch: &LinearLayout) -> Result<SideMap> {
    let m = side.invert_and_compose(scratch)?;
    let get = |d: DimName| {
        if m.has_in_dim(d) {
            m.packed_bases(d).to_vec()
        } else {
            vec![]
        }
    };
    Ok(SideMap {
        reg: get(DimName::REGISTER),
        lane: get(DimName::LANE),
        warp: get(DimName::WARP),
    })
}

/// Vector width (log2) of a side: the longest run `k` such that offset bit
/// `i < k` is exactly some register column and no other column touches bits
/// below `k`, within 128 bits. Returns the register basis indices.
fn vector_registers(map: &SideMap, bitwidth: u32, off_mask: u64) -> Vec<usize> {
    let max = (128 / bitwidth).trailing_zeros() as usize;
    let mut chosen: Vec<usize> = Vec::new();
    for k in 0..max {
        let want = 1u64 << k;
        let Some(i) = (0..map.reg.len()).find(|&i| map.reg[i] == want && !chosen.contains(&i))
        else {
            break;
        };
        let low = (want << 1) - 1;
        let others_clean = map
            .reg
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i && !chosen.contains(j))
            .map(|x| *x.1)
            .chain(map.lane.iter().copied())
            .chain(map.warp.iter().copied())
            .all(|c| c & off_mask & low == 0);
        if !others_clean {
            break;
        }
        chosen.push(i);
    }
    chosen
}

/// Builds the accesses of one side, grouped per round.
fn accesses(
    full: &LinearLayout,
    map: &SideMap,
    vec_regs: &[usize],
    off_bits: u32,
    nrounds: usize,
) -> Vec<Vec<Access>> {
    let off_mask = (1u64 << off_bits) - 1;
    let nreg = map.reg.len();
    let others: Vec<usize> = (0..nreg).filter(|i| !vec_regs.contains(i)).collect();
    let mut per_round: Vec<Vec<Access>> = vec![Vec::new(); nrounds];
    for g in 0..(1u64 << others.len()) {
        let base: u64 = others
            .iter()
            .enumerate()
            .fold(0, |r, (j, &i)| r | ((g >> j) & 1) << i);
        let regs: Vec<u64> = (0..(1u64 << vec_regs.len()))
            .map(|j| {
                let idx = vec_regs
                    .iter()
                    .enumerate()
                    .fold(base, |r, (b, &i)| r | ((j >> b) & 1) << i);
                expand_register(full, idx)
            })
            .collect();
        let packed = gf2::bits(base).fold(0u64, |acc, i| acc ^ map.reg[i as usize]);
        let round = (packed >> off_bits) as usize;
        per_round[round].push(Access {
            registers: regs,
            address: Address {
                constant: packed & off_mask,
                lane: map.lane.iter().map(|c| c & off_mask).collect(),
                warp: map.warp.iter().map(|c| c & off_mask).collect(),
            },
        });
    }
    per_round
}

/// The exact conflicts of one side of a plan
/// ([`crate::bank_conflicts::exact_conflicts`] of its phase lane offsets).
pub fn analytic_conflicts(lane_offsets: &[u64], vec: u64, bitwidth: u32) -> u64 {
    exact_conflicts(
        &phase_lane_offsets(lane_offsets, vec, bitwidth),
        vec,
        bitwidth,
    )
}

/// The CTA-local view of a block-local conversion: `src` and `dst`
/// restricted to (register, lane, warp), with the tensor coordinates they
/// reach (the span `Im` of those bases, the same for both sides) written in
/// the coordinates of a basis of `Im`, as one out dim `dim0` of size
/// `2^dim(Im)`. Every CTA then runs the same plan on its own elements.
/// Single-CTA layouts are returned unchanged.
pub fn cta_local(src: &LinearLayout, dst: &LinearLayout) -> Result<(LinearLayout, LinearLayout)> {
    let nblock = |l: &LinearLayout| {
        if l.has_in_dim(DimName::BLOCK) {
            l.in_dim_size(DimName::BLOCK)
        } else {
            1
        }
    };
    if nblock(src) == 1 && nblock(dst) == 1 {
        return Ok((src.clone(), dst.clone()));
    }
    let ins = [DimName::REGISTER, DimName::LANE, DimName::WARP];
    let cols = |l: &LinearLayout| -> Vec<u64> {
        ins.iter()
            .filter(|d| l.has_in_dim(**d))
            .flat_map(|&d| l.packed_bases(d).to_vec())
            .collect()
    };
    let basis = gf2::independent_basis(&cols(src)).basis();
    let coords = gf2::EchelonBasis::from_columns(&basis);
    let k = basis.len() as u32;
    let local = |l: &LinearLayout, which: &str| -> Result<LinearLayout> {
        let mut bases = Vec::new();
        for d in ins {
            if !l.has_in_dim(d) {
                continue;
            }
            let mut v = Vec::new();
            for &c in l.packed_bases(d) {
                let x = coords.solve(c).ok_or_else(|| {
                    CodegenError::Unsupported(format!(
                        "the {which} layout's '{d}' bases leave the source's CTA-local \
                         elements: the conversion is not CTA-local"
                    ))
                })?;
                v.push(vec![x]);
            }
            bases.push((d, v));
        }
        Ok(LinearLayout::new(
            bases,
            vec![(DimName::dim(0), 1u64 << k)],
            false,
        )?)
    };
    Ok((local(src, "source")?, local(dst, "destination")?))
}

fn plan_shared(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
    note: Option<String>,
) -> Result<SharedMemoryPlan> {
    let (src, dst) = cta_local(src, dst)?;
    let (src, dst) = (&src, &dst);
    let sw: SwizzleResult = optimal_swizzling(src, dst, bitwidth)?;
    let s = remove_broadcast_registers(src)?;
    let t = remove_broadcast_registers(dst)?;
    // Scratch layout for the rounds: (vector, bank, segment) -> offset, reps
    // -> round. Collapse reps into the offset if any lane/warp touches them.
    let outs = sw.shared.out_dims();
    let split = &sw.shared_split;
    let nreps = split.in_dim_size_log2(reps_dim());
    let offset_bits = split.total_in_dim_size_log2() - nreps;
    let build = |reps_bits: u32| -> Result<LinearLayout> {
        Ok(split
            .reshape_ins(&[
                (DimName::OFFSET, 1u64 << (offset_bits + nreps - reps_bits)),
                (reps_dim(), 1u64 << reps_bits),
            ])?
            .reshape_outs(&outs)?)
    };
    let mut scratch = build(nreps)?;
    let mut off_bits = offset_bits;
    let mut ms = side_map(&s, &scratch)?;
    let mut mt = side_map(&t, &scratch)?;
    let touches = |m: &SideMap, ob: u32| m.lane.iter().chain(&m.warp).any(|c| c >> ob != 0);
    if nreps > 0 && (touches(&ms, off_bits) || touches(&mt, off_bits)) {
        scratch = build(0)?;
        off_bits = offset_bits + nreps;
        ms = side_map(&s, &scratch)?;
        mt = side_map(&t, &scratch)?;
    }
    let nrounds = 1usize << (scratch.in_dim_size_log2(reps_dim()));
    let off_mask = (1u64 << off_bits) - 1;
    let vs = vector_registers(&ms, bitwidth, off_mask);
    let vt = vector_registers(&mt, bitwidth, off_mask);
    let stores = accesses(src, &ms, &vs, off_bits, nrounds);
    let loads = accesses(dst, &mt, &vt, off_bits, nrounds);
    let rounds: Vec<Round> = stores
        .into_iter()
        .zip(loads)
        .map(|(stores, loads)| Round { stores, loads })
        .collect();
    // Broadcast copies of the destination.
    let cols = dst.packed_bases(DimName::REGISTER);
    let zero_mask: u64 = (0..cols.len())
        .filter(|&i| cols[i] == 0)
        .fold(0, |m, i| m | 1 << i);
    let copies: Vec<(u64, u64)> = (0..dst.in_dim_size(DimName::REGISTER))
        .filter(|r| r & zero_mask != 0)
        .map(|r| (r, r & !zero_mask))
        .collect();
    let store_vec = 1u64 << vs.len();
    let load_vec = 1u64 << vt.len();
    let lane_off = |m: &SideMap| m.lane.iter().map(|c| c & off_mask).collect::<Vec<_>>();
    let bytes = (bitwidth as u64).max(8) / 8;
    Ok(SharedMemoryPlan {
        shared: sw.shared.bases_json(),
        shared_layout: sw.shared.clone(),
        bitwidth,
        store_vec,
        load_vec,
        scratch_elems: 1u64 << off_bits,
        scratch_bytes: (1u64 << off_bits) * bytes,
        barriers: 2 * rounds.len() as u64 - 1,
        rounds,
        copies,
        store_conflicts: analytic_conflicts(&lane_off(&ms), store_vec, bitwidth),
        load_conflicts: analytic_conflicts(&lane_off(&mt), load_vec, bitwidth),
        lower_bound_log2: sw.lower_bound_log2,
        note,
    })
}

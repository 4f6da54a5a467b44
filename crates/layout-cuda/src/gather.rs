//! # Gather benchmark kernels (the paper's §5.5 and Figure 6)
//!
//! `out[c] = src[c with c[axis] := idx[c]]` for every coordinate `c` of an
//! `M × N` tile, emitted two ways from the plans of
//! [`layout_codegen::gather`]:
//!
//! * **warp shuffles** ([`GatherVariant::Shuffle`]): the plan of
//!   [`layout_codegen::gather::gather_shuffle_plan`] (the axis must be
//!   warp-local). For index register `r` of lane `l` holding index value `v`
//!   the source is `(srcReg, srcLane) = (base_reg ⊕ ⊕_{k: l_k=1} lane_reg[k] ⊕
//!   ⊕_{k: v_k=1} index_reg[k], base_lane ⊕ …)` — a linear function of the
//!   bits of `l` and `v`, printed as an XOR of masked constants. The warp runs
//!   one `__shfl_sync(a[c], srcLane)` per candidate register `c` and each
//!   lane keeps the value whose `c == srcReg` (the first candidate
//!   unconditionally, then one select per further candidate).
//! * **shared memory** ([`GatherVariant::Shared`]): the plan of
//!   [`layout_codegen::gather::gather_shared_plan`]: every thread stores its
//!   source registers to a row-major scratch buffer (vectorised, duplicates
//!   skipped), barrier, each index register loads
//!   `smem[off(c with c[axis] := 0) + v · stride[axis]]`, barrier.
//!
//! The benchmark kernel uses one distributed layout `L` for the source, the
//! index and the output (so that `src = out + 1` needs no conversion):
//!
//! ```text
//! load src (L), idx (L) ; R × { out = gather(src, idx, axis) ; src = out + 1 } ; store src (L)
//! ```

use crate::{ctype, free_masks, global_map, smem_map, AccessMap, EmitError};
use hw_layouts::Encoding;
use layout_codegen::gather::{
    gather_shared_plan, gather_shuffle_plan, GatherSharedPlan, GatherShufflePlan,
};
use linear_layout::{DimName, LinearLayout};
use std::fmt::Write;

/// How the gather is lowered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GatherVariant {
    /// Warp shuffles (`_shfl`).
    Shuffle,
    /// Through shared memory (`_smem`).
    Shared,
}

impl GatherVariant {
    /// The case-name suffix: `shfl` or `smem`.
    pub fn suffix(self) -> &'static str {
        match self {
            GatherVariant::Shuffle => "shfl",
            GatherVariant::Shared => "smem",
        }
    }
}

/// One gather benchmark case.
#[derive(Clone, Debug)]
pub struct GatherCase {
    /// Identifier (a C identifier fragment).
    pub name: String,
    /// Tile shape `[M, N]` (source = index = output shape).
    pub shape: Vec<u64>,
    /// Element width of the data in bits (16 or 32; indices are 32-bit).
    pub bits: u32,
    /// Warps per CTA.
    pub num_warps: u32,
    /// The distributed layout of source, index and output.
    pub layout: LinearLayout,
    /// The gather axis (0 or 1).
    pub axis: usize,
    /// Shuffles or shared memory.
    pub variant: GatherVariant,
}

/// One suite entry: (base name, tile shape, data bits, warps, blocked
/// attribute, axis). Every layout keeps the whole gather axis inside each
/// warp (its warp bases move off the axis only), so both variants apply.
pub type GatherSpec = (&'static str, [u64; 2], u32, u32, &'static str, usize);

/// The gather cases of the GPU suite (each is emitted as `_shfl` and `_smem`).
pub fn suite_specs() -> Vec<GatherSpec> {
    vec![
        // Axis entirely across the 32 lanes: one candidate register.
        (
            "gather_32x32_u32",
            [32, 32],
            32,
            4,
            "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>",
            1,
        ),
        // One register bit + 5 lane bits on the axis: 2 candidates.
        (
            "gather_64x64_u32",
            [64, 64],
            32,
            4,
            "#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>",
            1,
        ),
        // 2 register bits + 3 lane bits: 4 candidates, 16-bit data.
        (
            "gather_64x32_u16",
            [64, 32],
            16,
            4,
            "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
            1,
        ),
        // 2 register bits + 4 lane bits, 8 warps: 4 candidates, 16-bit data.
        (
            "gather_128x64_u16_w8",
            [128, 64],
            16,
            8,
            "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]}>",
            1,
        ),
        // Gather along rows (axis 0): 1 register bit + 5 lane bits.
        (
            "gather_64x32_u32_axis0",
            [64, 32],
            32,
            4,
            "#ttg.blocked<{sizePerThread = [2, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>",
            0,
        ),
        // A deep axis: 5 register bits + 2 lane bits, 32 candidates per
        // register (where shuffles should lose to shared memory, as in the
        // paper's largest gathered dimensions).
        (
            "gather_32x128_u32_deep",
            [32, 128],
            32,
            4,
            "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>",
            1,
        ),
    ]
}

/// The two cases (`_shfl`, `_smem`) of a suite entry.
pub fn cases_of(spec: &GatherSpec) -> Result<[GatherCase; 2], EmitError> {
    let (name, shape, bits, nw, attr, axis) = *spec;
    let layout = Encoding::parse(attr)
        .and_then(|e| e.to_linear_layout(&shape))
        .map_err(|e| EmitError::Invalid(format!("{name}: {e}")))?;
    let mk = |variant: GatherVariant| GatherCase {
        name: format!("{name}_{}", variant.suffix()),
        shape: shape.to_vec(),
        bits,
        num_warps: nw,
        layout: layout.clone(),
        axis,
        variant,
    };
    Ok([mk(GatherVariant::Shuffle), mk(GatherVariant::Shared)])
}

/// ` ^ ((0u - ((var >> k) & 1u)) & mu)`: `m` where bit `k` of `var` is set.
fn masked_bit(var: &str, k: usize, m: u64) -> String {
    format!(" ^ ((0u - (({var} >> {k}) & 1u)) & {m}u)")
}

/// `c ^ ((0u - ((var >> k) & 1u)) & m_k) ^ …` over the nonzero `m_k`.
pub fn xor_expr(constant: u64, terms: &[(&str, &[u64])]) -> String {
    let mut e = format!("{constant}u");
    for (var, masks) in terms {
        for (k, &m) in masks.iter().enumerate() {
            if m != 0 {
                e.push_str(&masked_bit(var, k, m));
            }
        }
    }
    e
}

/// The same XOR-linear map as [`xor_expr`], with each run of consecutive
/// input bits that land on consecutive single output bits written as one
/// shift-and-mask: bits `k..k+len` of `var` to bits `j..j+len` is
/// `(((var >> k) & (2^len − 1)u) << j)`. Columns with several bits set keep
/// [`xor_expr`]'s masked-bit form. Index maps of a gather are mostly such
/// runs (`v`'s low bits pick the register, its high bits the lane), so a
/// map costs two or three ALU operations instead of four per bit.
pub fn xor_runs_expr(constant: u64, terms: &[(&str, &[u64])]) -> String {
    let mut e = format!("{constant}u");
    for (var, masks) in terms {
        let mut k = 0;
        while k < masks.len() {
            let m = masks[k];
            if m == 0 {
                k += 1;
                continue;
            }
            if !m.is_power_of_two() {
                e.push_str(&masked_bit(var, k, m));
                k += 1;
                continue;
            }
            let mut len = 1;
            while k + len < masks.len() && masks[k + len] == m << len && (m << len) != 0 {
                len += 1;
            }
            let run = (1u64 << len) - 1;
            let j = m.trailing_zeros();
            write!(e, " ^ ((({var} >> {k}) & {run}u) << {j})").unwrap();
            k += len;
        }
    }
    e
}

/// Bits of a gather control word below the source register: the source
/// lane (`shfl.idx` reads only bits 4:0 of its lane operand).
pub const CONTROL_LANE_BITS: u32 = 5;

/// Emits `gather_ctl(ix, w, lane)`: for each output register `r`, the
/// control word `w[r] = srcLane | srcReg << 5` of the lane's index value
/// `ix[r]` (both XOR-linear in the index and lane bits, printed by
/// [`xor_runs_expr`]). Computed once per index tile, so the gather itself
/// ([`emit_gather_shuffle`]) needs no index arithmetic: the word is the
/// shuffle's lane operand as it stands, and one masked XOR of it tests a
/// candidate register.
pub fn emit_gather_control(out: &mut String, plan: &GatherShufflePlan, n: u64) {
    writeln!(
        out,
        "__device__ __forceinline__ void gather_ctl(const uint32_t (&ix)[{n}], uint32_t (&w)[{n}], unsigned lane) {{"
    )
    .unwrap();
    for (r, rp) in plan.registers.iter().enumerate() {
        if rp.replica_of.is_some() {
            writeln!(out, "  w[{r}] = 0u;").unwrap();
            continue;
        }
        let lane_lane: Vec<u64> = rp.lane_lane.iter().map(|&x| u64::from(x)).collect();
        let index_lane: Vec<u64> = rp.index_lane.iter().map(|&x| u64::from(x)).collect();
        let sr = xor_runs_expr(rp.base_reg, &[("lane", &rp.lane_reg), ("v", &rp.index_reg)]);
        let sl = xor_runs_expr(
            u64::from(rp.base_lane),
            &[("lane", &lane_lane), ("v", &index_lane)],
        );
        writeln!(out, "  {{ const uint32_t v = ix[{r}];").unwrap();
        writeln!(out, "    const uint32_t sr = {sr};").unwrap();
        writeln!(out, "    const uint32_t sl = {sl};").unwrap();
        writeln!(out, "    w[{r}] = sl | (sr << {CONTROL_LANE_BITS}); }}").unwrap();
    }
    writeln!(out, "  (void)lane;\n}}").unwrap();
}

/// Candidate tests per thread up to which the gather benchmark lets the
/// compiler hoist them out of the iteration loop. Measured on the H200
/// (2026-11-21, R = 256, a trial at commit `66d1fc8`): 16 and 48 tests
/// ran 13% and 16% faster hoisted, 32 tied (1%), 96 ran 6% faster tested
/// in the loop. An empirical threshold between 48 and 96, not a model.
pub const MAX_HOISTED_TESTS: usize = 64;

/// Emits `gather_shfl(a, w, b)`: the shuffle plan, register by register,
/// from the control words of [`emit_gather_control`]. Candidate `c` of an
/// output register is taken when the source register equals `c` on the
/// bits where the candidates differ (the plan's candidates cover every
/// source register the index can name). Register arrays have `n` entries
/// of type `t`.
pub fn emit_gather_shuffle(out: &mut String, plan: &GatherShufflePlan, t: &str, n: u64) {
    writeln!(
        out,
        "__device__ __forceinline__ void gather_shfl(const {t} (&a)[{n}], const uint32_t (&w)[{n}], {t} (&b)[{n}]) {{"
    )
    .unwrap();
    for (r, rp) in plan.registers.iter().enumerate() {
        if let Some(k) = rp.replica_of {
            writeln!(out, "  b[{r}] = b[{k}];").unwrap();
            continue;
        }
        let c0 = rp.candidates[0];
        let differ = rp.candidates.iter().fold(0, |m, &c| m | (c ^ c0)) << CONTROL_LANE_BITS;
        writeln!(
            out,
            "  {{ // index register {r}: {} candidate registers",
            rp.candidates.len()
        )
        .unwrap();
        for (i, c) in rp.candidates.iter().enumerate() {
            if i == 0 {
                writeln!(
                    out,
                    "    uint32_t g = __shfl_sync(0xffffffffu, (uint32_t)a[{c}], w[{r}]);"
                )
                .unwrap();
            } else {
                let key = c << CONTROL_LANE_BITS;
                writeln!(
                    out,
                    "    {{ const uint32_t t = __shfl_sync(0xffffffffu, (uint32_t)a[{c}], w[{r}]); g = (((w[{r}] ^ {key}u) & {differ}u) == 0u) ? t : g; }}"
                )
                .unwrap();
            }
        }
        writeln!(out, "    b[{r}] = ({t})g;\n  }}").unwrap();
    }
    writeln!(out, "}}").unwrap();
}

/// Row-major shared layout `offset → (dim0, dim1)` (last dim fastest),
/// [`layout_codegen::round_trip::row_major`].
pub fn row_major_smem(shape: &[u64]) -> LinearLayout {
    layout_codegen::round_trip::row_major(shape)
}

/// The load side of the shared-memory gather: the row-major offset of
/// `(register, lane, warp)`'s coordinates with the axis coordinate cleared
/// (an XOR-linear map), plus `v · stride`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GatherLoadMap {
    /// Off-axis offset map.
    pub off_axis: AccessMap,
    /// Row-major stride of the axis.
    pub stride: u64,
}

impl GatherLoadMap {
    /// From the layout and the shared plan (its row-major strides).
    pub fn new(
        layout: &LinearLayout,
        plan: &GatherSharedPlan,
        shape: &[u64],
    ) -> Result<Self, EmitError> {
        let g = global_map(layout, shape)?;
        let stride = plan.strides[plan.axis];
        let axis_mask = (plan.src_shape[plan.axis] - 1) * stride;
        if plan.strides != [shape[1], 1] {
            return Err(EmitError::Invalid(format!(
                "shared plan strides {:?} are not row-major for shape {shape:?}",
                plan.strides
            )));
        }
        let clear = |v: &[u64]| v.iter().map(|&b| b & !axis_mask).collect();
        Ok(GatherLoadMap {
            off_axis: AccessMap {
                reg: clear(&g.reg),
                lane: clear(&g.lane),
                warp: clear(&g.warp),
            },
            stride,
        })
    }
}

/// Emits `gather_smem(a, ix, b, smem, lane, warp)`.
fn emit_gather_shared(
    out: &mut String,
    case: &GatherCase,
    plan: &GatherSharedPlan,
    t: &str,
    n: u64,
) -> Result<(), EmitError> {
    writeln!(
        out,
        "__device__ __forceinline__ void gather_smem(const {t} (&a)[{n}], const uint32_t (&ix)[{n}], {t} (&b)[{n}], {t}* smem, unsigned lane, unsigned warp) {{"
    )
    .unwrap();
    let st = smem_map(&case.layout, &row_major_smem(&plan.src_shape))?;
    st.emit_store(out, "smem", "a", case.bits, free_masks(&case.layout))?;
    writeln!(out, "  __syncthreads();").unwrap();
    let ld = GatherLoadMap::new(&case.layout, plan, &case.shape)?;
    let m = &ld.off_axis;
    let thread = xor_expr(0, &[("lane", &m.lane), ("warp", &m.warp)]);
    writeln!(out, "  unsigned o_g = {thread};").unwrap();
    writeln!(out, "  asm volatile(\"\" : \"+r\"(o_g));").unwrap();
    for r in 0..n {
        let c = m.offset(r, 0, 0);
        writeln!(
            out,
            "  b[{r}] = smem[(o_g ^ {c}u) + ix[{r}] * {}u];",
            ld.stride
        )
        .unwrap();
    }
    writeln!(out, "  __syncthreads();\n}}").unwrap();
    Ok(())
}

/// What [`emit_gather_benchmark`] produced besides the source.
#[derive(Clone, Debug)]
pub struct GatherEmitted {
    /// The `.cu` program.
    pub code: String,
    /// `shfl.sync` per gather per thread (shuffle variant; 0 otherwise).
    pub shuffles: usize,
    /// Selects per gather per thread (shuffle variant; 0 otherwise).
    pub selects: usize,
    /// Shared-memory bytes per CTA (shared variant; 0 otherwise).
    pub smem_bytes: u64,
    /// Candidate registers per non-replica index register (shuffle variant).
    pub candidates: usize,
}

fn check_case(case: &GatherCase) -> Result<u64, EmitError> {
    let l = &case.layout;
    if case.shape.len() != 2 || l.num_out_dims() != 2 {
        return Err(EmitError::Invalid(format!(
            "{}: the gather benchmark takes rank-2 tiles, got shape {:?}",
            case.name, case.shape
        )));
    }
    if case.axis > 1 {
        return Err(EmitError::Invalid(format!(
            "{}: axis {} out of range for rank 2",
            case.name, case.axis
        )));
    }
    if !matches!(case.bits, 8 | 16 | 32) {
        return Err(EmitError::Invalid(format!(
            "{}: {}-bit data (8, 16 or 32 supported)",
            case.name, case.bits
        )));
    }
    let dims: Vec<u64> = l.out_dims().iter().map(|d| d.1).collect();
    if dims != case.shape {
        return Err(EmitError::Invalid(format!(
            "{}: layout covers {dims:?}, tile is {:?}",
            case.name, case.shape
        )));
    }
    if l.in_dim_size(DimName::BLOCK) != 1
        || l.in_dim_size(DimName::LANE) != 32
        || l.in_dim_size(DimName::WARP) != u64::from(case.num_warps)
    {
        return Err(EmitError::Invalid(format!(
            "{}: layout has {} blocks, {} lanes, {} warps; expected 1, 32, {}",
            case.name,
            l.in_dim_size(DimName::BLOCK),
            l.in_dim_size(DimName::LANE),
            l.in_dim_size(DimName::WARP),
            case.num_warps
        )));
    }
    Ok(l.in_dim_size(DimName::REGISTER))
}

/// Emits the whole `.cu` program of a gather case: kernel and a `main` that
/// checks every element against a host reference on random data and random
/// in-range indices, and times `R = 0` and `R` with CUDA events (median),
/// printing one JSON line `{"case", "ok", "R", "tiles", "t0_ms", "tR_ms",
/// "per_gather_us"}` with `per_gather_us = (tR − t0) / R`.
pub fn emit_gather_benchmark(case: &GatherCase) -> Result<GatherEmitted, EmitError> {
    let n = check_case(case)?;
    let t = ctype(case.bits);
    let (m, nn) = (case.shape[0], case.shape[1]);
    let tile = m * nn;
    let threads = 32 * case.num_warps;
    let mut s = String::new();
    writeln!(
        s,
        "// Generated by layout-cuda for gather case '{}': do not edit.",
        case.name
    )
    .unwrap();
    writeln!(
        s,
        "// shape {:?}, {}-bit data, 32-bit indices, axis {}, {} warps, via {}",
        case.shape,
        case.bits,
        case.axis,
        case.num_warps,
        match case.variant {
            GatherVariant::Shuffle => "warp shuffles",
            GatherVariant::Shared => "shared memory",
        }
    )
    .unwrap();
    s.push_str(crate::FILE_HEADER);
    let mut em = GatherEmitted {
        code: String::new(),
        shuffles: 0,
        selects: 0,
        smem_bytes: 0,
        candidates: 0,
    };
    let call = match case.variant {
        GatherVariant::Shuffle => {
            let plan = gather_shuffle_plan(&case.layout, &case.layout, case.axis)
                .map_err(|e| EmitError::Invalid(format!("{}: {e}", case.name)))?;
            emit_gather_control(&mut s, &plan, n);
            emit_gather_shuffle(&mut s, &plan, t, n);
            em.shuffles = plan.shuffles;
            em.selects = plan.selects;
            em.candidates = plan
                .registers
                .iter()
                .find(|r| r.replica_of.is_none())
                .map_or(0, |r| r.candidates.len());
            "gather_shfl(a, w, b);"
        }
        GatherVariant::Shared => {
            let plan = gather_shared_plan(&case.layout, &case.layout, case.axis, case.bits)
                .map_err(|e| EmitError::Invalid(format!("{}: {e}", case.name)))?;
            emit_gather_shared(&mut s, case, &plan, t, n)?;
            em.smem_bytes = plan.scratch_bytes;
            "gather_smem(a, ix, b, smem, lane, warp);"
        }
    };
    let g = global_map(&case.layout, &case.shape)?;
    let free = free_masks(&case.layout);
    writeln!(s).unwrap();
    crate::kernel_head(&mut s, t, threads, None, tile, true);
    writeln!(s, "  {t} a[{n}];\n  {t} b[{n}];\n  uint32_t ix[{n}];").unwrap();
    g.emit_load(&mut s, "gin", "a", case.bits)?;
    g.emit_load(&mut s, "gix", "ix", 32)?;
    writeln!(s, "  (void)smem; (void)warp;").unwrap();
    let shuffles = case.variant == GatherVariant::Shuffle;
    if shuffles {
        writeln!(s, "  uint32_t w[{n}];\n  gather_ctl(ix, w, lane);").unwrap();
    }
    writeln!(s, "  for (int it = 0; it < R; ++it) {{").unwrap();
    if shuffles && em.selects > MAX_HOISTED_TESTS {
        // The words are loop-invariant, so the compiler hoists the candidate
        // tests out of the loop and keeps them as predicates packed in
        // registers (P2R), restored every iteration. Past
        // MAX_HOISTED_TESTS that costs more than it saves: an empty asm
        // makes each test one masked XOR per iteration instead.
        writeln!(
            s,
            "#pragma unroll\n    for (int i = 0; i < {n}; ++i) asm volatile(\"\" : \"+r\"(w[i]));"
        )
        .unwrap();
    }
    writeln!(s, "    {call}").unwrap();
    writeln!(
        s,
        "#pragma unroll\n    for (int i = 0; i < {n}; ++i) a[i] = ({t})(b[i] + 1u);"
    )
    .unwrap();
    writeln!(s, "  }}").unwrap();
    g.emit_store(&mut s, "gout", "a", case.bits, free)?;
    writeln!(s, "}}\n").unwrap();
    let axis_size = case.shape[case.axis];
    let stride = if case.axis == 0 { nn } else { 1 };
    s.push_str(&gather_host_main(
        &case.name,
        t,
        tile,
        axis_size,
        stride,
        em.smem_bytes,
        threads,
    ));
    em.code = s;
    Ok(em)
}

fn gather_host_main(
    name: &str,
    t: &str,
    tile: u64,
    axis_size: u64,
    stride: u64,
    smem_bytes: u64,
    threads: u32,
) -> String {
    format!(
        r##"
#ifndef __CUDACC_RTC__
#define CK(x) do {{ cudaError_t e_ = (x); if (e_ != cudaSuccess) {{ printf("{{\"case\": \"{name}\", \"error\": \"%s at line %d\"}}\n", cudaGetErrorString(e_), __LINE__); exit(1); }} }} while (0)

// Row-major element read by element e of a tile for index value v: e with
// its axis coordinate replaced by v.
static inline size_t src_of(size_t e, size_t v) {{
  const size_t hi = e / ({axis_size}u * {stride}u), lo = e % {stride}u;
  return hi * {axis_size}u * {stride}u + v * {stride}u + lo;
}}

int main(int argc, char** argv) {{
  int R = argc > 1 ? atoi(argv[1]) : 64;
  int tiles = argc > 2 ? atoi(argv[2]) : 1056;
  int reps = argc > 3 ? atoi(argv[3]) : 50;
  size_t n = (size_t)tiles * {tile}u;
  std::vector<{t}> h(n), o(n), want(n), cur({tile}), nxt({tile});
  std::vector<uint32_t> hix(n);
  srand(12345);
  for (size_t i = 0; i < n; ++i) h[i] = ({t})(rand() ^ (rand() << 15));
  for (size_t i = 0; i < n; ++i) hix[i] = (uint32_t)(rand() % {axis_size});
  {t} *din, *dout;
  uint32_t* dix;
  CK(cudaMalloc(&din, n * sizeof({t})));
  CK(cudaMalloc(&dout, n * sizeof({t})));
  CK(cudaMalloc(&dix, n * sizeof(uint32_t)));
  CK(cudaMemcpy(din, h.data(), n * sizeof({t}), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dix, hix.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
  CK(cudaFuncSetAttribute(bench, cudaFuncAttributeMaxDynamicSharedMemorySize, {smem_bytes}));
  bool ok = true;
  for (int rr : {{0, R}}) {{
    // Host reference: rr times src[e] = src[src_of(e, idx[e])] + 1, per tile.
    for (int tt = 0; tt < tiles; ++tt) {{
      const size_t base = (size_t)tt * {tile}u;
      for (size_t e = 0; e < {tile}u; ++e) cur[e] = h[base + e];
      for (int k = 0; k < rr; ++k) {{
        for (size_t e = 0; e < {tile}u; ++e) nxt[e] = ({t})(cur[src_of(e, hix[base + e])] + 1u);
        std::swap(cur, nxt);
      }}
      for (size_t e = 0; e < {tile}u; ++e) want[base + e] = cur[e];
    }}
    CK(cudaMemset(dout, 0xA5, n * sizeof({t})));
    bench<<<tiles, {threads}, {smem_bytes}>>>(din, dix, dout, rr);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(o.data(), dout, n * sizeof({t}), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i) {{
      if (o[i] != want[i]) {{ if (ok) printf("# mismatch at %zu (R=%d): got %llu want %llu\n", i, rr, (unsigned long long)o[i], (unsigned long long)want[i]); ok = false; }}
    }}
  }}
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  float med[2];
  int rs[2] = {{0, R}};
  for (int k = 0; k < 2; ++k) {{
    for (int w = 0; w < 5; ++w) bench<<<tiles, {threads}, {smem_bytes}>>>(din, dix, dout, rs[k]);
    std::vector<float> ts;
    for (int i = 0; i < reps; ++i) {{
      CK(cudaEventRecord(e0));
      bench<<<tiles, {threads}, {smem_bytes}>>>(din, dix, dout, rs[k]);
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); ts.push_back(ms);
    }}
    std::sort(ts.begin(), ts.end());
    med[k] = ts[ts.size() / 2];
  }}
  CK(cudaGetLastError());
  printf("{{\"case\": \"{name}\", \"ok\": %s, \"R\": %d, \"tiles\": %d, \"t0_ms\": %.5f, \"tR_ms\": %.5f, \"per_gather_us\": %.5f}}\n",
         ok ? "true" : "false", R, tiles, med[0], med[1], R > 0 ? (med[1] - med[0]) * 1e3 / R : 0.0);
  return ok ? 0 : 3;
}}
#endif  // __CUDACC_RTC__
"##
    )
}

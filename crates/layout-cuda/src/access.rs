//! Linear address maps `(register, lane, warp) → element offset` and their
//! CUDA code (the global-memory sides of the kernels, gathers, shared words).

use crate::EmitError;
use linear_layout::{DimName, LinearLayout};
use std::fmt::Write;

/// An address map: `offset(r, lane, warp) = ⊕ reg[i]·r_i ⊕ lane[i]·lane_i ⊕
/// warp[i]·warp_i` (element units; one flattened output dim).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessMap {
    /// Images of the register bits.
    pub reg: Vec<u64>,
    /// Images of the lane bits.
    pub lane: Vec<u64>,
    /// Images of the warp bits.
    pub warp: Vec<u64>,
}

impl From<&layout_codegen::shared_words::OffsetMap> for AccessMap {
    fn from(m: &layout_codegen::shared_words::OffsetMap) -> Self {
        AccessMap {
            reg: m.reg.clone(),
            lane: m.lane.clone(),
            warp: m.warp.clone(),
        }
    }
}

impl AccessMap {
    /// Reads a layout with in dims register/lane/warp[/block] and one out dim.
    pub fn from_layout(l: &LinearLayout) -> Result<Self, EmitError> {
        if l.num_out_dims() != 1 {
            return Err(EmitError::Invalid(
                "address layout must have one output dim".into(),
            ));
        }
        let get = |d: DimName| l.packed_bases(d).to_vec();
        Ok(AccessMap {
            reg: get(DimName::REGISTER),
            lane: get(DimName::LANE),
            warp: get(DimName::WARP),
        })
    }

    /// Offset of register `r` of thread (`lane`, `warp`).
    pub fn offset(&self, r: u64, lane: u64, warp: u64) -> u64 {
        use linear_layout::gf2::xor_columns;
        xor_columns(&self.reg, r) ^ xor_columns(&self.lane, lane) ^ xor_columns(&self.warp, warp)
    }

    /// The register bits forming the widest vector (≤ 16 bytes): register
    /// bit `i_j` maps to offset `2^j`, and no other basis (other registers,
    /// lanes, warps) touches the low bits, so the `2^k` registers spanned by
    /// those bits sit at consecutive, aligned offsets. The bits need not be
    /// the lowest register bits (generalised vectorisation: a register
    /// permutation is folded into the grouping).
    pub fn vector_regs(&self, bits: u32) -> Vec<usize> {
        layout_codegen::vectorize::vector_groups(&self.reg, &self.lane, &self.warp, bits).0
    }

    /// Elements per vector access (`2^len(vector_regs)`).
    pub fn vector_width(&self, bits: u32) -> u64 {
        1 << self.vector_regs(bits).len()
    }

    /// The vector groups: for each, the register indices of its elements in
    /// offset order (element `k` of the vector is register `group[k]`).
    pub fn groups(&self, bits: u32) -> Vec<Vec<u64>> {
        layout_codegen::vectorize::vector_groups(&self.reg, &self.lane, &self.warp, bits).1
    }

    fn emit_thread_offset(&self, out: &mut String, var: &str) {
        emit_opaque_thread_offset(out, var, &self.lane, &self.warp);
    }

    /// Bits the lane/warp part of the address can set.
    fn thread_mask(&self) -> u64 {
        self.lane.iter().chain(&self.warp).fold(0, |m, &b| m | b)
    }

    /// `ptr[var ⊕ c]`, written as in [`xor_as_add`].
    fn address(&self, ptr: &str, var: &str, c: u64) -> String {
        format!("{ptr}[{}]", xor_as_add(var, c, self.thread_mask()))
    }

    fn reg_const(&self, r: u64) -> u64 {
        self.offset(r, 0, 0)
    }

    /// Emits stores of register array `arr` to `ptr[offset]`, vectorised,
    /// skipping duplicate registers/threads given by the free masks
    /// `(register, lane, warp)`.
    pub fn emit_store(
        &self,
        out: &mut String,
        ptr: &str,
        arr: &str,
        bits: u32,
        free: (u64, u64, u64),
    ) -> Result<(), EmitError> {
        let var = format!("o_{ptr}_st");
        self.emit_thread_offset(out, &var);
        let (fr, fl, fw) = free;
        let pred = fl != 0 || fw != 0;
        if pred {
            writeln!(
                out,
                "  if ((lane & {fl}u) == 0u && (warp & {fw}u) == 0u) {{"
            )
            .unwrap();
        }
        for g in self.groups(bits) {
            if g[0] & fr == 0 {
                let addr = self.address(ptr, &var, self.reg_const(g[0]));
                writeln!(out, "  {};", store_expr(&addr, arr, &g, bits)).unwrap();
            }
        }
        if pred {
            writeln!(out, "  }}").unwrap();
        }
        Ok(())
    }

    /// Emits the check of the registers [`AccessMap::emit_store`] skips
    /// under the free masks `(register, lane, warp)` (the copies of a
    /// broadcast layout): each such register of `arr` must equal its
    /// element of the input `ptr` plus `2R` (`bits`-wide), else the kernel
    /// traps (`__trap()`). Nothing is emitted when nothing is skipped.
    pub fn emit_replica_check(
        &self,
        out: &mut String,
        ptr: &str,
        arr: &str,
        bits: u32,
        free: (u64, u64, u64),
    ) -> Result<(), EmitError> {
        let (fr, fl, fw) = free;
        if (fr, fl, fw) == (0, 0, 0) {
            return Ok(());
        }
        let t = crate::ctype(bits);
        let var = format!("o_{ptr}_ck");
        writeln!(
            out,
            "  // Every copy the store skips holds the same element: checked against the input."
        )
        .unwrap();
        self.emit_thread_offset(out, &var);
        writeln!(
            out,
            "  const bool copy_ = (lane & {fl}u) != 0u || (warp & {fw}u) != 0u;"
        )
        .unwrap();
        for r in 0..1u64 << self.reg.len() {
            let cond = if r & fr != 0 { "" } else { "copy_ && " };
            let addr = self.address(ptr, &var, self.reg_const(r));
            writeln!(
                out,
                "  if ({cond}{arr}[{r}] != ({t})({addr} + ({t})(2 * R))) __trap();"
            )
            .unwrap();
        }
        Ok(())
    }

    /// Emits loads of every register of `arr` from `ptr[offset]`, vectorised.
    pub fn emit_load(
        &self,
        out: &mut String,
        ptr: &str,
        arr: &str,
        bits: u32,
    ) -> Result<(), EmitError> {
        let var = format!("o_{ptr}_ld");
        self.emit_thread_offset(out, &var);
        for g in self.groups(bits) {
            let addr = self.address(ptr, &var, self.reg_const(g[0]));
            out.push_str(&load_stmts(&addr, arr, &g, bits));
        }
        Ok(())
    }
}

/// Declares `unsigned var = ⊕_i lane_i·lane[i] ⊕ ⊕_i warp_i·warp[i]` (the
/// lane/warp part of an XOR-linear address), opaque to the optimiser: the
/// per-register addresses derived from it are recomputed where used instead
/// of being hoisted out of the benchmark loop and kept live (which spilled
/// registers). Returns the bits the thread part can set.
pub(crate) fn emit_opaque_thread_offset(
    out: &mut String,
    var: &str,
    lane: &[u64],
    warp: &[u64],
) -> u64 {
    writeln!(out, "  unsigned {var} = 0u;").unwrap();
    let mut mask = 0;
    for (name, bases) in [("lane", lane), ("warp", warp)] {
        for (i, &b) in bases.iter().enumerate() {
            if b != 0 {
                mask |= b;
                writeln!(out, "  {var} ^= (0u - (({name} >> {i}) & 1u)) & {b}u;").unwrap();
            }
        }
    }
    writeln!(out, "  asm volatile(\"\" : \"+r\"({var}));").unwrap();
    mask
}

/// The index `var ⊕ c` where `var` (a thread's lane/warp part) can only set
/// the bits of `mask`: written `(var ^ c_x) + c_a` with `c_x = c & mask`
/// and `c_a = c & !mask`. Since `var ^ c_x` has no bit of `c_a`, the XOR
/// of `c_a` is an addition, which the instruction takes as an immediate
/// offset; only the distinct `c_x` values need registers (a handful,
/// instead of one per access, which kept up to 128 addresses live and
/// spilled the 128x128 f32 conversions).
pub(crate) fn xor_as_add(var: &str, c: u64, mask: u64) -> String {
    let (c_x, c_a) = (c & mask, c & !mask);
    match (c_x, c_a) {
        (0, a) => format!("{var} + {a}u"),
        (x, 0) => format!("({var} ^ {x}u)"),
        (x, a) => format!("({var} ^ {x}u) + {a}u"),
    }
}

fn vec_type(bytes: u64) -> &'static str {
    match bytes {
        1 => "uint8_t",
        2 => "uint16_t",
        4 => "uint32_t",
        8 => "uint2",
        _ => "uint4",
    }
}

/// 32-bit words of the registers `g` (in offset order, little endian).
fn words(arr: &str, g: &[u64], bits: u32) -> Vec<String> {
    let v = g.len() as u64;
    if bits == 64 {
        return g
            .iter()
            .flat_map(|r| {
                [
                    format!("(uint32_t)({arr}[{r}])"),
                    format!("(uint32_t)({arr}[{r}] >> 32)"),
                ]
            })
            .collect();
    }
    let epw = (32 / bits) as u64;
    let nw = (v * bits as u64).div_ceil(32);
    (0..nw)
        .map(|j| {
            (0..epw.min(v))
                .map(|k| {
                    let idx = g[(j * epw + k) as usize];
                    if k == 0 {
                        format!("(uint32_t){arr}[{idx}]")
                    } else {
                        format!("((uint32_t){arr}[{idx}] << {})", k * bits as u64)
                    }
                })
                .collect::<Vec<_>>()
                .join(" | ")
        })
        .collect()
}

pub(crate) fn store_expr(addr: &str, arr: &str, g: &[u64], bits: u32) -> String {
    let v = g.len() as u64;
    let bytes = v * bits as u64 / 8;
    if v == 1 {
        return format!("{addr} = {arr}[{}]", g[0]);
    }
    let ty = vec_type(bytes);
    let w = words(arr, g, bits);
    let val = match bytes {
        2 | 4 => format!("({ty})({})", w[0]),
        8 => format!("make_uint2({}, {})", w[0], w[1]),
        _ => format!("make_uint4({}, {}, {}, {})", w[0], w[1], w[2], w[3]),
    };
    format!("*reinterpret_cast<{ty}*>(&{addr}) = {val}")
}

pub(crate) fn load_stmts(addr: &str, arr: &str, g: &[u64], bits: u32) -> String {
    let v = g.len() as u64;
    let bytes = v * bits as u64 / 8;
    if v == 1 {
        return format!("  {arr}[{}] = {addr};\n", g[0]);
    }
    let ty = vec_type(bytes);
    let mut s = format!("  {{ {ty} t_ = *reinterpret_cast<const {ty}*>(&{addr});\n");
    let word = |j: u64| -> String {
        match bytes {
            2 | 4 => "(uint32_t)t_".to_string(),
            8 => ["t_.x", "t_.y"][j as usize].to_string(),
            _ => ["t_.x", "t_.y", "t_.z", "t_.w"][j as usize].to_string(),
        }
    };
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    for k in 0..v {
        if bits == 64 {
            writeln!(
                s,
                "    {arr}[{}] = (unsigned long long){} | ((unsigned long long){} << 32);",
                g[k as usize],
                word(2 * k),
                word(2 * k + 1)
            )
            .unwrap();
        } else {
            let epw = (32 / bits) as u64;
            let (j, o) = (k / epw, (k % epw) * bits as u64);
            writeln!(
                s,
                "    {arr}[{}] = ({} >> {o}) & {mask}u;",
                g[k as usize],
                word(j)
            )
            .unwrap();
        }
    }
    s.push_str("  }\n");
    s
}

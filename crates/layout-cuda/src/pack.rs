//! 8/16-bit elements packed in 32-bit words: the packed elementwise add of
//! the benchmark loop, packing and unpacking register arrays by a
//! [`WordPacking`], and how the loop holds its registers ([`held_form`]).

use crate::bench_loop::{Held, Packings};
use crate::ctype;
use crate::shared_words::WordPacking;
use std::fmt::Write;

/// `x + y` on each 16-bit half (no carry between halves): `add.s16x2` on
/// the GPU, the same arithmetic in plain C++ elsewhere (CPU emulation).
const ADD_U16X2: &str = r#"__device__ __forceinline__ uint32_t add_u16x2(uint32_t x, uint32_t y) {
#if defined(__CUDA_ARCH__)
  uint32_t d;
  asm("add.s16x2 %0, %1, %2;" : "=r"(d) : "r"(x), "r"(y));
  return d;
#else
  return ((x & 0xffff0000u) + (y & 0xffff0000u)) | ((x + y) & 0xffffu);
#endif
}
"#;

/// `x + y` on each byte (no carry between bytes): the low seven bits of
/// each byte add without crossing, the top bit is their carry XOR the top
/// bits of `x` and `y`.
const ADD_U8X4: &str = r#"__device__ __forceinline__ uint32_t add_u8x4(uint32_t x, uint32_t y) {
  return ((x & 0x7f7f7f7fu) + (y & 0x7f7f7f7fu)) ^ ((x ^ y) & 0x80808080u);
}
"#;

/// The C source of the elementwise op on a packed word (`add_u8x4` or
/// `add_u16x2`) and the word of ones it adds.
pub(crate) fn packed_add(bits: u32) -> (&'static str, &'static str, &'static str) {
    if bits == 8 {
        (ADD_U8X4, "add_u8x4", "0x01010101u")
    } else {
        (ADD_U16X2, "add_u16x2", "0x00010001u")
    }
}

/// `words[j] = ⊕_k arr[p.register(j, k)] << k·bits` for every word `j`:
/// one unrolled loop for the consecutive packing, a statement per word
/// otherwise.
pub(crate) fn emit_pack(s: &mut String, p: &WordPacking, arr: &str, words: &str, bits: u32) {
    let e = p.per_word();
    let term = |k: u64, idx: String| match k {
        0 => format!("(uint32_t){arr}[{idx}]"),
        _ => format!("((uint32_t){arr}[{idx}] << {})", k * u64::from(bits)),
    };
    if p.is_consecutive() {
        let parts: Vec<String> = (0..e).map(|k| term(k, consecutive_index(e, k))).collect();
        writeln!(
            s,
            "#pragma unroll\n    for (int j = 0; j < {}; ++j) {words}[j] = {};",
            p.num_words(),
            parts.join(" | ")
        )
        .unwrap();
        return;
    }
    for j in 0..p.num_words() {
        let parts: Vec<String> = (0..e)
            .map(|k| term(k, p.register(j, k).to_string()))
            .collect();
        writeln!(s, "    {words}[{j}] = {};", parts.join(" | ")).unwrap();
    }
}

/// The inverse of [`emit_pack`]: `arr[p.register(j, k)] = words[j] >> k·bits`.
pub(crate) fn emit_unpack(s: &mut String, p: &WordPacking, words: &str, arr: &str, bits: u32) {
    let (e, t) = (p.per_word(), ctype(bits));
    let stmt = |k: u64, idx: String, w: String| match k {
        0 => format!("{arr}[{idx}] = ({t}){words}[{w}];"),
        _ => format!(
            "{arr}[{idx}] = ({t})({words}[{w}] >> {});",
            k * u64::from(bits)
        ),
    };
    if p.is_consecutive() {
        let parts: Vec<String> = (0..e)
            .map(|k| stmt(k, consecutive_index(e, k), "j".into()))
            .collect();
        writeln!(
            s,
            "#pragma unroll\n    for (int j = 0; j < {}; ++j) {{ {} }}",
            p.num_words(),
            parts.join(" ")
        )
        .unwrap();
        return;
    }
    for j in 0..p.num_words() {
        for k in 0..e {
            let r = p.register(j, k);
            writeln!(
                s,
                "    {arr}[{r}] = ({t})({words}[{j}] >> {});",
                k * u64::from(bits)
            )
            .unwrap();
        }
    }
}

/// `e * j + k` as C (the loop form of the consecutive packing).
fn consecutive_index(e: u64, k: u64) -> String {
    match k {
        0 => format!("{e} * j"),
        _ => format!("{e} * j + {k}"),
    }
}

/// How the benchmark loop holds `regs = (source, destination)` registers
/// of `bits`-wide elements ([`Held`]): consecutive words for 8/16-bit
/// elements whose register counts fill whole words (the conversions take
/// words packed as `plan` when given, element arrays otherwise), elements
/// otherwise.
pub(crate) fn held_form(bits: u32, (ns, nd): (u64, u64), plan: Packings<'_>) -> Held<'_> {
    let per_word = u64::from(32 / bits.max(1));
    if bits < 32 && ns.is_multiple_of(per_word) && nd.is_multiple_of(per_word) {
        Held::Words { bits, plan }
    } else {
        Held::Elements
    }
}

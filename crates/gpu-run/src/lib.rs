//! Host side of the `gpu-run` runner: what it reads from a generated
//! program, the inputs it makes, and the results it expects, all without a
//! GPU (the CUDA side is `main.rs`).
//!
//! A generated program (`bench/gpu/generated/*.cu`, from `layout-cuda`)
//! holds the device code and, under `#ifndef __CUDACC_RTC__`, a host
//! program for `nvcc`. NVRTC defines `__CUDACC_RTC__`, so the runner hands
//! it the file unchanged and does the host program's work here: the same
//! kernel signature, launch shape and checks.

#![warn(missing_docs)]

/// An error that names what was wrong and the offending value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// The generated program is not what the runner reads (no launch,
    /// a malformed operand, an unexpected preprocessor conditional).
    #[error("{0}")]
    Program(String),
    /// A case of `cases.json` or a command-line value the runner cannot
    /// take (unknown architecture, element width, shape or axis).
    #[error("{0}")]
    Case(String),
    /// The device side failed: CUDA driver, NVRTC, or reading a file.
    #[error("{0}")]
    Device(String),
}

/// Threads per CTA and dynamic shared-memory bytes of the kernel `bench`,
/// read from the host program's launch `bench<<<tiles, T, S>>>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchShape {
    /// Threads per CTA (`T`).
    pub threads: u32,
    /// Dynamic shared memory per CTA in bytes (`S`).
    pub smem_bytes: u32,
}

impl LaunchShape {
    /// The first `bench<<<tiles, T, S>>>` of `code`.
    pub fn parse(code: &str) -> Result<Self, RunError> {
        let at = code.find("bench<<<tiles, ").ok_or_else(|| {
            RunError::Program("no launch 'bench<<<tiles, T, S>>>' in the program".into())
        })?;
        let rest = &code[at + "bench<<<tiles, ".len()..];
        let end = rest
            .find(">>>")
            .ok_or_else(|| RunError::Program("unterminated launch 'bench<<<'".into()))?;
        let parts: Vec<&str> = rest[..end].split(", ").collect();
        let num = |s: &str| {
            s.trim()
                .parse::<u32>()
                .map_err(|_| RunError::Program(format!("launch operand {s:?} is not a number")))
        };
        match parts.as_slice() {
            [t, s] => Ok(LaunchShape {
                threads: num(t)?,
                smem_bytes: num(s)?,
            }),
            _ => Err(RunError::Program(format!(
                "launch 'bench<<<tiles, {}>>>' does not have two operands after tiles",
                &rest[..end]
            ))),
        }
    }
}

/// Macros NVRTC defines that the generated programs test.
const DEFINED_UNDER_NVRTC: [&str; 3] = ["__CUDACC_RTC__", "__CUDACC__", "__CUDA_ARCH__"];

/// The device-visible part of a generated program: what NVRTC sees, with
/// `__CUDACC_RTC__`, `__CUDACC__` and `__CUDA_ARCH__` defined. Only the conditionals the
/// emitter writes (`#ifdef`/`#ifndef`/`#if defined(...)` of those,
/// `#else`, `#endif`) are interpreted; any other is an error.
pub fn device_view(code: &str) -> Result<String, RunError> {
    // One entry per open conditional: whether its current branch is taken.
    let mut stack: Vec<bool> = Vec::new();
    let mut out = String::new();
    for (no, line) in code.lines().enumerate() {
        let t = line.trim();
        let visible = stack.iter().all(|&taken| taken);
        let cond = t
            .strip_prefix("#ifdef ")
            .map(|m| (m, true))
            .or_else(|| t.strip_prefix("#ifndef ").map(|m| (m, false)))
            .or_else(|| {
                t.strip_prefix("#if defined(")
                    .map(|m| (m.trim_end_matches(')'), true))
            });
        if let Some((m, when_defined)) = cond {
            if !DEFINED_UNDER_NVRTC.contains(&m.trim()) {
                return Err(RunError::Program(format!(
                    "line {}: unexpected conditional {t:?}",
                    no + 1
                )));
            }
            stack.push(when_defined);
        } else if t.starts_with("#else") {
            let top = stack
                .last_mut()
                .ok_or_else(|| RunError::Program(format!("line {}: #else without #if", no + 1)))?;
            *top = !*top;
        } else if t.starts_with("#endif") {
            stack
                .pop()
                .ok_or_else(|| RunError::Program(format!("line {}: #endif without #if", no + 1)))?;
        } else if visible {
            out.push_str(line);
            out.push('\n');
        }
    }
    if !stack.is_empty() {
        return Err(RunError::Program("unterminated #if __CUDACC_RTC__".into()));
    }
    Ok(out)
}

/// Deterministic xorshift64* stream for inputs (the runner needs
/// reproducible random data, not statistical quality).
pub struct Rng(u64);

impl Rng {
    /// The stream from `seed` (0 is taken as 1: xorshift stays at 0).
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    /// The next value.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// `n` random non-zero `bits`-bit values.
pub fn nonzero_values(n: usize, bits: u32, seed: u64) -> Vec<u64> {
    let mut rng = Rng::new(seed);
    let mask = mask(bits);
    (0..n)
        .map(|_| match rng.next_u64() & mask {
            0 => 1,
            v => v,
        })
        .collect()
}

/// All ones in the low `bits` bits.
pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

/// The conversion benchmark's result: every element `+ 1` twice per
/// iteration (`d = cvt(s) + 1; s = cvt(d) + 1`), modulo `2^bits`, wherever
/// the conversions put it in between.
/// What the benchmark kernel writes for `input` when launched with `r`
/// rounds: every element plus `2 r`, wrapped to `bits` bits (the host
/// program's check `want = h[i] + 2 * rr`).
pub fn expected_conversion(input: &[u64], bits: u32, r: u32) -> Vec<u64> {
    input
        .iter()
        .map(|&v| v.wrapping_add(2 * u64::from(r)) & mask(bits))
        .collect()
}

/// A gather tile: row-major `shape`, gathering along `axis`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatherTile {
    /// The tile's shape, dim0 first.
    pub shape: Vec<u64>,
    /// The dim gathered along.
    pub axis: usize,
}

impl GatherTile {
    /// Elements in the tile.
    pub fn elems(&self) -> usize {
        self.shape.iter().product::<u64>() as usize
    }

    /// Row-major element read by element `e` for index value `v`: `e` with
    /// its axis coordinate replaced by `v`.
    pub fn source_of(&self, e: u64, v: u64) -> u64 {
        let stride: u64 = self.shape[self.axis + 1..].iter().product();
        let size = self.shape[self.axis];
        let hi = e / (size * stride);
        let lo = e % stride;
        hi * size * stride + v * stride + lo
    }
}

/// The gather benchmark's result: `r` times `x[e] = x[source_of(e,
/// idx[e])] + 1`, tile by tile (`input` and `idx` hold whole tiles).
pub fn expected_gather(
    tile: &GatherTile,
    input: &[u64],
    idx: &[u64],
    bits: u32,
    r: u32,
) -> Vec<u64> {
    let n = tile.elems();
    let mut out = Vec::with_capacity(input.len());
    for (src, ix) in input.chunks(n).zip(idx.chunks(n)) {
        let mut cur = src.to_vec();
        for _ in 0..r {
            cur = (0..n)
                .map(|e| cur[tile.source_of(e as u64, ix[e]) as usize].wrapping_add(1) & mask(bits))
                .collect();
        }
        out.extend(cur);
    }
    out
}

/// The median of timings (upper median for an even count).
pub fn median(mut ts: Vec<f32>) -> f32 {
    ts.sort_by(f32::total_cmp);
    ts[ts.len() / 2]
}

/// The first element that differs, as `(index, got, want)`.
pub fn first_mismatch(got: &[u64], want: &[u64]) -> Option<(usize, u64, u64)> {
    got.iter()
        .zip(want)
        .enumerate()
        .find(|(_, (g, w))| g != w)
        .map(|(i, (&g, &w))| (i, g, w))
}

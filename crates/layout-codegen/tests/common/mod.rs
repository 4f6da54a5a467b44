//! Random distributed layouts for property tests (a small deterministic
//! xorshift generator, so every failure is reproducible from its seed).
#![allow(dead_code)]

use linear_layout::{DimName, LinearLayout};

/// xorshift64*.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            v.swap(i, j);
        }
    }
}

/// A random shape with `bits` total bits over `rank` dims.
pub fn random_shape(rng: &mut Rng, bits: u32, rank: usize) -> Vec<u64> {
    let mut logs = vec![0u32; rank];
    for _ in 0..bits {
        logs[rng.below(rank as u64) as usize] += 1;
    }
    logs.iter().map(|&l| 1u64 << l).collect()
}

/// A random distributed layout of `shape`: a random permutation of the
/// tensor's unit bits over `lanes` lane bits, `warps` warp bits and the rest
/// registers, with `zeros` broadcast (zero) bases inserted at random among
/// lanes / warps / registers. Always surjective.
pub fn random_distributed(
    rng: &mut Rng,
    shape: &[u64],
    lanes: usize,
    warps: usize,
    zeros: usize,
) -> LinearLayout {
    let rank = shape.len();
    let mut units: Vec<Vec<u64>> = Vec::new();
    for (d, &s) in shape.iter().enumerate() {
        for b in 0..s.trailing_zeros() {
            let mut v = vec![0; rank];
            v[d] = 1 << b;
            units.push(v);
        }
    }
    rng.shuffle(&mut units);
    let nbits = units.len();
    // Slots: lanes + warps + registers, with `zeros` zero bases.
    let total = nbits + zeros;
    let mut slots: Vec<Option<Vec<u64>>> = units.into_iter().map(Some).collect();
    slots.extend((0..zeros).map(|_| None));
    rng.shuffle(&mut slots);
    let lanes = lanes.min(total);
    let warps = warps.min(total - lanes);
    let take = |s: &[Option<Vec<u64>>]| -> Vec<Vec<u64>> {
        s.iter()
            .map(|x| x.clone().unwrap_or_else(|| vec![0; rank]))
            .collect()
    };
    let lane_b = take(&slots[..lanes]);
    let warp_b = take(&slots[lanes..lanes + warps]);
    let reg_b = take(&slots[lanes + warps..]);
    let outs = shape
        .iter()
        .enumerate()
        .map(|(d, &s)| (DimName::dim(d), s))
        .collect();
    LinearLayout::new(
        vec![
            (DimName::REGISTER, reg_b),
            (DimName::LANE, lane_b),
            (DimName::WARP, warp_b),
            (DimName::BLOCK, vec![]),
        ],
        outs,
        true,
    )
    .unwrap()
}

/// `layout` with its flattened bases mixed by a random invertible GF(2)
/// matrix (a product of random elementary row operations): still
/// surjective, but bases are no longer single bits (`generic_linear`-like).
pub fn mix_bits(rng: &mut Rng, layout: &LinearLayout, ops: usize) -> LinearLayout {
    let bits = layout.total_out_dim_size_log2();
    if bits < 2 {
        return layout.clone();
    }
    // Elementary ops: bit a ^= bit b.
    let pairs: Vec<(u32, u32)> = (0..ops)
        .map(|_| {
            let a = rng.below(bits as u64) as u32;
            let mut b = rng.below(bits as u64) as u32;
            if b == a {
                b = (a + 1) % bits;
            }
            (a, b)
        })
        .collect();
    let mix = |mut x: u64| {
        for &(a, b) in &pairs {
            x ^= ((x >> b) & 1) << a;
        }
        x
    };
    let bases = layout
        .all_bases()
        .into_iter()
        .map(|(d, _)| {
            let cols: Vec<Vec<u64>> = layout
                .packed_bases(d)
                .iter()
                .map(|&c| layout.unpack(mix(c)).to_vec())
                .collect();
            (d, cols)
        })
        .collect();
    LinearLayout::new(bases, layout.out_dims(), true).unwrap()
}

/// `layout` spread over `2^blocks` CTAs: block basis `i` is the next bit of
/// dim0 above the layout's own (or zero, a CTA broadcast, when bit `i` of
/// `broadcast` is set); dim0 grows accordingly.
pub fn with_blocks(layout: &LinearLayout, blocks: u32, broadcast: u32) -> LinearLayout {
    let outs = layout.out_dims();
    let rank = outs.len();
    let mut d0 = outs[0].1;
    let mut block = Vec::new();
    for i in 0..blocks {
        let mut v = vec![0; rank];
        if broadcast >> i & 1 == 0 {
            v[0] = d0;
            d0 *= 2;
        }
        block.push(v);
    }
    let mut new_outs = outs.clone();
    new_outs[0].1 = d0;
    let bases = layout
        .all_bases()
        .into_iter()
        .map(|(d, b)| {
            if d == DimName::BLOCK {
                (d, block.clone())
            } else {
                (d, b)
            }
        })
        .collect();
    LinearLayout::new(bases, new_outs, true).unwrap()
}

/// Element bit `e` of a 2-D tensor `[2^a, 2^(n-a)]` as a basis vector.
pub fn elem(e: Option<usize>, a: usize) -> Vec<u64> {
    match e {
        None => vec![0, 0],
        Some(e) if e < a => vec![1 << e, 0],
        Some(e) => vec![0, 1 << (e - a)],
    }
}

/// A random pair of distributed layouts (32 lanes, up to 4 warps) with the
/// same warp bases: the register/lane bits of the element space are
/// distributed independently (with random register and lane broadcasting).
pub fn random_pair(rng: &mut Rng) -> (LinearLayout, LinearLayout) {
    let n_warp = rng.below(3) as usize;
    let w_nonzero = rng.below(n_warp as u64 + 1) as usize;
    let e_nw = 2 + rng.below(6) as usize; // 2..=7 register/lane element bits
    let e = e_nw + w_nonzero;
    let a = rng.below(e as u64 + 1) as usize;
    let mut bits: Vec<usize> = (0..e).collect();
    rng.shuffle(&mut bits);
    let mut warp: Vec<Option<usize>> = bits[..w_nonzero].iter().map(|&b| Some(b)).collect();
    warp.resize(n_warp, None);
    rng.shuffle(&mut warp);
    let rest: Vec<usize> = bits[w_nonzero..].to_vec();
    let make = |rng: &mut Rng| {
        let mut rest = rest.clone();
        rng.shuffle(&mut rest);
        let ln = rng.below(e_nw.min(5) as u64 + 1) as usize;
        let mut lanes: Vec<Option<usize>> = rest[..ln].iter().map(|&b| Some(b)).collect();
        lanes.resize(5, None);
        rng.shuffle(&mut lanes);
        let mut regs: Vec<Option<usize>> = rest[ln..].iter().map(|&b| Some(b)).collect();
        let rz = rng.below(2) as usize;
        regs.resize(regs.len() + rz, None);
        rng.shuffle(&mut regs);
        LinearLayout::new(
            vec![
                (
                    DimName::REGISTER,
                    regs.iter().map(|&x| elem(x, a)).collect(),
                ),
                (DimName::LANE, lanes.iter().map(|&x| elem(x, a)).collect()),
                (DimName::WARP, warp.iter().map(|&x| elem(x, a)).collect()),
            ],
            vec![(DimName::dim(0), 1 << a), (DimName::dim(1), 1 << (e - a))],
            true,
        )
        .unwrap()
    };
    let s = make(rng);
    let d = make(rng);
    (s, d)
}

/// The records of `tests/data/triton-oracle/<name>` (JSON lines) at the
/// repository root.
pub fn oracle_records(name: &str) -> Vec<serde_json::Value> {
    let path = format!(
        "{}/../../tests/data/triton-oracle/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("oracle record"))
        .collect()
}

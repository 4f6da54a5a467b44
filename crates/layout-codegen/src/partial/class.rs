//! The class test of a partial cross-warp conversion (conditions 1 to 3 of
//! the [module doc](super)): both layouts read as hardware tables, the map
//! `C: dst hw → src hw` as a table, and which condition fails.

use crate::error::{CodegenError, Result};
use crate::replica::local_conversion_layout;
use linear_layout::{DimName, LinearLayout};

/// A CTA-local bijective distributed layout read as tables.
pub(super) struct Hw {
    /// log2 sizes of register, lane, warp.
    pub(super) nr: u32,
    pub(super) nl: u32,
    pub(super) nw: u32,
    pub(super) layout: LinearLayout,
}

impl Hw {
    pub(super) fn new(l: &LinearLayout, what: &str) -> Result<Hw> {
        let names: Vec<DimName> = l.in_dim_names().collect();
        let want = [
            DimName::REGISTER,
            DimName::LANE,
            DimName::WARP,
            DimName::BLOCK,
        ];
        let ok_names = names.len() >= 3
            && names.len() <= 4
            && names.iter().zip(want.iter()).all(|(a, b)| a == b);
        if !ok_names {
            return Err(CodegenError::Invalid(format!(
                "{what} layout must have in dims register, lane, warp[, block]; it has {names:?}"
            )));
        }
        if names.len() == 4 && l.in_dim_size(DimName::BLOCK) != 1 {
            return Err(CodegenError::Unsupported(format!(
                "{what} layout spans {} CTAs; partial cross-warp plans are CTA-local",
                l.in_dim_size(DimName::BLOCK)
            )));
        }
        if !l.is_surjective() {
            return Err(CodegenError::Unsupported(format!(
                "{what} layout does not cover the whole tile (partial coverage); \
                 partial cross-warp plans need surjective layouts"
            )));
        }
        Ok(Hw {
            nr: l.in_dim_size_log2(DimName::REGISTER),
            nl: l.in_dim_size_log2(DimName::LANE),
            nw: l.in_dim_size_log2(DimName::WARP),
            layout: l.clone(),
        })
    }

    pub(super) fn flat(&self, r: u64, l: u64, w: u64) -> u64 {
        r | l << self.nr | w << (self.nr + self.nl)
    }

    /// Packed tensor coordinate (first out dim lowest) at `(r, l, w)`.
    pub(super) fn coord(&self, r: u64, l: u64, w: u64) -> u64 {
        self.layout.apply_flat(self.flat(r, l, w))
    }

    pub(super) fn split(&self, flat: u64) -> (u64, u64, u64) {
        let m = |n: u32| (1u64 << n) - 1;
        (
            flat & m(self.nr),
            flat >> self.nr & m(self.nl),
            flat >> (self.nr + self.nl) & m(self.nw),
        )
    }

    pub(super) fn count(&self) -> u64 {
        1 << (self.nr + self.nl + self.nw)
    }
}

/// `C: dst hw → src hw` as a table (destination flat hardware index →
/// source flat hardware index holding the same element): the linear map of
/// [`local_conversion_layout`], which reads a broadcast source's replica in
/// the reader's own warp (and lane) whenever there is one; each entry is
/// checked by evaluating both layouts.
pub(super) fn conversion_table(src: &Hw, dst: &Hw) -> Result<Vec<u64>> {
    let c = local_conversion_layout(&src.layout, &dst.layout)?;
    // The three function tables, built by doubling (one XOR an entry),
    // instead of three `apply_flat` per destination element.
    let (ct, st, dt) = (c.table()?, src.layout.table()?, dst.layout.table()?);
    if ct.len() as u64 != dst.count() || dt.len() as u64 != dst.count() {
        return Err(CodegenError::Invalid(format!(
            "the conversion map has {} entries, the destination {}",
            ct.len(),
            dst.count()
        )));
    }
    ct.iter()
        .zip(&dt)
        .map(|(&g, &want)| match st.get(g as usize) {
            Some(&have) if g < src.count() && have == want => Ok(g),
            _ => Err(CodegenError::Invalid(format!(
                "element {want:#x} of the destination is held by no source thread"
            ))),
        })
        .collect()
}

/// Which of the class's conditions (module doc) fail, as a message; `None`
/// when `src → dst` is a partial cross-warp conversion.
pub fn why_not_partial(src: &LinearLayout, dst: &LinearLayout) -> Result<Option<String>> {
    let (s, d, c) = tables(src, dst)?;
    Ok(check_class(&s, &d, &c))
}

/// Both layouts as hardware tables and the map `C` of `src → dst` as a
/// table ([`conversion_table`]), after checking that they share lanes and
/// warps.
pub(super) fn tables(src: &LinearLayout, dst: &LinearLayout) -> Result<(Hw, Hw, Vec<u64>)> {
    let (s, d) = (Hw::new(src, "source")?, Hw::new(dst, "destination")?);
    if (s.nl, s.nw) != (d.nl, d.nw) {
        return Err(CodegenError::Invalid(
            "source and destination differ in lanes or warps".into(),
        ));
    }
    let c = conversion_table(&s, &d)?;
    Ok((s, d, c))
}

pub(super) fn check_class(s: &Hw, d: &Hw, c: &[u64]) -> Option<String> {
    check_split(s, d, c).or_else(|| check_mixed(s, d, c))
}

/// Conditions 1 and 2 of the module doc (staying is warp-uniform and its
/// source registers are static per warp).
pub(super) fn check_split(s: &Hw, d: &Hw, c: &[u64]) -> Option<String> {
    for i in 0..d.nl {
        let (r2, _, w2) = s.split(c[d.flat(0, 1 << i, 0) as usize]);
        if w2 != 0 {
            return Some(format!(
                "the source warp depends on destination lane bit {i} (C_wl != 0): \
                 staying is not warp-uniform"
            ));
        }
        if r2 != 0 {
            return Some(format!(
                "the source register depends on destination lane bit {i} (C_rl != 0): \
                 a staying shuffle would need lane-dependent source registers"
            ));
        }
    }
    None
}

/// Condition 3: some elements stay and some cross warps.
fn check_mixed(s: &Hw, d: &Hw, c: &[u64]) -> Option<String> {
    let (mut stay, mut cross) = (false, false);
    for f in 0..d.count() {
        let (_, _, w) = d.split(f);
        let (_, _, w2) = s.split(c[f as usize]);
        if w == w2 {
            stay = true
        } else {
            cross = true
        }
    }
    if !cross {
        return Some("no element crosses warps (register or shuffle class)".into());
    }
    if !stay {
        return Some("every element crosses warps (full shared-memory class)".into());
    }
    None
}

/// A floor on the shared-memory instructions
/// ([`crate::planner::shared_instructions`]) of every partial plan of
/// `src → dst` with `bitwidth`-bit elements, through any shared layout and
/// in any of the planner's forms (plain, lane-predicated, transposed, on
/// elements or on packed words): `Σ_w ⌈|X_w| / V⌉ + ⌈|Y_w| / V⌉`, with
/// `V = 128 / bitwidth` elements (one access moves at most 16 bytes),
/// `Y_w` the destination registers of warp `w` whose element `C` reads in
/// another warp (each must be loaded) and `X_w` the source registers of
/// warp `w` that `C` reads from another warp (each must be stored).
///
/// It is a floor where conditions 1 and 2 of the module doc hold and the
/// source is injective: then `C` is `src⁻¹ ∘ dst` (the only holder of each
/// element, whichever form a plan takes), and which registers cross is
/// the same for every lane of a warp, so every thread of warp `w` loads
/// `|Y_w|` elements and stores `|X_w|`. Elsewhere it returns 0 (no claim).
pub fn shared_instruction_floor(
    src: &LinearLayout,
    dst: &LinearLayout,
    bitwidth: u32,
) -> Result<u64> {
    crate::error::check_bitwidth(bitwidth)?;
    let (s, d) = (Hw::new(src, "source")?, Hw::new(dst, "destination")?);
    if (s.nl, s.nw) != (d.nl, d.nw) || !src.is_injective() {
        return Ok(0);
    }
    let c = conversion_table(&s, &d)?;
    if check_split(&s, &d, &c).is_some() {
        return Ok(0);
    }
    let per_access = u64::from((128 / bitwidth).max(1));
    let warps = 1usize << d.nw;
    let mut stored = vec![vec![false; 1usize << s.nr]; warps];
    let mut floor = 0;
    for w in 0..warps as u64 {
        let mut loaded = 0u64;
        for r in 0..1u64 << d.nr {
            // Lane 0 stands for every lane (conditions 1 and 2).
            let (r2, _, w2) = s.split(c[d.flat(r, 0, w) as usize]);
            if w2 != w {
                loaded += 1;
                stored[w2 as usize][r2 as usize] = true;
            }
        }
        floor += loaded.div_ceil(per_access);
    }
    for regs in &stored {
        let n = regs.iter().filter(|&&x| x).count() as u64;
        floor += n.div_ceil(per_access);
    }
    Ok(floor)
}

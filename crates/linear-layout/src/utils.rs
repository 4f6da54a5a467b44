//! Free functions of Triton's LayoutUtils that fit layouts to shapes and
//! extract structure (masks, strides, repetitions, vectorisation).

use crate::error::{check_pow2_with, LayoutError, Result};
use crate::layout::low_mask;
use crate::{divide_left, ColumnAction, DimName, LinearLayout};
use smallvec::SmallVec;

/// Shrinks the codomain to at most `shape` (out dim → size, any order):
/// each out size becomes `min(actual, desired)` and every component that
/// does not fit is set to 0 whole (broadcast). With `broadcast_registers =
/// false`, `register` bases that *became* zero are removed.
pub fn ensure_layout_not_larger_than(
    layout: &LinearLayout,
    shape: &[(DimName, u64)],
    broadcast_registers: bool,
) -> Result<LinearLayout> {
    // The final log2 size of every out dim (entries applied in order, with
    // their errors in order; a later entry for the same dim may shrink it
    // further).
    let mut log2s: SmallVec<[u32; 8]> = layout.outs.iter().map(|o| o.log2).collect();
    for &(d, want) in shape {
        let w = check_pow2_with(want, || format!("desired size of '{d}'"))?;
        let Some(k) = layout.out_dim_index(d) else {
            return Err(LayoutError::MissingDim {
                which: "output",
                name: d,
            });
        };
        log2s[k] = log2s[k].min(w);
    }
    // A component at or above its dim's final size becomes 0 (applying the
    // entries one by one zeroes exactly the components ≥ the smallest size
    // applied). A register basis that was non-zero and became zero is
    // dropped unless `broadcast_registers`.
    let outs: Vec<(DimName, u32)> = layout
        .outs
        .iter()
        .zip(&log2s)
        .map(|(o, &l)| (o.name, l))
        .collect();
    let ins = layout
        .ins
        .iter()
        .map(|d| {
            let cols = layout
                .packed_bases(d.name)
                .iter()
                .filter_map(|&c| {
                    let mut r = 0u64;
                    let mut shift = 0u32;
                    for (o, &l) in layout.outs.iter().zip(&log2s) {
                        let v = c.wrapping_shr(o.shift) & low_mask(o.log2);
                        let v = if v >> l != 0 { 0 } else { v };
                        r |= v.wrapping_shl(shift);
                        shift += l;
                    }
                    let dropped =
                        !broadcast_registers && d.name == DimName::REGISTER && c != 0 && r == 0;
                    (!dropped).then_some(r)
                })
                .collect();
            (d.name, cols)
        })
        .collect();
    LinearLayout::from_packed(ins, outs, false)
}

/// Grows the codomain to at least `shape`: for each out dim (in the layout's
/// out order) smaller than desired, multiplies by
/// `identity_1d(desired / actual, first_in_dim, out)`. The first in dim must
/// be `register` or `offset`: repetitions go there.
pub fn ensure_layout_not_smaller_than(
    layout: &LinearLayout,
    shape: &[(DimName, u64)],
) -> Result<LinearLayout> {
    let Some(k_dim) = layout.in_dim_names().next() else {
        return Err(LayoutError::Invalid(
            "ensure_layout_not_smaller_than: layout has no input dims".into(),
        ));
    };
    if k_dim != DimName::REGISTER && k_dim != DimName::OFFSET {
        return Err(LayoutError::Invalid(format!(
            "ensure_layout_not_smaller_than: first in dim must be register or offset, got '{k_dim}'"
        )));
    }
    let mut l = layout.clone();
    for (o, size) in layout.out_dims() {
        let Some(&(_, want)) = shape.iter().find(|s| s.0 == o) else {
            continue;
        };
        check_pow2_with(want, || format!("desired size of '{o}'"))?;
        if size < want {
            l = l.try_mul(&LinearLayout::try_identity_1d(want / size, k_dim, o)?)?;
        }
    }
    Ok(l)
}

/// Product over `order` (minor first) of `identity_1d(shape[d], in_dim,
/// dim{d})`. As in Triton, the out dims stay in `order` order (minor
/// first): that order decides where `ensure_layout_not_smaller_than` puts
/// repetitions; callers transpose to `dim0..` when they need it.
pub fn identity_standard_nd(
    in_dim: DimName,
    shape: &[u64],
    order: &[usize],
) -> Result<LinearLayout> {
    check_order(order, shape.len())?;
    let mut l = LinearLayout::empty();
    for &d in order {
        l = l.try_mul(&LinearLayout::try_identity_1d(
            shape[d],
            in_dim,
            DimName::dim(d),
        )?)?;
    }
    Ok(l)
}

/// Checks that `order` is a permutation of `0..rank`.
pub fn check_order(order: &[usize], rank: usize) -> Result<()> {
    let mut s = order.to_vec();
    s.sort();
    if s != (0..rank).collect::<Vec<_>>() {
        return Err(LayoutError::NotAPermutation {
            what: "order",
            value: order.to_vec(),
            len: rank,
        });
    }
    Ok(())
}

/// The same dims and sizes with every basis zero.
pub fn zeros_like(layout: &LinearLayout) -> LinearLayout {
    let ins = layout
        .in_dims()
        .into_iter()
        .map(|(d, s)| (d, vec![0u64; s.trailing_zeros() as usize]))
        .collect();
    let outs = layout
        .out_dims()
        .into_iter()
        .map(|(d, s)| (d, s.trailing_zeros()))
        .collect();
    LinearLayout::from_packed(ins, outs, false).expect("same dims")
}

/// OR of the `out_dim` components of every basis of the input dims `ins`.
pub fn basis_mask(layout: &LinearLayout, ins: &[DimName], out_dim: DimName) -> u64 {
    let Some(k) = layout.out_dim_index(out_dim) else {
        return 0;
    };
    ins.iter()
        .flat_map(|&d| {
            layout
                .packed_bases(d)
                .iter()
                .map(move |&c| layout.unpack(c)[k])
        })
        .fold(0, |m, c| m | c)
}

/// Bit `i` set iff basis `i` of `in_dim` is non-zero in any of `outs`.
pub fn input_basis_mask(layout: &LinearLayout, in_dim: DimName, outs: &[DimName]) -> u64 {
    let mask = layout.out_mask(outs);
    layout
        .packed_bases(in_dim)
        .iter()
        .enumerate()
        .fold(0, |m, (i, &c)| if c & mask != 0 { m | 1 << i } else { m })
}

/// Whether `image(sub) ⊆ image(sup)` (Triton's `isLinearLayoutImageSubset`,
/// first argument the subset): both have the same out-dim set (any order),
/// each of `sub`'s out sizes ≤ `sup`'s, and every basis of `sub` is an XOR
/// of bases of `sup`, i.e. `factor_through(sup, sub)` has a solution. Any
/// mismatch of dims or sizes answers `false`.
pub fn is_image_subset(sub: &LinearLayout, sup: &LinearLayout) -> bool {
    matches!(crate::factor_through(sup, sub), Ok(Some(_)))
}

/// Renames input and output dims simultaneously (Triton's
/// `renameLinearLayoutDims`): `(old, new)` pairs, applied all at once so
/// that swaps work; positions, sizes and bases are unchanged. Errors when an
/// `old` dim is missing or the result would have duplicate names.
pub fn rename_dims(
    layout: &LinearLayout,
    in_renames: &[(DimName, DimName)],
    out_renames: &[(DimName, DimName)],
) -> Result<LinearLayout> {
    layout.with_renamed_dims(in_renames, out_renames)
}

/// Largest `2^k ≤ limit` such that `divide_left(L, identity_1d(2^k, in, out))`
/// succeeds; returns the size and the quotient.
pub fn factor_maximal_identity_prefix(
    layout: &LinearLayout,
    in_dim: DimName,
    out_dim: DimName,
    limit: u64,
) -> (u64, LinearLayout) {
    let mut best = (1u64, layout.clone());
    let mut s = 2u64;
    while s <= limit {
        let Ok(id) = LinearLayout::try_identity_1d(s, in_dim, out_dim) else {
            break;
        };
        match divide_left(layout, &id) {
            Some(q) => best = (s, q),
            None => break,
        }
        match s.checked_mul(2) {
            Some(next) => s = next,
            None => break,
        }
    }
    best
}

/// Whether the square sublayout on `dims` maps each basis to a distinct
/// single bit (a permutation of bits) with sizes matching.
pub fn square_sublayout_is_permutation(layout: &LinearLayout, dims: &[DimName]) -> bool {
    let Ok(sub) = layout.sublayout(dims, dims) else {
        return false;
    };
    let mut seen = 0u64;
    for &d in dims {
        if sub.in_dim_size(d) != sub.out_dim_size(d) {
            return false;
        }
        for &c in sub.packed_bases(d) {
            if c.count_ones() != 1 || seen & c != 0 {
                return false;
            }
            seen |= c;
        }
    }
    true
}

/// `C = B.invert_and_compose(A)` (so `A(C(x)) = B(x)`: `A` is the source,
/// e.g. shared memory, `B` the destination registers), then for every
/// `block` bit `i` where `A` is broadcast (basis `i` of `A`'s `block` is
/// zero), bit `i` is set in the `block` component of `C(block = 2^i)`. That
/// does not change `A(C(x))` (the column is zero) but keeps each CTA reading
/// its own copy instead of CTA 0's, so the access stays block-local.
pub fn invert_and_compose_block_local(a: &LinearLayout, b: &LinearLayout) -> Result<LinearLayout> {
    let c = b.invert_and_compose(a)?;
    let blk = DimName::BLOCK;
    if !c.has_in_dim(blk) || !c.has_out_dim(blk) {
        return Ok(c);
    }
    let mut bases = c.all_bases();
    let k = c.out_dim_index(blk).expect("present");
    let out_size = c.out_dim_size(blk);
    let a_block = a.packed_bases(blk);
    for (d, bs) in &mut bases {
        if *d == blk {
            for (i, bsv) in bs.iter_mut().enumerate() {
                if a_block.get(i).is_some_and(|&x| x == 0) && (1u64 << i) < out_size {
                    bsv[k] |= 1 << i;
                }
            }
        }
    }
    LinearLayout::new(bases, c.out_dims(), false)
}

/// Removes out dim `dim{d}` and renames `dim{k+1}` to `dim{k}` above it.
pub fn remove_standard_dim(layout: &LinearLayout, d: usize) -> Result<LinearLayout> {
    let rank = layout.num_out_dims();
    if !layout.has_out_dim(DimName::dim(d)) {
        return Err(LayoutError::MissingDim {
            which: "output",
            name: DimName::dim(d),
        });
    }
    let outs: Vec<DimName> = (0..rank)
        .map(DimName::dim)
        .filter(|&o| o != DimName::dim(d))
        .collect();
    let ins: Vec<DimName> = layout.in_dim_names().collect();
    let mut l = layout.sublayout(&ins, &outs)?;
    for k in d + 1..rank {
        l = l.rename_out_dim(DimName::dim(k), DimName::dim(k - 1))?;
    }
    Ok(l)
}

/// Row-major reshape of the logical tensor (as `tt.reshape`): reverse the
/// out dims, re-split the bits, reverse back. Out dims are `dim0..`.
pub fn reshape_layout(layout: &LinearLayout, new_shape: &[u64]) -> Result<LinearLayout> {
    let rev: Vec<DimName> = layout
        .out_dim_names()
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let l = layout.transpose_outs(&rev)?;
    let new_rev: Vec<(DimName, u64)> = new_shape
        .iter()
        .enumerate()
        .rev()
        .map(|(i, &s)| (DimName::dim(i), s))
        .collect();
    let l = l.reshape_outs(&new_rev)?;
    l.transpose_outs(&DimName::standard_out_dims(new_shape.len()))
}

/// Logical transpose: new component `i` is old component `order[i]` (out
/// dims stay `dim0..`, sizes follow).
pub fn transpose_linear_layout(layout: &LinearLayout, order: &[usize]) -> Result<LinearLayout> {
    check_order(order, layout.num_out_dims())?;
    let names: Vec<DimName> = order.iter().map(|&i| DimName::dim(i)).collect();
    let l = layout.transpose_outs(&names)?;
    let mut l2 = l;
    // Rename dim{order[i]} to a temporary, then to dim{i}.
    let tmp: Vec<DimName> = (0..order.len())
        .map(|i| DimName::new(&format!("__t{i}")))
        .collect();
    for (i, &n) in names.iter().enumerate() {
        l2 = l2.rename_out_dim(n, tmp[i])?;
    }
    for (i, &t) in tmp.iter().enumerate() {
        l2 = l2.rename_out_dim(t, DimName::dim(i))?;
    }
    Ok(l2)
}

/// Matches each `register` basis of `b` (broadcast to `a`'s out dims; for
/// right division shifted above the quotient) to the first unused equal
/// `register` basis of `a`. Returns the permutation `[matched.., rest..]`
/// (left) or `[rest.., matched..]` (right), or `None` if one is missing.
pub fn reg_perm_for_divide(a: &LinearLayout, b: &LinearLayout, left: bool) -> Option<ColumnAction> {
    let reg = DimName::REGISTER;
    if a.in_dim_names().next() != Some(reg) || b.in_dim_names().next() != Some(reg) {
        return None;
    }
    let a_cols = a.bases(reg);
    let mut used = vec![false; a_cols.len()];
    let mut matched = Vec::new();
    for bb in b.bases(reg) {
        // b's basis in a's out dims.
        let mut target = vec![0u64; a.num_out_dims()];
        for (k, o) in b.out_dim_names().enumerate() {
            let ka = a.out_dim_index(o)?;
            let shift = if left {
                0
            } else {
                a.out_dim_size_log2(o).checked_sub(b.out_dim_size_log2(o))?
            };
            target[ka] = bb[k] << shift;
        }
        let pos = (0..a_cols.len()).find(|&i| !used[i] && a_cols[i] == target)?;
        used[pos] = true;
        matched.push(pos);
    }
    let rest: Vec<usize> = (0..a_cols.len()).filter(|&i| !used[i]).collect();
    let action = if left {
        [matched, rest].concat()
    } else {
        [rest, matched].concat()
    };
    ColumnAction::new(action, reg, a_cols.len() as u32).ok()
}

/// The widest `v ≤ max_vec` (default `128 / bitwidth`) such that, after a
/// register permutation, `v` consecutive registers map to `v` consecutive
/// values of `out_dim` (`identity_1d(v, register, out_dim)` divides the
/// layout on the left). With an explicit `max_vec`, only the identity
/// permutation is allowed. Returns `(v, permutation)`.
pub fn largest_vectorisation(
    layout: &LinearLayout,
    out_dim: DimName,
    bitwidth: u32,
    max_vec: Option<u64>,
) -> (u64, ColumnAction) {
    let nreg = layout.in_dim_size_log2(DimName::REGISTER);
    // The widest candidate, rounded down to a power of two.
    let want = max_vec
        .unwrap_or((128 / bitwidth.max(1)).max(1) as u64)
        .max(1);
    let mut v = 1u64 << (63 - want.leading_zeros());
    while v >= 1 {
        let Ok(tile) = LinearLayout::try_identity_1d(v, DimName::REGISTER, out_dim) else {
            v /= 2;
            continue;
        };
        if let Some(perm) = reg_perm_for_divide(layout, &tile, true) {
            if max_vec.is_none() || perm.is_identity() {
                if let Ok(permuted) = perm.apply(layout) {
                    if divide_left(&permuted, &tile).is_some() {
                        return (v, perm);
                    }
                }
            }
        }
        if v == 1 {
            break;
        }
        v /= 2;
    }
    (1, ColumnAction::identity(DimName::REGISTER, nreg))
}

/// The repetition part of `cvt` over `tile` (both with the same in dims):
/// `cvt`'s first bases of each in dim must equal `tile`'s, the rest must
/// avoid `tile`'s mask bits per out dim. Returns `cvt` with the tile bases
/// zeroed, or `None`.
pub fn get_reps(cvt: &LinearLayout, tile: &LinearLayout) -> Option<LinearLayout> {
    let mut bases = cvt.all_bases();
    for (d, bs) in &mut bases {
        let tb = tile.bases(*d);
        if tb.len() > bs.len() {
            return None;
        }
        // Tile masks per out dim of cvt.
        let mut masks = vec![0u64; cvt.num_out_dims()];
        for (k, o) in cvt.out_dim_names().enumerate() {
            if tile.has_out_dim(o) {
                masks[k] = basis_mask(tile, &tile.in_dim_names().collect::<Vec<_>>(), o);
            }
        }
        for (i, b) in bs.iter_mut().enumerate() {
            if i < tb.len() {
                for (k, o) in cvt.out_dim_names().enumerate() {
                    let want = tile.out_dim_index(o).map_or(0, |ko| tb[i][ko]);
                    if b[k] != want {
                        return None;
                    }
                }
                b.iter_mut().for_each(|c| *c = 0);
            } else if b.iter().zip(&masks).any(|(c, m)| c & m != 0) {
                return None;
            }
        }
    }
    LinearLayout::new(bases, cvt.out_dims(), false).ok()
}

/// For each selected in dim, the stride `s` such that basis `i` along
/// `out_dim` is `s << i` (0 for broadcast); masks must be disjoint between
/// the selected dims and from the others. `None` when not affine.
pub fn get_integer_strides(
    layout: &LinearLayout,
    out_dim: DimName,
    ins: &[DimName],
) -> Option<Vec<u64>> {
    let k = layout.out_dim_index(out_dim)?;
    let mut used = 0u64;
    let mut strides = Vec::new();
    for &d in ins {
        let bs = layout.bases(d);
        let vals: Vec<u64> = bs.iter().map(|b| b[k]).collect();
        let stride = vals.first().copied().unwrap_or(0);
        if stride != 0 && !stride.is_power_of_two() {
            return None;
        }
        for (i, &v) in vals.iter().enumerate() {
            if v != stride << i {
                return None;
            }
        }
        let m = vals.iter().fold(0, |m, &v| m | v);
        if used & m != 0 {
            return None;
        }
        used |= m;
        strides.push(stride);
    }
    let others: Vec<DimName> = layout.in_dim_names().filter(|d| !ins.contains(d)).collect();
    if basis_mask(layout, &others, out_dim) & used != 0 {
        return None;
    }
    Some(strides)
}

/// A column action keeping only the non-zero `register` bases.
pub fn action_remove_broadcasted_regs(layout: &LinearLayout) -> ColumnAction {
    let cols = layout.packed_bases(DimName::REGISTER);
    let keep: Vec<usize> = (0..cols.len()).filter(|&i| cols[i] != 0).collect();
    ColumnAction::new(keep, DimName::REGISTER, cols.len() as u32).expect("subset")
}

/// Re-expands `values` to every register of `layout` (Triton's
/// `broadcastAs`): the free (broadcast) `register` bits are those of
/// [`LinearLayout::free_variable_masks`]; `values` holds one value per
/// setting of the other bits, and register `i` takes the value at `i` with
/// its free bits removed (remaining bits packed, lowest first). Errors when
/// `values.len()` is not `2^(register bits - free bits)`.
pub fn broadcast_as<T: Clone>(values: &[T], layout: &LinearLayout) -> Result<Vec<T>> {
    let reg = DimName::REGISTER;
    let n = layout.in_dim_size_log2(reg);
    if n >= usize::BITS - 1 {
        return Err(LayoutError::TooManyBits {
            which: "broadcast_as register",
            bits: n,
        });
    }
    let free = layout
        .free_variable_masks()
        .into_iter()
        .find(|x| x.0 == reg)
        .map_or(0, |x| x.1);
    let kept: Vec<u32> = (0..n).filter(|&i| free >> i & 1 == 0).collect();
    if values.len() != 1usize << kept.len() {
        return Err(LayoutError::Invalid(format!(
            "broadcast_as: {} values given, the layout has {} non-broadcast registers",
            values.len(),
            1usize << kept.len()
        )));
    }
    Ok((0..1usize << n)
        .map(|i| {
            let j = kept
                .iter()
                .enumerate()
                .fold(0usize, |j, (k, &b)| j | ((i >> b) & 1) << k);
            values[j].clone()
        })
        .collect())
}

/// Flattened (out dims concatenated) value of every basis of `in_dim`.
pub fn flat_bases(layout: &LinearLayout, in_dim: DimName) -> Vec<u64> {
    layout.packed_bases(in_dim).to_vec()
}

/// Packed mask of all bits set by the bases of `ins`.
pub fn packed_span_mask(layout: &LinearLayout, ins: &[DimName]) -> u64 {
    ins.iter()
        .flat_map(|&d| layout.packed_bases(d))
        .fold(0, |m, &c| m | c)
}

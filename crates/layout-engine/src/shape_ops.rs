//! Shape operations as linear-layout operations (the paper's closure of
//! distributed layouts under shape ops): for a layout `L: hardware →
//! tensor` of the operand, the layout of the result, and back.
//!
//! Out dims are `dim0, dim1, …` in shape order; a basis is one vector of
//! components, one per out dim. Every function here is pure on bases:
//!
//! | op | result layout |
//! |---|---|
//! | `reduce(axis)` | drop component `axis` ([`drop_dim`]), then [`canon`] |
//! | `expand_dims(axis)` | insert a size-1 out dim at `axis` ([`insert_dim`]) |
//! | `broadcast` | operand = result with the broadcast dims zeroed to size 1 ([`collapse_dims`]); forward, [`lift`] |
//! | `trans(order)` | out dim `i` of the result is out dim `order[i]` of the operand ([`transpose`]) |
//! | `reshape` | components flattened row-major and unflattened ([`reshape`]) |
//! | `join` | a new register bit onto the new last dim ([`join`]); `split` removes it ([`split`]) |

use crate::error::{EngineError, Result};
use linear_layout::{DimName, LinearLayout};

fn err(op: &str, e: impl std::fmt::Display) -> EngineError {
    EngineError::Unsupported(format!("{op}: {e}"))
}

fn rank(ll: &LinearLayout) -> usize {
    ll.num_out_dims()
}

fn shape(ll: &LinearLayout) -> Vec<u64> {
    ll.out_dims().into_iter().map(|(_, s)| s).collect()
}

/// Rebuilds a layout from per-in-dim bases (`bases[k]` components in out
/// dim order) and an out shape.
fn build(
    ll: &LinearLayout,
    bases: Vec<(DimName, Vec<Vec<u64>>)>,
    out_shape: &[u64],
    op: &str,
) -> Result<LinearLayout> {
    let _ = ll;
    let outs = out_shape
        .iter()
        .enumerate()
        .map(|(i, &s)| (DimName::dim(i), s))
        .collect();
    LinearLayout::new(bases, outs, false).map_err(|e| err(op, e))
}

fn map_bases(
    ll: &LinearLayout,
    mut f: impl FnMut(DimName, &[u64]) -> Vec<u64>,
) -> Vec<(DimName, Vec<Vec<u64>>)> {
    ll.all_bases()
        .into_iter()
        .map(|(d, bs)| (d, bs.iter().map(|b| f(d, b)).collect()))
        .collect()
}

/// The layout whose out dim `k` is `ll`'s out dim `from[k]` (same size,
/// the same component in every basis), or a size-1 dim where `from[k]` is
/// `None`: the packed columns' fields are moved, no basis is unpacked.
/// The dims are `dim0, dim1, …`; the in dims and columns keep their order,
/// so the result equals [`build`] of the same components. With
/// `canonical`, all-zero register columns are dropped as [`canon`] drops
/// them.
fn move_fields(
    ll: &LinearLayout,
    from: &[Option<usize>],
    canonical: bool,
    op: &str,
) -> Result<LinearLayout> {
    // (width, shift) of every old field: dim0 in the low bits.
    let mut old: Vec<(u32, u32)> = Vec::with_capacity(ll.num_out_dims());
    let mut at = 0;
    for d in ll.out_dim_names() {
        let log2 = ll.out_dim_size_log2(d);
        old.push((log2, at));
        at += log2;
    }
    // (old shift, width, new shift) of every moved field.
    let mut moves: Vec<(u32, u32, u32)> = Vec::with_capacity(from.len());
    let mut outs = Vec::with_capacity(from.len());
    let mut shift = 0;
    for (k, f) in from.iter().enumerate() {
        let log2 = match f {
            Some(j) => {
                let (log2, at) = old[*j];
                if log2 > 0 {
                    moves.push((at, log2, shift));
                }
                log2
            }
            None => 0,
        };
        outs.push((DimName::dim(k), log2));
        shift += log2;
    }
    let field =
        |c: u64, (at, width, to): (u32, u32, u32)| ((c >> at) & (u64::MAX >> (64 - width))) << to;
    let ins = ll
        .in_dim_names()
        .map(|d| {
            let drop_zero = canonical && d == DimName::REGISTER;
            let cols = ll
                .packed_bases(d)
                .iter()
                .map(|&c| moves.iter().fold(0, |acc, &m| acc | field(c, m)))
                .filter(|&c| !drop_zero || c != 0)
                .collect();
            (d, cols)
        })
        .collect();
    LinearLayout::from_packed(ins, outs, false).map_err(|e| err(op, e))
}

/// The layout with its all-zero register bases dropped (duplicated
/// registers removed): two layouts that differ only by such bases hold
/// the same data in each thread.
pub fn canon(ll: &LinearLayout) -> LinearLayout {
    if ll.has_in_dim(DimName::REGISTER) {
        ll.remove_zero_bases_along_dim(DimName::REGISTER)
    } else {
        ll.clone()
    }
}

/// Removes out dim `axis` (its components dropped): the layout of a
/// reduction along `axis`, before [`canon`].
pub fn drop_dim(ll: &LinearLayout, axis: usize) -> Result<LinearLayout> {
    let s = shape(ll);
    if axis >= s.len() {
        return Err(err(
            "reduce",
            format!("axis {axis} of a rank-{} layout", s.len()),
        ));
    }
    let from: Vec<Option<usize>> = (0..s.len()).filter(|&d| d != axis).map(Some).collect();
    move_fields(ll, &from, false, "reduce")
}

/// The layout with every size-1 out dim removed (the others renumbered
/// `dim0, dim1, …` in order): the same map on the same packed columns,
/// `None` when there is no size-1 dim.
pub fn squeeze(ll: &LinearLayout) -> Option<LinearLayout> {
    let s = shape(ll);
    if !s.contains(&1) {
        return None;
    }
    let from: Vec<Option<usize>> = (0..s.len()).filter(|&d| s[d] != 1).map(Some).collect();
    move_fields(ll, &from, false, "squeeze").ok()
}

/// Inserts a size-1 out dim at `axis` (`expand_dims`).
pub fn insert_dim(ll: &LinearLayout, axis: usize) -> Result<LinearLayout> {
    let s = shape(ll);
    if axis > s.len() {
        return Err(err(
            "expand_dims",
            format!("axis {axis} of a rank-{} layout", s.len()),
        ));
    }
    let mut from: Vec<Option<usize>> = (0..s.len()).map(Some).collect();
    from.insert(axis, None);
    move_fields(ll, &from, false, "expand_dims")
}

/// Zeroes every out dim where `to[d] == 1` and the layout's size is
/// larger (the operand of a broadcast, seen from its result).
pub fn collapse_dims(ll: &LinearLayout, to: &[u64]) -> Result<LinearLayout> {
    let s = shape(ll);
    if to.len() != s.len() {
        return Err(err("broadcast", format!("{to:?} from {s:?}")));
    }
    if s.iter().zip(to).all(|(&a, &t)| t == 1 || t == a) {
        let from: Vec<Option<usize>> = (0..s.len()).map(|d| (to[d] != 1).then_some(d)).collect();
        return move_fields(ll, &from, false, "broadcast");
    }
    let bases = map_bases(ll, |_, b| {
        b.iter()
            .zip(to)
            .map(|(&c, &t)| if t == 1 { 0 } else { c })
            .collect()
    });
    build(ll, bases, to, "broadcast")
}

/// [`canon`] of [`drop_dim`], built once.
pub fn drop_dim_canon(ll: &LinearLayout, axis: usize) -> Result<LinearLayout> {
    let s = shape(ll);
    if axis >= s.len() {
        return drop_dim(ll, axis);
    }
    let from: Vec<Option<usize>> = (0..s.len()).filter(|&d| d != axis).map(Some).collect();
    move_fields(ll, &from, true, "reduce")
}

/// [`canon`] of [`collapse_dims`], built once.
pub fn collapse_dims_canon(ll: &LinearLayout, to: &[u64]) -> Result<LinearLayout> {
    let s = shape(ll);
    if to.len() == s.len() && s.iter().zip(to).all(|(&a, &t)| t == 1 || t == a) {
        let from: Vec<Option<usize>> = (0..s.len()).map(|d| (to[d] != 1).then_some(d)).collect();
        return move_fields(ll, &from, true, "broadcast");
    }
    Ok(canon(&collapse_dims(ll, to)?))
}

/// `trans(order)`: result dim `i` is operand dim `order[i]`.
pub fn transpose(ll: &LinearLayout, order: &[usize]) -> Result<LinearLayout> {
    let s = shape(ll);
    let mut seen = vec![false; s.len()];
    if order.len() != s.len()
        || order
            .iter()
            .any(|&o| o >= s.len() || std::mem::replace(&mut seen[o], true))
    {
        return Err(err(
            "trans",
            format!("order {order:?} for rank {}", s.len()),
        ));
    }
    let from: Vec<Option<usize>> = order.iter().map(|&o| Some(o)).collect();
    move_fields(ll, &from, false, "trans")
}

/// Row-major reshape (last dim fastest, as Triton's `tt.reshape`).
pub fn reshape(ll: &LinearLayout, to: &[u64]) -> Result<LinearLayout> {
    let s = shape(ll);
    if s.iter().product::<u64>() != to.iter().product::<u64>() {
        return Err(err("reshape", format!("{s:?} to {to:?}")));
    }
    let bits = |v: &[u64]| -> Vec<u32> { v.iter().map(|x| x.trailing_zeros()).collect() };
    let (fb, tb) = (bits(&s), bits(to));
    let flatten = |b: &[u64]| -> u64 {
        let mut idx = 0u64;
        for (c, w) in b.iter().zip(&fb) {
            idx = (idx << w) | c;
        }
        idx
    };
    let unflatten = |mut idx: u64| -> Vec<u64> {
        let mut out = vec![0; tb.len()];
        for i in (0..tb.len()).rev() {
            out[i] = idx & ((1u64 << tb[i]) - 1);
            idx >>= tb[i];
        }
        out
    };
    let bases = map_bases(ll, |_, b| unflatten(flatten(b)));
    build(ll, bases, to, "reshape")
}

/// `join`: the result of shape `[.., 2]` holds the two operands in a new
/// register bit (the highest) mapped onto the new last dim.
pub fn join(ll: &LinearLayout) -> Result<LinearLayout> {
    let mut s = shape(ll);
    s.push(2);
    let r = s.len() - 1;
    let mut bases = map_bases(ll, |_, b| {
        let mut b = b.to_vec();
        b.push(0);
        b
    });
    let mut new = vec![0; r + 1];
    new[r] = 1;
    match bases.iter_mut().find(|(d, _)| *d == DimName::REGISTER) {
        Some((_, regs)) => regs.insert(0, new),
        None => bases.insert(0, (DimName::REGISTER, vec![new])),
    }
    build(ll, bases, &s, "join")
}

/// `split`: the operand's last dim (size 2) must be held by exactly one
/// register bit; removing it gives both results' layout.
pub fn split(ll: &LinearLayout) -> Result<LinearLayout> {
    let mut s = shape(ll);
    if s.last() != Some(&2) {
        return Err(err("split", format!("last dim of {s:?} is not 2")));
    }
    let r = s.len() - 1;
    s.pop();
    let mut found = 0;
    let mut bad = false;
    let mut bases: Vec<(DimName, Vec<Vec<u64>>)> = Vec::new();
    for (d, bs) in ll.all_bases() {
        let mut kept = Vec::new();
        for b in bs {
            if b[r] != 0 {
                if d == DimName::REGISTER && b.iter().take(r).all(|&c| c == 0) {
                    found += 1;
                    continue;
                }
                bad = true;
            }
            kept.push(b[..r].to_vec());
        }
        bases.push((d, kept));
    }
    if bad || found != 1 {
        return Err(err(
            "split",
            "the split dim is not held by one register bit alone",
        ));
    }
    build(ll, bases, &s, "split")
}

/// `rank(ll)` for callers.
pub fn out_rank(ll: &LinearLayout) -> usize {
    rank(ll)
}

/// The out shape of a layout.
pub fn out_shape(ll: &LinearLayout) -> Vec<u64> {
    shape(ll)
}

/// A layout of shape `to` whose collapse to `from` is `ll` (see
/// [`collapse_dims`]): the bases that are zero in `ll` (lanes first, then
/// warps, then registers) take the new extent of each broadcast dim, and
/// registers are added when they run out.
pub fn lift(ll: &LinearLayout, from: &[u64], to: &[u64]) -> Result<LinearLayout> {
    let mut bases = ll.all_bases();
    let mut need: Vec<(usize, u64)> = Vec::new();
    for (d, &t) in to.iter().enumerate() {
        if from.get(d) == Some(&1) && t > 1 {
            for b in 0..t.trailing_zeros() {
                need.push((d, 1u64 << b));
            }
        }
    }
    let mut it = need.into_iter();
    for dim in [DimName::LANE, DimName::WARP, DimName::REGISTER] {
        if let Some((_, bs)) = bases.iter_mut().find(|(d, _)| *d == dim) {
            for b in bs.iter_mut() {
                if b.iter().all(|&c| c == 0) {
                    match it.next() {
                        Some((d, val)) => b[d] = val,
                        None => break,
                    }
                }
            }
        }
    }
    let rest: Vec<(usize, u64)> = it.collect();
    if !rest.is_empty() {
        let rank = to.len();
        let extra = rest.iter().map(|&(d, val)| {
            let mut b = vec![0; rank];
            b[d] = val;
            b
        });
        match bases.iter_mut().find(|(d, _)| *d == DimName::REGISTER) {
            Some((_, regs)) => regs.extend(extra),
            None => bases.insert(0, (DimName::REGISTER, extra.collect())),
        }
    }
    let outs = to
        .iter()
        .enumerate()
        .map(|(i, &s)| (DimName::dim(i), s))
        .collect();
    LinearLayout::new(bases, outs, false)
        .map_err(|e| EngineError::Unsupported(format!("broadcast: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hw_layouts::Encoding;

    fn blocked(shape: &[u64]) -> LinearLayout {
        Encoding::parse("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>")
            .unwrap()
            .to_linear_layout(shape)
            .unwrap()
    }

    /// Reduce = Triton's slice layout (an independent construction:
    /// hw-layouts builds the parent on the shape with the axis set to 1).
    #[test]
    fn reduce_equals_triton_slice() {
        for axis in 0..2 {
            let ours = canon(&drop_dim(&blocked(&[64, 64]), axis).unwrap());
            let slice = Encoding::parse(&format!("#ttg.slice<{{dim = {axis}, parent = #ttg.blocked<{{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}}>}}>"))
                .unwrap()
                .to_linear_layout(&[64])
                .unwrap();
            assert_eq!(ours, slice, "axis {axis}");
        }
    }

    #[test]
    fn expand_then_reduce_is_identity() {
        let l = canon(&drop_dim(&blocked(&[64, 64]), 1).unwrap());
        assert_eq!(canon(&drop_dim(&insert_dim(&l, 1).unwrap(), 1).unwrap()), l);
    }

    /// The operand of a broadcast in the same blocked encoding is the
    /// collapsed result (up to duplicated registers).
    #[test]
    fn broadcast_operand_is_collapsed_result() {
        let full = blocked(&[64, 64]);
        let small = blocked(&[64, 1]);
        assert_eq!(
            canon(&collapse_dims(&full, &[64, 1]).unwrap()),
            canon(&small)
        );
    }

    #[test]
    fn trans_twice_and_reshape_round_trip() {
        let l = blocked(&[32, 64]);
        assert_eq!(
            transpose(&transpose(&l, &[1, 0]).unwrap(), &[1, 0]).unwrap(),
            l
        );
        let r = reshape(&l, &[32, 32, 2]).unwrap();
        assert_eq!(reshape(&r, &[32, 64]).unwrap(), l);
        assert_eq!(split(&join(&l).unwrap()).unwrap(), l);
    }

    /// The field moves of `drop_dim`, `insert_dim`, `collapse_dims` and
    /// `transpose` equal the layouts built from the bases' components
    /// (each component dropped, inserted, zeroed or permuted by hand), on
    /// every axis and order of blocked, mma and broadcast layouts.
    #[test]
    fn field_moves_equal_the_component_definitions() {
        let by_components = |ll: &LinearLayout, f: &dyn Fn(&[u64]) -> Vec<u64>, to: &[u64]| {
            build(ll, map_bases(ll, |_, b| f(b)), to, "test").unwrap()
        };
        let layouts = [
            blocked(&[64, 64]),
            blocked(&[2, 64]),
            blocked(&[64, 1]),
            blocked(&[256, 256]),
            Encoding::parse("#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 4], instrShape = [16, 8]}>")
                .unwrap()
                .to_linear_layout(&[64, 128])
                .unwrap(),
            Encoding::parse("#ttg.blocked<{sizePerThread = [1, 2, 2], threadsPerWarp = [4, 1, 8], warpsPerCTA = [2, 2, 1], order = [2, 0, 1]}>")
                .unwrap()
                .to_linear_layout(&[8, 1, 32])
                .unwrap(),
        ];
        let mut checked = 0;
        for ll in &layouts {
            let s = shape(ll);
            let n = s.len();
            for axis in 0..n {
                let mut t = s.clone();
                t.remove(axis);
                let want = by_components(ll, &|b| [&b[..axis], &b[axis + 1..]].concat(), &t);
                assert_eq!(drop_dim(ll, axis).unwrap(), want);
                let mut to = s.clone();
                to[axis] = 1;
                let want = by_components(
                    ll,
                    &|b| {
                        b.iter()
                            .enumerate()
                            .map(|(d, &c)| if d == axis { 0 } else { c })
                            .collect()
                    },
                    &to,
                );
                assert_eq!(collapse_dims(ll, &to).unwrap(), want);
                assert_eq!(collapse_dims_canon(ll, &to).unwrap(), canon(&want));
                assert_eq!(
                    drop_dim_canon(ll, axis).unwrap(),
                    canon(&drop_dim(ll, axis).unwrap())
                );
                checked += 2;
            }
            for axis in 0..=n {
                let mut t = s.clone();
                t.insert(axis, 1);
                let want = by_components(ll, &|b| [&b[..axis], &[0], &b[axis..]].concat(), &t);
                assert_eq!(insert_dim(ll, axis).unwrap(), want);
                checked += 1;
            }
            let order: Vec<usize> = (0..n).rev().collect();
            let t: Vec<u64> = order.iter().map(|&o| s[o]).collect();
            let want = by_components(ll, &|b| order.iter().map(|&o| b[o]).collect(), &t);
            assert_eq!(transpose(ll, &order).unwrap(), want);
            checked += 1;
        }
        assert_eq!(checked, 51);
    }

    #[test]
    fn split_refuses_a_lane_held_dim() {
        let l = transpose(&blocked(&[2, 64]), &[1, 0]).unwrap(); // dim1 (size 2) from lanes
        assert!(split(&l).is_err());
    }
}

//! Size limits of the work that grows with the tensor rather than with its
//! bits, checked by the front ends (CLI, Python) before any work starts, so
//! that a huge shape is refused at once instead of exhausting memory.
//!
//! Conversion planning and its proof enumerate every hardware index (the
//! simulator checks each destination register), so `convert`'s time and
//! memory are proportional to the tensor. Everything else here works on the
//! layout's bits (swizzle search, bank conflicts, invert-and-compose: 0.01 s
//! in a debug build at 2^40 elements) and needs no limit of its own.

use linear_layout::{DimName, LinearLayout};

/// The most tensor elements a conversion plan accepts (the CLI's
/// `convert`, Python's `convert` and `partial`): 2^18, a 512x512 tensor,
/// the largest conversion in the Triton oracle's corpora (73 of the
/// trivial-conversion and bank-conflict records have 2^18 elements).
///
/// Measured on a shared 2-core machine (`/usr/bin/time`, release CLI):
/// `convert --json --best --partial` of a 512x512 blocked -> dot operand
/// pair takes 0.82 s and 21 MB (7.8 s in a debug build); above the limit
/// the cost keeps growing with the tensor (a 2048x2048 pair took 15 s and
/// 3.1 GB, 16384x16384 24 s and 6.1 GB, 65536x65536 aborted on allocation).
pub const MAX_PLAN_ELEMENTS: u64 = 1 << 18;

/// The most hardware indices (register x lane x warp x block, or offset x
/// block) a planned layout may have: 4x [`MAX_PLAN_ELEMENTS`], room for a
/// layout that holds every element in up to four copies (a dot operand
/// broadcast across warps), while keeping the simulation bounded.
pub const MAX_PLAN_HARDWARE: u64 = MAX_PLAN_ELEMENTS << 2;

/// Refuses, before any planning, a tensor of more than
/// [`MAX_PLAN_ELEMENTS`] elements (named with the shape and the limit).
pub fn check_plan_shape(shape: &[u64], command: &str) -> Result<(), String> {
    let bits: u32 = shape.iter().map(|s| s.trailing_zeros()).sum();
    if bits > MAX_PLAN_ELEMENTS.trailing_zeros() {
        return Err(format!(
            "shape {} has 2^{bits} elements; {command} works per element and accepts at most 2^{} (e.g. 512x512)",
            shape_text(shape),
            MAX_PLAN_ELEMENTS.trailing_zeros()
        ));
    }
    Ok(())
}

/// Refuses a layout with more than [`MAX_PLAN_HARDWARE`] hardware indices.
pub fn check_plan_layout(ll: &LinearLayout, what: &str, command: &str) -> Result<(), String> {
    let bits = ll.total_in_dim_size_log2();
    if bits > MAX_PLAN_HARDWARE.trailing_zeros() {
        return Err(format!(
            "{what} has 2^{bits} hardware indices (registers x lanes x warps x blocks); {command} accepts at most 2^{}",
            MAX_PLAN_HARDWARE.trailing_zeros()
        ));
    }
    Ok(())
}

/// Refuses a conversion between distributed layouts on different threads:
/// `src` and `dst` must have the same lanes per warp, warps and CTAs (an
/// absent dim counts 1), named with both counts, instead of a failed
/// simulation. The front ends decide which pairs are distributed.
pub fn check_same_threads(src: &LinearLayout, dst: &LinearLayout) -> Result<(), String> {
    let size = |l: &LinearLayout, d| if l.has_in_dim(d) { l.in_dim_size(d) } else { 1 };
    for (d, what) in [
        (DimName::LANE, "threads per warp"),
        (DimName::WARP, "warps"),
        (DimName::BLOCK, "CTAs"),
    ] {
        let (a, b) = (size(src, d), size(dst, d));
        if a != b {
            return Err(format!(
                "the source layout has {a} {what} but the destination has {b}: a conversion keeps the kernel's {what}"
            ));
        }
    }
    Ok(())
}

/// `128x64`.
pub fn shape_text(shape: &[u64]) -> String {
    shape
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join("x")
}

#[cfg(test)]
mod tests {
    use super::*;
    use linear_layout::DimName;

    #[test]
    fn the_largest_accepted_shape_passes_and_one_bit_more_is_refused() {
        assert!(check_plan_shape(&[512, 512], "convert").is_ok());
        let e = check_plan_shape(&[1024, 512], "convert").unwrap_err();
        assert!(
            e.contains("1024x512") && e.contains("2^19") && e.contains("2^18"),
            "{e}"
        );
        let fits = LinearLayout::identity_1d(1 << 20, DimName::REGISTER, DimName::dim(0));
        assert!(check_plan_layout(&fits, "the source layout", "convert").is_ok());
        let big = LinearLayout::identity_1d(1 << 21, DimName::REGISTER, DimName::dim(0));
        let e = check_plan_layout(&big, "the source layout", "convert").unwrap_err();
        assert!(e.contains("2^21") && e.contains("2^20"), "{e}");
    }
}

//! A tour: the paper's Figure 1 layout A, its 0/1 matrix, and a conversion.
//!
//! Run with `cargo run --release --example tour -p linear-layout`.

use linear_layout::{DimName, LinearLayout};

/// Figure 1, layout A: a 16x16 tensor, 2x2 registers per thread, 4x8 threads
/// per warp, 2x1 warps, dim 1 (columns) fastest. Built as a product of 1-D
/// identities, minor (register) to major (warp); each factor's bits land
/// above the earlier factors' bits of the same tensor dim.
fn layout_a() -> LinearLayout {
    let (reg, lane, warp) = (DimName::REGISTER, DimName::LANE, DimName::WARP);
    let (d0, d1) = (DimName::dim(0), DimName::dim(1));
    let id = LinearLayout::identity_1d;
    let a = id(2, reg, d1) * id(2, reg, d0) * id(8, lane, d1) * id(4, lane, d0) * id(2, warp, d0);
    a.transpose_outs(&[d0, d1]).expect("same dims")
}

/// A layout B for the same tensor and the same 64 threads, with dim 0 (rows)
/// fastest: 2x2 registers, 8x4 threads, 1x2 warps. (The paper draws its
/// layout B as a picture only; this is the column-major counterpart of A.)
fn layout_b() -> LinearLayout {
    let (reg, lane, warp) = (DimName::REGISTER, DimName::LANE, DimName::WARP);
    let (d0, d1) = (DimName::dim(0), DimName::dim(1));
    let id = LinearLayout::identity_1d;
    id(2, reg, d0) * id(2, reg, d1) * id(8, lane, d0) * id(4, lane, d1) * id(2, warp, d1)
}

/// Prints the 0/1 matrix: one row per output bit (dim1 bits, then dim0 bits,
/// low bit first as in the paper), one column per input bit.
fn print_matrix(l: &LinearLayout) {
    let mut cols = Vec::new();
    for (d, bases) in l.all_bases() {
        for (i, b) in bases.iter().enumerate() {
            cols.push((format!("{}{}", short(d), i), b.clone()));
        }
    }
    let width = 4;
    print!("{:>8}", "");
    for (name, _) in &cols {
        print!("{name:>width$}");
    }
    println!();
    // Output rows: the paper lists j (dim1) first, then i (dim0).
    let outs = l.out_dims();
    for k in [1usize, 0] {
        let (name, size) = outs[k];
        for bit in 0..size.trailing_zeros() {
            print!("{:>8}", format!("{name}[{bit}]"));
            for (_, b) in &cols {
                print!("{:>width$}", b[k] >> bit & 1);
            }
            println!();
        }
    }
}

fn short(d: DimName) -> &'static str {
    match d.as_str() {
        "register" => "r",
        "lane" => "t",
        "warp" => "w",
        _ => "x",
    }
}

fn main() {
    let a = layout_a();
    println!("== Figure 1, layout A (Triton's toString) ==");
    println!("{a:#}");
    println!();
    println!("== Its matrix over GF(2): column = input bit, row = output bit ==");
    println!("   (r = register, t = thread/lane, w = warp)");
    print_matrix(&a);
    println!();
    let at = |r: u64, t: u64, w: u64| {
        let o = a
            .apply(&[
                (DimName::REGISTER, r),
                (DimName::LANE, t),
                (DimName::WARP, w),
            ])
            .expect("all in dims given");
        (o[0].1, o[1].1)
    };
    println!(
        "The paper's examples: R0 of T1 at {:?}, R1 of T9 at {:?}, R0 of T10 at {:?}",
        at(0, 1, 0),
        at(1, 9, 0),
        at(0, 10, 0)
    );
    println!();

    let b = layout_b();
    println!("== Layout B (rows fastest) ==");
    println!("{b:#}");
    println!();
    let cvt = b.invert_and_compose(&a).expect("A covers every element");
    println!("== Conversion A -> B: C = B.invert_and_compose(A) ==");
    println!("C maps a (register, lane, warp) of layout B to the (register, lane, warp)");
    println!("of layout A holding the same element: A(C(x)) = B(x) for every x.");
    println!("{cvt:#}");
    println!();
    println!("Reading C bit by bit: where each input bit of B finds its data in A.");
    let mut cross_warp = false;
    let mut cross_lane = false;
    for (d, bases) in cvt.all_bases() {
        for (i, c) in bases.iter().enumerate() {
            // c = (register, lane, warp) components of A. A bit stays put
            // when it lands on the same hardware bit (or only on registers).
            let same = |k: usize| {
                c.iter()
                    .enumerate()
                    .all(|(j, &v)| v == if j == k { 1 << i } else { 0 })
            };
            let (warp_moves, lane_moves) = match d.as_str() {
                "warp" => (!same(2), c[1] != 0),
                "lane" => (c[2] != 0, (!same(1) && c[1] != 0) || c[0] != 0),
                _ => (c[2] != 0, c[1] != 0),
            };
            cross_warp |= warp_moves;
            cross_lane |= lane_moves;
            let label = format!("{d}={}", 1u64 << i);
            println!("  {label:<11} -> A's (register, lane, warp) = {c:?}");
        }
    }
    println!(
        "So this conversion {}.",
        if cross_warp {
            "moves data between warps: it goes through shared memory"
        } else if cross_lane {
            "stays inside each warp: warp shuffles suffice"
        } else {
            "only renames registers"
        }
    );
    let x = [
        (DimName::REGISTER, 3),
        (DimName::LANE, 9),
        (DimName::WARP, 1),
    ];
    let src = cvt.apply(&x).expect("B's in dims");
    println!();
    println!(
        "Example: B(r=3, t=9, w=1) = {:?}; C gives A's {:?}; A there = {:?}",
        b.apply(&x)
            .expect("in dims")
            .iter()
            .map(|c| c.1)
            .collect::<Vec<_>>(),
        src.iter().map(|c| (c.0.as_str(), c.1)).collect::<Vec<_>>(),
        a.apply(&src)
            .expect("in dims")
            .iter()
            .map(|c| c.1)
            .collect::<Vec<_>>()
    );
}

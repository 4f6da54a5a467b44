//! `linlayout explain`: the steps of an algebra operation or a plan in
//! words, for people learning the algebra. Everything printed is read off
//! the library's results (no second implementation here).

use crate::cmd_codegen::{read_plan_layout, shape_arg};
use crate::common::{check_same_threads, DtypeArgs, HardwareArgs};
use crate::error::CliError;
use layout_codegen::swizzle::optimal_swizzling;
use linear_layout::{gf2, DimName, LinearLayout};

/// What to explain.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Op {
    /// `dst.invert_and_compose(src)`: where each destination bit finds its data.
    InvertAndCompose,
    /// Free variables: which input bits are duplicates (broadcast).
    FreeVariables,
    /// The optimal swizzle for a conversion, its lower bound and achieved conflicts.
    Swizzle,
}

/// Arguments of `explain`.
///
/// Example: `linlayout explain invert-and-compose --shape 16x16 '<source>' '<destination>'`
///
/// The source comes first, as in `convert` and `swizzle`.
#[derive(clap::Args)]
pub struct Args {
    /// The operation.
    #[arg(value_enum)]
    pub op: Op,
    /// Tensor shape, e.g. 16x16.
    #[arg(long)]
    pub shape: String,
    #[command(flatten)]
    pub dtype: DtypeArgs,
    #[command(flatten)]
    pub hardware: HardwareArgs,
    /// The source layout (free-variables: the layout).
    pub src: String,
    /// The destination layout (invert-and-compose, swizzle).
    pub dst: Option<String>,
}

fn bit_name(l: &LinearLayout, flat: u32) -> String {
    let mut k = flat;
    for (d, size) in l.in_dims() {
        let n = size.trailing_zeros();
        if k < n {
            return format!("{d}={}", 1u64 << k);
        }
        k -= n;
    }
    format!("bit {flat}")
}

fn fmt_basis(v: &[u64]) -> String {
    format!(
        "({})",
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Runs the command.
pub fn run(a: Args) -> Result<(), CliError> {
    let shape = shape_arg(&a.shape)?;
    let bitwidth = a.dtype.bits()?;
    a.hardware.validate()?;
    let first = read_plan_layout(&a.src, &shape, "source", &a.hardware)?;
    let second = || -> Result<LinearLayout, CliError> {
        let b = a
            .dst
            .as_deref()
            .ok_or("this operation needs two layouts: the source, then the destination")?;
        let dst = read_plan_layout(b, &shape, "destination", &a.hardware)?;
        check_same_threads(&first, &dst)?;
        Ok(dst)
    };
    match a.op {
        Op::InvertAndCompose => {
            let dst = second()?;
            let src = first;
            let c = dst.invert_and_compose(&src).map_err(|e| {
                format!("the source layout does not hold every element the destination holds: {e}")
            })?;
            println!("C = dst.invert_and_compose(src): src(C(x)) = dst(x) for every hardware index x of dst.");
            println!("Each column of C says where one input bit of dst finds its data in src.\n");
            let piv = gf2::pivot_columns(src.columns());
            let pivots: Vec<String> = gf2::bits(piv).map(|b| bit_name(&src, b)).collect();
            println!(
                "src's pivot bits (earliest independent columns; the solver writes every answer in these, free bits = 0):\n  {}\n",
                pivots.join(" ")
            );
            for (d, bases) in dst.all_bases() {
                if bases.is_empty() {
                    continue;
                }
                if c.has_out_dim(d)
                    && c.square_sublayout_is_identity(&[d])
                    && c.sublayout_is_zero(
                        &[d],
                        &c.out_dim_names().filter(|&o| o != d).collect::<Vec<_>>(),
                    )
                {
                    println!("{d}: identical in both layouts -> maps to itself (Triton's identity-dim shortcut)");
                    continue;
                }
                for (i, b) in bases.iter().enumerate() {
                    let col = c.packed_bases(d)[i];
                    // A column of C is a flat input of src: the XOR of these src bits.
                    let used: Vec<String> = gf2::bits(col).map(|k| bit_name(&src, k)).collect();
                    let used = if used.is_empty() {
                        "nothing (broadcast: element 0 of the sub-tile)".to_string()
                    } else {
                        used.join(" ^ ")
                    };
                    println!(
                        "{:<12} holds {:<10} = src at {used}",
                        format!("{d}={}", 1u64 << i),
                        fmt_basis(b)
                    );
                }
            }
            let moved: Vec<DimName> = c
                .in_dim_names()
                .filter(|&d| {
                    c.packed_bases(d).iter().zip(0..).any(|(&col, i)| {
                        let own = c.out_dim_index(d).map(|_| {
                            c.pack(
                                &c.out_dim_names()
                                    .map(|o| if o == d { 1u64 << i } else { 0 })
                                    .collect::<Vec<_>>(),
                            )
                        });
                        Some(col) != own
                    })
                })
                .collect();
            println!("\nInput dims whose bits do not map to themselves: {moved:?}");
            println!("(data crossing `warp` needs shared memory; `lane` only, warp shuffles; `register` only, a renaming)");
        }
        Op::FreeVariables => {
            println!(
                "A bit is free when flipping it reaches an element a lower index already holds"
            );
            println!("(its column depends on earlier columns): those copies are duplicates.\n");
            for (d, mask) in first.free_variable_masks() {
                let bits: Vec<String> = gf2::bits(mask)
                    .map(|k| format!("{d}={}", 1u64 << k))
                    .collect();
                println!(
                    "{:<9} free: {}",
                    d.as_str(),
                    if bits.is_empty() {
                        "none".into()
                    } else {
                        bits.join(" ")
                    }
                );
            }
            println!("\nUnique elements are held where every free bit is 0; a store plan predicates on that.");
        }
        Op::Swizzle => {
            let dst = second()?;
            let r = optimal_swizzling(&first, &dst, bitwidth)?;
            let name = |v: &u64| {
                let u = first.unpack(*v);
                fmt_basis(&u)
            };
            println!("The shared layout's offset bits, from the lowest (paper §5.4):");
            println!(
                "  vector  (contiguous in both layouts' registers): {}",
                r.vector_bases
                    .iter()
                    .map(name)
                    .collect::<Vec<_>>()
                    .join(" ")
            );
            println!(
                "  bank    (one 128-byte row):                      {}",
                r.bank_bases.iter().map(name).collect::<Vec<_>>().join(" ")
            );
            println!(
                "  segment (rows; built from both sides' lanes):    {}",
                r.segment_bases
                    .iter()
                    .map(name)
                    .collect::<Vec<_>>()
                    .join(" ")
            );
            println!(
                "\nLower bound (Lemma 9.5): 2^{} wavefronts for the worse side",
                r.lower_bound_log2
            );
            println!(
                "Achieved: write conflicts {}, read conflicts {} (extra wavefronts per phase)",
                r.write_conflicts, r.read_conflicts
            );
            println!(
                "\nResult: {}",
                hw_layouts::linear::shared_linear_mlir(&r.shared, 16)
            );
        }
    }
    Ok(())
}

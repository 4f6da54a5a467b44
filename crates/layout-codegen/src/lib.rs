//! # Code generation from linear layouts, as data
//!
//! Every algorithm here returns a *plan* (plain, serialisable data) instead
//! of emitting code, and [`simulator`] executes plans on a modelled CTA to
//! prove them.
//!
//! - [`bank_conflicts`]: Triton's `bankConflictsMemDesc` (Gluon's
//!   `bank_conflicts`), an exact hardware formula, and a brute-force
//!   wavefront counter.
//! - [`conversion`]: `minimalCvtLayout` and the conversion classes (no-op,
//!   register permutation, warp shuffle, shared memory, cross-CTA), and
//!   Gluon's `is_convert_layout_trivial`.
//! - [`swizzle`]: the optimal swizzled shared layout for a conversion (the
//!   paper's §5.4 / §9.2, Triton's `optimalSwizzlingLdSt`), its conflicts and
//!   the Lemma 9.5 lower bound, and an exhaustive search for small cases.
//! - [`choice`]: our planner ([`plan::plan_conversion_best`]: the cheapest of
//!   Triton's plan, a warp-shuffle plan and the paper's swizzle under a cost
//!   model from the simulator), beside Triton's choice
//!   ([`plan::plan_conversion_triton`]).
//! - [`plan`]: conversion plans (no-op, register permutation, warp
//!   shuffles as one-step rounds or as a warp program, shared memory with
//!   vector stores/loads whose addresses are XOR-linear in lane and warp);
//!   [`simulator`]: their proof by execution (warp programs included).
//! - [`shuffle`]: warp-shuffle programs (Triton's transposition
//!   decomposition with Ship/Swap and `prmt` packing, the paper's rounds, a
//!   general `shfl.idx` fallback), the programs of
//!   `ConversionPlan::WarpProgram`, with their own warp-model checker
//!   beside the simulator; [`shuffle_words`]: the same programs over
//!   packed 8/16-bit words with lane-dependent byte permutes (`prmt`),
//!   checked on real words; [`gather`]: gather plans; [`gather_cost`]: their predicted costs;
//!   [`dedup`]: duplicate elimination; [`vectorize`]: vectorisation widths
//!   (the paper's Table 2); [`tiling`]: ld/st.shared and ldmatrix/stmatrix
//!   tiling (Theorem 5.1).
//!
//! ```
//! use layout_codegen::{plan::plan_conversion, simulator::simulate};
//! use linear_layout::{DimName, LinearLayout};
//! // 64 elements: 2 registers, 32 lanes. dst swaps the register bit with
//! // lane bit 0: one register-lane transposition, a warp shuffle.
//! let mk = |reg: u64, lane0: u64| {
//!     LinearLayout::new(
//!         vec![
//!             (DimName::REGISTER, vec![vec![reg]]),
//!             (DimName::LANE, vec![vec![lane0], vec![4], vec![8], vec![16], vec![32]]),
//!             (DimName::WARP, vec![]),
//!             (DimName::BLOCK, vec![]),
//!         ],
//!         vec![(DimName::dim(0), 64)],
//!         true,
//!     )
//!     .unwrap()
//! };
//! let (src, dst) = (mk(1, 2), mk(2, 1));
//! let plan = plan_conversion(&src, &dst, 32).unwrap();
//! assert_eq!(plan.kind_name(), "shuffle");
//! let report = simulate(&plan, &src, &dst).unwrap(); // proves all 64 registers
//! assert_eq!(report.registers_checked, 64);
//! ```

pub mod bank_conflicts;
pub mod choice;
pub mod conversion;
pub mod cost;
pub mod dedup;
pub mod error;
pub mod gather;
pub mod gather_cost;
pub mod partial;
pub mod plan;
pub mod planner;
pub mod replica;
mod shared_plan;
pub mod shuffle;
mod shuffle_rounds;
pub mod shuffle_words;
pub mod simulator;
pub mod swizzle;
pub mod swizzle_search;
pub mod target;
pub mod tiling;
pub mod vectorize;
pub mod wavefront;

pub use error::{CodegenError, Result};

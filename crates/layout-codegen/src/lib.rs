//! # Code generation from linear layouts, as data
//!
//! Every algorithm here returns a *plan* (plain, serialisable data) instead
//! of emitting code, and [`simulator`] executes plans on a modelled CTA to
//! prove them.
//!
//! ## Modules, by layer
//! A module uses only modules of its own or a lower layer (doc links
//! aside). The one back edge is [`plan`]'s re-export of
//! `plan_conversion`, `plan_conversion_best` and `plan_cost` under the
//! paths the front ends (CLI, Python, layout-view) import them by; nothing
//! in this crate imports through it.
//!
//! 1. **Data and counters** (leaves): [`error`]; [`target`] (the machine:
//!    warp size, banks, shared memory per CTA); [`cost`] (the one cost
//!    model, a roofline, and the lower-bound record); [`shuffle`]'s IR
//!    (`shuffle::WarpProgram`, in `shuffle/program.rs`); [`tiling`]
//!    (ld/st.shared and ldmatrix/stmatrix tiling, Theorem 5.1); [`plan`]
//!    (conversion plans as data: no-op, register permutation, warp
//!    shuffles, shared memory with XOR-linear addresses); [`bank_conflicts`]
//!    (Triton's `bankConflictsMemDesc`, exact closed forms);
//!    [`wavefront`] (the one bank/wavefront counter); [`vectorize`]
//!    (vectorisation widths, the paper's Table 2); [`dedup`].
//! 2. **Analyses**: [`conversion`] (`minimalCvtLayout`, the classes,
//!    `is_convert_layout_trivial`); [`swizzle`] (Triton's
//!    `optimalSwizzlingLdSt`, the paper's §5.4 construction and Lemma 9.5
//!    bound); [`replica`] (which replica a reader takes); [`shared_words`]
//!    (which registers share a 32-bit word so that every shared word of a
//!    plan is one register word on both sides).
//! 3. **Class planners and checkers**: [`shuffle`] (Triton's Ship/Swap,
//!    the paper's rounds, general `shfl.idx`; the warp-model checker);
//!    [`packed_shuffle`] (the same programs over packed 8/16-bit words
//!    with `prmt`); [`shuffle_rounds`] (one-step shuffle plans);
//!    [`shared_conversion`] (through a swizzled scratch buffer, in rounds,
//!    with vector or matrix accesses); [`partial`] (partial cross-warp
//!    plans and their simulator); [`swizzle_search`] (the shared layout of
//!    fewest wavefronts among every candidate); [`gather`] and
//!    [`gather_cost`].
//! 4. **Proof**: [`simulator`] executes any [`plan::ConversionPlan`] on a
//!    modelled CTA.
//! 5. **Choice**: [`choice`] (Triton's choice and our costed candidates);
//!    [`plan_options`] (what a caller may request: a leaf, data only);
//!    [`planner`] (**the entry point**: [`planner::plan`] and
//!    [`planner::plan_with`] choose among every class, partial and matrix
//!    plans included, on one cost scale, and report the plan's lower
//!    bound); [`round_trip`] (both directions of a pair through one shared
//!    layout, on top of the planner, with the packed-word form the pair
//!    runs in; both directions of a partial cross-warp round trip). [`store_replicas`] and
//!    [`matrix_swizzle`] are leaves the planner uses.
//! 6. **The kernel around a round trip**: [`loop_plan`] (from the round
//!    trip's plans: the scratch schedule of the benchmark loop, its
//!    shared memory, the registers it keeps live and the CTAs per SM of
//!    `__launch_bounds__`), on the leaves [`loop_schedule`] (buffers and
//!    barriers as data, and the race checker `first_race`) and
//!    [`occupancy`] (the register model and residency on
//!    [`target::SmLimits`]).
//!
//! ```
//! use layout_codegen::{choice::plan_conversion, simulator::simulate};
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

#![warn(missing_docs)]

pub mod bank_conflicts;
pub mod choice;
pub mod conversion;
pub mod cost;
pub mod dedup;
pub mod error;
pub mod floor_plan;
pub mod gather;
pub mod gather_cost;
pub mod limits;
pub mod loop_plan;
pub mod loop_schedule;
pub mod lower_bound;
pub mod matrix_swizzle;
pub mod occupancy;
pub mod packed_shuffle;
pub mod partial;
pub mod plan;
pub mod plan_options;
pub mod planner;
pub mod regroup;
pub mod replica;
pub mod round_trip;
pub mod shared_conversion;
pub mod shared_words;
pub mod shuffle;
pub mod shuffle_rounds;
pub mod simulator;
pub mod store_replicas;
pub mod swizzle;
pub mod swizzle_search;
pub mod target;
pub mod tiling;
pub mod vectorize;
pub mod warp_private;
pub mod wavefront;

pub use error::{CodegenError, Result};

/// The former name of [`packed_shuffle`], kept for the CUDA emitter.
#[doc(hidden)]
pub use packed_shuffle as shuffle_words;

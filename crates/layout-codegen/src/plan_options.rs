//! Requests to the planner: which candidate plans [`crate::planner::plan_with`]
//! may choose among. The default ([`PlanOptions::default`], what
//! [`crate::planner::plan`] uses) allows every class the planner has,
//! `stmatrix`/`ldmatrix` accesses (of 16-bit elements) only where strictly
//! cheaper than every other candidate; a restricted request is how a comparison
//! program (the GPU suite's `_smem`, `_mx` and `_partial` variants) asks for
//! a plan of one kind, so that the emitter still only translates the
//! planner's answer.
//!
//! A restriction never admits a plan the simulator has not proved: it only
//! removes candidates (or adds the matrix-instruction ones), and the
//! cheapest remaining candidate on [`crate::cost`]'s scale wins as always.
//!
//! ```
//! use layout_codegen::plan_options::{Allow, PlanOptions};
//! // Through shared memory even where warp shuffles would do (Figure 5's
//! // comparison programs): no shuffles, no partial plans.
//! let smem = PlanOptions::shared_only();
//! assert!(!smem.shuffles && smem.partial == Allow::Never);
//! assert_eq!(PlanOptions::default().partial, Allow::Allowed);
//! ```

use linear_layout::LinearLayout;
use serde::Serialize;

/// Whether a kind of candidate may, may not, or must be chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Allow {
    /// Never a candidate.
    Never,
    /// A candidate beside the others.
    #[default]
    Allowed,
    /// The only candidates (besides none): the request fails when no such
    /// plan is proved.
    Required,
}

impl Allow {
    /// Whether candidates of this kind are considered.
    pub fn considered(self) -> bool {
        self != Allow::Never
    }
}

/// Which candidates the planner considers (module doc).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlanOptions {
    /// Warp-shuffle plans (Triton's own shuffle class, the one-step rounds
    /// and the warp program) may be chosen. `false`: a conversion that does
    /// not stay in registers goes through shared memory (or a partial plan,
    /// when allowed).
    pub shuffles: bool,
    /// Whole-CTA shared-memory plans may be chosen. `false` (with
    /// `shuffles`): a warp-shuffle plan where one exists, e.g. to exercise
    /// the shuffle emitter on a pair that shared memory would win.
    pub shared: bool,
    /// Partial cross-warp plans ([`crate::partial::plan_split`]).
    pub partial: Allow,
    /// Shared-memory plans whose stores and/or loads are `stmatrix` /
    /// `ldmatrix` where the instruction tile divides a side
    /// ([`crate::shared_conversion::plan_shared_matrix`]), through the shared
    /// layout of each vector candidate, the XOR swizzle family and layouts
    /// built for the matrix tile. `Allowed`: for 16-bit elements
    /// ([`crate::planner::MATRIX_DEFAULT_BITS`]), taken only where strictly
    /// cheaper than every other candidate (a tie keeps the vector plan: the
    /// suite's `_mx` twins with equal wavefronts measured no faster), and
    /// searched only where the best other plan is above the floor.
    /// `Required`: only such plans with at least one matrix side.
    pub matrix: Allow,
    /// Only plans through this shared layout (`offset → tensor`): the
    /// one-round vector plan ([`crate::choice::plan_through_shared`],
    /// candidate `given_layout`) and, where partial plans are considered,
    /// the partial plans through it (`given_layout_partial`,
    /// `given_layout_predicated`, `given_layout_transposed`; candidate
    /// `"given_layout"`): how [`crate::round_trip`] plans both directions
    /// of a round trip through one buffer layout.
    #[serde(skip)]
    pub through: Option<LinearLayout>,
    /// The partial form planned where the plain partial class refuses
    /// (staying, or its source register, depends on the lane): `None` is
    /// the planner's own rule (the lane-predicated form, and for
    /// [`crate::planner::TRANSPOSED_STAYING_BITS`]-bit elements and 8- and
    /// 32-bit ones up to [`crate::planner::TRANSPOSED_MAX_REGISTERS`] registers
    /// also transposed staying moves, the cheaper chosen); `Some` asks for one
    /// form at any element width ([`SplitForm`]).
    pub split_form: Option<SplitForm>,
}

/// A requested form of partial plan ([`PlanOptions::split_form`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SplitForm {
    /// The plain class only ([`crate::partial::plan_split`]).
    Plain,
    /// Where the plain class refuses, the lane-predicated form
    /// ([`crate::partial::plan_split_predicated`]).
    Predicated,
    /// Where the plain class refuses, transposed staying moves
    /// ([`crate::partial::plan_split_transposed`]); where no warp admits
    /// them, the lane-predicated form.
    Transposed,
}

impl Default for PlanOptions {
    /// Every class, as [`crate::planner::plan`]; matrix-instruction plans
    /// of 16-bit elements only where strictly cheaper than every other
    /// candidate.
    fn default() -> Self {
        PlanOptions {
            shuffles: true,
            shared: true,
            partial: Allow::Allowed,
            matrix: Allow::Allowed,
            through: None,
            split_form: None,
        }
    }
}

impl PlanOptions {
    /// Through shared memory (whole-CTA vector plans) wherever the data
    /// leaves its threads: no shuffles, no partial plans. Register moves
    /// are still taken where every element stays in its thread.
    pub fn shared_only() -> Self {
        PlanOptions {
            shuffles: false,
            shared: true,
            partial: Allow::Never,
            matrix: Allow::Never,
            through: None,
            split_form: None,
        }
    }

    /// Whole-CTA plans only (no partial plans), shuffles allowed: the full
    /// twin of a partial plan.
    pub fn whole() -> Self {
        PlanOptions {
            partial: Allow::Never,
            ..PlanOptions::default()
        }
    }

    /// Register moves or warp shuffles only (no shared memory): an error
    /// when the data leaves its warps.
    pub fn shuffles_only() -> Self {
        PlanOptions {
            shared: false,
            partial: Allow::Never,
            ..PlanOptions::default()
        }
    }

    /// A partial cross-warp plan, or an error when none is proved.
    pub fn partial_only() -> Self {
        PlanOptions {
            partial: Allow::Required,
            ..PlanOptions::default()
        }
    }

    /// A partial cross-warp plan through `smem` (`offset → tensor`) in the
    /// form `form` ([`PlanOptions::split_form`]).
    pub fn partial_through(smem: LinearLayout, form: SplitForm) -> Self {
        PlanOptions {
            partial: Allow::Required,
            through: Some(smem),
            split_form: Some(form),
            ..PlanOptions::default()
        }
    }

    /// Through shared memory with `stmatrix` / `ldmatrix` on at least one
    /// side.
    pub fn matrix_only() -> Self {
        PlanOptions {
            shuffles: false,
            shared: true,
            partial: Allow::Never,
            matrix: Allow::Required,
            through: None,
            split_form: None,
        }
    }

    /// Whether a candidate of class `kind` ([`crate::planner::Lowering::kind_name`])
    /// that uses matrix instructions (`matrix`) may be chosen.
    pub fn admits(&self, kind: &str, matrix: bool) -> bool {
        if self.through.is_some() {
            return match kind {
                "partial" => self.partial.considered(),
                "shared" => !matrix && self.partial != Allow::Required,
                _ => false,
            };
        }
        if self.partial == Allow::Required {
            return kind == "partial";
        }
        if self.matrix == Allow::Required {
            return matrix;
        }
        match kind {
            // A staged plan's regroup is warp shuffles (its word stage is
            // planned under the same request).
            "shuffle" | "staged" => self.shuffles,
            "partial" => self.partial.considered(),
            "shared" => self.shared && (!matrix || self.matrix.considered()),
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_only_admits_no_staged_plan() {
        assert!(!PlanOptions::shared_only().admits("staged", false));
        assert!(PlanOptions::whole().admits("staged", false));
        assert!(!PlanOptions::partial_only().admits("staged", false));
    }

    #[test]
    fn required_partial_admits_only_partial_plans() {
        let o = PlanOptions::partial_only();
        assert!(o.admits("partial", false));
        for k in ["noop", "register", "shuffle", "shared"] {
            assert!(!o.admits(k, false), "{k}");
        }
    }

    #[test]
    fn shared_only_keeps_register_moves_and_refuses_shuffles() {
        let o = PlanOptions::shared_only();
        assert!(o.admits("register", false) && o.admits("noop", false));
        assert!(o.admits("shared", false));
        assert!(!o.admits("shuffle", false) && !o.admits("partial", false));
        assert!(!o.admits("shared", true));
    }

    #[test]
    fn a_partial_request_through_a_layout_admits_only_partial_plans() {
        let smem = LinearLayout::identity_1d(
            16,
            linear_layout::DimName::OFFSET,
            linear_layout::DimName::dim(0),
        );
        let o = PlanOptions::partial_through(smem.clone(), SplitForm::Plain);
        assert!(o.admits("partial", false));
        assert!(!o.admits("shared", false) && !o.admits("register", false));
        let whole = PlanOptions {
            through: Some(smem),
            ..PlanOptions::whole()
        };
        assert!(whole.admits("shared", false) && !whole.admits("partial", false));
    }

    #[test]
    fn matrix_only_admits_only_matrix_plans() {
        let o = PlanOptions::matrix_only();
        assert!(o.admits("shared", true));
        assert!(!o.admits("shared", false) && !o.admits("register", false));
    }

    #[test]
    fn shuffles_only_refuses_shared_memory() {
        let o = PlanOptions::shuffles_only();
        assert!(o.admits("shuffle", false) && o.admits("register", false));
        assert!(!o.admits("shared", false) && !o.admits("partial", false));
    }
}

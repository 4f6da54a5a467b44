//! What the engine minimises.
//!
//! Every choice of the engine (an elementwise op's operand layout, a
//! hoist's minimum cut, a loop sweep, a search candidate) compares one
//! number per candidate, its **score**: the weighted conversion cost `C`
//! (the plan cost of every conversion, [`crate::cost`]) plus `w` times the
//! other terms `R` of the total cost (reductions, gathers and the compute
//! term, [`super::search::total_cost`]):
//!
//! `score = C + w·R`, with `w = 1` for [`Objective::Total`] and
//! `w = `[`TIE_WEIGHT`] for [`Objective::Conversions`].
//!
//! Under `Conversions` the other terms only break ties: they outrank a
//! difference in `C` only when that difference is below `TIE_WEIGHT·R`,
//! which is under 10⁻⁴ cycle for any `R` below 10⁵ cycles (the largest
//! total of the five test corpora, a persistent matmul's, is 38 080).

use serde::Serialize;

/// Weight of the terms other than conversions under
/// [`Objective::Conversions`]: small enough that they only break ties
/// (see the module doc).
pub const TIE_WEIGHT: f64 = 1e-9;

/// What the engine minimises (see the module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Objective {
    /// The total cost: conversions, reductions, gathers and compute
    /// alike. A conversion that keeps a reduced axis inside a warp, or
    /// makes elementwise work cheaper, is taken when it saves more than it
    /// costs.
    #[default]
    Total,
    /// The conversions' cost first (the term Triton's
    /// RemoveLayoutConversions reduces), the other terms only breaking
    /// ties.
    Conversions,
}

impl Objective {
    /// The weight `w` of the terms other than conversions.
    pub fn other_weight(self) -> f64 {
        match self {
            Objective::Total => 1.0,
            Objective::Conversions => TIE_WEIGHT,
        }
    }

    /// The score of a candidate whose conversions cost `conversions` and
    /// whose other terms cost `others` (both loop-weighted).
    ///
    /// ```
    /// use layout_engine::engine::Objective;
    /// assert_eq!(Objective::Total.score(10.0, 5.0), 15.0);
    /// // Under Conversions, 1 cycle of conversion outweighs 10⁶ of the rest.
    /// assert!(Objective::Conversions.score(10.0, 1e6) < Objective::Conversions.score(11.0, 0.0));
    /// ```
    pub fn score(self, conversions: f64, others: f64) -> f64 {
        conversions + self.other_weight() * others
    }

    /// Parses `total` or `conversions`.
    pub fn parse(s: &str) -> Option<Objective> {
        match s {
            "total" => Some(Objective::Total),
            "conversions" => Some(Objective::Conversions),
            _ => None,
        }
    }
}

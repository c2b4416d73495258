//! The four rates, `BenchmarkEvaluator._calculate_metrics` (spec §7), and the
//! counts behind them.

use serde::{Deserialize, Serialize};

/// Counts over a set of instances: two denominators (one per query kind)
/// and four numerators.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Instances with a result object.
    pub total_cases: usize,
    /// LOCATE queries that were sent and did not raise.
    pub valid_locate_cases: usize,
    /// INTERACT queries that were sent and did not raise.
    pub valid_interact_cases: usize,
    /// LOCATE replies whose point hit the target.
    pub locate_success: usize,
    /// INTERACT replies whose point hit the interaction box.
    pub interaction_success: usize,
    /// LOCATE replies on the current state's box (`B_now`, else the target box).
    pub state_awareness_locate: usize,
    /// INTERACT replies counted as state-aware by the official rule (spec §6.2).
    pub state_awareness_interaction: usize,
}

/// `a / b`, or 0.0 when `b == 0` ("the empty case yields 0.0"). Integer
/// counts are exact in f64, so this equals Python's true division.
pub fn rate(numerator: usize, denominator: usize) -> f64 {
    if denominator == 0 {
        0.0
    } else {
        numerator as f64 / denominator as f64
    }
}

impl Tally {
    /// Adds another tally's counts to this one.
    pub fn add(&mut self, other: &Tally) {
        self.total_cases += other.total_cases;
        self.valid_locate_cases += other.valid_locate_cases;
        self.valid_interact_cases += other.valid_interact_cases;
        self.locate_success += other.locate_success;
        self.interaction_success += other.interaction_success;
        self.state_awareness_locate += other.state_awareness_locate;
        self.state_awareness_interaction += other.state_awareness_interaction;
    }

    /// The four rates in paper order: SR@Loc, SR@Int, ES-SR@Loc, ES-SR@Int.
    pub fn rates(&self) -> Rates {
        Rates {
            locate_success_rate: rate(self.locate_success, self.valid_locate_cases),
            interaction_success_rate: rate(self.interaction_success, self.valid_interact_cases),
            state_awareness_rate_locate: rate(self.state_awareness_locate, self.valid_locate_cases),
            state_awareness_rate_interaction: rate(
                self.state_awareness_interaction,
                self.valid_interact_cases,
            ),
        }
    }

    /// The content of the official `<model>_metrics.json`, without its
    /// timestamp.
    pub fn official(&self) -> OfficialMetrics {
        let r = self.rates();
        OfficialMetrics {
            total_cases: self.total_cases,
            valid_locate_cases: self.valid_locate_cases,
            valid_interact_cases: self.valid_interact_cases,
            locate_success_rate: r.locate_success_rate,
            interaction_success_rate: r.interaction_success_rate,
            state_awareness_rate_locate: r.state_awareness_rate_locate,
            state_awareness_rate_interaction: r.state_awareness_rate_interaction,
        }
    }
}

/// The four rates, fractions in [0, 1] (code names; paper v2 names in docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Rates {
    /// SR@Loc.
    pub locate_success_rate: f64,
    /// SR@Int.
    pub interaction_success_rate: f64,
    /// ES-SR@Loc.
    pub state_awareness_rate_locate: f64,
    /// ES-SR@Int.
    pub state_awareness_rate_interaction: f64,
}

impl Rates {
    /// The four rates in the official order (locate, interaction, and their state awareness).
    pub fn as_array(&self) -> [f64; 4] {
        [
            self.locate_success_rate,
            self.interaction_success_rate,
            self.state_awareness_rate_locate,
            self.state_awareness_rate_interaction,
        ]
    }

    /// The rates from an array in [`Rates::as_array`]'s order.
    pub fn from_array(a: [f64; 4]) -> Self {
        Self {
            locate_success_rate: a[0],
            interaction_success_rate: a[1],
            state_awareness_rate_locate: a[2],
            state_awareness_rate_interaction: a[3],
        }
    }

    /// The plain mean over platforms (spec §13: "presumably a plain mean of
    /// the three platform rates, as opposed to one pooled over instances").
    pub fn mean(all: &[Rates]) -> Rates {
        if all.is_empty() {
            return Rates::default();
        }
        let mut sum = [0.0; 4];
        for r in all {
            for (s, v) in sum.iter_mut().zip(r.as_array()) {
                *s += v;
            }
        }
        Rates::from_array(sum.map(|s| s / all.len() as f64))
    }

    /// `self - base`, per metric.
    pub fn minus(&self, base: &Rates) -> Rates {
        let (a, b) = (self.as_array(), base.as_array());
        Rates::from_array([a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3]])
    }
}

/// Exactly the keys of the official metrics file, in its order.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct OfficialMetrics {
    /// Instances scored.
    pub total_cases: usize,
    /// LOCATE queries that were sent and did not raise.
    pub valid_locate_cases: usize,
    /// INTERACT queries that were sent and did not raise.
    pub valid_interact_cases: usize,
    /// Locate successes / valid LOCATE cases.
    pub locate_success_rate: f64,
    /// Interaction successes / valid INTERACT cases.
    pub interaction_success_rate: f64,
    /// `state_awareness_locate` / valid LOCATE cases.
    pub state_awareness_rate_locate: f64,
    /// `state_awareness_interaction` / valid INTERACT cases.
    pub state_awareness_rate_interaction: f64,
}

/// The metric names in paper order, with the paper v2 label of each.
pub const METRIC_LABELS: [(&str, &str); 4] = [
    ("locate_success_rate", "SR@Loc"),
    ("interaction_success_rate", "SR@Int"),
    ("state_awareness_rate_locate", "ES-SR@Loc"),
    ("state_awareness_rate_interaction", "ES-SR@Int"),
];

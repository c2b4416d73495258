//! MCQ scoring of one item, and the tallies that make the skill table.
//!
//! > Single choice: correct if the extracted letter equals `GT`.
//! > Multi-select: correct only if the extracted set equals the `GT` set
//! > exactly. Also report a partial score for analysis: (correct picked −
//! > wrong picked) / |GT|, floored at 0.
//! > Invalid, empty or unmappable answers score 0.

use std::collections::BTreeSet;

use serde::Serialize;

/// Whether a single-choice or multi-select answer is right.
///
/// **Decision:** `min_correct`/`max_correct` are not enforced separately: a
/// set of the wrong size cannot equal the gold set, so it is already wrong,
/// and it is not a parse failure.
///
/// ```
/// use std::collections::BTreeSet;
/// use knoblab_score::switch::mcq::is_correct;
/// let gt: BTreeSet<char> = ['A', 'C'].into();
/// assert!(is_correct(&['A', 'C'].into(), &gt));
/// assert!(!is_correct(&['A'].into(), &gt));
/// ```
pub fn is_correct(picked: &BTreeSet<char>, gold: &BTreeSet<char>) -> bool {
    !picked.is_empty() && picked == gold
}

/// The multi-select partial score: (correct picked − wrong picked) / |GT|,
/// floored at 0. An empty gold (never valid) scores 0.
///
/// ```
/// use knoblab_score::switch::mcq::partial_score;
/// // GT {A, C, D}; picked {A, B, C}: (2 − 1) / 3.
/// assert!((partial_score(&['A', 'B', 'C'].into(), &['A', 'C', 'D'].into()) - 1.0 / 3.0).abs() < 1e-12);
/// ```
pub fn partial_score(picked: &BTreeSet<char>, gold: &BTreeSet<char>) -> f64 {
    if gold.is_empty() {
        return 0.0;
    }
    let right = picked.intersection(gold).count() as f64;
    let wrong = picked.difference(gold).count() as f64;
    ((right - wrong) / gold.len() as f64).max(0.0)
}

/// Correct answers out of items, for one cell of a table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Items answered right.
    pub correct: usize,
    /// Items in the cell.
    pub n: usize,
}

impl Tally {
    /// Counts one item.
    pub fn add(&mut self, correct: bool) {
        self.n += 1;
        if correct {
            self.correct += 1;
        }
    }

    /// The accuracy, or `None` for an empty cell (> An empty column shows
    /// "–", not 0).
    pub fn accuracy(&self) -> Option<f64> {
        (self.n > 0).then(|| self.correct as f64 / self.n as f64)
    }
}

/// A mean over items, for the partial score and F1 cells.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Mean {
    /// The items' scores, summed.
    pub sum: f64,
    /// Items in the cell.
    pub n: usize,
}

impl Mean {
    /// Adds one value.
    pub fn add(&mut self, value: f64) {
        self.sum += value;
        self.n += 1;
    }

    /// The mean, or `None` when empty.
    pub fn value(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum / self.n as f64)
    }
}

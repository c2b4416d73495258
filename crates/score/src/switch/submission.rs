//! The SWITCH leaderboard's four tracks, and which of them a run's
//! predictions cover.
//!
//! The leaderboard takes a results file with four tracks (the report's
//! [`super::report::Submission`]): multiple-choice over the open and the
//! closed (held-out) split, scored by accuracy, and open QA over the same
//! two splits, scored by exact match and token F1 after SQuAD-style
//! normalisation ([`super::openqa::normalize_answer`]). A track is
//! *covered* when the ground truth has items of it and the predictions name
//! at least one of them; otherwise its numbers are `null` (no split known,
//! no item) or an all-zero score of items nobody answered, and the faces
//! (`knoblab score switch`, the Score page) name it with the reason.

use serde::Serialize;

use super::dataset::{Item, Split};

/// A track's key in the results file, in the file's order.
pub const TRACKS: [&str; 4] = ["mcq_open", "mcq_closed", "openqa_open", "openqa_closed"];

/// What one track of the submission stands on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TrackCoverage {
    /// The track's key ([`TRACKS`]).
    pub track: &'static str,
    /// Items of the track in the ground truth (counted in Overall).
    pub items: usize,
    /// Those a prediction names.
    pub predicted: usize,
    /// Whether the predictions cover it: items, and a prediction for one
    /// of them at least.
    pub covered: bool,
    /// Why it is not covered, as a sentence; `None` when it is.
    pub why: Option<String>,
}

/// The running counts, item by item.
#[derive(Debug, Default)]
pub(super) struct TrackTally {
    /// (items, predicted) per track, in [`TRACKS`] order.
    counts: [(usize, usize); 4],
    splits_known: bool,
}

impl TrackTally {
    /// Counts an item counted in Overall: MCQ (scored by letters) or open.
    pub(super) fn add(&mut self, item: &Item, mcq: bool, predicted: bool) {
        self.splits_known |= item.split.is_some();
        let Some(split) = item.split else {
            return;
        };
        let i = match (mcq, split) {
            (true, Split::Open) => 0,
            (true, Split::Held) => 1,
            (false, Split::Open) => 2,
            (false, Split::Held) => 3,
        };
        self.counts[i].0 += 1;
        self.counts[i].1 += usize::from(predicted);
    }

    /// Each track with its coverage.
    pub(super) fn finish(self) -> Vec<TrackCoverage> {
        TRACKS
            .iter()
            .zip(self.counts)
            .map(|(&track, (items, predicted))| {
                let why = if !self.splits_known {
                    Some("no item carries a split (give --split open=…/held=…, or the release's open/held folders), so no track can be told apart".to_string())
                } else if items == 0 {
                    Some(format!("the ground truth has no item of {track}"))
                } else if predicted == 0 {
                    Some(format!(
                        "none of its {items} items has a prediction (they score 0)"
                    ))
                } else {
                    None
                };
                TrackCoverage {
                    track,
                    items,
                    predicted,
                    covered: why.is_none(),
                    why,
                }
            })
            .collect()
    }
}

/// The tracks the predictions do not cover, as `track, track: why`
/// (tracks with the same reason together), in [`TRACKS`] order.
pub fn uncovered(tracks: &[TrackCoverage]) -> Vec<String> {
    let mut out: Vec<(Vec<&str>, &str)> = Vec::new();
    for t in tracks {
        let Some(why) = t.why.as_deref() else {
            continue;
        };
        match out.iter_mut().find(|(_, w)| *w == why) {
            Some((names, _)) => names.push(t.track),
            None => out.push((vec![t.track], why)),
        }
    }
    out.into_iter()
        .map(|(names, why)| format!("{}: {why}", names.join(", ")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn track(track: &'static str, why: Option<&str>) -> TrackCoverage {
        TrackCoverage {
            track,
            items: 1,
            predicted: usize::from(why.is_none()),
            covered: why.is_none(),
            why: why.map(str::to_string),
        }
    }

    #[test]
    fn tracks_with_one_reason_are_named_together_and_covered_ones_not_at_all() {
        let tracks = [
            track("mcq_open", Some("x")),
            track("mcq_closed", None),
            track("openqa_open", Some("y")),
            track("openqa_closed", Some("x")),
        ];
        assert_eq!(
            uncovered(&tracks),
            ["mcq_open, openqa_closed: x", "openqa_open: y"]
        );
        assert!(uncovered(&[track("mcq_open", None)]).is_empty());
    }

    #[test]
    fn without_any_split_no_track_is_covered_and_an_empty_track_says_so() {
        let none = TrackTally::default().finish();
        assert_eq!(none.len(), 4);
        assert!(none.iter().all(|t| !t.covered
            && t.why
                .as_deref()
                .is_some_and(|w| w.contains("no item carries a split"))));
        let some = TrackTally {
            counts: [(3, 0), (2, 1), (0, 0), (0, 0)],
            splits_known: true,
        };
        let t = some.finish();
        assert_eq!(
            t[0].why.as_deref(),
            Some("none of its 3 items has a prediction (they score 0)")
        );
        assert!(t[1].covered);
        assert_eq!(
            t[2].why.as_deref(),
            Some("the ground truth has no item of openqa_open")
        );
    }
}

//! How a run pools its episodes' metrics, as one flat row of numbers per
//! episode ([`Summands`]): a run's metrics are [`Summands::metrics`] of the
//! sum of its episodes' rows. [`super::run`] pools a run this way, and a
//! bootstrap (`knoblab leaderboard`) pools a resample of episodes the same
//! way, each episode added as many times as it was drawn, so a resample's
//! SR is the SR `knoblab metrics` would print for those episodes, by the
//! one definition.
//!
//! A row is plain numbers so that adding one is a few dozen additions: a
//! thousand resamples of a run of 16,000 episodes pool 16 million rows.
//!
//! ```
//! use knoblab_core::metrics::pool::Summands;
//! let empty = Summands::default();
//! assert_eq!(empty.metrics().sr, None);
//! ```

use std::collections::BTreeMap;

use super::episode::EpisodeMetrics;
use super::{ratio, Counts, ErrorClass, Metrics, NotPooled, SwitchClass};

const SR: usize = 0;
const SSR: usize = 1;
const SPL: usize = 2;
const STATE_F1: usize = 3;
const VSPS_SUM: usize = 4;
const VSPS_N: usize = 5;
const EPISODES: usize = 6;
const STEPS: usize = 7;
const VALID: usize = 8;
const GOALS_TOTAL: usize = 9;
const GOALS_REACHED: usize = 10;
const GOALS_PRECISE: usize = 11;
const COORD: usize = 12;
const EFFECTIVE: usize = 13;
const TARGET: usize = 14;
const SWITCHES: usize = 15;
const DIST_N: usize = 16;
const DIST_SUM: usize = 17;
const W_DIST_SUM: usize = 18;
const ERRORS: usize = 19;
const SWITCH_CLASSES: usize = ERRORS + ErrorClass::ALL.len();
/// How many numbers a row holds.
pub const WIDTH: usize = SWITCH_CLASSES + SwitchClass::ALL.len();

/// What one episode adds to a run (or a sum of such rows): its SR, SSR,
/// SPL, State-F1 and VSPS (with how many episodes VSPS is defined for),
/// the episode count, and the totals of [`Counts`] with the error and
/// view-switch classes in the order of [`ErrorClass::ALL`] and
/// [`SwitchClass::ALL`]. Counts are held as `f64`, exact below 2^53.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summands(pub [f64; WIDTH]);

impl Default for Summands {
    fn default() -> Self {
        Summands([0.0; WIDTH])
    }
}

impl Summands {
    /// One episode's row.
    pub fn of(e: &EpisodeMetrics) -> Summands {
        let c = &e.counts;
        let mut r = [0.0; WIDTH];
        r[SR] = e.metrics.sr.unwrap_or(0.0);
        r[SSR] = e.metrics.ssr.unwrap_or(0.0);
        r[SPL] = e.spl;
        r[STATE_F1] = e.state_f1;
        if let Some(v) = e.vsps {
            r[VSPS_SUM] = v;
            r[VSPS_N] = 1.0;
        }
        r[EPISODES] = 1.0;
        r[STEPS] = c.steps as f64;
        r[VALID] = c.valid_steps as f64;
        r[GOALS_TOTAL] = c.goals_total as f64;
        r[GOALS_REACHED] = c.goals_reached as f64;
        r[GOALS_PRECISE] = c.goals_precise as f64;
        r[COORD] = c.coord_actions as f64;
        r[EFFECTIVE] = c.effective_actions as f64;
        r[TARGET] = c.target_actions as f64;
        r[SWITCHES] = c.view_switches as f64;
        r[DIST_N] = c.dist_actions as f64;
        r[DIST_SUM] = c.dist_sum;
        r[W_DIST_SUM] = c.w_dist_sum;
        for (i, class) in ErrorClass::ALL.iter().enumerate() {
            r[ERRORS + i] = c.errors.get(class).copied().unwrap_or(0) as f64;
        }
        for (i, class) in SwitchClass::ALL.iter().enumerate() {
            r[SWITCH_CLASSES + i] = c.switch_classes.get(class).copied().unwrap_or(0) as f64;
        }
        Summands(r)
    }

    /// A planned episode that a run did not play (missing from its file,
    /// or ended as `api_error`), counted as a failure: one episode, SR and
    /// SSR 0, nothing else. Pooled with the played ones it gives SR and
    /// SSR over the plan; the other metrics are not defined over the plan.
    pub fn unplayed() -> Summands {
        let mut r = [0.0; WIDTH];
        r[EPISODES] = 1.0;
        Summands(r)
    }

    /// Adds `times` copies of `other` (a bootstrap draws an episode
    /// several times).
    pub fn add(&mut self, other: &Summands, times: f64) {
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            *a += b * times;
        }
    }

    /// The episodes pooled.
    pub fn episodes(&self) -> f64 {
        self.0[EPISODES]
    }

    /// Failed steps: the sum over the error classes.
    pub fn failed_steps(&self) -> f64 {
        self.0[ERRORS..SWITCH_CLASSES].iter().sum()
    }

    /// The failed steps of one class.
    pub fn errors_of(&self, class: ErrorClass) -> f64 {
        ErrorClass::ALL
            .iter()
            .position(|c| *c == class)
            .map_or(0.0, |i| self.0[ERRORS + i])
    }

    /// The totals behind a sum of rows (what a run's `counts` holds).
    pub fn counts(&self) -> Counts {
        let r = &self.0;
        let n = |x: f64| x.max(0.0).round() as u64;
        let mut errors = BTreeMap::new();
        for (i, class) in ErrorClass::ALL.iter().enumerate() {
            if r[ERRORS + i] > 0.0 {
                errors.insert(*class, n(r[ERRORS + i]));
            }
        }
        let mut switch_classes = BTreeMap::new();
        for (i, class) in SwitchClass::ALL.iter().enumerate() {
            if r[SWITCH_CLASSES + i] > 0.0 {
                switch_classes.insert(*class, n(r[SWITCH_CLASSES + i]));
            }
        }
        Counts {
            steps: n(r[STEPS]),
            valid_steps: n(r[VALID]),
            goals_total: n(r[GOALS_TOTAL]),
            goals_reached: n(r[GOALS_REACHED]),
            goals_precise: n(r[GOALS_PRECISE]),
            coord_actions: n(r[COORD]),
            effective_actions: n(r[EFFECTIVE]),
            target_actions: n(r[TARGET]),
            view_switches: n(r[SWITCHES]),
            dist_actions: n(r[DIST_N]),
            dist_sum: r[DIST_SUM],
            w_dist_sum: r[W_DIST_SUM],
            errors,
            switch_classes,
        }
    }

    /// The metrics of the pooled episodes: SR, SSR, SPL and State-F1
    /// averaged over episodes, VSPS over those that reached a goal, the
    /// others ratios of the totals ([`super::run`] says why).
    pub fn metrics(&self) -> Metrics {
        let r = &self.0;
        let n = r[EPISODES];
        self.counts().metrics(NotPooled {
            sr: ratio(r[SR], n),
            ssr: ratio(r[SSR], n),
            spl: ratio(r[SPL], n),
            state_f1: ratio(r[STATE_F1], n),
            vsps: ratio(r[VSPS_SUM], r[VSPS_N]),
        })
    }

    /// SR alone (what a bootstrap of SR needs, without the maps).
    pub fn sr(&self) -> Option<f64> {
        ratio(self.0[SR], self.0[EPISODES])
    }

    /// SSR alone.
    pub fn ssr(&self) -> Option<f64> {
        ratio(self.0[SSR], self.0[EPISODES])
    }

    /// Every metric that is a number ([`super::columns::COLUMNS`]'s
    /// values) without building maps: in the order of `COLUMNS`, so a
    /// bootstrap of a thousand resamples allocates nothing per resample.
    pub fn values(&self) -> [Option<f64>; 12] {
        let r = &self.0;
        let n = r[EPISODES];
        [
            ratio(r[SR], n),
            ratio(r[SSR], n),
            ratio(r[SPL], n),
            ratio(r[STATE_F1], n),
            ratio(r[EFFECTIVE], r[COORD]),
            ratio(r[TARGET], r[COORD]),
            ratio(r[VSPS_SUM], r[VSPS_N]),
            ratio(r[SWITCHES], r[GOALS_REACHED]),
            ratio(r[VALID], r[STEPS]),
            ratio(r[GOALS_PRECISE], r[GOALS_TOTAL]),
            ratio(r[DIST_SUM], r[DIST_N]),
            ratio(r[W_DIST_SUM], r[DIST_N]),
        ]
    }
}

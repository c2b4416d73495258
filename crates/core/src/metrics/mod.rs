//! VGEBench metrics computed from trajectories and bundles
//! (`specs/devices.md` section 6), for one episode ([`episode`]) and for a
//! whole run ([`run`]): SR, SSR, SPL, State-F1, EIR, TIR, VSPS, GVPE, EER,
//! PSR, Avg Dist, Avg W-Dist, the error taxonomy ([`ErrorClass`]) and the
//! view-switch classes ([`SwitchClass`]).
//!
//! Pure: no file access, so the page calls it as the CLI does. Fractions
//! are in [0, 1] (the tables show them as percentages); distances are on
//! the 0–1000 scale. A metric with nothing to measure is `None` (shown as
//! "–"), never 0.
//!
//! - [`columns`]: the metric columns every table shows, defined once.
//! - [`step`]: what one step was (failed and how, switch class, hits).
//! - [`episode`](mod@episode): one episode's metrics.
//! - [`run`](mod@run): a run's metrics, and the checks that refuse a
//!   trajectory recorded on another device.
//! - [`pool`]: how a run pools its episodes, as one row of numbers each
//!   (what a bootstrap resamples).
//! - [`file`]: reading a trajectory file through the input layer (empty
//!   files, copies of an episode and bad lines refused, by line).
//!
//! Every counter a record carries is recomputed: its steps must chain and
//! its actions, played again on the bundle ([`replay`]), must give every
//! counter it records (goals reached, goals in all, solved, the optimal
//! lengths, the ideal path's states, the budgets); a record that disagrees
//! is refused, naming the line and the field ([`MetricsError::Record`]), a
//! step that does not chain naming the line and the step
//! ([`MetricsError::NotChained`]).
//!
//! The metric definitions, one per field, are on [`Metrics`].

pub mod columns;
pub mod episode;
pub mod file;
pub mod pool;
pub mod replay;
pub mod run;
pub mod step;

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use episode::{episode, episode_at, EpisodeMetrics};
pub use run::{one_library, one_render_mode, run, run_numbered, NumberedFile, RunMetrics};
pub use step::{ErrorClass, SwitchClass};

/// The metrics of section 6, per episode or per run (the same keys).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// **SR**: episodes whose every goal was reached. Per episode 1 or 0;
    /// per run averaged over episodes.
    pub sr: Option<f64>,
    /// **SSR**: per episode, goals reached / goals; averaged over episodes.
    pub ssr: Option<f64>,
    /// **SPL**: per episode S · L_opt / max(L_act, L_opt), with S = 1 if
    /// every goal was reached, L_opt = Σ C_opt along the ideal path (the
    /// trajectory's `ideal_c_opt`) and L_act the steps taken; averaged.
    pub spl: Option<f64>,
    /// **State-F1**: F1 between the set of states the episode visited and
    /// the set on the ideal path (`ideal_states`); averaged.
    /// **Decision (spec silent):** "visited" is the task's initial state,
    /// every state a step entered (immediate ones included, so a dangerous
    /// step visits `Error`) and every state a step ended in.
    pub state_f1: Option<f64>,
    /// **EIR**: of the actions that carry a coordinate (physical actions
    /// and `Switch_view(coord=…)`), those inside the box of any component
    /// of the current view, whatever the state. **Decision (spec silent):**
    /// a point on the locked dashboard's region also counts as inside (it
    /// is what such an action acts on); an action whose coordinate could
    /// not be read carries none. Per run: the ratio of the run's totals.
    /// `None` with no coordinate action.
    pub eir: Option<f64>,
    /// **TIR**: of the same actions, those on a target component: one that,
    /// in the current state, has a transition to a state strictly closer
    /// (in transitions) to the current goal ([`crate::sim::GoalDistance`]).
    /// **Decision (spec silent):** the denominator is every action with a
    /// coordinate, as for EIR, not only the effective ones.
    pub tir: Option<f64>,
    /// **VSPS** (lower is better): per episode with at least one goal
    /// reached, the view switches made before goal-reaching actions divided
    /// by goals reached; averaged over those episodes. `None` (shown "–",
    /// never 0) when no goal was reached. **Decision (spec silent):** the
    /// switches counted are those up to the last goal-reaching step;
    /// switches after it, which reached nothing, are not.
    pub vsps: Option<f64>,
    /// **GVPE** (lower is better): all view switches / all goals reached
    /// (of the episode, or of the run). `None` when no goal was reached.
    /// A view switch is a `Switch_view` that changed the view (an active
    /// unlock included); a refused one is a notification.
    pub gvpe: Option<f64>,
    /// **EER**: valid operations / steps. Invalid: repeating the previous
    /// action exactly while nothing changed, a dangerous action (into
    /// `Error`), an action that changed neither state nor view nor
    /// dashboard lock. **Decision (spec silent):** a dangerous step is
    /// invalid even when its reset reaches the goal; any other step that
    /// reaches a goal is valid even when it changes nothing (the planner's one-step
    /// C_opt for a goal already held is such a step); a step whose
    /// immediate chain came back to the state it left did change the
    /// state. Per run: the ratio of the run's totals.
    pub eer: Option<f64>,
    /// **PSR**: goals reached in exactly C_opt steps / all goals, with
    /// C_opt from the state and view where the goal began (the trajectory's
    /// `first_goal_c_opt`, then each step's `next_goal_c_opt`).
    /// **Decision (spec silent):** a goal reached on the same step as the
    /// goal before it (one immediate chain passing both) took no step of
    /// its own and counts as precise; otherwise "exactly" is exact: a goal
    /// reached in fewer steps than C_opt (possible only through a dangerous
    /// shortcut, which the planner never takes) is not precise. Per run:
    /// the ratio of totals.
    pub psr: Option<f64>,
    /// **Avg Dist** (0–1000 scale): for each action with a coordinate, the
    /// distance to the nearest box of a target component in the current
    /// view, 0 if inside; averaged over the actions where a target box is
    /// visible (`None` when there is none).
    pub avg_dist: Option<f64>,
    /// **Avg W-Dist**: the same, the k-th consecutive failed attempt at the
    /// same target weighted by k. **Decision (spec silent):** the target
    /// of an attempt is its nearest target component; attempts are the
    /// coordinate actions with a target visible, in order (steps without a
    /// coordinate in between do not break a run of attempts); a successful
    /// attempt, another target or another goal starts again at k = 1; the
    /// weighted sum is divided by the number of attempts, like Avg Dist.
    pub avg_w_dist: Option<f64>,
    /// Failed steps by [`ErrorClass`] key (every class listed).
    pub errors: BTreeMap<String, u64>,
    /// View switches that changed the view, by [`SwitchClass`] key.
    pub view_switches: BTreeMap<String, u64>,
}

/// The totals behind the metrics, summed over a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Counts {
    /// Steps taken.
    pub steps: u64,
    /// Steps that were valid operations (EER's numerator).
    pub valid_steps: u64,
    /// Goals of the tasks played.
    pub goals_total: u64,
    /// Goals reached.
    pub goals_reached: u64,
    /// Goals reached in C_opt steps (PSR).
    pub goals_precise: u64,
    /// Actions that carried a coordinate (EIR's and TIR's denominator).
    pub coord_actions: u64,
    /// Of those, the ones inside some component's box (EIR's numerator).
    pub effective_actions: u64,
    /// Of those, the ones on a target component (TIR's numerator).
    pub target_actions: u64,
    /// View switches that changed the view (GVPE's numerator).
    pub view_switches: u64,
    /// Coordinate actions with a target box visible (Avg Dist's count).
    pub dist_actions: u64,
    /// The distances of the `dist_actions` summed (Avg Dist's numerator).
    pub dist_sum: f64,
    /// The same, each weighted by its attempt number (Avg W-Dist's numerator).
    pub w_dist_sum: f64,
    /// Shown once, as [`Metrics::errors`].
    #[serde(skip)]
    pub errors: BTreeMap<ErrorClass, u64>,
    /// Shown once, as [`Metrics::view_switches`].
    #[serde(skip)]
    pub switch_classes: BTreeMap<SwitchClass, u64>,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.steps += o.steps;
        self.valid_steps += o.valid_steps;
        self.goals_total += o.goals_total;
        self.goals_reached += o.goals_reached;
        self.goals_precise += o.goals_precise;
        self.coord_actions += o.coord_actions;
        self.effective_actions += o.effective_actions;
        self.target_actions += o.target_actions;
        self.view_switches += o.view_switches;
        self.dist_actions += o.dist_actions;
        self.dist_sum += o.dist_sum;
        self.w_dist_sum += o.w_dist_sum;
        for (k, v) in &o.errors {
            *self.errors.entry(*k).or_default() += v;
        }
        for (k, v) in &o.switch_classes {
            *self.switch_classes.entry(*k).or_default() += v;
        }
    }

    /// The metrics, given the five that are not ratios of these totals
    /// (an episode's own values, or a run's averages over its episodes):
    /// EIR, TIR, GVPE, EER, PSR, Avg Dist and Avg W-Dist are the ratios of
    /// the totals, and the error and view-switch tallies list every class.
    /// An episode and a run pool them the same way, here.
    fn metrics(&self, own: NotPooled) -> Metrics {
        Metrics {
            sr: own.sr,
            ssr: own.ssr,
            spl: own.spl,
            state_f1: own.state_f1,
            eir: ratio(self.effective_actions as f64, self.coord_actions as f64),
            tir: ratio(self.target_actions as f64, self.coord_actions as f64),
            vsps: own.vsps,
            gvpe: ratio(self.view_switches as f64, self.goals_reached as f64),
            eer: ratio(self.valid_steps as f64, self.steps as f64),
            psr: ratio(self.goals_precise as f64, self.goals_total as f64),
            avg_dist: ratio(self.dist_sum, self.dist_actions as f64),
            avg_w_dist: ratio(self.w_dist_sum, self.dist_actions as f64),
            errors: self.error_map(),
            view_switches: self.switch_map(),
        }
    }

    /// The failed steps: the sum over the error classes.
    pub fn failed_steps(&self) -> u64 {
        self.errors.values().sum()
    }

    fn error_map(&self) -> BTreeMap<String, u64> {
        ErrorClass::ALL
            .iter()
            .map(|c| {
                (
                    c.key().to_string(),
                    self.errors.get(c).copied().unwrap_or(0),
                )
            })
            .collect()
    }

    fn switch_map(&self) -> BTreeMap<String, u64> {
        SwitchClass::ALL
            .iter()
            .map(|c| {
                (
                    c.key().to_string(),
                    self.switch_classes.get(c).copied().unwrap_or(0),
                )
            })
            .collect()
    }
}

/// The metrics that [`Counts::metrics`] does not pool from the totals: an
/// episode's own SR, SSR, SPL, State-F1 and VSPS, or a run's means of them.
struct NotPooled {
    sr: Option<f64>,
    ssr: Option<f64>,
    spl: Option<f64>,
    state_f1: Option<f64>,
    vsps: Option<f64>,
}

/// `num / den`, `None` when `den` is 0.
fn ratio(num: f64, den: f64) -> Option<f64> {
    (den > 0.0).then(|| num / den)
}

/// Which episode: named in every error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EpisodeRef {
    /// The trajectory's bundle id.
    pub bundle_id: String,
    /// Its task id.
    pub task_id: String,
    /// The line of the trajectory file (1-based), when known.
    pub line: Option<usize>,
}

impl fmt::Display for EpisodeRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bundle {}, task {}", self.bundle_id, self.task_id)?;
        if let Some(line) = self.line {
            write!(f, ", line {line}")?;
        }
        Ok(())
    }
}

/// An episode and the library it was recorded on, named in a refusal to
/// pool episodes of two libraries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedOn {
    /// The trajectory file, when episodes of several are compared.
    pub file: Option<String>,
    /// The episode.
    pub episode: EpisodeRef,
    /// The library it records (none: a bundle of its own, or a file from
    /// before the field was written).
    pub library: Option<crate::bundle::LibraryStamp>,
}

impl fmt::Display for RecordedOn {
    /// `run.jsonl: episode (bundle …, task …, line 3) was recorded on
    /// library version 2 (…)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{file}: ")?;
        }
        write!(
            f,
            "episode ({}) was recorded on {}",
            self.episode,
            crate::bundle::stamp::describe(self.library.as_ref())
        )
    }
}

/// A record's counter that its steps or its task do not give.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("episode ({episode}): the record's `{field}` is {recorded}, but {recomputed}; counters are recomputed from the steps, and a record that disagrees is refused")]
pub struct RecordMismatch {
    /// The episode.
    pub episode: EpisodeRef,
    /// The field, as named in the trajectory file (`goals_reached`,
    /// `steps[3].goals_reached`).
    pub field: String,
    /// The value the record carries.
    pub recorded: String,
    /// What its steps or its task give instead.
    pub recomputed: String,
}

/// Why a trajectory cannot be scored.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum MetricsError {
    /// No bundle given has the trajectory's bundle id.
    #[error("episode ({episode}): no bundle with id {} was given (bundles: {known})", episode.bundle_id)]
    UnknownBundle {
        /// The episode.
        episode: EpisodeRef,
        /// The ids of the bundles given.
        known: String,
    },
    /// The bundle's logic is not the one the trajectory was recorded on.
    #[error("episode ({episode}): the trajectory was recorded on another version of the bundle (logic hash {found}, the bundle's is {expected}); it is not scored against a different device")]
    ChangedLogic {
        /// The episode.
        episode: EpisodeRef,
        /// The given bundle's logic hash.
        expected: String,
        /// The hash the trajectory recorded.
        found: String,
    },
    /// The bundle has no task of the trajectory's id.
    #[error("episode ({episode}): the bundle has no task {}", episode.task_id)]
    UnknownTask {
        /// The episode.
        episode: EpisodeRef,
    },
    /// The run pools episodes drawn in different render modes.
    #[error("episode ({other}) was played with {other_mode} pictures, but episode ({first}) with {first_mode} pictures; runs of different render modes are not pooled (score each mode's episodes separately)")]
    MixedRender {
        /// The first episode of the run.
        first: Box<EpisodeRef>,
        /// Its render mode.
        first_mode: crate::sim::RenderMode,
        /// An episode of another mode.
        other: Box<EpisodeRef>,
        /// That mode.
        other_mode: crate::sim::RenderMode,
    },
    /// Episodes recorded on two versions of the library (or on the
    /// library and off it) are pooled or compared.
    #[error("{other}, but {first}; episodes of different library versions are not pooled or compared (score each library version's episodes apart, or play them again on one library)")]
    MixedLibrary {
        /// The first episode, and its library.
        first: Box<RecordedOn>,
        /// The first episode of another library.
        other: Box<RecordedOn>,
    },
    /// A counter the record carries disagrees with its steps or its task,
    /// or the record has no steps.
    #[error("{0}")]
    Record(Box<RecordMismatch>),
    /// A step does not start where the one before it ended (or the first
    /// where the task starts), or follows the end of the episode.
    #[error("episode ({episode}), step {step}: {what}")]
    NotChained {
        /// The episode.
        episode: EpisodeRef,
        /// The step, from 1.
        step: usize,
        /// Where it starts and where it should have.
        what: String,
    },
    /// A step names a state, view or goal the bundle does not have.
    #[error("episode ({episode}), step {step}: {what}")]
    Inconsistent {
        /// The episode.
        episode: EpisodeRef,
        /// The step, from 1 (0: the task itself, such as its goals).
        step: usize,
        /// What the bundle lacks.
        what: String,
    },
}

/// How the tables show a metric (see [`crate::display`]).
pub use crate::display::{number, percent};

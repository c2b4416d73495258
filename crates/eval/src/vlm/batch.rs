//! A batch: its episodes ([`super::items`]), which are still to do after a
//! reload, and how far along it is (progress, ETA, tokens, cost); the run's
//! description a resume checks ([`RunSpec`]).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use knoblab_core::bundle::{Bundle, LibraryStamp};
use knoblab_core::sim::Settings;

use super::record::EpisodeRecord;
use super::reply::Usage;
use super::settings::AgentSettings;
use knoblab_core::metrics::file::EpisodeStatus;

pub use super::items::{parse_repeats, plan, BatchItem, RepeatsError, TaskFilter, MAX_REPEATS};

/// The items not yet finished: those without a record. A resumed batch
/// runs exactly these, so every item ends with one record.
pub fn remaining(items: &[BatchItem], done: &[EpisodeRecord]) -> Vec<BatchItem> {
    let finished: BTreeSet<&str> = done.iter().map(|r| r.item.as_str()).collect();
    items
        .iter()
        .filter(|i| !finished.contains(i.key().as_str()))
        .cloned()
        .collect()
}

/// How far a batch is.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Progress {
    /// Items with a record.
    pub done: usize,
    /// Items in the batch.
    pub total: usize,
    /// Of those done, the ones that ended as `api_error`.
    pub api_errors: usize,
    /// Tokens used so far.
    pub usage: Usage,
    /// The estimated cost so far in dollars, when prices are given.
    pub cost: Option<f64>,
    /// Estimated time left, once an episode has finished since the runner started.
    pub eta_ms: Option<u64>,
}

impl Progress {
    /// The progress of `records` out of `total` items. The ETA assumes the
    /// items left take as long as those finished since the runner started took:
    /// `finished_here` episodes in `elapsed_ms`, `concurrency` at a time
    /// (already reflected in the elapsed time).
    pub fn new(
        records: &[EpisodeRecord],
        total: usize,
        finished_here: usize,
        elapsed_ms: u64,
        cost: impl Fn(Usage) -> Option<f64>,
    ) -> Progress {
        let mut usage = Usage::default();
        for r in records {
            usage.add(r.usage);
        }
        let done = records.len().min(total);
        let left = (total - done) as u64;
        let eta_ms = (finished_here > 0).then(|| elapsed_ms / finished_here as u64 * left);
        Progress {
            done,
            total,
            api_errors: records
                .iter()
                .filter(|r| r.status == EpisodeStatus::ApiError)
                .count(),
            usage,
            cost: cost(usage),
            eta_ms,
        }
    }

    /// Done as a fraction in [0, 1] (1 for an empty batch).
    pub fn fraction(&self) -> f64 {
        if self.total == 0 {
            1.0
        } else {
            self.done as f64 / self.total as f64
        }
    }
}

/// A duration for people: `42 s`, `3 min 05 s`, `2 h 07 min`.
///
/// ```
/// use knoblab_eval::vlm::batch::human_duration;
/// assert_eq!(human_duration(42_000), "42 s");
/// assert_eq!(human_duration(185_000), "3 min 05 s");
/// assert_eq!(human_duration(7_620_000), "2 h 07 min");
/// ```
pub fn human_duration(ms: u64) -> String {
    let s = ms / 1_000;
    match s {
        0..=59 => format!("{s} s"),
        60..=3_599 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3_600, s % 3_600 / 60),
    }
}

/// Who plays the episodes of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A model behind an HTTP API (the flavour is in the settings).
    Model,
    /// A model's answers read back from a recorded trajectory file
    /// ([`super::RecordedAnswers`]); `replay` in files and on the CLI.
    Replay,
    /// The oracle (an optimal path; no model).
    Oracle,
    /// The random agent, seeded by the settings.
    Random,
}

impl Source {
    /// The name shown and written into trajectories.
    pub fn name(self) -> &'static str {
        match self {
            Source::Model => "model",
            Source::Replay => "replay",
            Source::Oracle => "oracle",
            Source::Random => "random",
        }
    }

    /// Whether its episodes send requests to a model.
    pub fn sends_requests(self) -> bool {
        self == Source::Model
    }
}

/// The version of [`RunSpec`] this build writes and reads: 2 since the
/// run records its library ([`RunSpec::library`]), so that a build that
/// would not check it refuses to resume the run.
pub const RUN_SPEC_VERSION: u32 = 2;

fn run_spec_v1() -> u32 {
    1
}

/// What a run is, as a resume needs it: who plays, with which settings
/// (never the key), the episodes planned, and the logic of each bundle
/// they play. What has finished is the records of the run
/// ([`RunSpec::remaining`]). The page keeps it in IndexedDB with each
/// batch; `knoblab eval` writes it beside its output file. Versioned:
/// a reader refuses a version it does not know.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSpec {
    /// [`RUN_SPEC_VERSION`] when written (1 when absent: batches stored
    /// before the field existed).
    #[serde(default = "run_spec_v1")]
    pub version: u32,
    /// Who plays.
    pub source: Source,
    /// With which settings (never the key).
    pub settings: AgentSettings,
    /// The episodes planned, in order.
    pub items: Vec<BatchItem>,
    /// The logic hash of each bundle played, by bundle id.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub bundles: BTreeMap<String, String>,
    /// The library its devices belong to, by version and content hash
    /// (none: no device of the library, or a run stored before the field
    /// existed). A resume on another library is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library: Option<LibraryStamp>,
    /// The replay file's text, for a replay run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<String>,
    /// What was chosen to run (devices, tasks, repeats) when the items
    /// came from the page's chooser, so that a resumed batch shows it;
    /// the items are what a resume checks and runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<super::selection::Selection>,
}

impl RunSpec {
    /// A run of `items` by `source` with `settings`, on these bundles.
    pub fn new(
        source: Source,
        settings: AgentSettings,
        items: Vec<BatchItem>,
        bundles: &[&Bundle],
    ) -> RunSpec {
        let bundles: BTreeMap<String, String> = bundles
            .iter()
            .map(|b| (b.manifest.id.clone(), knoblab_core::bundle::logic_hash(b)))
            .collect();
        let library = bundles
            .iter()
            .find_map(|(id, hash)| knoblab_core::bundle::library_of(id, hash));
        RunSpec {
            version: RUN_SPEC_VERSION,
            source,
            settings,
            items,
            bundles,
            library,
            replay: None,
            selection: None,
        }
    }

    /// A run of `items` on devices of the shipped library, none of them
    /// opened: each played device's logic hash is the one the library
    /// lists ([`knoblab_core::bundle::stamp::shipped`]). The page plans so, then
    /// opens each device when the run reaches it; an id the library does
    /// not list is [`RunSpecError::NotInLibrary`].
    pub fn on_library(
        source: Source,
        settings: AgentSettings,
        items: Vec<BatchItem>,
    ) -> Result<RunSpec, RunSpecError> {
        let library = knoblab_core::bundle::stamp::shipped().ok_or(RunSpecError::NoLibrary)?;
        let mut bundles = BTreeMap::new();
        for item in &items {
            let hash =
                library
                    .devices
                    .get(&item.bundle_id)
                    .ok_or_else(|| RunSpecError::NotInLibrary {
                        id: item.bundle_id.clone(),
                        library: library.stamp(),
                    })?;
            bundles.insert(item.bundle_id.clone(), hash.clone());
        }
        Ok(RunSpec {
            version: RUN_SPEC_VERSION,
            source,
            settings,
            items,
            bundles,
            library: Some(library.stamp()),
            replay: None,
            selection: None,
        })
    }

    /// Reads a run spec written by this or an earlier version.
    pub fn parse(text: &str) -> Result<RunSpec, RunSpecError> {
        // Duplicate keys refused, as every JSON read from a file (input layer).
        let spec: RunSpec = knoblab_core::input::json::from_text(text)
            .map_err(|e| RunSpecError::Unreadable { error: e })?;
        if spec.version > RUN_SPEC_VERSION {
            return Err(RunSpecError::Version {
                found: spec.version,
                known: RUN_SPEC_VERSION,
            });
        }
        Ok(spec)
    }

    /// The items without a record: what a resume runs.
    pub fn remaining(&self, done: &[EpisodeRecord]) -> Vec<BatchItem> {
        remaining(&self.items, done)
    }

    /// `records` in the order this run planned their items
    /// ([`super::items::in_plan_order`]): what an export writes.
    pub fn in_plan_order<'a>(&self, records: &'a [EpisodeRecord]) -> Vec<&'a EpisodeRecord> {
        super::items::in_plan_order(&self.items, records, |r| r.item.as_str())
    }

    /// The trajectory settings of this run's episodes.
    pub fn trajectory_settings(&self) -> Settings {
        let s = &self.settings;
        match self.source {
            Source::Model => s.trajectory_settings(&s.endpoint.model),
            Source::Replay => {
                let mut t = s.trajectory_settings("replay");
                t.model = None;
                t.endpoint = None;
                t
            }
            Source::Oracle => Settings {
                agent: "oracle".into(),
                render: s.render,
                ..Settings::with_lambda(s.lambda)
            },
            Source::Random => Settings {
                agent: format!("random:{}", s.seed),
                seed: Some(s.seed),
                render: s.render,
                ..Settings::with_lambda(s.lambda)
            },
        }
    }

    /// What differs between this run and `other` in a way that makes their
    /// episodes incomparable, each as `what: before → now`; empty when a
    /// resume may go on. Concurrency, timeout, retries and prices may
    /// change between one start of the run and the next.
    pub fn differences(&self, other: &RunSpec) -> Vec<String> {
        let mut out = Vec::new();
        let mut check = |what: &str, a: String, b: String| {
            if a != b {
                out.push(format!("{what}: {a} before, {b} now"));
            }
        };
        let (a, b) = (&self.settings, &other.settings);
        check(
            "agent",
            self.source.name().into(),
            other.source.name().into(),
        );
        check(
            "API",
            a.endpoint.flavor.name().into(),
            b.endpoint.flavor.name().into(),
        );
        check(
            "base URL",
            a.endpoint.base_url.trim().into(),
            b.endpoint.base_url.trim().into(),
        );
        check("model", a.endpoint.model.clone(), b.endpoint.model.clone());
        check("λ", a.lambda.to_string(), b.lambda.to_string());
        check(
            "prompt version",
            self.trajectory_settings()
                .prompt_version
                .unwrap_or_default(),
            other
                .trajectory_settings()
                .prompt_version
                .unwrap_or_default(),
        );
        check("history", a.history.name(), b.history.name());
        check(
            "pictures",
            a.render.as_str().into(),
            b.render.as_str().into(),
        );
        check(
            "coordinates",
            a.coords.name().into(),
            b.coords.name().into(),
        );
        let perturbation =
            |s: &AgentSettings| s.perturbation.map_or("none".into(), |p| p.to_string());
        check("perturbation", perturbation(a), perturbation(b));
        check("seed", a.seed.to_string(), b.seed.to_string());
        check(
            "temperature",
            a.endpoint.temperature.to_string(),
            b.endpoint.temperature.to_string(),
        );
        check(
            "max tokens",
            a.endpoint.max_tokens.to_string(),
            b.endpoint.max_tokens.to_string(),
        );
        check(
            "library",
            knoblab_core::bundle::stamp::describe(self.library.as_ref()),
            knoblab_core::bundle::stamp::describe(other.library.as_ref()),
        );
        for (id, hash) in &self.bundles {
            if let Some(now) = other.bundles.get(id) {
                check(
                    &format!("the logic of device {id}"),
                    hash.clone(),
                    now.clone(),
                );
            }
        }
        if self.items != other.items {
            check(
                "the episodes planned",
                format!("{} ({})", self.items.len(), summary(&self.items)),
                format!("{} ({})", other.items.len(), summary(&other.items)),
            );
        }
        out
    }
}

/// A few item keys, for a message.
fn summary(items: &[BatchItem]) -> String {
    let mut keys: Vec<String> = items.iter().take(3).map(BatchItem::key).collect();
    if items.len() > 3 {
        keys.push("…".into());
    }
    keys.join(", ")
}

/// A run spec that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunSpecError {
    #[error("not a run description: {error}")]
    /// The text is not a run description.
    Unreadable {
        /// What the JSON reader found.
        error: knoblab_core::input::json::JsonError,
    },
    #[error("run description version {found}; this build reads up to {known}")]
    /// A newer version than this build reads.
    Version {
        /// The version written.
        found: u32,
        /// The newest this build reads.
        known: u32,
    },
    /// A run on the library names a device the library does not list.
    #[error("the device {id} is not in {library}")]
    NotInLibrary {
        /// The device's id.
        id: String,
        /// The library.
        library: LibraryStamp,
    },
    /// The shipped library's version is not known: in the page, before it
    /// has read `data/library-version.json` (natively the file is compiled
    /// in, and a test reads it).
    #[error("the shipped library's version is not known (data/library-version.json: compiled into native builds, read by the page with the library's index)")]
    NoLibrary,
}

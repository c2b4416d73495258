//! How the page sets its Web Workers up for a job, as plain functions the
//! worker glue (`ui::pages::score::worker`) calls: how many workers share
//! a job, the options read from the JSON text that crosses the worker
//! boundary, and whether a job's files need the library's bundles (which
//! the page then fetches). The glue only moves bytes between JavaScript
//! and these calls.

use thiserror::Error;

use super::files::classify;
use super::{InputFile, Job, JobOptions};
use knoblab_score::detect::{Benchmark, Format};
use knoblab_score::epic::report::Shard;

/// Each worker reads every dropped file; past this many the copies cost
/// more than the shards save.
pub const MAX_WORKERS: usize = 16;

/// How many workers score a job on a machine that reports `cores` logical
/// cores (`navigator.hardwareConcurrency`, which may be absent, zero or not
/// a number): one per core, at least two (a merging worker and one helper,
/// so sharding is exercised everywhere), at most [`MAX_WORKERS`].
pub fn worker_count(cores: f64) -> usize {
    if cores.is_finite() && cores >= 1.0 {
        (cores as usize).clamp(2, MAX_WORKERS)
    } else {
        2
    }
}

/// Why a job sent to a worker could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum WorkerError {
    /// The options' JSON is not a [`JobOptions`].
    #[error("job options: {message}")]
    Options {
        /// What the JSON reader found, with its line and column.
        message: String,
    },
}

impl JobOptions {
    /// Reads the options as the page sends them to a worker (JSON).
    #[allow(
        clippy::disallowed_methods,
        reason = "the job options the page itself sends its workers, not a user's file"
    )]
    pub fn from_json(text: &str) -> Result<JobOptions, WorkerError> {
        serde_json::from_str(text).map_err(|e| WorkerError::Options {
            message: e.to_string(),
        })
    }
}

impl Job {
    /// The job a worker receives: the files (bundle files among them, under
    /// [`super::BUNDLE_PREFIX`]) and the options' JSON; with EPIC-Bench's
    /// scorer alone: the worker gives it the others its files need
    /// ([`Job::missing_scorers`]).
    pub fn from_worker(files: Vec<InputFile>, options: &str) -> Result<Job, WorkerError> {
        Ok(Job::sorted(files, JobOptions::from_json(options)?))
    }
}

impl Job {
    /// Whether any of the job's files is scored against bundles
    /// (trajectories), by detection or by the user's choice.
    pub fn needs_bundles(&self) -> bool {
        self.benchmarks().contains(&Benchmark::Trajectories)
    }

    /// Whether any of the job's trajectory files names a generated device
    /// ([`crate::devices::names_generated`]): its logic is made when the
    /// file is scored, so the page's worker first loads the generator
    /// ([`crate::devices::provide_generator`]). A file that cannot be read,
    /// or a generated id this build does not make, is reported when it is
    /// scored.
    pub fn plays_generated(&self) -> bool {
        classify(&self.files, &self.options.overrides)
            .iter()
            .zip(&self.files)
            .filter(|(entry, _)| entry.format == Some(Format::Trajectories))
            .filter_map(|(_, f)| {
                knoblab_core::metrics::file::read_trajectory_file(&f.path, &f.bytes).ok()
            })
            .any(|file| {
                crate::scoring::metrics::played_ids(&file).any(crate::devices::names_generated)
            })
    }

    /// The benchmarks of the job's results files, each once, by detection
    /// or by the user's choice.
    pub fn benchmarks(&self) -> Vec<Benchmark> {
        let mut out: Vec<Benchmark> = classify(&self.files, &self.options.overrides)
            .iter()
            .filter_map(|e| e.format.and_then(Format::scores))
            .collect();
        out.sort_by_key(|b| b.name());
        out.dedup();
        out
    }

    /// The benchmarks of the job's files whose scorer it does not hold
    /// ([`super::Scorers`]).
    pub fn missing_scorers(&self) -> Vec<Benchmark> {
        self.benchmarks()
            .into_iter()
            .filter(|b| !self.scorers.holds(*b))
            .collect()
    }
}

/// Whether any of the files is scored against bundles (trajectories), by
/// detection or by the user's choice in `options` (options that cannot be
/// read choose nothing: detection decides).
pub fn needs_bundles(files: &[InputFile], options: &str) -> bool {
    let overrides = JobOptions::from_json(options)
        .map(|o| o.overrides)
        .unwrap_or_default();
    classify(files, &overrides)
        .iter()
        .any(|e| e.format == Some(Format::Trajectories))
}

/// The share of the benchmark-sized synthetic set a [`WarmUpSet`] holds
/// (about 200 of its 6,661 samples).
pub const WARM_UP_SCALE: f64 = 0.03;

/// How many times the page's spare worker scores its [`WarmUpSet`]: the
/// browser optimizes a function once it has run a while, and scoring the
/// set again costs less than generating a bigger one. With 6 rounds the
/// page's first job still had functions optimized while it ran, and its
/// halves ended about 70 ms later than with 18 (docs/performance.md, "EPIC-Bench in the
/// page").
pub const WARM_UP_ROUNDS: usize = 18;

/// A small synthetic EPIC-Bench set, its GT zipped as a visitor's would
/// be, scored the way a job's two workers score (the merging worker's own
/// shard, a helper's sent as text, merged, reported) with the result
/// thrown away.
///
/// **Why:** a browser runs a new module's code first from a quick baseline
/// compile and optimizes a function only once it has run a while, on
/// threads that a job's workers then compete with. On this project's
/// two-core machine the benchmark-sized synthetic set took 1.3–1.8 s as a
/// page's first job and 0.7–0.8 s as its second. The page's first spare
/// worker scores this set a few times before any job
/// (`ui::pages::score::worker`), a round at a time, and stops when a job
/// comes, so the scoring code is optimized while the visitor picks files
/// (the first job then took 0.9–1.1 s); the optimized code is shared by
/// every worker of the page's module.
pub struct WarmUpSet {
    job: Job,
    samples: usize,
}

impl WarmUpSet {
    /// Generates the set (`scale` of the benchmark-sized one) and zips its GT.
    pub fn new(scale: f64) -> WarmUpSet {
        let set = knoblab_score::epic::synthetic::generate_scaled(WARM_UP_SEED, scale);
        let files = vec![
            InputFile {
                path: "warm-up/raw.jsonl".into(),
                bytes: set.raw_jsonl.into_bytes(),
            },
            InputFile {
                path: "warm-up/gt.zip".into(),
                bytes: zip_in_memory(set.gt.files()),
            },
        ];
        WarmUpSet {
            job: Job::sorted(files, JobOptions::default()),
            samples: set.samples,
        }
    }

    /// The number of samples in the set.
    pub fn samples(&self) -> usize {
        self.samples
    }

    /// Scores the set once, as a job's workers would, and says how many
    /// reports the merged job produced (one: the set's results file).
    pub fn score(&self) -> usize {
        let mut merging = super::Merging::new();
        merging.score_own(&self.job, Shard { index: 0, of: 2 });
        let helper = super::epic_shard(&self.job, Shard { index: 1, of: 2 });
        merging.add(&serde_json::to_string(&helper).unwrap_or_default());
        merging.finish(&self.job, &mut |_| {}).reports.len()
    }
}

/// The warm-up set's seed (any: its numbers are never shown).
const WARM_UP_SEED: u64 = 11;

/// Files in a deflated zip held in memory, as a visitor's GT zip would be.
fn zip_in_memory<'a>(files: impl Iterator<Item = (&'a str, &'a [u8])>) -> Vec<u8> {
    use std::io::Write;
    let mut out = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut out);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(1));
    for (path, bytes) in files {
        // Writing to memory does not fail; a file that did would only make
        // the warm-up shorter.
        if zip.start_file(path, options).is_err() || zip.write_all(bytes).is_err() {
            break;
        }
    }
    let _ = zip.finish();
    out.into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_worker_per_core_between_two_and_the_cap() {
        assert_eq!(worker_count(1.0), 2);
        assert_eq!(worker_count(4.0), 4);
        assert_eq!(worker_count(64.0), MAX_WORKERS);
        for unknown in [f64::NAN, f64::INFINITY, 0.0, -3.0] {
            assert_eq!(worker_count(unknown), 2, "{unknown}");
        }
    }

    #[test]
    fn the_warm_up_set_is_scored_through_a_zip_like_a_dropped_one() {
        let set = WarmUpSet::new(0.005);
        assert!(
            set.samples() > 10 && set.samples() < 100,
            "{}",
            set.samples()
        );
        assert_eq!(set.score(), 1);
        assert_eq!(set.score(), 1);
        // Its zip is one a visitor could drop: every GT file of the set,
        // deflated, read back as written.
        let generated = knoblab_score::epic::synthetic::generate_scaled(WARM_UP_SEED, 0.005);
        let zip = zip_in_memory(generated.gt.files());
        let read = super::super::unzip("gt.zip", &zip).unwrap();
        assert_eq!(read.len(), generated.gt.files().count());
        for (path, bytes) in generated.gt.files() {
            assert!(read.iter().any(|(p, b)| p == path && b == bytes), "{path}");
        }
        // And the job scores the set's samples: its report lists each one.
        let outcome = super::super::Merging::new().finish(&set.job, &mut |_| {});
        assert_eq!(outcome.reports.len(), 1);
        assert_eq!(outcome.reports[0].items.rows.len(), set.samples());
    }

    #[test]
    fn bad_options_are_named_and_refused() {
        let err = Job::from_worker(Vec::new(), "{\"overrides\": 3}").unwrap_err();
        assert!(
            err.to_string().starts_with("job options: invalid type"),
            "{err}"
        );
        assert!(Job::from_worker(Vec::new(), "{}").is_ok());
    }

    #[test]
    fn trajectories_need_bundles_by_detection_or_by_choice() {
        let file = |path: &str, bytes: &[u8]| InputFile {
            path: path.into(),
            bytes: bytes.to_vec(),
        };
        let notes = [file("notes.txt", b"hello")];
        assert!(!needs_bundles(&notes, "{}"));
        let chosen = r#"{"overrides": {"notes.txt": "trajectories"}}"#;
        assert!(needs_bundles(&notes, chosen));
        // Options that cannot be read leave detection to decide.
        assert!(!needs_bundles(&notes, "not json"));
        let line = br#"{"bundle_id": "kettle", "logic_hash": "ab", "task_id": "t", "steps": []}"#;
        assert!(needs_bundles(&[file("run.jsonl", line)], "{}"));
        let epic = br#"{"response": "{}", "images": [{"path": "a.jpg"}]}"#;
        assert!(!needs_bundles(&[file("raw.jsonl", epic)], "{}"));
    }

    #[test]
    fn a_job_plays_generated_devices_when_a_trajectory_names_one() {
        // A run as `knoblab eval` writes it, its first episode moved to `id`.
        let run = include_str!("../../../../tests/fixtures/leaderboard_runs/oracle.jsonl");
        let first = run.lines().next().expect("the run has an episode");
        assert!(first.contains(r#""bundle_id":"airfryer-0001""#));
        let line = |id: &str| first.replace("airfryer-0001", id);
        let job = |lines: &[String]| {
            let file = InputFile {
                path: "run.jsonl".into(),
                bytes: lines.join("\n").into_bytes(),
            };
            Job::from_worker(vec![file], "{}").unwrap()
        };
        let generated = crate::devices::generated_entry("lamp-g0001").map(|e| e.id);
        let generated = generated.expect("the library has lamp-g0001");
        assert!(!job(&[line("airfryer-0001")]).plays_generated());
        assert!(job(&[line("airfryer-0001"), line(&generated)]).plays_generated());
        // Read by its form: an id no generated device has is reported when
        // the file is scored, once the generator has said so.
        assert!(job(&[line("lamp-g9999")]).plays_generated());
        assert!(!job(&[line("lamp-g12")]).plays_generated());
        // Not trajectories: nothing to make.
        let notes = InputFile {
            path: "notes.txt".into(),
            bytes: generated.into_bytes(),
        };
        assert!(!Job::from_worker(vec![notes], "{}")
            .unwrap()
            .plays_generated());
    }
}

//! How the page sets its Web Workers up for a job, as plain functions the
//! worker glue (`ui::pages::score::worker`) calls: how many workers share
//! a job, the options read from the JSON text that crosses the worker
//! boundary, and whether a job's files need the library's bundles (which
//! the page then fetches). The glue only moves bytes between JavaScript
//! and these calls.

use thiserror::Error;

use super::files::classify;
use super::{InputFile, Job, JobOptions};
use crate::score::detect::Format;

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
    pub fn from_json(text: &str) -> Result<JobOptions, WorkerError> {
        serde_json::from_str(text).map_err(|e| WorkerError::Options {
            message: e.to_string(),
        })
    }
}

impl Job {
    /// The job a worker receives: the files (bundle files among them, under
    /// [`super::BUNDLE_PREFIX`]) and the options' JSON.
    pub fn from_worker(files: Vec<InputFile>, options: &str) -> Result<Job, WorkerError> {
        Ok(Job::from_files(files, JobOptions::from_json(options)?))
    }
}

impl Job {
    /// Whether any of the job's files is scored against bundles
    /// (trajectories), by detection or by the user's choice.
    pub fn needs_bundles(&self) -> bool {
        classify(&self.files, &self.options.overrides)
            .iter()
            .any(|e| e.format == Some(Format::Trajectories))
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
}

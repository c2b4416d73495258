//! # SWITCH scoring
//!
//! ## Overview
//!
//! Scores SWITCH predictions (`specs/switch.md`): MCQ answer extraction with
//! the rule that found each answer, single-choice and exact-set
//! multi-select accuracy (and the partial score for analysis) per skill
//! column and Overall, OpenQA exact match and token F1, the OpenQA judge
//! protocol as pure request and reply functions, and aggregation of
//! generated-video judge outputs. Inputs are in-memory files (path → bytes)
//! so the page can score dropped files and the CLI files on disk.
//!
//! ```
//! use knoblab_score::switch::{score_files, render_text};
//! let vqa = br#"{"data": [{"id": 0, "query": "Which button starts it?\nA. Red\nB. Blue",
//!   "GT": "B", "task_family": "vqa_task", "output_schema": {"type": "choice"}}]}"#;
//! let pred = br#"{"task_family": "vqa_task", "form": "img2txt", "id": 0, "response": "The answer is (B)."}"#;
//! let report = score_files([("switch/vqa_task/img2txt/vqa.json", &vqa[..])], "pred.jsonl", pred).unwrap();
//! assert_eq!(report.mcq.overall.accuracy, Some(1.0));
//! assert!(render_text(&report).contains("Task Understanding"));
//! ```
//!
//! ## Source code layout
//!
//! - [`dataset`]: items, gold answers, skill columns.
//! - [`load`]: reading the ground-truth layout (folder, zip, one file).
//! - [`release`]: the public test release's rows (`data.jsonl`) and answers.
//! - [`predictions`]: the predictions file (and saved judge outputs).
//! - [`extract`]: MCQ answer extraction, rule by rule.
//! - `markup`: JSON objects and `\boxed{}` in replies, shared by the readers.
//! - `fields`: what every reader reads the same way: a file's JSON records,
//!   ids as text, an item's gold answer.
//! - [`mcq`]: single-choice and multi-select scoring, tallies.
//! - [`openqa`]: SQuAD-style EM and F1, numbers, structured answers.
//! - [`judge`]: the OpenQA judge protocol (request, reply, retry, diagnostics).
//! - [`video`]: generated-video judge aggregation.
//! - [`matching`]: which item each prediction names; what the judge must see.
//! - [`report`]: scoring every item and building the report.
//! - [`submission`]: the leaderboard's four tracks and which ones the
//!   predictions cover.
//! - [`table`]: the report as text tables.
//! - [`error`]: input errors, each naming file, record and what is valid.

pub mod dataset;
pub mod error;
pub mod extract;
mod fields;
pub mod judge;
pub mod load;
mod markup;
pub mod matching;
pub mod mcq;
pub mod openqa;
pub mod predictions;
pub mod release;
pub mod report;
pub mod submission;
pub mod table;
pub mod video;

pub use dataset::GroundTruth;
pub use error::{InputError, InputErrors};
pub use load::LoadOptions;
pub use matching::{judge_cases, PendingJudge};
pub use report::{build_report, build_report_with, Layout, ReportOptions, SwitchReport};
pub use table::{render_layout, render_leaderboard, render_text};

/// Scores a predictions file against ground-truth files, all in memory:
/// what the page calls with dropped files. Ground-truth files are
/// `(path, bytes)` of `vqa.json`/`openqa.json` files; a single `.zip` of the
/// root is also accepted as the only file.
pub fn score_files<'a>(
    gt_files: impl IntoIterator<Item = (&'a str, &'a [u8])>,
    pred_name: &str,
    pred_bytes: &[u8],
) -> Result<SwitchReport, InputErrors> {
    let files: Vec<(&str, &[u8])> = gt_files.into_iter().collect();
    let gt = match files.as_slice() {
        [(name, bytes)] => GroundTruth::from_bytes(name, bytes)?,
        _ => GroundTruth::from_files(files)?,
    };
    let predictions = predictions::read_predictions(pred_name, pred_bytes)?;
    build_report(&gt, pred_name, &predictions)
}

/// Scores video-judge outputs alone (no ground truth is needed).
pub fn score_videos(name: &str, bytes: &[u8]) -> Result<video::VideoReport, InputErrors> {
    score_videos_with(name, bytes, None)
}

/// Scores video-judge outputs with human ratings given apart (`(name,
/// bytes)` of a file [`video::read_human_judgements`] reads).
pub fn score_videos_with(
    name: &str,
    bytes: &[u8],
    human: Option<(&str, &[u8])>,
) -> Result<video::VideoReport, InputErrors> {
    let judgements = video::read_video_judgements(name, bytes)?;
    let human = match human {
        Some((n, b)) => video::read_human_judgements(n, b)?,
        None => Vec::new(),
    };
    Ok(video::aggregate_videos_with(&judgements, &human))
}

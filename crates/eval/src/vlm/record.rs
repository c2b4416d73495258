//! What a batch keeps of each finished episode, and what it reports.
//!
//! An [`EpisodeRecord`] is one line of the exported JSON Lines: the
//! trajectory's own fields (so every tool that reads trajectories reads it,
//! ignoring the rest), then which batch item it was, how it ended, the
//! model's turns, tokens and cost. An episode whose request failed for good
//! ends as `api_error`: it says nothing about the model, so the
//! [`BatchReport`] scores the other episodes and counts these apart.

use super::error::VlmError;
use serde::{Deserialize, Serialize};

use knoblab_core::bundle::Bundle;
use knoblab_core::metrics::file::EpisodeStatus;
use knoblab_core::metrics::{self, MetricsError, RunMetrics};
use knoblab_core::sim::Trajectory;

use super::model_agent::Turn;
use super::reply::Usage;

/// One finished episode of a batch: one line of the export.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EpisodeRecord {
    #[serde(flatten)]
    /// The episode's record, its fields at the line's top level.
    pub trajectory: Trajectory,
    /// The batch item's key ([`super::batch::BatchItem::key`]).
    pub item: String,
    /// How the episode ended.
    pub status: EpisodeStatus,
    /// The turns of a model agent (empty for the oracle and random agents).
    #[serde(default)]
    pub turns: Vec<Turn>,
    #[serde(default)]
    /// The tokens its requests used.
    pub usage: Usage,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Their estimated cost in dollars, when prices are given.
    pub cost: Option<f64>,
}

impl EpisodeRecord {
    /// The error that ended the episode, when it ended as `api_error`.
    pub fn api_error(&self) -> Option<&str> {
        self.turns.iter().rev().find_map(|t| t.api_error.as_deref())
    }

    /// Reads a JSON Lines file of records; every bad line is named.
    pub fn parse_lines(text: &str) -> Result<Vec<EpisodeRecord>, VlmError> {
        let mut out = Vec::new();
        let mut problems = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match knoblab_core::input::json::from_text(line) {
                Ok(r) => out.push(r),
                Err(e) => problems.push(format!("line {}: {e}", i + 1)),
            }
        }
        if problems.is_empty() {
            Ok(out)
        } else {
            Err(VlmError::RecordLines { problems })
        }
    }

    /// Records as JSON Lines, one per line, each ending in `\n`.
    pub fn to_lines<'a>(
        records: impl IntoIterator<Item = &'a EpisodeRecord>,
    ) -> Result<String, serde_json::Error> {
        let mut out = String::new();
        for r in records {
            out.push_str(&serde_json::to_string(r)?);
            out.push('\n');
        }
        Ok(out)
    }
}

/// A batch's results: the metrics of the episodes that ran to their end,
/// and the `api_error` ones counted apart.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BatchReport {
    /// Episodes scored (every status but `api_error`).
    pub scored: usize,
    /// Episodes that ended as `api_error`, not scored.
    pub api_errors: usize,
    /// The metrics of the scored episodes; none when there are none.
    pub metrics: Option<RunMetrics>,
    /// The tokens of every episode.
    pub usage: Usage,
    /// Their estimated cost in dollars, when prices are given.
    pub cost: Option<f64>,
}

impl BatchReport {
    /// Scores the records against their bundles.
    pub fn new(bundles: &[Bundle], records: &[EpisodeRecord]) -> Result<BatchReport, MetricsError> {
        let scored: Vec<Trajectory> = records
            .iter()
            .filter(|r| r.status != EpisodeStatus::ApiError)
            .map(|r| r.trajectory.clone())
            .collect();
        let metrics = if scored.is_empty() {
            None
        } else {
            Some(metrics::run(bundles, &scored)?)
        };
        let mut usage = Usage::default();
        let mut cost: Option<f64> = None;
        for r in records {
            usage.add(r.usage);
            if let Some(c) = r.cost {
                cost = Some(cost.unwrap_or(0.0) + c);
            }
        }
        Ok(BatchReport {
            scored: scored.len(),
            api_errors: records.len() - scored.len(),
            metrics,
            usage,
            cost,
        })
    }

    /// The metrics table as CSV, one header row and one row for the run:
    /// the label, episodes scored, the `api_error` count, the metrics
    /// rates first ([`knoblab_core::metrics::columns::rates_first`]), the error classes
    /// (`err:<class>` counts), tokens and cost. Percentages and numbers
    /// are written as the tables for people show them ([`knoblab_core::display`]).
    pub fn to_csv(&self, label: &str) -> String {
        let m = self.metrics.as_ref().map(|r| &r.metrics);
        let mut columns: Vec<(String, String)> = vec![
            ("run".into(), csv_field(label)),
            ("episodes".into(), self.scored.to_string()),
            ("api_error".into(), self.api_errors.to_string()),
        ];
        if let Some(m) = m {
            for c in knoblab_core::metrics::columns::rates_first() {
                columns.push((c.label.into(), c.show(m)));
            }
            for (class, count) in &m.errors {
                columns.push((format!("err:{class}"), count.to_string()));
            }
        }
        columns.push(("input_tokens".into(), self.usage.input_tokens.to_string()));
        columns.push(("output_tokens".into(), self.usage.output_tokens.to_string()));
        columns.push((
            "cost".into(),
            self.cost.map_or_else(|| "–".into(), |c| format!("{c:.4}")),
        ));
        let (header, row): (Vec<String>, Vec<String>) = columns.into_iter().unzip();
        format!("{}\n{}\n", header.join(","), row.join(","))
    }
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

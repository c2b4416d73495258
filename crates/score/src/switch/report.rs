// Over 600 lines: the report's serde types (what the page draws and --json prints, with a doc
// line per field: about half the file) and the tallies that fill them are one
// schema; the next cut is the types into a file of their own.

//! The SWITCH report: every item scored, then the paper's tables.
//!
//! Predictions are matched to items, each item is scored ([`super::extract`]
//! and [`super::mcq`] for MCQ, [`super::openqa`] and [`super::judge`] for
//! OpenQA), and the results are tallied per skill column, form and scenario.
//! The report is a plain serde value: the page draws it, the CLI prints it
//! (`--json` prints it as is).

use std::collections::{BTreeMap, BTreeSet};

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use super::dataset::{
    leaderboard_column, Gold, GroundTruth, Item, ItemKind, Skill, Split, LEADERBOARD_COLUMNS,
    SKILL_GROUPS,
};
use super::error::InputErrors;
use super::extract::{
    extract_choice, extract_from_answer, ChoiceQuestion, ParseFailure, Rule, EXTRACTOR_VERSION,
};
use super::judge::{outcome, AnswerMatch, JudgeCase, JudgeOutcome, JUDGE_PROMPT_VERSION};
use super::matching::{judged_text, match_predictions, Unmatched};
use super::mcq::{is_correct, partial_score, Mean, Tally};
use super::openqa::{score_open, OpenOutcome};
use super::predictions::{Prediction, PredictionContent};
use super::video::VideoReport;

/// One cell of an accuracy table. `accuracy` is `null` for an empty cell.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Cell {
    /// `correct / n`, in 0–1; `None` when `n` is 0.
    pub accuracy: Option<f64>,
    /// Items in the cell.
    pub n: usize,
    /// Items scored correct.
    pub correct: usize,
}

impl From<Tally> for Cell {
    fn from(t: Tally) -> Cell {
        Cell {
            accuracy: t.accuracy(),
            n: t.n,
            correct: t.correct,
        }
    }
}

/// Named cells kept in table order and written as a JSON object.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Columns<T>(pub Vec<(String, T)>);

impl<T: Serialize> Serialize for Columns<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<T> Columns<T> {
    /// The cell of a column, by name.
    pub fn get(&self, name: &str) -> Option<&T> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }
}

/// MCQ accuracy: Overall and the eight skill columns.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct McqTable {
    /// > Overall over all items (item-weighted, not the mean of columns).
    pub overall: Cell,
    /// Written beside `overall` as one entry per column (`"Task
    /// Understanding": {"accuracy", "n", "correct"}`, …).
    #[serde(flatten)]
    pub columns: Columns<Cell>,
}

/// The multi-select partial score, for analysis.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct PartialSummary {
    /// Mean of (correct picked − wrong picked) / |GT|, floored at 0.
    pub mean: Option<f64>,
    /// Exact-set accuracy over the same items.
    pub exact_accuracy: Option<f64>,
    /// Multi-select items counted.
    pub n: usize,
}

/// EM and F1 of one OpenQA cell (means over items).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct OpenCell {
    /// Mean exact match, in 0–1; `None` for an empty cell.
    pub em: Option<f64>,
    /// Mean token F1, in 0–1; `None` for an empty cell.
    pub f1: Option<f64>,
    /// OpenQA items in the cell.
    pub n: usize,
}

/// OpenQA offline scores, overall and per skill column.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct OpenTable {
    /// Mean exact match over the OpenQA items counted in Overall, in 0–1
    /// (`None` when there are none).
    pub em: Option<f64>,
    /// Mean token F1 over the same items, in 0–1 (`None` when there are none).
    pub f1: Option<f64>,
    /// OpenQA items counted in Overall.
    pub n: usize,
    /// One entry per column, beside `em` and `f1`.
    #[serde(flatten)]
    pub columns: Columns<OpenCell>,
}

/// The judge's accuracy and the paper's diagnostic breakdown.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct JudgeTable {
    /// The prompt and rubric version the replies are read against
    /// ([`JUDGE_PROMPT_VERSION`]).
    pub prompt_version: &'static str,
    /// Score-1 items over scored items (verdicts plus contamination zeros).
    pub accuracy: Option<f64>,
    /// Items with a score: verdicts plus contamination zeros (the accuracy's
    /// denominator).
    pub scored: usize,
    /// The judge's accuracy per skill column, in the paper's order.
    pub columns: Columns<Cell>,
    /// Counts of `answer_match` over verdicts, in the paper's order.
    pub answer_match: Columns<usize>,
    /// KnobLab's diagnostic: the same as shares of the verdicts only
    /// (`null` when there are none; contamination zeros and judge failures
    /// left out). Not the paper's Table 6: see `table6`.
    pub answer_match_share: Columns<Option<f64>>,
    /// Every OpenQA response in the report (the paper's Table 6 denominator).
    pub responses: usize,
    /// The paper's Table 6: shares of *all* responses, `Overall Correct`
    /// (= Exact + Paraphrase) first, then the five classes and the two
    /// kinds of response that got no class (`MC contamination`: scored 0
    /// as multiple choice without options; `No verdict`: judge failures,
    /// incomplete, not judged). The last seven sum to 1. `null` when there
    /// are no responses.
    pub table6: Columns<Option<f64>>,
    /// The counts behind `table6`, in the same order.
    pub table6_counts: Columns<usize>,
    /// Verdicts that flag an essential element as missing.
    pub essential_missing: usize,
    /// Verdicts that flag wrong extra information.
    pub wrong_extra_info: usize,
    /// Verdicts that flag the answer as too vague.
    pub too_vague: usize,
    /// Verdicts that flag a format issue.
    pub format_issue: usize,
    /// Items scored 0 because they are multiple choice without options.
    pub contamination_zero: usize,
    /// Items flagged as multiple choice that were still judged (options present).
    pub contamination_flagged: usize,
    /// Two invalid replies: neither 0 nor 1, left out of the accuracy.
    pub judge_failures: usize,
    /// One invalid reply saved and no retry.
    pub incomplete: usize,
    /// Items with no saved judge reply.
    pub not_judged: usize,
    /// Verdicts whose fields disagree (e.g. score 1 with contradiction).
    pub inconsistent: usize,
}

/// An item the extraction could not read, and what was written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParseFailureEntry {
    /// The item, as `family/form/file#id` (`action/img2txt/vqa#7`).
    pub item: String,
    /// The prediction's line, from 1.
    pub line: usize,
    /// What the prediction wrote (the raw response, or the given answer as
    /// text).
    pub written: String,
    /// Why nothing could be read, in words.
    pub message: String,
    /// The MCQ extraction's failure; `None` for an OpenQA structured answer
    /// with no readable field.
    pub failure: Option<ParseFailure>,
}

/// The MCQ result of one item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct McqResult {
    /// The gold letters, sorted (`AC`).
    pub gold: String,
    /// The extracted letters, sorted; `None` when nothing was extracted or
    /// there is no prediction.
    pub picked: Option<String>,
    /// The extraction rule that found them.
    pub rule: Option<Rule>,
    /// The piece of the reply the rule matched.
    pub matched: Option<String>,
    /// Whether the picked letters equal the gold exactly (the whole set, for
    /// multi-select).
    pub correct: bool,
    /// Multi-select only.
    pub partial: Option<f64>,
    /// Why extraction failed; `None` when it worked or there is no prediction.
    pub failure: Option<ParseFailure>,
}

/// One item's row in the drill-down.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ItemResult {
    /// The item, as `family/form/file#id` (`action/img2txt/vqa#7`).
    pub item: String,
    /// The task family (`vqa_state`, …).
    pub task_family: String,
    /// The input form (`img2txt`, …).
    pub form: String,
    /// The sequential id within its file, as text.
    pub id: String,
    /// MCQ (`vqa.json`) or OpenQA (`openqa.json`).
    pub kind: ItemKind,
    /// The dataset's `origin_qa_id`, when given.
    pub origin_qa_id: Option<String>,
    /// The paper's column name; `None` for a family outside the eight.
    pub skill: Option<&'static str>,
    /// The `scenario_family`, when given.
    pub scenario_family: Option<String>,
    /// The prediction's line, `None` when the item has no prediction.
    pub line: Option<usize>,
    /// What the prediction wrote (the raw response, or the given answer).
    pub written: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The MCQ result, for an item whose gold is letters.
    pub mcq: Option<McqResult>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The offline OpenQA scores, for any other item.
    pub openqa: Option<OpenOutcome>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The judge's outcome, for an OpenQA item when the predictions carry judge
    /// outputs.
    pub judge: Option<JudgeOutcome>,
}

/// Which tables a report is shown as.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// The paper's: skills in grouped columns, Table 6, Table 3.
    #[default]
    Paper,
    /// The leaderboard's: task × modality columns, Open / Held / Overall rows.
    Leaderboard,
}

/// A report option given a value it does not have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    /// A layout other than `paper` or `leaderboard`.
    #[error("layout {found:?}: expected paper or leaderboard")]
    Layout {
        /// The layout given.
        found: String,
    },
    /// A model access other than `open_weight` or `closed_api`.
    #[error("model_access {found:?}: expected open_weight or closed_api")]
    ModelAccess {
        /// The access given.
        found: String,
    },
}

impl Layout {
    /// Reads `paper` or `leaderboard`.
    pub fn parse(text: &str) -> Result<Layout, OptionError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "paper" => Ok(Layout::Paper),
            "leaderboard" | "board" => Ok(Layout::Leaderboard),
            _ => Err(OptionError::Layout {
                found: text.to_string(),
            }),
        }
    }
}

/// Whether a model's weights are open or it is reached through an API, as
/// the leaderboard's `model_access` writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelAccess {
    /// Reached only through a provider's API (`closed_api`).
    ClosedApi,
    /// Weights published (`open_weight`).
    OpenWeight,
}

impl ModelAccess {
    /// Reads `open_weight` or `closed_api` (also `open`, `open-weight`,
    /// `closed`, `api`, `proprietary`; any case).
    pub fn parse(text: &str) -> Result<ModelAccess, OptionError> {
        match text.trim().to_ascii_lowercase().replace('-', "_").as_str() {
            "open_weight" | "open_weights" | "open" => Ok(ModelAccess::OpenWeight),
            "closed_api" | "closed" | "api" | "proprietary" => Ok(ModelAccess::ClosedApi),
            _ => Err(OptionError::ModelAccess {
                found: text.to_string(),
            }),
        }
    }

    /// The key the leaderboard writes.
    pub fn key(self) -> &'static str {
        match self {
            ModelAccess::OpenWeight => "open_weight",
            ModelAccess::ClosedApi => "closed_api",
        }
    }

    /// The row group of the paper's Tables 1 and 2.
    pub fn group(self) -> &'static str {
        match self {
            ModelAccess::ClosedApi => "Proprietary / API models",
            ModelAccess::OpenWeight => "Open-weight models",
        }
    }
}

/// The user's choices for a report: what counts in Overall, and the model's
/// metadata for the paper's row groups and the leaderboard submission.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReportOptions {
    /// Count families outside the eight in Overall (and in the
    /// leaderboard's "All tasks" and the submission).
    pub include_extra_families: bool,
    /// The model's name (else the predictions' `model_name`/`model`, else
    /// the predictions file's name without folders and extension).
    pub model_name: Option<String>,
    /// Else the predictions' `model_access`.
    pub model_access: Option<ModelAccess>,
    /// Who submits, for the submission row (free text).
    pub submitted_by: Option<String>,
    /// When the submission was made (RFC 3339); the caller's clock.
    pub submission_time: Option<String>,
}

/// The model a report is of.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ModelInfo {
    /// The model's name: [`ReportOptions::model_name`], else the predictions'
    /// `model_name`/`model`, else the predictions file's stem.
    pub name: String,
    /// Open weights or API, when the options or the predictions say.
    pub access: Option<ModelAccess>,
    /// The paper's row group ("Open-weight models"), when the access is known.
    pub group: Option<&'static str>,
}

/// One of the paper's column groups.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ColumnGroup {
    /// The group's header (`Interface Understanding`).
    pub name: &'static str,
    /// The skill column names under it, in the paper's order.
    pub columns: Vec<&'static str>,
}

/// The paper's three column groups over the eight skills.
pub fn paper_groups() -> Vec<ColumnGroup> {
    SKILL_GROUPS
        .iter()
        .map(|g| ColumnGroup {
            name: g,
            columns: Skill::ALL
                .iter()
                .filter(|s| s.group() == *g)
                .map(|s| s.column_name())
                .collect(),
        })
        .collect()
}

/// A family outside the eight: its MCQ and OpenQA cells.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct FamilyCell {
    /// MCQ accuracy of the family's items.
    pub mcq: Cell,
    /// OpenQA EM and F1 of the family's items.
    pub openqa: OpenCell,
    /// Whether its items count in Overall ([`ReportOptions::include_extra_families`]).
    pub in_overall: bool,
}

/// The leaderboard's layout: task × modality columns, a row per split.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LeaderboardTable {
    /// The columns in order: the leaderboard's eight, then any other
    /// (task, modality) the items have, then `All tasks` (every item that
    /// counts in Overall).
    pub columns: Vec<String>,
    /// Whether any item carries a split (then the rows are `Open`, `Held`
    /// and `Overall`; else `Overall` alone).
    pub splits_known: bool,
    /// Items with no split while others have one: in `Overall` only.
    pub items_without_split: usize,
    /// MCQ accuracy: row → column → cell. `Overall` pools the items of
    /// both splits (it is not the mean of the two rows).
    pub mcq: Columns<Columns<Cell>>,
    /// OpenQA EM and F1 of all tasks, per row.
    pub openqa: Columns<OpenCell>,
}

/// An accuracy, as the submission writes it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct SubmissionAcc {
    /// MCQ accuracy, in 0–1; `None` where the split is unknown or has no item.
    pub acc: Option<f64>,
}

/// EM and F1, as the submission writes them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct SubmissionOpen {
    /// Mean exact match, in 0–1; `None` where the split is unknown or has no
    /// item.
    pub em: Option<f64>,
    /// Mean token F1, in 0–1; `None` where the split is unknown or has no item.
    pub f1: Option<f64>,
}

/// The submission's results, fractions in 0–1 (`null` where the split is
/// not known or has no item).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct SubmissionResults {
    /// MCQ accuracy over the open split (the `Open` row's `All tasks` cell).
    pub mcq_open: SubmissionAcc,
    /// MCQ accuracy over the held-out split (the leaderboard's `closed`).
    pub mcq_closed: SubmissionAcc,
    /// OpenQA EM and F1 over the open split.
    pub openqa_open: SubmissionOpen,
    /// OpenQA EM and F1 over the held-out split (the leaderboard's `closed`).
    pub openqa_closed: SubmissionOpen,
}

/// The leaderboard submission row of a scored run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Submission {
    /// The model's name, as in [`SwitchReport::model`].
    pub model_name: String,
    /// `open_weight` or `closed_api`, when known.
    pub model_access: Option<ModelAccess>,
    /// Who submits, from [`ReportOptions::submitted_by`].
    pub submitted_by: Option<String>,
    /// When, in RFC 3339, from [`ReportOptions::submission_time`].
    pub submission_time: Option<String>,
    /// The scores, fractions in 0–1.
    pub results: SubmissionResults,
}

/// Everything `knoblab score switch` reports.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SwitchReport {
    /// The MCQ extraction rules' version ([`EXTRACTOR_VERSION`]).
    pub extractor_version: &'static str,
    /// The model the predictions are of.
    pub model: ModelInfo,
    /// The paper's column groups (Tables 1 and 2).
    pub paper_groups: Vec<ColumnGroup>,
    /// MCQ accuracy, Overall and per skill column.
    pub mcq: McqTable,
    /// The multi-select items' partial score.
    pub multi_select_partial: PartialSummary,
    /// MCQ accuracy per form.
    pub by_form: Columns<Cell>,
    /// MCQ accuracy per `scenario_family` ("(none)" when absent).
    pub by_scenario: Columns<Cell>,
    /// OpenQA offline EM and F1, overall and per skill column.
    pub openqa: OpenTable,
    /// Families outside the eight, by name (MCQ and OpenQA cells).
    pub extra_families: Columns<FamilyCell>,
    /// The leaderboard's layout.
    pub leaderboard: LeaderboardTable,
    /// The leaderboard submission row.
    pub submission: Submission,
    /// Its four tracks, each with whether the predictions cover it
    /// ([`super::submission`]).
    pub submission_tracks: Vec<super::submission::TrackCoverage>,
    /// Present when the predictions carry saved judge outputs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeTable>,
    /// Items whose answer could not be read (scored wrong), in item order.
    pub parse_failures: Vec<ParseFailureEntry>,
    /// **Decision:** items with no prediction score 0 (a partial run must
    /// not look better than it is) and are listed here.
    pub missing: Vec<String>,
    /// Predictions that name no item of the ground truth (not scored).
    pub unmatched: Vec<Unmatched>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The generated-video judging table, when a file of video judge outputs is
    /// given.
    pub video: Option<VideoReport>,
    /// One row per item, in key order (the drill-down).
    pub per_item: Vec<ItemResult>,
}

/// A report is its own: so that a list of reports and a list of scored
/// runs (which hold one) are read alike.
impl AsRef<SwitchReport> for SwitchReport {
    fn as_ref(&self) -> &SwitchReport {
        self
    }
}

fn letters(set: &BTreeSet<char>) -> String {
    set.iter().collect()
}

fn written(p: &Prediction) -> String {
    match &p.content {
        PredictionContent::Response(r) => r.clone(),
        PredictionContent::Answer(Value::String(s)) => s.clone(),
        PredictionContent::Answer(v) => v.to_string(),
    }
}

fn score_mcq_item(item: &Item, p: Option<&Prediction>) -> McqResult {
    let (gold_set, multi) = match &item.gold {
        Gold::Choice(c) => (BTreeSet::from([*c]), false),
        Gold::MultiSelect(s) => (s.clone(), true),
        // Non-letter golds never reach here: vqa.json golds are letters.
        _ => (BTreeSet::new(), false),
    };
    let question = ChoiceQuestion {
        multi,
        labels: item.labels(),
        options: item.options.clone(),
    };
    let extraction = p.map(|p| match &p.content {
        PredictionContent::Response(r) => extract_choice(r, &question),
        PredictionContent::Answer(a) => extract_from_answer(a, &question),
    });
    let (picked, rule, matched, failure) = match extraction {
        Some(Ok(e)) => (Some(e.letters), Some(e.rule), Some(e.matched), None),
        Some(Err(f)) => (None, None, None, Some(f)),
        None => (None, None, None, None),
    };
    let correct = picked.as_ref().is_some_and(|s| is_correct(s, &gold_set));
    let partial = multi.then(|| picked.as_ref().map_or(0.0, |s| partial_score(s, &gold_set)));
    McqResult {
        gold: letters(&gold_set),
        picked: picked.as_ref().map(letters),
        rule,
        matched,
        correct,
        partial,
        failure,
    }
}

/// Every running total of a report: what [`build_report`] adds each scored
/// item to, and turns into the report's tables at the end.
#[derive(Debug, Default)]
struct ReportTally {
    overall: Tally,
    columns: BTreeMap<Skill, Tally>,
    by_form: BTreeMap<String, Tally>,
    by_scenario: BTreeMap<String, Tally>,
    partial: Mean,
    partial_exact: Tally,
    open_em: Mean,
    open_f1: Mean,
    open_columns: BTreeMap<Skill, (Mean, Mean)>,
    judge: JudgeTally,
    extra: BTreeMap<String, (Tally, Mean, Mean)>,
    board: BoardTally,
}

/// The leaderboard layout's running totals.
#[derive(Debug, Default)]
struct BoardTally {
    /// Column sort key → column name.
    columns: BTreeMap<(u8, String, u8), String>,
    /// (row, column) → tally; the row is a split's name or `Overall`.
    mcq: BTreeMap<(&'static str, String), Tally>,
    open: BTreeMap<&'static str, (Mean, Mean)>,
    splits_known: bool,
    without_split: usize,
}

const ALL_TASKS: &str = "All tasks";
const OVERALL_ROW: &str = "Overall";

impl BoardTally {
    fn rows(split: Option<Split>) -> impl Iterator<Item = &'static str> {
        split.map(Split::name).into_iter().chain([OVERALL_ROW])
    }

    fn add_item(&mut self, item: &Item) {
        self.splits_known |= item.split.is_some();
        self.without_split += usize::from(item.split.is_none());
    }

    fn add_mcq(&mut self, item: &Item, correct: bool, in_overall: bool) {
        self.add_item(item);
        let (key, column) = leaderboard_column(&item.key.task_family, &item.key.form);
        self.columns.insert(key, column.clone());
        for row in BoardTally::rows(item.split) {
            self.mcq
                .entry((row, column.clone()))
                .or_default()
                .add(correct);
            if in_overall {
                self.mcq
                    .entry((row, ALL_TASKS.to_string()))
                    .or_default()
                    .add(correct);
            }
        }
    }

    fn add_open(&mut self, item: &Item, result: &OpenOutcome) {
        self.add_item(item);
        for row in BoardTally::rows(item.split) {
            let cell = self.open.entry(row).or_default();
            cell.0.add(result.em);
            cell.1.add(result.f1);
        }
    }

    fn finish(self) -> LeaderboardTable {
        let mut columns: Vec<String> = LEADERBOARD_COLUMNS.iter().map(|c| c.to_string()).collect();
        for c in self.columns.into_values() {
            if !columns.contains(&c) {
                columns.push(c);
            }
        }
        columns.push(ALL_TASKS.to_string());
        let rows: Vec<&'static str> = if self.splits_known {
            Split::ALL
                .iter()
                .map(|s| s.name())
                .chain([OVERALL_ROW])
                .collect()
        } else {
            vec![OVERALL_ROW]
        };
        let mcq = Columns(
            rows.iter()
                .map(|row| {
                    let cells = columns
                        .iter()
                        .map(|c| {
                            let t = self
                                .mcq
                                .get(&(*row, c.clone()))
                                .copied()
                                .unwrap_or_default();
                            (c.clone(), Cell::from(t))
                        })
                        .collect();
                    (row.to_string(), Columns(cells))
                })
                .collect(),
        );
        let openqa = Columns(
            rows.iter()
                .map(|row| {
                    let (em, f1) = self.open.get(row).copied().unwrap_or_default();
                    (
                        row.to_string(),
                        OpenCell {
                            em: em.value(),
                            f1: f1.value(),
                            n: em.n,
                        },
                    )
                })
                .collect(),
        );
        LeaderboardTable {
            columns,
            splits_known: self.splits_known,
            items_without_split: if self.splits_known {
                self.without_split
            } else {
                0
            },
            mcq,
            openqa,
        }
    }
}

/// The judge's running totals: its accuracy, per column, and the
/// diagnostic counts.
#[derive(Debug, Default)]
struct JudgeTally {
    counts: JudgeTable,
    scored: Tally,
    columns: BTreeMap<Skill, Tally>,
    matches: BTreeMap<AnswerMatch, usize>,
}

impl ReportTally {
    /// Counts one MCQ item.
    fn add_mcq(&mut self, item: &Item, skill: Option<Skill>, result: &McqResult) {
        self.overall.add(result.correct);
        if let Some(s) = skill {
            self.columns.entry(s).or_default().add(result.correct);
        }
        self.by_form
            .entry(item.key.form.clone())
            .or_default()
            .add(result.correct);
        self.by_scenario
            .entry(
                item.scenario_family
                    .clone()
                    .unwrap_or_else(|| "(none)".into()),
            )
            .or_default()
            .add(result.correct);
        if let Some(ps) = result.partial {
            self.partial.add(ps);
            self.partial_exact.add(result.correct);
        }
    }

    /// Counts one OpenQA item's offline scores.
    fn add_open(&mut self, skill: Option<Skill>, result: &OpenOutcome) {
        self.open_em.add(result.em);
        self.open_f1.add(result.f1);
        if let Some(s) = skill {
            let cell = self.open_columns.entry(s).or_default();
            cell.0.add(result.em);
            cell.1.add(result.f1);
        }
    }

    /// Writes the tables into `report` (the judge's only when `judging`).
    fn finish(self, report: &mut SwitchReport, judging: bool) {
        report.mcq = McqTable {
            overall: self.overall.into(),
            columns: skill_columns(&self.columns, |t| Cell::from(*t), Cell::default()),
        };
        report.multi_select_partial = PartialSummary {
            mean: self.partial.value(),
            exact_accuracy: self.partial_exact.accuracy(),
            n: self.partial.n,
        };
        report.by_form = Columns(
            self.by_form
                .into_iter()
                .map(|(k, t)| (k, t.into()))
                .collect(),
        );
        report.by_scenario = Columns(
            self.by_scenario
                .into_iter()
                .map(|(k, t)| (k, t.into()))
                .collect(),
        );
        let open_cell = |(em, f1): &(Mean, Mean)| OpenCell {
            em: em.value(),
            f1: f1.value(),
            n: em.n,
        };
        report.openqa = OpenTable {
            em: self.open_em.value(),
            f1: self.open_f1.value(),
            n: self.open_em.n,
            columns: skill_columns(&self.open_columns, open_cell, OpenCell::default()),
        };
        if judging {
            report.judge = Some(self.judge.finish());
        }
        report.extra_families = Columns(
            self.extra
                .into_iter()
                .map(|(family, (t, em, f1))| {
                    (
                        family,
                        FamilyCell {
                            mcq: t.into(),
                            openqa: OpenCell {
                                em: em.value(),
                                f1: f1.value(),
                                n: em.n,
                            },
                            in_overall: false,
                        },
                    )
                })
                .collect(),
        );
        report.leaderboard = self.board.finish();
    }
}

impl JudgeTally {
    /// Counts one judge outcome.
    fn add(&mut self, skill: Option<Skill>, o: &JudgeOutcome) {
        let judge = &mut self.counts;
        match o {
            JudgeOutcome::MultipleChoiceContamination { .. } => judge.contamination_zero += 1,
            JudgeOutcome::Judged {
                verdict,
                multiple_choice_contamination,
                ..
            } => {
                *self.matches.entry(verdict.answer_match).or_default() += 1;
                judge.essential_missing += usize::from(verdict.essential_missing);
                judge.wrong_extra_info += usize::from(verdict.wrong_extra_info);
                judge.too_vague += usize::from(verdict.too_vague);
                judge.format_issue += usize::from(verdict.format_issue);
                judge.contamination_flagged += usize::from(*multiple_choice_contamination);
                judge.inconsistent += usize::from(!verdict.warnings.is_empty());
            }
            JudgeOutcome::Failed { .. } => judge.judge_failures += 1,
            JudgeOutcome::Incomplete { .. } => judge.incomplete += 1,
            JudgeOutcome::NotJudged => judge.not_judged += 1,
        }
        if let Some(score) = o.score() {
            self.scored.add(score == 1);
            if let Some(s) = skill {
                self.columns.entry(s).or_default().add(score == 1);
            }
        }
    }

    fn finish(self) -> JudgeTable {
        let mut judge = JudgeTable {
            prompt_version: JUDGE_PROMPT_VERSION,
            ..self.counts
        };
        judge.accuracy = self.scored.accuracy();
        judge.scored = self.scored.n;
        judge.columns = skill_columns(&self.columns, |t| Cell::from(*t), Cell::default());
        judge.answer_match = Columns(
            AnswerMatch::ALL
                .iter()
                .map(|m| {
                    (
                        m.name().to_string(),
                        self.matches.get(m).copied().unwrap_or(0),
                    )
                })
                .collect(),
        );
        let verdicts: usize = self.matches.values().sum();
        judge.answer_match_share = Columns(
            judge
                .answer_match
                .0
                .iter()
                .map(|(k, n)| {
                    (
                        k.clone(),
                        (verdicts > 0).then(|| *n as f64 / verdicts as f64),
                    )
                })
                .collect(),
        );
        let count = |m: AnswerMatch| self.matches.get(&m).copied().unwrap_or(0);
        let no_verdict = judge.judge_failures + judge.incomplete + judge.not_judged;
        let counts = [
            (
                "Overall Correct",
                count(AnswerMatch::Exact) + count(AnswerMatch::Paraphrase),
            ),
            ("Exact", count(AnswerMatch::Exact)),
            ("Paraphrase", count(AnswerMatch::Paraphrase)),
            ("Partial", count(AnswerMatch::Partial)),
            ("Contradiction", count(AnswerMatch::Contradiction)),
            ("Complete Miss", count(AnswerMatch::CompleteMiss)),
            ("MC contamination", judge.contamination_zero),
            ("No verdict", no_verdict),
        ];
        let responses = verdicts + judge.contamination_zero + no_verdict;
        judge.responses = responses;
        judge.table6_counts = Columns(counts.iter().map(|(k, n)| (k.to_string(), *n)).collect());
        judge.table6 = Columns(
            counts
                .iter()
                .map(|(k, n)| {
                    (
                        k.to_string(),
                        (responses > 0).then(|| *n as f64 / responses as f64),
                    )
                })
                .collect(),
        );
        judge
    }
}

/// Scores predictions against the ground truth, with the default options.
///
/// `pred_file` names the predictions in error messages.
pub fn build_report(
    gt: &GroundTruth,
    pred_file: &str,
    predictions: &[Prediction],
) -> Result<SwitchReport, InputErrors> {
    build_report_with(gt, pred_file, predictions, &ReportOptions::default())
}

/// The model's name and access from the options, else the predictions.
fn model_info(pred_file: &str, predictions: &[Prediction], options: &ReportOptions) -> ModelInfo {
    let name = options
        .model_name
        .clone()
        .filter(|n| !n.trim().is_empty())
        .or_else(|| predictions.iter().find_map(|p| p.model.clone()))
        .unwrap_or_else(|| {
            let base = pred_file.rsplit(['/', '\\']).next().unwrap_or(pred_file);
            base.split('.').next().unwrap_or(base).to_string()
        });
    let access = options.model_access.or_else(|| {
        predictions
            .iter()
            .find_map(|p| p.model_access.as_deref())
            .and_then(|a| ModelAccess::parse(a).ok())
    });
    ModelInfo {
        name,
        access,
        group: access.map(ModelAccess::group),
    }
}

/// [`build_report`] with the user's options: what counts in Overall and
/// the model's metadata.
pub fn build_report_with(
    gt: &GroundTruth,
    pred_file: &str,
    predictions: &[Prediction],
    options: &ReportOptions,
) -> Result<SwitchReport, InputErrors> {
    let (assigned, unmatched) = match_predictions(gt, pred_file, predictions)?;
    let judging = predictions.iter().any(|p| p.judge.is_some());
    let mut tally = ReportTally::default();
    let mut tracks = super::submission::TrackTally::default();
    let mut report = SwitchReport {
        extractor_version: EXTRACTOR_VERSION,
        model: model_info(pred_file, predictions, options),
        paper_groups: paper_groups(),
        unmatched,
        ..SwitchReport::default()
    };

    for (item, p) in gt.items.iter().zip(assigned) {
        let skill = item.skill();
        // **Decision:** an item of a family outside the eight is scored and
        // reported under its family; it counts in Overall (and every table
        // that follows Overall: by form, by scenario, the judge) only when
        // the user asks.
        let in_overall = skill.is_some() || options.include_extra_families;
        let mut row = ItemResult {
            item: item.key.to_string(),
            task_family: item.key.task_family.clone(),
            form: item.key.form.clone(),
            id: item.key.id.clone(),
            kind: item.key.kind,
            origin_qa_id: item.origin_qa_id.clone(),
            skill: skill.map(Skill::column_name),
            scenario_family: item.scenario_family.clone(),
            line: p.map(|p| p.line),
            written: p.map(written),
            mcq: None,
            openqa: None,
            judge: None,
        };
        if p.is_none() {
            report.missing.push(row.item.clone());
        }
        // Scoring follows the gold: letters are MCQ (a vqa.json item with a
        // structured_short_answer schema is scored as an open answer).
        match item.gold {
            Gold::Choice(_) | Gold::MultiSelect(_) => {
                let result = score_mcq_item(item, p);
                if in_overall {
                    tally.add_mcq(item, skill, &result);
                }
                if skill.is_none() {
                    let cell = tally.extra.entry(item.key.task_family.clone()).or_default();
                    cell.0.add(result.correct);
                }
                tally.board.add_mcq(item, result.correct, in_overall);
                if in_overall {
                    tracks.add(item, true, p.is_some());
                }
                if let (Some(f), Some(p)) = (&result.failure, p) {
                    report.parse_failures.push(ParseFailureEntry {
                        item: row.item.clone(),
                        line: p.line,
                        written: written(p),
                        message: f.message(),
                        failure: Some(f.clone()),
                    });
                }
                row.mcq = Some(result);
            }
            _ => {
                let (reply, provided) = match p.map(|p| &p.content) {
                    Some(PredictionContent::Response(r)) => (Some(r.as_str()), None),
                    Some(PredictionContent::Answer(a)) => (None, Some(a)),
                    None => (None, None),
                };
                let result = if p.is_some() {
                    score_open(item, reply, provided)
                } else {
                    OpenOutcome {
                        em: 0.0,
                        f1: 0.0,
                        rule: super::openqa::OpenRule::Whole,
                        scored: Value::Null,
                        fields: Vec::new(),
                        unreadable: false,
                    }
                };
                if in_overall {
                    tally.add_open(skill, &result);
                    tally.board.add_open(item, &result);
                    tracks.add(item, false, p.is_some());
                }
                if skill.is_none() {
                    let cell = tally.extra.entry(item.key.task_family.clone()).or_default();
                    cell.1.add(result.em);
                    cell.2.add(result.f1);
                }
                if let (true, Some(p)) = (result.unreadable, p) {
                    report.parse_failures.push(ParseFailureEntry {
                        item: row.item.clone(),
                        line: p.line,
                        written: written(p),
                        message: "no structured fields could be read (expected a JSON object or \"field: value\" lines)".into(),
                        failure: None,
                    });
                }
                if judging {
                    let case = JudgeCase::new(item, &p.map(judged_text).unwrap_or_default());
                    let replies = p
                        .and_then(|p| p.judge.as_ref())
                        .map(|j| j.attempts.as_slice());
                    let o = outcome(&case, replies);
                    if in_overall {
                        tally.judge.add(skill, &o);
                    }
                    row.judge = Some(o);
                }
                row.openqa = Some(result);
            }
        }
        report.per_item.push(row);
    }
    tally.finish(&mut report, judging);
    for (_, cell) in report.extra_families.0.iter_mut() {
        cell.in_overall = options.include_extra_families;
    }
    report.submission = submission(&report, options);
    report.submission_tracks = tracks.finish();
    Ok(report)
}

/// The leaderboard submission row of a report: the `All tasks` cells of
/// the `Open` and `Held` rows (`Held` is the leaderboard's `closed`).
fn submission(report: &SwitchReport, options: &ReportOptions) -> Submission {
    let board = &report.leaderboard;
    let acc = |split: Split| SubmissionAcc {
        acc: board
            .mcq
            .get(split.name())
            .and_then(|row| row.get(ALL_TASKS))
            .and_then(|c| c.accuracy),
    };
    let open = |split: Split| {
        let cell = board.openqa.get(split.name()).copied().unwrap_or_default();
        SubmissionOpen {
            em: cell.em,
            f1: cell.f1,
        }
    };
    Submission {
        model_name: report.model.name.clone(),
        model_access: report.model.access,
        submitted_by: options.submitted_by.clone(),
        submission_time: options.submission_time.clone(),
        results: SubmissionResults {
            mcq_open: acc(Split::Open),
            mcq_closed: acc(Split::Held),
            openqa_open: open(Split::Open),
            openqa_closed: open(Split::Held),
        },
    }
}

/// The eight columns in the paper's order, empty ones included.
fn skill_columns<A, T>(
    cells: &BTreeMap<Skill, A>,
    convert: impl Fn(&A) -> T,
    empty: T,
) -> Columns<T>
where
    T: Clone,
{
    Columns(
        Skill::ALL
            .iter()
            .map(|s| {
                let cell = cells.get(s).map(&convert).unwrap_or_else(|| empty.clone());
                (s.column_name().to_string(), cell)
            })
            .collect(),
    )
}

/// Seconds since 1970 as an RFC 3339 UTC time (`2026-12-01T08:30:00Z`), for
/// a submission's time.
///
/// ```
/// use knoblab_score::switch::report::rfc3339_utc;
/// assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00Z");
/// assert_eq!(rfc3339_utc(1_796_113_800), "2026-12-01T08:30:00Z");
/// ```
pub fn rfc3339_utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Days to a civil date (the proleptic Gregorian calendar).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

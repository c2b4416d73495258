//! The SWITCH report: every item scored, then the paper's tables.
//!
//! Predictions are matched to items, each item is scored ([`super::extract`]
//! and [`super::mcq`] for MCQ, [`super::openqa`] and [`super::judge`] for
//! OpenQA), and the results are tallied per skill column, form and scenario.
//! The report is a plain serde value: the page draws it, the CLI prints it
//! (`--json` prints it as is).

use std::collections::{BTreeMap, BTreeSet};

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;

use super::dataset::{Gold, GroundTruth, Item, ItemKind, Skill};
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
    pub accuracy: Option<f64>,
    pub n: usize,
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
    pub n: usize,
}

/// EM and F1 of one OpenQA cell (means over items).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct OpenCell {
    pub em: Option<f64>,
    pub f1: Option<f64>,
    pub n: usize,
}

/// OpenQA offline scores, overall and per skill column.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct OpenTable {
    pub em: Option<f64>,
    pub f1: Option<f64>,
    pub n: usize,
    /// One entry per column, beside `em` and `f1`.
    #[serde(flatten)]
    pub columns: Columns<OpenCell>,
}

/// The judge's accuracy and the paper's diagnostic breakdown.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct JudgeTable {
    pub prompt_version: &'static str,
    /// Score-1 items over scored items (verdicts plus contamination zeros).
    pub accuracy: Option<f64>,
    pub scored: usize,
    pub columns: Columns<Cell>,
    /// Counts of `answer_match` over verdicts, in the paper's order.
    pub answer_match: Columns<usize>,
    /// The same as shares of the verdicts (`null` when there are none), as
    /// the paper's diagnostic table gives them.
    pub answer_match_share: Columns<Option<f64>>,
    pub essential_missing: usize,
    pub wrong_extra_info: usize,
    pub too_vague: usize,
    pub format_issue: usize,
    /// Items scored 0 because they are multiple choice without options.
    pub contamination_zero: usize,
    /// Items flagged as multiple choice that were still judged (options present).
    pub contamination_flagged: usize,
    /// Two invalid replies: neither 0 nor 1, left out of the accuracy.
    pub judge_failures: usize,
    /// One invalid reply saved and no retry.
    pub incomplete: usize,
    pub not_judged: usize,
    /// Verdicts whose fields disagree (e.g. score 1 with contradiction).
    pub inconsistent: usize,
}

/// An item the extraction could not read, and what was written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParseFailureEntry {
    pub item: String,
    pub line: usize,
    pub written: String,
    pub message: String,
    pub failure: Option<ParseFailure>,
}

/// The MCQ result of one item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct McqResult {
    pub gold: String,
    pub picked: Option<String>,
    pub rule: Option<Rule>,
    pub matched: Option<String>,
    pub correct: bool,
    /// Multi-select only.
    pub partial: Option<f64>,
    pub failure: Option<ParseFailure>,
}

/// One item's row in the drill-down.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ItemResult {
    pub item: String,
    pub task_family: String,
    pub form: String,
    pub id: String,
    pub kind: ItemKind,
    pub origin_qa_id: Option<String>,
    pub skill: Option<&'static str>,
    pub scenario_family: Option<String>,
    /// The prediction's line, `None` when the item has no prediction.
    pub line: Option<usize>,
    /// What the prediction wrote (the raw response, or the given answer).
    pub written: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mcq: Option<McqResult>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub openqa: Option<OpenOutcome>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeOutcome>,
}

/// Everything `knoblab score switch` reports.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SwitchReport {
    pub extractor_version: &'static str,
    pub mcq: McqTable,
    pub multi_select_partial: PartialSummary,
    /// MCQ accuracy per form.
    pub by_form: Columns<Cell>,
    /// MCQ accuracy per `scenario_family` ("(none)" when absent).
    pub by_scenario: Columns<Cell>,
    pub openqa: OpenTable,
    /// Present when the predictions carry saved judge outputs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeTable>,
    pub parse_failures: Vec<ParseFailureEntry>,
    /// **Decision:** items with no prediction score 0 (a partial run must
    /// not look better than it is) and are listed here.
    pub missing: Vec<String>,
    pub unmatched: Vec<Unmatched>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub video: Option<VideoReport>,
    pub per_item: Vec<ItemResult>,
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
        judge
    }
}

/// Scores predictions against the ground truth.
///
/// `pred_file` names the predictions in error messages.
pub fn build_report(
    gt: &GroundTruth,
    pred_file: &str,
    predictions: &[Prediction],
) -> Result<SwitchReport, InputErrors> {
    let (assigned, unmatched) = match_predictions(gt, pred_file, predictions)?;
    let judging = predictions.iter().any(|p| p.judge.is_some());
    let mut tally = ReportTally::default();
    let mut report = SwitchReport {
        extractor_version: EXTRACTOR_VERSION,
        unmatched,
        ..SwitchReport::default()
    };

    for (item, p) in gt.items.iter().zip(assigned) {
        let skill = item.skill();
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
                tally.add_mcq(item, skill, &result);
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
                tally.add_open(skill, &result);
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
                    tally.judge.add(skill, &o);
                    row.judge = Some(o);
                }
                row.openqa = Some(result);
            }
        }
        report.per_item.push(row);
    }
    tally.finish(&mut report, judging);
    Ok(report)
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

//! Scoring one query the official way, `run_single_evaluation` as the
//! benchmark calls it (spec §3, §6): LOCATE and INTERACT are separate calls
//! that share only the image and the boxes.

use serde::Serialize;
use serde_json::Value;

use super::boxes::{evaluate_location_accuracy, BoxError};
use super::loader::Instance;
use super::parser::{parse_reply, parse_value, ParseRule, ParsedReply, ParserBuild};
use super::prompt::hint_text;
use super::python::truthy;

/// A model's reply to one query, as a predictions file gives it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Reply {
    /// The raw reply text (parsed by the official parser).
    Text(String),
    /// A reply that is not a string (spec §5.1).
    Json(Value),
    /// A point already in 0–1 (`p0`/`p1` inputs), or `None` for no point.
    Point(Option<[f64; 2]>),
}

/// LOCATE or INTERACT.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum QueryKind {
    /// The LOCATE query: point at the component.
    Locate,
    /// The INTERACT query: point where acting reaches the target state.
    Interact,
}

/// The settings that change official numbers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OfficialOptions {
    /// The configured model key; the parser's unit rules test it by substring.
    pub model: Option<String>,
    /// Which build of the official reply parser (`py` or `pyc`).
    pub parser: ParserBuild,
    /// A detector was configured, so the ground-truth box hint is appended to
    /// both prompts (spec §9.1).
    pub vda: bool,
}

/// Why a query dropped out of the denominators.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "stage", content = "error", rename_all = "snake_case")]
pub enum Raise {
    /// Formatting B_loc for the VDA hint raised before the model was called.
    Hint(String),
    /// The box test raised (a non-numeric value it reached).
    BoxTest(String),
    /// The query was sent but the results file holds no result for it.
    NoReply,
}

impl Raise {
    /// The Python exception text.
    pub fn message(&self) -> String {
        match self {
            Self::Hint(e) | Self::BoxTest(e) => e.clone(),
            Self::NoReply => "no result recorded for this query".to_string(),
        }
    }
}

/// The official result of one query.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum QueryOutcome {
    /// The instruction is empty or missing: no query, no denominator.
    NotSent,
    /// An exception: the `*_results` entry is null and the query drops out
    /// of the denominators (spec §6.4).
    Raised(Raise),
    /// Scored: `hit` is `accuracy` (LOCATE) or `target_accuracy` (INTERACT).
    Scored {
        /// The point read from the reply, if any.
        point: Option<[f64; 2]>,
        /// Which of the parser's rules read it.
        rule: ParseRule,
        /// 1 when the point is in the query's box, else 0.
        hit: u8,
        /// 1 when the point is state-aware by spec §6.2, else 0.
        state_awareness: u8,
    },
}

impl QueryOutcome {
    /// Whether the query counts in the denominators (it was scored).
    pub fn counted(&self) -> bool {
        matches!(self, Self::Scored { .. })
    }

    /// Whether it was scored a hit.
    pub fn hit(&self) -> bool {
        matches!(self, Self::Scored { hit, .. } if *hit > 0)
    }

    /// Whether it was scored state-aware.
    pub fn state(&self) -> bool {
        matches!(self, Self::Scored { state_awareness, .. } if *state_awareness > 0)
    }

    /// The point read from the reply, when scored.
    pub fn point(&self) -> Option<[f64; 2]> {
        match self {
            Self::Scored { point, .. } => *point,
            _ => None,
        }
    }
}

/// The official parse of a reply, or the given point.
pub fn official_point(
    reply: &Reply,
    options: &OfficialOptions,
) -> (Option<[f64; 2]>, ParseRule, Option<ParsedReply>) {
    let model = options.model.as_deref();
    let parsed = match reply {
        Reply::Text(text) => parse_reply(text, model, options.parser),
        Reply::Json(value) => parse_value(value, model, options.parser),
        Reply::Point(p) => return (*p, ParseRule::None, None),
    };
    (parsed.coordinates, parsed.rule, Some(parsed))
}

/// Spec §6.2: LOCATE flags.
///
/// ```text
/// if p0 parsed and B_loc truthy:
///     accuracy        = [p0 in B_loc]
///     state_awareness = [p0 in B_now] if B_now truthy else [p0 in B_loc]
/// ```
pub fn locate_flags(
    point: Option<[f64; 2]>,
    bbox: &Value,
    now: &Value,
) -> Result<(u8, u8), BoxError> {
    if point.is_none() || !truthy(bbox) {
        return Ok((0, 0));
    }
    let accuracy = evaluate_location_accuracy(point, bbox)?;
    let state = if truthy(now) {
        evaluate_location_accuracy(point, now)?
    } else {
        evaluate_location_accuracy(point, bbox)?
    };
    Ok((accuracy, state))
}

/// Spec §6.3: INTERACT flags, gated on B_loc (Q2); the same test feeds both
/// flags, so "ES-SR@Int always equals SR@Int" (Q1); an empty B_tgt falls back
/// to B_loc (Q3).
pub fn interact_flags(
    point: Option<[f64; 2]>,
    bbox: &Value,
    target: &Value,
) -> Result<(u8, u8), BoxError> {
    if point.is_none() || !truthy(bbox) {
        return Ok((0, 0));
    }
    let used = if truthy(target) { target } else { bbox };
    let target_accuracy = evaluate_location_accuracy(point, used)?;
    let state = evaluate_location_accuracy(point, used)?;
    Ok((target_accuracy, state))
}

/// Whether building the VDA hint for this instance raises (spec §4: "If a
/// value is a string or null, formatting raises an exception. This kills
/// the whole query").
pub fn hint_error(instance: &Instance, instruction: &Value) -> Option<String> {
    let already = instruction
        .as_str()
        .is_some_and(|s| s.contains("COMPONENT INFORMATION:"));
    if already || !truthy(&instance.bbox) {
        return None;
    }
    hint_text(&instance.bbox).err().map(|e| e.to_string())
}

/// One query of one instance, the official way.
pub fn evaluate_query(
    instance: &Instance,
    kind: QueryKind,
    reply: Option<&Reply>,
    options: &OfficialOptions,
) -> QueryOutcome {
    let instruction = match kind {
        QueryKind::Locate => &instance.locate,
        QueryKind::Interact => &instance.interact,
    };
    if !truthy(instruction) {
        return QueryOutcome::NotSent;
    }
    if options.vda {
        if let Some(error) = hint_error(instance, instruction) {
            return QueryOutcome::Raised(Raise::Hint(error));
        }
    }
    let Some(reply) = reply else {
        return QueryOutcome::Raised(Raise::NoReply);
    };
    let (point, rule, _) = official_point(reply, options);
    let flags = match kind {
        QueryKind::Locate => locate_flags(point, &instance.bbox, &instance.now),
        QueryKind::Interact => interact_flags(point, &instance.bbox, &instance.target),
    };
    match flags {
        Ok((hit, state_awareness)) => QueryOutcome::Scored {
            point,
            rule,
            hit,
            state_awareness,
        },
        Err(e) => QueryOutcome::Raised(Raise::BoxTest(e.to_string())),
    }
}

/// The `error` the official result object carries: the LOCATE query's
/// exception, or the INTERACT one's when no LOCATE query was sent (that is
/// how `_process_single_test_case` merges the two calls).
pub fn evaluation_error(locate: &QueryOutcome, interact: &QueryOutcome) -> Option<String> {
    let first = if matches!(locate, QueryOutcome::NotSent) {
        interact
    } else {
        locate
    };
    match first {
        QueryOutcome::Raised(r) => Some(r.message()),
        _ => None,
    }
}

//! Scoring a run: matching predictions to instances, both modes per query,
//! the per-platform tallies, the plain mean over platforms, the breakdowns
//! by family and component type, the VDA delta, and the report's JSON.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use serde_json::Value;

use super::corrected::{evaluate_corrected, Convention, CorrectedOutcome};
use super::evaluate::{
    evaluate_query, evaluation_error, OfficialOptions, QueryKind, QueryOutcome, Reply,
};
use super::loader::{Dataset, Instance, Platform};
use super::metrics::{Rates, Tally};
use super::predictions::{Prediction, PredictionProblem, PredictionSet};
use super::python::stem;

/// Everything that changes the numbers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoreOptions {
    /// The settings of the official mode.
    pub official: OfficialOptions,
    /// The coordinate convention of the corrected parser.
    pub convention: Convention,
}

/// Both modes' results for one query.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueryResult {
    /// The model's reply, when one is recorded.
    pub reply: Option<Reply>,
    /// What the official code scores it.
    pub official: QueryOutcome,
    /// What the corrected rules score it.
    pub corrected: CorrectedOutcome,
    /// Why the two modes disagree on this query, in words (empty if they
    /// agree on counting and on both flags).
    pub differences: Vec<String>,
}

/// One scored instance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InstanceResult {
    /// The ground truth.
    pub instance: Instance,
    /// The LOCATE query.
    pub locate: QueryResult,
    /// The INTERACT query.
    pub interact: QueryResult,
    /// The official result object's `error` (see [`evaluation_error`]).
    pub evaluation_error: Option<String>,
}

/// An instance that is not in the scores, with the reason.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkipEntry {
    /// The platform.
    pub platform: Platform,
    /// The file (and line) it comes from.
    pub source: String,
    /// The official index it used up, if any.
    pub index: Option<usize>,
    /// Its image, when known.
    pub image: Option<String>,
    /// The reason's code (`image_not_found`).
    pub code: String,
    /// The reason in words.
    pub message: String,
}

/// One platform's counts in both modes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PlatformScores {
    /// The platform.
    pub platform: Platform,
    /// Its counts in the official mode.
    pub official: Tally,
    /// Its counts in the corrected mode.
    pub corrected: Tally,
}

/// A breakdown row: one platform × one group (family or component type).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupScores {
    /// The platform.
    pub platform: Platform,
    /// The family or component type.
    pub group: String,
    /// Its counts in the official mode.
    pub official: Tally,
    /// Its counts in the corrected mode.
    pub corrected: Tally,
}

/// The whole report of one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// What the numbers were computed with.
    pub options: ScoreOptions,
    /// Platforms with at least one scored instance, in desktop, web, mobile
    /// order.
    pub platforms: Vec<PlatformScores>,
    /// The mean of the platforms' official rates.
    pub mean_official: Rates,
    /// The mean of the platforms' corrected rates.
    pub mean_corrected: Rates,
    /// Per platform and interaction family.
    pub by_family: Vec<GroupScores>,
    /// Per platform and component type.
    pub by_component_type: Vec<GroupScores>,
    /// Every scored instance.
    pub per_instance: Vec<InstanceResult>,
    /// The ground truth's instances that are not scored, with why.
    pub skipped: Vec<SkipEntry>,
    /// The predictions that could not be used.
    pub prediction_problems: Vec<PredictionProblem>,
}

fn describe_official(o: &QueryOutcome) -> String {
    match o {
        QueryOutcome::NotSent => "not sent".into(),
        QueryOutcome::Raised(r) => format!("dropped from the denominator ({})", r.message()),
        QueryOutcome::Scored { point: None, .. } => "no point parsed".into(),
        QueryOutcome::Scored { point: Some(p), .. } => format!("point ({}, {})", p[0], p[1]),
    }
}

/// Why official and corrected disagree on one query.
fn differences(
    kind: QueryKind,
    official: &QueryOutcome,
    corrected: &CorrectedOutcome,
) -> Vec<String> {
    let mut out = Vec::new();
    if official.counted() != corrected.counted() {
        out.push(if official.counted() {
            format!(
                "counted officially ({}) but not in corrected mode (no reply to score)",
                describe_official(official)
            )
        } else {
            format!(
                "officially {}; corrected mode counts it",
                describe_official(official)
            )
        });
        return out;
    }
    let CorrectedOutcome::Scored { point, notes, .. } = corrected else {
        return out;
    };
    let flags_differ =
        official.hit() != corrected.hit() || official.state() != corrected.exact_state();
    if !flags_differ {
        return out;
    }
    if official.point() != *point {
        let c = match point {
            Some(p) => format!("({}, {})", p[0], p[1]),
            None => format!("no point ({})", notes.join("; ")),
        };
        out.push(format!(
            "official parser: {}; corrected parser: {c}",
            describe_official(official)
        ));
    }
    if official.hit() != corrected.hit() {
        out.push(match kind {
            QueryKind::Locate => "SR@Loc differs: corrected also counts a point on the current-state box as on the component".into(),
            QueryKind::Interact => "SR@Int differs: officially p1 is tested against B_tgt only (gated on B_loc); corrected tests B_loc or B_tgt".into(),
        });
    }
    if official.state() != corrected.exact_state() {
        out.push(match kind {
            QueryKind::Locate => "ES-SR@Loc differs: officially p0 in B_now alone (or B_loc when B_now is empty); corrected needs p0 in B_now".into(),
            QueryKind::Interact => "ES-SR@Int differs: officially it is the same test as SR@Int".into(),
        });
    }
    out
}

fn tally_of<'a>(results: impl Iterator<Item = &'a InstanceResult>) -> (Tally, Tally) {
    let mut official = Tally::default();
    let mut corrected = Tally::default();
    for r in results {
        official.total_cases += 1;
        corrected.total_cases += 1;
        let (l, i) = (&r.locate.official, &r.interact.official);
        official.valid_locate_cases += usize::from(l.counted());
        official.valid_interact_cases += usize::from(i.counted());
        official.locate_success += usize::from(l.hit());
        official.state_awareness_locate += usize::from(l.state());
        official.interaction_success += usize::from(i.hit());
        official.state_awareness_interaction += usize::from(i.state());
        let (l, i) = (&r.locate.corrected, &r.interact.corrected);
        corrected.valid_locate_cases += usize::from(l.counted());
        corrected.valid_interact_cases += usize::from(i.counted());
        corrected.locate_success += usize::from(l.hit());
        corrected.state_awareness_locate += usize::from(l.exact_state());
        corrected.interaction_success += usize::from(i.hit());
        corrected.state_awareness_interaction += usize::from(i.exact_state());
    }
    (official, corrected)
}

/// Finds each instance's prediction: by the annotation's image field, by the
/// resolved image path, then by file stem when the stem is unique.
struct Matcher<'d> {
    exact: HashMap<(Platform, String), usize>,
    stems: HashMap<(Platform, String), Vec<usize>>,
    instances: &'d [Instance],
}

impl<'d> Matcher<'d> {
    fn new(instances: &'d [Instance]) -> Self {
        let mut exact = HashMap::new();
        let mut stems: HashMap<(Platform, String), Vec<usize>> = HashMap::new();
        for (n, i) in instances.iter().enumerate() {
            exact
                .entry((i.platform, i.image_field.clone()))
                .or_insert(n);
            exact
                .entry((i.platform, i.image_field.replace('\\', "/")))
                .or_insert(n);
            exact.entry((i.platform, i.image_path.clone())).or_insert(n);
            stems
                .entry((i.platform, i.key.clone()))
                .or_default()
                .push(n);
        }
        Self {
            exact,
            stems,
            instances,
        }
    }

    fn find(&self, p: &Prediction) -> Result<usize, MatchError> {
        let platforms: Vec<Platform> = match p.platform {
            Some(pl) => vec![pl],
            None => Platform::ALL.to_vec(),
        };
        let image = p.image.replace('\\', "/");
        for pl in &platforms {
            for key in [&p.image, &image] {
                if let Some(&n) = self.exact.get(&(*pl, key.clone())) {
                    return Ok(n);
                }
            }
        }
        let s = stem(&image).to_string();
        let mut found: Vec<usize> = Vec::new();
        for pl in &platforms {
            if let Some(ns) = self.stems.get(&(*pl, s.clone())) {
                found.extend(ns);
            }
        }
        match found.as_slice() {
            [n] => Ok(*n),
            [] => Err(MatchError::NoInstance {
                image: p.image.clone(),
            }),
            many => Err(MatchError::Ambiguous {
                image: p.image.clone(),
                paths: many
                    .iter()
                    .map(|&n| self.instances[n].image_path.clone())
                    .collect(),
            }),
        }
    }
}

/// Why a prediction names no instance.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MatchError {
    /// No instance has the prediction's image, by path or by stem.
    #[error("no instance has image `{image}`")]
    NoInstance {
        /// The prediction's image.
        image: String,
    },
    /// Several instances share the image's stem, and none its path.
    #[error(
        "image `{image}` is ambiguous: {} instances share the stem ({})",
        .paths.len(),
        .paths.join(", ")
    )]
    Ambiguous {
        /// The prediction's image.
        image: String,
        /// The image paths of the instances that share its stem.
        paths: Vec<String>,
    },
}
fn query(
    instance: &Instance,
    kind: QueryKind,
    reply: Option<&Reply>,
    options: &ScoreOptions,
) -> QueryResult {
    let official = evaluate_query(instance, kind, reply, &options.official);
    let corrected = evaluate_corrected(instance, kind, reply, options.convention);
    let differences = differences(kind, &official, &corrected);
    QueryResult {
        reply: reply.cloned(),
        official,
        corrected,
        differences,
    }
}

/// Scores one instance with the given replies.
pub fn score_instance(
    instance: &Instance,
    locate: Option<&Reply>,
    interact: Option<&Reply>,
    options: &ScoreOptions,
) -> InstanceResult {
    let locate = query(instance, QueryKind::Locate, locate, options);
    let interact = query(instance, QueryKind::Interact, interact, options);
    let evaluation_error = evaluation_error(&locate.official, &interact.official);
    InstanceResult {
        instance: instance.clone(),
        locate,
        interact,
        evaluation_error,
    }
}

fn group_rows(results: &[InstanceResult], group: impl Fn(&Instance) -> String) -> Vec<GroupScores> {
    let mut groups: BTreeMap<(Platform, String), Vec<&InstanceResult>> = BTreeMap::new();
    for r in results {
        groups
            .entry((r.instance.platform, group(&r.instance)))
            .or_default()
            .push(r);
    }
    groups
        .into_iter()
        .map(|((platform, group), rs)| {
            let (official, corrected) = tally_of(rs.into_iter());
            GroupScores {
                platform,
                group,
                official,
                corrected,
            }
        })
        .collect()
}

/// Scores a run against the ground truth.
///
/// Instances without a prediction are left out of every denominator and
/// listed in [`Report::skipped`] (spec §7: the official metrics cover the
/// result objects of the run, Q9/Q19).
pub fn score(dataset: &Dataset, predictions: &PredictionSet, options: &ScoreOptions) -> Report {
    let matcher = Matcher::new(&dataset.instances);
    let mut assigned: Vec<Option<&Prediction>> = vec![None; dataset.instances.len()];
    let mut problems = predictions.problems.clone();
    for p in &predictions.predictions {
        match matcher.find(p) {
            Ok(n) => {
                if assigned[n].is_some() {
                    problems.push(PredictionProblem {
                        source: p.source.clone(),
                        message: format!(
                            "a second prediction for `{}`; the later one is used",
                            dataset.instances[n].image_path
                        ),
                    });
                }
                assigned[n] = Some(p);
            }
            Err(unmatched) => {
                let s = stem(&p.image.replace('\\', "/")).to_string();
                let left_out = dataset.skipped.iter().find(|k| {
                    k.image
                        .as_deref()
                        .is_some_and(|i| stem(&i.replace('\\', "/")) == s)
                        && p.platform.is_none_or(|pl| pl == k.platform)
                });
                let message = match left_out {
                    Some(k) => format!("its instance was left out ({}): {}", k.source, k.message),
                    None => unmatched.to_string(),
                };
                problems.push(PredictionProblem {
                    source: p.source.clone(),
                    message,
                })
            }
        }
    }
    let mut skipped: Vec<SkipEntry> = dataset
        .skipped
        .iter()
        .map(|s| SkipEntry {
            platform: s.platform,
            source: s.source.clone(),
            index: s.index,
            image: s.image.clone(),
            code: serde_json::to_value(&s.reason)
                .ok()
                .and_then(|v| v.get("code").and_then(Value::as_str).map(str::to_string))
                .unwrap_or_default(),
            message: s.message.clone(),
        })
        .collect();
    let mut per_instance = Vec::new();
    for (instance, prediction) in dataset.instances.iter().zip(&assigned) {
        match prediction {
            Some(p) => per_instance.push(score_instance(
                instance,
                p.locate.as_ref(),
                p.interact.as_ref(),
                options,
            )),
            None => skipped.push(SkipEntry {
                platform: instance.platform,
                source: instance.source.clone(),
                index: Some(instance.index),
                image: Some(instance.image_field.clone()),
                code: "no_prediction".into(),
                message: "no prediction for this instance; it is left out of every denominator"
                    .into(),
            }),
        }
    }
    let mut platforms = Vec::new();
    for platform in Platform::ALL {
        let rs: Vec<&InstanceResult> = per_instance
            .iter()
            .filter(|r| r.instance.platform == platform)
            .collect();
        if rs.is_empty() {
            continue;
        }
        let (official, corrected) = tally_of(rs.into_iter());
        platforms.push(PlatformScores {
            platform,
            official,
            corrected,
        });
    }
    let mean_official = Rates::mean(
        &platforms
            .iter()
            .map(|p| p.official.rates())
            .collect::<Vec<_>>(),
    );
    let mean_corrected = Rates::mean(
        &platforms
            .iter()
            .map(|p| p.corrected.rates())
            .collect::<Vec<_>>(),
    );
    let by_family = group_rows(&per_instance, |i| {
        i.family
            .map_or("unknown".to_string(), |f| f.name().to_string())
    });
    let by_component_type = group_rows(&per_instance, |i| i.component_type.clone());
    Report {
        options: options.clone(),
        platforms,
        mean_official,
        mean_corrected,
        by_family,
        by_component_type,
        per_instance,
        skipped,
        prediction_problems: problems,
    }
}

impl Report {
    /// What the scores leave out, as the official code counts it, for
    /// stderr and the page (issue #23: always reported): instances without
    /// a prediction (left out of every denominator), images given a second
    /// prediction (the later one is used, by file order), and predictions
    /// that could not be scored. Each says where the full list is in the
    /// JSON document.
    pub fn gap_notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        let missing = self
            .skipped
            .iter()
            .filter(|s| s.code == "no_prediction")
            .count();
        if missing > 0 {
            let total = missing + self.per_instance.len();
            notes.push(format!(
                "{missing} of {total} instance(s) have no prediction; as the official code \
                 does, they are left out of every denominator (the scores cover the {} \
                 predicted). The list: `skipped` entries with code `no_prediction` in the JSON \
                 document",
                self.per_instance.len()
            ));
        }
        let second = |p: &&PredictionProblem| p.message.starts_with("a second prediction");
        let seconds = self.prediction_problems.iter().filter(second).count();
        if seconds > 0 {
            notes.push(format!(
                "{seconds} image(s) have more than one prediction; the later one (by file order) \
                 is used, as the official code keeps the last. The list: `prediction_problems` \
                 in the JSON document"
            ));
        }
        let others: Vec<String> = self
            .prediction_problems
            .iter()
            .filter(|p| !second(p))
            .map(|p| format!("{}: {}", p.source, p.message))
            .collect();
        if !others.is_empty() {
            notes.push(format!(
                "{} prediction(s) not scored (first: {}); the list: `prediction_problems` in \
                 the JSON document",
                others.len(),
                others[..others.len().min(5)].join("; ")
            ));
        }
        notes
    }
}

/// VDA ablation: metric in the hinted run minus metric in the baseline run,
/// per platform present in both, and of the platform means (spec §9.1: "The
/// delta is not computed by the code").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VdaDelta {
    /// Per platform in both runs: the official and the corrected deltas.
    pub platforms: Vec<(Platform, Rates, Rates)>,
    /// The delta of the official platform means.
    pub mean_official: Rates,
    /// The delta of the corrected platform means.
    pub mean_corrected: Rates,
}

/// The VDA ablation's deltas: `hinted` minus `baseline`.
pub fn vda_delta(baseline: &Report, hinted: &Report) -> VdaDelta {
    let mut platforms = Vec::new();
    for h in &hinted.platforms {
        if let Some(b) = baseline.platforms.iter().find(|b| b.platform == h.platform) {
            platforms.push((
                h.platform,
                h.official.rates().minus(&b.official.rates()),
                h.corrected.rates().minus(&b.corrected.rates()),
            ));
        }
    }
    let mean = |f: fn(&(Platform, Rates, Rates)) -> Rates| {
        Rates::mean(&platforms.iter().map(f).collect::<Vec<_>>())
    };
    VdaDelta {
        mean_official: mean(|p| p.1),
        mean_corrected: mean(|p| p.2),
        platforms,
    }
}

impl Report {
    /// The scores of one platform, if present.
    pub fn platform(&self, platform: Platform) -> Option<&PlatformScores> {
        self.platforms.iter().find(|p| p.platform == platform)
    }

    /// Queries on which the two modes disagree, with the reasons.
    pub fn disagreements(&self) -> usize {
        self.per_instance
            .iter()
            .map(|r| {
                usize::from(!r.locate.differences.is_empty())
                    + usize::from(!r.interact.differences.is_empty())
            })
            .sum()
    }
}

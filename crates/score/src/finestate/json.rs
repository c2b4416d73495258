//! The report as one JSON document (what `--json` prints and the page
//! receives): per platform `official`, with exactly the keys of the official
//! `<model>_metrics.json`, and `corrected`; then `mean`, `by_family`,
//! `by_component_type`, `vda_delta`, `per_instance`, `skipped`.

use serde_json::{json, Map, Value};

use super::evaluate::{QueryKind, QueryOutcome};
use super::metrics::Tally;
use super::report::{GroupScores, InstanceResult, Report, VdaDelta};

fn result_json(outcome: &QueryOutcome, kind: QueryKind) -> Value {
    match outcome {
        QueryOutcome::Scored {
            point,
            hit,
            state_awareness,
            ..
        } => {
            let hit_key = match kind {
                QueryKind::Locate => "accuracy",
                QueryKind::Interact => "target_accuracy",
            };
            json!({
                "predicted_coords": point,
                hit_key: hit,
                "state_awareness": state_awareness,
            })
        }
        _ => Value::Null,
    }
}

impl InstanceResult {
    /// The official result object's `locate_results` (scoring fields only).
    pub fn locate_results(&self) -> Value {
        result_json(&self.locate.official, QueryKind::Locate)
    }

    /// The official result object's `interact_results` (scoring fields only).
    pub fn interact_results(&self) -> Value {
        result_json(&self.interact.official, QueryKind::Interact)
    }

    /// The per-instance entry of the report.
    pub fn to_json(&self) -> Value {
        let i = &self.instance;
        let mut m = Map::new();
        m.insert("platform".into(), json!(i.platform));
        m.insert("index".into(), json!(i.index));
        m.insert("key".into(), json!(i.key));
        m.insert("image_path".into(), json!(i.image_path));
        m.insert("family".into(), json!(i.family));
        m.insert("component_type".into(), json!(i.component_type));
        m.insert("locate_results".into(), self.locate_results());
        m.insert("interact_results".into(), self.interact_results());
        if let Some(e) = &self.evaluation_error {
            m.insert("evaluation_error".into(), json!(e));
        }
        m.insert(
            "boxes".into(),
            json!({"bbox": i.bbox, "now_coords": i.now, "target_coords": i.target}),
        );
        m.insert("locate".into(), json!(self.locate));
        m.insert("interact".into(), json!(self.interact));
        Value::Object(m)
    }
}

fn tally_json(t: &Tally) -> Value {
    let r = t.rates();
    json!({
        "total_cases": t.total_cases,
        "valid_locate_cases": t.valid_locate_cases,
        "valid_interact_cases": t.valid_interact_cases,
        "locate_success": t.locate_success,
        "interaction_success": t.interaction_success,
        "state_awareness_locate": t.state_awareness_locate,
        "state_awareness_interaction": t.state_awareness_interaction,
        "locate_success_rate": r.locate_success_rate,
        "interaction_success_rate": r.interaction_success_rate,
        "state_awareness_rate_locate": r.state_awareness_rate_locate,
        "state_awareness_rate_interaction": r.state_awareness_rate_interaction,
    })
}

fn groups_json(rows: &[GroupScores]) -> Value {
    let mut out = Map::new();
    for row in rows {
        let platform = out
            .entry(row.platform.name())
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(m) = platform {
            m.insert(
                row.group.clone(),
                json!({"official": tally_json(&row.official), "corrected": tally_json(&row.corrected)}),
            );
        }
    }
    Value::Object(out)
}

impl Report {
    /// The report as one JSON document: per platform `official` (exactly the
    /// official metrics file's keys) and `corrected`; then `mean`,
    /// `by_family`, `by_component_type`, `per_instance`, `skipped`.
    pub fn to_json(&self, delta: Option<&VdaDelta>) -> Value {
        let mut m = Map::new();
        m.insert(
            "run".into(),
            json!({
                "model": self.options.official.model,
                "parser": self.options.official.parser,
                "vda": self.options.official.vda,
                "convention": self.options.convention,
                "disagreeing_queries": self.disagreements(),
            }),
        );
        for p in &self.platforms {
            m.insert(
                p.platform.name().into(),
                json!({"official": p.official.official(), "corrected": tally_json(&p.corrected)}),
            );
        }
        m.insert(
            "mean".into(),
            json!({"official": self.mean_official, "corrected": self.mean_corrected, "platforms": self.platforms.iter().map(|p| p.platform).collect::<Vec<_>>()}),
        );
        m.insert("by_family".into(), groups_json(&self.by_family));
        m.insert(
            "by_component_type".into(),
            groups_json(&self.by_component_type),
        );
        if let Some(d) = delta {
            let mut dm = Map::new();
            for (pl, o, c) in &d.platforms {
                dm.insert(pl.name().into(), json!({"official": o, "corrected": c}));
            }
            dm.insert(
                "mean".into(),
                json!({"official": d.mean_official, "corrected": d.mean_corrected}),
            );
            m.insert("vda_delta".into(), Value::Object(dm));
        }
        m.insert(
            "per_instance".into(),
            Value::Array(
                self.per_instance
                    .iter()
                    .map(InstanceResult::to_json)
                    .collect(),
            ),
        );
        m.insert("skipped".into(), json!(self.skipped));
        m.insert(
            "prediction_problems".into(),
            json!(self.prediction_problems),
        );
        Value::Object(m)
    }
}

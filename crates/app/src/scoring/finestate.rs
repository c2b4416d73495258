//! FineState-Bench: predictions and the loaded dataset in (read from disk
//! or from the page's dropped files), the official and corrected report
//! out, with what was not used.

use knoblab_core::input::unused::{Unused, UnusedKind};
use knoblab_score::finestate::corrected::Convention;
use knoblab_score::finestate::evaluate::OfficialOptions;
use knoblab_score::finestate::loader::Dataset;
use knoblab_score::finestate::parser::ParserBuild;
use knoblab_score::finestate::predictions::PredictionSet;
use knoblab_score::finestate::report::{
    score as score_report, vda_delta, Report, ScoreOptions, VdaDelta,
};
use knoblab_score::finestate::table;

use super::ScoreError;

/// The options of `knoblab score finestate` (its flags, with their
/// defaults), as text the way a command line, a keyword argument or the
/// page's form gives them; [`score`] reads each by its one rule.
#[derive(Debug, Clone)]
pub struct FinestateOptions {
    /// The model name (the official parser keys unit rules on it).
    pub model: String,
    /// `py` or `pyc`: which build of the official parser.
    pub parser: String,
    /// The run was made with the VDA hint.
    pub vda: bool,
    /// Corrected mode's convention: `unit`, `permille` or `pixels:WxH`.
    pub convention: String,
    /// The platform of a single annotation JSONL.
    pub platform: Option<String>,
    /// Take every image as present.
    pub assume_images: bool,
}

impl FinestateOptions {
    /// The defaults of the command line, for this model.
    pub fn new(model: &str) -> FinestateOptions {
        FinestateOptions {
            model: model.to_string(),
            parser: "py".to_string(),
            vda: false,
            convention: "unit".to_string(),
            platform: None,
            assume_images: false,
        }
    }
}

/// A scored results file (and its VDA delta, with a hinted run).
#[derive(Debug, Clone)]
pub struct FinestateRun {
    /// The benchmark's report of the file, as the official code computes it.
    pub report: Report,
    /// How the VDA run's numbers differ from the plain run's.
    pub delta: Option<VdaDelta>,
    /// What a person should know but which does not stop scoring.
    pub warnings: Vec<String>,
    /// Every instance without a prediction, second prediction and
    /// annotation record or prediction that could not be used.
    pub unused: Vec<Unused>,
}

impl FinestateRun {
    /// The `--json` document, with `unused`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut doc = self.report.to_json(self.delta.as_ref());
        if let serde_json::Value::Object(m) = &mut doc {
            m.insert("unused".into(), super::unused_json(&self.unused));
        }
        doc
    }

    /// The tables for people.
    pub fn to_text(&self) -> String {
        table::render(&self.report, self.delta.as_ref())
    }
}

/// Scores `preds` (the run named `name`) against `data`, and a run made
/// with the VDA hint (`hinted`) beside it when given.
pub fn score(
    name: &str,
    data: &Dataset,
    preds: &PredictionSet,
    hinted: Option<&PredictionSet>,
    options: &FinestateOptions,
) -> Result<FinestateRun, ScoreError> {
    if options.model.trim().is_empty() {
        return Err(ScoreError::FineStateModel {
            name: name.to_string(),
        });
    }
    let (parser, convention) = check_options(options)?;
    if data.instances.is_empty() {
        return Err(ScoreError::FineStateDataset {
            name: name.to_string(),
            skipped: data.skipped.len(),
        });
    }
    let mut warnings = Vec::new();
    let mut one = |preds: &PredictionSet, vda_flag: bool| {
        let (vda, warning) = preds.vda(vda_flag);
        warnings.extend(warning);
        let options = ScoreOptions {
            official: OfficialOptions {
                model: Some(options.model.clone()),
                parser,
                vda,
            },
            convention,
        };
        score_report(data, preds, &options)
    };
    let report = one(preds, options.vda);
    let delta = hinted.map(|h| vda_delta(&report, &one(h, true)));
    // What the scores leave out (instances without a prediction, second
    // predictions, unscored ones: issue #23), summed up for people...
    warnings.extend(report.gap_notes());
    // ...and item by item (issue #47).
    let unused = unused(name, &report);
    Ok(FinestateRun {
        report,
        delta,
        warnings,
        unused,
    })
}

/// The parser build and the convention `options` name, each read by its
/// one parser; a caller that reads files checks these first.
pub fn check_options(options: &FinestateOptions) -> Result<(ParserBuild, Convention), ScoreError> {
    let parser: ParserBuild = options.parser.parse().map_err(ScoreError::Parser)?;
    let convention: Convention = options.convention.parse().map_err(ScoreError::Convention)?;
    Ok((parser, convention))
}

/// `file:line` (as the readers write a source) split into its parts.
fn source_parts(source: &str) -> (&str, Option<usize>) {
    match source.rsplit_once(':') {
        Some((file, line)) => match line.parse() {
            Ok(line) => (file, Some(line)),
            Err(_) => (source, None),
        },
        None => (source, None),
    }
}

/// The report's skipped instances and prediction problems, each where it is.
fn unused(name: &str, report: &Report) -> Vec<Unused> {
    let skipped = report.skipped.iter().map(|s| {
        let (file, line) = source_parts(&s.source);
        let (file, kind, reason) = if s.code == "no_prediction" {
            (
                name,
                UnusedKind::Missing,
                format!(
                    "{} ({}): no prediction; left out of every denominator, as the official code does",
                    s.source, s.message
                ),
            )
        } else {
            (file, UnusedKind::Skipped, s.message.clone())
        };
        let u = Unused::new(file, kind, reason);
        let u = match line {
            Some(line) if kind != UnusedKind::Missing => u.at(line),
            _ => u,
        };
        match &s.image {
            Some(image) => u.named(image.clone()),
            None => u,
        }
    });
    let problems = report.prediction_problems.iter().map(|p| {
        let (file, line) = source_parts(&p.source);
        let kind = if p.message.starts_with("a second prediction") {
            UnusedKind::Duplicate
        } else {
            UnusedKind::Refused
        };
        let u = Unused::new(file, kind, p.message.clone());
        match line {
            Some(line) => u.at(line),
            None => u,
        }
    });
    skipped.chain(problems).collect()
}

#[cfg(test)]
mod tests {
    use super::source_parts;

    #[test]
    fn a_source_splits_at_its_last_numeric_colon() {
        assert_eq!(source_parts("a/b.jsonl:12"), ("a/b.jsonl", Some(12)));
        assert_eq!(source_parts("C:/x.json"), ("C:/x.json", None));
        assert_eq!(source_parts("result_3.json"), ("result_3.json", None));
    }
}

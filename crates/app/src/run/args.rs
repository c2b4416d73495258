//! A run's options as a person gives them (text and numbers), turned into
//! a plan and the runner's options: the one typed set of a run's options.
//! `knoblab eval` fills [`RunArgs`] from its flags and `knoblab.evaluate`
//! from its keyword arguments, so both read every option by the same
//! rules, with the same defaults and the same messages; a test of each
//! face checks its flags or arguments against [`RunArgs::field_names`] and
//! [`RunArgs::default`], field by field. It is serde, so a run's options
//! can be written down and read back (`{"lambda": 3, "agent": "oracle"}`;
//! a field left out keeps its default, an unknown one is refused).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use knoblab_core::bundle::Bundle;
use knoblab_core::sim::RenderMode;
use knoblab_eval::agents::{AgentSpec, AgentSpecError};
use knoblab_eval::vlm::{
    AgentSettings, ApiKey, CoordConvention, Flavor, HistoryWindow, Perturbation, Prices,
    RecordedAnswers, RetryPolicy, Source,
};

use super::{
    load_bundles, load_library, make_plan, DeviceFilter, EvalError, EvalOptions, EvalPlan,
    LoadProblem, OptionProblem,
};

/// The most episodes in flight a run allows.
pub const MAX_CONCURRENCY: u32 = 256;

/// The options of `knoblab eval` (its flags, by the same names), but the
/// output file and how progress is shown. [`Default`] gives the flags'
/// defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunArgs {
    /// Bundles to play; without any, the devices of `library`.
    pub bundles: Vec<PathBuf>,
    /// The library index whose devices are played when no bundle is named.
    pub library: PathBuf,
    /// Only these device ids (empty: all).
    pub devices: Vec<String>,
    /// Only devices of these categories (empty: all).
    pub categories: Vec<String>,
    /// Only these task ids (empty: all).
    pub tasks: Vec<String>,
    /// Episodes of each task.
    pub repeats: u32,
    /// Who plays: `model`, `oracle`, `random` or `replay:FILE`.
    pub agent: String,
    /// The API flavour: `openai` or `anthropic`.
    pub api: String,
    /// The API's base URL (`http://localhost:8000/v1`).
    pub base_url: Option<String>,
    /// The model's name, as the API knows it.
    pub model: Option<String>,
    /// The environment variable holding the key (default by `api`).
    pub api_key_env: Option<String>,
    /// Episodes in flight at once.
    pub concurrency: usize,
    /// λ, the budgets' multiplier.
    pub lambda: u32,
    /// Past turns shown to the model: a number, or `full`.
    pub history: Option<String>,
    /// `0-1000`, `0-1` or `pixels`.
    pub coords: String,
    /// `none`, `jpeg:Q`, `blur:SIGMA` or `patch:PERCENT` (or `patches:`).
    pub perturb: String,
    /// Seeds the perturbation and the random agent.
    pub seed: u64,
    /// The sampling temperature sent with each request.
    pub temperature: f64,
    /// The most tokens a reply may take.
    pub max_tokens: u32,
    /// Seconds a request may take.
    pub timeout: f64,
    /// How many times a failed request is tried again.
    pub retries: u32,
    /// Seconds before the first retry, doubling after.
    pub backoff: f64,
    /// Dollars per million input tokens, for the cost estimate.
    pub price_in: Option<f64>,
    /// Dollars per million output tokens.
    pub price_out: Option<f64>,
    /// Stop starting episodes once the estimated cost reaches this many dollars.
    pub max_cost: Option<f64>,
    /// How the views are drawn: the static pictures or live.
    pub render: RenderMode,
    /// The model-call cache's folder (none: every request is sent).
    pub cache: Option<PathBuf>,
}

impl Default for RunArgs {
    fn default() -> RunArgs {
        RunArgs {
            bundles: Vec::new(),
            library: PathBuf::from("data/library.json"),
            devices: Vec::new(),
            categories: Vec::new(),
            tasks: Vec::new(),
            repeats: 1,
            agent: "model".into(),
            api: "openai".into(),
            base_url: None,
            model: None,
            api_key_env: None,
            concurrency: 4,
            lambda: 5,
            history: None,
            coords: "0-1000".into(),
            perturb: "none".into(),
            seed: 0,
            temperature: 0.0,
            max_tokens: 512,
            timeout: 60.0,
            retries: 3,
            backoff: 1.0,
            price_in: None,
            price_out: None,
            max_cost: None,
            render: RenderMode::Static,
            cache: None,
        }
    }
}

fn option(problem: OptionProblem) -> EvalError {
    EvalError::Option {
        problem: Box::new(problem),
    }
}

/// A perturbation option: none, jpeg:Q, blur:S, patch:P (or patches:P).
fn perturbation(text: &str) -> Result<Option<Perturbation>, EvalError> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    let text = match text.split_once(':') {
        Some((k, v)) if k.eq_ignore_ascii_case("patch") => format!("patches:{v}"),
        _ => text.to_string(),
    };
    Perturbation::parse(&text)
        .map(Some)
        .map_err(|e| option(OptionProblem::Value(e)))
}

impl RunArgs {
    /// Every option's name, in order (the fields as serde writes them):
    /// what the faces' flags, keyword arguments and form are checked
    /// against.
    pub fn field_names() -> Vec<String> {
        match serde_json::to_value(RunArgs::default()) {
            Ok(serde_json::Value::Object(map)) => map.keys().cloned().collect(),
            _ => Vec::new(),
        }
    }

    /// Who plays, and a replay's file (read within the core's bound). The
    /// name is read by the one agent-name reader
    /// ([`knoblab_eval::agents::AgentSpec`]); a run plays a model, a
    /// replay, the oracle or the random agent (seeded by `seed`).
    pub fn source(&self) -> Result<(Source, Option<(RecordedAnswers, String)>), EvalError> {
        let unknown = || option(OptionProblem::UnknownAgent(self.agent.trim().to_string()));
        match AgentSpec::parse(&self.agent) {
            Ok(AgentSpec::Model) => Ok((Source::Model, None)),
            Ok(AgentSpec::Oracle) => Ok((Source::Oracle, None)),
            // `random:SEED` is `knoblab run`'s form; a run seeds with `seed`.
            Ok(AgentSpec::Random { .. }) if !self.agent.contains(':') => Ok((Source::Random, None)),
            Ok(AgentSpec::Replay { path: file }) => {
                let path = Path::new(&file);
                let load = |problem: LoadProblem| EvalError::Load {
                    path: file.clone(),
                    problem,
                };
                let bytes = knoblab_core::input::fs::read_regular(
                    path,
                    knoblab_core::input::limits::MAX_RESULTS_FILE_BYTES,
                )
                .map_err(|e| load(LoadProblem::Input(e)))?;
                let text = knoblab_core::input::text::decode_owned(bytes)
                    .map_err(|e| load(LoadProblem::ReplayText(e)))?;
                let replay =
                    RecordedAnswers::parse(&text).map_err(|e| load(LoadProblem::Replay(e)))?;
                Ok((Source::Replay, Some((replay, text))))
            }
            Ok(_) => Err(unknown()),
            Err(AgentSpecError::NoFile { form }) => {
                Err(option(OptionProblem::AgentNeedsFile { form }))
            }
            Err(_) => Err(unknown()),
        }
    }

    /// Every numeric option against its domain
    /// ([`knoblab_core::input::options`], the one check every face
    /// calls): the first outside names the option, the value and the
    /// domain.
    pub fn check_domains(&self) -> Result<(), EvalError> {
        use knoblab_core::input::options::{check, Given};
        let whole = |n: u64| Given::Whole(n.into());
        let given = [
            ("lambda", whole(self.lambda.into())),
            ("repeats", whole(self.repeats.into())),
            ("concurrency", whole(self.concurrency as u64)),
            ("temperature", Given::Real(self.temperature)),
            ("max_tokens", whole(self.max_tokens.into())),
            ("timeout", Given::Real(self.timeout)),
            ("retries", whole(self.retries.into())),
            ("backoff", Given::Real(self.backoff)),
            ("seed", whole(self.seed)),
        ];
        let optional = [
            ("price_in", self.price_in),
            ("price_out", self.price_out),
            ("max_cost", self.max_cost),
        ];
        let optional = optional
            .into_iter()
            .filter_map(|(name, v)| v.map(|v| (name, Given::Real(v))));
        for (name, value) in given.into_iter().chain(optional) {
            check(name, value).map_err(|e| option(OptionProblem::Domain(e)))?;
        }
        Ok(())
    }

    /// The agent's settings, checked.
    pub fn settings(&self, source: Source) -> Result<AgentSettings, EvalError> {
        self.check_domains()?;
        let mut s = AgentSettings::default();
        s.endpoint.flavor =
            Flavor::parse(&self.api).map_err(|e| option(OptionProblem::Value(e)))?;
        if source == Source::Model {
            s.endpoint.base_url = self
                .base_url
                .clone()
                .ok_or_else(|| option(OptionProblem::Needed("base-url")))?;
            s.endpoint.model = self
                .model
                .clone()
                .ok_or_else(|| option(OptionProblem::Needed("model")))?;
        } else {
            s.endpoint.base_url = self.base_url.clone().unwrap_or(s.endpoint.base_url);
            s.endpoint.model = self.model.clone().unwrap_or(s.endpoint.model);
        }
        s.endpoint.temperature = self.temperature;
        s.endpoint.max_tokens = self.max_tokens;
        s.timeout_ms = (self.timeout * 1000.0).round() as u64;
        s.concurrency = u32::try_from(self.concurrency).unwrap_or(u32::MAX);
        s.retry = RetryPolicy {
            retries: self.retries,
            base_ms: (self.backoff * 1000.0).round() as u64,
            ..RetryPolicy::default()
        };
        s.coords =
            CoordConvention::parse(&self.coords).map_err(|e| option(OptionProblem::Value(e)))?;
        if let Some(h) = &self.history {
            s.history = HistoryWindow::parse(h).map_err(|e| option(OptionProblem::Value(e)))?;
        }
        s.lambda = self.lambda;
        s.render = self.render;
        s.perturbation = perturbation(&self.perturb)?;
        s.seed = self.seed;
        s.prices = Prices {
            input_per_million: self.price_in.unwrap_or(0.0),
            output_per_million: self.price_out.unwrap_or(0.0),
        };
        let problems = s.problems_with(MAX_CONCURRENCY, 1);
        if !problems.is_empty() {
            return Err(option(OptionProblem::Settings(problems)));
        }
        if self.max_cost.is_some() && s.prices.cost(Default::default()).is_none() {
            return Err(option(OptionProblem::CostWithoutPrices));
        }
        Ok(s)
    }

    fn filter(&self) -> DeviceFilter {
        DeviceFilter {
            devices: self.devices.clone(),
            categories: self.categories.clone(),
        }
    }

    /// The plan these options describe: the devices loaded (`bundles`, or
    /// those of `library`) and filtered, each task `repeats` times.
    pub fn plan(&self) -> Result<EvalPlan, EvalError> {
        let (source, replay) = self.source()?;
        let settings = self.settings(source)?;
        let filter = self.filter();
        let bundles = if self.bundles.is_empty() {
            load_library(&self.library, &filter)?
        } else {
            load_bundles(&self.bundles, &filter)?
        };
        make_plan(source, settings, bundles, &self.tasks, self.repeats, replay)
    }

    /// The plan these options describe on bundles loaded already (a
    /// library embedded in a program), filtered by `devices` and
    /// `categories`; `bundles` and `library` are not read.
    pub fn plan_on(&self, bundles: Vec<Bundle>) -> Result<EvalPlan, EvalError> {
        let (source, replay) = self.source()?;
        let settings = self.settings(source)?;
        let filter = self.filter();
        let kept: Vec<Bundle> = bundles
            .into_iter()
            .filter(|b| filter.keeps(&b.manifest.id, &b.manifest.category))
            .collect();
        filter.check(&kept)?;
        make_plan(source, settings, kept, &self.tasks, self.repeats, replay)
    }

    /// The name of the environment variable the key is read from.
    pub fn key_var(&self, flavor: Flavor) -> String {
        self.api_key_env.clone().unwrap_or_else(|| {
            match flavor {
                Flavor::OpenAi => "OPENAI_API_KEY",
                Flavor::Anthropic => "ANTHROPIC_API_KEY",
            }
            .to_string()
        })
    }

    /// The runner's options for `plan`: the key from its environment
    /// variable (never from an argument; unset or empty sends none).
    pub fn options(&self, plan: &EvalPlan) -> EvalOptions {
        let var = self.key_var(plan.spec.settings.endpoint.flavor);
        EvalOptions {
            key: ApiKey::new(std::env::var(var).unwrap_or_default().trim().to_string()),
            concurrency: self.concurrency.max(1),
            max_cost: self.max_cost,
            shard: None,
            select: None,
            send_to: None,
            cache: self.cache.clone(),
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests parse what they check directly (#47)
mod tests {
    use super::*;

    const KETTLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/kettle");

    /// The page's form starts from the agent's default settings
    /// (`AgentSettings::default`), the CLI and Python from
    /// `RunArgs::default`: the two agree on every setting but the ones
    /// the page chooses apart — episodes in flight (2 in a browser tab,
    /// which shares its connections; 4 natively) and a model and base URL
    /// to start the form with (a run from the CLI or Python must name them).
    #[test]
    fn the_page_forms_defaults_are_the_run_options_defaults() {
        let from_args = RunArgs::default().settings(Source::Oracle).unwrap();
        let mut page = AgentSettings::default();
        assert_eq!(page.concurrency, 2);
        assert_eq!(from_args.concurrency, 4);
        page.concurrency = from_args.concurrency;
        page.endpoint.base_url = from_args.endpoint.base_url.clone();
        page.endpoint.model = from_args.endpoint.model.clone();
        assert_eq!(from_args, page);
    }

    /// The options read back from what serde writes, and a field left out
    /// keeps its default; an unknown one is refused, naming it.
    #[test]
    fn the_options_are_serde_with_defaults_and_no_unknown_fields() {
        let args = RunArgs {
            lambda: 3,
            agent: "oracle".into(),
            ..RunArgs::default()
        };
        let text = serde_json::to_string(&args).unwrap();
        assert_eq!(serde_json::from_str::<RunArgs>(&text).unwrap(), args);
        let partial: RunArgs = serde_json::from_str(r#"{"lambda": 3, "agent": "oracle"}"#).unwrap();
        assert_eq!(partial, args);
        let err = serde_json::from_str::<RunArgs>(r#"{"lamda": 3}"#).unwrap_err();
        assert!(err.to_string().contains("unknown field `lamda`"), "{err}");
        // The 26 options the issue counted, and the model-call cache.
        assert_eq!(RunArgs::field_names().len(), 27);
    }

    #[test]
    fn a_model_run_needs_its_base_url_and_model() {
        let args = RunArgs {
            bundles: vec![KETTLE.into()],
            ..RunArgs::default()
        };
        let e = args.plan().unwrap_err();
        assert_eq!(e.to_string(), "--base-url is needed to run a model");
        let args = RunArgs {
            base_url: Some("http://127.0.0.1:1/v1".into()),
            ..args
        };
        assert_eq!(
            args.plan().unwrap_err().to_string(),
            "--model is needed to run a model"
        );
    }

    #[test]
    fn options_are_read_by_the_cores_rules() {
        let args = RunArgs {
            bundles: vec![KETTLE.into()],
            agent: "oracle".into(),
            perturb: "patch:10".into(),
            history: Some("3".into()),
            timeout: 2.5,
            repeats: 2,
            tasks: vec!["boil".into()],
            ..RunArgs::default()
        };
        let plan = args.plan().unwrap();
        assert_eq!(plan.spec.items.len(), 2);
        assert_eq!(plan.spec.settings.timeout_ms, 2500);
        assert_eq!(
            plan.spec.settings.perturbation,
            Some(Perturbation::parse("patches:10").unwrap())
        );
        for (bad, what) in [
            (
                RunArgs {
                    timeout: 0.0,
                    ..args.clone()
                },
                "timeout = 0 is outside its domain: a number of seconds above 0",
            ),
            (
                RunArgs {
                    agent: "robot".into(),
                    ..args.clone()
                },
                "unknown --agent \"robot\"",
            ),
            (
                RunArgs {
                    coords: "0-7".into(),
                    ..args.clone()
                },
                "0-7",
            ),
            (
                RunArgs {
                    max_cost: Some(1.0),
                    ..args.clone()
                },
                "--max-cost needs",
            ),
        ] {
            let e = bad.plan().unwrap_err();
            assert!(matches!(e, EvalError::Option { .. }), "{e:?}");
            assert!(e.to_string().contains(what), "{e} lacks {what}");
        }
    }
}

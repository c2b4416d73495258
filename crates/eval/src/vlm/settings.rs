//! Everything a model run is set up with, except the key, and how it is
//! written into each trajectory's settings (DESIGN.md, "Files": model,
//! endpoint without the key, λ, history, perturbation, seed, prompt
//! version).

use serde::{Deserialize, Serialize};
use serde_json::json;

use knoblab_core::sim::{RenderMode, Settings, DEFAULT_LAMBDA};

use super::coords::CoordConvention;
use super::perturb::Perturbation;
use super::prompt::{HistoryWindow, PROMPT_VERSION};
use super::provider::{Endpoint, Flavor};
use super::reply::Usage;
use super::retry::RetryPolicy;

/// Prices per million tokens, for a cost estimate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Prices {
    /// Dollars per million input tokens.
    pub input_per_million: f64,
    /// Dollars per million output tokens.
    pub output_per_million: f64,
}

impl Prices {
    /// The estimated cost of `usage`; `None` when no price is set.
    ///
    /// ```
    /// use knoblab_eval::vlm::settings::Prices;
    /// use knoblab_eval::vlm::reply::Usage;
    /// let p = Prices { input_per_million: 2.5, output_per_million: 10.0 };
    /// let u = Usage { input_tokens: 200_000, output_tokens: 10_000 };
    /// assert_eq!(p.cost(u), Some(0.6));
    /// assert_eq!(Prices::default().cost(u), None);
    /// ```
    pub fn cost(&self, usage: Usage) -> Option<f64> {
        if self.input_per_million <= 0.0 && self.output_per_million <= 0.0 {
            return None;
        }
        let per = |tokens: u64, price: f64| tokens as f64 * price / 1_000_000.0;
        Some(
            per(usage.input_tokens, self.input_per_million)
                + per(usage.output_tokens, self.output_per_million),
        )
    }
}

/// A model run's settings. The key is not here: it is passed to each
/// request and to nothing else.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentSettings {
    /// Where requests go, and the model.
    pub endpoint: Endpoint,
    /// A request still unanswered after this long is abandoned.
    pub timeout_ms: u64,
    /// Episodes run at the same time in a batch.
    pub concurrency: u32,
    /// Which failures are retried, and how often.
    pub retry: RetryPolicy,
    /// The coordinates the model is asked to answer in.
    pub coords: CoordConvention,
    /// How many past turns each request shows.
    pub history: HistoryWindow,
    /// Budget multiplier λ.
    pub lambda: u32,
    /// What is done to each picture before it is sent, if anything.
    pub perturbation: Option<Perturbation>,
    /// Seeds the perturbation's patches.
    pub seed: u64,
    /// Prices for the cost estimate.
    pub prices: Prices,
    /// How the device's views are drawn: static (the paper's) or live.
    #[serde(default)]
    pub render: RenderMode,
}

impl Default for AgentSettings {
    fn default() -> Self {
        AgentSettings {
            endpoint: Endpoint {
                flavor: Flavor::OpenAi,
                base_url: "https://api.openai.com/v1".into(),
                model: "gpt-4o".into(),
                temperature: 0.0,
                max_tokens: 512,
            },
            timeout_ms: 60_000,
            concurrency: 2,
            retry: RetryPolicy::default(),
            coords: CoordConvention::Scale1000,
            history: HistoryWindow::default(),
            lambda: DEFAULT_LAMBDA,
            perturbation: None,
            seed: 0,
            prices: Prices::default(),
            render: RenderMode::Static,
        }
    }
}

impl AgentSettings {
    /// Checks what a form may have got wrong, each problem saying what is
    /// valid (the page's limits: at most 16 at once, a timeout of 1 s or
    /// more).
    pub fn problems(&self) -> Vec<String> {
        self.problems_with(16, 1_000)
    }

    /// [`AgentSettings::problems`] with other limits on concurrency and
    /// the timeout (`knoblab eval` allows more of both).
    pub fn problems_with(&self, max_concurrency: u32, min_timeout_ms: u64) -> Vec<String> {
        let mut out = Vec::new();
        let base = self.endpoint.base_url.trim();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            out.push(format!(
                "the base URL \"{base}\" must start with http:// or https://"
            ));
        }
        if self.endpoint.model.trim().is_empty() {
            out.push("the model name is empty".into());
        }
        // Every number within its domain: the one check every face calls.
        use knoblab_core::input::options::{check, Given};
        let whole = |n: u64| Given::Whole(n.into());
        for (option, value) in [
            ("temperature", Given::Real(self.endpoint.temperature)),
            ("max_tokens", whole(self.endpoint.max_tokens.into())),
            ("timeout", Given::Real(self.timeout_ms as f64 / 1_000.0)),
            ("concurrency", whole(self.concurrency.into())),
            ("retries", whole(self.retry.retries.into())),
            ("lambda", whole(self.lambda.into())),
            ("price_in", Given::Real(self.prices.input_per_million)),
            ("price_out", Given::Real(self.prices.output_per_million)),
        ] {
            if let Err(e) = check(option, value) {
                out.push(e.to_string());
            }
        }
        // The face's own, tighter limits (the page's: 16 at once, 1 s).
        if self.timeout_ms < min_timeout_ms {
            out.push(format!(
                "the timeout must be at least {} s",
                min_timeout_ms as f64 / 1_000.0
            ));
        }
        if self.concurrency > max_concurrency {
            out.push(format!(
                "concurrency {} is outside 1–{max_concurrency}",
                self.concurrency
            ));
        }
        out
    }

    /// The trajectory settings of an episode played by `agent` with these
    /// settings: model, endpoint (the base URL; no key exists here to
    /// leak), λ, history, perturbation, seed, prompt version, and the rest
    /// under their own keys.
    pub fn trajectory_settings(&self, agent: &str) -> Settings {
        let mut s = Settings::with_lambda(self.lambda);
        s.agent = agent.to_string();
        s.render = self.render;
        s.model = Some(self.endpoint.model.clone());
        s.endpoint = Some(self.endpoint.base_url.trim().to_string());
        s.history = match self.history {
            HistoryWindow::Full => None,
            HistoryWindow::Last(n) => Some(n),
        };
        s.perturbation = self.perturbation.map(|p| p.to_string());
        s.seed = Some(self.seed);
        s.prompt_version = Some(PROMPT_VERSION.into());
        let extra = [
            ("api", json!(self.endpoint.flavor.name())),
            ("history_window", json!(self.history.name())),
            ("coords", json!(self.coords.name())),
            ("temperature", json!(self.endpoint.temperature)),
            ("max_tokens", json!(self.endpoint.max_tokens)),
            ("timeout_ms", json!(self.timeout_ms)),
            ("retries", json!(self.retry.retries)),
            ("concurrency", json!(self.concurrency)),
            ("prices", json!(self.prices)),
        ];
        for (k, v) in extra {
            s.extra.insert(k.to_string(), v);
        }
        s
    }
}

/// The numbers of a settings form as typed (the page's Agent form): read
/// into [`AgentSettings`] by the core's domain check, each bad one named
/// with its option, its text and its domain; an empty field keeps the
/// default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TypedNumbers {
    /// The sampling temperature.
    pub temperature: String,
    /// The most tokens a reply may take.
    pub max_tokens: String,
    /// Seconds a request may take.
    pub timeout_s: String,
    /// Episodes run at once.
    pub concurrency: String,
    /// Retries of a failed request.
    pub retries: String,
    /// The budget multiplier λ.
    pub lambda: String,
    /// The seed of the perturbation and the random agent.
    pub seed: String,
    /// Dollars per million input tokens (empty: no cost estimate).
    pub price_in: String,
    /// Dollars per million output tokens.
    pub price_out: String,
}

impl TypedNumbers {
    /// The numbers of `s`, as the form shows them.
    pub fn of(s: &AgentSettings) -> TypedNumbers {
        let price = |p: f64| {
            if p > 0.0 {
                p.to_string()
            } else {
                String::new()
            }
        };
        TypedNumbers {
            temperature: s.endpoint.temperature.to_string(),
            max_tokens: s.endpoint.max_tokens.to_string(),
            timeout_s: (s.timeout_ms as f64 / 1_000.0).to_string(),
            concurrency: s.concurrency.to_string(),
            retries: s.retry.retries.to_string(),
            lambda: s.lambda.to_string(),
            seed: s.seed.to_string(),
            price_in: price(s.prices.input_per_million),
            price_out: price(s.prices.output_per_million),
        }
    }

    /// Reads the typed numbers into `s`, or every problem found (each the
    /// core's message: option, value, domain).
    pub fn read_into(&self, s: &mut AgentSettings) -> Result<(), Vec<String>> {
        use knoblab_core::input::options::{real, whole, Given};
        let mut problems = Vec::new();
        let mut take = |r: Result<(), knoblab_core::input::InputError>| {
            if let Err(e) = r {
                problems.push(e.to_string());
            }
        };
        fn typed(t: &str) -> Option<Given<'_>> {
            (!t.trim().is_empty()).then_some(Given::Text(t))
        }
        if let Some(g) = typed(&self.temperature) {
            take(real("temperature", g).map(|v| s.endpoint.temperature = v));
        }
        if let Some(g) = typed(&self.max_tokens) {
            take(whole("max_tokens", g).map(|v| s.endpoint.max_tokens = v));
        }
        if let Some(g) = typed(&self.timeout_s) {
            take(real("timeout", g).map(|v| s.timeout_ms = (v * 1_000.0).round() as u64));
        }
        if let Some(g) = typed(&self.concurrency) {
            take(whole("concurrency", g).map(|v| s.concurrency = v));
        }
        if let Some(g) = typed(&self.retries) {
            take(whole("retries", g).map(|v| s.retry.retries = v));
        }
        if let Some(g) = typed(&self.lambda) {
            take(whole("lambda", g).map(|v| s.lambda = v));
        }
        if let Some(g) = typed(&self.seed) {
            take(whole("seed", g).map(|v| s.seed = v));
        }
        s.prices = Prices::default();
        if let Some(g) = typed(&self.price_in) {
            take(real("price_in", g).map(|v| s.prices.input_per_million = v));
        }
        if let Some(g) = typed(&self.price_out) {
            take(real("price_out", g).map(|v| s.prices.output_per_million = v));
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page's form reads what is typed by the core's domains: each bad
    /// number named with its option, its text and its domain; a fraction
    /// where a whole number is wanted is refused, not truncated; empty
    /// fields keep the defaults; what is shown reads back the same.
    #[test]
    fn typed_numbers_are_read_by_the_domains() {
        let mut s = AgentSettings::default();
        let typed = TypedNumbers::of(&s);
        let before = s.clone();
        typed.read_into(&mut s).unwrap();
        assert_eq!(s, before);

        let bad = TypedNumbers {
            lambda: "2.5".into(),
            concurrency: "0".into(),
            retries: "-1".into(),
            timeout_s: "0".into(),
            temperature: "9".into(),
            max_tokens: "lots".into(),
            seed: "99999999999999999999999".into(),
            price_in: "-3".into(),
            ..TypedNumbers::default()
        };
        let problems = bad.read_into(&mut s).unwrap_err();
        for said in [
            "temperature = 9 is outside its domain: a number from 0 to 2",
            "max_tokens = \"lots\" is outside its domain",
            "timeout = 0 is outside its domain",
            "concurrency = 0 is outside its domain",
            "retries = -1 is outside its domain",
            "lambda = 2.5 is outside its domain: a whole number from 1 to 100",
            "seed = 99999999999999999999999 is outside its domain",
            "price_in = -3 is outside its domain",
        ] {
            assert!(
                problems.iter().any(|p| p.starts_with(said)),
                "{said}: {problems:?}"
            );
        }
        assert_eq!(problems.len(), 8, "{problems:?}");

        let mut s = AgentSettings::default();
        TypedNumbers {
            lambda: "7".into(),
            seed: "18446744073709551615".into(),
            timeout_s: "2.5".into(),
            ..TypedNumbers::default()
        }
        .read_into(&mut s)
        .unwrap();
        assert_eq!((s.lambda, s.seed, s.timeout_ms), (7, u64::MAX, 2_500));
        assert!(s.problems().is_empty(), "{:?}", s.problems());
        s.concurrency = 17;
        assert_eq!(
            s.problems(),
            vec!["concurrency 17 is outside 1–16".to_string()]
        );
    }

    #[test]
    fn trajectory_settings_record_every_setting() {
        let a = AgentSettings {
            history: HistoryWindow::Full,
            perturbation: Some(Perturbation::Blur { sigma: 3 }),
            ..AgentSettings::default()
        };
        let s = a.trajectory_settings("model:gpt-4o");
        let json = serde_json::to_value(&s).unwrap();
        for key in [
            "lambda",
            "agent",
            "model",
            "endpoint",
            "perturbation",
            "seed",
            "prompt_version",
            "api",
            "history_window",
            "coords",
            "temperature",
            "max_tokens",
            "timeout_ms",
            "retries",
            "concurrency",
            "prices",
        ] {
            assert!(json.get(key).is_some(), "missing {key} in {json}");
        }
        assert_eq!(json["history_window"], "full");
        assert_eq!(json["perturbation"], "blur:3");
    }

    #[test]
    fn the_defaults_are_valid_and_bad_values_are_named() {
        assert!(AgentSettings::default().problems().is_empty());
        let mut a = AgentSettings::default();
        a.endpoint.base_url = "api.openai.com".into();
        a.concurrency = 0;
        let p = a.problems();
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(p[0].contains("http://"));
    }
}

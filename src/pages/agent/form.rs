//! The settings form: who plays (a model API, a replay file, the oracle or
//! the random agent) and every setting of `vlm::AgentSettings`. Numbers
//! are typed as text and read when a run starts, each bad one named.

use leptos::prelude::*;

use crate::browser::indexeddb::Source;
use crate::browser::key;
use knoblab_core::sim::RenderMode;
use knoblab_eval::vlm::{
    AgentSettings, CoordConvention, Endpoint, Flavor, HistoryWindow, Perturbation, TypedNumbers,
};

/// The form's fields, one signal each; provided as a context value.
#[derive(Clone, Copy)]
pub struct Form {
    /// Who plays: a model, a replay file, the oracle or the random agent.
    pub source: RwSignal<Source>,
    /// The model API's request format.
    pub flavor: RwSignal<Flavor>,
    /// The API's base URL.
    pub base_url: RwSignal<String>,
    /// In memory; in localStorage only while `remember` is ticked.
    pub key: RwSignal<String>,
    /// Whether the key is kept in localStorage.
    pub remember: RwSignal<bool>,
    /// The model's name, as the API knows it.
    pub model: RwSignal<String>,
    /// The sampling temperature, as typed.
    pub temperature: RwSignal<String>,
    /// The most tokens an answer may have, as typed.
    pub max_tokens: RwSignal<String>,
    /// Seconds a request may take, as typed.
    pub timeout_s: RwSignal<String>,
    /// Episodes run at once, as typed.
    pub concurrency: RwSignal<String>,
    /// How many times a failed request is tried again, as typed.
    pub retries: RwSignal<String>,
    /// The coordinates the model is asked to answer in.
    pub coords: RwSignal<CoordConvention>,
    /// How many past turns each request shows.
    pub history: RwSignal<HistoryWindow>,
    /// The budget multiplier λ, as typed.
    pub lambda: RwSignal<String>,
    /// What is done to each picture before it is sent, if anything.
    pub perturbation: RwSignal<Option<Perturbation>>,
    /// The seed of the perturbation's patches, as typed.
    pub seed: RwSignal<String>,
    /// How the views are drawn: static (the paper's) or live.
    pub render: RwSignal<RenderMode>,
    /// Dollars per million input tokens, as typed (empty for no cost).
    pub price_in: RwSignal<String>,
    /// Dollars per million output tokens, as typed (empty for no cost).
    pub price_out: RwSignal<String>,
}

impl Default for Form {
    /// The form with the default settings, and the key if one was remembered.
    fn default() -> Form {
        let d = AgentSettings::default();
        let remembered = key::remembered();
        Form {
            source: RwSignal::new(Source::Model),
            flavor: RwSignal::new(d.endpoint.flavor),
            base_url: RwSignal::new(d.endpoint.base_url.clone()),
            remember: RwSignal::new(remembered.is_some()),
            key: RwSignal::new(remembered.unwrap_or_default()),
            model: RwSignal::new(d.endpoint.model.clone()),
            temperature: RwSignal::new(d.endpoint.temperature.to_string()),
            max_tokens: RwSignal::new(d.endpoint.max_tokens.to_string()),
            timeout_s: RwSignal::new((d.timeout_ms / 1_000).to_string()),
            concurrency: RwSignal::new(d.concurrency.to_string()),
            retries: RwSignal::new(d.retry.retries.to_string()),
            coords: RwSignal::new(d.coords),
            history: RwSignal::new(d.history),
            lambda: RwSignal::new(d.lambda.to_string()),
            perturbation: RwSignal::new(d.perturbation),
            seed: RwSignal::new(d.seed.to_string()),
            render: RwSignal::new(d.render),
            price_in: RwSignal::new(String::new()),
            price_out: RwSignal::new(String::new()),
        }
    }
}

impl Form {
    /// Shows a stored batch's settings (when it is resumed).
    pub fn show(&self, source: Source, s: &AgentSettings) {
        self.source.set(source);
        self.flavor.set(s.endpoint.flavor);
        self.base_url.set(s.endpoint.base_url.clone());
        self.model.set(s.endpoint.model.clone());
        let typed = TypedNumbers::of(s);
        self.temperature.set(typed.temperature);
        self.max_tokens.set(typed.max_tokens);
        self.timeout_s.set(typed.timeout_s);
        self.concurrency.set(typed.concurrency);
        self.retries.set(typed.retries);
        self.lambda.set(typed.lambda);
        self.seed.set(typed.seed);
        self.price_in.set(typed.price_in);
        self.price_out.set(typed.price_out);
        self.coords.set(s.coords);
        self.history.set(s.history);
        self.perturbation.set(s.perturbation);
        self.render.set(s.render);
    }

    /// The numbers as typed.
    fn typed(&self) -> TypedNumbers {
        TypedNumbers {
            temperature: self.temperature.get_untracked(),
            max_tokens: self.max_tokens.get_untracked(),
            timeout_s: self.timeout_s.get_untracked(),
            concurrency: self.concurrency.get_untracked(),
            retries: self.retries.get_untracked(),
            lambda: self.lambda.get_untracked(),
            seed: self.seed.get_untracked(),
            price_in: self.price_in.get_untracked(),
            price_out: self.price_out.get_untracked(),
        }
    }

    /// The settings typed, or every problem found: the numbers are read
    /// by the core's domains (`TypedNumbers::read_into`), as the CLI's
    /// flags and Python's arguments are.
    pub fn settings(&self) -> Result<AgentSettings, Vec<String>> {
        let mut settings = AgentSettings::default();
        settings.endpoint.flavor = self.flavor.get_untracked();
        settings.endpoint.base_url = self.base_url.get_untracked().trim().to_string();
        settings.endpoint.model = self.model.get_untracked().trim().to_string();
        settings.coords = self.coords.get_untracked();
        settings.history = self.history.get_untracked();
        settings.perturbation = self.perturbation.get_untracked();
        settings.render = self.render.get_untracked();
        let mut problems = match self.typed().read_into(&mut settings) {
            Ok(()) => Vec::new(),
            Err(p) => p,
        };
        if problems.is_empty() && self.source.get_untracked() == Source::Model {
            problems.extend(settings.problems());
        }
        if problems.is_empty() {
            Ok(settings)
        } else {
            Err(problems)
        }
    }
}

/// A labelled text input bound to a signal.
#[component]
fn TextField(
    label: &'static str,
    testid: &'static str,
    value: RwSignal<String>,
    #[prop(default = "text")] kind: &'static str,
    #[prop(optional)] placeholder: &'static str,
) -> impl IntoView {
    view! {
        <label class="field">
            <span>{label}</span>
            <input
                type=kind
                data-testid=testid
                placeholder=placeholder
                autocomplete="off"
                spellcheck="false"
                prop:value=move || value.get()
                on:input=move |ev| value.set(event_target_value(&ev))
            />
        </label>
    }
}

/// A labelled select over fixed choices.
#[component]
fn Choice<T>(
    label: &'static str,
    testid: &'static str,
    value: RwSignal<T>,
    choices: Vec<(T, String)>,
) -> impl IntoView
where
    T: Clone + PartialEq + Send + Sync + 'static,
{
    let options = choices.clone();
    view! {
        <label class="field">
            <span>{label}</span>
            <select
                data-testid=testid
                on:change=move |ev| {
                    let i: usize = event_target_value(&ev).parse().unwrap_or(0);
                    if let Some((v, _)) = choices.get(i) {
                        value.set(v.clone());
                    }
                }
            >
                {options
                    .into_iter()
                    .enumerate()
                    .map(|(i, (v, name))| {
                        view! {
                            <option value=i.to_string() selected=move || value.with(|c| *c == v)>
                                {name}
                            </option>
                        }
                    })
                    .collect_view()}
            </select>
        </label>
    }
}

/// The settings form.
#[component]
pub fn SettingsForm(
    /// Whether the fields are locked (while a run is going).
    #[prop(into)]
    disabled: Signal<bool>,
) -> impl IntoView {
    let form = expect_context::<Form>();
    let sources = vec![
        (Source::Model, "A model (API)".to_string()),
        (Source::Replay, "Replay a trajectory file".to_string()),
        (Source::Oracle, "Oracle (no model)".to_string()),
        (Source::Random, "Random agent (no model)".to_string()),
    ];
    let flavors = vec![
        (
            Flavor::OpenAi,
            "OpenAI-compatible (OpenAI, OpenRouter, vLLM, llama.cpp, Ollama, LM Studio, Gemini)"
                .to_string(),
        ),
        (Flavor::Anthropic, "Anthropic messages".to_string()),
    ];
    let coords: Vec<_> = [
        CoordConvention::Scale1000,
        CoordConvention::Unit,
        CoordConvention::Pixels,
    ]
    .into_iter()
    .map(|c| (c, c.name().to_string()))
    .collect();
    let renders = vec![
        (RenderMode::Static, "static (paper)".to_string()),
        (RenderMode::Live, "live (drawn for the state)".to_string()),
    ];
    let histories = HistoryWindow::CHOICES
        .into_iter()
        .map(|h| {
            let name = match h {
                HistoryWindow::Full => "full".to_string(),
                HistoryWindow::Last(n) => format!("{n} turns"),
            };
            (h, name)
        })
        .collect();
    let perturbations: Vec<_> = std::iter::once((None, "none".to_string()))
        .chain(
            Perturbation::CHOICES
                .into_iter()
                .map(|p| (Some(p), p.to_string())),
        )
        .collect();
    let is_model = move || form.source.get() == Source::Model;
    // Only a model agent (or its replay) is sent pictures to perturb.
    let sends_images = move || matches!(form.source.get(), Source::Model | Source::Replay);
    let local_warning = move || {
        let endpoint = Endpoint {
            flavor: form.flavor.get(),
            base_url: form.base_url.get(),
            model: String::new(),
            temperature: 0.0,
            max_tokens: 1,
        };
        endpoint.is_local()
    };
    view! {
        <fieldset class="agent-form" prop:disabled=move || disabled.get() data-testid="agent-form">
            <legend>"Who plays"</legend>
            <Choice label="Agent" testid="agent-source" value=form.source choices=sources />
            <Show when=is_model>
                <Choice label="API" testid="agent-flavor" value=form.flavor choices=flavors.clone() />
                <TextField label="Base URL" testid="agent-base-url" value=form.base_url placeholder="https://api.openai.com/v1" />
                <Show when=local_warning>
                    <p class="hint" data-testid="agent-local-hint">
                        "A local server: it must allow this page's origin (CORS; for Ollama set OLLAMA_ORIGINS), "
                        "and Chrome asks permission for local network access from a public page."
                    </p>
                </Show>
                <label class="field">
                    <span>"API key"</span>
                    <input
                        type="password"
                        data-testid="agent-key"
                        autocomplete="off"
                        placeholder="empty for servers that need none"
                        prop:value=move || form.key.get()
                        on:input=move |ev| {
                            let k = event_target_value(&ev);
                            key::remember(&k, form.remember.get_untracked());
                            form.key.set(k);
                        }
                    />
                </label>
                <label class="check">
                    <input
                        type="checkbox"
                        data-testid="agent-remember"
                        prop:checked=move || form.remember.get()
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            form.remember.set(on);
                            key::remember(&form.key.get_untracked(), on);
                        }
                    />
                    <span>"Remember the key on this device (localStorage); otherwise it is forgotten on reload"</span>
                </label>
                <TextField label="Model" testid="agent-model" value=form.model />
                <div class="field-row">
                    <TextField label="Temperature" testid="agent-temperature" value=form.temperature kind="number" />
                    <TextField label="Max tokens" testid="agent-max-tokens" value=form.max_tokens kind="number" />
                    <TextField label="Timeout (s)" testid="agent-timeout" value=form.timeout_s kind="number" />
                    <TextField label="Retries" testid="agent-retries" value=form.retries kind="number" />
                </div>
                <Choice label="The model's coordinates" testid="agent-coords" value=form.coords choices=coords.clone() />
                <div class="field-row">
                    <TextField label="Price in ($ / M tokens)" testid="agent-price-in" value=form.price_in kind="number" />
                    <TextField label="Price out ($ / M tokens)" testid="agent-price-out" value=form.price_out kind="number" />
                </div>
            </Show>
            <div class="field-row">
                <Choice label="History window" testid="agent-history" value=form.history choices=histories />
                <TextField label="λ (budget)" testid="agent-lambda" value=form.lambda kind="number" />
                <TextField label="Concurrency" testid="agent-concurrency" value=form.concurrency kind="number" />
                <Choice label="Pictures" testid="agent-render" value=form.render choices=renders />
            </div>
            <div class="field-row">
                <Show when=sends_images>
                    <Choice label="Image perturbation" testid="agent-perturbation" value=form.perturbation choices=perturbations.clone() />
                </Show>
                <Show when=move || form.source.get() != Source::Oracle>
                    <TextField label="Seed" testid="agent-seed" value=form.seed kind="number" />
                </Show>
            </div>
        </fieldset>
    }
}

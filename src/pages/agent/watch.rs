//! Watching a run: the progress bar (done, ETA, tokens, cost) and the
//! steps of the episode being played, each with the picture sent and the
//! point chosen drawn on it, the reasoning, the action, the feedback,
//! budgets, tokens and time. Model text is shown as text, never as HTML.

use leptos::prelude::*;

use super::runner::StepView;
use knoblab_core::display::percent;
use knoblab_eval::vlm::batch::{human_duration, Progress};

/// The progress bar and its figures.
#[component]
pub fn ProgressBar(
    /// The batch's progress.
    #[prop(into)]
    progress: Signal<Progress>,
) -> impl IntoView {
    let width = move || format!("width: {:.1}%", progress.with(|p| p.fraction() * 100.0));
    view! {
        <div class="agent-progress" data-testid="agent-progress">
            <div class="bar" role="progressbar"
                aria-valuemin="0"
                aria-valuemax=move || progress.with(|p| p.total)
                aria-valuenow=move || progress.with(|p| p.done)
            >
                <div class="fill" style=width></div>
            </div>
            <p class="figures">
                <span data-testid="agent-done">{move || progress.with(|p| format!("{} / {} episodes", p.done, p.total))}</span>
                <span data-testid="agent-api-errors">
                    {move || progress.with(|p| format!("{} api_error", p.api_errors))}
                </span>
                <span>{move || progress.with(|p| match p.eta_ms {
                    Some(ms) if p.done < p.total => format!("about {} left", human_duration(ms)),
                    _ => String::new(),
                })}</span>
                <span data-testid="agent-tokens">{move || progress.with(|p| format!(
                    "{} tokens in, {} out", p.usage.input_tokens, p.usage.output_tokens))}</span>
                <span data-testid="agent-cost">{move || progress.with(|p| match p.cost {
                    Some(c) => format!("≈ ${c:.4}"),
                    None => "no price set".to_string(),
                })}</span>
                <span>{move || progress.with(|p| format!("{}%", percent(Some(p.fraction()))))}</span>
            </p>
        </div>
    }
}

/// One step's card.
#[component]
pub fn StepCard(
    /// The step shown.
    step: StepView,
) -> impl IntoView {
    let marker = step.point.map(|p| {
        let (x, y) = p.fractions();
        let style = format!("left: {:.1}%; top: {:.1}%", x * 100.0, y * 100.0);
        view! { <span class="marker" style=style aria-label=format!("point [{}, {}]", p.x, p.y)></span> }
    });
    let turn = step.turn.clone();
    let record = step.record.clone();
    let reasoning = turn.as_ref().and_then(|t| t.reasoning.clone());
    let parse_error = turn.as_ref().and_then(|t| t.parse_error.clone());
    let api_error = turn.as_ref().and_then(|t| t.api_error.clone());
    let action = match (&turn, &record) {
        (Some(t), _) => t.action.clone(),
        (None, Some(r)) => r.action.clone(),
        (None, None) => String::new(),
    };
    let tokens = turn.as_ref().map(|t| {
        format!(
            "{} in, {} out · {} ms · {} attempt{}",
            t.usage.input_tokens,
            t.usage.output_tokens,
            t.elapsed_ms,
            t.attempts,
            if t.attempts == 1 { "" } else { "s" }
        )
    });
    let outcome_class = match (&api_error, &record) {
        (Some(_), _) => "step api-error",
        (None, Some(r)) if !r.goals_reached.is_empty() => "step goal",
        _ => "step",
    };
    view! {
        <article class=outcome_class data-testid="agent-step">
            <figure class="shot">
                <img src=step.image_url.clone() alt=format!("view {} as sent at step {}", step.view, step.number) />
                {marker}
            </figure>
            <div class="details">
                <h3>{format!("Step {} · {}", step.number, step.view)}</h3>
                <dl>
                    {reasoning.map(|r| view! { <dt>"Reasoning"</dt><dd><pre class="reply">{r}</pre></dd> })}
                    {(!action.is_empty()).then(|| view! {
                        <dt>"Action"</dt>
                        <dd><code data-testid="agent-step-action">{action}</code></dd>
                    })}
                    {parse_error.map(|e| view! { <dt>"Parse error"</dt><dd class="bad">{e}</dd> })}
                    {api_error.map(|e| view! { <dt>"API error"</dt><dd class="bad" data-testid="agent-step-api-error">{e}</dd> })}
                    {record.as_ref().map(|r| view! {
                        <dt>"Feedback"</dt>
                        <dd data-testid="agent-step-feedback">{r.feedback.clone()}</dd>
                        <dt>"Outcome"</dt>
                        <dd>{r.outcome.as_str()}
                            {(!r.goals_reached.is_empty()).then_some(" · goal reached")}</dd>
                        <dt>"Budget left"</dt>
                        <dd>{format!("global {} · local {}", r.budget_global, r.budget_local)}</dd>
                    })}
                    {tokens.map(|t| view! { <dt>"Tokens, time"</dt><dd>{t}</dd> })}
                </dl>
            </div>
        </article>
    }
}

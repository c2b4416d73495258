//! The Agent page (issue #10): run a model, a replay, the oracle or the
//! random agent on devices of the library, one episode watched step by
//! step or a batch with progress, pause, resume and cancel. Every finished
//! episode is saved in IndexedDB as it ends; reopening the page offers to
//! resume an unfinished batch. Exports: the episodes as JSON Lines (every
//! setting, never the key) and the metrics table as CSV, or straight to
//! the Score page.
//!
//! - [`state`]: the page's state; starting, resuming, batch events.
//! - [`form`]: the settings form.
//! - [`selection`]: the chooser (all, a category, devices by search;
//!   task kinds or ids; repeats) with its counts, and the replay file.
//! - [`controls`]: run controls, the resume offer, problems, exports.
//! - [`watch`]: progress and step cards.
//! - [`results`]: the metrics table and `api_error` episodes.
//! - [`runner`]: the tasks that play a batch's episodes.
//! - [`library`]: the library index, the generated devices' manifest,
//!   task lists, and loading devices.

pub mod controls;
pub mod form;
pub mod library;
pub mod results;
pub mod runner;
pub mod selection;
pub mod state;
pub mod watch;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::browser::http;
use crate::browser::indexeddb::Source;
use knoblab_core::bundle::Bundle;
use knoblab_eval::vlm::batch::Progress;
use knoblab_eval::vlm::BatchReport;

use controls::{Controls, Exports, Problems, ResumeBanner};
use form::{Form, SettingsForm};
use results::Results;
use selection::Chooser;
use state::{look_for_unfinished, open_library, Run};
use watch::{ProgressBar, StepCard};

/// The page: the settings, what to run and the run side by side on a
/// desktop (stacked on a phone), then the results.
#[component]
pub fn AgentPage() -> impl IntoView {
    let form = Form::default();
    let run = Run::default();
    provide_context(form);
    spawn_local(open_library(run));
    spawn_local(look_for_unfinished(run));
    on_cleanup(library::cancel_loads);

    let progress = Signal::derive(move || {
        let total = run
            .meta
            .with(|m| m.as_ref().map_or(0, |m| m.run.items.len()));
        let prices = run
            .meta
            .with(|m| m.as_ref().map(|m| (m.run.source, m.run.settings.prices)));
        run.records.with(|records| {
            Progress::new(
                records,
                total,
                run.finished_here.get(),
                http::now_ms().saturating_sub(run.started_ms.get()),
                |u| match prices {
                    Some((Source::Model, p)) => p.cost(u),
                    _ => None,
                },
            )
        })
    });
    let report = Memo::new(move |_| {
        let records = run.records.get();
        if records.is_empty() {
            return None;
        }
        let bundles: Vec<Bundle> = run
            .bundles
            .with(|b| b.values().map(|b| b.as_ref().clone()).collect());
        Some(BatchReport::new(&bundles, &records).map_err(|e| e.to_string()))
    });

    view! {
        <section class="page agent" data-testid="agent-page">
            <h1>"Agent"</h1>
            <p class="lead">
                "Run a vision-language model on the devices with your own API key, straight from this page: "
                "the key goes only to the address you type. Without a key, replay a trajectory file or run the oracle or random agent."
            </p>
            <ResumeBanner run=run form=form />
            <div class="agent-layout">
                <div class="agent-settings">
                    <SettingsForm disabled=run.active />
                </div>
                <div class="agent-choose">
                    <Chooser run=run form=form />
                </div>
                <div class="agent-run" data-testid="agent-run">
                    <Controls run=run form=form />
                    <Problems run=run />
                    <Show when=move || run.meta.with(Option::is_some)>
                        <ProgressBar progress=progress />
                    </Show>
                    <Watched run=run />
                </div>
            </div>
            <Results report=report records=run.records />
            <Exports run=run report=report />
        </section>
    }
}

/// The episode being watched: its task and its steps, newest first.
#[component]
fn Watched(run: Run) -> impl IntoView {
    move || {
        run.watched.get().map(|(item, instruction)| {
            view! {
                <section class="watched" data-testid="agent-watched">
                    <h2>{format!("{} · task {} · run {}", item.bundle_id, item.task_id, item.repeat + 1)}</h2>
                    <p class="instruction">{instruction.unwrap_or_default()}</p>
                    <div class="steps">
                        {move || run.steps.get().into_iter().rev().map(|step| view! { <StepCard step=step /> }).collect_view()}
                    </div>
                </section>
            }
        })
    }
}

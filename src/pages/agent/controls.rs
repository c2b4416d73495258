//! The run's controls (start, pause, resume, cancel), the offer to resume
//! a stored batch, problems, and the exports.

use leptos::prelude::*;

use super::runner::RunState;
use crate::browser::files;
use crate::browser::indexeddb::{BatchState, Source};
use knoblab_core::metrics::file::EpisodeStatus;
use knoblab_eval::vlm::{BatchReport, EpisodeRecord};

use super::form::Form;
use super::state::{resume, start, Run};

/// The offer to resume an unfinished batch found in the browser.
#[component]
pub fn ResumeBanner(
    /// The page's state, with the batch found.
    run: Run,
    /// The form, set to the batch's settings when it is resumed.
    form: Form,
) -> impl IntoView {
    move || {
        run.resumable.get().map(|(meta, done)| {
            let total = meta.run.items.len();
            // What was chosen, counted as the library counts it now.
            let chosen = meta.run.selection.as_ref().and_then(|s| {
                run.catalog.with(|c| match c {
                    Some(Ok(c)) => Some(format!(" Chosen: {}.", c.summary(s))),
                    _ => None,
                })
            });
            let for_resume = meta.clone();
            let for_discard = meta.clone();
            view! {
                <div class="notice resume" data-testid="agent-resume-banner">
                    <p>{format!("An unfinished batch ({}) was found in this browser: {done} of {total} episodes are done.",
                        match meta.run.source {
                            Source::Model => format!("{} at {}", meta.run.settings.endpoint.model, meta.run.settings.endpoint.base_url),
                            other => format!("{} agent", other.name()),
                        })}{chosen}</p>
                    <button data-testid="agent-resume" on:click=move |_| resume(run, form, for_resume.clone())>"Resume it"</button>
                    <button class="secondary" data-testid="agent-discard" on:click=move |_| {
                        let mut meta = for_discard.clone();
                        meta.state = BatchState::Cancelled;
                        run.resumable.set(None);
                        run.persist(meta);
                    }>"Discard"</button>
                </div>
            }
        })
    }
}

/// Start, pause, resume and cancel.
#[component]
pub fn Controls(
    /// The page's state.
    run: Run,
    /// The settings a run starts with.
    form: Form,
) -> impl IntoView {
    let pause = move |_| {
        let paused = !run.paused.get_untracked();
        run.batch.with_value(|b| {
            if let Some(b) = b {
                b.state.set(if paused {
                    RunState::Paused
                } else {
                    RunState::Running
                });
            }
        });
        run.paused.set(paused);
    };
    let cancel = move |_| {
        run.batch.with_value(|b| {
            if let Some(b) = b {
                b.cancel();
            }
        });
        if let Some(mut meta) = run.meta.get_untracked() {
            meta.state = BatchState::Cancelled;
            run.meta.set(Some(meta.clone()));
            run.persist(meta);
        }
    };
    view! {
        <div class="agent-controls">
            <Show
                when=move || run.active.get()
                fallback=move || {
                    // Both buttons wait for the devices' task lists.
                    let waiting = move || !run.tasks_read.get();
                    let why = move || waiting().then_some("reading the devices' tasks");
                    view! {
                        <button data-testid="agent-run-one" disabled=waiting title=why on:click=move |_| start(run, form, true)>
                            "Run one episode"
                        </button>
                        <button data-testid="agent-run-batch" disabled=waiting title=why on:click=move |_| start(run, form, false)>
                            "Run batch"
                        </button>
                    }
                }
            >
                <button data-testid="agent-pause" on:click=pause>
                    {move || if run.paused.get() { "Resume" } else { "Pause" }}
                </button>
                <button class="danger" data-testid="agent-cancel" on:click=cancel>"Cancel"</button>
            </Show>
            <span class="status" data-testid="agent-status">{move || {
                if run.paused.get() { Some("Paused: the episodes in progress stop after their current step.".to_string()) }
                else { run.status.get() }
            }}</span>
        </div>
    }
}

/// Problems to show: bad settings, unloadable devices, unsaved episodes.
#[component]
pub fn Problems(
    /// The page's state, whose problems are listed.
    run: Run,
) -> impl IntoView {
    view! {
        <Show when=move || run.problems.with(|p| !p.is_empty())>
            <ul class="problems" data-testid="agent-problems">
                {move || run.problems.get().into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}
            </ul>
        </Show>
    }
}

/// The exports: episodes, metrics, and the Score page.
#[component]
pub fn Exports(
    /// The page's state: the batch and its episodes.
    run: Run,
    /// The metrics of the scored episodes, once there are some.
    report: Memo<Option<Result<BatchReport, String>>>,
) -> impl IntoView {
    let name = move || {
        run.meta.with_untracked(|m| {
            m.as_ref()
                .map_or("knoblab".into(), |m| format!("knoblab-{}", m.id))
        })
    };
    let fail = move |e: String| run.problems.update(|p| p.push(e));
    let export_lines = move |_| {
        // In plan order: episodes finish in any order when several run.
        let lines = run.records.with_untracked(|r| {
            run.meta.with_untracked(|meta| match meta {
                Some(meta) => EpisodeRecord::to_lines(meta.run.in_plan_order(r)),
                None => EpisodeRecord::to_lines(r),
            })
        });
        match lines {
            Ok(text) => {
                if let Err(e) =
                    files::download(&format!("{}.jsonl", name()), "application/x-ndjson", &text)
                {
                    fail(e);
                }
            }
            Err(e) => fail(e.to_string()),
        }
    };
    let export_csv = move |_| {
        let label = run.meta.with_untracked(|m| match m {
            Some(m) if m.run.source == Source::Model => m.run.settings.endpoint.model.clone(),
            Some(m) => m.run.source.name().to_string(),
            None => String::new(),
        });
        match report.get_untracked() {
            Some(Ok(r)) => {
                if let Err(e) = files::download(
                    &format!("{}-metrics.csv", name()),
                    "text/csv",
                    &r.to_csv(&label),
                ) {
                    fail(e);
                }
            }
            Some(Err(e)) => fail(e),
            None => {}
        }
    };
    let to_score = move |_| {
        let scored: Vec<EpisodeRecord> = run.records.with_untracked(|r| {
            r.iter()
                .filter(|r| r.status != EpisodeStatus::ApiError)
                .cloned()
                .collect()
        });
        match EpisodeRecord::to_lines(&scored) {
            Ok(text) => {
                if let Err(e) = files::open_in_score(&text) {
                    fail(e);
                }
            }
            Err(e) => fail(e.to_string()),
        }
    };
    let none = move || run.records.with(Vec::is_empty);
    view! {
        <div class="agent-exports">
            <button data-testid="agent-export-jsonl" disabled=none on:click=export_lines>"Export episodes (JSON Lines)"</button>
            <button data-testid="agent-export-csv" disabled=none on:click=export_csv>"Export metrics (CSV)"</button>
            <button class="secondary" data-testid="agent-open-score" disabled=none on:click=to_score>"Open in Score page"</button>
        </div>
    }
}

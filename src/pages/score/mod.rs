//! The scoring page (`#/score`): drop results files (and ground truth),
//! score them in a Web Worker with the core's scorers, and show each
//! benchmark's tables, charts, items and a leaderboard.
//!
//! - [`worker`]: the worker, its wasm entry points and the page's handle.
//! - [`report`]: one report view (tables, charts, items, drill-down).
//! - [`leaderboard`]: the sortable leaderboard and its exports.
//! - `files`: dropped files and folders, samples, the library and the
//!   agent page's hand-off.

pub mod files;
pub mod leaderboard;
pub mod report;
pub mod worker;

use leptos::prelude::*;

use files::{fetch_library, fetch_samples, take_handoff, SampleSet};
use knoblab_app::job::{JobOptions, Outcome, Progress};
use knoblab_score::detect::{check_size, Format};
use knoblab_score::view::ItemView;
use leaderboard::LeaderboardView;
use report::Report;
use worker::{JobFile, Message, ScoreWorker};

/// Where a job is.
#[derive(Debug, Clone, PartialEq)]
enum Status {
    Idle,
    Running(Progress),
    /// Scored, in this many seconds (from the files being taken to the
    /// report drawn: [`after_next_paint`]), with EPIC-Bench merged from
    /// this many workers' shards.
    Done(f64, usize),
    Cancelled,
    Failed(String),
}

fn now_ms() -> f64 {
    window().performance().map_or(0.0, |p| p.now())
}

/// A timing mark on the page's performance timeline (`page: outcome in`),
/// beside the workers' (`worker 0: shard scored`), for the e2e timing.
fn mark(name: &str) {
    if let Some(p) = window().performance() {
        let _ = p.mark(name);
    }
}

/// Calls `f` once the browser has drawn what the current task changed: a
/// task queued from the next animation frame's callback runs after that
/// frame's style, layout and paint.
fn after_next_paint(f: impl FnOnce() + 'static) {
    use wasm_bindgen::{closure::Closure, JsCast};
    let frame = Closure::once_into_js(move || {
        let then = Closure::once_into_js(f);
        let _ =
            window().set_timeout_with_callback_and_timeout_and_arguments_0(then.unchecked_ref(), 0);
    });
    let _ = window().request_animation_frame(frame.unchecked_ref());
}

/// The Score page: drop results files (and ground truth), read the reports.
#[component]
pub fn ScorePage() -> impl IntoView {
    let files = RwSignal::new_local(Vec::<JobFile>::new());
    let options = RwSignal::new(JobOptions::default());
    let status = RwSignal::new(Status::Idle);
    let outcome = RwSignal::new(None::<Outcome>);
    let refused = RwSignal::new(Vec::<String>::new());
    let samples = RwSignal::new(Vec::<SampleSet>::new());
    let library = RwSignal::new_local(Vec::<JobFile>::new());
    let running = StoredValue::new_local(None::<ScoreWorker>);
    // Which job is current: a report drawn after its job was replaced or
    // cancelled does not set the status.
    let job_id = StoredValue::new(0_u64);

    let cancel = move || {
        job_id.update_value(|n| *n += 1);
        running.update_value(|w| {
            if let Some(w) = w.take() {
                w.cancel();
            }
        });
    };
    let run = move || {
        cancel();
        let list = files.get_untracked();
        if list.is_empty() {
            status.set(Status::Idle);
            outcome.set(None);
            return;
        }
        let started = now_ms();
        mark("page: run");
        let this_job = job_id.get_value();
        status.set(Status::Running(Progress {
            done: 0,
            total: 1,
            stage: "starting the worker".into(),
        }));
        let on_message = move |m: Message| match m {
            Message::Progress(p) => status.set(Status::Running(p)),
            // The workers stay: the merging worker answers the drill-down.
            Message::Done(bytes) => {
                mark("page: outcome in");
                // Read as text (valid UTF-8 is borrowed, not copied):
                // `from_slice` built a second set of deserializers, 18.5 KB
                // more `.wasm`.
                let text = String::from_utf8_lossy(&bytes);
                match outcome_of(&text) {
                    Ok(o) => {
                        mark("page: outcome read");
                        let shards = o.epic_shards;
                        outcome.set(Some(o));
                        status.set(Status::Running(Progress {
                            done: 1,
                            total: 1,
                            stage: "drawing the report".into(),
                        }));
                        // The time covers the drawing of the report.
                        after_next_paint(move || {
                            if job_id.get_value() == this_job {
                                mark("page: report drawn");
                                status.set(Status::Done((now_ms() - started) / 1000.0, shards));
                                // The next job's workers, started while the report is read.
                                worker::warm_up();
                            }
                        });
                    }
                    Err(_) => status.set(Status::Failed(error_of(&text))),
                }
            }
            Message::Error(e) => {
                running.update_value(|w| {
                    if let Some(w) = w.take() {
                        w.cancel();
                    }
                });
                status.set(Status::Failed(e));
            }
        };
        let bundles = library.get_untracked();
        let mut opts = options.get_untracked();
        // The SWITCH submission's time is the page's clock when scoring starts.
        opts.switch.report.submission_time = js_sys::Date::new_0().to_iso_string().as_string();
        match ScoreWorker::start(list, bundles, &opts, on_message) {
            Ok(w) => running.set_value(Some(w)),
            Err(e) => status.set(Status::Failed(e)),
        }
    };
    let add = move |new: Vec<(JobFile, f64)>| {
        let mut problems = Vec::new();
        let mut kept = Vec::new();
        for (f, size) in new {
            match check_size(&f.path, size as u64) {
                Ok(()) => kept.push(f),
                Err(e) => problems.push(e.to_string()),
            }
        }
        refused.set(problems);
        if kept.is_empty() {
            return;
        }
        files.update(|list| {
            for f in kept {
                list.retain(|old| old.path != f.path);
                list.push(f);
            }
        });
        run();
    };
    let clear = move || {
        cancel();
        files.set(Vec::new());
        options.set(JobOptions::default());
        outcome.set(None);
        refused.set(Vec::new());
        status.set(Status::Idle);
    };
    let load_sample = move |set: SampleSet| {
        cancel();
        files.set(set.job_files());
        options.set(set.options.clone());
        run();
    };

    // The samples, the library's bundles and a hand-off from the agent page;
    // then the workers of the first job are started.
    leptos::task::spawn_local(async move {
        samples.set(fetch_samples().await);
        library.set(fetch_library().await);
        if let Some(f) = take_handoff() {
            add(vec![f]);
        }
        worker::warm_up();
    });
    on_cleanup(move || {
        cancel();
        worker::stand_down();
    });

    let override_format = move |path: String, key: String| {
        options.update(|o| {
            match Format::from_key(&key) {
                Some(f) => o.overrides.insert(path, f),
                None => o.overrides.remove(&path),
            };
        });
        run();
    };

    view! {
        <section class="page score-page" data-testid="score-page">
            <h1>"Score"</h1>
            <p class="lede">
                "Drop a results file of EPIC-Bench, FineState-Bench or SWITCH, or KnobLab trajectories, with the benchmark's ground truth (a folder or zip), and get the paper's tables. Everything is computed in your browser; nothing is uploaded."
            </p>
            <files::DropZone on_files=Callback::new(add) />
            <div class="sample-bar">
                <span>"Or try a shipped sample: "</span>
                {move || samples.get().into_iter().map(|s| {
                    let label = s.name.clone();
                    let id = s.id.clone();
                    view! { <button data-testid=format!("sample-{id}") title=label.clone() on:click=move |_| load_sample(s.clone())>{id.clone()}</button> }
                }).collect_view()}
                <button class="quiet" data-testid="clear" on:click=move |_| clear()>"Clear"</button>
            </div>
            <Options options=options on_change=Callback::new(move |()| run()) />
            <ul class="refused" data-testid="refused">
                {move || refused.get().into_iter().map(|r| view! { <li class="error">{r}</li> }).collect_view()}
            </ul>
            <StatusView status=status on_cancel=Callback::new(move |()| { cancel(); status.set(Status::Cancelled); }) />
            // Read in place: each report is copied once, into its view.
            {move || outcome.with(|o| o.as_ref().map(|o| {
                let image_url = Callback::new(move |path: String| files.with_untracked(|list| files::image_url(list, &path)));
                let fetch_item = Callback::new(move |(file, index, reply): (String, usize, Callback<Result<ItemView, String>>)| {
                    running.with_value(|w| match w {
                        Some(w) => w.item(&file, index, move |r| reply.run(r)),
                        None => reply.run(Err("the scoring worker is gone; score the files again".into())),
                    });
                });
                view! {
                    <FileList entries=o.files.clone() overrides=Signal::derive(move || options.with(|o| o.overrides.clone())) on_override=Callback::new(move |(p, k)| override_format(p, k)) />
                    <ul class="failures" data-testid="failures">
                        {o.failures.iter().map(|f| view! { <li class="error" data-testid="failure">{f.message.clone()}</li> }).collect_view()}
                    </ul>
                    {o.leaderboards.iter().filter(|b| b.rows.len() > 1).cloned().map(|b| view! { <LeaderboardView board=b /> }).collect_view()}
                    {o.reports.iter().cloned().map(|v| {
                        let downloads: Vec<_> = o.downloads.iter().filter(|d| d.file == v.file).cloned().collect();
                        view! { <Report view=v image_url=image_url downloads=downloads fetch_item=fetch_item /> }
                    }).collect_view()}
                    {o.leaderboards.iter().filter(|b| b.rows.len() == 1).cloned().map(|b| view! { <LeaderboardView board=b /> }).collect_view()}
                }
            }))}
        </section>
    }
}

/// The outcome the page's merging worker sends, as JSON text.
#[allow(
    clippy::disallowed_methods,
    reason = "the page's own worker wrote it, not a user; a key check would scan megabytes again"
)]
fn outcome_of(text: &str) -> Result<Outcome, serde_json::Error> {
    serde_json::from_str::<Outcome>(text)
}

/// The message of a worker reply that is not an outcome.
#[allow(
    clippy::disallowed_methods,
    reason = "the outcome and errors the page's own worker sends, not a user's file (a key check would scan megabytes twice)"
)]
fn error_of(text: &str) -> String {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v.get("error").and_then(|e| e.as_str()).map(str::to_string))
        .unwrap_or_else(|| "the worker's reply could not be read".into())
}

/// The options that change the numbers.
#[component]
fn Options(options: RwSignal<JobOptions>, on_change: Callback<()>) -> impl IntoView {
    let text = move |get: fn(&JobOptions) -> Option<String>,
                     put: fn(&mut JobOptions, Option<String>),
                     testid: &'static str,
                     label: &'static str,
                     hint: &'static str| {
        view! {
            <label>{label}" "
                <input type="text" data-testid=testid placeholder=hint prop:value=move || options.with(|o| get(o).unwrap_or_default())
                    on:change=move |e| {
                        let v = event_target_value(&e);
                        options.update(|o| put(o, (!v.trim().is_empty()).then(|| v.trim().to_string())));
                        on_change.run(());
                    } />
            </label>
        }
    };
    view! {
        <details class="options card" data-testid="options">
            <summary>"Options"</summary>
            <div class="option-grid">
                {text(|o| o.epic_family.clone(), |o, v| o.epic_family = v, "opt-epic-family", "EPIC model family", "the results file's folder name")}
                {text(|o| o.finestate_model.clone(), |o, v| o.finestate_model = v, "opt-finestate-model", "FineState model name", "e.g. google/gemini-2.5-flash")}
                <label>"FineState parser "
                    <select data-testid="opt-finestate-parser" on:change=move |e| {
                        let v = event_target_value(&e);
                        options.update(|o| o.finestate_parser = Some(v));
                        on_change.run(());
                    }>
                        <option value="py">"py (released source)"</option>
                        <option value="pyc">"pyc (compiled copy)"</option>
                    </select>
                </label>
                <label>"SWITCH layout "
                    <select data-testid="opt-switch-layout" on:change=move |e| {
                        let v = event_target_value(&e);
                        options.update(|o| o.switch.layout = knoblab_score::switch::Layout::parse(&v).unwrap_or_default());
                        on_change.run(());
                    }>
                        <option value="paper">"paper (grouped skills, Tables 1–3, 6)"</option>
                        <option value="leaderboard">"leaderboard (task × modality, Open / Held / Overall)"</option>
                    </select>
                </label>
                {text(|o| o.switch.report.model_name.clone(), |o, v| o.switch.report.model_name = v, "opt-switch-model", "SWITCH model name", "default: the predictions' model, or the file name")}
                <label>"SWITCH model access "
                    <select data-testid="opt-switch-access" on:change=move |e| {
                        let v = event_target_value(&e);
                        options.update(|o| o.switch.report.model_access = knoblab_score::switch::report::ModelAccess::parse(&v).ok());
                        on_change.run(());
                    }>
                        <option value="">"as the predictions say"</option>
                        <option value="open_weight">"open_weight"</option>
                        <option value="closed_api">"closed_api"</option>
                    </select>
                </label>
                {text(|o| o.switch.report.submitted_by.clone(), |o, v| o.switch.report.submitted_by = v, "opt-switch-submitter", "SWITCH submitted by", "for the submission row")}
                {text(|o| (!o.switch.splits.is_empty()).then(|| o.switch.splits.join(", ")), |o, v| o.switch.splits = v.map(|v| v.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect()).unwrap_or_default(), "opt-switch-splits", "SWITCH splits", "e.g. open=mcq_open/, held=mcq_held/")}
                <label>"SWITCH: other families in Overall "
                    <input type="checkbox" data-testid="opt-switch-extra" prop:checked=move || options.with(|o| o.switch.report.include_extra_families)
                        on:change=move |e| {
                            let v = event_target_checked(&e);
                            options.update(|o| o.switch.report.include_extra_families = v);
                            on_change.run(());
                        } />
                </label>
            </div>
        </details>
    }
}

/// The progress bar and cancel button, or how the last job ended.
#[component]
fn StatusView(status: RwSignal<Status>, on_cancel: Callback<()>) -> impl IntoView {
    move || {
        match status.get() {
        Status::Idle => ().into_any(),
        Status::Running(p) => view! {
            <div class="progress" data-testid="progress" role="status">
                <progress max=p.total.max(1) value=p.done></progress>
                <span>{p.stage}</span>
                <button data-testid="cancel" on:click=move |_| on_cancel.run(())>"Cancel"</button>
            </div>
        }
        .into_any(),
        // `data-workers`: how many workers' shards EPIC-Bench files were merged from.
        Status::Done(seconds, shards) => view! {
            <p class="done" data-testid="score-time" data-seconds=seconds.to_string() data-workers=shards.to_string()>{format!("Scored in {seconds:.2} s.")}</p>
        }
        .into_any(),
        Status::Cancelled => view! { <p class="notice" data-testid="cancelled">"Cancelled."</p> }.into_any(),
        Status::Failed(e) => view! { <p class="error" data-testid="job-error">{e}</p> }.into_any(),
    }
    }
}

/// What each dropped file was taken to be, with a menu to choose another
/// format.
#[component]
fn FileList(
    entries: Vec<knoblab_app::job::FileEntry>,
    overrides: Signal<std::collections::BTreeMap<String, Format>>,
    on_override: Callback<(String, String)>,
) -> impl IntoView {
    let total = entries.len();
    // Results, and unrecognised files dropped on their own (whose format the
    // user may choose), are listed; the contents of dropped folders are
    // summed up.
    let (results, others): (Vec<_>, Vec<_>) = entries
        .into_iter()
        .partition(|e| e.results || (e.format.is_none() && !e.path.contains('/')));
    let (unknown, ground): (Vec<_>, Vec<_>) = others.into_iter().partition(|e| e.format.is_none());
    view! {
        <div class="file-list card" data-testid="file-list">
            <h2>"Files"</h2>
            <ul>
                {results.into_iter().map(|e| {
                    let path = e.path.clone();
                    let chosen = move || overrides.with(|o| o.get(&path).map(|f| f.key().to_string()).unwrap_or_default());
                    let path = e.path.clone();
                    view! {
                        <li data-testid="file-entry" class:error=e.format.is_none()>
                            <code>{e.path.clone()}</code>
                            <span class="detected" data-testid="detected">{if e.format.is_some() { format!("detected: {}", e.label) } else { e.label.clone() }}</span>
                            <select data-testid="format-override" prop:value=chosen on:change=move |ev| on_override.run((path.clone(), event_target_value(&ev)))>
                                <option value="">"as detected"</option>
                                {Format::results().map(|f| view! { <option value=f.key()>{f.describe().0}</option> }).collect_view()}
                            </select>
                            {e.warnings.iter().map(|w| view! { <span class="warning">{w.clone()}</span> }).collect_view()}
                        </li>
                    }
                }).collect_view()}
            </ul>
            {(!ground.is_empty()).then(|| view! {
                <p class="table-note" data-testid="ground-truth-files">{format!("{} of {total} files are taken as ground truth or images.", ground.len())}</p>
            })}
            {(!unknown.is_empty()).then(|| view! {
                <details class="unknown-files" data-testid="unknown-files">
                    <summary>{format!("{} of {total} files in dropped folders are not recognised (kept as ground truth)", unknown.len())}</summary>
                    <ul>{unknown.into_iter().map(|e| view! { <li>{e.label}</li> }).collect_view()}</ul>
                </details>
            })}
        </div>
    }
}

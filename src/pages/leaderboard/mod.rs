//! The Leaderboard page (`#/leaderboard`, issue #49): drop several runs
//! (trajectory files) or a folder of them, or a saved leaderboard, and
//! read them side by side: the table of `knoblab leaderboard` (each
//! metric with its 95% interval), a chart of SR with its intervals, the
//! drill-downs by category and task kind, the paired comparison of two
//! rows, and behind every cell the episodes it counts, each opening its
//! trajectory in the player (the trace viewer: pictures, actions,
//! feedback and the optimal path). `#/leaderboard?src=URL` opens a saved
//! leaderboard published beside the page (the URL is resolved against the
//! page, so any sub-path works).
//!
//! - [`compute`]: the one call into the computation, in the Leaderboard's
//!   worker (`www/board-worker.js`, on the page's module: its chunk `board`).
//! - [`view`]: the table, the chart, the episode lists, the comparison.

pub mod compute;
pub mod view;

use std::sync::Arc;

use leptos::prelude::*;

use crate::browser::fetch::read_file;
use crate::pages::score::files::DropZone;
use crate::pages::score::worker::{JobFile, Source};
use crate::route::LocationSignal;
use compute::{compute, Reply, Request};
use knoblab_app::leaderboard::publish::Published;
use knoblab_app::leaderboard::{Options, DEFAULT_RESAMPLES};

/// Where the page is.
#[derive(Debug, Clone, PartialEq)]
enum Status {
    Idle,
    Working(String),
    /// Done in this many milliseconds (reading, scoring, bootstraps).
    Done(f64),
    Failed(String),
}

fn now_ms() -> f64 {
    window().performance().map_or(0.0, |p| p.now())
}

/// The Leaderboard page.
#[component]
pub fn LeaderboardPage() -> impl IntoView {
    let location = use_context::<LocationSignal>();
    // The runs taken so far (the browser's file handles, read again at
    // each ranking, one at a time): a new drop adds to them.
    let runs = StoredValue::new_local(Vec::<JobFile>::new());
    // The board shown (its traces stay in the worker) and whether it has any.
    let board = RwSignal::new(None::<(Arc<Published>, bool)>);
    let refused = RwSignal::new(Vec::<String>::new());
    let status = RwSignal::new(Status::Idle);
    let seed = RwSignal::new(0_u64);
    let resamples = RwSignal::new(DEFAULT_RESAMPLES);
    let job = StoredValue::new(0_u64);
    // A plan file (name, bytes), when one was chosen.
    let plan_file = StoredValue::new(None::<(String, Vec<u8>)>);
    let plan_name = RwSignal::new(None::<String>);

    // Ranks `new` with the runs kept; a file that cannot be read is
    // refused and the rest (and the board shown, if nothing can be made)
    // stays.
    let rank = move |new: Vec<JobFile>| {
        job.update_value(|n| *n += 1);
        let this = job.get_value();
        let mut files = runs.get_value();
        for f in new {
            files.retain(|old| old.path != f.path);
            files.push(f);
        }
        let options = Options {
            seed: seed.get_untracked(),
            resamples: resamples.get_untracked(),
            compare: Vec::new(),
            plan: None,
        };
        let plan = plan_file.get_value();
        status.set(Status::Working(format!(
            "ranking {} file{}",
            files.len(),
            if files.len() == 1 { "" } else { "s" }
        )));
        leptos::task::spawn_local(async move {
            let started = now_ms();
            let kept = files.clone();
            let result = compute(Request::Build {
                files: kept,
                options,
                plan,
            })
            .await;
            if job.get_value() != this {
                return;
            }
            match result {
                Ok(Reply::Board {
                    board: made,
                    traced,
                    refused: r,
                    runs: names,
                }) => {
                    runs.set_value(
                        files
                            .into_iter()
                            .filter(|f| names.contains(&f.path))
                            .collect(),
                    );
                    refused.set(r);
                    match made {
                        Some(b) => {
                            board.set(Some((Arc::from(b), traced)));
                            status.set(Status::Done(now_ms() - started));
                        }
                        None => status.set(Status::Idle),
                    }
                }
                Ok(Reply::Compared(_) | Reply::Traces(_) | Reply::Saved(_)) => {
                    status.set(Status::Idle)
                }
                Err(e) => {
                    // The runs that were there stay; the new ones are dropped.
                    status.set(Status::Failed(e));
                }
            }
        });
    };

    let add = move |list: Vec<(JobFile, f64)>| {
        rank(list.into_iter().map(|(f, _)| f).collect());
    };

    // `?src=URL`: a saved leaderboard beside the page.
    if let Some(src) =
        location.and_then(|l| l.with_untracked(|l| l.param("src").map(str::to_string)))
    {
        // Fetched relative to the page, so any sub-path works.
        rank(vec![JobFile {
            path: src.clone(),
            source: Source::Url(src),
        }]);
    }

    let clear = move || {
        job.update_value(|n| *n += 1);
        runs.set_value(Vec::new());
        plan_file.set_value(None);
        plan_name.set(None);
        board.set(None);
        refused.set(Vec::new());
        status.set(Status::Idle);
    };

    view! {
        <section class="page score-page leaderboard-page" data-testid="leaderboard-page">
            <h1>"Leaderboard"</h1>
            <p class="lede">
                "Drop several runs (trajectory files, JSON Lines, as "<code>"knoblab eval"</code>" or the Agent page writes them), or a folder of them, or a saved leaderboard. Each metric comes with a 95% interval from a seeded bootstrap within device, the same numbers as "<code>"knoblab leaderboard"</code>"; every cell opens the episodes behind it. Everything is computed in your browser."
            </p>
            <DropZone
                on_files=Callback::new(add)
                title="Drop runs or a saved leaderboard here"
                hint="Trajectory files (JSON Lines), a folder of them, or the leaderboard.json this page saves."
            />
            <div class="sample-bar">
                <label>"Seed "
                    <input type="number" min="0" data-testid="lb-seed" prop:value=move || seed.get().to_string()
                        on:change=move |e| if let Ok(v) = event_target_value(&e).trim().parse() { seed.set(v); rank(Vec::new()); } />
                </label>
                <label>"Resamples "
                    <input type="number" min="0" data-testid="lb-resamples" prop:value=move || resamples.get().to_string()
                        on:change=move |e| if let Ok(v) = event_target_value(&e).trim().parse() { resamples.set(v); rank(Vec::new()); } />
                </label>
                <label title="episode keys bundle/task#repeat, one per line, or a trajectory file covering the plan">"Plan (optional) "
                    <input type="file" data-testid="lb-plan" on:change=move |e| {
                        let Some(input) = e.target().and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlInputElement>(t).ok()) else { return };
                        let Some(file) = input.files().and_then(|f| f.get(0)) else {
                            plan_file.set_value(None);
                            plan_name.set(None);
                            rank(Vec::new());
                            return;
                        };
                        leptos::task::spawn_local(async move {
                            match read_file(&file).await {
                                Ok(bytes) => {
                                    plan_file.set_value(Some((file.name(), bytes)));
                                    plan_name.set(Some(file.name()));
                                    rank(Vec::new());
                                }
                                Err(e) => refused.set(vec![e]),
                            }
                        });
                    } />
                </label>
                {move || plan_name.get().map(|n| view! { <span data-testid="lb-plan-name">{format!("plan: {n}")}</span> })}
                <button class="quiet" data-testid="lb-clear" on:click=move |_| clear()>"Clear"</button>
            </div>
            <ul class="refused" data-testid="lb-refused">
                {move || refused.get().into_iter().map(|r| view! { <li class="error" data-testid="lb-refusal">{r}</li> }).collect_view()}
            </ul>
            {move || match status.get() {
                Status::Idle => ().into_any(),
                Status::Working(what) => view! { <p class="progress" role="status" data-testid="lb-working">{what}"…"</p> }.into_any(),
                Status::Done(ms) => view! {
                    <p class="done" data-testid="lb-done" data-ms=ms.to_string()>{format!("Ranked in {:.2} s.", ms / 1000.0)}</p>
                }.into_any(),
                Status::Failed(e) => view! { <p class="error" data-testid="lb-error">{e}</p> }.into_any(),
            }}
            {move || board.get().map(|(b, traced)| view! { <view::BoardView board=b traced=traced /> })}
        </section>
    }
}

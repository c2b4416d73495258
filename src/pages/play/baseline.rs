//! The human-baseline run on the page: choosing the tasks, resuming a run
//! saved in the browser after a reload, moving to the next task, and the
//! run table with its export. The run itself ([`BaselineRun`]) and its
//! metrics ([`knoblab_core::metrics::run`]) are the core's.

use leptos::prelude::*;
use leptos::task::spawn_local;

use knoblab_core::display::percent;
use knoblab_core::metrics::{self, columns, columns::Column};
use knoblab_eval::play::{BaselineRun, Mode};

use super::end::download_trajectories;
use super::{use_player, Player};
use crate::browser::storage;

/// Starts the episode the run is at (playing the actions saved for it again),
/// or none when the run is complete.
pub fn continue_run(player: Player) -> Result<(), String> {
    let Some(run) = player.baseline.get_untracked() else {
        return Err("no baseline run is open".to_string());
    };
    match run.current_task() {
        None => {
            player.session.set(None);
            Ok(())
        }
        Some(task) => player.start(Some(task), &run.current),
    }
}

/// Starts a new run over these tasks of the open device (it must come
/// from the library or a URL, so that a reload can fetch it again).
pub fn start_run(player: Player, tasks: Vec<String>) -> Result<(), String> {
    let loaded = player.device.get_untracked().ok_or("no device is open")?;
    let source = loaded.source.clone().ok_or(
        "a baseline run needs a device from the library or a URL, so that it can be resumed after a reload",
    )?;
    let run = BaselineRun::new(
        &source,
        &loaded.bundle.manifest.id,
        tasks,
        player.lambda.get_untracked(),
    )
    .map_err(|e| e.to_string())?;
    if !storage::save_baseline(&run) {
        return Err("this browser refused to save the run (storage full or disabled)".to_string());
    }
    player.mode.set(Mode::Baseline);
    player.baseline.set(Some(run));
    continue_run(player)
}

/// Resumes the run saved in this browser.
pub async fn resume_run(player: Player) -> Result<(), String> {
    let run = match storage::load_baseline() {
        None => return Err("no baseline run is saved in this browser".to_string()),
        Some(Err(e)) => return Err(e.to_string()),
        Some(Ok(run)) => run,
    };
    let open = player
        .device
        .with_untracked(|d| d.as_ref().and_then(|d| d.source.clone()));
    if open.as_deref() != Some(run.bundle.as_str()) {
        player.open(&run.bundle).await.map_err(|p| p.summary())?;
    }
    let id = player
        .device
        .with_untracked(|d| d.as_ref().map(|d| d.bundle.manifest.id.clone()));
    if id.as_deref() != Some(run.bundle_id.as_str()) {
        return Err(format!(
            "the saved run is on device {}, but {} now gives {}",
            run.bundle_id,
            run.bundle,
            id.unwrap_or_default()
        ));
    }
    player.mode.set(Mode::Baseline);
    player.lambda.set(run.lambda);
    player.baseline.set(Some(run));
    continue_run(player)
}

/// The baseline panel: set-up, progress, or the finished run's table.
#[component]
pub fn BaselinePanel() -> impl IntoView {
    let player = use_player();
    // What the browser holds, read again whenever the run changes here or
    // is discarded.
    let discarded = RwSignal::new(0u32);
    let saved = Memo::new(move |_| {
        player.baseline.track();
        discarded.track();
        storage::load_baseline()
    });
    let error = RwSignal::new(None::<String>);
    let fail = move |r: Result<(), String>| error.set(r.err());

    let setup = move || {
        let loaded = player.device.get()?;
        let tasks: Vec<String> = loaded.bundle.tasks.iter().map(|t| t.id.clone()).collect();
        let chosen = RwSignal::new(tasks.clone());
        let boxes = tasks
            .into_iter()
            .map(|task| {
                let id = task.clone();
                view! {
                    <label class="check">
                        <input
                            type="checkbox"
                            data-testid=format!("baseline-task-{task}")
                            prop:checked=move || chosen.with(|c| c.contains(&id))
                            on:change={
                                let id = task.clone();
                                move |_| chosen.update(|c| {
                                    if let Some(i) = c.iter().position(|t| *t == id) {
                                        c.remove(i);
                                    } else {
                                        c.push(id.clone());
                                    }
                                })
                            }
                        />
                        {task.clone()}
                    </label>
                }
            })
            .collect_view();
        let order: Vec<String> = loaded.bundle.tasks.iter().map(|t| t.id.clone()).collect();
        Some(view! {
            <div class="baseline-setup" data-testid="baseline-setup">
                <p>
                    "A baseline run plays the chosen tasks of " <strong>{loaded.bundle.manifest.name.clone()}</strong>
                    " in order, with no part boxes and no undo, and records every episode with the same metrics as a model. "
                    "Progress is kept in this browser: closing the tab loses nothing."
                </p>
                <fieldset><legend>"Tasks"</legend>{boxes}</fieldset>
                <button class="primary" data-testid="baseline-start" on:click=move |_| {
                    let picked: Vec<String> = order.iter().filter(|t| chosen.with(|c| c.contains(t))).cloned().collect();
                    fail(start_run(player, picked));
                }>"Start baseline run"</button>
            </div>
        })
    };

    let resume = move || {
        if player.baseline.with(Option::is_some) {
            return None;
        }
        let saved_run = saved.get()?;
        Some(match saved_run {
            Ok(run) => view! {
                <div class="baseline-resume" data-testid="baseline-resume">
                    <p>{format!(
                        "A baseline run is saved in this browser: {} of {} episodes finished on {}.",
                        run.finished.len(), run.tasks.len(), run.bundle_id
                    )}</p>
                    <button class="primary" data-testid="baseline-resume-button" on:click=move |_| {
                        spawn_local(async move { fail(resume_run(player).await) });
                    }>"Resume it"</button>
                    <button data-testid="baseline-discard" on:click=move |_| {
                        storage::clear_baseline();
                        discarded.update(|n| *n += 1);
                    }>"Discard it"</button>
                </div>
            }.into_any(),
            Err(e) => view! { <p class="error">{e.to_string()}</p> }.into_any(),
        })
    };

    let progress = move || {
        let run = player.baseline.get()?;
        let episode_over = player
            .session
            .with(|s| s.as_ref().is_some_and(|s| s.is_done()));
        let total = run.tasks.len();
        let done = run.finished.len();
        let next = (episode_over && !run.is_complete()).then(|| view! {
            <button class="primary" data-testid="baseline-next" on:click=move |_| fail(continue_run(player))>
                "Next task"
            </button>
        });
        Some(view! {
            <div class="baseline-progress" data-testid="baseline-progress">
                <p data-testid="baseline-count">{format!("Baseline run: {done} of {total} episodes recorded")}</p>
                {next}
                {run.is_complete().then(|| view! { <RunTable run=run.clone() /> })}
            </div>
        })
    };

    view! {
        <section class="baseline" data-testid="baseline">
            <h2>"Human baseline"</h2>
            {move || error.get().map(|e| view! { <p class="error" data-testid="baseline-error">{e}</p> })}
            {resume}
            {move || if player.baseline.with(Option::is_none) { setup().map(IntoAny::into_any) } else { progress().map(IntoAny::into_any) }}
        </section>
    }
}

/// The finished run: each episode's main metrics and the run's, and the
/// export of every trajectory.
#[component]
pub fn RunTable(
    /// The finished run.
    run: BaselineRun,
) -> impl IntoView {
    let player = use_player();
    let scored = player.device.with_untracked(|d| {
        let d = d
            .as_ref()
            .ok_or("the run's device is not open".to_string())?;
        metrics::run(std::slice::from_ref(&*d.bundle), &run.finished).map_err(|e| e.to_string())
    });
    let finished = StoredValue::new(run.finished.clone());
    let export = move |_| {
        finished.with_value(|f| {
            let name = format!("baseline-{}.jsonl", run.bundle_id);
            if let Err(e) = download_trajectories(&name, f) {
                player.notice.set(Some(e));
            }
        });
    };
    let forget = move |_| {
        storage::clear_baseline();
        player.baseline.set(None);
        player.session.set(None);
    };
    // The main metrics, in the order of the full tables.
    let shown: Vec<&Column> = ["sr", "spl", "eer", "avg_dist"]
        .into_iter()
        .filter_map(columns::column)
        .collect();
    let table = match scored {
        Ok(scored) => {
            let rows = scored
                .per_episode
                .iter()
                .zip(&run.finished)
                .map(|(m, t)| {
                    view! {
                        <tr data-testid="run-row">
                            <td>{m.task_id.clone()}</td>
                            <td>{format!("{} / {}", t.goals_reached, t.goals_total)}</td>
                            <td>{t.steps.len()}</td>
                            {shown.iter().map(|c| view! { <td>{c.show(&m.metrics)}</td> }).collect_view()}
                        </tr>
                    }
                })
                .collect_view();
            let all = &scored.metrics;
            view! {
                <table class="metrics run-table" data-testid="run-table">
                    <thead><tr><th>"Task"</th><th>"Goals"</th><th>"Steps"</th>{shown.iter().map(|c| view! { <th>{c.label}</th> }).collect_view()}</tr></thead>
                    <tbody>{rows}</tbody>
                    <tfoot><tr>
                        <th>{format!("Run ({} episodes)", scored.episodes)}</th>
                        <td>{format!("SSR {}", percent(all.ssr))}</td><td></td>
                        {shown.iter().map(|c| view! { <td>{c.show(all)}</td> }).collect_view()}
                    </tr></tfoot>
                </table>
            }
            .into_any()
        }
        Err(e) => view! { <p class="error">{e}</p> }.into_any(),
    };
    view! {
        <div class="run-done" data-testid="run-done">
            <h3>"Run complete"</h3>
            {table}
            <button class="primary" data-testid="baseline-export" on:click=export>"Download the run (JSON Lines)"</button>
            <button data-testid="baseline-forget" on:click=forget>"Start over"</button>
        </div>
    }
}

//! The end of an episode: its metrics beside the optimal path's, the
//! optimal path step by step on the pictures, the trajectory as JSON Lines,
//! and a share link whose URL alone restores the episode.

use leptos::prelude::*;
use leptos::wasm_bindgen::JsCast;

use crate::browser::files;
use knoblab_core::metrics::{columns, Metrics};
use knoblab_core::sim::Trajectory;
use knoblab_eval::play::{optimal_path, Mode, OptimalPath, ShareLink};

use super::picture::Picture;
use super::use_player;

/// The metrics rows: the label with its gloss, and the value as shown
/// (rates first, as the page's tables order them).
fn rows(m: &Metrics) -> Vec<(&'static str, String)> {
    columns::rates_first()
        .map(|c| (c.explained, c.show(m)))
        .collect()
}

/// Saves episodes as a JSON Lines file.
pub fn download_trajectories(file_name: &str, trajectories: &[Trajectory]) -> Result<(), String> {
    let text = Trajectory::to_json_lines(trajectories).map_err(|e| e.to_string())?;
    files::download(file_name, "application/jsonl", &text)
}

/// The page's address with another hash.
pub fn page_url(hash: &str) -> String {
    let location = window().location();
    let origin = location.origin().unwrap_or_default();
    let path = location.pathname().unwrap_or_default();
    format!("{origin}{path}{hash}")
}

/// The end-of-episode panel (shown once the episode has ended).
#[component]
pub fn EndPanel() -> impl IntoView {
    let player = use_player();
    let results = Memo::new(move |_| {
        player.session.with(|s| {
            s.as_ref().filter(|s| s.is_done()).map(|s| {
                let mine = s.metrics().map_err(|e| e.to_string());
                let optimal = optimal_path(s.bundle(), s.task_id(), s.settings().clone())
                    .map_err(|e| e.to_string());
                (mine, optimal)
            })
        })
    });
    let mode = move || player.mode.get();
    let share = Memo::new(move |_| {
        let source = player
            .device
            .with(|d| d.as_ref().and_then(|d| d.source.clone()));
        player.session.with(|s| {
            let s = s.as_ref()?;
            let link = ShareLink {
                bundle: source?,
                task: s.task_id().to_string(),
                lambda: s.settings().lambda,
                actions: s.actions().to_vec(),
            };
            Some(page_url(&format!("#/play?{}", link.to_query())))
        })
    });
    let export = move |_| {
        player.session.with_untracked(|s| {
            if let Some(s) = s {
                let t = s.trajectory();
                let name = format!("{}-{}.jsonl", t.bundle_id, t.task_id);
                if let Err(e) = download_trajectories(&name, std::slice::from_ref(t)) {
                    player.notice.set(Some(e));
                }
            }
        });
    };
    let copy = move |_| {
        if let Some(url) = share.get_untracked() {
            let _ = window().navigator().clipboard().write_text(&url);
        }
    };

    move || {
        let (mine, optimal) = results.get()?;
        let table = match (&mine, &optimal) {
            (Ok(m), Ok(o)) => {
                let body = rows(&m.metrics)
                    .into_iter()
                    .zip(rows(&o.metrics.metrics))
                    .map(|((label, you), (_, best))| {
                        view! { <tr><th scope="row">{label}</th><td>{you}</td><td>{best}</td></tr> }
                    })
                    .collect_view();
                view! {
                    <table class="metrics" data-testid="end-metrics">
                        <thead><tr><th>"Metric"</th><th>"You"</th><th>"Optimal path"</th></tr></thead>
                        <tbody>{body}</tbody>
                    </table>
                }
                .into_any()
            }
            (Err(e), _) | (_, Err(e)) => view! { <p class="error">{e.clone()}</p> }.into_any(),
        };
        let path = optimal.ok().map(|o| view! { <OptimalPathViewer path=o /> });
        Some(view! {
            <section class="end-panel" data-testid="end-panel">
                <h2>
                    "Episode over"
                    {(mode() == Mode::Practice).then(|| view! { <span class="badge practice" data-testid="practice-badge">"practice"</span> })}
                </h2>
                {table}
                <div class="end-actions">
                    <button data-testid="export-trajectory" on:click=export>"Download trajectory (JSON Lines)"</button>
                </div>
                <div class="share" data-testid="share">
                    {move || match share.get() {
                        Some(url) => view! {
                            <label>
                                "Share link (restores this episode) "
                                <input readonly data-testid="share-link" prop:value=url.clone() on:focus=|ev| {
                                    if let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                                        input.select();
                                    }
                                } />
                            </label>
                            <button on:click=copy>"Copy"</button>
                            <a href=url data-testid="share-open" target="_blank" rel="noopener">"Open"</a>
                        }.into_any(),
                        None => view! {
                            <p class="note">"This device was opened from a file, so a link cannot name it. Open it from the library or from a URL to share episodes."</p>
                        }.into_any(),
                    }}
                </div>
                {path}
            </section>
        })
    }
}

/// The optimal path, one step at a time on the picture of its view.
#[component]
pub fn OptimalPathViewer(
    /// The task's optimal path.
    path: OptimalPath,
) -> impl IntoView {
    let player = use_player();
    let steps = StoredValue::new(path.steps);
    let count = steps.with_value(Vec::len);
    let (at, set_at) = signal(0usize);
    let current = move || steps.with_value(|s| s.get(at.get()).cloned());
    let src = Signal::derive(move || {
        let view = current().map(|s| s.view).unwrap_or_default();
        player
            .device
            .with(|d| d.as_ref().map(|d| d.image(&view)).unwrap_or_default())
    });
    let list = steps.with_value(|s| {
        s.iter()
            .enumerate()
            .map(|(i, step)| {
                view! {
                    <li class:current=move || at.get() == i>
                        <button class="link" on:click=move |_| set_at.set(i)>
                            <code>{step.action.clone()}</code>
                        </button>
                        " in " {step.view.replace('_', " ")}
                    </li>
                }
            })
            .collect_view()
    });
    view! {
        <section class="optimal-path" data-testid="optimal-path">
            <h3>{format!("The optimal path: {count} step{}", if count == 1 { "" } else { "s" })}</h3>
            <div class="optimal-stepper">
                <button data-testid="optimal-prev" disabled=move || at.get() == 0 on:click=move |_| set_at.update(|a| *a = a.saturating_sub(1))>"Previous"</button>
                <span data-testid="optimal-position">{move || format!("Step {} of {count}", at.get() + 1)}</span>
                <button data-testid="optimal-next" disabled=move || { at.get() + 1 >= count } on:click=move |_| set_at.update(|a| *a = (*a + 1).min(count.saturating_sub(1)))>"Next"</button>
            </div>
            <p class="optimal-action">
                <code data-testid="optimal-action">{move || current().map(|s| s.action).unwrap_or_default()}</code>
                " → "
                <span>{move || current().map(|s| s.feedback).unwrap_or_default()}</span>
            </p>
            <Picture
                src=src
                alt=Signal::derive(move || current().map(|s| format!("The {} view", s.view)).unwrap_or_default())
                point=Signal::derive(move || current().and_then(|s| s.point))
                locked_region=Signal::derive(|| None)
                boxes=Signal::derive(Vec::new)
                testid="optimal-picture".to_string()
            />
            <ol class="optimal-list">{list}</ol>
        </section>
    }
}

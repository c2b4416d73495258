//! The Play page: `#/play?bundle=ID_OR_URL&task=ID[&lambda=N][&actions=…][&mode=practice|baseline][&render=static|live]`.
//! A library card opens it with a device; a share link adds the task and
//! the actions, and the page plays them again. Without a bundle it shows the
//! device already open, or says where to find one.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::baseline::BaselinePanel;
use super::view::{ModePicker, PlayerView, RenderPicker};
use super::{use_player, LoadProblem, Player};
use crate::browser::http;
use crate::route::{Location, LocationSignal};
use knoblab_core::sim::RenderMode;
use knoblab_eval::play::share::{decode_actions, parse_lambda};
use knoblab_eval::play::Mode;

/// What a play or embed URL asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayRequest {
    /// `bundle=`: a library id or a URL.
    pub bundle: Option<String>,
    /// `task=`: the task's id.
    pub task: Option<String>,
    /// `lambda=`, when given.
    pub lambda: Option<u32>,
    /// `actions=`: the actions to play first (a share link).
    pub actions: Option<Vec<String>>,
    /// `mode=`: play (default), practice or baseline.
    pub mode: Mode,
    /// How views are drawn (`render=live`; default static, the paper's).
    pub render: Option<RenderMode>,
}

impl PlayRequest {
    /// Reads the query; a malformed λ or action list is an error that says
    /// what would be valid.
    pub fn from_location(location: &Location) -> Result<PlayRequest, String> {
        let lambda = match location.param("lambda") {
            None => None,
            Some(text) => Some(parse_lambda(text).ok_or_else(|| {
                format!("the link's lambda {text:?} is not a whole number from 1 to 1000")
            })?),
        };
        let render = match location.param("render") {
            None | Some("") => None,
            Some(text) => Some(RenderMode::parse(text).map_err(|e| e.to_string())?),
        };
        let actions = match location.param("actions") {
            None | Some("") => None,
            Some(text) => Some(decode_actions(text).map_err(|e| e.to_string())?),
        };
        Ok(PlayRequest {
            bundle: location
                .param("bundle")
                .filter(|b| !b.is_empty())
                .map(str::to_string),
            task: location
                .param("task")
                .filter(|t| !t.is_empty())
                .map(str::to_string),
            lambda,
            actions,
            mode: Mode::parse(location.param("mode").unwrap_or_default()),
            render,
        })
    }
}

/// Opens what a request names: the device (unless it is already open),
/// then the task with its actions. An episode under way on the same device
/// and task is kept, so coming back to the page does not lose it.
pub async fn open_request(player: Player, request: PlayRequest) {
    player.mode.set(request.mode);
    if let Some(render) = request.render {
        player.render.set(render);
    }
    if let Some(lambda) = request.lambda {
        player.lambda.set(lambda);
    }
    let open_source = player
        .device
        .with_untracked(|d| d.as_ref().map(|d| d.source.clone()));
    match (&request.bundle, open_source) {
        (Some(wanted), Some(open)) if open.as_deref() == Some(wanted.as_str()) => {}
        (Some(wanted), _) => {
            let Ok(opened) = player.open(wanted).await else {
                return;
            };
            // The device is shown before its episode starts: checking a
            // device and drawing its episode's first picture (a live one is
            // decoded and composed) are two tasks of the main thread, so the
            // page answers between them. Another open meanwhile wins.
            http::sleep(0).await;
            let still = player.device.with_untracked(|d| {
                d.as_ref()
                    .is_some_and(|d| std::sync::Arc::ptr_eq(&d.bundle, &opened.bundle))
            });
            if !still {
                return;
            }
        }
        (None, None) => return,
        (None, Some(_)) => {}
    }
    if request.mode == Mode::Baseline {
        if player.baseline.with_untracked(Option::is_none) {
            player.session.set(None);
        }
        return;
    }
    let keep = request.actions.is_none()
        && player.session.with_untracked(|s| {
            s.as_ref().is_some_and(|s| {
                request.task.as_deref().is_none_or(|t| t == s.task_id())
                    && s.settings().extra.get("mode").and_then(|m| m.as_str())
                        == Some(request.mode.as_str())
                    && s.render_mode() == player.render.get_untracked()
            })
        });
    if keep {
        return;
    }
    let actions = request.actions.unwrap_or_default();
    if let Err(e) = player.start(request.task.as_deref(), &actions) {
        player
            .notice
            .set(Some(format!("the episode could not be started: {e}")));
    }
}

/// Loading, and why a device could not be opened (every problem found).
#[component]
pub fn LoadStatus() -> impl IntoView {
    let player = use_player();
    view! {
        {move || player.loading.get().map(|what| view! {
            <p class="loading" data-testid="loading" role="status">{what} "…"</p>
        })}
        {move || player.problem.get().map(|problem| view! { <ProblemList problem=problem /> })}
    }
}

/// A refused bundle's problems as a readable list, scrolled into view (on
/// a phone the opener may sit below the cards).
#[component]
pub fn ProblemList(
    /// The bundle and its problems.
    problem: LoadProblem,
) -> impl IntoView {
    let node = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |_| {
        if let Some(element) = node.get() {
            element.scroll_into_view();
        }
    });
    match problem {
        LoadProblem::Cancelled => view! {
            <div class="problems" data-testid="problems" role="alert" node_ref=node>
                <p>{LoadProblem::Cancelled.summary()}</p>
            </div>
        }
        .into_any(),
        LoadProblem::Message(message) => view! {
            <div class="problems" data-testid="problems" role="alert" node_ref=node>
                <p><strong>"The device could not be opened. "</strong>{message}</p>
            </div>
        }
        .into_any(),
        LoadProblem::Problems {
            source,
            diagnostics,
        } => {
            let errors = diagnostics.iter().filter(|d| d.is_error()).count();
            let items = diagnostics
                .into_iter()
                .map(|d| {
                    let severity = if d.is_error() { "error" } else { "warning" };
                    view! {
                        <li class=severity data-testid="problem">
                            <span class="severity">{severity}</span>
                            <code class="where">{d.location.to_string()}</code>
                            <span class="what">{d.message}</span>
                        </li>
                    }
                })
                .collect_view();
            view! {
                <div class="problems" data-testid="problems" role="alert" node_ref=node>
                    <p><strong>{format!("{source} was not opened: {errors} error(s) found.")}</strong></p>
                    <ul>{items}</ul>
                </div>
            }
            .into_any()
        }
    }
}

/// The device's name, the task picker, the mode and Restart.
#[component]
fn PlayHead() -> impl IntoView {
    let player = use_player();
    let current_task = move || {
        player
            .session
            .with(|s| s.as_ref().map(|s| s.task_id().to_string()))
    };
    move || {
        let loaded = player.device.get()?;
        let manifest = loaded.bundle.manifest.clone();
        let tasks = loaded
            .bundle
            .tasks
            .iter()
            .map(|t| {
                let id = t.id.clone();
                let label = format!("{} ({} goal{})", t.id, t.goals.len(), if t.goals.len() == 1 { "" } else { "s" });
                view! { <option value=id.clone() selected=move || current_task().as_deref() == Some(id.as_str())>{label}</option> }
            })
            .collect_view();
        let choose = move |ev: leptos::ev::Event| {
            let task = event_target_value(&ev);
            if let Err(e) = player.start(Some(&task), &[]) {
                player.notice.set(Some(e));
            }
        };
        let restart = move |_| {
            let task = current_task();
            if let Err(e) = player.start(task.as_deref(), &[]) {
                player.notice.set(Some(e));
            }
        };
        let baseline = move || player.mode.get() == Mode::Baseline;
        Some(view! {
            <div class="play-head">
                <div class="device-title">
                    <h1 data-testid="device-name">{manifest.name}</h1>
                    <span class="category">{manifest.category}</span>
                </div>
                <div class="play-pickers">
                    <label class="picker">
                        "Task "
                        <select data-testid="task" on:change=choose disabled=baseline>
                            <option value="" disabled selected=move || current_task().is_none()>"Choose a task"</option>
                            {tasks}
                        </select>
                    </label>
                    <ModePicker />
                    <RenderPicker />
                    <button data-testid="restart" disabled=baseline on:click=restart>"Restart"</button>
                </div>
            </div>
        })
    }
}

/// The Play page (see the module's docs for its query).
#[component]
pub fn PlayPage() -> impl IntoView {
    let player = use_player();
    player.embedded.set(false);
    let location = expect_context::<LocationSignal>();
    Effect::new(move |_| {
        let l = location.get();
        match PlayRequest::from_location(&l) {
            Ok(request) => spawn_local(open_request(player, request)),
            Err(e) => player.notice.set(Some(e)),
        }
    });
    // Leaving the page stops a drawing it asked for.
    on_cleanup(move || player.stop_opening());
    let nothing_open =
        move || player.device.with(Option::is_none) && player.loading.with(Option::is_none);
    view! {
        <section class="page play" data-testid="play">
            <PlayHead />
            <LoadStatus />
            {move || (player.mode.get() == Mode::Baseline).then(|| view! { <BaselinePanel /> })}
            {move || {
                if player.session.with(Option::is_some) {
                    view! { <PlayerView /> }.into_any()
                } else if nothing_open() && player.mode.get() != Mode::Baseline {
                    view! {
                        <div class="empty-play" data-testid="no-device">
                            <h1>"Play"</h1>
                            <p>"No device is open. Pick one in the " <a href="#/library">"device library"</a> ", or open your own bundle there."</p>
                            {move || player.notice.get().map(|n| view! { <p class="notice-line" data-testid="notice">{n}</p> })}
                        </div>
                    }.into_any()
                } else {
                    view! {
                        {move || player.notice.get().map(|n| view! { <p class="notice-line" data-testid="notice">{n}</p> })}
                    }.into_any()
                }
            }}
        </section>
    }
}

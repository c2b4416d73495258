//! The whole player: instruction, view tabs, the picture, budgets, the
//! action bar, the feedback log, the end panel; practice's reveal and undo;
//! and keyboard control for all of it ([`KeyCommand`]).

use leptos::ev;
use leptos::prelude::*;
use leptos::wasm_bindgen::JsCast;
use web_sys::KeyboardEvent;

use knoblab_core::bundle::image::encode_data_url;
use knoblab_core::sim::Action;
use knoblab_core::sim::RenderMode;
use knoblab_eval::play::controls::KEY_HELP;
use knoblab_eval::play::views::{dashboard_region, part_boxes_in};
use knoblab_eval::play::{view_tabs, KeyCommand, Mode};

use super::bar::{act_and_follow, act_draft, ActionBar, ViewTabs};
use super::end::EndPanel;
use super::picture::Picture;
use super::status::{Budgets, FeedbackLog, Instruction};
use super::{use_player, Player};

/// Whether a key press belongs to a form field (or a focused button, for
/// Enter) rather than to the player.
fn typing(ev: &KeyboardEvent) -> bool {
    let Some(target) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
    else {
        return false;
    };
    match target.tag_name().as_str() {
        "INPUT" | "SELECT" | "TEXTAREA" => true,
        "BUTTON" | "A" => ev.key() == "Enter" || ev.key() == " ",
        _ => false,
    }
}

fn on_key(player: Player, ev: &KeyboardEvent, help: RwSignal<bool>, reveal: RwSignal<bool>) {
    if ev.ctrl_key() || ev.meta_key() || typing(ev) {
        return;
    }
    let Some(command) = KeyCommand::from_key(&ev.key(), &ev.code(), ev.shift_key(), ev.alt_key())
    else {
        return;
    };
    if player.session.with_untracked(Option::is_none) && command != KeyCommand::Help {
        return;
    }
    ev.prevent_default();
    let practice = player.mode.get_untracked().allows_help();
    match command {
        KeyCommand::Tool(tool) => player.draft.update(|d| *d = d.with_tool(tool)),
        KeyCommand::Cycle(slot) => player.draft.update(|d| d.cycle(slot)),
        KeyCommand::Nudge(dx, dy) => player.draft.update(|d| d.nudge(dx, dy)),
        KeyCommand::Act => act_draft(player),
        KeyCommand::Help => help.update(|h| *h = !*h),
        KeyCommand::Undo if practice => player.undo(),
        KeyCommand::Boxes if practice => reveal.update(|r| *r = !*r),
        KeyCommand::Undo | KeyCommand::Boxes => player.notice.set(Some(
            "part boxes and undo are for practice: choose Practice mode".to_string(),
        )),
        KeyCommand::View(i) => {
            let tab = player.session.with_untracked(|s| {
                s.as_ref().and_then(|s| {
                    view_tabs(s.bundle(), s.info().dashboard_unlocked)
                        .get(i)
                        .cloned()
                })
            });
            match tab {
                Some(tab) if tab.locked => player.notice.set(Some(format!(
                    "the {} view is locked until the control panel is found",
                    tab.name
                ))),
                Some(tab) => act_and_follow(player, &Action::switch_to(&tab.name).to_string()),
                None => {}
            }
        }
    }
}

/// The key help, under `?`.
#[component]
fn KeyHelp(open: RwSignal<bool>) -> impl IntoView {
    move || {
        open.get().then(|| {
            let rows = KEY_HELP
                .iter()
                .map(|(keys, what)| view! { <tr><th scope="row"><kbd>{*keys}</kbd></th><td>{*what}</td></tr> })
                .collect_view();
            view! {
                <aside class="key-help" data-testid="key-help" role="dialog" aria-label="Keyboard">
                    <h3>"Keyboard"</h3>
                    <table>{rows}</table>
                    <button on:click=move |_| open.set(false)>"Close"</button>
                </aside>
            }
        })
    }
}

/// The player of the current session.
#[component]
pub fn PlayerView() -> impl IntoView {
    let player = use_player();
    let help = RwSignal::new(false);
    let reveal = RwSignal::new(false);
    let listener = window_event_listener(ev::keydown, move |ev| on_key(player, &ev, help, reveal));
    on_cleanup(move || listener.remove());

    let practice = move || player.mode.get().allows_help();
    let view_name = Memo::new(move |_| {
        player.session.with(|s| {
            s.as_ref()
                .map(|s| s.observation().view.clone())
                .unwrap_or_default()
        })
    });
    // In live mode the core draws the view for the state (the time it took
    // is logged and kept on the picture for the end-to-end test).
    let render_ms = RwSignal::new(None::<f64>);
    let src = Signal::derive(move || {
        let view = view_name.get();
        let live = player.session.with(|s| {
            let s = s.as_ref()?;
            (s.render_mode() == RenderMode::Live).then(|| {
                let started = now_ms();
                let url = s.picture().map(|image| encode_data_url(&image));
                let took = now_ms() - started;
                render_ms.set(Some(took));
                web_sys::console::log_1(
                    &format!("knoblab: live picture of {view} in {took:.1} ms").into(),
                );
                url
            })
        });
        match live {
            Some(Ok(url)) => url,
            Some(Err(e)) => {
                player
                    .notice
                    .set(Some(format!("the live picture could not be drawn: {e}")));
                String::new()
            }
            None => player
                .device
                .with(|d| d.as_ref().map(|d| d.image(&view)).unwrap_or_default()),
        }
    });
    let alt =
        Signal::derive(move || format!("The device, {} view", view_name.get().replace('_', " ")));
    let point = Signal::derive(move || player.draft.with(|d| d.point));
    let shown = move || practice() && reveal.get();
    let boxes = Signal::derive(move || {
        if !shown() {
            return Vec::new();
        }
        player.session.with(|s| {
            s.as_ref()
                .map(|s| {
                    part_boxes_in(
                        s.bundle(),
                        &view_name.get(),
                        &s.info().state,
                        s.render_mode(),
                    )
                })
                .unwrap_or_default()
        })
    });
    let locked = Signal::derive(move || {
        if !shown() {
            return None;
        }
        player.session.with(|s| {
            let s = s.as_ref()?;
            (!s.info().dashboard_unlocked)
                .then(|| dashboard_region(s.bundle(), &view_name.get()))?
        })
    });
    let pick = Callback::new(move |p| player.draft.update(|d| d.point = Some(p)));

    view! {
        <div class="player" data-testid="player">
            <Instruction />
            {move || player.notice.get().map(|n| view! { <p class="notice-line" data-testid="notice" role="status">{n}</p> })}
            <div class="player-grid">
                <div class="stage" data-render=move || player.session.with(|s| s.as_ref().map_or("static", |s| s.render_mode().as_str())) data-render-ms=move || render_ms.get().map(|ms| format!("{ms:.2}"))>
                    <ViewTabs />
                    <Picture src=src alt=alt point=point locked_region=locked boxes=boxes on_pick=pick testid="picture".to_string() />
                </div>
                <div class="side">
                    <Budgets />
                    <ActionBar />
                    <div class="helpers">
                        <button data-testid="help-toggle" on:click=move |_| help.update(|h| *h = !*h)>"Keys " <kbd>"?"</kbd></button>
                        {move || practice().then(|| view! {
                            <button data-testid="reveal" aria-pressed=move || if reveal.get() { "true" } else { "false" } on:click=move |_| reveal.update(|r| *r = !*r)>
                                "Show parts " <kbd>"b"</kbd>
                            </button>
                            <button data-testid="undo" on:click=move |_| player.undo()>"Undo " <kbd>"u"</kbd></button>
                        })}
                    </div>
                    <FeedbackLog />
                </div>
            </div>
            <KeyHelp open=help />
            <EndPanel />
        </div>
    }
}

/// Milliseconds since the page started (for the live picture's timing).
fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// The picture picker: static (the paper's: the device's pictures never
/// change) or live (drawn for the current state). Changing it restarts the
/// task, since the mode is part of the episode's record.
#[component]
pub fn RenderPicker() -> impl IntoView {
    let player = use_player();
    let choose = move |ev: leptos::ev::Event| {
        let Ok(render) = RenderMode::parse(&event_target_value(&ev)) else {
            return;
        };
        player.render.set(render);
        if player.mode.get_untracked() == Mode::Baseline {
            return;
        }
        let task = player
            .session
            .with_untracked(|s| s.as_ref().map(|s| s.task_id().to_string()));
        if let Err(e) = player.start(task.as_deref(), &[]) {
            player.notice.set(Some(e));
        }
    };
    let option = move |render: RenderMode, label: &'static str| {
        view! { <option value=render.as_str() selected=move || player.render.get() == render>{label}</option> }
    };
    view! {
        <label class="picker" title="Static: the device's pictures never change, as in the paper. Live: the picture shows lights, displays, knobs and doors as they are now.">
            "Pictures "
            <select data-testid="render" on:change=choose>
                {option(RenderMode::Static, "Static (paper)")}
                {option(RenderMode::Live, "Live")}
            </select>
        </label>
    }
}

/// The mode picker: play, practice (reveal and undo, results marked), or
/// a baseline run.
#[component]
pub fn ModePicker() -> impl IntoView {
    let player = use_player();
    let choose = move |ev: leptos::ev::Event| {
        let mode = Mode::parse(&event_target_value(&ev));
        player.mode.set(mode);
        if mode == Mode::Baseline {
            player.session.set(None);
            return;
        }
        player.baseline.set(None);
        let task = player
            .session
            .with_untracked(|s| s.as_ref().map(|s| s.task_id().to_string()));
        if let Err(e) = player.start(task.as_deref(), &[]) {
            player.notice.set(Some(e));
        }
    };
    let option = move |mode: Mode, label: &'static str| {
        view! { <option value=mode.as_str() selected=move || player.mode.get() == mode>{label}</option> }
    };
    view! {
        <label class="picker">
            "Mode "
            <select data-testid="mode" on:change=choose>
                {option(Mode::Play, "Play")}
                {option(Mode::Practice, "Practice (boxes, undo)")}
                {option(Mode::Baseline, "Baseline run")}
            </select>
        </label>
    }
}

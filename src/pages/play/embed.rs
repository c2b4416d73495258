//! `#/embed?bundle=URL_OR_ID&task=ID[&render=static|live]`: the player
//! alone, for an iframe (pictures static unless `render=live`).
//! It tells the parent page what happens (see [`super::events`])
//! and accepts requests from it with `postMessage`:
//! `{type: "act", action: "Press(coord=[x, y], params=[0])"}` plays an
//! action (answered by a `step` message, or `error`), and
//! `{type: "reset", task: "ID"}` starts a task again (answered by `ready`).
//! Only messages from the parent window are read.

use leptos::ev;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos::wasm_bindgen::JsValue;
use web_sys::MessageEvent;

use super::page::{open_request, LoadStatus, PlayRequest};
use super::view::PlayerView;
use super::{events, use_player, Player};
use crate::route::LocationSignal;
use knoblab_eval::play::Mode;

fn field(data: &JsValue, key: &str) -> Option<String> {
    js_sys::Reflect::get(data, &JsValue::from_str(key))
        .ok()?
        .as_string()
}

/// Whether a message came from the window that embeds this one.
fn from_parent(ev: &MessageEvent) -> bool {
    let (Some(source), Some(parent)) = (
        ev.source(),
        web_sys::window().and_then(|w| w.parent().ok().flatten()),
    ) else {
        return false;
    };
    js_sys::Object::is(&source, &parent)
}

fn on_message(player: Player, ev: &MessageEvent) {
    if !from_parent(ev) {
        return;
    }
    let data = ev.data();
    match field(&data, "type").as_deref() {
        Some("act") => match field(&data, "action") {
            Some(action) => {
                if let Err(e) = player.act(&action) {
                    events::error(&e);
                }
            }
            None => events::error("an act message needs an action string: {type: \"act\", action: \"Press(coord=[x, y], params=[0])\"}"),
        },
        Some("reset") => {
            let task = field(&data, "task");
            if let Err(e) = player.start(task.as_deref(), &[]) {
                events::error(&e);
            }
        }
        // The player's own messages reach this window too when it is not
        // framed; messages without a type are some other script's.
        Some("ready" | "step" | "end" | "error") | None => {}
        Some(other) => events::error(&format!(
            "unknown message type {other:?}: send {{type: \"act\", action: …}} or {{type: \"reset\", task: …}}"
        )),
    }
}

/// The Embed page: the player alone, for an iframe, telling the host page what happens.
#[component]
pub fn EmbedPage() -> impl IntoView {
    let player = use_player();
    player.embedded.set(true);
    let location = expect_context::<LocationSignal>();
    Effect::new(move |_| {
        let l = location.get();
        match PlayRequest::from_location(&l) {
            Ok(mut request) => {
                request.mode = Mode::Play;
                if request.bundle.is_none() {
                    events::error("the embed URL needs bundle=<URL or library id>&task=<task id>");
                    player.notice.set(Some(
                        "This embed needs bundle=… and task=… in its URL.".to_string(),
                    ));
                    return;
                }
                spawn_local(async move {
                    open_request(player, request).await;
                    if let Some(problem) = player.problem.get_untracked() {
                        events::error(&problem.summary());
                    }
                });
            }
            Err(e) => {
                events::error(&e);
                player.notice.set(Some(e));
            }
        }
    });
    let listener = window_event_listener(ev::message, move |ev| on_message(player, &ev));
    on_cleanup(move || {
        listener.remove();
        player.embedded.set(false);
        player.stop_opening();
    });
    view! {
        <section class="embed" data-testid="embed">
            <LoadStatus />
            {move || player.session.with(Option::is_some).then(|| view! { <PlayerView /> })}
            {move || player.session.with(Option::is_none).then(|| player.notice.get().map(|n| view! { <p class="notice-line" data-testid="notice">{n}</p> }))}
        </section>
    }
}

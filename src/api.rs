//! `window.knoblab`: the page API, so a test, a script driving a browser,
//! or an agent written in another language can operate a device. It drives
//! the same player as the page (what a script does is shown, and a baseline
//! run or an embedding page hears of it). Values cross as plain objects
//! (the core's types through JSON); a misuse throws an `Error` whose
//! message says what would be valid.
//!
//! - `load(urlOrJsonOrId)` → Promise of `{id, name, category, tasks}`
//! - `tasks()` → `[{id, goals, instructions}]`
//! - `reset(taskId)` → `{observation, info}`
//! - `step(actionText)` → `{observation, feedback, terminated, truncated, info}`
//! - `image()` → the current view's picture as a `data:` URL (in live mode,
//!   drawn for the current state by the core: the same pixels as natively)
//! - `render(mode?)` → the render mode of new episodes, `"static"` (the
//!   paper's, the default) or `"live"`; given one, sets it for the next
//!   `reset` and returns it
//! - `trajectory()` → the episode's record (a trajectory line as an object)
//! - `metrics()` → the episode's metrics (the keys of `knoblab metrics --json`)
//! - `optimal(taskId)` → the task's optimal path: `[{view, action, point, feedback, goal_index}]`

use leptos::prelude::*;
use leptos::wasm_bindgen::closure::Closure;
use leptos::wasm_bindgen::{JsCast, JsValue};
use serde::Serialize;
use serde_json::json;

use crate::pages::play::Player;
use knoblab_core::bundle::image::encode_data_url;
use knoblab_core::sim::RenderMode;
use knoblab_eval::play::{optimal_path, Session};

fn to_js(value: &impl Serialize) -> Result<JsValue, JsValue> {
    let text = serde_json::to_string(value).map_err(|e| error(&e.to_string()))?;
    js_sys::JSON::parse(&text)
}

fn error(message: &str) -> JsValue {
    js_sys::Error::new(&format!("knoblab: {message}")).into()
}

fn text_arg(value: &JsValue, what: &str) -> Result<String, JsValue> {
    value
        .as_string()
        .ok_or_else(|| error(&format!("{what} must be a string")))
}

fn with_session<T>(player: Player, f: impl FnOnce(&Session) -> T) -> Result<T, JsValue> {
    player.session.with_untracked(|s| {
        s.as_ref()
            .map(f)
            .ok_or_else(|| error("no episode: call reset(taskId) first (after load(...))"))
    })
}

fn set(api: &js_sys::Object, name: &str, f: &JsValue) {
    let _ = js_sys::Reflect::set(api, &JsValue::from_str(name), f);
}

/// Installs `window.knoblab` over this player. Called once by the app; the
/// closures live as long as the page.
pub fn install(player: Player) {
    let api = js_sys::Object::new();

    let load = Closure::<dyn Fn(JsValue) -> js_sys::Promise>::new(move |arg: JsValue| {
        wasm_bindgen_futures::future_to_promise(async move {
            let source = match arg.as_string() {
                Some(text) => text,
                None => js_sys::JSON::stringify(&arg)
                    .ok()
                    .and_then(|s| s.as_string())
                    .ok_or_else(|| error("load takes a URL, a library id, or a bundle's single JSON (text or object)"))?,
            };
            let loaded = player
                .open(&source)
                .await
                .map_err(|p| error(&p.summary()))?;
            let m = &loaded.bundle.manifest;
            let tasks: Vec<&str> = loaded.bundle.tasks.iter().map(|t| t.id.as_str()).collect();
            to_js(&json!({"id": m.id, "name": m.name, "category": m.category, "tasks": tasks}))
        })
    });
    set(&api, "load", load.as_ref());
    load.forget();

    let tasks = Closure::<dyn Fn() -> Result<JsValue, JsValue>>::new(move || {
        let list = player.device.with_untracked(|d| {
            d.as_ref().map(|d| {
                d.bundle
                    .tasks
                    .iter()
                    .map(|t| {
                        let instructions: Vec<&str> =
                            t.goals.iter().map(|g| g.instruction.as_str()).collect();
                        json!({"id": t.id, "goals": t.goals.len(), "instructions": instructions})
                    })
                    .collect::<Vec<_>>()
            })
        });
        to_js(&list.ok_or_else(|| error("no device: call load(...) first"))?)
    });
    set(&api, "tasks", tasks.as_ref());
    tasks.forget();

    let reset =
        Closure::<dyn Fn(JsValue) -> Result<JsValue, JsValue>>::new(move |task: JsValue| {
            let task = if task.is_undefined() {
                None
            } else {
                Some(text_arg(&task, "the task id")?)
            };
            if player.mode.get_untracked() == knoblab_eval::play::Mode::Baseline
                && player.baseline.with_untracked(Option::is_some)
            {
                return Err(error(
                    "a baseline run is under way: its tasks are played in order (use step)",
                ));
            }
            player.start(task.as_deref(), &[]).map_err(|e| error(&e))?;
            with_session(player, |s| {
                to_js(&json!({"observation": s.observation(), "info": s.info()}))
            })?
        });
    set(&api, "reset", reset.as_ref());
    reset.forget();

    let step =
        Closure::<dyn Fn(JsValue) -> Result<JsValue, JsValue>>::new(move |action: JsValue| {
            let action = text_arg(&action, "the action")?;
            let step = player.act(&action).map_err(|e| error(&e))?;
            to_js(&step)
        });
    set(&api, "step", step.as_ref());
    step.forget();

    let image = Closure::<dyn Fn() -> Result<JsValue, JsValue>>::new(move || {
        let picture = with_session(player, |s| s.picture())?.map_err(|e| error(&e.to_string()))?;
        Ok(JsValue::from_str(&encode_data_url(&picture)))
    });
    set(&api, "image", image.as_ref());
    image.forget();

    let render =
        Closure::<dyn Fn(JsValue) -> Result<JsValue, JsValue>>::new(move |mode: JsValue| {
            if !mode.is_undefined() {
                let text = text_arg(&mode, "the render mode")?;
                let mode = RenderMode::parse(&text).map_err(|e| error(&e.to_string()))?;
                player.render.set(mode);
            }
            Ok(JsValue::from_str(player.render.get_untracked().as_str()))
        });
    set(&api, "render", render.as_ref());
    render.forget();

    let trajectory = Closure::<dyn Fn() -> Result<JsValue, JsValue>>::new(move || {
        with_session(player, |s| to_js(s.trajectory()))?
    });
    set(&api, "trajectory", trajectory.as_ref());
    trajectory.forget();

    let metrics = Closure::<dyn Fn() -> Result<JsValue, JsValue>>::new(move || {
        let m = with_session(player, Session::metrics)?.map_err(|e| error(&e.to_string()))?;
        to_js(&m.metrics)
    });
    set(&api, "metrics", metrics.as_ref());
    metrics.forget();

    let optimal =
        Closure::<dyn Fn(JsValue) -> Result<JsValue, JsValue>>::new(move |task: JsValue| {
            let task = text_arg(&task, "the task id")?;
            let path = player
                .device
                .with_untracked(|d| {
                    d.as_ref().map(|d| {
                        optimal_path(
                            &d.bundle,
                            &task,
                            player
                                .mode
                                .get_untracked()
                                .settings(player.lambda.get_untracked()),
                        )
                    })
                })
                .ok_or_else(|| error("no device: call load(...) first"))?
                .map_err(|e| error(&e.to_string()))?;
            to_js(&path.steps)
        });
    set(&api, "optimal", optimal.as_ref());
    optimal.forget();

    if let Some(window) = web_sys::window() {
        let _ = js_sys::Reflect::set(window.unchecked_ref(), &JsValue::from_str("knoblab"), &api);
    }
}

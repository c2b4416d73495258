//! The messages an embedded player sends to the page around it, with
//! `postMessage`. Each is a plain object with `source: "knoblab"` and a
//! `type`: `ready` (an episode started), `step` (after every action),
//! `end` (the episode ended, with its metrics and trajectory) and `error`
//! (a request that could not be served). docs/page.md documents them.

use serde_json::{json, Value};

use knoblab_core::sim::Step;
use knoblab_eval::play::Session;

/// Sends a message to the parent page (to this page when there is none).
/// The target origin is `*`: the messages hold only what the player shows
/// on screen, and the host page may be anywhere.
pub fn post(message: &Value) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let target = window.parent().ok().flatten().unwrap_or(window);
    if let Ok(value) = js_sys::JSON::parse(&message.to_string()) {
        let _ = target.post_message(&value, "*");
    }
}

/// An episode started (or was reset).
pub fn ready(session: &Session) {
    let bundle = session.bundle();
    let tasks: Vec<&str> = bundle.tasks.iter().map(|t| t.id.as_str()).collect();
    post(&json!({
        "source": "knoblab",
        "type": "ready",
        "bundle_id": bundle.manifest.id,
        "task": session.task_id(),
        "tasks": tasks,
        "observation": session.observation(),
        "info": session.info(),
    }));
}

/// One action was played.
pub fn step(session: &Session, step: &Step) {
    post(&json!({
        "source": "knoblab",
        "type": "step",
        "index": session.actions().len(),
        "action": session.actions().last(),
        "feedback": step.feedback,
        "terminated": step.terminated,
        "truncated": step.truncated,
        "observation": step.observation,
        "info": step.info,
    }));
}

/// The episode ended: its metrics (the same keys as `knoblab metrics
/// --json`) and its trajectory.
pub fn end(session: &Session) {
    let trajectory = session.trajectory();
    let metrics = session
        .metrics()
        .map(|m| json!(m.metrics))
        .unwrap_or_else(|e| json!({ "error": e.to_string() }));
    post(&json!({
        "source": "knoblab",
        "type": "end",
        "task": session.task_id(),
        "terminated": trajectory.terminated,
        "truncated": trajectory.truncated,
        "goals_reached": trajectory.goals_reached,
        "goals_total": trajectory.goals_total,
        "steps": trajectory.steps.len(),
        "metrics": metrics,
        "trajectory": trajectory,
    }));
}

/// A request that could not be served.
pub fn error(message: &str) {
    post(&json!({ "source": "knoblab", "type": "error", "message": message }));
}

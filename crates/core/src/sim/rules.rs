//! The dynamics of one step (`specs/devices.md` section 2): what an action
//! does to (state, view, dashboard lock), with its outcome and feedback.
//! Budgets, goals and recording are layered over this in
//! [`super::episode`].

use crate::bundle::model::ViewKind;

use super::action::{Action, ActionKind, ParseError};
use super::device::Device;
use super::device::Node;
use super::matching::select_transition;
use super::outcome::{feedback, Outcome};

/// What one action did.
#[derive(Debug, Clone, PartialEq)]
pub struct Effect {
    /// What kind of result it was.
    pub outcome: Outcome,
    /// What the agent is told.
    pub feedback: String,
    /// Where the episode is after the step.
    pub to: Node,
    /// States entered during the step, in order (empty when none fired).
    pub entered: Vec<usize>,
    /// The component whose box won at the point, for physical actions that
    /// reached matching.
    pub component: Option<usize>,
}

impl Effect {
    fn stay(at: Node, outcome: Outcome, feedback: String) -> Effect {
        Effect {
            outcome,
            feedback,
            to: at,
            entered: Vec::new(),
            component: None,
        }
    }
}

/// The views an agent may switch to from a lock state, in listing order:
/// every view but a locked dashboard.
pub fn switchable_views<'b>(device: &Device<'b>, unlocked: bool) -> Vec<&'b str> {
    device
        .views
        .iter()
        .enumerate()
        .filter(|(i, _)| unlocked || device.dashboard.is_none_or(|d| d.view != *i))
        .map(|(_, v)| v.name)
        .collect()
}

/// Applies one parsed action at `at`, checking the rules in the spec's
/// order; the first rule that applies decides.
pub fn apply(device: &Device<'_>, at: Node, action: &Result<Action, ParseError>) -> Effect {
    // 1. Format.
    let action = match action {
        Ok(a) => a,
        Err(e) => {
            return Effect::stay(
                at,
                Outcome::Notification,
                feedback::format_notification(&e.to_string()),
            )
        }
    };
    let Some(view) = device.views.get(at.view) else {
        return Effect::stay(at, Outcome::Null, feedback::NULL.to_string());
    };
    match action.kind {
        ActionKind::TimedWait => timed_wait(device, at),
        ActionKind::SwitchView => switch_view(device, at, action),
        kind => {
            let Some(point) = action.coord else {
                // The parser never lets this through; answer as rule 1 would.
                return Effect::stay(
                    at,
                    Outcome::Notification,
                    feedback::format_notification(&format!("{} needs a coordinate", kind.verb())),
                );
            };
            // 2. View rules: no physical action in an axonometric view.
            if view.kind == ViewKind::Axonometric {
                let views = switchable_views(device, at.unlocked).join(", ");
                return Effect::stay(
                    at,
                    Outcome::Notification,
                    feedback::notification(&format!(
                        "the {} view only shows the device from an angle and cannot be operated; \
switch to an orthographic view first (you can switch to: {views})",
                        view.name
                    )),
                );
            }
            // 3. Dashboard: passive unlock.
            if let Some(d) = device.dashboard {
                if !at.unlocked && device.in_dashboard_region(at.view, point) {
                    let name = device.views.get(d.view).map_or("", |v| v.name);
                    return Effect::stay(
                        Node {
                            unlocked: true,
                            ..at
                        },
                        Outcome::Unlock,
                        feedback::unlocked_passive(name),
                    );
                }
            }
            // 4. Matching, 5. null.
            let Some(component) = device.component_at(at.view, point) else {
                return Effect::stay(at, Outcome::Null, feedback::NULL.to_string());
            };
            let Some(transitions) = device.transitions(at.state, component) else {
                return Effect {
                    component: Some(component),
                    ..Effect::stay(at, Outcome::Null, feedback::NULL.to_string())
                };
            };
            match select_transition(transitions, kind, &action.params) {
                Some(i) => Effect {
                    component: Some(component),
                    ..fire(device, at, &transitions[i])
                },
                None => Effect {
                    component: Some(component),
                    ..Effect::stay(at, Outcome::Hint, feedback::HINT.to_string())
                },
            }
        }
    }
}

/// 6. `Timed_wait()`: fires the state's `timed_wait` transition, if any.
fn timed_wait(device: &Device<'_>, at: Node) -> Effect {
    match device.states.get(at.state).and_then(|s| s.timed_wait) {
        Some(t) => fire(device, at, t),
        None => Effect::stay(at, Outcome::InvalidWait, feedback::INVALID_WAIT.to_string()),
    }
}

/// Fires a transition and follows its immediate chain.
fn fire<'b>(device: &Device<'b>, at: Node, t: &'b crate::bundle::Transition) -> Effect {
    let chain = device.follow(t);
    let Some(&end) = chain.entered.last() else {
        // A target the bundle does not define (validation refuses this).
        return Effect::stay(at, Outcome::Null, feedback::NULL.to_string());
    };
    let dangerous = chain.entered.iter().any(|&s| device.states[s].error);
    let mut text = String::with_capacity(160);
    if dangerous {
        feedback::push_sentence(&mut text, feedback::DANGEROUS);
    }
    for t in &chain.texts {
        feedback::push_sentence(&mut text, t);
    }
    Effect {
        outcome: if dangerous {
            Outcome::Dangerous
        } else {
            Outcome::Transition
        },
        feedback: text,
        to: Node { state: end, ..at },
        entered: chain.entered,
        component: None,
    }
}

/// 2 and 3 for `Switch_view`: by name, or by a point into the dashboard.
fn switch_view(device: &Device<'_>, at: Node, action: &Action) -> Effect {
    let views = || switchable_views(device, at.unlocked).join(", ");
    if let Some(point) = action.coord {
        let here = device.views.get(at.view).map_or("", |v| v.name);
        if let Some(d) = device.dashboard {
            if device.in_dashboard_region(at.view, point) {
                let name = device.views.get(d.view).map_or("", |v| v.name);
                let to = Node {
                    view: d.view,
                    unlocked: true,
                    ..at
                };
                return if at.unlocked {
                    Effect::stay(to, Outcome::ViewSwitch, feedback::switched(name))
                } else {
                    Effect::stay(to, Outcome::Unlock, feedback::unlocked_active(name))
                };
            }
        }
        return Effect::stay(
            at,
            Outcome::Notification,
            feedback::notification(&format!(
                "there is no panel to look at closely at [{}, {}] in the {here} view; \
switch by name with Switch_view(params=[view]) (you can switch to: {})",
                point.x,
                point.y,
                views()
            )),
        );
    }
    let wanted = action.view_name().unwrap_or("").trim();
    let found = device
        .views
        .iter()
        .position(|v| v.name.eq_ignore_ascii_case(wanted));
    let Some(w) = found else {
        return Effect::stay(
            at,
            Outcome::Notification,
            feedback::notification(&format!(
                "there is no view \"{wanted}\" (you can switch to: {})",
                views()
            )),
        );
    };
    let name = device.views[w].name;
    if !at.unlocked && device.dashboard.is_some_and(|d| d.view == w) {
        return Effect::stay(
            at,
            Outcome::Notification,
            feedback::notification(&format!(
                "the {name} view cannot be seen yet (you can switch to: {})",
                views()
            )),
        );
    }
    if w == at.view {
        return Effect::stay(at, Outcome::ViewSwitch, feedback::already_there(name));
    }
    Effect::stay(
        Node { view: w, ..at },
        Outcome::ViewSwitch,
        feedback::switched(name),
    )
}

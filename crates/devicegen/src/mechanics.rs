//! How each component is worked: the atomic action and parameters of every
//! transition of the category template, computed from the component's
//! [`Operation`] so that nothing is typed per transition.
//!
//! The rules, in the words of the action table of `specs/devices.md`
//! section 2:
//!
//! - **Press**: `[0]` (click); `[1]` (long press) when the template's
//!   transition begins "Hold"; `[2]` (double click) when it says
//!   "double-press".
//! - **Rotate**: from position p to q, `[direction, extent]` with direction
//!   0 (clockwise) when q > p and 1 otherwise, extent |q − p| detents.
//! - **Slide**: toward a higher position the axis's forward move, back the
//!   opposite one (a door: Pull `[4]` out, Push `[4]` in; a slide switch:
//!   Push `[0]` up, Pull `[1]` down). **Decision:** a slide with more than
//!   two positions (a hair dryer's 0-1-2 switch) also takes the number of
//!   steps, `[direction, steps]`, as a rotary takes its extent; otherwise
//!   two moves from one position would be indistinguishable.
//! - **Grasp**: `[]`. **Fixed**: as written.
//!
//! A component without an operation in its category file is pressed when
//! its name ends in `_button` and grasped when it ends in `handset`,
//! `_handle` or `_fob` (the endings of `data/ucsm/README.md`); any other
//! needs one written down.

use std::collections::{BTreeMap, BTreeSet};

use knoblab_core::bundle::{StateMachine, TransitionOverride};

use super::desc::{Axis, Operation};

/// Why a component's actions could not be worked out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MechanicsError {
    /// The category file gives the component no operation, and its name
    /// implies none.
    #[error(
        "component \"{component}\" has no operation; add it under \"operations\" as one of \
         press, rotate {{positions, default}}, slide {{axis, positions, default}}, grasp, \
         fixed {{action, parameter}}"
    )]
    NoOperation {
        /// The component.
        component: String,
    },
    /// A move between two states at the same position.
    #[error("both states are at position {position}; a move needs two different positions")]
    SamePosition {
        /// The position both states are at.
        position: i32,
    },
    /// One transition of the template could not be worked out.
    #[error("{component}, from {from} to {to}: {problem}")]
    Transition {
        /// The component.
        component: String,
        /// The state the transition leaves.
        from: String,
        /// The state it enters.
        to: String,
        /// What is wrong.
        problem: Box<MechanicsError>,
    },
    /// Two transitions from one state would be the same action.
    #[error(
        "{component}: two transitions from {from} would both be {action} {parameter:?}; \
         give their states different positions"
    )]
    Ambiguous {
        /// The component.
        component: String,
        /// The state both leave.
        from: String,
        /// Their action.
        action: String,
        /// Their parameters.
        parameter: Vec<String>,
    },
    /// The template has no transition for the component.
    #[error("component \"{component}\" has no transition in the template")]
    NoTransition {
        /// The component.
        component: String,
    },
}

/// The action and parameters of one component's transitions: the default
/// and, per template transition, an override (see
/// [`knoblab_core::bundle::ComponentParts`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Operated {
    /// The action of its transitions unless overridden (`press`, `rotate`, …).
    pub atomic_action: String,
    /// The parameters that go with `atomic_action`.
    pub parameter: Vec<String>,
    /// One per template transition whose action or parameters differ.
    pub overrides: Vec<TransitionOverride>,
}

/// The operation of `component`: written in the category file, or implied
/// by its name's ending.
pub fn operation_of(
    component: &str,
    written: &BTreeMap<String, Operation>,
) -> Result<Operation, MechanicsError> {
    if let Some(op) = written.get(component) {
        return Ok(op.clone());
    }
    if component.ends_with("_button") {
        return Ok(Operation::Press);
    }
    if ["handset", "_handle", "_fob"]
        .iter()
        .any(|e| component.ends_with(e))
    {
        return Ok(Operation::Grasp);
    }
    Err(MechanicsError::NoOperation {
        component: component.to_string(),
    })
}

/// Works out every transition of `component` in the template.
pub fn operate(
    ucsm: &StateMachine,
    component: &str,
    op: &Operation,
) -> Result<Operated, MechanicsError> {
    let mut overrides = Vec::new();
    let mut first: Option<(String, Vec<String>)> = None;
    let steps = matches!(op, Operation::Slide { positions, default, .. }
        if slide_positions(ucsm, component, positions, *default) > 2);
    for (from, state) in &ucsm.states {
        let Some(transitions) = state.on.get(component) else {
            continue;
        };
        let mut seen: BTreeSet<(String, Vec<String>)> = BTreeSet::new();
        for (index, t) in transitions.iter().enumerate() {
            let (action, parameter) =
                action_for(op, from, &t.next_state, &t.transition_description, steps).map_err(
                    |problem| MechanicsError::Transition {
                        component: component.to_string(),
                        from: from.clone(),
                        to: t.next_state.clone(),
                        problem: Box::new(problem),
                    },
                )?;
            if !seen.insert((action.clone(), parameter.clone())) {
                return Err(MechanicsError::Ambiguous {
                    component: component.to_string(),
                    from: from.clone(),
                    action,
                    parameter,
                });
            }
            first.get_or_insert_with(|| (action.clone(), parameter.clone()));
            overrides.push(TransitionOverride {
                from: Some(from.clone()),
                to: None,
                index: Some(index),
                atomic_action: Some(action),
                parameter: Some(parameter),
            });
        }
    }
    let (atomic_action, parameter) = first.ok_or_else(|| MechanicsError::NoTransition {
        component: component.to_string(),
    })?;
    Ok(Operated {
        atomic_action,
        parameter,
        overrides,
    })
}

fn action_for(
    op: &Operation,
    from: &str,
    to: &str,
    description: &str,
    steps: bool,
) -> Result<(String, Vec<String>), MechanicsError> {
    let owned = |a: &str, p: &[&str]| (a.to_string(), p.iter().map(|s| s.to_string()).collect());
    Ok(match op {
        Operation::Press => {
            let lower = description.to_lowercase();
            let kind = if description.starts_with("Hold") {
                "1"
            } else if lower.contains("double-press") || lower.contains("double press") {
                "2"
            } else {
                "0"
            };
            owned("press", &[kind])
        }
        Operation::Grasp => owned("grasp", &[]),
        Operation::Fixed { action, parameter } => (action.clone(), parameter.clone()),
        Operation::Rotate { positions, default } => {
            let delta = delta(positions, *default, from, to)?;
            let direction = if delta > 0 { "0" } else { "1" };
            (
                "rotate".to_string(),
                vec![direction.to_string(), delta.abs().to_string()],
            )
        }
        Operation::Slide {
            axis,
            positions,
            default,
        } => {
            let delta = delta(positions, *default, from, to)?;
            let (action, direction) = slide_move(*axis, delta > 0);
            let mut parameter = vec![direction.to_string()];
            if steps {
                parameter.push(delta.abs().to_string());
            }
            (action.to_string(), parameter)
        }
    })
}

fn delta(
    positions: &BTreeMap<String, i32>,
    default: i32,
    from: &str,
    to: &str,
) -> Result<i32, MechanicsError> {
    let at = |s: &str| positions.get(s).copied().unwrap_or(default);
    match at(to) - at(from) {
        0 => Err(MechanicsError::SamePosition { position: at(from) }),
        d => Ok(d),
    }
}

/// The action and direction of a move along `axis`, forward or back.
fn slide_move(axis: Axis, forward: bool) -> (&'static str, &'static str) {
    match (axis, forward) {
        (Axis::Up, true) => ("push", "0"),
        (Axis::Up, false) => ("pull", "1"),
        (Axis::Down, true) => ("push", "1"),
        (Axis::Down, false) => ("pull", "0"),
        (Axis::Right, true) => ("push", "3"),
        (Axis::Right, false) => ("pull", "2"),
        (Axis::Out, true) => ("pull", "4"),
        (Axis::Out, false) => ("push", "4"),
        (Axis::In, true) => ("push", "4"),
        (Axis::In, false) => ("pull", "4"),
        (Axis::Lift, true) => ("pull", "0"),
        (Axis::Lift, false) => ("push", "1"),
    }
}

/// How many distinct positions the component's transitions touch.
fn slide_positions(
    ucsm: &StateMachine,
    component: &str,
    positions: &BTreeMap<String, i32>,
    default: i32,
) -> usize {
    let at = |s: &str| positions.get(s).copied().unwrap_or(default);
    let mut seen = BTreeSet::new();
    for (from, state) in &ucsm.states {
        for t in state.on.get(component).into_iter().flatten() {
            seen.insert(at(from));
            seen.insert(at(&t.next_state));
        }
    }
    seen.len()
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests parse what they check directly (#47)
mod tests {
    use super::*;

    fn template() -> StateMachine {
        serde_json::from_str(
            r#"{"name": "Lamp", "initial_state": "Off", "states": {
              "Off": {"description": "off", "on": {
                "knob": [{"next_state": "Low", "transition_description": "Turn"},
                         {"next_state": "High", "transition_description": "Turn"}],
                "button": [{"next_state": "Locked", "transition_description": "Hold the button"}]}},
              "Low": {"description": "low", "on": {
                "knob": [{"next_state": "Off", "transition_description": "Turn back"}]}},
              "High": {"description": "high", "on": {}},
              "Locked": {"description": "locked", "on": {}}}}"#,
        )
        .unwrap()
    }

    /// The parameters given to transition `index` out of `from`.
    fn params(operated: &Operated, from: &str, index: usize) -> Vec<String> {
        operated
            .overrides
            .iter()
            .find(|o| o.from.as_deref() == Some(from) && o.index == Some(index))
            .and_then(|o| o.parameter.clone())
            .unwrap()
    }

    #[test]
    fn a_knob_turns_by_the_difference_of_positions() {
        let op = Operation::Rotate {
            positions: BTreeMap::from([("Low".into(), 1), ("High".into(), 3)]),
            default: 0,
        };
        let operated = operate(&template(), "knob", &op).unwrap();
        assert_eq!(params(&operated, "Off", 0), ["0", "1"]);
        assert_eq!(params(&operated, "Off", 1), ["0", "3"]);
        assert_eq!(params(&operated, "Low", 0), ["1", "1"]);
    }

    #[test]
    fn hold_in_the_template_means_a_long_press() {
        let operated = operate(&template(), "button", &Operation::Press).unwrap();
        assert_eq!(operated.parameter, ["1"]);
    }

    #[test]
    fn a_move_between_equal_positions_is_refused_with_its_states() {
        let op = Operation::Rotate {
            positions: BTreeMap::new(),
            default: 0,
        };
        let err = operate(&template(), "knob", &op).unwrap_err().to_string();
        assert!(
            err.contains("knob, from Low to Off: both states are at position 0"),
            "{err}"
        );
    }

    #[test]
    fn a_three_position_slide_counts_its_steps() {
        let op = Operation::Slide {
            axis: Axis::Up,
            positions: BTreeMap::from([("Low".into(), 1), ("High".into(), 2)]),
            default: 0,
        };
        let operated = operate(&template(), "knob", &op).unwrap();
        assert_eq!(params(&operated, "Off", 1), ["0", "2"]);
        assert_eq!(params(&operated, "Low", 0), ["1", "1"]);
        let back = operated
            .overrides
            .iter()
            .find(|o| o.from.as_deref() == Some("Low"));
        assert_eq!(back.and_then(|o| o.atomic_action.as_deref()), Some("pull"));
    }

    #[test]
    fn an_unnamed_part_needs_an_operation() {
        assert_eq!(
            operation_of("start_button", &BTreeMap::new()),
            Ok(Operation::Press)
        );
        assert!(operation_of("lid", &BTreeMap::new())
            .unwrap_err()
            .to_string()
            .contains("lid"));
    }
}

//! UCSM → SSM derivation (`specs/devices.md` section 1, "The category
//! template (UCSM) and derivation").
//!
//! A Universal Category State Machine is the superset of what a category of
//! device can do, without boxes, actions or parameters. A device's SSM is
//! derived from it by removing the transitions of the components the device
//! lacks, then every state and transition no longer reachable from the
//! initial state.
//!
//! **Decision (the rule, exactly):** keep a transition when its key is
//! `immediate`, `timed_wait` or a component of the device; then keep the
//! states reachable from the UCSM's initial state over the kept
//! transitions, with all their kept transitions (which, by construction,
//! lead only to kept states). The initial state is never changed. Checked
//! against the VGEBench appendix kettle: its UCSM starts in `Standby`, and
//! with {power_button, lid_release_button} this gives exactly the published
//! SSM's five states and nine transitions (`Off` goes with
//! `power_input_port`, the two temperature-control states with
//! `temperature_control`). No rule that moves the initial state (say, out
//! of an `Off` whose only way out is a missing power port) is needed by that
//! data, and such a rule would invent behaviour the template does not state,
//! so a template whose initial state needs a missing component must start
//! elsewhere: derivation then leaves a one-state machine that validation
//! and the goal rules make visible.
//!
//! [`derive`] gives the logic alone (transitions without boxes, like the
//! template). [`derive_device`] also dresses each kept physical transition
//! with its component's boxes, action and parameters, so that a device
//! library generator can write complete SSMs from a template and a table of
//! [`ComponentParts`].

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::model::{StateMachine, Transition, ViewBox, IMMEDIATE, TIMED_WAIT};

/// Why a derivation was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DeriveError {
    /// The template's `initial_state` names no state.
    #[error("the template's initial state \"{initial}\" is not one of its states ({states})")]
    UnknownInitialState {
        /// The `initial_state` written.
        initial: String,
        /// The template's states.
        states: String,
    },
    /// A component of the device does not appear in the template.
    #[error("the template has no component \"{component}\"; its components are: {known}")]
    UnknownComponent {
        /// The device's component.
        component: String,
        /// The template's components.
        known: String,
    },
    /// A kept transition leads to a state the template does not have.
    #[error("state \"{state}\", component \"{component}\": next_state \"{next}\" is not a state of the template")]
    UnknownNextState {
        /// The state the transition leaves.
        state: String,
        /// The component it is on.
        component: String,
        /// The `next_state` written.
        next: String,
    },
    /// [`derive_device`] was given no parts for a component of the device.
    #[error("no parts (boxes, action) were given for component \"{component}\"")]
    MissingParts {
        /// The component without parts.
        component: String,
    },
}

/// How one component of a device is operated and where it is seen: what
/// [`derive_device`] adds to each kept transition of that component.
///
/// Serde-readable, so a generator can keep a table of them per device:
///
/// ```json
/// {"bbox": [{"coordinate": [852, 955, 184, 76, 1209, 1369], "view": "front"}],
///  "atomic_action": "push", "parameter": ["1"],
///  "overrides": [{"to": "Standby", "parameter": ["0"]}]}
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ComponentParts {
    /// The component's boxes, one or more per view it is seen in.
    pub bbox: Vec<ViewBox>,
    /// The action that operates it by default (one of the five).
    pub atomic_action: String,
    /// The parameters it takes by default.
    #[serde(default)]
    pub parameter: Vec<String>,
    /// Exceptions for particular transitions; the first that matches wins.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overrides: Vec<TransitionOverride>,
}

/// A different action or parameter list for some of a component's
/// transitions (pull to open, push to close; rotate to 1, rotate to 2).
/// Each of `from`, `to`, `index` that is given must match; `index` is the
/// transition's position in the component's list in the template.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TransitionOverride {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Only transitions out of this state.
    pub from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Only transitions into this state.
    pub to: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Only the transition at this position of the component's list.
    pub index: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The action these transitions take instead.
    pub atomic_action: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The parameters they take instead.
    pub parameter: Option<Vec<String>>,
}

impl TransitionOverride {
    fn matches(&self, from: &str, to: &str, index: usize) -> bool {
        self.from.as_deref().is_none_or(|f| f == from)
            && self.to.as_deref().is_none_or(|t| t == to)
            && self.index.is_none_or(|i| i == index)
    }
}

/// The components a template names (every `on` key but `immediate` and
/// `timed_wait`), sorted.
pub fn template_components(ucsm: &StateMachine) -> BTreeSet<String> {
    ucsm.states
        .values()
        .flat_map(|s| s.on.keys())
        .filter(|k| *k != IMMEDIATE && *k != TIMED_WAIT)
        .cloned()
        .collect()
}

/// Derives a device's logic from its category template: the transitions
/// of absent components removed, then what is no longer reachable (see the
/// module's **Decision**). Transitions are copied as they are in the
/// template; for boxes, actions and parameters use [`derive_device`].
///
/// ```
/// use knoblab_core::bundle::{derive, StateMachine};
/// let ucsm: StateMachine = serde_json::from_str(r#"{
///   "name": "Lamp", "initial_state": "Off", "states": {
///     "Off": {"description": "off", "on": {
///        "switch": [{"next_state": "On", "transition_description": "on"}],
///        "dimmer": [{"next_state": "Dim", "transition_description": "dim"}]}},
///     "On":  {"description": "on", "on": {
///        "switch": [{"next_state": "Off", "transition_description": "off"}]}},
///     "Dim": {"description": "dim", "on": {}}}}"#).unwrap();
/// let ssm = derive(&ucsm, &["switch"]).unwrap();
/// assert_eq!(ssm.states.keys().collect::<Vec<_>>(), ["Off", "On"]);
/// ```
pub fn derive<S: AsRef<str>>(
    ucsm: &StateMachine,
    components: &[S],
) -> Result<StateMachine, DeriveError> {
    let known = template_components(ucsm);
    let mut keep: BTreeSet<String> = BTreeSet::new();
    for component in components {
        let component = component.as_ref();
        if !known.contains(component) {
            return Err(DeriveError::UnknownComponent {
                component: component.to_string(),
                known: known.iter().cloned().collect::<Vec<_>>().join(", "),
            });
        }
        keep.insert(component.to_string());
    }
    if !ucsm.states.contains_key(&ucsm.initial_state) {
        return Err(DeriveError::UnknownInitialState {
            initial: ucsm.initial_state.clone(),
            states: ucsm.states.keys().cloned().collect::<Vec<_>>().join(", "),
        });
    }
    let kept_key = |key: &str| key == IMMEDIATE || key == TIMED_WAIT || keep.contains(key);

    // Reachability over kept transitions only.
    let mut reachable: BTreeSet<&str> = BTreeSet::from([ucsm.initial_state.as_str()]);
    let mut queue: VecDeque<&str> = VecDeque::from([ucsm.initial_state.as_str()]);
    while let Some(name) = queue.pop_front() {
        let Some(state) = ucsm.states.get(name) else {
            continue;
        };
        for (key, transitions) in state.on.iter().filter(|(k, _)| kept_key(k)) {
            for t in transitions {
                if !ucsm.states.contains_key(&t.next_state) {
                    return Err(DeriveError::UnknownNextState {
                        state: name.to_string(),
                        component: key.clone(),
                        next: t.next_state.clone(),
                    });
                }
                if reachable.insert(t.next_state.as_str()) {
                    queue.push_back(t.next_state.as_str());
                }
            }
        }
    }

    let states = ucsm
        .states
        .iter()
        .filter(|(name, _)| reachable.contains(name.as_str()))
        .map(|(name, state)| {
            let mut state = state.clone();
            state
                .on
                .retain(|key, transitions| kept_key(key) && !transitions.is_empty());
            (name.clone(), state)
        })
        .collect();
    Ok(StateMachine {
        name: ucsm.name.clone(),
        path: ucsm.path.clone(),
        initial_state: ucsm.initial_state.clone(),
        states,
    })
}

/// Derives a complete device SSM: [`derive`] with the components that
/// `parts` names, then each kept physical transition given its component's
/// boxes, and the action and parameters of the first matching
/// [`TransitionOverride`] (each field falling back to the component's
/// default). `immediate` and `timed_wait` transitions stay bare.
pub fn derive_device(
    ucsm: &StateMachine,
    parts: &BTreeMap<String, ComponentParts>,
) -> Result<StateMachine, DeriveError> {
    let components: Vec<&str> = parts.keys().map(String::as_str).collect();
    let mut ssm = derive(ucsm, &components)?;
    for (from, state) in ssm.states.iter_mut() {
        for (component, transitions) in state.on.iter_mut() {
            if component == IMMEDIATE || component == TIMED_WAIT {
                continue;
            }
            let part = parts
                .get(component)
                .ok_or_else(|| DeriveError::MissingParts {
                    component: component.clone(),
                })?;
            for (index, transition) in transitions.iter_mut().enumerate() {
                dress(transition, part, from, index);
            }
        }
    }
    Ok(ssm)
}

fn dress(transition: &mut Transition, part: &ComponentParts, from: &str, index: usize) {
    let special = part
        .overrides
        .iter()
        .find(|o| o.matches(from, &transition.next_state, index));
    transition.bbox = part.bbox.clone();
    transition.atomic_action = Some(
        special
            .and_then(|o| o.atomic_action.clone())
            .unwrap_or_else(|| part.atomic_action.clone()),
    );
    transition.parameter = Some(
        special
            .and_then(|o| o.parameter.clone())
            .unwrap_or_else(|| part.parameter.clone()),
    );
}

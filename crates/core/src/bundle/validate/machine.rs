//! The state machine's rules: transitions, boxes, reachability, the
//! `immediate` chains and the dangerous states.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

use super::{list, SSM_FILE};
use crate::bundle::diagnostics::{Diagnostic, Location};
use crate::bundle::limits::MAX_STATES;
use crate::bundle::model::{
    BboxOrigin, StateMachine, ViewBox, ViewSpec, ATOMIC_ACTIONS, IMMEDIATE, TIMED_WAIT,
};

/// The states reachable from `start` over every kind of transition (only
/// transitions to existing states are followed).
pub(crate) fn reachable_from(ssm: &StateMachine, start: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    if !ssm.states.contains_key(start) {
        return seen;
    }
    let mut queue = VecDeque::from([start.to_string()]);
    seen.insert(start.to_string());
    while let Some(name) = queue.pop_front() {
        let Some(state) = ssm.states.get(&name) else {
            continue;
        };
        for transition in state.on.values().flatten() {
            let next = &transition.next_state;
            if ssm.states.contains_key(next) && seen.insert(next.clone()) {
                queue.push_back(next.clone());
            }
        }
    }
    seen
}

pub(super) fn check_ssm(
    ssm: &StateMachine,
    views: Option<&BTreeMap<String, ViewSpec>>,
    origin: BboxOrigin,
    out: &mut Vec<Diagnostic>,
) {
    let file = || Location::file(SSM_FILE);
    if ssm.states.is_empty() {
        out.push(Diagnostic::error(
            file().field("states"),
            "the state machine has no states; expected at least the initial state",
        ));
        return;
    }
    if ssm.states.len() > MAX_STATES {
        out.push(Diagnostic::error(
            file().field("states"),
            format!(
                "the state machine has {} states; at most {MAX_STATES} are accepted (see \
                 input::limits::MAX_STATES)",
                ssm.states.len()
            ),
        ));
        return;
    }
    if !ssm.states.contains_key(&ssm.initial_state) {
        out.push(Diagnostic::error(
            file().field("initial_state"),
            format!(
                "the initial state \"{}\" is not a state; the states are: {}",
                ssm.initial_state,
                list(ssm.states.keys())
            ),
        ));
    }
    for (state_name, state) in &ssm.states {
        for (component, transitions) in &state.on {
            let at = |field: String| {
                file()
                    .state(state_name.as_str())
                    .component(component.as_str())
                    .field(field)
            };
            let special = component == IMMEDIATE || component == TIMED_WAIT;
            if special && transitions.len() > 1 {
                out.push(Diagnostic::error(
                    file()
                        .state(state_name.as_str())
                        .component(component.as_str()),
                    format!(
                        "{} `{component}` transitions; a state may have at most one, or the device \
                         would not know which to follow",
                        transitions.len()
                    ),
                ));
            }
            for (i, transition) in transitions.iter().enumerate() {
                let twin = transitions[..i].iter().position(|earlier| {
                    earlier.atomic_action == transition.atomic_action
                        && earlier.parameter == transition.parameter
                });
                if let (false, Some(first)) = (special, twin) {
                    out.push(Diagnostic::warning(
                        at(format!("[{i}]")),
                        format!(
                            "the same action and parameters as [{first}] (to \"{}\"); only the \
                             first can ever fire. Give each a different action or parameters",
                            transitions[first].next_state
                        ),
                    ));
                }
                if !ssm.states.contains_key(&transition.next_state) {
                    out.push(Diagnostic::error(
                        at(format!("[{i}].next_state")),
                        format!(
                            "next_state \"{}\" is not a state; the states are: {}",
                            transition.next_state,
                            list(ssm.states.keys())
                        ),
                    ));
                }
                if special {
                    if transition.is_physical() {
                        out.push(Diagnostic::warning(
                            at(format!("[{i}]")),
                            format!(
                                "a `{component}` transition fires without any action; its bbox and \
                                 atomic_action are ignored"
                            ),
                        ));
                    }
                    continue;
                }
                match transition.atomic_action.as_deref() {
                    None => out.push(Diagnostic::error(
                        at(format!("[{i}].atomic_action")),
                        format!(
                            "a transition of a physical component needs an atomic_action; \
                             expected one of {}",
                            ATOMIC_ACTIONS.join(", ")
                        ),
                    )),
                    Some(action) if !ATOMIC_ACTIONS.contains(&action) => {
                        out.push(Diagnostic::error(
                            at(format!("[{i}].atomic_action")),
                            format!(
                                "found atomic_action \"{action}\"; expected one of {} (lower case)",
                                ATOMIC_ACTIONS.join(", ")
                            ),
                        ))
                    }
                    Some(_) => {}
                }
                if transition.bbox.is_empty() {
                    out.push(Diagnostic::error(
                        at(format!("[{i}].bbox")),
                        "a transition of a physical component needs at least one box \
                         (`{\"coordinate\": [x, y, w, h, W, H], \"view\": ...}`), or no action \
                         could ever reach it",
                    ));
                }
                for (j, view_box) in transition.bbox.iter().enumerate() {
                    check_box(
                        view_box,
                        views,
                        origin,
                        &at(format!("[{i}].bbox[{j}]")),
                        out,
                    );
                }
            }
        }
    }
    if ssm.states.contains_key(&ssm.initial_state) {
        let reachable = reachable_from(ssm, &ssm.initial_state);
        for name in ssm.states.keys().filter(|s| !reachable.contains(*s)) {
            out.push(Diagnostic::warning(
                file().state(name.as_str()),
                format!(
                    "the state cannot be reached from the initial state \"{}\"; no action leads here",
                    ssm.initial_state
                ),
            ));
        }
    }
    check_immediate_cycles(ssm, out);
    if ssm.states.contains_key(&ssm.initial_state) {
        check_error_states(ssm, out);
        check_stuck_states(ssm, out);
    }
}

/// **Rule (warning):** every state reachable from the initial state can
/// lead back to it. A state with no way back is where the device gets
/// stuck: typically a device derived from its category template without
/// the part that gets out of that state (a camera whose back opens but
/// cannot close). Reported once per such state.
///
/// One forward search from the initial state and one search backwards from
/// it over the reversed transitions: linear in the states and transitions
/// (a search from every state was quadratic, and a 100,000-state ring never
/// finished).
fn check_stuck_states(ssm: &StateMachine, out: &mut Vec<Diagnostic>) {
    let initial = ssm.initial_state.as_str();
    let forward = reachable_from(ssm, initial);
    let back = reaching(ssm, initial);
    for name in &forward {
        // A dangerous state's way back has its own rule (error_state_without_reset).
        let dangerous = ssm.states.get(name).is_some_and(|s| s.is_error(name));
        if name != initial && !dangerous && !back.contains(name.as_str()) {
            let exits = ssm
                .states
                .get(name)
                .map(|s| s.on.keys().cloned().collect::<Vec<_>>())
                .unwrap_or_default();
            out.push(Diagnostic::warning(
                Location::file(SSM_FILE).state(name.as_str()),
                format!(
                    "the device can get stuck here: no sequence of actions leads back to the \
                     initial state \"{initial}\" (ways out of this state: {}). Give it a \
                     transition back, or keep the part that provides one",
                    list(exits.iter())
                ),
            ));
        }
    }
}

/// The states from which `target` can be reached over every kind of
/// transition (only transitions to existing states count): one breadth-first
/// search over the reversed edges.
fn reaching<'a>(ssm: &'a StateMachine, target: &str) -> HashSet<&'a str> {
    let mut incoming: HashMap<&str, Vec<&str>> = HashMap::new();
    for (name, state) in &ssm.states {
        for transition in state.on.values().flatten() {
            let next = transition.next_state.as_str();
            if ssm.states.contains_key(next) {
                incoming.entry(next).or_default().push(name.as_str());
            }
        }
    }
    let mut seen: HashSet<&str> = HashSet::new();
    let Some((start, _)) = ssm.states.get_key_value(target) else {
        return seen;
    };
    seen.insert(start.as_str());
    let mut queue = VecDeque::from([start.as_str()]);
    while let Some(name) = queue.pop_front() {
        for &from in incoming.get(name).map(Vec::as_slice).unwrap_or_default() {
            if seen.insert(from) {
                queue.push_back(from);
            }
        }
    }
    seen
}

/// How far a box's declared W×H may differ in shape from its view's real
/// image before a warning: 2 % of the aspect ratio, well above rounding
/// (a 1209×1369 picture re-saved at half size is 605×685, 0.1 % off) and
/// well below a picture of another shape.
const ASPECT_TOLERANCE: f64 = 0.02;

/// Boxes declared for a W×H whose shape differs from the view's real image:
/// they are scaled to it (spec), but then land somewhere else than meant.
/// Reported once per view and declared size, at its first box.
pub(super) fn check_declared_sizes(
    ssm: &StateMachine,
    image_sizes: &BTreeMap<String, (u32, u32)>,
    out: &mut Vec<Diagnostic>,
) {
    let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
    for (state_name, state) in &ssm.states {
        for (component, transitions) in &state.on {
            for (i, transition) in transitions.iter().enumerate() {
                for (j, b) in transition.bbox.iter().enumerate() {
                    let [.., declared_w, declared_h] = b.coordinate;
                    let Some(&(real_w, real_h)) = image_sizes.get(&b.view) else {
                        continue;
                    };
                    if declared_w <= 0.0 || declared_h <= 0.0 {
                        continue; // refused by the box rule
                    }
                    let declared = declared_w / declared_h;
                    let real = f64::from(real_w) / f64::from(real_h);
                    if ((declared - real) / real).abs() <= ASPECT_TOLERANCE {
                        continue;
                    }
                    if seen.insert((b.view.clone(), format!("{declared_w}×{declared_h}"))) {
                        out.push(Diagnostic::warning(
                            Location::file(SSM_FILE)
                                .state(state_name.as_str())
                                .component(component.as_str())
                                .field(format!("[{i}].bbox[{j}].coordinate")),
                            format!(
                                "the box is declared for a {declared_w}×{declared_h} image, but \
                                 view \"{}\" is {real_w}×{real_h}, another shape; boxes are scaled \
                                 to the real image, so this one may land off its component. \
                                 Expected W×H in the proportions of the view's image",
                                b.view
                            ),
                        ));
                    }
                }
            }
        }
    }
}

fn check_box(
    view_box: &ViewBox,
    views: Option<&BTreeMap<String, ViewSpec>>,
    origin: BboxOrigin,
    at: &Location,
    out: &mut Vec<Diagnostic>,
) {
    if let Some(views) = views {
        if !views.contains_key(&view_box.view) {
            out.push(Diagnostic::error(
                at.clone()
                    .field(format!("{}.view", at.field.as_deref().unwrap_or_default())),
                format!(
                    "the box is on view \"{}\", which has no image; views.json lists: {}",
                    view_box.view,
                    list(views.keys())
                ),
            ));
        }
    }
    let [x, y, w, h, image_w, image_h] = view_box.coordinate;
    let at = at.clone().field(format!(
        "{}.coordinate",
        at.field.as_deref().unwrap_or_default()
    ));
    if image_w <= 0.0 || image_h <= 0.0 {
        out.push(Diagnostic::error(
            at,
            format!(
                "the box declares an image of {image_w}×{image_h}; W and H (the last two numbers \
                 of [x, y, w, h, W, H]) must be positive"
            ),
        ));
        return;
    }
    if w <= 0.0 || h <= 0.0 {
        out.push(Diagnostic::error(
            at,
            format!("the box is {w}×{h}; its width and height must be positive"),
        ));
        return;
    }
    let (left, top) = match origin {
        BboxOrigin::TopLeft => (x, y),
        BboxOrigin::Center => (x - w / 2.0, y - h / 2.0),
    };
    if left < 0.0 || top < 0.0 || left + w > image_w || top + h > image_h {
        let origin_note = match origin {
            BboxOrigin::TopLeft => "x, y the top-left corner",
            BboxOrigin::Center => "x, y the centre (bbox_origin \"center\")",
        };
        out.push(Diagnostic::error(
            at,
            format!(
                "the box spans x {left}..{} and y {top}..{} ({origin_note}), outside its \
                 {image_w}×{image_h} image; it must lie within x 0..{image_w} and y 0..{image_h}",
                left + w,
                top + h
            ),
        ));
    }
}

/// **Rule:** `immediate` transitions must not loop, or the chain followed
/// after a step would never end. Finds every cycle of the graph made of
/// `immediate` edges alone (each reported once, at its first state).
fn check_immediate_cycles(ssm: &StateMachine, out: &mut Vec<Diagnostic>) {
    let next = |state: &str| -> Vec<&str> {
        ssm.states
            .get(state)
            .and_then(|s| s.on.get(IMMEDIATE))
            .map(|ts| {
                ts.iter()
                    .map(|t| t.next_state.as_str())
                    .filter(|n| ssm.states.contains_key(*n))
                    .collect()
            })
            .unwrap_or_default()
    };
    // Iterative depth-first search with colours: 1 on the path, 2 done.
    let mut colour: BTreeMap<&str, u8> = BTreeMap::new();
    let mut reported: BTreeSet<Vec<&str>> = BTreeSet::new();
    for start in ssm.states.keys() {
        if colour.contains_key(start.as_str()) {
            continue;
        }
        let mut path: Vec<&str> = vec![start.as_str()];
        let mut stack: Vec<(Vec<&str>, usize)> = vec![(next(start), 0)];
        colour.insert(start.as_str(), 1);
        while let Some((children, index)) = stack.last_mut() {
            if let Some(&child) = children.get(*index) {
                *index += 1;
                match colour.get(child) {
                    Some(1) => {
                        let from = path.iter().position(|s| *s == child).unwrap_or(0);
                        let mut cycle: Vec<&str> = path[from..].to_vec();
                        let mut key = cycle.clone();
                        key.sort_unstable();
                        if reported.insert(key) {
                            cycle.push(child);
                            out.push(Diagnostic::error(
                                Location::file(SSM_FILE)
                                    .state(child)
                                    .component(IMMEDIATE),
                                format!(
                                    "immediate transitions form a cycle: {}; the chain that follows \
                                     a step would never end. Break it with a state that waits for \
                                     an action",
                                    cycle.join(" → ")
                                ),
                            ));
                        }
                    }
                    Some(_) => {}
                    None => {
                        colour.insert(child, 1);
                        path.push(child);
                        stack.push((next(child), 0));
                    }
                }
            } else {
                if let Some(done) = path.pop() {
                    colour.insert(done, 2);
                }
                stack.pop();
            }
        }
    }
}

/// A dangerous state's `immediate` transition returns the device to its
/// initial state (spec, section 1); anything else is worth a warning.
fn check_error_states(ssm: &StateMachine, out: &mut Vec<Diagnostic>) {
    for (name, state) in &ssm.states {
        if !state.is_error(name) {
            continue;
        }
        let reset = state.on.get(IMMEDIATE).and_then(|ts| ts.first());
        match reset {
            None => out.push(Diagnostic::warning(
                Location::file(SSM_FILE).state(name.as_str()),
                format!(
                    "a dangerous state should have an `immediate` transition back to the initial \
                     state \"{}\"; without it the device stays in \"{name}\"",
                    ssm.initial_state
                ),
            )),
            Some(t) if t.next_state != ssm.initial_state => out.push(Diagnostic::warning(
                Location::file(SSM_FILE)
                    .state(name.as_str())
                    .component(IMMEDIATE)
                    .field("[0].next_state"),
                format!(
                    "a dangerous state resets the device to its initial state \"{}\"; found \"{}\"",
                    ssm.initial_state, t.next_state
                ),
            )),
            Some(_) => {}
        }
    }
}

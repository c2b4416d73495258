//! Validation: every rule of `specs/devices.md` section 1, reported all at
//! once, each problem with its location and a message saying what was found
//! and what would be valid. Nothing here panics on any input.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::diagnostics::{Diagnostic, Location};
use super::model::{
    BboxOrigin, Bundle, Manifest, StateMachine, Task, ViewBox, ViewKind, ViewSpec, ATOMIC_ACTIONS,
    FORMAT, IMMEDIATE, TIMED_WAIT,
};

/// The file names locations use. In the single-file form they name the
/// keys `manifest`, `ssm`, `views`, `tasks`.
pub const MANIFEST_FILE: &str = "manifest.json";
/// See [`MANIFEST_FILE`].
pub const SSM_FILE: &str = "ssm.json";
/// See [`MANIFEST_FILE`].
pub const VIEWS_FILE: &str = "views.json";
/// See [`MANIFEST_FILE`].
pub const TASKS_FILE: &str = "tasks.json";

/// What validation looks at. A part is `None` when its file could not be
/// read (that problem is already reported); the rules that need it are then
/// skipped, and the others still run, so every problem shows at once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Parts<'a> {
    pub manifest: Option<&'a Manifest>,
    pub ssm: Option<&'a StateMachine>,
    pub views: Option<&'a BTreeMap<String, ViewSpec>>,
    /// The real pixel size of each view image that could be read.
    pub image_sizes: &'a BTreeMap<String, (u32, u32)>,
    pub tasks: Option<&'a [Task]>,
}

/// Every problem of a loaded bundle (warnings included). A bundle from the
/// loaders has no errors; this is for bundles built or changed in code.
pub fn validate_bundle(bundle: &Bundle) -> Vec<Diagnostic> {
    let specs: BTreeMap<String, ViewSpec> = bundle
        .views
        .iter()
        .map(|(name, view)| (name.clone(), view.spec.clone()))
        .collect();
    let sizes: BTreeMap<String, (u32, u32)> = bundle
        .views
        .iter()
        .map(|(name, view)| (name.clone(), (view.image.width, view.image.height)))
        .collect();
    validate(Parts {
        manifest: Some(&bundle.manifest),
        ssm: Some(&bundle.ssm),
        views: Some(&specs),
        image_sizes: &sizes,
        tasks: Some(&bundle.tasks),
    })
}

/// Runs every rule on what could be read.
pub(crate) fn validate(parts: Parts<'_>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if let Some(manifest) = parts.manifest {
        check_manifest(manifest, parts.views, &mut out);
    }
    if let Some(ssm) = parts.ssm {
        let origin = parts.manifest.map(|m| m.bbox_origin).unwrap_or_default();
        check_ssm(ssm, parts.views, origin, &mut out);
        check_declared_sizes(ssm, parts.image_sizes, &mut out);
    }
    if let Some(views) = parts.views {
        check_views(views, parts.image_sizes, &mut out);
    }
    if let Some(tasks) = parts.tasks {
        check_tasks(tasks, parts.ssm, parts.views, &mut out);
    }
    out
}

/// How many names a message lists before "… and N more".
const LISTED_NAMES: usize = 20;

/// `a, b, c` for a message, or `none` for nothing; long lists are cut
/// after [`LISTED_NAMES`] so that a huge file cannot make every message huge.
fn list<'a>(names: impl IntoIterator<Item = &'a String>) -> String {
    let mut shown: Vec<&str> = Vec::new();
    let mut more = 0usize;
    for name in names {
        if shown.len() < LISTED_NAMES {
            shown.push(name);
        } else {
            more += 1;
        }
    }
    match (shown.is_empty(), more) {
        (true, _) => "none".into(),
        (false, 0) => shown.join(", "),
        (false, more) => format!("{} … and {more} more", shown.join(", ")),
    }
}

fn check_manifest(
    manifest: &Manifest,
    views: Option<&BTreeMap<String, ViewSpec>>,
    out: &mut Vec<Diagnostic>,
) {
    let at = |field: &str| Location::file(MANIFEST_FILE).field(field);
    if manifest.format != FORMAT {
        out.push(Diagnostic::error(
            at("format"),
            format!(
                "found format \"{}\"; this version reads \"{FORMAT}\"",
                manifest.format
            ),
        ));
    }
    if manifest.id.trim().is_empty() {
        out.push(Diagnostic::error(
            at("id"),
            "the id is empty; expected a name such as \"kettle-0001\"",
        ));
    }
    if let Some(views) = views {
        let initial = views.get(&manifest.initial_view);
        if initial.is_none() {
            out.push(Diagnostic::error(
                at("initial_view"),
                format!(
                    "the initial view \"{}\" is not in views.json; the views are: {}",
                    manifest.initial_view,
                    list(views.keys())
                ),
            ));
        } else if initial.is_some_and(|v| v.kind == ViewKind::Dashboard) {
            out.push(Diagnostic::error(
                at("initial_view"),
                format!(
                    "the initial view \"{}\" is a dashboard, which is locked when an episode starts; \
                     expected an orthographic or axonometric view",
                    manifest.initial_view
                ),
            ));
        }
    }
}

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

fn check_ssm(
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
    }
}

/// How far a box's declared W×H may differ in shape from its view's real
/// image before a warning: 2 % of the aspect ratio, well above rounding
/// (a 1209×1369 picture re-saved at half size is 605×685, 0.1 % off) and
/// well below a picture of another shape.
const ASPECT_TOLERANCE: f64 = 0.02;

/// Boxes declared for a W×H whose shape differs from the view's real image:
/// they are scaled to it (spec), but then land somewhere else than meant.
/// Reported once per view and declared size, at its first box.
fn check_declared_sizes(
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

fn check_views(
    views: &BTreeMap<String, ViewSpec>,
    image_sizes: &BTreeMap<String, (u32, u32)>,
    out: &mut Vec<Diagnostic>,
) {
    for (name, spec) in views {
        let at = |field: &str| Location::file(VIEWS_FILE).field(format!("{name}.{field}"));
        if spec.kind != ViewKind::Dashboard {
            if spec.parent.is_some() || spec.region.is_some() {
                out.push(Diagnostic::warning(
                    at("kind"),
                    format!(
                        "a {:?} view has no parent or region (only a dashboard has); they are ignored",
                        spec.kind
                    )
                    .to_lowercase(),
                ));
            }
            continue;
        }
        let parent = match spec.parent.as_deref() {
            None => {
                out.push(Diagnostic::error(
                    at("parent"),
                    "a dashboard needs a `parent`: the view whose region it magnifies",
                ));
                None
            }
            Some(parent) => match views.get(parent) {
                None => {
                    out.push(Diagnostic::error(
                        at("parent"),
                        format!(
                            "the parent \"{parent}\" is not a view; the views are: {}",
                            list(views.keys())
                        ),
                    ));
                    None
                }
                Some(p) if p.kind == ViewKind::Dashboard => {
                    out.push(Diagnostic::error(
                        at("parent"),
                        format!(
                            "the parent \"{parent}\" is itself a dashboard; expected an \
                             orthographic view"
                        ),
                    ));
                    None
                }
                Some(_) => Some(parent),
            },
        };
        let Some([x, y, w, h]) = spec.region else {
            out.push(Diagnostic::error(
                at("region"),
                "a dashboard needs a `region` [x, y, w, h]: the part of its parent's image it \
                 magnifies, in pixels of that image",
            ));
            continue;
        };
        if w <= 0.0 || h <= 0.0 {
            out.push(Diagnostic::error(
                at("region"),
                format!("the region is {w}×{h}; its width and height must be positive"),
            ));
            continue;
        }
        if let Some((pw, ph)) = parent.and_then(|p| image_sizes.get(p)) {
            let (pw, ph) = (f64::from(*pw), f64::from(*ph));
            if x < 0.0 || y < 0.0 || x + w > pw || y + h > ph {
                out.push(Diagnostic::error(
                    at("region"),
                    format!(
                        "the region spans x {x}..{} and y {y}..{}, outside the parent's {pw}×{ph} \
                         image; it must lie within x 0..{pw} and y 0..{ph}",
                        x + w,
                        y + h
                    ),
                ));
            }
        }
    }
}

fn check_tasks(
    tasks: &[Task],
    ssm: Option<&StateMachine>,
    views: Option<&BTreeMap<String, ViewSpec>>,
    out: &mut Vec<Diagnostic>,
) {
    let at = |field: String| Location::file(TASKS_FILE).field(field);
    let mut ids: BTreeMap<&str, usize> = BTreeMap::new();
    let components: BTreeSet<&str> = ssm
        .map(|ssm| {
            ssm.states
                .values()
                .flat_map(|s| s.on.keys())
                .filter(|c| *c != IMMEDIATE && *c != TIMED_WAIT)
                .map(String::as_str)
                .collect()
        })
        .unwrap_or_default();
    // Reachable sets by start state, computed once each.
    let mut reach: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (i, task) in tasks.iter().enumerate() {
        if task.id.trim().is_empty() {
            out.push(Diagnostic::error(
                at(format!("tasks[{i}].id")),
                "the task id is empty; expected a name such as \"boil\"",
            ));
        } else if let Some(first) = ids.insert(task.id.as_str(), i) {
            out.push(Diagnostic::error(
                at(format!("tasks[{i}].id")),
                format!(
                    "task id \"{}\" is also the id of tasks[{first}]; ids must be unique",
                    task.id
                ),
            ));
        }
        if let (Some(view), Some(views)) = (&task.initial_view, views) {
            match views.get(view) {
                None => out.push(Diagnostic::error(
                    at(format!("tasks[{i}].initial_view")),
                    format!(
                        "the initial view \"{view}\" is not a view; the views are: {}",
                        list(views.keys())
                    ),
                )),
                Some(spec) if spec.kind == ViewKind::Dashboard => out.push(Diagnostic::error(
                    at(format!("tasks[{i}].initial_view")),
                    format!(
                        "the initial view \"{view}\" is a dashboard, which is locked when an \
                         episode starts; expected an orthographic or axonometric view"
                    ),
                )),
                Some(_) => {}
            }
        }
        if task.goals.is_empty() {
            out.push(Diagnostic::error(
                at(format!("tasks[{i}].goals")),
                "the task has no goals; expected at least one {\"state\", \"instruction\"}",
            ));
        }
        for (j, goal) in task.goals.iter().enumerate() {
            if goal.instruction.trim().is_empty() {
                out.push(Diagnostic::error(
                    at(format!("tasks[{i}].goals[{j}].instruction")),
                    "the instruction is empty; expected what a user would say, e.g. \
                     \"Start heating the water.\"",
                ));
            }
            let lower = goal.instruction.to_lowercase();
            for component in &components {
                let spoken = component.replace('_', " ").to_lowercase();
                if lower.contains(&component.to_lowercase()) || lower.contains(&spoken) {
                    out.push(Diagnostic::warning(
                        at(format!("tasks[{i}].goals[{j}].instruction")),
                        format!(
                            "the instruction names the internal component \"{component}\"; \
                             instructions say what the user wants, not which part to use"
                        ),
                    ));
                }
            }
        }
        let Some(ssm) = ssm else { continue };
        let start = task.initial_state.as_ref().unwrap_or(&ssm.initial_state);
        if !ssm.states.contains_key(start) {
            if task.initial_state.is_some() {
                out.push(Diagnostic::error(
                    at(format!("tasks[{i}].initial_state")),
                    format!(
                        "the initial state \"{start}\" is not a state; the states are: {}",
                        list(ssm.states.keys())
                    ),
                ));
            }
            continue;
        }
        // Goals are reached in order: each from where the previous one left
        // the device.
        let mut from = start.clone();
        for (j, goal) in task.goals.iter().enumerate() {
            if !ssm.states.contains_key(&goal.state) {
                out.push(Diagnostic::error(
                    at(format!("tasks[{i}].goals[{j}].state")),
                    format!(
                        "the goal state \"{}\" is not a state; the states are: {}",
                        goal.state,
                        list(ssm.states.keys())
                    ),
                ));
                break;
            }
            let reachable = reach
                .entry(from.clone())
                .or_insert_with(|| reachable_from(ssm, &from));
            if !reachable.contains(&goal.state) {
                out.push(Diagnostic::error(
                    at(format!("tasks[{i}].goals[{j}].state")),
                    format!(
                        "the goal state \"{}\" cannot be reached from \"{from}\", where {}; the \
                         states reachable from there are: {}",
                        goal.state,
                        if j == 0 {
                            "the task starts".to_string()
                        } else {
                            format!("goal {} leaves the device", j - 1)
                        },
                        list(reachable.iter())
                    ),
                ));
                break;
            }
            from = goal.state.clone();
        }
    }
}

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)
//! The device library's category templates (`data/ucsm/*.json`) are sound.
//!
//! Structural checks only, each test reporting every problem at once with
//! its file, state and component. They stand in until the bundle validator
//! exists, which will replace them; until then they live in this one file.
//! The conventions they check are in `data/ucsm/README.md`.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use knoblab_core::bundle::model::{IMMEDIATE, TIMED_WAIT};
use knoblab_core::bundle::{State, StateMachine, Transition};

const UCSM_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/ucsm");
const APPENDIX_KETTLE: &str = concat!(
    concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
    "/tests/fixtures/vgebench-kettle/ucsm.json"
);

/// The 26 VGEBench categories.
const CATEGORIES: [&str; 26] = [
    "CoffeeMachine",
    "DigitalAlarmClock",
    "Lighter",
    "Microwave",
    "WashingMachine",
    "MechanicalAlarmClock",
    "WeighingScale",
    "Heater",
    "Lamp",
    "ElectricKettle",
    "ElectricFan",
    "AirFryer",
    "Flashlight",
    "FilmCamera",
    "Razor",
    "DigitalCamera",
    "HairDryer",
    "Humidifier",
    "Landline",
    "PowerBank",
    "CarKey",
    "Vacuum",
    "AirPurifier",
    "RiceCooker",
    "ElectricToothbrush",
    "ThermometerGun",
];

/// States allowed to have no way back to the initial state: (category,
/// state, why). Empty: every template can always be brought back.
const DEAD_ENDS: [(&str, &str, &str); 0] = [];

/// Minimum number of categories exercising each mechanism (issue 5).
const COVERAGE: [(Mechanism, usize); 6] = [
    (Mechanism::ControlPanel, 6),
    (Mechanism::TimedWait, 8),
    (Mechanism::Error, 8),
    (Mechanism::RotateWithDetents, 6),
    (Mechanism::PullPushPair, 6),
    (Mechanism::Grasp, 3),
];

/// Name endings of parts by how they are worked (`data/ucsm/README.md`).
const PRESSED: [&str; 1] = ["button"];
const ROTATED: [&str; 5] = ["knob", "dial", "ring", "crank", "wheel"];
const SLID: [&str; 6] = ["slide_switch", "lever", "door", "drawer", "tray", "basket"];
const GRASPED: [&str; 3] = ["handset", "handle", "fob"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Mechanism {
    /// At least four small buttons: a panel a dashboard close-up is for.
    ControlPanel,
    TimedWait,
    Error,
    /// A knob or dial whose turn from one state leads to several states.
    RotateWithDetents,
    /// A sliding or hinged part that moves between two states both ways.
    PullPushPair,
    Grasp,
}

fn library() -> BTreeMap<String, StateMachine> {
    let mut machines = BTreeMap::new();
    let entries = std::fs::read_dir(UCSM_DIR).expect("data/ucsm exists");
    for entry in entries {
        let path = entry.expect("a readable directory entry").path();
        if path.extension().is_none_or(|ext| ext != "json") {
            continue;
        }
        let stem = path.file_stem().unwrap_or_default().to_string_lossy();
        let text = std::fs::read_to_string(&path).expect("a readable file");
        let machine: StateMachine = serde_json::from_str(&text)
            .unwrap_or_else(|err| panic!("{}: not a state machine: {err}", path.display()));
        machines.insert(stem.into_owned(), machine);
    }
    machines
}

fn assert_no_problems(what: &str, problems: &[String]) {
    assert!(
        problems.is_empty(),
        "{what}: {} problem(s)\n  {}",
        problems.len(),
        problems.join("\n  ")
    );
}

/// Entering it moves on at once, or it is the error state: nobody asks for it.
fn is_transient(name: &str, state: &State) -> bool {
    state.is_error(name) || state.on.contains_key(IMMEDIATE)
}

/// Components (not `immediate`/`timed_wait`) used anywhere in the machine.
fn components(machine: &StateMachine) -> BTreeSet<&str> {
    machine
        .states
        .values()
        .flat_map(|state| state.on.keys())
        .map(String::as_str)
        .filter(|key| *key != IMMEDIATE && *key != TIMED_WAIT)
        .collect()
}

/// States reachable from `from` following `edges` (forward or reversed).
fn reachable<'a>(from: &'a str, edges: &BTreeMap<&'a str, Vec<&'a str>>) -> BTreeSet<&'a str> {
    let mut seen = BTreeSet::from([from]);
    let mut queue = VecDeque::from([from]);
    while let Some(state) = queue.pop_front() {
        for next in edges.get(state).into_iter().flatten() {
            if seen.insert(next) {
                queue.push_back(next);
            }
        }
    }
    seen
}

/// All transitions as edges, or only those under `only` if given.
fn edges<'a>(machine: &'a StateMachine, only: Option<&str>) -> BTreeMap<&'a str, Vec<&'a str>> {
    let mut edges: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (name, state) in &machine.states {
        for (key, transitions) in &state.on {
            if only.is_some_and(|only| only != key) {
                continue;
            }
            let targets = transitions.iter().map(|t| t.next_state.as_str());
            edges.entry(name.as_str()).or_default().extend(targets);
        }
    }
    edges
}

fn reversed<'a>(edges: &BTreeMap<&'a str, Vec<&'a str>>) -> BTreeMap<&'a str, Vec<&'a str>> {
    let mut back: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, targets) in edges {
        for to in targets {
            back.entry(to).or_default().push(from);
        }
    }
    back
}

/// A state on a cycle of `immediate` transitions, if there is one.
fn immediate_cycle(machine: &StateMachine) -> Option<&str> {
    let immediate = edges(machine, Some(IMMEDIATE));
    machine.states.keys().map(String::as_str).find(|start| {
        immediate
            .get(start)
            .into_iter()
            .flatten()
            .any(|next| reachable(next, &immediate).contains(start))
    })
}

/// Whether `phrase` occurs in `text` as whole words, ignoring case.
fn mentions(text: &str, phrase: &str) -> bool {
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let (text, phrase) = (words(text), words(phrase));
    !phrase.is_empty() && text.windows(phrase.len()).any(|window| window == phrase)
}

fn is_camel_case(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase())
        && name.chars().all(|c| c.is_ascii_alphanumeric())
}

fn is_snake_case(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

fn targets(transitions: &[Transition]) -> Vec<&str> {
    transitions.iter().map(|t| t.next_state.as_str()).collect()
}

fn ends_with_any(component: &str, endings: &[&str]) -> bool {
    endings
        .iter()
        .any(|ending| component == *ending || component.ends_with(&format!("_{ending}")))
}

fn mechanisms(machine: &StateMachine) -> BTreeSet<Mechanism> {
    let parts = components(machine);
    let mut found = BTreeSet::new();
    let buttons = parts.iter().filter(|c| ends_with_any(c, &PRESSED)).count();
    if buttons >= 4 {
        found.insert(Mechanism::ControlPanel);
    }
    if machine
        .states
        .values()
        .any(|s| s.on.contains_key(TIMED_WAIT))
    {
        found.insert(Mechanism::TimedWait);
    }
    if machine.states.iter().any(|(name, s)| s.is_error(name)) {
        found.insert(Mechanism::Error);
    }
    if parts.iter().any(|c| ends_with_any(c, &GRASPED)) {
        found.insert(Mechanism::Grasp);
    }
    for part in parts {
        let moves = edges(machine, Some(part));
        let has_levels = moves.values().any(|targets| {
            let distinct: BTreeSet<_> = targets.iter().collect();
            distinct.len() >= 2
        });
        if ends_with_any(part, &ROTATED) && has_levels {
            found.insert(Mechanism::RotateWithDetents);
        }
        let goes_back = moves.iter().any(|(from, targets)| {
            targets
                .iter()
                .any(|to| moves.get(to).is_some_and(|back| back.contains(from)))
        });
        if ends_with_any(part, &SLID) && goes_back {
            found.insert(Mechanism::PullPushPair);
        }
    }
    found
}

#[test]
fn every_category_has_exactly_one_template() {
    let machines = library();
    let mut problems = Vec::new();
    for category in CATEGORIES {
        match machines.get(category) {
            None => problems.push(format!("{category}.json: missing")),
            Some(machine) if machine.name != category => problems.push(format!(
                "{category}.json: name is {:?}, expected {category:?}",
                machine.name
            )),
            Some(_) => {}
        }
    }
    for file in machines.keys() {
        if !CATEGORIES.contains(&file.as_str()) {
            problems.push(format!("{file}.json: not one of the 26 categories"));
        }
    }
    assert_no_problems("categories", &problems);
}

#[test]
fn every_template_is_well_formed() {
    let mut problems = Vec::new();
    for (file, machine) in &library() {
        let mut report = |what: String| problems.push(format!("{file}.json: {what}"));
        let initial = machine.initial_state.as_str();
        if !machine.states.contains_key(initial) {
            report(format!("initial_state {initial:?} is not a state"));
            continue;
        }
        let count = machine.states.len();
        if !(5..=24).contains(&count) {
            report(format!("{count} states, expected 5 to about 20"));
        }
        for (name, state) in &machine.states {
            for (key, transitions) in &state.on {
                if transitions.is_empty() {
                    report(format!("state {name}, {key}: an empty list of transitions"));
                }
                for t in transitions {
                    if !machine.states.contains_key(&t.next_state) {
                        report(format!(
                            "state {name}, {key}: next_state {:?} does not exist",
                            t.next_state
                        ));
                    }
                    if t.transition_description.trim().is_empty() {
                        report(format!("state {name}, {key}: no transition_description"));
                    }
                }
            }
            if state.description.trim().is_empty() {
                report(format!("state {name}: no description"));
            }
            if !is_camel_case(name) {
                report(format!("state {name}: state names are CamelCase"));
            }
            for key in state.on.keys() {
                if !is_snake_case(key) {
                    report(format!(
                        "state {name}, {key}: component names are snake_case"
                    ));
                }
            }
            if state.is_error(name) {
                let only_reset = state.on.len() == 1
                    && state.on.get(IMMEDIATE).is_some_and(|ts| {
                        ts.len() == 1 && ts.iter().all(|t| t.next_state == initial)
                    });
                if !only_reset {
                    report(format!(
                        "state {name}: an error state must have exactly one immediate \
                         transition, to {initial}, and nothing else"
                    ));
                }
            }
        }
        if let Some(state) = immediate_cycle(machine) {
            report(format!(
                "state {state}: on a cycle of immediate transitions"
            ));
        }
        let forward = edges(machine, None);
        let from_initial = reachable(initial, &forward);
        let back_to_initial = reachable(initial, &reversed(&forward));
        for name in machine.states.keys() {
            let dead_end_allowed = DEAD_ENDS.iter().any(|(c, s, _)| c == file && s == name);
            if !from_initial.contains(name.as_str()) {
                report(format!("state {name}: unreachable from {initial}"));
            } else if !back_to_initial.contains(name.as_str()) && !dead_end_allowed {
                report(format!("state {name}: no way back to {initial}"));
            }
        }
    }
    assert_no_problems("structure", &problems);
}

#[test]
fn requests_ask_for_states_without_naming_internals() {
    let mut problems = Vec::new();
    for (file, machine) in &library() {
        let parts = components(machine);
        for (name, state) in &machine.states {
            let request = state.request.as_deref().unwrap_or("");
            if is_transient(name, state) {
                if !request.is_empty() {
                    problems.push(format!(
                        "{file}.json: state {name}: transient, nobody asks for it; drop its request"
                    ));
                }
                continue;
            }
            if request.trim().is_empty() {
                problems.push(format!("{file}.json: state {name}: no request"));
            } else if !request.starts_with(char::is_uppercase) || !request.ends_with('.') {
                problems.push(format!(
                    "{file}.json: state {name}: a request is one sentence, capitalised and ending in a full stop: {request:?}"
                ));
            }
            for part in &parts {
                if mentions(request, &part.replace('_', " ")) {
                    problems.push(format!(
                        "{file}.json: state {name}: request names component {part}: {request:?}"
                    ));
                }
            }
            for other in machine.states.keys() {
                if mentions(request, other) {
                    problems.push(format!(
                        "{file}.json: state {name}: request names state {other}: {request:?}"
                    ));
                }
            }
        }
    }
    assert_no_problems("requests", &problems);
}

#[test]
fn the_library_exercises_every_mechanism() {
    let found: BTreeMap<String, BTreeSet<Mechanism>> = library()
        .iter()
        .map(|(file, machine)| (file.clone(), mechanisms(machine)))
        .collect();
    let mut problems = Vec::new();
    for (mechanism, needed) in COVERAGE {
        let having: Vec<&str> = found
            .iter()
            .filter(|(_, m)| m.contains(&mechanism))
            .map(|(file, _)| file.as_str())
            .collect();
        if having.len() < needed {
            problems.push(format!(
                "{mechanism:?}: {} categories ({}), expected at least {needed}",
                having.len(),
                having.join(", ")
            ));
        }
    }
    assert_no_problems("mechanisms", &problems);
}

#[test]
fn the_kettle_extends_the_appendix_kettle() {
    let text = std::fs::read_to_string(APPENDIX_KETTLE).expect("the kettle fixture");
    let appendix: StateMachine = serde_json::from_str(&text).expect("the appendix UCSM parses");
    let library = library();
    let kettle = library.get("ElectricKettle").expect("ElectricKettle.json");
    let mut problems = Vec::new();
    if kettle.initial_state != appendix.initial_state {
        problems.push(format!(
            "initial_state is {:?}, the appendix's is {:?}",
            kettle.initial_state, appendix.initial_state
        ));
    }
    for name in appendix.states.keys() {
        if !kettle.states.contains_key(name) {
            problems.push(format!("state {name} of the appendix is missing"));
        }
    }
    let ours = components(kettle);
    let theirs = components(&appendix);
    for part in &theirs {
        if !ours.contains(part) {
            problems.push(format!("component {part} of the appendix is missing"));
        }
    }
    // So that the appendix SSM still derives from this template: its states
    // do what they did, and whatever they gained is under new components.
    for (name, state) in &appendix.states {
        let Some(our_state) = kettle.states.get(name) else {
            continue;
        };
        for (key, transitions) in &our_state.on {
            match state.on.get(key) {
                Some(published) if targets(published) != targets(transitions) => {
                    problems.push(format!(
                        "state {name}, {key}: goes to {:?}, the appendix's to {:?}",
                        targets(transitions),
                        targets(published)
                    ))
                }
                None if theirs.contains(key.as_str()) || key == IMMEDIATE || key == TIMED_WAIT => {
                    problems.push(format!(
                        "state {name}, {key}: added under a key the appendix already uses"
                    ))
                }
                _ => {}
            }
        }
        for key in state.on.keys() {
            if !our_state.on.contains_key(key) {
                problems.push(format!(
                    "state {name}, {key}: the appendix's transitions are missing"
                ));
            }
        }
    }
    assert_no_problems("ElectricKettle.json against the appendix", &problems);
}

/// The library index lists every file of every device, and each device
/// loads from exactly those files, as the page loads it.
#[test]
fn the_library_index_loads_every_device_from_its_listed_files() {
    let data = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("data");
    let bytes = std::fs::read(data.join("library.json")).expect("data/library.json");
    let index = knoblab_core::bundle::LibraryIndex::parse(&bytes).expect("a valid index");
    assert!(!index.devices.is_empty());
    for device in &index.devices {
        let files = device
            .files
            .iter()
            .map(|f| {
                let bytes = std::fs::read(data.join(device.file_url(f))).expect(f);
                (f.clone(), bytes)
            })
            .collect();
        let bundle = knoblab_core::bundle::load_files(&device.id, files)
            .unwrap_or_else(|e| panic!("{}: {e}", device.id));
        assert_eq!(bundle.manifest.id, device.id);
        assert_eq!(bundle.manifest.category, device.category);
        assert_eq!(bundle.tasks.len(), device.tasks, "{}", device.id);
        assert!(device.files.contains(&device.thumbnail), "{}", device.id);
    }
}

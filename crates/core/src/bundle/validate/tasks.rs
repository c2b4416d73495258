//! The tasks' rules: ids, starts, and goals that exist and can be reached
//! in order.

use std::collections::{BTreeMap, BTreeSet};

use super::{list, reachable_from, TASKS_FILE};
use crate::bundle::diagnostics::{Diagnostic, Location};
use crate::bundle::model::{StateMachine, Task, ViewKind, ViewSpec, IMMEDIATE, TIMED_WAIT};

pub(super) fn check_tasks(
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
    let names = ComponentNames::new(&components);
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
            for component in names.named_in(&goal.instruction) {
                out.push(Diagnostic::warning(
                    at(format!("tasks[{i}].goals[{j}].instruction")),
                    format!(
                        "the instruction names the internal component \"{component}\"; \
                         instructions say what the user wants, not which part to use"
                    ),
                ));
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

/// The components' names as an instruction may spell them (`power_button`
/// or `power button`, in any case), for finding the ones an instruction
/// names: each window of the instruction of a length some name has is
/// looked up once, so the work is the instructions' length times the
/// number of distinct name lengths, not instructions times components
/// (which took minutes for 40,000 of each).
struct ComponentNames<'a> {
    /// Lower-cased spelling → the components spelt so.
    by_spelling: std::collections::HashMap<String, Vec<&'a str>>,
    /// The distinct lengths of the spellings, in bytes.
    lengths: BTreeSet<usize>,
}

impl<'a> ComponentNames<'a> {
    fn new(components: &BTreeSet<&'a str>) -> Self {
        let mut by_spelling: std::collections::HashMap<String, Vec<&'a str>> =
            std::collections::HashMap::new();
        for &component in components {
            let written = component.to_lowercase();
            let spoken = component.replace('_', " ").to_lowercase();
            for spelling in [written, spoken] {
                let list = by_spelling.entry(spelling).or_default();
                if !list.contains(&component) {
                    list.push(component);
                }
            }
        }
        let lengths = by_spelling.keys().map(String::len).collect();
        ComponentNames {
            by_spelling,
            lengths,
        }
    }

    /// The components `instruction` names (as a substring, in any case),
    /// in name order, each once.
    fn named_in(&self, instruction: &str) -> BTreeSet<&'a str> {
        let lower = instruction.to_lowercase();
        let mut found = BTreeSet::new();
        for (start, _) in lower.char_indices() {
            for &len in &self.lengths {
                let Some(window) = lower.get(start..start + len) else {
                    // Past the end, or not on a character boundary.
                    continue;
                };
                if let Some(components) = self.by_spelling.get(window) {
                    found.extend(components.iter().copied());
                }
            }
        }
        found
    }
}

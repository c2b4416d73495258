//! Tasks of a generated device, found by path search on its SSM: single-turn
//! tasks (one goal) and multi-turn tasks (two to four goals in order),
//! each goal's instruction the template's `request` for its state.
//!
//! A state can be a goal when somebody would ask for it: it has a request,
//! is not dangerous and does not move on by itself (`immediate`). Single-
//! turn goals are taken from the initial state first, nearest first; when
//! a small device has too few, tasks also start in other states reached
//! from the initial one. A multi-turn task starts in the initial state and
//! chains two to four distinct goals, each reached from the one before by
//! a path that visits no state twice (a breadth-first search, so the path
//! has no loop); the initial state may be a later goal ("…and switch it
//! off again"), never the first.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use knoblab_core::bundle::model::IMMEDIATE;
use knoblab_core::bundle::{Goal, StateMachine, Task};

/// How many tasks of each kind a device gets, at most.
pub const TASKS_PER_KIND: usize = 6;
/// Fewer than this of either kind is refused (issue 5).
pub const MIN_TASKS_PER_KIND: usize = 5;
/// At most this many goal chains are looked at, so search stays quick.
const MAX_CHAINS: usize = 20_000;

/// A device with too few tasks of either kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "only {single} single-turn and {multi} multi-turn tasks can be found (goal states: {}); at least \
     {min_single} single-turn and {min_multi} multi-turn are needed: give the device more of its category's parts",
    .goals.join(", ")
)]
pub struct TooFewTasks {
    /// The single-turn tasks found.
    pub single: usize,
    /// The multi-turn tasks found.
    pub multi: usize,
    /// The states somebody would ask for.
    pub goals: Vec<String>,
    /// The single-turn tasks needed.
    pub min_single: usize,
    /// The multi-turn tasks needed.
    pub min_multi: usize,
}

/// Single-turn then multi-turn tasks for `ssm`, all starting in view
/// `view`; an error when there are too few of either kind.
pub fn tasks(ssm: &StateMachine, view: &str) -> Result<Vec<Task>, TooFewTasks> {
    counted_tasks(ssm, view, Counts::HAND)
}

/// How many tasks of each kind to find, and how few are accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Single-turn tasks to find, at most.
    pub single: usize,
    /// Multi-turn tasks to find, at most.
    pub multi: usize,
    /// Fewer single-turn tasks than this, or multi-turn, is refused.
    pub min_single: usize,
    /// Fewer multi-turn tasks than this is refused.
    pub min_multi: usize,
}

impl Counts {
    /// The hand-described devices': up to six of each, at least five.
    pub const HAND: Counts = Counts {
        single: TASKS_PER_KIND,
        multi: TASKS_PER_KIND,
        min_single: MIN_TASKS_PER_KIND,
        min_multi: MIN_TASKS_PER_KIND,
    };

    /// Exactly `single` and `multi` (a generated device's).
    pub fn exactly(single: usize, multi: usize) -> Counts {
        Counts {
            single,
            multi,
            min_single: single,
            min_multi: multi,
        }
    }
}

/// [`tasks`] with other counts.
pub fn counted_tasks(
    ssm: &StateMachine,
    view: &str,
    counts: Counts,
) -> Result<Vec<Task>, TooFewTasks> {
    let single = single_turn(ssm, view, counts.single);
    let multi = multi_turn(ssm, view, counts.multi);
    if single.len() < counts.min_single || multi.len() < counts.min_multi {
        return Err(TooFewTasks {
            single: single.len(),
            multi: multi.len(),
            goals: goal_states(ssm).into_iter().map(str::to_string).collect(),
            min_single: counts.min_single,
            min_multi: counts.min_multi,
        });
    }
    Ok(single.into_iter().chain(multi).collect())
}

/// States somebody would ask for.
fn goal_states(ssm: &StateMachine) -> BTreeSet<&str> {
    ssm.states
        .iter()
        .filter(|(name, s)| {
            s.request.is_some() && !s.is_error(name) && !s.on.contains_key(IMMEDIATE)
        })
        .map(|(name, _)| name.as_str())
        .collect()
}

fn successors<'a>(ssm: &'a StateMachine, state: &str) -> BTreeSet<&'a str> {
    ssm.states
        .get(state)
        .map(|s| {
            s.on.values()
                .flatten()
                .map(|t| t.next_state.as_str())
                .filter(|n| ssm.states.contains_key(*n))
                .collect()
        })
        .unwrap_or_default()
}

/// States reachable from `start`, each with its distance, nearest first.
fn by_distance<'a>(ssm: &'a StateMachine, start: &'a str) -> Vec<(&'a str, usize)> {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::from([(start, 0)]);
    let mut order = vec![(start, 0)];
    let mut queue = VecDeque::from([start]);
    while let Some(at) = queue.pop_front() {
        let d = seen.get(at).copied().unwrap_or(0);
        for next in successors(ssm, at) {
            if !seen.contains_key(next) {
                seen.insert(next, d + 1);
                order.push((next, d + 1));
                queue.push_back(next);
            }
        }
    }
    order
}

fn request(ssm: &StateMachine, state: &str) -> String {
    ssm.states
        .get(state)
        .and_then(|s| s.request.clone())
        .unwrap_or_default()
}

fn kebab(state: &str) -> String {
    let mut out = String::new();
    for (i, c) in state.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('-');
        }
        out.extend(c.to_lowercase());
    }
    out
}

fn task(ssm: &StateMachine, id: String, start: &str, goals: &[&str], view: &str) -> Task {
    Task {
        id,
        initial_state: Some(start.to_string()),
        initial_view: Some(view.to_string()),
        goals: goals
            .iter()
            .map(|g| Goal {
                state: g.to_string(),
                instruction: request(ssm, g),
            })
            .collect(),
    }
}

fn single_turn(ssm: &StateMachine, view: &str, wanted: usize) -> Vec<Task> {
    let goals = goal_states(ssm);
    let initial = ssm.initial_state.as_str();
    let starts: Vec<&str> = by_distance(ssm, initial)
        .into_iter()
        .map(|(s, _)| s)
        .filter(|s| goals.contains(s))
        .collect();
    let mut out = Vec::new();
    let mut pairs: BTreeSet<(&str, &str)> = BTreeSet::new();
    let mut reached: BTreeSet<&str> = BTreeSet::new();
    // First every goal once (from the initial state when it can), then
    // other starting points for goals already asked for.
    for any_goal in [false, true] {
        for &start in &starts {
            for (target, _) in by_distance(ssm, start) {
                if out.len() == wanted {
                    return out;
                }
                let new_goal = !reached.contains(target);
                if target == start
                    || !goals.contains(target)
                    || pairs.contains(&(start, target))
                    || !(new_goal || any_goal)
                {
                    continue;
                }
                let id = if start == initial {
                    format!("single-{}", kebab(target))
                } else {
                    format!("single-{}-from-{}", kebab(target), kebab(start))
                };
                out.push(task(ssm, id, start, &[target], view));
                pairs.insert((start, target));
                reached.insert(target);
            }
        }
    }
    out
}

fn multi_turn(ssm: &StateMachine, view: &str, wanted: usize) -> Vec<Task> {
    let goals = goal_states(ssm);
    let initial = ssm.initial_state.as_str();
    let reach: BTreeMap<&str, BTreeSet<&str>> = goals
        .iter()
        .chain(std::iter::once(&initial))
        .map(|g| {
            (
                *g,
                by_distance(ssm, g).into_iter().map(|(s, _)| s).collect(),
            )
        })
        .collect();
    // Every chain of 2 to 4 distinct goals, each reachable from the one
    // before (the first from the initial state, which is never the first goal).
    let mut chains: Vec<Vec<&str>> = Vec::new();
    let mut stack: Vec<Vec<&str>> = vec![Vec::new()];
    while let Some(chain) = stack.pop() {
        if chains.len() >= MAX_CHAINS {
            break;
        }
        if chain.len() >= 2 {
            chains.push(chain.clone());
        }
        if chain.len() == 4 {
            continue;
        }
        let from = chain.last().copied().unwrap_or(initial);
        for next in goals.iter().rev() {
            let fresh =
                *next != from && !chain.contains(next) && !(chain.is_empty() && *next == initial);
            if fresh && reach.get(from).is_some_and(|r| r.contains(next)) {
                let mut longer = chain.clone();
                longer.push(next);
                stack.push(longer);
            }
        }
    }
    // Lengths in turn (2, 3, 4, 2, 3, 4, …), each time the first chain
    // whose first and last goals are both new, else any chain not yet
    // chosen. Up to six tasks get one and a half turns per task (the
    // hand-described devices' nine), more get three per task, so that a
    // device short of long chains still finds its count among shorter ones.
    let turns = if wanted <= TASKS_PER_KIND {
        wanted * 3 / 2
    } else {
        wanted * 3
    };
    let mut chosen: Vec<Vec<&str>> = Vec::new();
    for len in [2, 3, 4].into_iter().cycle().take(turns) {
        if chosen.len() == wanted {
            break;
        }
        let of_len = || {
            chains
                .iter()
                .filter(|c| c.len() == len && !chosen.contains(c))
        };
        let fresh = of_len().find(|c| {
            !chosen
                .iter()
                .any(|o| o.first() == c.first() || o.last() == c.last())
        });
        if let Some(c) = fresh.or_else(|| of_len().next()).cloned() {
            chosen.push(c);
        }
    }
    chosen
        .iter()
        .enumerate()
        .map(|(i, seq)| task(ssm, format!("multi-{}", i + 1), initial, seq, view))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring(n: usize) -> StateMachine {
        let states: serde_json::Map<String, serde_json::Value> = (0..n)
            .map(|i| {
                let next = format!("S{}", (i + 1) % n);
                (
                    format!("S{i}"),
                    serde_json::json!({"description": "d", "request": format!("Go to {i}."),
                        "on": {"knob": [{"next_state": next, "transition_description": "t"}]}}),
                )
            })
            .collect();
        serde_json::from_value(
            serde_json::json!({"name": "Ring", "initial_state": "S0", "states": states}),
        )
        .unwrap()
    }

    #[test]
    fn goals_are_distinct_reachable_and_carry_requests() {
        let found = tasks(&ring(8), "front").unwrap();
        let single: Vec<_> = found.iter().filter(|t| t.goals.len() == 1).collect();
        let multi: Vec<_> = found.iter().filter(|t| t.goals.len() > 1).collect();
        assert_eq!((single.len(), multi.len()), (6, 6));
        for t in &multi {
            assert!(t.goals.len() <= 4, "{t:?}");
            let states: BTreeSet<_> = t.goals.iter().map(|g| &g.state).collect();
            assert_eq!(states.len(), t.goals.len(), "a goal repeats: {t:?}");
            assert_ne!(
                t.goals[0].state, "S0",
                "the first goal is where the task starts: {t:?}"
            );
        }
        assert_eq!(single[0].goals[0].instruction, "Go to 1.");
    }

    #[test]
    fn a_device_with_too_few_states_is_refused_with_its_goals() {
        let err = tasks(&ring(2), "front").unwrap_err().to_string();
        assert!(err.contains("S0, S1"), "{err}");
    }
}

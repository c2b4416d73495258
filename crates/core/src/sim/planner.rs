//! The optimal cost of a goal, C_opt, and an optimal path to it
//! (`specs/devices.md` section 3).
//!
//! **Decision:** compute it as a shortest path over (state, view, dashboard
//! unlocked) where firing a transition from a view where its component is
//! visible costs 1 and a view switch costs 1; minimise transitions first,
//! then switches.
//!
//! Here a move is one step of the episode, so C_opt is exactly the number
//! of steps an agent needs. The moves:
//!
//! - firing a component's transition, from a non-axonometric view where a
//!   click reaches the component (not on the locked dashboard region), with
//!   the action and parameters the transition asks for (`*` given as `0`),
//!   provided that this action fires exactly this transition (the first
//!   match in file order wins in the episode): one transition;
//! - `Timed_wait()` firing the state's `timed_wait` transition, from any
//!   view: one transition;
//! - switching by name to another view (the dashboard only once unlocked):
//!   one switch;
//! - from the dashboard's parent view while it is locked, an active unlock
//!   (a `Switch_view` into the region, which moves to the dashboard) or a
//!   passive unlock (a press on the region: the view stays): one switch
//!   each. **Decision (spec silent):** a passive unlock is a step that is
//!   neither a transition nor a view change; it is counted with the
//!   switches so that C_opt stays a count of steps.
//!
//! Immediate chains are free and passing through the goal during one counts
//! as reaching it. **Decision (spec silent):** the planner never uses a
//! transition whose chain enters an error state (a dangerous operation),
//! unless the goal is that state: an optimal path is a safe one. When the
//! device is already in the goal state as the goal begins, one step that
//! changes nothing reaches it (the goal is reached "when the device is in
//! its state after a step"): C_opt = 1, made by a switch to the view
//! already shown.
//!
//! Ties are broken deterministically: moves are tried in the order above
//! (components by name, transitions in file order, views in listing order)
//! and the search is first-in-first-out among equal costs.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use serde::Serialize;
use thiserror::Error;

use crate::bundle::model::ViewKind;
use crate::geom::ScaledPoint;

use super::action::{Action, ActionKind};
use super::device::{Device, Node};
use super::matching::{params_for, select_transition, transition_kind};

/// The cost of a path, compared transitions first, then switches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Cost {
    /// Transitions fired (what the planner minimises first).
    pub transitions: u32,
    /// View switches and unlocks.
    pub switches: u32,
}

impl Cost {
    /// The number of steps: transitions plus switches.
    pub fn steps(self) -> u32 {
        self.transitions + self.switches
    }

    fn plus(self, other: Cost) -> Cost {
        Cost {
            transitions: self.transitions + other.transitions,
            switches: self.switches + other.switches,
        }
    }
}

const TRANSITION: Cost = Cost {
    transitions: 1,
    switches: 0,
};
const SWITCH: Cost = Cost {
    transitions: 0,
    switches: 1,
};

/// One step of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Move {
    /// A physical action on a component, firing one of its transitions.
    Fire {
        /// The component's index.
        component: usize,
        /// The action.
        kind: ActionKind,
        /// Where to act on the current view.
        point: ScaledPoint,
        /// The parameters the transition asks for.
        params: Vec<String>,
    },
    /// `Timed_wait()` firing the state's `timed_wait` transition.
    Wait,
    /// `Switch_view(params=[view])`.
    Switch {
        /// The view's index.
        view: usize,
    },
    /// `Switch_view(coord=…)` into the locked dashboard's region.
    Unlock {
        /// Where the switch points, on the current view's 0–1000 scale.
        point: ScaledPoint,
    },
    /// A press on the locked dashboard's region: aborted, unlocks it.
    PassiveUnlock {
        /// Where the press lands, on the current view's 0–1000 scale.
        point: ScaledPoint,
    },
    /// A switch to the view already shown: changes nothing.
    Stay {
        /// The view's index.
        view: usize,
    },
}

impl Move {
    /// The action that makes this move.
    pub fn action(&self, device: &Device<'_>) -> Action {
        let name = |v: usize| device.views.get(v).map_or("", |v| v.name);
        match self {
            Move::Fire {
                kind,
                point,
                params,
                ..
            } => Action::physical(*kind, *point, params.clone()),
            Move::Wait => Action::timed_wait(),
            Move::Switch { view } | Move::Stay { view } => Action::switch_to(name(*view)),
            Move::Unlock { point } => Action::switch_at(*point),
            Move::PassiveUnlock { point } => {
                Action::physical(ActionKind::Press, *point, Vec::new())
            }
        }
    }
}

/// An optimal path to one goal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// What the path costs.
    pub cost: Cost,
    /// Its steps, in order.
    pub moves: Vec<Move>,
    /// Where the path ends.
    pub end: Node,
    /// The states entered along the path, in order (immediate ones included).
    pub entered: Vec<usize>,
}

impl Plan {
    /// C_opt: the number of steps.
    pub fn c_opt(&self) -> u32 {
        self.cost.steps()
    }
}

/// Why a task has no ideal path.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PlanError {
    /// No sequence of actions reaches this goal from where it begins.
    #[error("goal {goal} (state {state}) cannot be reached from state {from} in view {view}")]
    Unreachable {
        /// The goal's position in the task, from 0.
        goal: usize,
        /// The goal state.
        state: String,
        /// The state the goal begins in.
        from: String,
        /// The view it begins in.
        view: String,
    },
}

struct Edge {
    mv: Move,
    cost: Cost,
    to: Node,
    entered: Vec<usize>,
}

/// Whether a path may enter these states on the way to `goal`: never an
/// error state (a dangerous operation), unless the goal is that state.
/// The one rule for "an optimal path is a safe one", shared by the planner
/// and [`super::distance`].
pub fn is_safe(device: &Device<'_>, entered: &[usize], goal: usize) -> bool {
    let goal_is_error = device.states.get(goal).is_some_and(|s| s.error);
    goal_is_error
        || !entered
            .iter()
            .any(|&s| device.states.get(s).is_some_and(|s| s.error))
}

/// The moves out of a node, in tie-breaking order.
fn edges(device: &Device<'_>, at: Node, goal: usize) -> Vec<Edge> {
    let mut out = Vec::new();
    let Some(state) = device.states.get(at.state) else {
        return out;
    };
    let Some(view) = device.views.get(at.view) else {
        return out;
    };
    let safe = |entered: &[usize]| is_safe(device, entered, goal);

    if view.kind != ViewKind::Axonometric {
        for &(component, transitions) in &state.physical {
            let Some(point) = device.click_point(at.view, component, at.unlocked) else {
                continue;
            };
            for (ti, t) in transitions.iter().enumerate() {
                let kind = transition_kind(t);
                let params = params_for(t);
                if select_transition(transitions, kind, &params) != Some(ti) {
                    continue;
                }
                let chain = device.follow(t);
                let Some(&end) = chain.entered.last() else {
                    continue;
                };
                if !safe(&chain.entered) {
                    continue;
                }
                out.push(Edge {
                    mv: Move::Fire {
                        component,
                        kind,
                        point,
                        params,
                    },
                    cost: TRANSITION,
                    to: Node { state: end, ..at },
                    entered: chain.entered,
                });
            }
        }
    }
    if let Some(t) = state.timed_wait {
        let chain = device.follow(t);
        if let Some(&end) = chain.entered.last() {
            if safe(&chain.entered) {
                out.push(Edge {
                    mv: Move::Wait,
                    cost: TRANSITION,
                    to: Node { state: end, ..at },
                    entered: chain.entered,
                });
            }
        }
    }
    if let Some(d) = device.dashboard {
        if !at.unlocked && at.view == d.parent {
            if let Some(point) = d.point {
                out.push(Edge {
                    mv: Move::Unlock { point },
                    cost: SWITCH,
                    to: Node {
                        view: d.view,
                        unlocked: true,
                        ..at
                    },
                    entered: Vec::new(),
                });
                if view.kind != ViewKind::Axonometric {
                    out.push(Edge {
                        mv: Move::PassiveUnlock { point },
                        cost: SWITCH,
                        to: Node {
                            unlocked: true,
                            ..at
                        },
                        entered: Vec::new(),
                    });
                }
            }
        }
    }
    for w in 0..device.views.len() {
        let locked_dashboard = device.dashboard.is_some_and(|d| d.view == w) && !at.unlocked;
        if w == at.view || locked_dashboard {
            continue;
        }
        out.push(Edge {
            mv: Move::Switch { view: w },
            cost: SWITCH,
            to: Node { view: w, ..at },
            entered: Vec::new(),
        });
    }
    out
}

/// An optimal path from `from` to the goal state `goal`, or `None` if no
/// sequence of actions reaches it.
pub fn plan(device: &Device<'_>, from: Node, goal: usize) -> Option<Plan> {
    if from.state == goal {
        return Some(Plan {
            cost: SWITCH,
            moves: vec![Move::Stay { view: from.view }],
            end: from,
            entered: Vec::new(),
        });
    }
    let mut dist: HashMap<Node, Cost> = HashMap::new();
    let mut prev: HashMap<Node, (Node, Move, Vec<usize>)> = HashMap::new();
    let mut heap = BinaryHeap::new();
    let mut seq: u64 = 0;
    dist.insert(from, Cost::default());
    heap.push(Reverse((Cost::default(), seq, from)));
    // The best way found to reach the goal: its cost, and the last edge.
    let mut best: Option<(Cost, Node, Edge)> = None;

    while let Some(Reverse((cost, _, node))) = heap.pop() {
        if best.as_ref().is_some_and(|(b, _, _)| *b <= cost) {
            break;
        }
        if dist.get(&node).is_some_and(|d| *d < cost) {
            continue;
        }
        for edge in edges(device, node, goal) {
            let next_cost = cost.plus(edge.cost);
            if edge.entered.contains(&goal) {
                if best.as_ref().is_none_or(|(b, _, _)| next_cost < *b) {
                    best = Some((next_cost, node, edge));
                }
                continue;
            }
            if dist.get(&edge.to).is_none_or(|d| next_cost < *d) {
                dist.insert(edge.to, next_cost);
                prev.insert(edge.to, (node, edge.mv, edge.entered));
                seq += 1;
                heap.push(Reverse((next_cost, seq, edge.to)));
            }
        }
    }

    let (cost, last_from, last) = best?;
    // The goal is reached the moment the chain passes it; the path ends
    // where the chain ends.
    let mut moves = vec![last.mv];
    let mut entered = vec![last.entered];
    let mut at = last_from;
    while at != from {
        let (p, mv, ent) = prev.get(&at)?.clone();
        moves.push(mv);
        entered.push(ent);
        at = p;
    }
    moves.reverse();
    entered.reverse();
    Some(Plan {
        cost,
        moves,
        end: last.to,
        entered: entered.into_iter().flatten().collect(),
    })
}

/// The ideal path of a task: an optimal plan per goal, each starting where
/// the previous one ended.
pub fn ideal_path(
    device: &Device<'_>,
    start: Node,
    goals: &[usize],
) -> Result<Vec<Plan>, PlanError> {
    let mut at = start;
    let mut plans = Vec::with_capacity(goals.len());
    for (i, &goal) in goals.iter().enumerate() {
        let Some(p) = plan(device, at, goal) else {
            let name = |s: usize| device.states.get(s).map_or("", |s| s.name).to_string();
            return Err(PlanError::Unreachable {
                goal: i,
                state: name(goal),
                from: name(at.state),
                view: device.views.get(at.view).map_or("", |v| v.name).to_string(),
            });
        };
        at = p.end;
        plans.push(p);
    }
    Ok(plans)
}

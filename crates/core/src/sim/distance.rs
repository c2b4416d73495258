//! The transition distance from a state to a goal state, and which
//! components move the device closer to it (`specs/devices.md` section 6:
//! TIR, Avg Dist and the error taxonomy speak of "a component that, in the
//! current state, has a transition to a state strictly closer to the
//! current goal").
//!
//! The distance counts transitions only (physical ones and `timed_wait`),
//! not views: it is the state part of the planner's cost. Immediate chains
//! are free, and passing through the goal during one reaches it, as in the
//! planner. **Decision (spec silent):** like the planner ([`is_safe`]), a
//! transition whose chain enters an error state never counts as moving
//! closer (unless the goal is that state), even though the reset that
//! follows may land nearer: a dangerous operation is never a target.

use crate::bundle::Transition;

use super::device::Device;
use super::planner::is_safe;

/// Transition distances from every state of a device to one goal state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoalDistance {
    /// The goal state's index.
    pub goal: usize,
    /// Per state index: the fewest transitions to reach the goal, `None`
    /// when it cannot be reached.
    pub by_state: Vec<Option<u32>>,
}

impl GoalDistance {
    /// Computes the distances to `goal`: one backward breadth-first search
    /// over the transitions (each transition's immediate chain followed
    /// once), linear in states and transitions. A transition whose chain
    /// passes through the goal is an edge to the goal; an unsafe one is no
    /// edge. (A relaxation to a fixpoint did the same in as many passes as
    /// the longest distance, quadratic on a ring of 100,000 states.)
    ///
    /// ```
    /// # fn demo(bundle: &knoblab_core::bundle::Bundle) {
    /// use knoblab_core::sim::{Device, GoalDistance};
    /// let device = Device::new(bundle);
    /// let boiling = device.state("Boiling").unwrap();
    /// let d = GoalDistance::new(&device, boiling);
    /// assert_eq!(d.of(boiling), Some(0));
    /// # }
    /// ```
    pub fn new(device: &Device<'_>, goal: usize) -> GoalDistance {
        let n = device.states.len();
        let mut by_state = vec![None; n];
        if goal >= n {
            return GoalDistance { goal, by_state };
        }
        // Reverse edges: for each state, the states with a transition that
        // lands there (or passes the goal) in one step.
        let mut incoming: Vec<Vec<usize>> = vec![Vec::new(); n];
        for s in 0..n {
            for t in transitions_of(device, s) {
                let chain = device.follow(t);
                if !is_safe(device, &chain.entered, goal) {
                    continue;
                }
                let to = if chain.entered.contains(&goal) {
                    Some(goal)
                } else {
                    chain.entered.last().copied()
                };
                if let Some(to) = to.filter(|&to| to < n) {
                    incoming[to].push(s);
                }
            }
        }
        by_state[goal] = Some(0);
        let mut queue = std::collections::VecDeque::from([goal]);
        while let Some(at) = queue.pop_front() {
            let d = by_state[at].unwrap_or(0);
            for &from in &incoming[at] {
                if by_state[from].is_none() {
                    by_state[from] = Some(d + 1);
                    queue.push_back(from);
                }
            }
        }
        GoalDistance { goal, by_state }
    }

    /// The distance from a state (`None`: unreachable or unknown state).
    pub fn of(&self, state: usize) -> Option<u32> {
        self.by_state.get(state).copied().flatten()
    }

    /// The distance left once `t` has fired: 0 if its chain passes through
    /// the goal, else the distance from where the chain ends; `None` for an
    /// unsafe chain or an unreachable end.
    pub fn after(&self, device: &Device<'_>, t: &Transition) -> Option<u32> {
        let chain = device.follow(t);
        if !is_safe(device, &chain.entered, self.goal) {
            return None;
        }
        if chain.entered.contains(&self.goal) {
            return Some(0);
        }
        self.of(*chain.entered.last()?)
    }

    /// Whether firing `t` from `state` leaves the device strictly closer.
    pub fn moves_closer(&self, device: &Device<'_>, state: usize, t: &Transition) -> bool {
        match (self.of(state), self.after(device, t)) {
            (Some(now), Some(then)) => then < now,
            _ => false,
        }
    }

    /// The transitions of `component` in `state` that move strictly closer.
    pub fn closer_transitions<'b>(
        &self,
        device: &Device<'b>,
        state: usize,
        component: usize,
    ) -> Vec<&'b Transition> {
        device
            .transitions(state, component)
            .unwrap_or(&[])
            .iter()
            .filter(|t| self.moves_closer(device, state, t))
            .collect()
    }

    /// The target components in `state`: those with a transition that moves
    /// strictly closer to the goal, by component index.
    pub fn targets(&self, device: &Device<'_>, state: usize) -> Vec<usize> {
        let Some(info) = device.states.get(state) else {
            return Vec::new();
        };
        info.physical
            .iter()
            .filter(|(_, ts)| ts.iter().any(|t| self.moves_closer(device, state, t)))
            .map(|(c, _)| *c)
            .collect()
    }
}

/// The transitions an agent can fire from a state: physical and timed.
fn transitions_of<'b>(device: &Device<'b>, state: usize) -> Vec<&'b Transition> {
    let Some(info) = device.states.get(state) else {
        return Vec::new();
    };
    info.physical
        .iter()
        .flat_map(|(_, ts)| ts.iter())
        .chain(info.timed_wait)
        .collect()
}

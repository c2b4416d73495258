//! The oracle: follows an optimal path from the planner, view switches and
//! dashboard unlocks included, clicking a point of the component's box in
//! the current view (its centre when that reaches it). Every task must be
//! solved by it within budget with SR = SSR = SPL = PSR = 100: it proves
//! the data.

use std::collections::VecDeque;

use knoblab_core::bundle::{Bundle, Task};
use knoblab_core::sim::{ideal_path, Device, Observation};

use super::Agent;

/// Plays the ideal path of the task it was reset with.
#[derive(Debug, Clone)]
pub struct Oracle<'b> {
    device: Device<'b>,
    queue: VecDeque<String>,
}

impl<'b> Oracle<'b> {
    /// An oracle for the bundle's device; it plans at each task's reset.
    pub fn new(bundle: &'b Bundle) -> Oracle<'b> {
        Oracle {
            device: Device::new(bundle),
            queue: VecDeque::new(),
        }
    }

    /// The actions of a task's ideal path (empty if it has none).
    pub fn plan_actions(&self, task: &Task) -> Vec<String> {
        let Some((start, goals)) = self.device.task_start(task) else {
            return Vec::new();
        };
        match ideal_path(&self.device, start, &goals) {
            Ok(plans) => plans
                .iter()
                .flat_map(|p| p.moves.iter())
                .map(|m| m.action(&self.device).to_string())
                .collect(),
            Err(_) => Vec::new(),
        }
    }
}

impl Agent for Oracle<'_> {
    fn name(&self) -> String {
        "oracle".to_string()
    }

    fn reset(&mut self, task: &Task) {
        self.queue = self.plan_actions(task).into();
    }

    fn act(&mut self, _observation: &Observation) -> Option<String> {
        self.queue.pop_front()
    }
}

//! A scripted agent: plays a list of action strings, one per line, for
//! tests and replays. Blank lines and lines starting with `#` are skipped.

use knoblab_core::bundle::Task;
use knoblab_core::sim::Observation;

use super::Agent;

/// Plays its actions in order, the same for every task; stops when they
/// run out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptAgent {
    name: String,
    actions: Vec<String>,
    next: usize,
}

impl ScriptAgent {
    /// From a list of action texts.
    pub fn new(name: &str, actions: Vec<String>) -> ScriptAgent {
        ScriptAgent {
            name: name.to_string(),
            actions,
            next: 0,
        }
    }

    /// From a script's text: one action per line.
    pub fn from_text(name: &str, text: &str) -> ScriptAgent {
        let actions = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect();
        ScriptAgent::new(name, actions)
    }
}

impl Agent for ScriptAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn reset(&mut self, _task: &Task) {
        self.next = 0;
    }

    fn act(&mut self, _observation: &Observation) -> Option<String> {
        let a = self.actions.get(self.next).cloned();
        self.next += 1;
        a
    }
}

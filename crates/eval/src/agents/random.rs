//! The random agent: a floor for every metric. Seeded (ChaCha8), so a run
//! is reproducible; uniform over the seven action kinds, over points of the
//! 0–1000 scale, over each action's parameter values (the table of
//! `specs/devices.md` section 2), and over the views offered.

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

use knoblab_core::bundle::Task;
use knoblab_core::geom::{ScaledPoint, SCALE_MAX};
use knoblab_core::sim::{Action, ActionKind, Observation};

use super::Agent;

/// Rotation extents drawn: 1 to this many detents.
const MAX_EXTENT: u32 = 5;

/// Draws actions at random from a seed; reseeded at every reset, so each
/// task sees the same sequence whatever else the run holds.
#[derive(Debug, Clone)]
pub struct RandomAgent {
    seed: u64,
    rng: ChaCha8Rng,
}

impl RandomAgent {
    /// A random agent whose every choice follows from `seed`.
    pub fn new(seed: u64) -> RandomAgent {
        RandomAgent {
            seed,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// The seed it was made with.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// A number in `0..n` (n > 0). The modulo bias is below 2^-32 · n,
    /// far under anything a metric can see.
    fn below(&mut self, n: u32) -> u32 {
        (self.rng.next_u64() % u64::from(n.max(1))) as u32
    }

    fn point(&mut self) -> ScaledPoint {
        ScaledPoint {
            x: self.below(SCALE_MAX + 1),
            y: self.below(SCALE_MAX + 1),
        }
    }

    /// One random action, given the views on offer.
    pub fn draw(&mut self, views: &[String]) -> Action {
        let kind = ActionKind::ALL[self.below(ActionKind::ALL.len() as u32) as usize];
        let mut n = |k: u32| self.below(k).to_string();
        match kind {
            ActionKind::Press => {
                let p = vec![n(3)];
                Action::physical(kind, self.point(), p)
            }
            ActionKind::Push | ActionKind::Pull => {
                let p = vec![n(5)];
                Action::physical(kind, self.point(), p)
            }
            ActionKind::Rotate => {
                let p = vec![n(2), (self.below(MAX_EXTENT) + 1).to_string()];
                Action::physical(kind, self.point(), p)
            }
            ActionKind::Grasp => Action::physical(kind, self.point(), Vec::new()),
            ActionKind::TimedWait => Action::timed_wait(),
            ActionKind::SwitchView => {
                if views.is_empty() || self.below(2) == 0 {
                    Action::switch_at(self.point())
                } else {
                    let i = self.below(views.len() as u32) as usize;
                    Action::switch_to(&views[i])
                }
            }
        }
    }
}

impl Agent for RandomAgent {
    fn name(&self) -> String {
        format!("random:{}", self.seed)
    }

    fn reset(&mut self, _task: &Task) {
        self.rng = ChaCha8Rng::seed_from_u64(self.seed);
    }

    fn act(&mut self, observation: &Observation) -> Option<String> {
        Some(self.draw(&observation.views).to_string())
    }
}

//! An episode that owns its bundle ([`OwnedEpisode`]), for holders that
//! cannot keep a borrow: a page's signal, a Python object, a worker.
//!
//! [`Episode`] borrows its bundle and compiles it into a [`super::Device`]
//! of borrowed names; an owning episode keeps the bundle behind an [`Arc`]
//! and the episode that borrows it side by side (`self_cell`, so no
//! `unsafe` here). Stepping it is one [`Episode::step`]: nothing is
//! run again from reset.

use std::sync::Arc;

use crate::bundle::{Bundle, Task};

use super::episode::{Episode, SimError};
use super::observation::{Info, Observation, Step};
use super::trajectory::{Settings, Trajectory};

self_cell::self_cell!(
    struct Cell {
        owner: Arc<Bundle>,
        #[covariant]
        dependent: Episode,
    }
    impl {Debug}
);

/// An [`Episode`] together with the bundle it borrows.
///
/// ```
/// # fn demo(bundle: std::sync::Arc<knoblab_core::bundle::Bundle>) -> Result<(), knoblab_core::sim::SimError> {
/// use knoblab_core::sim::{OwnedEpisode, Settings};
/// let mut episode = OwnedEpisode::new(bundle);
/// episode.reset("boil", Settings::default())?;
/// let step = episode.step("Switch_view(params=[top])")?;
/// println!("{}", step.feedback);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct OwnedEpisode {
    cell: Cell,
}

impl OwnedEpisode {
    /// Prepares episodes on a shared bundle (compiles it once).
    pub fn new(bundle: Arc<Bundle>) -> OwnedEpisode {
        OwnedEpisode {
            cell: Cell::new(bundle, |b| Episode::new(b)),
        }
    }

    /// The bundle.
    pub fn bundle(&self) -> &Arc<Bundle> {
        self.cell.borrow_owner()
    }

    /// The episode, to read (its device, logic hash, trajectory…).
    pub fn episode(&self) -> &Episode<'_> {
        self.cell.borrow_dependent()
    }

    /// [`Episode::reset`].
    pub fn reset(
        &mut self,
        task_id: &str,
        settings: Settings,
    ) -> Result<(Observation, Info), SimError> {
        self.cell
            .with_dependent_mut(|_, e| e.reset(task_id, settings))
    }

    /// [`Episode::reset_task`].
    pub fn reset_task(
        &mut self,
        task: &Task,
        settings: Settings,
    ) -> Result<(Observation, Info), SimError> {
        self.cell
            .with_dependent_mut(|_, e| e.reset_task(task, settings))
    }

    /// [`Episode::step`].
    pub fn step(&mut self, action_text: &str) -> Result<Step, SimError> {
        self.cell.with_dependent_mut(|_, e| e.step(action_text))
    }

    /// [`Episode::is_done`].
    pub fn is_done(&self) -> bool {
        self.episode().is_done()
    }

    /// [`Episode::observation`].
    pub fn observation(&self) -> Option<Observation> {
        self.episode().observation()
    }

    /// [`Episode::info`].
    pub fn info(&self) -> Option<Info> {
        self.episode().info()
    }

    /// [`Episode::trajectory`].
    pub fn trajectory(&self) -> Option<&Trajectory> {
        self.cell.borrow_dependent().trajectory()
    }
}

impl Clone for OwnedEpisode {
    /// Compiles the bundle again for the copy (a borrow cannot move between
    /// cells) and carries the episode's state over.
    fn clone(&self) -> OwnedEpisode {
        let source = self.episode();
        OwnedEpisode {
            cell: Cell::new(self.bundle().clone(), |b| {
                let mut copy = Episode::new(b);
                copy.take_state_of(source);
                copy
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kettle() -> Arc<Bundle> {
        Arc::new(crate::bundle::fixtures::kettle())
    }

    #[test]
    fn an_owned_episode_steps_as_a_borrowing_one() {
        let bundle = kettle();
        let mut owned = OwnedEpisode::new(bundle.clone());
        let mut borrowed = Episode::new(&bundle);
        assert_eq!(
            owned.reset("boil", Settings::default()).unwrap(),
            borrowed.reset("boil", Settings::default()).unwrap()
        );
        for a in [
            "Switch_view(params=[top])",
            "Press(coord=[1, 1])",
            "Timed_wait()",
        ] {
            assert_eq!(owned.step(a).unwrap(), borrowed.step(a).unwrap());
        }
        assert_eq!(owned.trajectory(), borrowed.trajectory());
    }

    #[test]
    fn a_clone_goes_on_from_where_the_original_was() {
        let mut original = OwnedEpisode::new(kettle());
        original.reset("boil", Settings::default()).unwrap();
        original.step("Switch_view(params=[top])").unwrap();
        let mut copy = original.clone();
        assert_eq!(copy.observation(), original.observation());
        let a = original.step("Timed_wait()").unwrap();
        let b = copy.step("Timed_wait()").unwrap();
        assert_eq!(a, b);
        assert_eq!(copy.trajectory(), original.trajectory());
        assert_eq!(copy.trajectory().unwrap().steps.len(), 2);
    }
}

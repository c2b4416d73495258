//! Rechecking a recorded episode: its actions, run again on the bundle with
//! its task and settings, give the same record byte for byte when the
//! simulator is deterministic and the bundle unchanged. It lives apart
//! from the record ([`super::trajectory`]), which an episode writes, so
//! that neither module needs the other.

use thiserror::Error;

use crate::bundle::Bundle;

use super::episode::{Episode, SimError};
use super::trajectory::Trajectory;

/// Why a trajectory could not be rechecked.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum RecheckError {
    /// The trajectory was recorded on another device.
    #[error("the trajectory is of bundle {found}, not {expected}")]
    OtherBundle {
        /// The given bundle's id.
        expected: String,
        /// The trajectory's bundle id.
        found: String,
    },
    /// The device's logic changed since the trajectory was recorded.
    #[error("the bundle's logic changed since the trajectory was recorded (hash {found}, now {expected})")]
    ChangedLogic {
        /// The given bundle's logic hash.
        expected: String,
        /// The hash the trajectory recorded.
        found: String,
    },
    /// Resetting or stepping failed.
    #[error(transparent)]
    Sim(#[from] SimError),
}

/// Runs a trajectory's actions again on the bundle, with its task and
/// settings, and returns the new record (equal to the old one, byte for
/// byte, when the simulator is deterministic and the bundle unchanged).
pub fn recheck(bundle: &Bundle, trajectory: &Trajectory) -> Result<Trajectory, RecheckError> {
    let mut episode = Episode::new(bundle);
    if bundle.manifest.id != trajectory.bundle_id {
        return Err(RecheckError::OtherBundle {
            expected: bundle.manifest.id.clone(),
            found: trajectory.bundle_id.clone(),
        });
    }
    if episode.logic_hash() != trajectory.logic_hash {
        return Err(RecheckError::ChangedLogic {
            expected: episode.logic_hash().to_string(),
            found: trajectory.logic_hash.clone(),
        });
    }
    episode.reset(&trajectory.task_id, trajectory.settings.clone())?;
    for action in trajectory.actions() {
        episode.step(action)?;
    }
    Ok(episode.into_trajectory()?)
}

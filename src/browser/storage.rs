//! The baseline run kept in the browser (`localStorage`), so closing the
//! tab in the middle of a run loses nothing: the run is saved after every
//! step, and a finished episode is part of the same save as the step that
//! ended it.

use knoblab_eval::play::{BaselineError, BaselineRun};

/// The storage key of the run.
pub const BASELINE_KEY: &str = "knoblab.baseline";

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// The saved run: none when nothing is saved, an error when what is saved
/// cannot be read (it is left in place, for the person to export or clear).
pub fn load_baseline() -> Option<Result<BaselineRun, BaselineError>> {
    let text = storage()?.get_item(BASELINE_KEY).ok().flatten()?;
    Some(BaselineRun::from_json(&text))
}

/// Saves the run; returns whether the browser accepted it (storage may be
/// full or disabled).
pub fn save_baseline(run: &BaselineRun) -> bool {
    storage().is_some_and(|s| s.set_item(BASELINE_KEY, &run.to_json()).is_ok())
}

/// Forgets the saved run.
pub fn clear_baseline() {
    if let Some(s) = storage() {
        let _ = s.remove_item(BASELINE_KEY);
    }
}

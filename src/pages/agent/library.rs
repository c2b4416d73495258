//! The device library as the agent page needs it: the index, the
//! generated devices' manifest (`data/generated.json`) and task list
//! (`data/generated-tasks.json`), and the hand devices' task lists, which
//! the chooser counts and plans
//! ([`knoblab_eval::vlm::selection::Catalog`]), and bundles loaded from their
//! listed files through the page's one loader
//! ([`crate::browser::fetch`]).

use std::sync::Arc;

use crate::browser::device_worker::{self, Asker};
use crate::browser::fetch;
use knoblab_core::bundle::generated::{
    is_generated, GeneratedIndex, GeneratedTasks, GENERATED_FILE, GENERATED_TASKS_FILE,
};
use knoblab_core::bundle::{Bundle, LibraryEntry, LibraryIndex};
use knoblab_eval::vlm::selection::TaskInfo;

/// Reads the library index.
pub async fn index() -> Result<LibraryIndex, String> {
    fetch::fetch_library().await
}

/// Reads the generated devices' manifest, beside the index.
pub async fn generated() -> Result<GeneratedIndex, String> {
    let base = fetch::LIBRARY_URL
        .rsplit_once('/')
        .map_or("", |(dir, _)| dir);
    let bytes = fetch::fetch_bytes(&format!("{base}/{GENERATED_FILE}")).await?;
    GeneratedIndex::parse(&bytes).map_err(|e| e.to_string())
}

/// Reads the generated devices' task list beside the manifest (ids, goals
/// and instructions of all 916, so that they are planned without being
/// made), checked against `manifest`.
pub async fn generated_tasks(manifest: &GeneratedIndex) -> Result<GeneratedTasks, String> {
    let base = fetch::LIBRARY_URL
        .rsplit_once('/')
        .map_or("", |(dir, _)| dir);
    let bytes = fetch::fetch_bytes(&format!("{base}/{GENERATED_TASKS_FILE}")).await?;
    GeneratedTasks::parse(&bytes, manifest).map_err(|e| e.to_string())
}

/// The task list of a hand-described device, from its `tasks.json` alone
/// (a few KB; its pictures are not fetched).
pub async fn tasks(entry: &LibraryEntry) -> Result<Vec<TaskInfo>, String> {
    let base = fetch::LIBRARY_URL
        .rsplit_once('/')
        .map_or("", |(dir, _)| dir);
    let bytes = fetch::fetch_bytes(&format!("{base}/{}", entry.file_url("tasks.json"))).await?;
    TaskInfo::parse_file(&entry.id, &bytes).map_err(|e| e.to_string())
}

/// Whether the device ships a `tasks.json` to read ([`tasks`]): a
/// generated device has no files (its task counts are the manifest's).
pub fn has_task_file(entry: &LibraryEntry) -> bool {
    !is_generated(entry)
}

/// Loads one device of the index: a hand-described one from its files, a
/// generated one drawn in the device worker (seconds, off the main
/// thread), both by [`fetch::fetch_library_device`]. Leaving the page
/// cancels a drawing under way ([`cancel_loads`]).
pub async fn load(entry: &LibraryEntry) -> Result<Arc<Bundle>, String> {
    fetch::fetch_library_device(entry, Asker::Agent)
        .await
        .map_err(|e| e.to_string())?
        .into_result()
        .map(Arc::new)
        .map_err(|e| format!("{}: {e}", entry.id))
}

/// A device's logic without its pictures, to score episodes already
/// played on it (a resumed batch's): [`load`]ed, its pictures then
/// dropped. A generated device is drawn in the device worker for it (as
/// [`load`] draws it to play): the generator is not in the page's module
/// (issue #46), and its logic is the same either way (the logic hash of
/// `knoblab_app::devices::open_entry_logic`, which makes it without
/// drawing, natively).
pub async fn load_logic(entry: &LibraryEntry) -> Result<Arc<Bundle>, String> {
    Ok(Arc::new(load(entry).await?.without_pictures()))
}

/// Cancels the drawings [`load`] asked for (the page is being left).
pub fn cancel_loads() {
    device_worker::cancel(Asker::Agent);
}

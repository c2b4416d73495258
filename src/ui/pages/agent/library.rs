//! The device library as the agent page needs it: the index, and bundles
//! loaded from their listed files, through the page's one loader
//! ([`crate::ui::browser::fetch`]).

use std::sync::Arc;

use crate::bundle::{Bundle, LibraryEntry, LibraryIndex};
use crate::ui::browser::fetch;

/// Reads the library index.
pub async fn index() -> Result<LibraryIndex, String> {
    fetch::fetch_library().await
}

/// Loads one device of the index.
pub async fn load(entry: &LibraryEntry) -> Result<Arc<Bundle>, String> {
    fetch::fetch_library_device(entry)
        .await?
        .into_result()
        .map(Arc::new)
        .map_err(|e| format!("{}: {e}", entry.id))
}

//! The device library as the agent page needs it: the index, and bundles
//! loaded from their listed files ([`crate::bundle::load_files`]).

use std::sync::Arc;

use crate::bundle::{load_files, Bundle, LibraryEntry, LibraryIndex};

use super::net::fetch_bytes;

/// Where the page's library index is.
pub const INDEX_URL: &str = "data/library.json";

/// Reads the library index.
pub async fn index() -> Result<LibraryIndex, String> {
    let bytes = fetch_bytes(INDEX_URL).await?;
    LibraryIndex::parse(&bytes)
}

/// Loads one device of the index.
pub async fn load(entry: &LibraryEntry) -> Result<Arc<Bundle>, String> {
    let mut files = Vec::with_capacity(entry.files.len());
    for file in &entry.files {
        let url = format!("data/{}", entry.file_url(file));
        files.push((file.clone(), fetch_bytes(&url).await?));
    }
    load_files(&entry.id, files)
        .map(Arc::new)
        .map_err(|e| format!("{}: {e}", entry.id))
}

//! What a split point of the page's module (feature `split`) returns when
//! its chunk cannot be downloaded: the Agent, Score and Leaderboard pages'
//! (`crate::app`) and the scorers' that the Score page's workers call
//! (`crate::worker`) alike. A failed download is not remembered, so a later
//! call tries again.

/// A chunk that could not be downloaded: offline before the service worker
/// kept it, or the server gone.
pub struct Missing;

#[cfg(feature = "split")]
impl From<wasm_split_helpers::SplitLoaderError> for Missing {
    fn from(_: wasm_split_helpers::SplitLoaderError) -> Self {
        Missing
    }
}

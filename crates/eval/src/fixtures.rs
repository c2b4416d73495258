//! The bundle the unit tests share, loaded from `tests/fixtures/`.

use knoblab_core::bundle::{load_path, Bundle};

/// The kettle with a dashboard panel (`tests/fixtures/kettle-panel`).
pub(crate) fn kettle() -> Bundle {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/kettle-panel"
    );
    load_path(std::path::Path::new(dir)).expect("the fixture loads")
}

//! Device bundles (`knoblab-bundle/1`, `specs/devices.md` section 1).
//!
//! - [`model`]: the files' data types and the loaded [`Bundle`], with the
//!   geometry the simulator asks for ([`Bundle::component_boxes`]).
//! - [`load`]: loading from a folder, a `.zip` of it, or one JSON file with
//!   `data:` URLs ([`load_bytes`], [`load_path`], [`check_bytes`]).
//! - [`validate`]: every rule, the live layer's too, every problem at once
//!   ([`validate_bundle`]).
//! - [`diagnostics`]: problems with their locations.
//! - [`derive`](mod@derive): UCSM → SSM derivation ([`derive()`], [`derive_device`]).
//! - [`hash`]: the logic hash that trajectories carry ([`logic_hash`]).
//! - [`library`]: the index of the shipped device library (`data/library.json`),
//!   and [`open_entry`], the one rule by which a library id becomes a bundle.
//! - [`generated`]: the manifest of the generated devices (`data/generated.json`)
//!   and their task list (`data/generated-tasks.json`).
//! - [`stamp`]: the library's version and content hash
//!   (`data/library-version.json`), which every trajectory of one of its
//!   devices records ([`library_of`]).
//! - [`limits`]: the bounds that keep hostile input from exhausting memory.
//! - [`live`]: the optional live layer, what each state shows.
//! - [`image`]: view images ([`ViewImage`]), their sizes read from their
//!   headers, `data:` URLs.
//!
//! ## Using a bundle
//!
//! ```
//! use knoblab_core::bundle::load_path;
//! use knoblab_core::geom::{PixelBox, ScaledPoint};
//!
//! let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/kettle-panel");
//! let kettle = load_path(std::path::Path::new(dir)).unwrap();
//! let task = kettle.task("boil").unwrap();
//! let (state, view) = (kettle.task_initial_state(task), kettle.task_initial_view(task));
//! assert_eq!((state, view), ("Standby", "front"));
//!
//! // What a point on the front picture hits, in real image pixels.
//! let image = &kettle.views[view].image;
//! let point = ScaledPoint::new(780, 725).unwrap().to_pixels(image.width, image.height);
//! let hit: Vec<&str> = kettle
//!     .component_boxes(view)
//!     .into_iter()
//!     .filter(|(_, b)| b.contains(point))
//!     .map(|(component, _)| component)
//!     .collect();
//! assert_eq!(hit, ["power_button"]);
//!
//! // The dashboard magnifies a region of the front view.
//! let (parent, region) = kettle.dashboard_region("dashboard").unwrap();
//! assert_eq!(parent, "front");
//! assert!(region.contains(point));
//!
//! // Trajectories carry this.
//! assert_eq!(kettle.logic_hash().len(), 64);
//! ```

pub mod derive;
pub mod diagnostics;
pub mod generated;
pub mod geometry;
pub mod hash;
pub mod image;
pub mod library;
pub mod limits;
pub mod live;
pub mod load;
pub mod model;
mod source;
pub mod stamp;
pub mod validate;

pub use derive::{
    derive, derive_device, template_components, ComponentParts, DeriveError, TransitionOverride,
};
pub use diagnostics::{Diagnostic, LoadError, Location, Severity};
pub use hash::logic_hash;
pub use image::{ImageError, ViewImage};
pub use library::{open_made, LibraryEntry, LibraryError, LibraryIndex, LIBRARY_FORMAT};
pub use live::{Live, LiveSpec, Patch, StateLook, LIVE_FILE, LIVE_FORMAT};
pub use load::{check_bytes, check_files_in_memory, load_bytes, load_files, Checked};
#[cfg(not(target_arch = "wasm32"))]
pub use load::{check_path, load_path};
pub use source::SourceError;
pub use stamp::{library_of, library_of_bundle, LibraryStamp};
pub use validate::validate_bundle;

pub use model::{
    BboxOrigin, Bundle, Goal, Manifest, State, StateMachine, Task, TaskFile, Transition, View,
    ViewBox, ViewKind, ViewSpec,
};

// Last in the file: what follows a test-only item is left out of the
// source checks (tests/layers.rs, tests/input_layer.rs).
#[cfg(test)]
pub(crate) mod fixtures;

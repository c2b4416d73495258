//! Device bundles (`knoblab-bundle/1`, `specs/devices.md` section 1).
//!
//! - [`model`]: the files' data types and the loaded [`Bundle`].
//! - [`load`]: loading and validating (signatures only so far).
//! - [`diagnostics`]: problems with their locations.
//!
//! Still to come here: loading from a folder, a `.zip` of it, or one JSON
//! file with `data:` URLs; validation that reports every problem with its
//! location; UCSM → SSM derivation; the logic hash that trajectories carry.

pub mod diagnostics;
pub mod load;
pub mod model;

pub use diagnostics::{Diagnostic, LoadError, Location, Severity};
#[cfg(not(target_arch = "wasm32"))]
pub use load::load_path;
pub use load::{load_bytes, logic_hash};

pub use model::{
    Bundle, Goal, Manifest, State, StateMachine, Task, Transition, View, ViewBox, ViewImage,
    ViewKind, ViewSpec,
};

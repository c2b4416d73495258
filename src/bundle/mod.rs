//! Device bundles (`knoblab-bundle/1`, `specs/devices.md` section 1).
//!
//! - [`model`]: the files' data types and the loaded [`Bundle`].
//!
//! Still to come here: loading from a folder, a `.zip` of it, or one JSON
//! file with `data:` URLs; validation that reports every problem with its
//! location; UCSM → SSM derivation; the logic hash that trajectories carry.

pub mod model;

pub use model::{
    Bundle, Goal, Manifest, State, StateMachine, Task, Transition, View, ViewBox, ViewImage,
    ViewKind, ViewSpec,
};

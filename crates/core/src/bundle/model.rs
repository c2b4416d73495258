//! The bundle's data, as read from its files (`specs/devices.md` section 1).
//!
//! These types mirror the files exactly, so a VGEBench SSM file as published
//! deserialises unchanged. They say nothing about validity: loading checks
//! them and turns them into a [`Bundle`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::image::ViewImage;

/// The bundle format this crate reads and writes.
pub const FORMAT: &str = "knoblab-bundle/1";

/// The special state that marks a dangerous operation.
pub const ERROR_STATE: &str = "Error";

/// The special `on` key for transitions that fire without any action.
pub const IMMEDIATE: &str = "immediate";

/// The special `on` key for the transition `Timed_wait()` fires.
pub const TIMED_WAIT: &str = "timed_wait";

/// The five atomic actions a physical transition may ask for.
pub const ATOMIC_ACTIONS: [&str; 5] = ["press", "pull", "push", "rotate", "grasp"];

/// `manifest.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always [`FORMAT`] (`knoblab-bundle/1`).
    pub format: String,
    /// The bundle's id, unique in a library (`kettle-0001`).
    pub id: String,
    /// The device category (`ElectricKettle`).
    pub category: String,
    /// The device's name for people.
    pub name: String,
    /// The view an episode starts in unless its task says otherwise.
    pub initial_view: String,
    #[serde(default)]
    /// The licence of the bundle's pictures and data.
    pub license: String,
    #[serde(default)]
    /// Where the device comes from (a dataset, a generator).
    pub source: String,
    /// Where a box's `x, y` sit: the top-left corner (default) or the centre.
    #[serde(default)]
    pub bbox_origin: BboxOrigin,
}

/// What the `x, y` of a `[x, y, w, h, W, H]` box mean.
///
/// **Decision:** x, y is the top-left corner (the COCO convention); the
/// published description does not say, so the manifest may declare
/// `"bbox_origin": "center"` for data that means the centre.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BboxOrigin {
    #[default]
    /// `x, y` is the box's top-left corner.
    TopLeft,
    /// `x, y` is the box's centre.
    Center,
}

/// `ssm.json` (and, without boxes, actions and parameters, a UCSM).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StateMachine {
    /// The device's name in the state machine.
    pub name: String,
    /// Kept as published (VGEBench files carry one); unused by the simulator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The state an episode starts in unless its task says otherwise.
    pub initial_state: String,
    /// Every state, by name.
    pub states: BTreeMap<String, State>,
}

/// One state: its description and what leaves it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// What the device shows and does in this state, in words.
    pub description: String,
    /// A state may also be marked dangerous by this flag instead of its name.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub error: bool,
    /// How a user would ask for this state (UCSMs of the device library;
    /// used to write task instructions). Never names a component.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<String>,
    /// From a component name, or `immediate` / `timed_wait`, to transitions.
    #[serde(default)]
    pub on: BTreeMap<String, Vec<Transition>>,
}

/// One transition out of a state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transition {
    /// The state it leads to.
    pub next_state: String,
    #[serde(default)]
    /// What the device does, in words (the feedback an agent reads).
    pub transition_description: String,
    /// Where the component is, per view. Empty for `immediate`/`timed_wait`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bbox: Vec<ViewBox>,
    /// One of [`ATOMIC_ACTIONS`] for a physical transition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub atomic_action: Option<String>,
    /// Parameters the action must carry; `*` accepts anything at its place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameter: Option<Vec<String>>,
}

/// A component's box in one view: `coordinate` is `[x, y, w, h, W, H]`, a
/// box in pixels of an image declared W×H.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ViewBox {
    /// `[x, y, w, h, W, H]`.
    pub coordinate: [f64; 6],
    /// The view the box is in.
    pub view: String,
}

/// What a view's picture is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ViewKind {
    /// front, back, left, right, top, bottom: actions allowed.
    Orthographic,
    /// front_top, back_bottom: look only; physical actions are refused.
    Axonometric,
    /// A close-up of a region of its parent view, locked until unlocked.
    Dashboard,
}

/// One entry of `views.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ViewSpec {
    /// A path inside the bundle (`views/front.png`) or, in the single-file
    /// form, a `data:` URL.
    pub file: String,
    /// What the view is for.
    pub kind: ViewKind,
    /// For a dashboard: the view it magnifies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// For a dashboard: `[x, y, w, h]` in pixels of the parent's image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<[f64; 4]>,
}

/// `tasks.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskFile {
    /// The bundle's tasks, in file order.
    pub tasks: Vec<Task>,
}

/// One episode's definition: where it starts and its ordered goals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// The task's id, unique in its bundle.
    pub id: String,
    /// Default: the SSM's initial state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_state: Option<String>,
    /// Default: the manifest's initial view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_view: Option<String>,
    /// The states to reach, in order.
    pub goals: Vec<Goal>,
}

/// A target state and what a user would say to ask for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Goal {
    /// The state to reach.
    pub state: String,
    /// The instruction an agent reads.
    pub instruction: String,
}

/// One view of a loaded bundle: its spec and its picture.
#[derive(Debug, Clone, PartialEq)]
pub struct View {
    /// Its entry of `views.json`.
    pub spec: ViewSpec,
    /// Its picture.
    pub image: ViewImage,
}

/// A loaded, validated device: immutable once built. Episodes borrow it.
#[derive(Debug, Clone, PartialEq)]
pub struct Bundle {
    /// `manifest.json`.
    pub manifest: Manifest,
    /// `ssm.json`: the states and transitions.
    pub ssm: StateMachine,
    /// The views, by name.
    pub views: BTreeMap<String, View>,
    /// `tasks.json`'s tasks, in file order.
    pub tasks: Vec<Task>,
    /// The optional live layer (`live.json`): what each state shows.
    pub live: Option<super::live::Live>,
}

impl State {
    /// Whether entering this state is a dangerous operation.
    pub fn is_error(&self, name: &str) -> bool {
        self.error || name == ERROR_STATE
    }
}

impl Transition {
    /// Whether this transition is done by acting on a component (not an
    /// `immediate` or `timed_wait` one).
    pub fn is_physical(&self) -> bool {
        self.atomic_action.is_some() || !self.bbox.is_empty()
    }
}

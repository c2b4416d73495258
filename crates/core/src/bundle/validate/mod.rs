//! Validation: every rule of `specs/devices.md` section 1, reported all at
//! once, each problem with its location and a message saying what was found
//! and what would be valid. Nothing here panics on any input.
//!
//! The rules, each with its broken bundle under `tests/fixtures/broken/`
//! (E error, W warning):
//!
//! - files: `malformed_json` (E, with line and column), `schema_mismatch`
//!   (E), `missing_file` (E), `wrong_format` (E), `unknown_initial_view` (E);
//! - state machine (`machine.rs`): `unknown_initial_state`,
//!   `unknown_next_state`, `immediate_cycle`, `ambiguous_immediate`,
//!   `physical_transition_without_box`, `physical_transition_without_action`,
//!   `unknown_action`, `box_outside_image`, `box_on_view_without_image` (E);
//!   `unreachable_state`, `error_state_without_reset`,
//!   `ambiguous_transitions`, `box_image_size_mismatch`, `stuck_state` (W);
//! - views (`views.rs`): `dashboard_without_parent`,
//!   `dashboard_parent_unknown`, `dashboard_region_outside_parent` (E);
//!   images (read by the loader): `image_missing`, `image_not_image`,
//!   `image_too_large`, `image_path_outside_bundle` (E);
//! - tasks (`tasks.rs`): `goal_state_unknown`, `goal_unreachable`,
//!   `task_initial_state_unknown`, `task_initial_view_unknown`,
//!   `task_without_goals`, `duplicate_task_id` (E);
//!   `instruction_names_component` (W);
//! - the live layer (`live.rs`, `live.json`): its format, sheets and
//!   states that exist, patches inside their sheet and picture (E);
//! - all at once: `many_problems`.

mod live;
mod machine;
mod tasks;
mod views;

use std::collections::BTreeMap;

pub(crate) use live::check_live;
pub(crate) use machine::reachable_from;
use machine::{check_declared_sizes, check_ssm};
use tasks::check_tasks;
use views::check_views;

use super::diagnostics::{Diagnostic, Location};
use super::model::{Bundle, Manifest, StateMachine, Task, ViewKind, ViewSpec, FORMAT};

/// The file names locations use. In the single-file form they name the
/// keys `manifest`, `ssm`, `views`, `tasks`.
pub const MANIFEST_FILE: &str = "manifest.json";
/// See [`MANIFEST_FILE`].
pub const SSM_FILE: &str = "ssm.json";
/// See [`MANIFEST_FILE`].
pub const VIEWS_FILE: &str = "views.json";
/// See [`MANIFEST_FILE`].
pub const TASKS_FILE: &str = "tasks.json";

/// What validation looks at. A part is `None` when its file could not be
/// read (that problem is already reported); the rules that need it are then
/// skipped, and the others still run, so every problem shows at once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Parts<'a> {
    pub manifest: Option<&'a Manifest>,
    pub ssm: Option<&'a StateMachine>,
    pub views: Option<&'a BTreeMap<String, ViewSpec>>,
    /// The real pixel size of each view image that could be read.
    pub image_sizes: &'a BTreeMap<String, (u32, u32)>,
    pub tasks: Option<&'a [Task]>,
}

/// Every problem of a loaded bundle (warnings included). A bundle from the
/// loaders has no errors; this is for bundles built or changed in code.
pub fn validate_bundle(bundle: &Bundle) -> Vec<Diagnostic> {
    let specs: BTreeMap<String, ViewSpec> = bundle
        .views
        .iter()
        .map(|(name, view)| (name.clone(), view.spec.clone()))
        .collect();
    let sizes: BTreeMap<String, (u32, u32)> = bundle
        .views
        .iter()
        .map(|(name, view)| (name.clone(), (view.image.width, view.image.height)))
        .collect();
    validate(Parts {
        manifest: Some(&bundle.manifest),
        ssm: Some(&bundle.ssm),
        views: Some(&specs),
        image_sizes: &sizes,
        tasks: Some(&bundle.tasks),
    })
}

/// Runs every rule on what could be read.
pub(crate) fn validate(parts: Parts<'_>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if let Some(manifest) = parts.manifest {
        check_manifest(manifest, parts.views, &mut out);
    }
    if let Some(ssm) = parts.ssm {
        let origin = parts.manifest.map(|m| m.bbox_origin).unwrap_or_default();
        check_ssm(ssm, parts.views, origin, &mut out);
        check_declared_sizes(ssm, parts.image_sizes, &mut out);
    }
    if let Some(views) = parts.views {
        check_views(views, parts.image_sizes, &mut out);
    }
    if let Some(tasks) = parts.tasks {
        check_tasks(tasks, parts.ssm, parts.views, &mut out);
    }
    out
}

/// The state machine's rules alone, without views, images or tasks (boxes
/// are checked against the image size they declare, in the default
/// `bbox_origin`): for a device built in code before any picture is drawn,
/// such as a generated variant tried and dropped when it can get stuck.
/// (The generator, `knoblab-devicegen`, uses it.)
pub fn machine_diagnostics(ssm: &StateMachine) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    check_ssm(ssm, None, super::model::BboxOrigin::default(), &mut out);
    out
}

/// How many names a message lists before "… and N more".
const LISTED_NAMES: usize = 20;

/// `a, b, c` for a message, or `none` for nothing; long lists are cut
/// after [`LISTED_NAMES`] so that a huge file cannot make every message huge.
pub(crate) fn list<'a>(names: impl IntoIterator<Item = &'a String>) -> String {
    let mut names = names.into_iter();
    let shown: Vec<&str> = names
        .by_ref()
        .take(LISTED_NAMES)
        .map(String::as_str)
        .collect();
    // Counted from the iterator's exact length when it has one, so that a
    // message about a 100,000-state machine does not walk every name.
    let more = match names.size_hint() {
        (low, Some(high)) if low == high => low,
        _ => names.count(),
    };
    match (shown.is_empty(), more) {
        (true, _) => "none".into(),
        (false, 0) => shown.join(", "),
        (false, more) => format!("{} … and {more} more", shown.join(", ")),
    }
}

fn check_manifest(
    manifest: &Manifest,
    views: Option<&BTreeMap<String, ViewSpec>>,
    out: &mut Vec<Diagnostic>,
) {
    let at = |field: &str| Location::file(MANIFEST_FILE).field(field);
    if manifest.format != FORMAT {
        out.push(Diagnostic::error(
            at("format"),
            format!(
                "found format \"{}\"; this version reads \"{FORMAT}\"",
                manifest.format
            ),
        ));
    }
    if manifest.id.trim().is_empty() {
        out.push(Diagnostic::error(
            at("id"),
            "the id is empty; expected a name such as \"kettle-0001\"",
        ));
    }
    if let Some(views) = views {
        let initial = views.get(&manifest.initial_view);
        if initial.is_none() {
            out.push(Diagnostic::error(
                at("initial_view"),
                format!(
                    "the initial view \"{}\" is not in views.json; the views are: {}",
                    manifest.initial_view,
                    list(views.keys())
                ),
            ));
        } else if initial.is_some_and(|v| v.kind == ViewKind::Dashboard) {
            out.push(Diagnostic::error(
                at("initial_view"),
                format!(
                    "the initial view \"{}\" is a dashboard, which is locked when an episode starts; \
                     expected an orthographic or axonometric view",
                    manifest.initial_view
                ),
            ));
        }
    }
}

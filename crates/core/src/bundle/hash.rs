//! The logic hash: what a trajectory carries so that it is never scored
//! against a device that has changed since it was recorded.

use std::collections::BTreeMap;

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::model::{BboxOrigin, Bundle, ViewKind};

/// The version of the canonical form below; part of what is hashed, so a
/// change of the form changes every hash instead of colliding.
const CANONICAL_FORM: &str = "knoblab-logic/1";

/// A stable hash of what decides the device's behaviour, carried by every
/// trajectory so that one is never scored against a changed device: the
/// lowercase hex SHA-256 of a canonical JSON serialisation.
///
/// **Decision (what is hashed):** everything that changes what an episode
/// does or shows in words: the SSM's initial state and its states (their
/// descriptions and dangerous flag, and every transition's component,
/// next state, description, boxes, action and parameters, in file order
/// within a component), each view's kind, parent, region and real image
/// size, and the manifest's `bbox_origin`. Left out: the image pixels
/// (re-drawing a picture at the same size keeps the logic), the names,
/// licence, source and id, the SSM's `path`, the states' `request` hints,
/// and the tasks (adding a task must not invalidate trajectories of the
/// others; a trajectory names its task). Descriptions are in because the
/// feedback an agent reads, and a recheck reproduces byte for byte, is made
/// of them.
///
/// Maps are serialised in sorted key order and numbers in `serde_json`'s
/// shortest round-trip form, so the hash is the same for every load of the
/// same bundle, whether from a folder, a zip or a single JSON file.
pub fn logic_hash(bundle: &Bundle) -> String {
    let canonical = Canonical {
        form: CANONICAL_FORM,
        bbox_origin: bundle.manifest.bbox_origin,
        initial_state: &bundle.ssm.initial_state,
        states: bundle
            .ssm
            .states
            .iter()
            .map(|(name, state)| {
                let on = state
                    .on
                    .iter()
                    .map(|(component, transitions)| {
                        let transitions = transitions
                            .iter()
                            .map(|t| CanonicalTransition {
                                next_state: &t.next_state,
                                description: &t.transition_description,
                                boxes: t
                                    .bbox
                                    .iter()
                                    .map(|b| (b.view.as_str(), b.coordinate))
                                    .collect(),
                                action: t.atomic_action.as_deref(),
                                parameter: t.parameter.as_deref(),
                            })
                            .collect();
                        (component.as_str(), transitions)
                    })
                    .collect();
                let canonical = CanonicalState {
                    description: &state.description,
                    error: state.is_error(name),
                    on,
                };
                (name.as_str(), canonical)
            })
            .collect(),
        views: bundle
            .views
            .iter()
            .map(|(name, view)| {
                let canonical = CanonicalView {
                    kind: view.spec.kind,
                    parent: view.spec.parent.as_deref(),
                    region: view.spec.region,
                    width: view.image.width,
                    height: view.image.height,
                };
                (name.as_str(), canonical)
            })
            .collect(),
    };
    // Serialising plain structs, maps of strings and finite numbers cannot
    // fail; should it ever, the error text is hashed instead of panicking.
    let bytes = serde_json::to_vec(&canonical).unwrap_or_else(|e| e.to_string().into_bytes());
    let digest = Sha256::digest(&bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[derive(Serialize)]
struct Canonical<'a> {
    form: &'a str,
    bbox_origin: BboxOrigin,
    initial_state: &'a str,
    states: BTreeMap<&'a str, CanonicalState<'a>>,
    views: BTreeMap<&'a str, CanonicalView<'a>>,
}

#[derive(Serialize)]
struct CanonicalState<'a> {
    description: &'a str,
    error: bool,
    on: BTreeMap<&'a str, Vec<CanonicalTransition<'a>>>,
}

#[derive(Serialize)]
struct CanonicalTransition<'a> {
    next_state: &'a str,
    description: &'a str,
    boxes: Vec<(&'a str, [f64; 6])>,
    action: Option<&'a str>,
    parameter: Option<&'a [String]>,
}

#[derive(Serialize)]
struct CanonicalView<'a> {
    kind: ViewKind,
    parent: Option<&'a str>,
    region: Option<[f64; 4]>,
    width: u32,
    height: u32,
}

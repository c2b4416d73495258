//! UCSM → SSM derivation against the VGEBench appendix kettle.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

use std::collections::BTreeMap;

use knoblab_core::bundle::{
    derive, derive_device, template_components, ComponentParts, DeriveError, StateMachine,
    TransitionOverride, ViewBox,
};

/// The appendix kettle: `ucsm.json` from `tests/fixtures/vgebench-kettle`,
/// the published `ssm.json` from the kettle bundle, which holds it unchanged.
fn appendix_kettle(name: &str) -> StateMachine {
    let folder = if name == "ssm.json" {
        "kettle"
    } else {
        "vgebench-kettle"
    };
    let path = format!(
        "{}/tests/fixtures/{folder}/{name}",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The logic alone: per state, its description and each transition's
/// component, next state and description (boxes, actions, parameters aside).
fn logic(ssm: &StateMachine) -> Vec<(String, String, String, String, String)> {
    let mut out = Vec::new();
    for (state, s) in &ssm.states {
        for (component, transitions) in &s.on {
            for t in transitions {
                out.push((
                    state.clone(),
                    s.description.clone(),
                    component.clone(),
                    t.next_state.clone(),
                    t.transition_description.clone(),
                ));
            }
        }
    }
    out
}

#[test]
fn deriving_the_kettle_gives_the_published_ssm_logic() {
    let ucsm = appendix_kettle("ucsm.json");
    let published = appendix_kettle("ssm.json");
    let derived = derive(&ucsm, &["power_button", "lid_release_button"]).unwrap();
    assert_eq!(derived.initial_state, published.initial_state);
    assert_eq!(
        derived.states.keys().collect::<Vec<_>>(),
        published.states.keys().collect::<Vec<_>>()
    );
    assert_eq!(logic(&derived), logic(&published));
    assert_eq!(logic(&derived).len(), 9);
    // The logic alone carries no boxes.
    assert!(derived
        .states
        .values()
        .flat_map(|s| s.on.values().flatten())
        .all(|t| t.bbox.is_empty() && t.atomic_action.is_none()));
}

/// The published kettle's parts: where its two buttons are, and how they
/// are pushed ("1" to start or open, "0" to stop or close).
fn kettle_parts(published: &StateMachine) -> BTreeMap<String, ComponentParts> {
    let boxes = |component: &str| -> Vec<ViewBox> {
        published.states["Standby"].on[component][0].bbox.clone()
    };
    let back_to_standby = vec![TransitionOverride {
        to: Some("Standby".into()),
        parameter: Some(vec!["0".into()]),
        ..TransitionOverride::default()
    }];
    BTreeMap::from([
        (
            "power_button".to_string(),
            ComponentParts {
                bbox: boxes("power_button"),
                atomic_action: "push".into(),
                parameter: vec!["1".into()],
                overrides: back_to_standby.clone(),
            },
        ),
        (
            "lid_release_button".to_string(),
            ComponentParts {
                bbox: boxes("lid_release_button"),
                atomic_action: "push".into(),
                parameter: vec!["1".into()],
                overrides: back_to_standby,
            },
        ),
    ])
}

#[test]
fn deriving_with_parts_gives_the_whole_published_ssm() {
    let ucsm = appendix_kettle("ucsm.json");
    let mut published = appendix_kettle("ssm.json");
    let derived = derive_device(&ucsm, &kettle_parts(&published)).unwrap();
    published.path = None; // the published file's own path, not in the template
    assert_eq!(derived, published);
}

#[test]
fn component_parts_read_from_json() {
    let parts: ComponentParts = serde_json::from_str(
        r#"{"bbox": [{"coordinate": [852, 955, 184, 76, 1209, 1369], "view": "front"}],
            "atomic_action": "push", "parameter": ["1"],
            "overrides": [{"to": "Standby", "parameter": ["0"]}]}"#,
    )
    .unwrap();
    assert_eq!(parts.overrides[0].to.as_deref(), Some("Standby"));
    assert_eq!(parts.bbox[0].coordinate[5], 1369.0);
}

#[test]
fn every_component_keeps_the_whole_template_and_none_keeps_the_initial_state() {
    let ucsm = appendix_kettle("ucsm.json");
    let all: Vec<String> = template_components(&ucsm).into_iter().collect();
    assert_eq!(
        all,
        [
            "lid_release_button",
            "power_button",
            "power_input_port",
            "temperature_control"
        ]
    );
    let full = derive(&ucsm, &all).unwrap();
    assert_eq!(full, ucsm);

    let none = derive::<&str>(&ucsm, &[]).unwrap();
    assert_eq!(none.states.keys().collect::<Vec<_>>(), ["Standby"]);
    assert!(none.states["Standby"].on.is_empty());
}

#[test]
fn temperature_control_alone_keeps_its_immediate_return() {
    let ucsm = appendix_kettle("ucsm.json");
    let ssm = derive(&ucsm, &["temperature_control"]).unwrap();
    assert_eq!(
        ssm.states.keys().collect::<Vec<_>>(),
        ["Standby", "StandbyTemperatureControl"]
    );
    assert_eq!(
        ssm.states["StandbyTemperatureControl"].on["immediate"][0].next_state,
        "Standby"
    );
}

#[test]
fn an_unknown_component_is_refused_with_the_known_ones() {
    let ucsm = appendix_kettle("ucsm.json");
    let err = derive(&ucsm, &["power_button", "steam_valve"]).unwrap_err();
    assert!(matches!(err, DeriveError::UnknownComponent { .. }));
    assert_eq!(
        err.to_string(),
        "the template has no component \"steam_valve\"; its components are: lid_release_button, \
         power_button, power_input_port, temperature_control"
    );
}

#[test]
fn a_template_with_a_bad_initial_state_or_next_state_is_refused() {
    let mut ucsm = appendix_kettle("ucsm.json");
    ucsm.initial_state = "Nowhere".into();
    assert!(matches!(
        derive(&ucsm, &["power_button"]),
        Err(DeriveError::UnknownInitialState { .. })
    ));
    let mut ucsm = appendix_kettle("ucsm.json");
    ucsm.states
        .get_mut("Boiling")
        .unwrap()
        .on
        .get_mut("timed_wait")
        .unwrap()[0]
        .next_state = "Done".into();
    let err = derive(&ucsm, &["power_button"]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "state \"Boiling\", component \"timed_wait\": next_state \"Done\" is not a state of the template"
    );
}

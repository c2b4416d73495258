//! The VGEBench appendix kettle, as published, deserialises unchanged.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

use knoblab_core::bundle::StateMachine;

#[test]
fn the_published_kettle_ssm_reads_as_a_state_machine() {
    let path = concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "/tests/fixtures/kettle/ssm.json"
    );
    let text = std::fs::read_to_string(path).expect("the kettle fixture");
    let ssm: StateMachine = serde_json::from_str(&text).expect("the kettle SSM parses");
    assert_eq!(ssm.initial_state, "Standby");
    assert_eq!(ssm.states.len(), 5);
    let boil = &ssm.states["Standby"].on["power_button"][0];
    assert_eq!(boil.next_state, "Boiling");
    assert_eq!(boil.atomic_action.as_deref(), Some("push"));
    assert_eq!(boil.bbox.len(), 4);
    assert!(ssm.states["Error"].is_error("Error"));
}

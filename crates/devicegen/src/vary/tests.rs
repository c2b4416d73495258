//! Tests of `vary` (kept apart so that the module reads as one idea).

#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)
use super::*;

#[test]
fn phrasing_keeps_the_request() {
    assert_eq!(
        phrase("Could you {lc_q}?", "Switch the lamp off."),
        "Could you switch the lamp off?"
    );
    assert_eq!(phrase("{}", "Switch it off."), "Switch it off.");
}

#[test]
fn a_toggle_splits_into_two_positions_and_a_cycle_of_three_does_not() {
    let ucsm: StateMachine = serde_json::from_str(
        r#"{"name": "T", "initial_state": "Off", "states": {
          "Off": {"description": "off", "on": {"b": [{"next_state": "On", "transition_description": "t"}],
                                               "c": [{"next_state": "On", "transition_description": "t"}]}},
          "On": {"description": "on", "on": {"b": [{"next_state": "Off", "transition_description": "t"}],
                                             "c": [{"next_state": "Mid", "transition_description": "t"}]}},
          "Mid": {"description": "mid", "on": {"c": [{"next_state": "Off", "transition_description": "t"}]}}}}"#,
    )
    .unwrap();
    assert_eq!(
        two_positions(&ucsm, "b"),
        Some(BTreeMap::from([("On".to_string(), 1)]))
    );
    assert_eq!(two_positions(&ucsm, "c"), None);
}

fn warm_up() -> StateMachine {
    serde_json::from_str(
        r#"{"name": "C", "initial_state": "Off", "states": {
          "Off": {"description": "off", "on": {"power_button": [{"next_state": "Heating", "transition_description": "Press the power button; it heats up"}]}},
          "Heating": {"description": "heating", "on": {"timed_wait": [{"next_state": "Ready", "transition_description": "The water is hot"}]}},
          "Ready": {"description": "ready", "on": {"power_button": [{"next_state": "Off", "transition_description": "Press the power button"}]}}}}"#,
    )
    .unwrap()
}

#[test]
fn a_skipped_warm_up_leads_straight_to_where_its_timer_went() {
    let mut t = warm_up();
    skip(&mut t, "Heating");
    let into = &t.states["Off"].on["power_button"][0];
    assert_eq!(into.next_state, "Ready");
    assert_eq!(
        into.transition_description,
        "Press the power button; the water is hot"
    );
    // The initial state is never skipped, nor a state without a timer.
    let mut t = warm_up();
    skip(&mut t, "Off");
    skip(&mut t, "Ready");
    assert_eq!(t.states["Off"].on["power_button"][0].next_state, "Heating");
}

#[test]
fn a_control_worked_another_way_is_described_with_its_verb() {
    let mut t = warm_up();
    reword(&mut t, "power_button", "Press", "Turn");
    assert_eq!(
        t.states["Ready"].on["power_button"][0].transition_description,
        "Turn the power switch"
    );
    // Another verb is left as it is.
    reword(&mut t, "power_button", "Pull", "Push");
    assert_eq!(
        t.states["Ready"].on["power_button"][0].transition_description,
        "Turn the power switch"
    );
}

#[test]
fn the_stream_depends_on_category_index_and_attempt() {
    let a = stream("Lamp", 1, 0).next_u64();
    assert_eq!(a, stream("Lamp", 1, 0).next_u64());
    assert_ne!(a, stream("Lamp", 2, 0).next_u64());
    assert_ne!(a, stream("Lamp", 1, 1).next_u64());
    assert_ne!(a, stream("Heater", 1, 0).next_u64());
}

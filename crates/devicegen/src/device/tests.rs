//! Tests of `device` (kept apart so that the module reads as one idea).

use super::*;
use knoblab_core::bundle::model::ViewKind;
use knoblab_core::bundle::{Goal, Task};

/// A press on `component`'s box of the front view, to `next`.
fn press(component: &str, next: &str) -> serde_json::Value {
    let x = match component {
        "power" => 10.0,
        "rewind" => 100.0,
        _ => 200.0,
    };
    serde_json::json!({component: [{"next_state": next, "atomic_action": "press",
        "bbox": [{"coordinate": [x, 10.0, 40.0, 40.0, 640.0, 480.0], "view": "front"}]}]})
}

/// Off and On by the power button; On's rewind button releases the
/// film, and from there the door is the only way out: to `door`, an
/// error state that goes home by itself or a state whose door only
/// leads back.
fn camera(door: &str) -> StateMachine {
    let mut on = press("power", "Off");
    on["rewind"] = press("rewind", "Released")["rewind"].clone();
    let mut states = serde_json::json!({
        "Off": {"description": "d", "on": press("power", "On")},
        "On": {"description": "d", "on": on},
        "Released": {"description": "d", "on": press("door", door)},
    });
    states[door] = if door == "Error" {
        serde_json::json!({"description": "d", "on": {"immediate": [{"next_state": "Off"}]}})
    } else {
        serde_json::json!({"description": "d", "on": press("door", "Released")})
    };
    serde_json::from_value(
        serde_json::json!({"name": "Camera", "initial_state": "Off", "states": states}),
    )
    .unwrap()
}

fn task(id: &str, goals: &[&str]) -> Task {
    Task {
        id: id.to_string(),
        initial_state: None,
        initial_view: None,
        goals: goals
            .iter()
            .map(|g| Goal {
                state: g.to_string(),
                instruction: format!("Go to {g}."),
            })
            .collect(),
    }
}

fn is_sound(ssm: &StateMachine, tasks: &[Task]) -> Result<(), DeviceError> {
    let manifest = Manifest {
        format: FORMAT.to_string(),
        id: "camera-test".to_string(),
        category: "FilmCamera".to_string(),
        name: "Test camera".to_string(),
        initial_view: INITIAL_VIEW.to_string(),
        license: "CC-BY-4.0".to_string(),
        source: VARIANT_SOURCE.to_string(),
        bbox_origin: Default::default(),
    };
    let front = ViewSpec {
        file: "views/front.png".to_string(),
        kind: ViewKind::Orthographic,
        parent: None,
        region: None,
    };
    sound(&manifest, ssm, &[("front".to_string(), front)], tasks)
}

#[test]
fn a_device_that_can_get_stuck_is_refused_before_its_pictures() {
    // Released leads only to Jammed and back: no way home to Off.
    let err = is_sound(&camera("Jammed"), &[]).unwrap_err().to_string();
    assert!(
        err.contains("state Released: the device can get stuck here"),
        "{err}"
    );
    assert!(
        err.contains("state Jammed: the device can get stuck here"),
        "{err}"
    );
}

#[test]
fn a_task_whose_later_goal_only_a_dangerous_path_reaches_is_refused() {
    // Released leaves only through Error (which goes home by itself),
    // so nothing is stuck, and On is reachable from Released on the
    // SSM; but an ideal path never enters an error state.
    let ssm = camera("Error");
    let fine = [
        task("single-on", &["On"]),
        task("multi-1", &["On", "Released"]),
    ];
    assert_eq!(is_sound(&ssm, &fine), Ok(()));
    let err = is_sound(&ssm, &[task("multi-2", &["Released", "On"])])
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "task \"multi-2\": goal 1 (state On) cannot be reached from state Released in view front"
    );
}

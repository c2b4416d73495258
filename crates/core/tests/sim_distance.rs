//! Transition distance to a goal and target components
//! (`knoblab_core::sim::GoalDistance`), on the in-code kettle.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]

#[path = "../../../tests/support/mod.rs"]
mod support;

use knoblab_core::sim::{Device, GoalDistance};

use support::*;

#[test]
fn distances_and_targets_on_the_kettle() {
    let bundle = kettle();
    let d = Device::new(&bundle);
    let s = |n: &str| d.state(n).unwrap();
    let c = |n: &str| d.components.iter().position(|x| *x == n).unwrap();
    let done = GoalDistance::new(&d, s("BoilingComplete"));
    // Standby -push-> Boiling -wait-> BoilingComplete
    assert_eq!(done.of(s("Standby")), Some(2));
    assert_eq!(done.of(s("Boiling")), Some(1));
    // LidOpen -close-> Standby
    assert_eq!(done.of(s("LidOpen")), Some(3));
    assert_eq!(done.targets(&d, s("Standby")), vec![c("power_button")]);
    // Only waiting moves on from Boiling; the lid leads into Error: no target.
    assert!(done.targets(&d, s("Boiling")).is_empty());

    // LidOpen's power button goes into Error and resets to Standby, which is
    // nearer to Boiling, but a dangerous operation is never a target.
    let boiling = GoalDistance::new(&d, s("Boiling"));
    assert_eq!(boiling.of(s("LidOpen")), Some(2));
    assert_eq!(
        boiling.targets(&d, s("LidOpen")),
        vec![c("lid_release_button")]
    );
    // Passing through the goal reaches it: Boiling -wait-> BoilingComplete -> Standby.
    let standby = GoalDistance::new(&d, s("Standby"));
    assert_eq!(standby.of(s("Boiling")), Some(1));
}

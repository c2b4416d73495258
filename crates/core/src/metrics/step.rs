//! What one recorded step was, for the metrics: failed or not and in which
//! error class, which view-switch class, whether its coordinate hit a
//! component or a target, and how far it was from the nearest target.

use serde::{Deserialize, Serialize};

use crate::geom::{PixelBox, ScaledPoint, SCALE_MAX};
use crate::sim::action::{parse_action, ActionKind, ParseError};
use crate::sim::device::Device;
use crate::sim::matching::kind_matches;
use crate::sim::{GoalDistance, Outcome, StepRecord};

/// The error taxonomy (`specs/devices.md` section 6): each failed step is
/// in exactly one class.
///
/// **Decision (spec silent):** which steps fail. A step fails when it
/// neither reaches a goal nor leaves the device strictly closer (in
/// transitions) to the current goal, with two exceptions that succeed: a
/// `Switch_view` that changed the view to an NP or PP class, and a passive
/// unlock (a physical action on the locked dashboard region, which is
/// aborted but reveals the panel; the planner counts it as a step of an
/// optimal path). A dangerous step always fails. The class of a failed
/// step:
///
/// - an action that could not be read: Action Error (an invalid verb),
///   but Invalid Coord for a coordinate off the scale or not two numbers;
/// - `Timed_wait()`: Invalid Waiting (whether nothing happened or the
///   wait fired a transition that did not move closer);
/// - a `Switch_view` that changed the view: its class, NN or PN; one that
///   did not (refused, or to the view already shown): PN if a target is
///   visible in the view the agent stays in, else NN;
/// - a physical action refused in an axonometric view: Invalid Coord (no
///   physical action can land there); on no component: Invalid Coord; on a
///   component that is not a target (dangerous transitions are never
///   targets): Component Selection; on a target with an action type that
///   one of its closer transitions takes: Params Error; else Action Error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorClass {
    /// A physical action on no component (or refused in an axonometric
    /// view, or with a coordinate off the scale).
    InvalidCoord,
    /// A physical action on a component that is not a target.
    ComponentSelection,
    /// On a target component with an action type that a closer transition
    /// takes, but wrong parameters.
    ParamsError,
    /// On a target component with an action type no closer transition
    /// takes, or an action that could not be read (an invalid verb).
    ActionError,
    /// `Timed_wait()` that did not bring the device closer to the goal.
    InvalidWaiting,
    /// A failed switch with a target visible in neither view.
    SwitchViewNn,
    /// A failed switch away from a view where a target was visible.
    SwitchViewPn,
}

impl ErrorClass {
    /// Every class, in the order of the paper's error table.
    pub const ALL: [ErrorClass; 7] = [
        ErrorClass::InvalidCoord,
        ErrorClass::ComponentSelection,
        ErrorClass::ParamsError,
        ErrorClass::ActionError,
        ErrorClass::InvalidWaiting,
        ErrorClass::SwitchViewNn,
        ErrorClass::SwitchViewPn,
    ];

    /// The key in JSON output.
    pub fn key(self) -> &'static str {
        match self {
            ErrorClass::InvalidCoord => "invalid_coord",
            ErrorClass::ComponentSelection => "component_selection",
            ErrorClass::ParamsError => "params_error",
            ErrorClass::ActionError => "action_error",
            ErrorClass::InvalidWaiting => "invalid_waiting",
            ErrorClass::SwitchViewNn => "switch_view_nn",
            ErrorClass::SwitchViewPn => "switch_view_pn",
        }
    }

    /// The name in the paper's table.
    pub fn title(self) -> &'static str {
        match self {
            ErrorClass::InvalidCoord => "Invalid Coord",
            ErrorClass::ComponentSelection => "Component Selection",
            ErrorClass::ParamsError => "Params Error",
            ErrorClass::ActionError => "Action Error",
            ErrorClass::InvalidWaiting => "Invalid Waiting",
            ErrorClass::SwitchViewNn => "Switch View NN",
            ErrorClass::SwitchViewPn => "Switch View PN",
        }
    }
}

/// The class of a view switch by whether a target component is visible
/// before (P) or not (N), and after. NP and PP are successful switches;
/// NN and PN are failed ones (also error classes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum SwitchClass {
    /// No target visible before, one after: a successful switch.
    NP,
    /// A target visible before, none after: a failed switch.
    PN,
    /// No target visible before or after: a failed switch.
    NN,
    /// A target visible before and after: a successful switch.
    PP,
}

impl SwitchClass {
    /// Every class, in the order shown.
    pub const ALL: [SwitchClass; 4] = [
        SwitchClass::NP,
        SwitchClass::PN,
        SwitchClass::NN,
        SwitchClass::PP,
    ];

    /// The key in JSON output and the table: `NP`, `PN`, `NN`, `PP`.
    pub fn key(self) -> &'static str {
        match self {
            SwitchClass::NP => "NP",
            SwitchClass::PN => "PN",
            SwitchClass::NN => "NN",
            SwitchClass::PP => "PP",
        }
    }

    fn of(before: bool, after: bool) -> SwitchClass {
        match (before, after) {
            (false, true) => SwitchClass::NP,
            (true, false) => SwitchClass::PN,
            (false, false) => SwitchClass::NN,
            (true, true) => SwitchClass::PP,
        }
    }
}

/// Where one step stands for the metrics.
#[derive(Debug, Clone, PartialEq)]
pub struct StepFacts {
    /// `None` for a successful step, else its one error class.
    pub error: Option<ErrorClass>,
    /// For a `Switch_view` that changed the view: its class.
    pub switch: Option<SwitchClass>,
    /// The step counts as a valid operation for EER.
    pub valid: bool,
    /// The action carried a coordinate (EIR and TIR denominators).
    pub has_coord: bool,
    /// The coordinate hit a component box of the view (EIR numerator).
    pub effective: bool,
    /// The coordinate hit a target component (TIR numerator).
    pub on_target: bool,
    /// The distance (0–1000 scale) to the nearest target box of the view,
    /// and that target's component index; `None` when no target box is
    /// visible or the action has no coordinate.
    pub nearest: Option<(f64, usize)>,
}

/// The recorded step's position, resolved to indices.
pub struct At {
    /// The state the step started in.
    pub state_before: usize,
    /// The state it ended in.
    pub state_after: usize,
    /// The view it started in.
    pub view_before: usize,
    /// The view it ended in.
    pub view_after: usize,
}

/// The facts of one step, given the distances to its current goal.
pub fn facts(device: &Device<'_>, goal: &GoalDistance, at: &At, step: &StepRecord) -> StepFacts {
    let targets = goal.targets(device, at.state_before);
    let visible = |view: usize| {
        device
            .views
            .get(view)
            .is_some_and(|v| v.boxes.iter().any(|(c, _)| targets.contains(c)))
    };
    let reached = !step.goals_reached.is_empty();
    // A step succeeds when it reaches a goal or leaves the device strictly
    // closer to it. **Decision (spec silent):** a dangerous step never
    // succeeds and is never valid, even when the reset that follows lands
    // on (or passes) the goal state.
    let dangerous = step.outcome == Outcome::Dangerous;
    let progress = !dangerous
        && (reached
            || match (goal.of(at.state_before), goal.of(at.state_after)) {
                (Some(before), Some(after)) => after < before,
                _ => false,
            });
    let changed_view = at.view_after != at.view_before;

    let mut switch = None;
    let error = match &step.parsed {
        None => Some(unreadable_class(&step.action)),
        Some(a) if a.kind == ActionKind::TimedWait => {
            (!progress).then_some(ErrorClass::InvalidWaiting)
        }
        Some(a) if a.kind == ActionKind::SwitchView => {
            let (before, after) = (visible(at.view_before), visible(at.view_after));
            if changed_view {
                let class = SwitchClass::of(before, after);
                switch = Some(class);
                match class {
                    SwitchClass::NN if !progress => Some(ErrorClass::SwitchViewNn),
                    SwitchClass::PN if !progress => Some(ErrorClass::SwitchViewPn),
                    _ => None,
                }
            } else if progress {
                None
            } else if before {
                Some(ErrorClass::SwitchViewPn)
            } else {
                Some(ErrorClass::SwitchViewNn)
            }
        }
        Some(a) => {
            if progress || step.outcome == Outcome::Unlock {
                None
            } else if step.outcome == Outcome::Notification {
                Some(ErrorClass::InvalidCoord)
            } else {
                match step.component.as_deref().and_then(|c| component(device, c)) {
                    None => Some(ErrorClass::InvalidCoord),
                    Some(c) if !targets.contains(&c) => Some(ErrorClass::ComponentSelection),
                    Some(c) => {
                        let closer = goal.closer_transitions(device, at.state_before, c);
                        if closer.iter().any(|t| kind_matches(t, a.kind)) {
                            Some(ErrorClass::ParamsError)
                        } else {
                            Some(ErrorClass::ActionError)
                        }
                    }
                }
            }
        }
    };

    let changed_nothing = at.state_after == at.state_before
        && step.passed.is_empty()
        && !changed_view
        && step.unlocked_after == step.unlocked_before;
    // EER's three kinds of invalid operation. The first, "repeating the
    // previous action exactly while nothing changed", is contained in the
    // third: the simulator is deterministic, so a repeat changes nothing
    // exactly when it is a no-op.
    let valid = !dangerous && (reached || !changed_nothing);

    let coord = step.parsed.as_ref().and_then(|a| a.coord);
    let (mut effective, mut on_target, mut nearest) = (false, false, None);
    if let Some(p) = coord {
        let hit = device.component_at(at.view_before, p);
        let on_locked_region =
            !step.unlocked_before && device.in_dashboard_region(at.view_before, p);
        effective = hit.is_some() || on_locked_region;
        on_target = hit.is_some_and(|c| targets.contains(&c));
        nearest = nearest_target(device, at.view_before, p, &targets);
    }
    StepFacts {
        error,
        switch,
        valid,
        has_coord: coord.is_some(),
        effective,
        on_target,
        nearest,
    }
}

fn component(device: &Device<'_>, name: &str) -> Option<usize> {
    device.components.iter().position(|c| *c == name)
}

/// **Decision (spec silent):** an action that could not be read is an
/// Action Error ("an invalid verb"), except a coordinate that is off the
/// 0–1000 scale or not two numbers, which is an Invalid Coord.
fn unreadable_class(text: &str) -> ErrorClass {
    match parse_action(text) {
        Err(ParseError::CoordOutOfRange { .. } | ParseError::BadCoord { .. }) => {
            ErrorClass::InvalidCoord
        }
        _ => ErrorClass::ActionError,
    }
}

/// The nearest box of a target component in a view, on the 0–1000 scale
/// (0 inside the box); ties go to the first box in the view's order.
fn nearest_target(
    device: &Device<'_>,
    view: usize,
    p: ScaledPoint,
    targets: &[usize],
) -> Option<(f64, usize)> {
    let v = device.views.get(view)?;
    let mut best: Option<(f64, usize)> = None;
    for (c, b) in v.boxes.iter().filter(|(c, _)| targets.contains(c)) {
        let d = scaled_distance(b, v.width, v.height, p);
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, *c));
        }
    }
    best
}

/// The Euclidean distance on the 0–1000 scale from a point to a box given
/// in pixels of a `width` × `height` image; 0 when the point is inside.
pub fn scaled_distance(b: &PixelBox, width: u32, height: u32, p: ScaledPoint) -> f64 {
    let sx = |v: f64| {
        if width == 0 {
            0.0
        } else {
            v * f64::from(SCALE_MAX) / f64::from(width)
        }
    };
    let sy = |v: f64| {
        if height == 0 {
            0.0
        } else {
            v * f64::from(SCALE_MAX) / f64::from(height)
        }
    };
    let (x0, x1) = (sx(b.x), sx(b.x + b.w));
    let (y0, y1) = (sy(b.y), sy(b.y + b.h));
    let (px, py) = (f64::from(p.x), f64::from(p.y));
    let dx = (x0 - px).max(px - x1).max(0.0);
    let dy = (y0 - py).max(py - y1).max(0.0);
    dx.hypot(dy)
}

//! Reading actions as models really write them (`specs/devices.md`
//! section 2, rule 1).
#![cfg(not(target_arch = "wasm32"))]

use knoblab_core::geom::ScaledPoint;
use knoblab_core::sim::{parse_action, Action, ActionKind, ParseError};

fn pt(x: u32, y: u32) -> Option<ScaledPoint> {
    Some(ScaledPoint { x, y })
}

#[test]
fn the_last_action_line_of_a_long_reply_is_read() {
    let reply = "Observation: the kettle is idle.\n\
Thought: the button at the bottom starts it. Action: Press(coord=[1, 1]) was wrong before.\n\
Action: Push(coord=[780, 725], params=[1])\n";
    let a = parse_action(reply).unwrap();
    assert_eq!(a.kind, ActionKind::Push);
    assert_eq!(a.coord, pt(780, 725));
    assert_eq!(a.params, vec!["1"]);
}

#[test]
fn bare_action_text_is_read() {
    assert_eq!(parse_action("Timed_wait()").unwrap(), Action::timed_wait());
}

#[test]
fn names_are_read_in_any_case_with_free_spaces() {
    for text in [
        "PUSH(coord=[780,725],params=[1])",
        "  push ( coord = [ 780 , 725 ] , params = [ 1 ] )  ",
        "action: Push(Coord=[780, 725], Params=[1])",
        "ACTION:push(coord=[780, 725], params=[1])",
    ] {
        let a = parse_action(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(
            a,
            Action::physical(
                ActionKind::Push,
                ScaledPoint { x: 780, y: 725 },
                vec!["1".into()]
            ),
            "{text}"
        );
    }
    assert_eq!(
        parse_action("TIMED_WAIT()").unwrap().kind,
        ActionKind::TimedWait
    );
    assert_eq!(
        parse_action("SwitchView(params=[top])").unwrap().kind,
        ActionKind::SwitchView
    );
}

#[test]
fn params_are_read_as_numbers_or_quoted_strings() {
    let a = parse_action("Rotate(coord=[1, 2], params=['0', \"3\"])").unwrap();
    assert_eq!(a.params, vec!["0", "3"]);
    let a = parse_action("Rotate(coord=[1, 2], params=[0, 2.5])").unwrap();
    assert_eq!(a.params, vec!["0", "2.5"]);
}

#[test]
fn round_brackets_around_coordinates_are_read() {
    let a = parse_action("Press(coord=(10, 20), params=[0])").unwrap();
    assert_eq!(a.coord, pt(10, 20));
}

#[test]
fn a_trailing_period_and_code_marks_are_ignored() {
    assert_eq!(
        parse_action("Action: Grasp(coord=[5, 6]).").unwrap().coord,
        pt(5, 6)
    );
    assert_eq!(
        parse_action("Action: `Timed_wait()`").unwrap().kind,
        ActionKind::TimedWait
    );
    assert_eq!(
        parse_action("**Action:** Timed_wait()").unwrap().kind,
        ActionKind::TimedWait
    );
}

#[test]
fn switch_view_by_name_and_by_point() {
    assert_eq!(
        parse_action("Switch_view(params=[right])").unwrap(),
        Action::switch_to("right")
    );
    assert_eq!(
        parse_action("Switch_view(params=['right'])").unwrap(),
        Action::switch_to("right")
    );
    assert_eq!(
        parse_action("Switch_view(coord=[700, 720])").unwrap(),
        Action::switch_at(ScaledPoint { x: 700, y: 720 })
    );
    assert_eq!(
        parse_action("Switch_view(params=[a, b])"),
        Err(ParseError::SwitchNeedsOneTarget)
    );
    assert_eq!(
        parse_action("Switch_view()"),
        Err(ParseError::SwitchNeedsOneTarget)
    );
}

#[test]
fn fractional_coordinates_are_rounded() {
    assert_eq!(
        parse_action("Press(coord=[10.4, 20.6])").unwrap().coord,
        pt(10, 21)
    );
}

#[test]
fn a_grasp_may_carry_no_params() {
    let a = parse_action("Grasp(coord=[1, 2])").unwrap();
    assert!(a.params.is_empty());
}

#[test]
fn what_cannot_be_read_says_what_was_wrong() {
    assert_eq!(parse_action(""), Err(ParseError::Empty));
    assert_eq!(parse_action("Action:   "), Err(ParseError::Empty));
    assert!(matches!(
        parse_action("boil the water"),
        Err(ParseError::NotAnAction { .. })
    ));
    assert!(matches!(
        parse_action("Click(coord=[1, 2])"),
        Err(ParseError::UnknownVerb { .. })
    ));
    assert!(matches!(
        parse_action("Push(params=[1])"),
        Err(ParseError::MissingCoord { .. })
    ));
    assert!(matches!(
        parse_action("Push(coord=[1], params=[1])"),
        Err(ParseError::BadCoord { .. })
    ));
    assert!(matches!(
        parse_action("Push(coord=[a, b])"),
        Err(ParseError::BadCoord { .. })
    ));
    assert!(matches!(
        parse_action("Push(coord=[-1, 5])"),
        Err(ParseError::CoordOutOfRange { .. })
    ));
    assert!(matches!(
        parse_action("Push(coord=[5, 1001])"),
        Err(ParseError::CoordOutOfRange { .. })
    ));
    assert!(matches!(
        parse_action("Push([5, 5], [1])"),
        Err(ParseError::BadArguments { .. })
    ));
    assert_eq!(
        parse_action("Timed_wait(coord=[1, 1])"),
        Err(ParseError::WaitTakesNoArguments)
    );
}

#[test]
fn huge_numbers_and_odd_text_do_not_panic() {
    for text in [
        "Push(coord=[99999999999999999999999, 1])",
        "Push(coord=[1e400, 1])",
        "Push(coord=[NaN, 1])",
        "Action: Action: Action:",
        "Press(((((",
        "Press(coord=[1, 2], params=[)",
        "ÄÖÜ(coord=[1, 2])",
        "Push(coord=[١, ٢])",
    ] {
        assert!(parse_action(text).is_err(), "{text}");
    }
}

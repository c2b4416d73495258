//! Which transition an action fires (`specs/devices.md` section 2, rule 4).

use crate::bundle::Transition;

use super::action::ActionKind;

/// Whether one action parameter matches one transition parameter.
///
/// **Decision:** parameters compare position by position as trimmed,
/// case-insensitive strings, numeric strings as numbers ("1" = "1.0"); a
/// `*` in the transition's list accepts anything at that position.
///
/// ```
/// use knoblab_core::sim::matching::param_matches;
/// assert!(param_matches("1.0", " 1 "));
/// assert!(param_matches("*", "anything"));
/// assert!(param_matches("Right", "right"));
/// assert!(!param_matches("1", "2"));
/// ```
pub fn param_matches(wanted: &str, given: &str) -> bool {
    let (w, g) = (wanted.trim(), given.trim());
    if w == "*" {
        return true;
    }
    match (number(w), number(g)) {
        (Some(a), Some(b)) => a == b,
        _ => w.eq_ignore_ascii_case(g) || w.to_lowercase() == g.to_lowercase(),
    }
}

fn number(text: &str) -> Option<f64> {
    text.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Whether an action's parameters match a transition's list.
///
/// **Decision:** a transition with an empty parameter list accepts any
/// parameters; an action that gives fewer parameters than the transition
/// needs does not match. A `*` position still needs a parameter to be
/// given (it accepts any value, not an absent one); parameters beyond the
/// transition's list are ignored.
pub fn params_match(wanted: &[String], given: &[String]) -> bool {
    if given.len() < wanted.len() {
        return false;
    }
    wanted.iter().zip(given).all(|(w, g)| param_matches(w, g))
}

/// Whether an action type matches a transition's `atomic_action` (any case;
/// a transition that names no action accepts any physical one).
pub fn kind_matches(transition: &Transition, kind: ActionKind) -> bool {
    match &transition.atomic_action {
        Some(a) => a.trim().eq_ignore_ascii_case(kind.atomic_name()),
        None => true,
    }
}

/// The first of a component's transitions (in file order) that matches
/// both the action type and the parameters, if any.
pub fn select_transition(
    transitions: &[Transition],
    kind: ActionKind,
    params: &[String],
) -> Option<usize> {
    transitions.iter().position(|t| {
        kind_matches(t, kind) && params_match(t.parameter.as_deref().unwrap_or(&[]), params)
    })
}

/// The action kind a transition asks for (`press` when it names none or an
/// unknown one; validation refuses both).
pub fn transition_kind(transition: &Transition) -> ActionKind {
    transition
        .atomic_action
        .as_deref()
        .and_then(ActionKind::from_verb)
        .filter(|k| k.is_physical())
        .unwrap_or(ActionKind::Press)
}

/// Parameters that make a transition fire: its own list with `*` replaced
/// by `0`.
pub fn params_for(transition: &Transition) -> Vec<String> {
    transition
        .parameter
        .as_deref()
        .unwrap_or(&[])
        .iter()
        .map(|p| {
            if p.trim() == "*" {
                "0".to_string()
            } else {
                p.trim().to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn numeric_strings_compare_as_numbers() {
        assert!(params_match(&s(&["1"]), &s(&["1.0"])));
        assert!(params_match(&s(&["0", "2"]), &s(&["0.0", "2"])));
        assert!(!params_match(&s(&["0", "2"]), &s(&["0", "3"])));
    }

    #[test]
    fn fewer_params_than_needed_do_not_match() {
        assert!(!params_match(&s(&["0", "*"]), &s(&["0"])));
        assert!(params_match(&s(&[]), &s(&[])));
        assert!(params_match(&s(&[]), &s(&["7", "x"])));
    }
}

//! What an action turned out to be (`specs/devices.md` sections 2 and 5),
//! and the words the agent reads for each.

use serde::{Deserialize, Serialize};

/// The kind of result of one step, as recorded in a trajectory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// A transition fired (and its immediate chain, if any, was followed).
    Transition,
    /// The point was on a component that can act now, but not with this
    /// action type or these parameters.
    Hint,
    /// The point was on no component, or on one that does nothing now.
    Null,
    /// The action was refused: unreadable text, a bad coordinate, a
    /// physical action in an axonometric view, a switch to a missing or
    /// locked view.
    Notification,
    /// `Timed_wait()` in a state where waiting changes nothing.
    InvalidWait,
    /// `Switch_view` moved to another view (or to the one already shown).
    ViewSwitch,
    /// The dashboard was unlocked: actively (a `Switch_view` into its
    /// region, which also moves there) or passively (a physical action on
    /// the locked region, which is aborted).
    Unlock,
    /// A transition entered an error state; the device then reset itself.
    Dangerous,
}

impl Outcome {
    /// The name written in trajectory files.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Transition => "transition",
            Outcome::Hint => "hint",
            Outcome::Null => "null",
            Outcome::Notification => "notification",
            Outcome::InvalidWait => "invalid_wait",
            Outcome::ViewSwitch => "view_switch",
            Outcome::Unlock => "unlock",
            Outcome::Dangerous => "dangerous",
        }
    }
}

/// The feedback texts that are not taken from the bundle.
pub mod feedback {
    /// The operational hint: the same words whether the action type or the
    /// parameters were wrong.
    pub const HINT: &str = "This part seems operable, but not in this way.";
    /// Nothing happened.
    pub const NULL: &str = "Nothing happened.";
    /// `Timed_wait()` with nothing to wait for.
    pub const INVALID_WAIT: &str = "You waited, but waiting changed nothing.";
    /// Said before the reset that follows a dangerous operation.
    pub const DANGEROUS: &str = "Warning: that was a dangerous operation.";

    /// Prefix of every system notification.
    pub fn notification(problem: &str) -> String {
        format!("System notification: {problem}.")
    }

    /// A system notification about an unreadable action.
    pub fn format_notification(problem: &str) -> String {
        format!(
            "System notification: {problem}. Expected one of: {}.",
            crate::sim::action::EXPECTED_FORMS
        )
    }

    /// After a switch by name.
    pub fn switched(view: &str) -> String {
        format!("You are now looking at the {view} view.")
    }

    /// After a switch to the view already shown.
    pub fn already_there(view: &str) -> String {
        format!("You are already looking at the {view} view.")
    }

    /// After an active unlock.
    pub fn unlocked_active(view: &str) -> String {
        format!("You look closer: the panel can now be seen up close in the {view} view.")
    }

    /// After a passive unlock: the action was not carried out.
    pub fn unlocked_passive(view: &str) -> String {
        format!(
            "The action was not carried out: that area is too small to operate from here. \
The panel can now be seen up close: switch to the {view} view."
        )
    }

    /// Appends a text as a sentence (space-separated, ending with a period
    /// unless it already ends one); empty texts add nothing.
    pub fn push_sentence(out: &mut String, text: &str) {
        let t = text.trim();
        if t.is_empty() {
            return;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(t);
        if !t.ends_with(['.', '!', '?']) {
            out.push('.');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Outcome;

    #[test]
    fn outcomes_are_written_with_the_published_names() {
        let all = [
            Outcome::Transition,
            Outcome::Hint,
            Outcome::Null,
            Outcome::Notification,
            Outcome::InvalidWait,
            Outcome::ViewSwitch,
            Outcome::Unlock,
            Outcome::Dangerous,
        ];
        let names: Vec<String> = all
            .iter()
            .map(|o| serde_json::to_string(o).unwrap_or_default())
            .collect();
        assert_eq!(
            names,
            [
                "\"transition\"",
                "\"hint\"",
                "\"null\"",
                "\"notification\"",
                "\"invalid_wait\"",
                "\"view_switch\"",
                "\"unlock\"",
                "\"dangerous\""
            ]
        );
        for o in all {
            assert_eq!(
                format!("\"{}\"", o.as_str()),
                serde_json::to_string(&o).unwrap_or_default()
            );
        }
    }
}

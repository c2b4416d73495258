//! The action bar of the player: which tool is chosen, its parameters
//! explained in words, the point, the action text they make, and what each
//! key does. The words follow the parameter table of `specs/devices.md`
//! section 2 (VGEBench's agent prompt), so a person reads the same
//! meanings a model is given.

use serde::Serialize;
use thiserror::Error;

use knoblab_core::geom::{ScaledPoint, SCALE_MAX};
use knoblab_core::sim::{Action, ActionKind};

/// What the next action will be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tool {
    /// A physical action (one of [`ActionKind::PHYSICAL`]) at the point.
    Physical(ActionKind),
    /// `Switch_view(coord=…)`: into the dashboard, from its parent view.
    SwitchAt,
    /// `Timed_wait()`.
    Wait,
}

impl Tool {
    /// Every tool, in the order of the action bar and of the number keys
    /// 1–7.
    pub const ALL: [Tool; 7] = [
        Tool::Physical(ActionKind::Press),
        Tool::Physical(ActionKind::Pull),
        Tool::Physical(ActionKind::Push),
        Tool::Physical(ActionKind::Rotate),
        Tool::Physical(ActionKind::Grasp),
        Tool::Wait,
        Tool::SwitchAt,
    ];

    /// The label on its button.
    pub fn label(self) -> &'static str {
        match self {
            Tool::Physical(kind) => kind.verb(),
            Tool::SwitchAt => "Look closer",
            Tool::Wait => "Timed wait",
        }
    }

    /// One sentence on what it does.
    pub fn explanation(self) -> &'static str {
        match self {
            Tool::Physical(ActionKind::Press) => "Press a part: a click, a long press or a double click.",
            Tool::Physical(ActionKind::Pull) => "Pull a part up, down, left, right or out towards you.",
            Tool::Physical(ActionKind::Push) => "Push a part up, down, left, right or in.",
            Tool::Physical(ActionKind::Rotate) => "Turn a knob or dial: a direction and a number of detents (clicks).",
            Tool::Physical(_) => "Grasp a part: pick it up or hold it (a handle, a handset).",
            Tool::SwitchAt => "Switch the view to the close-up of the panel at the point (Switch_view with a point).",
            Tool::Wait => "Wait for the device to finish what it is doing (Timed_wait).",
        }
    }

    /// Whether it needs a point on the picture.
    pub fn needs_point(self) -> bool {
        !matches!(self, Tool::Wait)
    }

    /// Its parameters, each with its choices in words.
    pub fn slots(self) -> Vec<ParamSlot> {
        let choices = |pairs: &[(&'static str, &'static str)]| {
            pairs
                .iter()
                .map(|&(value, label)| ParamChoice { value, label })
                .collect()
        };
        let directions = |last: &'static str| {
            choices(&[
                ("0", "up"),
                ("1", "down"),
                ("2", "left"),
                ("3", "right"),
                ("4", last),
            ])
        };
        match self {
            Tool::Physical(ActionKind::Press) => vec![ParamSlot {
                name: "how",
                choices: choices(&[("0", "click"), ("1", "long press"), ("2", "double click")]),
            }],
            Tool::Physical(ActionKind::Push) => vec![ParamSlot {
                name: "direction",
                choices: directions("in / forward"),
            }],
            Tool::Physical(ActionKind::Pull) => vec![ParamSlot {
                name: "direction",
                choices: directions("out / backward"),
            }],
            Tool::Physical(ActionKind::Rotate) => vec![
                ParamSlot {
                    name: "direction",
                    choices: choices(&[("0", "clockwise"), ("1", "counter-clockwise")]),
                },
                ParamSlot {
                    name: "detents",
                    choices: DETENTS
                        .iter()
                        .zip(DETENT_LABELS)
                        .map(|(&value, label)| ParamChoice { value, label })
                        .collect(),
                },
            ],
            _ => Vec::new(),
        }
    }
}

const DETENTS: [&str; 8] = ["1", "2", "3", "4", "5", "6", "7", "8"];
const DETENT_LABELS: [&str; 8] = [
    "1 detent",
    "2 detents",
    "3 detents",
    "4 detents",
    "5 detents",
    "6 detents",
    "7 detents",
    "8 detents",
];

/// One parameter of a tool and its choices.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ParamSlot {
    /// What the parameter sets (`how`, `direction`, `detents`).
    pub name: &'static str,
    /// Its values, in the order the bar offers them.
    pub choices: Vec<ParamChoice>,
}

/// A parameter's value as written in the action, and its meaning in words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ParamChoice {
    /// The value as the action text writes it.
    pub value: &'static str,
    /// What it means, for the bar's menu.
    pub label: &'static str,
}

/// Why the action bar cannot act yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum DraftError {
    #[error(
        "choose a point on the picture first (click it, or move the marker with the arrow keys)"
    )]
    /// The tool needs a point and none is chosen.
    NoPoint,
}

/// The action being put together: a tool, its parameter values (an index
/// into each slot's choices) and the point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Draft {
    /// The tool chosen.
    pub tool: Tool,
    /// For each of the tool's parameter slots, the index of the choice.
    pub choices: Vec<usize>,
    /// The point on the picture, once chosen.
    pub point: Option<ScaledPoint>,
}

/// How far one arrow key moves the point on the 0–1000 scale, with Shift,
/// and with Alt (to reach any point exactly).
pub const NUDGE: u32 = 10;
/// With Shift.
pub const NUDGE_FAR: u32 = 50;
/// With Alt.
pub const NUDGE_FINE: u32 = 1;

impl Default for Draft {
    fn default() -> Self {
        Draft::new(Tool::Physical(ActionKind::Press))
    }
}

impl Draft {
    /// A draft with this tool, each parameter at its first choice, no point.
    pub fn new(tool: Tool) -> Draft {
        Draft {
            tool,
            choices: vec![0; tool.slots().len()],
            point: None,
        }
    }

    /// Changes the tool, keeping the point; parameters start again.
    pub fn with_tool(&self, tool: Tool) -> Draft {
        Draft {
            point: self.point,
            ..Draft::new(tool)
        }
    }

    /// Chooses a parameter value by its index; out-of-range indices are ignored.
    pub fn choose(&mut self, slot: usize, choice: usize) {
        let slots = self.tool.slots();
        let fits = slots.get(slot).is_some_and(|s| choice < s.choices.len());
        if let (true, Some(c)) = (fits, self.choices.get_mut(slot)) {
            *c = choice;
        }
    }

    /// Moves a parameter to its next choice, wrapping round.
    pub fn cycle(&mut self, slot: usize) {
        let slots = self.tool.slots();
        if let (Some(s), Some(c)) = (slots.get(slot), self.choices.get_mut(slot)) {
            *c = (*c + 1) % s.choices.len().max(1);
        }
    }

    /// The parameter values as the action writes them.
    pub fn params(&self) -> Vec<String> {
        self.tool
            .slots()
            .iter()
            .zip(&self.choices)
            .filter_map(|(s, &i)| s.choices.get(i).map(|c| c.value.to_string()))
            .collect()
    }

    /// Moves the point by (dx, dy) on the 0–1000 scale, clamped to it; with
    /// no point yet, the move starts from the centre.
    pub fn nudge(&mut self, dx: i64, dy: i64) {
        let half = i64::from(SCALE_MAX / 2);
        let (x, y) = self
            .point
            .map_or((half, half), |p| (i64::from(p.x), i64::from(p.y)));
        let clamp = |v: i64| v.clamp(0, i64::from(SCALE_MAX));
        self.point = ScaledPoint::new(clamp(x + dx), clamp(y + dy));
    }

    /// The action this draft makes.
    pub fn action(&self) -> Result<Action, DraftError> {
        match self.tool {
            Tool::Wait => Ok(Action::timed_wait()),
            Tool::SwitchAt => self.point.map(Action::switch_at).ok_or(DraftError::NoPoint),
            Tool::Physical(kind) => self
                .point
                .map(|p| Action::physical(kind, p, self.params()))
                .ok_or(DraftError::NoPoint),
        }
    }

    /// The action text this draft makes (what a model would write).
    pub fn text(&self) -> Result<String, DraftError> {
        self.action().map(|a| a.to_string())
    }
}

/// What a key does on the play page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyCommand {
    /// 1–7: choose a tool of [`Tool::ALL`].
    Tool(Tool),
    /// Shift + 1–9: switch to the n-th view tab (0-based here).
    View(usize),
    /// `p`: next choice of the first parameter; `d`: of the second.
    Cycle(usize),
    /// Arrow keys: move the point (Shift: farther, Alt: by one).
    Nudge(i64, i64),
    /// Enter: act.
    Act,
    /// `?`: show or hide the key help.
    Help,
    /// `u`: undo (practice only).
    Undo,
    /// `b`: show or hide the component boxes (practice only).
    Boxes,
}

/// The key help, as shown under `?`: (keys, what they do).
pub const KEY_HELP: [(&str, &str); 9] = [
    ("1–5", "Press, Pull, Push, Rotate, Grasp"),
    (
        "6, 7",
        "Timed wait; Look closer (switch into the panel at the point)",
    ),
    ("Shift + 1–9", "switch to the view of that tab"),
    (
        "arrow keys",
        "move the point by 10 (with Shift by 50, with Alt by 1)",
    ),
    ("p, d", "next parameter choice (direction or kind; detents)"),
    ("Enter", "act"),
    ("u", "undo the last step (practice)"),
    ("b", "show the parts' boxes (practice)"),
    ("?", "show or hide this help"),
];

impl KeyCommand {
    /// The command of a key event: `key` and `code` as the browser gives
    /// them (`KeyboardEvent.key`, `.code`), and whether Shift and Alt were
    /// held (Alt only changes the arrow keys).
    /// View keys are read from `code` (`Digit2`), because Shift changes
    /// `key` with the keyboard layout.
    pub fn from_key(key: &str, code: &str, shift: bool, alt: bool) -> Option<KeyCommand> {
        if shift {
            if let Some(n) = code
                .strip_prefix("Digit")
                .and_then(|d| d.parse::<usize>().ok())
                .filter(|n| (1..=9).contains(n))
            {
                return Some(KeyCommand::View(n - 1));
            }
        }
        let step = i64::from(match (alt, shift) {
            (true, _) => NUDGE_FINE,
            (false, true) => NUDGE_FAR,
            (false, false) => NUDGE,
        });
        if alt && !key.starts_with("Arrow") {
            return None;
        }
        Some(match key {
            "ArrowLeft" => KeyCommand::Nudge(-step, 0),
            "ArrowRight" => KeyCommand::Nudge(step, 0),
            "ArrowUp" => KeyCommand::Nudge(0, -step),
            "ArrowDown" => KeyCommand::Nudge(0, step),
            "Enter" => KeyCommand::Act,
            "?" => KeyCommand::Help,
            "p" | "P" => KeyCommand::Cycle(0),
            "d" | "D" => KeyCommand::Cycle(1),
            "u" | "U" => KeyCommand::Undo,
            "b" | "B" => KeyCommand::Boxes,
            _ => {
                let n = key.parse::<usize>().ok().filter(|n| (1..=7).contains(n))?;
                KeyCommand::Tool(*Tool::ALL.get(n - 1)?)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use knoblab_core::sim::parse_action;

    #[test]
    fn a_draft_makes_the_action_text_the_parser_reads() {
        let mut draft = Draft::new(Tool::Physical(ActionKind::Rotate));
        assert_eq!(draft.text(), Err(DraftError::NoPoint));
        draft.point = ScaledPoint::new(120, 880);
        draft.cycle(0);
        draft.choose(1, 2);
        let text = draft.text().unwrap();
        assert_eq!(text, "Rotate(coord=[120, 880], params=[1, 3])");
        assert_eq!(parse_action(&text).ok(), draft.action().ok());
        assert_eq!(Draft::new(Tool::Wait).text().unwrap(), "Timed_wait()");
        draft.tool = Tool::SwitchAt;
        assert_eq!(draft.text().unwrap(), "Switch_view(coord=[120, 880])");
    }

    #[test]
    fn the_words_follow_the_parameter_table() {
        let push = Tool::Physical(ActionKind::Push).slots();
        let pull = Tool::Physical(ActionKind::Pull).slots();
        assert_eq!(push[0].choices[4].label, "in / forward");
        assert_eq!(pull[0].choices[4].label, "out / backward");
        let press = Tool::Physical(ActionKind::Press).slots();
        let labels: Vec<_> = press[0]
            .choices
            .iter()
            .map(|c| (c.value, c.label))
            .collect();
        assert_eq!(
            labels,
            [("0", "click"), ("1", "long press"), ("2", "double click")]
        );
        assert!(Tool::Physical(ActionKind::Grasp).slots().is_empty());
        let rotate = Tool::Physical(ActionKind::Rotate).slots();
        assert_eq!(rotate[0].choices[1].label, "counter-clockwise");
    }

    #[test]
    fn changing_the_tool_keeps_the_point_and_resets_the_parameters() {
        let mut draft = Draft::new(Tool::Physical(ActionKind::Push));
        draft.choose(0, 3);
        draft.point = ScaledPoint::new(5, 6);
        let press = draft.with_tool(Tool::Physical(ActionKind::Press));
        assert_eq!(press.point, draft.point);
        assert_eq!(press.params(), ["0"]);
        draft.choose(0, 99);
        assert_eq!(draft.params(), ["3"]);
    }

    #[test]
    fn cycling_wraps_and_nudging_clamps() {
        let mut draft = Draft::new(Tool::Physical(ActionKind::Press));
        for _ in 0..3 {
            draft.cycle(0);
        }
        assert_eq!(draft.params(), ["0"]);
        draft.cycle(5);
        draft.nudge(30, -20);
        assert_eq!(draft.point, ScaledPoint::new(530, 480));
        draft.nudge(-2000, 2000);
        assert_eq!(draft.point, ScaledPoint::new(0, 1000));
    }

    #[test]
    fn keys_map_to_commands() {
        let k = |key: &str, code: &str, shift| KeyCommand::from_key(key, code, shift, false);
        assert_eq!(
            k("1", "Digit1", false),
            Some(KeyCommand::Tool(Tool::Physical(ActionKind::Press)))
        );
        assert_eq!(k("6", "Digit6", false), Some(KeyCommand::Tool(Tool::Wait)));
        assert_eq!(
            k("7", "Digit7", false),
            Some(KeyCommand::Tool(Tool::SwitchAt))
        );
        assert_eq!(k("8", "Digit8", false), None);
        assert_eq!(k("@", "Digit2", true), Some(KeyCommand::View(1)));
        assert_eq!(
            k("ArrowUp", "ArrowUp", true),
            Some(KeyCommand::Nudge(0, -50))
        );
        assert_eq!(
            k("ArrowLeft", "ArrowLeft", false),
            Some(KeyCommand::Nudge(-10, 0))
        );
        assert_eq!(k("Enter", "Enter", false), Some(KeyCommand::Act));
        assert_eq!(k("?", "Slash", true), Some(KeyCommand::Help));
        assert_eq!(k("d", "KeyD", false), Some(KeyCommand::Cycle(1)));
        assert_eq!(k("x", "KeyX", false), None);
        let alt = |key: &str| KeyCommand::from_key(key, key, false, true);
        assert_eq!(alt("ArrowRight"), Some(KeyCommand::Nudge(1, 0)));
        assert_eq!(alt("Enter"), None);
    }
}

//! What the model is told: the versioned system prompt, the text of each
//! turn, and the history window that decides how many past turns go along.
//!
//! The system prompt is written for KnobLab: the task, the output format
//! (reasoning, then one `Action:` line last, which the simulator's parser
//! reads), the coordinate scale and the action table of
//! `specs/devices.md` section 2. Changing its words changes
//! [`PROMPT_VERSION`], which every trajectory records.

use super::error::VlmError;
use serde::{Deserialize, Serialize};

use knoblab_core::sim::Observation;

use super::coords::CoordConvention;
use super::provider::{Message, Part, Role};

/// The version of the system prompt and turn text below.
pub const PROMPT_VERSION: &str = "knoblab-prompt/1";

const INTRO: &str = "You are operating a household device that you have never seen before. \
You cannot touch it: you see one picture of it at a time and act by naming an action and a \
point on the picture. There is no manual. Each turn you get the user's instruction, the \
feedback of your previous action, the views you may switch to, and the picture of the \
current view. Work out which part of the device does what, then carry out the instruction. \
Every action, valid or not, uses up your step budget, so act deliberately.";

const FORMAT: &str = "Answer in this format:
Thought: <a short reasoning about what you see and what to do next>
Action: <exactly one action>

The last line must be the Action line; only the last Action line is read.";

const ACTIONS: &str = "Actions:
Press(coord=[x, y], params=[kind])            kind: 0 click, 1 long press, 2 double click
Rotate(coord=[x, y], params=[direction, n])   direction: 0 clockwise, 1 counter-clockwise; n detents
Push(coord=[x, y], params=[direction])        direction: 0 up, 1 down, 2 left, 3 right, 4 in / forward
Pull(coord=[x, y], params=[direction])        direction: 0 up, 1 down, 2 left, 3 right, 4 out / backward
Grasp(coord=[x, y], params=[])                pick up or hold a part (a handset, a handle)
Timed_wait()                                  let time pass when the device is busy
Switch_view(params=[view])                    look from another side, by a view name you were given
Switch_view(coord=[x, y])                     look closer at a control panel, by pointing at it

Physical actions (Press, Rotate, Push, Pull, Grasp) work only in front, back, left, right, \
top and bottom views, not in the angled views (front_top, back_bottom). If a part reacts \
with \"operable, but not in this way\", try another action or parameters on the same point. \
Dangerous operations reset the device.";

/// The coordinate paragraph, which depends on what the model is asked to use.
fn coordinates(convention: CoordConvention) -> &'static str {
    match convention {
        CoordConvention::Scale1000 => {
            "Coordinates: x and y are integers from 0 to 1000 on the \
current picture, whatever its size in pixels: [0, 0] is the top left corner, [1000, 1000] the \
bottom right, x grows to the right and y downwards."
        }
        CoordConvention::Unit => {
            "Coordinates: x and y are decimal fractions from 0 to 1 of the \
current picture's width and height: [0, 0] is the top left corner, [1, 1] the bottom right, \
x grows to the right and y downwards."
        }
        CoordConvention::Pixels => {
            "Coordinates: x and y are pixels of the current picture \
(its size is given each turn): [0, 0] is the top left corner, x grows to the right and y \
downwards."
        }
    }
}

/// The system prompt for a coordinate convention.
pub fn system_prompt(convention: CoordConvention) -> String {
    format!(
        "{INTRO}\n\n{FORMAT}\n\n{ACTIONS}\n\n{}",
        coordinates(convention)
    )
}

/// How many past turns go with each request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HistoryWindow {
    /// Every past turn of the episode.
    Full,
    /// The last n turns (0: the current turn alone).
    Last(u32),
}

impl Default for HistoryWindow {
    fn default() -> Self {
        HistoryWindow::Last(3)
    }
}

impl HistoryWindow {
    /// The choices the page offers: full, 10, 3, 1 and 0 turns.
    pub const CHOICES: [HistoryWindow; 5] = [
        HistoryWindow::Full,
        HistoryWindow::Last(10),
        HistoryWindow::Last(3),
        HistoryWindow::Last(1),
        HistoryWindow::Last(0),
    ];

    /// `full` or the number of turns.
    pub fn name(self) -> String {
        match self {
            HistoryWindow::Full => "full".into(),
            HistoryWindow::Last(n) => n.to_string(),
        }
    }

    /// Reads `full` or a number of turns.
    pub fn parse(text: &str) -> Result<HistoryWindow, VlmError> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("full") {
            return Ok(HistoryWindow::Full);
        }
        text.parse()
            .map(HistoryWindow::Last)
            .map_err(|_| VlmError::UnknownHistory {
                found: text.to_string(),
            })
    }

    /// The turns kept of `past` (oldest first): the last n, or all.
    pub fn keep<T>(self, past: &[T]) -> &[T] {
        match self {
            HistoryWindow::Full => past,
            HistoryWindow::Last(n) => {
                let n = usize::try_from(n).unwrap_or(usize::MAX).min(past.len());
                &past[past.len() - n..]
            }
        }
    }
}

/// The text of a turn: instruction, previous feedback, the current view
/// and the views on offer; the picture's size in pixels when the model
/// answers in pixels.
pub fn turn_text(observation: &Observation, convention: CoordConvention) -> String {
    let instruction = observation
        .instruction
        .as_deref()
        .unwrap_or("Every goal is reached.");
    let feedback = observation
        .feedback
        .as_deref()
        .unwrap_or("None yet: this is the first step.");
    let views = if observation.views.is_empty() {
        "none".to_string()
    } else {
        observation.views.join(", ")
    };
    let mut text = format!(
        "Instruction: {instruction}\nFeedback of your previous action: {feedback}\n\
         Current view: {}\nViews you can switch to: {views}",
        observation.view
    );
    if convention == CoordConvention::Pixels {
        text.push_str(&format!(
            "\nThe picture is {} x {} pixels.",
            observation.image.width, observation.image.height
        ));
    }
    text
}

/// One past turn: what was said and what the model answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    /// The turn's text sent to the model (its picture is not kept).
    pub user: String,
    /// The model's reply.
    pub assistant: String,
}

/// The messages of a request: the kept past turns as text (user, then the
/// model's reply), then the current turn's text and picture.
/// **Decision:** only the current turn carries a picture; past turns go as
/// text, so a long window does not multiply the image tokens and the model
/// is never unsure which picture is now.
pub fn messages(
    history: &[Exchange],
    window: HistoryWindow,
    current: &str,
    image: Part,
) -> Vec<Message> {
    let mut out = Vec::new();
    for past in window.keep(history) {
        out.push(Message {
            role: Role::User,
            parts: vec![Part::Text {
                text: past.user.clone(),
            }],
        });
        out.push(Message {
            role: Role::Assistant,
            parts: vec![Part::Text {
                text: past.assistant.clone(),
            }],
        });
    }
    out.push(Message {
        role: Role::User,
        parts: vec![
            Part::Text {
                text: current.to_string(),
            },
            image,
        ],
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use knoblab_core::sim::ImageRef;

    fn observation() -> Observation {
        Observation {
            view: "front".into(),
            image: ImageRef {
                view: "front".into(),
                width: 640,
                height: 480,
            },
            views: vec!["front".into(), "left".into()],
            feedback: None,
            instruction: Some("Start heating the water.".into()),
        }
    }

    #[test]
    fn the_system_prompt_carries_the_action_table_and_the_scale() {
        let p = system_prompt(CoordConvention::Scale1000);
        for needle in [
            "Action: <exactly one action>",
            "0 click, 1 long press, 2 double click",
            "0 clockwise, 1 counter-clockwise",
            "4 in / forward",
            "4 out / backward",
            "Timed_wait()",
            "Switch_view(params=[view])",
            "from 0 to 1000",
        ] {
            assert!(p.contains(needle), "missing {needle:?}");
        }
        assert!(system_prompt(CoordConvention::Unit).contains("from 0 to 1 of"));
    }

    /// The words of each version are fixed: editing the prompt or the turn
    /// text without
    /// bumping [`PROMPT_VERSION`] (and this digest) fails here, so two
    /// trajectories with the same version were prompted alike.
    #[test]
    fn the_prompt_of_a_version_never_changes() {
        use sha2::{Digest, Sha256};
        let mut hash = Sha256::new();
        for c in [
            CoordConvention::Scale1000,
            CoordConvention::Unit,
            CoordConvention::Pixels,
        ] {
            hash.update(system_prompt(c).as_bytes());
            hash.update(turn_text(&observation(), c).as_bytes());
        }
        let digest: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(PROMPT_VERSION, "knoblab-prompt/1");
        assert_eq!(
            digest,
            "e1cffe9cb01617e72fbdcbbff183e21d4325cf244829130e970cd45218459179"
        );
    }

    #[test]
    fn a_turn_says_instruction_feedback_and_views() {
        let t = turn_text(&observation(), CoordConvention::Scale1000);
        assert_eq!(
            t,
            "Instruction: Start heating the water.\n\
             Feedback of your previous action: None yet: this is the first step.\n\
             Current view: front\nViews you can switch to: front, left"
        );
        let t = turn_text(&observation(), CoordConvention::Pixels);
        assert!(t.ends_with("The picture is 640 x 480 pixels."), "{t}");
    }

    fn history(n: usize) -> Vec<Exchange> {
        (0..n)
            .map(|i| Exchange {
                user: format!("u{i}"),
                assistant: format!("a{i}"),
            })
            .collect()
    }

    #[test]
    fn the_window_keeps_the_last_turns() {
        let h = history(5);
        for (window, kept) in [
            (HistoryWindow::Full, 5),
            (HistoryWindow::Last(10), 5),
            (HistoryWindow::Last(3), 3),
            (HistoryWindow::Last(1), 1),
            (HistoryWindow::Last(0), 0),
        ] {
            let image = Part::Image {
                media_type: "image/png".into(),
                base64: "AA".into(),
            };
            let m = messages(&h, window, "now", image);
            assert_eq!(m.len(), kept * 2 + 1, "{window:?}");
            // The oldest kept turn is the right one, and only the last message has a picture.
            if kept > 0 {
                assert_eq!(
                    m[0].parts,
                    vec![Part::Text {
                        text: format!("u{}", 5 - kept)
                    }]
                );
            }
            let pictures = m
                .iter()
                .flat_map(|m| &m.parts)
                .filter(|p| matches!(p, Part::Image { .. }))
                .count();
            assert_eq!(pictures, 1);
            assert_eq!(m.last().map(|m| m.role), Some(Role::User));
        }
    }

    #[test]
    fn window_names_read_back() {
        for w in HistoryWindow::CHOICES {
            assert_eq!(HistoryWindow::parse(&w.name()), Ok(w));
        }
        assert!(HistoryWindow::parse("all").is_err());
    }
}

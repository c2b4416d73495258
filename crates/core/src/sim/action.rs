//! Reading an action from what a model (or a person) wrote
//! (`specs/devices.md` section 2, rule 1).
//!
//! The parser takes the last `Action:` line of a long reply, or the bare
//! action text, and reads any case, free spaces, parameters as numbers or
//! quoted strings, `coord=(x, y)` as well as `coord=[x, y]`, and a trailing
//! period. Whatever it cannot read is a [`ParseError`] whose message says
//! what was wrong; the episode turns it into a system notification that
//! also shows the expected forms ([`EXPECTED_FORMS`]). It never panics.
//!
//! The `Action:` marker (any case, spaces before the colon) and the action
//! itself are read by hand, which is simpler to make total and several
//! times faster than capture groups (a step is budgeted at 2 µs), and keeps
//! a regex engine out of the page's module (issue #46). A test holds the
//! marker's reader to the regex `(?i)action\s*:`.

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::geom::{ScaledPoint, SCALE_MAX};

/// The forms an action may take, shown in every format notification.
pub const EXPECTED_FORMS: &str =
    "Press(coord=[x, y], params=[...]) (also Pull, Push, Rotate, Grasp), \
Timed_wait(), Switch_view(params=[view]) or Switch_view(coord=[x, y]), \
with x and y integers from 0 to 1000";

/// What an action does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    /// `Press(coord, params)`.
    Press,
    /// `Pull(coord, params)`.
    Pull,
    /// `Push(coord, params)`.
    Push,
    /// `Rotate(coord, params)`.
    Rotate,
    /// `Grasp(coord, params)`.
    Grasp,
    /// `Timed_wait()`: let time pass.
    TimedWait,
    /// `Switch_view`, by a view's name or by a point.
    SwitchView,
}

impl ActionKind {
    /// Every action kind, in the order the random agent draws from.
    pub const ALL: [ActionKind; 7] = [
        ActionKind::Press,
        ActionKind::Pull,
        ActionKind::Push,
        ActionKind::Rotate,
        ActionKind::Grasp,
        ActionKind::TimedWait,
        ActionKind::SwitchView,
    ];

    /// The five physical actions, which act on a component at a point.
    pub const PHYSICAL: [ActionKind; 5] = [
        ActionKind::Press,
        ActionKind::Pull,
        ActionKind::Push,
        ActionKind::Rotate,
        ActionKind::Grasp,
    ];

    /// Whether the action acts on a component at a point.
    pub fn is_physical(self) -> bool {
        !matches!(self, ActionKind::TimedWait | ActionKind::SwitchView)
    }

    /// The name an SSM uses for it (`atomic_action`), lower case.
    pub fn atomic_name(self) -> &'static str {
        match self {
            ActionKind::Press => "press",
            ActionKind::Pull => "pull",
            ActionKind::Push => "push",
            ActionKind::Rotate => "rotate",
            ActionKind::Grasp => "grasp",
            ActionKind::TimedWait => "timed_wait",
            ActionKind::SwitchView => "switch_view",
        }
    }

    /// The name as written in an action: `Press`, `Timed_wait`, `Switch_view`.
    pub fn verb(self) -> &'static str {
        match self {
            ActionKind::Press => "Press",
            ActionKind::Pull => "Pull",
            ActionKind::Push => "Push",
            ActionKind::Rotate => "Rotate",
            ActionKind::Grasp => "Grasp",
            ActionKind::TimedWait => "Timed_wait",
            ActionKind::SwitchView => "Switch_view",
        }
    }

    /// Reads a verb in any case, ignoring `_`, `-` and spaces
    /// (`switch_view`, `SwitchView`, `Timed wait`).
    pub fn from_verb(verb: &str) -> Option<ActionKind> {
        let mut letters = verb
            .bytes()
            .filter(|b| !matches!(b, b'_' | b'-' | b' ' | b'\t'))
            .map(|b| b.to_ascii_lowercase());
        let mut key = [0u8; 10];
        let mut len = 0;
        for b in letters.by_ref() {
            if len == key.len() {
                return None;
            }
            key[len] = b;
            len += 1;
        }
        Some(match &key[..len] {
            b"press" => ActionKind::Press,
            b"pull" => ActionKind::Pull,
            b"push" => ActionKind::Push,
            b"rotate" => ActionKind::Rotate,
            b"grasp" => ActionKind::Grasp,
            b"timedwait" => ActionKind::TimedWait,
            b"switchview" => ActionKind::SwitchView,
            _ => return None,
        })
    }
}

/// A parsed action: `(type, coord, params)`. For `Switch_view` by name the
/// view's name is the single parameter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Action {
    /// What the action does.
    pub kind: ActionKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Where it acts, on the 0–1000 scale of the current view.
    pub coord: Option<ScaledPoint>,
    #[serde(default)]
    /// Its parameters, as written.
    pub params: Vec<String>,
}

impl Action {
    /// A physical action at a point.
    pub fn physical(kind: ActionKind, point: ScaledPoint, params: Vec<String>) -> Action {
        Action {
            kind,
            coord: Some(point),
            params,
        }
    }

    /// `Switch_view(params=[view])`.
    pub fn switch_to(view: &str) -> Action {
        Action {
            kind: ActionKind::SwitchView,
            coord: None,
            params: vec![view.to_string()],
        }
    }

    /// `Switch_view(coord=[x, y])`.
    pub fn switch_at(point: ScaledPoint) -> Action {
        Action {
            kind: ActionKind::SwitchView,
            coord: Some(point),
            params: Vec::new(),
        }
    }

    /// `Timed_wait()`.
    pub fn timed_wait() -> Action {
        Action {
            kind: ActionKind::TimedWait,
            coord: None,
            params: Vec::new(),
        }
    }

    /// The view a `Switch_view` by name asks for.
    pub fn view_name(&self) -> Option<&str> {
        match (self.kind, self.coord) {
            (ActionKind::SwitchView, None) => self.params.first().map(String::as_str),
            _ => None,
        }
    }
}

/// The canonical text form, which [`parse_action`] reads back unchanged
/// when the parameters are ones the form can carry: without brackets and
/// without an `Action:` marker (the parser stops at the first closing
/// bracket and reads after the last marker).
///
/// ```
/// use knoblab_core::sim::{parse_action, Action, ActionKind};
/// use knoblab_core::geom::ScaledPoint;
/// let a = Action::physical(ActionKind::Push, ScaledPoint { x: 780, y: 711 }, vec!["1".into()]);
/// assert_eq!(a.to_string(), "Push(coord=[780, 711], params=[1])");
/// assert_eq!(parse_action(&a.to_string()), Ok(a));
/// ```
impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.kind.verb())?;
        let mut first = true;
        if let Some(p) = self.coord {
            write!(f, "coord=[{}, {}]", p.x, p.y)?;
            first = false;
        }
        if !self.params.is_empty() {
            if !first {
                write!(f, ", ")?;
            }
            write!(f, "params=[{}]", self.params.join(", "))?;
        }
        write!(f, ")")
    }
}

/// Why an action text could not be read. Each message says what was found;
/// the notification adds the expected forms.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParseError {
    /// Nothing to read.
    #[error("the reply holds no action")]
    Empty,
    /// Not of the form `Verb(arguments)`.
    #[error("could not read an action in \"{found}\"")]
    NotAnAction {
        /// The text read.
        found: String,
    },
    /// A verb that is not one of the seven actions.
    #[error("\"{verb}\" is not an action; the actions are Press, Pull, Push, Rotate, Grasp, Timed_wait and Switch_view")]
    UnknownVerb {
        /// The verb written.
        verb: String,
    },
    /// A physical action without `coord=[x, y]`.
    #[error("{verb} needs a coordinate, coord=[x, y]")]
    MissingCoord {
        /// The verb written.
        verb: String,
    },
    /// A coordinate that is not two numbers.
    #[error("the coordinate \"{found}\" is not two numbers [x, y]")]
    BadCoord {
        /// The coordinate as written.
        found: String,
    },
    /// A coordinate off the 0–1000 scale.
    #[error("the coordinate [{x}, {y}] is outside 0–1000")]
    CoordOutOfRange {
        /// The x written.
        x: String,
        /// The y written.
        y: String,
    },
    /// Arguments that are neither `coord=` nor `params=`.
    #[error("could not read the arguments \"{found}\" of {verb}")]
    BadArguments {
        /// The verb.
        verb: String,
        /// The arguments as written.
        found: String,
    },
    /// `Timed_wait` with a coordinate or parameters.
    #[error("Timed_wait takes no coordinate and no parameters")]
    WaitTakesNoArguments,
    /// `Switch_view` with neither a view name nor a coordinate, or both,
    /// or several names.
    #[error("Switch_view needs exactly one of params=[view] (one view name) or coord=[x, y]")]
    SwitchNeedsOneTarget,
}

/// Where `text` starts with `word` (ASCII, matched in any case), the
/// byte offset after it.
pub fn starts_with_ignore_case(text: &str, at: usize, word: &str) -> Option<usize> {
    let end = at.checked_add(word.len())?;
    let candidate = text.as_bytes().get(at..end)?;
    candidate
        .eq_ignore_ascii_case(word.as_bytes())
        .then_some(end)
}

/// The byte offset after the whitespace (Unicode's, as a regex's `\s`)
/// that starts `text[at..]`.
pub fn skip_whitespace(text: &str, at: usize) -> usize {
    let rest = text.get(at..).unwrap_or("");
    at + (rest.len() - rest.trim_start().len())
}

/// The last `Action:` marker of a reply (`action` in any case, any
/// whitespace, a colon: the regex `(?i)action\s*:`), as the byte range it
/// covers. Markers cannot overlap, so the last one starts at the last
/// `action` that a marker follows.
fn last_marker(reply: &str) -> Option<(usize, usize)> {
    const WORD: &str = "action";
    let bytes = reply.as_bytes();
    (0..bytes.len().saturating_sub(WORD.len() - 1))
        .rev()
        // An ASCII letter is never inside a longer character: each
        // candidate start is a character boundary.
        .filter(|&at| bytes[at].eq_ignore_ascii_case(&b'a'))
        .find_map(|at| {
            let after = skip_whitespace(reply, starts_with_ignore_case(reply, at, WORD)?);
            (bytes.get(after) == Some(&b':')).then_some((at, after + 1))
        })
}

/// The action text of a reply: what follows its last `Action:` marker (on
/// that line, or the next non-empty one), else the reply's last non-empty
/// line; with surrounding backticks, asterisks, quotes and a trailing
/// period removed.
pub fn action_text(reply: &str) -> &str {
    let tail = match last_marker(reply) {
        Some((_, end)) => &reply[end..],
        None => reply,
    };
    let line = if tail.len() < reply.len() {
        tail.lines().map(str::trim).find(|l| !l.is_empty())
    } else {
        tail.lines().map(str::trim).rfind(|l| !l.is_empty())
    };
    let mut text = line.unwrap_or("");
    loop {
        let before = text.len();
        text = text.trim();
        text = text.trim_end_matches('.');
        text = text.trim_matches(|c| matches!(c, '`' | '*' | '"' | '\''));
        if text.len() == before {
            return text;
        }
    }
}

/// What a reply says before its action (the other half of [`action_text`]):
/// the text before its last `Action:` marker, or with no marker the text
/// before its last non-empty line. The model agent keeps it as reasoning.
///
/// ```
/// use knoblab_core::sim::action::reasoning_text;
/// assert_eq!(reasoning_text("Thought: the lid.\nAction: Timed_wait()"), "Thought: the lid.\n");
/// assert_eq!(reasoning_text("look\nTimed_wait()"), "look");
/// ```
pub fn reasoning_text(reply: &str) -> &str {
    match last_marker(reply) {
        Some((start, _)) => &reply[..start],
        None => reply
            .trim_end()
            .rsplit_once('\n')
            .map_or("", |(before, _)| before),
    }
}

/// Reads one action from a reply.
///
/// ```
/// use knoblab_core::sim::{parse_action, ActionKind};
/// let a = parse_action("I will boil it.\nAction: push(coord=(780, 711), params=['1']).").unwrap();
/// assert_eq!(a.kind, ActionKind::Push);
/// assert_eq!(a.params, vec!["1".to_string()]);
/// assert!(parse_action("Action: Click(coord=[1, 2])").is_err());
/// ```
pub fn parse_action(reply: &str) -> Result<Action, ParseError> {
    let text = action_text(reply);
    if text.is_empty() {
        return Err(ParseError::Empty);
    }
    let not_an_action = || ParseError::NotAnAction { found: clip(text) };
    // `Verb(arguments)`: the verb is letters, `_`, `-` and spaces.
    let (Some(open), true) = (text.find('('), text.ends_with(')')) else {
        return Err(not_an_action());
    };
    let verb = text[..open].trim();
    let args = &text[open + 1..text.len() - 1];
    let verb_ok = verb.starts_with(|c: char| c.is_ascii_alphabetic())
        && verb
            .chars()
            .all(|c| c.is_ascii_alphabetic() || matches!(c, '_' | '-' | ' '));
    if !verb_ok {
        return Err(not_an_action());
    }
    let Some(kind) = ActionKind::from_verb(verb) else {
        return Err(ParseError::UnknownVerb { verb: clip(verb) });
    };
    let arguments = read_arguments(args).map_err(|found| ParseError::BadArguments {
        verb: kind.verb().to_string(),
        found: clip(found.trim()),
    })?;
    let coord = arguments.coord.map(read_coord).transpose()?;
    let params = arguments.params.map(split_params).unwrap_or_default();

    match kind {
        ActionKind::TimedWait => {
            if coord.is_some() || !params.is_empty() {
                return Err(ParseError::WaitTakesNoArguments);
            }
            Ok(Action::timed_wait())
        }
        ActionKind::SwitchView => match (coord, params.len()) {
            (Some(p), 0) => Ok(Action::switch_at(p)),
            (None, 1) => Ok(Action::switch_to(&params[0])),
            _ => Err(ParseError::SwitchNeedsOneTarget),
        },
        _ => match coord {
            Some(p) => Ok(Action::physical(kind, p, params)),
            None => Err(ParseError::MissingCoord {
                verb: kind.verb().to_string(),
            }),
        },
    }
}

/// The `coord=` and `params=` of an argument list, as written.
#[derive(Debug, Default)]
struct Arguments<'a> {
    coord: Option<&'a str>,
    params: Option<&'a str>,
}

/// Reads `key=[...]` pairs (also `key: [...]` and round brackets),
/// separated by commas or spaces, keys in any case: `coord` (or `coords`,
/// `coordinate`, `coordinates`, `point`) and `params` (or `param`,
/// `parameters`). On anything else, returns the text it could not read.
fn read_arguments(args: &str) -> Result<Arguments<'_>, &str> {
    const COORD: [&str; 5] = ["coord", "coords", "coordinate", "coordinates", "point"];
    const PARAMS: [&str; 3] = ["params", "param", "parameters"];
    let mut out = Arguments::default();
    let mut rest = args;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        if rest.is_empty() {
            return Ok(out);
        }
        let key_end = rest
            .find(|c: char| !(c.is_ascii_alphabetic() || c == '_'))
            .unwrap_or(rest.len());
        let key = &rest[..key_end];
        let after = rest[key_end..].trim_start();
        let Some(after) = after.strip_prefix(['=', ':']) else {
            return Err(rest);
        };
        let after = after.trim_start();
        let close = match after.chars().next() {
            Some('[') => ']',
            Some('(') => ')',
            _ => return Err(rest),
        };
        let Some(end) = after.find(close) else {
            return Err(rest);
        };
        let value = &after[1..end];
        let slot = if COORD.iter().any(|k| k.eq_ignore_ascii_case(key)) {
            &mut out.coord
        } else if PARAMS.iter().any(|k| k.eq_ignore_ascii_case(key)) {
            &mut out.params
        } else {
            return Err(rest);
        };
        if slot.is_some() {
            return Err(rest);
        }
        *slot = Some(value);
        rest = &after[end + 1..];
    }
}

/// Parameters as written: numbers or quoted strings, separated by commas.
/// Spaces and quotes are trimmed together, so that a parameter read once
/// reads the same again (` ' " x'` is `x`, not `" x`).
fn split_params(text: &str) -> Vec<String> {
    text.split(',')
        .map(|p| p.trim_matches(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`')))
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}

/// Reads `x, y`: two numbers on the 0–1000 scale. A number with a fraction
/// is rounded to the nearest integer (models write `512.0`; the scale is
/// integer).
fn read_coord(text: &str) -> Result<ScaledPoint, ParseError> {
    let bad = || ParseError::BadCoord {
        found: clip(text.trim()),
    };
    let Some((x, y)) = text.split_once(',') else {
        return Err(bad());
    };
    let (x, y) = (x.trim(), y.trim());
    let (Some(xv), Some(yv)) = (read_number(x), read_number(y)) else {
        return Err(bad());
    };
    let on_scale = |v: f64| (0.0..=f64::from(SCALE_MAX)).contains(&v);
    let (xr, yr) = (xv.round(), yv.round());
    if !(on_scale(xr) && on_scale(yr)) {
        return Err(ParseError::CoordOutOfRange {
            x: clip(x),
            y: clip(y),
        });
    }
    Ok(ScaledPoint {
        x: xr as u32,
        y: yr as u32,
    })
}

fn read_number(text: &str) -> Option<f64> {
    let t = text.trim_matches(|c| matches!(c, '"' | '\'')).trim();
    let ok = !t.is_empty()
        && t.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+'));
    if !ok {
        return None;
    }
    t.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Quoted text in messages is kept short, whatever a model wrote.
fn clip(text: &str) -> String {
    const MAX: usize = 80;
    if text.chars().count() <= MAX {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(MAX).collect();
        s.push('…');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The marker as the regex it replaced finds it: the last match.
    fn marker_by_regex(reply: &str) -> Option<(usize, usize)> {
        let re = regex::Regex::new(r"(?i)action\s*:").unwrap();
        re.find_iter(reply).last().map(|m| (m.start(), m.end()))
    }

    #[test]
    fn the_marker_is_found_where_the_regex_finds_it() {
        for reply in [
            "",
            "action:",
            "Action :x",
            "ACTION\t\u{a0}\u{2003}:",
            "actionaction: a",
            "Action: Press(coord=[1, 2]) Action:",
            "acti on:",
            "é action:é",
            "xaction",
            "Actio",
            "action\u{200b}:",
            "Action:\nAction\n:",
        ] {
            assert_eq!(last_marker(reply), marker_by_regex(reply), "{reply:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn the_marker_reader_agrees_with_the_regex(reply in "(action|ACTION|Action|actio|a|[ \t\n\u{a0}\u{3000}]|:|x|é){0,16}") {
            proptest::prop_assert_eq!(last_marker(&reply), marker_by_regex(&reply));
        }
    }

    #[test]
    fn the_last_action_line_of_a_reply_is_read() {
        let reply =
            "Thought: first Action: Press(coord=[1, 1])\nAction: Pull(coord=[2, 3], params=[4])";
        let a = parse_action(reply).unwrap();
        assert_eq!(a.kind, ActionKind::Pull);
        assert_eq!(a.coord, Some(ScaledPoint { x: 2, y: 3 }));
    }

    #[test]
    fn an_action_on_the_line_after_the_marker_is_read() {
        let a = parse_action("Action:\n  Timed_wait()").unwrap();
        assert_eq!(a, Action::timed_wait());
    }

    #[test]
    fn display_round_trips() {
        for a in [
            Action::timed_wait(),
            Action::switch_to("right"),
            Action::switch_at(ScaledPoint { x: 0, y: 1000 }),
            Action::physical(ActionKind::Grasp, ScaledPoint { x: 5, y: 6 }, vec![]),
            Action::physical(
                ActionKind::Rotate,
                ScaledPoint { x: 5, y: 6 },
                vec!["0".into(), "2".into()],
            ),
        ] {
            assert_eq!(parse_action(&a.to_string()), Ok(a));
        }
    }
}

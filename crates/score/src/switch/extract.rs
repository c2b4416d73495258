//! MCQ answer extraction: from a model's raw reply to a set of option
//! letters, recording *which rule* found it.
//!
//! > Extract the choice from raw text the way a careful evaluator would: a
//! > bare letter; "Answer: B", "The answer is (B)", "B." at the start; a
//! > `\boxed{B}`; a JSON `{"answer": "B"}`; and, when no letter is found, an
//! > exact match of the option's text. Lists for multi-select: "A, C", "A
//! > and C", "AC", `["A","C"]`. Record *how* each answer was extracted, and
//! > mark unextractable ones as parse failures.
//!
//! The rules run in a fixed order and the first that finds something wins
//! (**Decision**, the spec gives no order): [`Rule::Json`],
//! [`Rule::Boxed`], [`Rule::AnswerPhrase`] (the *last* such phrase, so an
//! answer restated at the end after discussing other options wins),
//! [`Rule::Bare`], [`Rule::LastLine`], [`Rule::Leading`],
//! [`Rule::OptionText`]. Explicit markers come before positional guesses
//! because a reply that walks through "A. … B. …" and concludes "Answer: C"
//! must score C. A rule that finds letters outside the item's labels, or
//! several letters where one is asked, is a parse failure; it does not fall
//! through to a weaker rule.
//!
//! Markdown emphasis (`*`, `__`, backticks) is removed before matching.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use crate::pattern::Regex;
use serde::Serialize;
use serde_json::Value;

use super::markup::{answer_field, json_objects, last_boxed, regex};
use super::openqa::normalize_answer;

/// The version of these rules, carried by every report (a parser is
/// versioned so that scores can be compared across releases).
pub const EXTRACTOR_VERSION: &str = "switch-extract/1";

/// Which rule found the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// The prediction carried an `answer` field with letters.
    Provided,
    /// A JSON object with an `answer` key: `{"answer": "B"}`.
    Json,
    /// A LaTeX `\boxed{B}` (the last one).
    Boxed,
    /// "Answer: B", "The answer is (B)", "I'd go with B", "Option B is
    /// correct", "C is the most likely answer" (the last such phrase).
    AnswerPhrase,
    /// The whole reply is the letter or list: "B", "b.", "(B)", "A and C".
    Bare,
    /// The reply's closing line or sentence is the letter: "…\nTherefore, B."
    LastLine,
    /// "B." / "B)" / "(B)" at the very start followed by text, or a first
    /// line that is only the letter with the explanation below.
    Leading,
    /// No letter found; the reply is exactly an option's text.
    OptionText,
}

/// Why no answer could be extracted. Scored wrong and listed in the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum ParseFailure {
    /// The reply is empty or whitespace.
    Empty,
    /// No rule found a letter or an option's text.
    NoAnswer,
    /// Several letters where one is asked (single choice).
    MultipleLetters {
        /// The letters found.
        letters: String,
        /// The rule that found them.
        rule: Rule,
    },
    /// Letters that are not labels of this item.
    OutOfRange {
        /// The letters found.
        letters: String,
        /// The item's labels.
        valid: String,
        /// The rule that found them.
        rule: Rule,
    },
    /// The reply matches the text of more than one option.
    AmbiguousOptionText,
    /// A provided `answer` that is not a letter, a list of letters or text.
    InvalidAnswer {
        /// The `answer` as given.
        found: String,
    },
}

impl ParseFailure {
    /// A one-line explanation for tables.
    pub fn message(&self) -> String {
        match self {
            ParseFailure::Empty => "empty reply".into(),
            ParseFailure::NoAnswer => "no letter and no option text found".into(),
            ParseFailure::MultipleLetters { letters, .. } => {
                format!("{letters}: several letters where one is asked")
            }
            ParseFailure::OutOfRange { letters, valid, .. } => {
                format!("{letters}: not among the labels {valid}")
            }
            ParseFailure::AmbiguousOptionText => "matches the text of several options".into(),
            ParseFailure::InvalidAnswer { found } => format!("answer {found} is not a letter"),
        }
    }
}

/// A successful extraction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Extraction {
    /// The chosen letters (one for single choice).
    pub letters: BTreeSet<char>,
    /// The rule that found them.
    pub rule: Rule,
    /// The piece of the reply the rule matched.
    pub matched: String,
}

/// What extraction needs to know about a question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChoiceQuestion {
    /// Multi-select (a set is asked) or single choice (one letter).
    pub multi: bool,
    /// The valid labels.
    pub labels: BTreeSet<char>,
    /// Option texts by letter (media paths left out).
    pub options: BTreeMap<char, String>,
}

impl ChoiceQuestion {
    /// A single-choice question with labels A–D and no option texts.
    pub fn single() -> Self {
        ChoiceQuestion {
            multi: false,
            labels: ('A'..='D').collect(),
            options: BTreeMap::new(),
        }
    }

    /// A multi-select question with labels A–E and no option texts.
    pub fn multi() -> Self {
        ChoiceQuestion {
            multi: true,
            labels: ('A'..='E').collect(),
            options: BTreeMap::new(),
        }
    }
}

/// Extracts the chosen letters from a raw reply.
///
/// ```
/// use knoblab_score::switch::extract::{extract_choice, ChoiceQuestion, Rule};
/// let q = ChoiceQuestion::single();
/// let e = extract_choice("Let me think. Option A is wrong.\nThe answer is (B).", &q).unwrap();
/// assert_eq!(e.letters.iter().collect::<String>(), "B");
/// assert_eq!(e.rule, Rule::AnswerPhrase);
/// ```
pub fn extract_choice(reply: &str, question: &ChoiceQuestion) -> Result<Extraction, ParseFailure> {
    let text = clean(reply);
    if text.trim().is_empty() {
        return Err(ParseFailure::Empty);
    }
    let rules: [(Rule, RuleFn); 7] = [
        (Rule::Json, json_rule),
        (Rule::Boxed, boxed_rule),
        (Rule::AnswerPhrase, phrase_rule),
        (Rule::Bare, bare_rule),
        (Rule::LastLine, last_line_rule),
        (Rule::Leading, leading_rule),
        (Rule::OptionText, |t, q| option_text_candidate(t, q)),
    ];
    for (rule, find) in rules {
        if let Some(candidate) = find(&text, question) {
            return validate(candidate, rule, question);
        }
    }
    Err(ParseFailure::NoAnswer)
}

/// Extracts the letters from an `answer` field given by the prediction file:
/// a letter, a list of letters, or a string (run through [`extract_choice`]).
pub fn extract_from_answer(
    answer: &Value,
    question: &ChoiceQuestion,
) -> Result<Extraction, ParseFailure> {
    match answer {
        Value::String(s) => match letter_list(s, true) {
            Some(letters) => validate(
                Candidate {
                    letters,
                    matched: s.clone(),
                },
                Rule::Provided,
                question,
            ),
            None => extract_choice(s, question),
        },
        Value::Array(items) => {
            let mut letters = Vec::new();
            for item in items {
                match item.as_str().and_then(|s| letter_list(s, true)) {
                    Some(mut l) => letters.append(&mut l),
                    None => {
                        return Err(ParseFailure::InvalidAnswer {
                            found: answer.to_string(),
                        })
                    }
                }
            }
            if letters.is_empty() {
                return Err(ParseFailure::Empty);
            }
            validate(
                Candidate {
                    letters,
                    matched: answer.to_string(),
                },
                Rule::Provided,
                question,
            )
        }
        other => Err(ParseFailure::InvalidAnswer {
            found: other.to_string(),
        }),
    }
}

/// One extraction rule: the letters it finds in cleaned text, if any.
type RuleFn = fn(&str, &ChoiceQuestion) -> Option<Candidate>;

/// Letters a rule found (not yet checked against the labels) and where.
struct Candidate {
    letters: Vec<char>,
    matched: String,
}

fn validate(
    candidate: Candidate,
    rule: Rule,
    question: &ChoiceQuestion,
) -> Result<Extraction, ParseFailure> {
    let letters: BTreeSet<char> = candidate
        .letters
        .iter()
        .map(|c| c.to_ascii_uppercase())
        .collect();
    let listed: String = letters.iter().collect();
    // "Invalid, empty or unmappable answers score 0": an empty list
    // (`{"answer": []}`) is no answer, listed as such, not an empty choice.
    if letters.is_empty() {
        return Err(ParseFailure::NoAnswer);
    }
    if letters.iter().any(|c| !question.labels.contains(c)) {
        return Err(ParseFailure::OutOfRange {
            letters: listed,
            valid: question.labels.iter().collect(),
            rule,
        });
    }
    if !question.multi && letters.len() > 1 && rule == Rule::OptionText {
        return Err(ParseFailure::AmbiguousOptionText);
    }
    if !question.multi && letters.len() > 1 {
        return Err(ParseFailure::MultipleLetters {
            letters: listed,
            rule,
        });
    }
    Ok(Extraction {
        letters,
        rule,
        matched: candidate.matched.trim().to_string(),
    })
}

/// Removes markdown emphasis and code marks, which models scatter around answers.
fn clean(reply: &str) -> String {
    reply
        .replace("**", "")
        .replace("__", "")
        .replace(['*', '`'], "")
        .replace('\u{ff1a}', ":")
}

/// Words that may surround letters in a bare answer without changing it.
const FILLER: [&str; 30] = [
    "option",
    "options",
    "choice",
    "choices",
    "answer",
    "answers",
    "final",
    "the",
    "is",
    "are",
    "and",
    "or",
    "both",
    "so",
    "therefore",
    "thus",
    "hence",
    "my",
    "correct",
    "letter",
    "letters",
    "select",
    "it",
    "i",
    "think",
    "choose",
    "pick",
    "would",
    "be",
    "should",
];

/// Reads a piece of text that is nothing but letters, separators and filler
/// words: "B", "(b).", "A, C", "A and C", "Option B", "AC" (concatenated
/// letters only in upper case, so that "bad" is not read as B, A, D).
/// Lower-case letters count only when `allow_lower`.
pub(crate) fn letter_list(text: &str, allow_lower: bool) -> Option<Vec<char>> {
    let trimmed = text.trim().trim_matches(|c: char| !c.is_alphanumeric());
    if trimmed.is_empty() {
        return None;
    }
    if (2..=5).contains(&trimmed.len()) && trimmed.chars().all(|c| c.is_ascii_uppercase()) {
        let letters: Vec<char> = trimmed.chars().collect();
        let distinct: BTreeSet<&char> = letters.iter().collect();
        if distinct.len() == letters.len() {
            return Some(letters);
        }
    }
    let mut letters = Vec::new();
    for token in trimmed.split(|c: char| c.is_whitespace() || ",;/&+:".contains(c)) {
        let token = token.trim_matches(|c: char| !c.is_alphanumeric());
        if token.is_empty() || FILLER.contains(&token.to_ascii_lowercase().as_str()) {
            continue;
        }
        let mut chars = token.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None)
                if c.is_ascii_uppercase() || (allow_lower && c.is_ascii_lowercase()) =>
            {
                letters.push(c.to_ascii_uppercase())
            }
            _ => return None,
        }
    }
    (!letters.is_empty()).then_some(letters)
}

fn json_rule(text: &str, question: &ChoiceQuestion) -> Option<Candidate> {
    let objects = json_objects(text);
    let value = objects.iter().rev().find_map(answer_field)?;
    let matched = value.to_string();
    let letters = match value {
        Value::String(s) => letter_list(s, true)
            .or_else(|| option_text_candidate(s, question).map(|c| c.letters))?,
        Value::Array(a) => a
            .iter()
            .map(|x| x.as_str().and_then(|s| letter_list(s, true)))
            .collect::<Option<Vec<Vec<char>>>>()?
            .concat(),
        _ => return None,
    };
    Some(Candidate { letters, matched })
}

fn boxed_rule(text: &str, question: &ChoiceQuestion) -> Option<Candidate> {
    let content = last_boxed(text)?;
    let letters = letter_list(&content, true)
        .or_else(|| option_text_candidate(&content, question).map(|c| c.letters))?;
    Some(Candidate {
        letters,
        matched: format!("\\boxed{{{content}}}"),
    })
}

/// A list of letters inside prose; each letter must end a word so that
/// "the" never yields a "t".
const PROSE_LIST: &str =
    r"\(?[A-Za-z]\b\)?(?:\s*(?:,\s*and|,|;|/|&|\band\b|\bor\b)\s*\(?[A-Za-z]\b\)?)*";

/// A list of upper-case letters, for phrases where the letter comes first
/// (a lower-case "a" there is an article).
const UPPER_LIST: &str = r"\(?[A-Z]\b\)?(?:\s*(?:,\s*and|,|&|\band\b)\s*\(?[A-Z]\b\)?)*";

static PHRASES: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    vec![
        regex(&format!(
            r"(?i:\b(?:final\s+answer|correct\s+answer|best\s+answer|correct\s+response|answers?|correct\s+(?:options?|choices?)|(?:options?|choices?)\s+(?:is|are))\b\s*(?:is|are|would\s+be|should\s+be|must\s+be|=)?\s*(?:likely|probably|clearly)?\s*[:\-]?\s*(?:options?|choices?)?\s*:?\s*)({PROSE_LIST})"
        )),
        regex(&format!(
            r"(?i:\bI(?:'d|\s+would|\s+will)?\s+(?:choose|pick|select|go\s+with)\s+(?:options?\s+|choices?\s+)?)({PROSE_LIST})"
        )),
        regex(&format!(
            r"(?:(?i:options?|choices?)\s+)?({UPPER_LIST})\s+(?i:is|are)\s+(?i:the\s+)?(?i:correct|right|best)\b"
        )),
        // "C is the most likely answer", "B is the correct option".
        regex(&format!(
            r"(?:(?i:options?|choices?)\s+)?({UPPER_LIST})\s+(?i:is|are)\s+(?i:the\s+)?(?i:(?:(?:most\s+)?(?:likely|correct|right|best|final)\s+)?answer|(?:most\s+)?(?:likely|correct|right|best|final)\s+(?:option|choice))\b"
        )),
    ]
});

fn phrase_rule(text: &str, _question: &ChoiceQuestion) -> Option<Candidate> {
    let mut best: Option<(usize, Candidate)> = None;
    for pattern in PHRASES.iter() {
        for caps in pattern.captures_iter(text) {
            let (Some(whole), Some(list)) = (caps.get(0), caps.get(1)) else {
                continue;
            };
            let Some(letters) = letter_list(list.as_str(), true) else {
                continue;
            };
            // A lower-case letter counts only where a word cannot go on:
            // "the answer is b." yes, "to answer a question" no.
            let has_lower = list.as_str().chars().any(|c| c.is_ascii_lowercase());
            if has_lower {
                let rest = text.get(list.end()..).unwrap_or("");
                let next = rest.trim_start_matches([' ', '\t']).chars().next();
                if next.is_some_and(|c| c.is_alphanumeric()) {
                    continue;
                }
            }
            if best.as_ref().is_none_or(|(at, _)| whole.start() >= *at) {
                best = Some((
                    whole.start(),
                    Candidate {
                        letters,
                        matched: whole.as_str().to_string(),
                    },
                ));
            }
        }
    }
    best.map(|(_, c)| c)
}

fn bare_rule(text: &str, _question: &ChoiceQuestion) -> Option<Candidate> {
    let letters = letter_list(text, true)?;
    Some(Candidate {
        letters,
        matched: text.to_string(),
    })
}

fn last_line_rule(text: &str, _question: &ChoiceQuestion) -> Option<Candidate> {
    let line = text.lines().rev().find(|l| !l.trim().is_empty())?;
    let last_sentence = line
        .split_inclusive([',', '.', '!', '?', ':', ';'])
        .rfind(|s| !s.trim_matches(|c: char| !c.is_alphanumeric()).is_empty())
        .unwrap_or(line);
    for piece in [line, last_sentence] {
        if let Some(letters) = letter_list(piece, false) {
            return Some(Candidate {
                letters,
                matched: piece.to_string(),
            });
        }
    }
    None
}

static LEADING: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"^\s*\(?([A-Z]\b(?:\s*(?:,|&|\band\b)\s*[A-Z]\b)*)(?:\)\s*[.:\-]?|[.:\]]|\s+[-–])(?:\s|$)",
    )
});
static OPTION_LINE: LazyLock<Regex> = LazyLock::new(|| regex(r"(?m)^\s*\(?([A-Z])[.):]\s"));

fn leading_rule(text: &str, _question: &ChoiceQuestion) -> Option<Candidate> {
    // A reply that walks through the options line by line ("A. … B. …")
    // does not answer by its first line.
    let enumerated: BTreeSet<&str> = OPTION_LINE
        .captures_iter(text)
        .filter_map(|c| c.get(1).map(|m| m.as_str()))
        .collect();
    if enumerated.len() > 1 {
        return None;
    }
    // The first line alone is the letter, the explanation follows below.
    let first = text.lines().find(|l| !l.trim().is_empty())?;
    if text.trim() != first.trim() {
        if let Some(letters) = letter_list(first, false) {
            return Some(Candidate {
                letters,
                matched: first.to_string(),
            });
        }
    }
    let caps = LEADING.captures(text)?;
    let list = caps.get(1)?;
    Some(Candidate {
        letters: letter_list(list.as_str(), false)?,
        matched: caps.get(0)?.as_str().to_string(),
    })
}

/// > when no letter is found, an exact match of the option's text.
///
/// Compared after SQuAD normalisation. **Decision:** for multi-select, a
/// reply whose parts (split on new lines, `;`, `,` and " and ") each match an
/// option exactly also counts.
fn option_text_candidate(text: &str, question: &ChoiceQuestion) -> Option<Candidate> {
    let texts: Vec<(char, String)> = question
        .options
        .iter()
        .filter(|(_, t)| super::dataset::Item::option_is_text(t))
        .map(|(l, t)| (*l, normalize_answer(t)))
        .filter(|(_, t)| !t.is_empty())
        .collect();
    if texts.is_empty() {
        return None;
    }
    let find = |piece: &str| -> Vec<char> {
        let n = normalize_answer(piece);
        texts
            .iter()
            .filter(|(_, t)| *t == n)
            .map(|(l, _)| *l)
            .collect()
    };
    let whole = find(text);
    if !whole.is_empty() {
        return Some(Candidate {
            letters: whole,
            matched: text.to_string(),
        });
    }
    if question.multi {
        let parts: Vec<&str> = text
            .split(['\n', ';', ','])
            .flat_map(|p| p.split(" and "))
            .filter(|p| !p.trim().is_empty())
            .collect();
        let mut letters = Vec::new();
        for part in &parts {
            let found = find(part);
            if found.len() != 1 {
                return None;
            }
            letters.extend(found);
        }
        if !letters.is_empty() {
            return Some(Candidate {
                letters,
                matched: text.to_string(),
            });
        }
    }
    None
}

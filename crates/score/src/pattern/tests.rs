//! `pattern::Regex` finds what `regex::Regex` finds: every group of every
//! match, matches from an offset, replacements, on random replies built
//! from the characters the scorers' patterns look at, and on a haystack too
//! long for the backtracker (the PikeVM's path).

use super::{Captures, Regex};
use proptest::prelude::*;

/// Patterns of the scorers (EPIC-Bench's reply reader, SWITCH's answer
/// readers and judge, FineState-Bench's corrected parser's shapes) and the
/// constructs they use: lazy and greedy repetition, alternation, optional
/// groups, Unicode classes, case folding, multi-line and dot-all modes, word
/// boundaries, empty matches.
const PATTERNS: &[&str] = &[
    r"(?s)<think>.*?</think>",
    r"(?s)```(?:json|python)?\s*\n?(.*?)\n?```",
    r"(?s)```(?:[A-Za-z0-9_+-]+)?\s*\n?(.*?)\n?```",
    r"\(([^()]*)\)",
    r#"(?s)("points"\s*:\s*\[)(.*?)(\]\s*[,}])"#,
    r"\\boxed\s*\{((?:[^{}]|\{[^{}]*\})*)\}",
    r"\\(?:text|textbf|mathrm|mathbf)\s*\{([^{}]*)\}",
    r"-?\d+(?:\.\d+)?",
    r"(?im)^\s*(?:final\s+)?answer\s*[:：]\s*(.+)$",
    r"(?m)^\s*\(?([A-Z])[.):]\s",
    r"(?i)\b(?:options?|choices?|choose\s+from|select\s+from)\b",
    r"\bA\s*/\s*B\b|\bA,\s*B,\s*C\b|\([A-D]\)|\bA-D\b",
    r"^\s*\(?([A-Z]\b(?:\s*(?:,|&|\band\b)\s*[A-Z]\b)*)(?:\)\s*[.:\-]?|[.:\]]|\s+[-–])(?:\s|$)",
    r"(?i)at the ([\p{L}\p{N}_]+)\s*([\p{L}\p{N}_]+)",
    r"(?i)coordinates\s*[:：]\s*[\[(]?\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*[\])]?",
    r"(a)?(b)?",
    r"",
    r"\w*",
];

/// The characters the replies are made of.
const ALPHABET: &[&str] = &[
    "a",
    "b",
    "A",
    "B",
    "C",
    "D",
    "x",
    " ",
    "\n",
    "\t",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ";",
    ":",
    "：",
    "/",
    "&",
    "-",
    "–",
    ".",
    "0",
    "7",
    "3.5",
    "１",
    "é",
    "中",
    "`",
    "```",
    "json",
    "<think>",
    "</think>",
    "\"points\"",
    "\\boxed",
    "\\text",
    "answer",
    "Answer",
    "final",
    "option",
    "Choices",
    "and",
    "or",
    "at the",
    "coordinates",
    "upper",
    "left",
];

fn reply() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(ALPHABET), 0..40)
        .prop_map(|parts| parts.concat())
}

/// Every group's span of every match, as `regex` gives them.
fn regex_groups(re: &regex::Regex, hay: &str) -> Vec<Vec<Option<(usize, usize)>>> {
    re.captures_iter(hay)
        .map(|c| {
            (0..c.len())
                .map(|i| c.get(i).map(|m| (m.start(), m.end())))
                .collect()
        })
        .collect()
}

/// The same, from `pattern::Regex`.
fn our_groups(re: &Regex, hay: &str, groups: usize) -> Vec<Vec<Option<(usize, usize)>>> {
    re.captures_iter(hay)
        .map(|c| {
            (0..groups)
                .map(|i| c.get(i).map(|m| (m.start(), m.end())))
                .collect()
        })
        .collect()
}

fn both(pattern: &str) -> (Regex, regex::Regex) {
    let ours = Regex::new(pattern).unwrap_or_else(|e| panic!("{pattern}: {e}"));
    let theirs = regex::RegexBuilder::new(pattern)
        .size_limit(1 << 24)
        .build()
        .unwrap_or_else(|e| panic!("{pattern}: {e}"));
    (ours, theirs)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_match_and_group_is_regexs(hay in reply(), start in 0usize..200) {
        for pattern in PATTERNS {
            let (ours, theirs) = both(pattern);
            let groups = theirs.captures_len();
            prop_assert_eq!(our_groups(&ours, &hay, groups), regex_groups(&theirs, &hay), "{}", pattern);
            prop_assert_eq!(ours.is_match(&hay), theirs.is_match(&hay), "{}", pattern);
            let from = (0..=start.min(hay.len())).rev().find(|&i| hay.is_char_boundary(i)).unwrap_or(0);
            prop_assert_eq!(
                ours.find_at(&hay, from).map(|m| (m.start(), m.end(), m.as_str())),
                theirs.find_at(&hay, from).map(|m| (m.start(), m.end(), m.as_str())),
                "{} from {}", pattern, from
            );
            prop_assert_eq!(
                ours.find_iter(&hay).map(|m| m.as_str()).collect::<Vec<_>>(),
                theirs.find_iter(&hay).map(|m| m.as_str()).collect::<Vec<_>>(),
                "{}", pattern
            );
            prop_assert_eq!(ours.replace_all(&hay, "[$1]"), theirs.replace_all(&hay, "[$1]"), "{}", pattern);
            let ours_fn = ours.replace_all(&hay, |c: &Captures<'_>| format!("<{}>", c.get(0).map_or("", |m| m.as_str())));
            let theirs_fn = theirs.replace_all(&hay, |c: &regex::Captures<'_>| format!("<{}>", c.get(0).map_or("", |m| m.as_str())));
            prop_assert_eq!(ours_fn, theirs_fn, "{}", pattern);
        }
    }
}

#[test]
fn a_haystack_too_long_for_the_backtracker_is_searched_by_the_pikevm() {
    let pattern = r"(?i)at the ([\p{L}\p{N}_]+)\s*([\p{L}\p{N}_]+)";
    let (ours, theirs) = both(pattern);
    let hay = format!(
        "{} at the upper\u{a0}left, and at the LOWER Right",
        "word é 中 ".repeat(40_000)
    );
    assert!(
        hay.len() > ours.backtrack.max_haystack_len(),
        "{} bytes is within the backtracker's bound",
        hay.len()
    );
    let groups = theirs.captures_len();
    let found = our_groups(&ours, &hay, groups);
    assert_eq!(found.len(), 2);
    assert_eq!(found, regex_groups(&theirs, &hay));
}

#[test]
fn nothing_replaced_borrows_the_haystack_and_a_bad_pattern_says_why() {
    let re = Regex::new(r"\d+").expect("compiles");
    assert!(matches!(
        re.replace_all("no digits", "#"),
        std::borrow::Cow::Borrowed("no digits")
    ));
    assert_eq!(re.replace_all("a1b22c", "#"), "a#b#c");
    assert_eq!(
        re.find_at("a1", 3),
        None,
        "past the end: no match, no panic"
    );
    let error = Regex::new(r"(unclosed").expect_err("an unclosed group is refused");
    assert!(error.to_string().contains("unclosed"), "{error}");
}

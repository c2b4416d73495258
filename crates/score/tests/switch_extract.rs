//! MCQ extraction on replies as real models write them, one case per habit.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;

use knoblab_score::switch::extract::{
    extract_choice, extract_from_answer, ChoiceQuestion, ParseFailure, Rule,
};
use serde_json::json;

fn single_with_options() -> ChoiceQuestion {
    let options: BTreeMap<char, String> = [
        ('A', "Turn on the light"),
        ('B', "Start the microwave"),
        ('C', "Open the fridge"),
        ('D', "Call the elevator"),
    ]
    .into_iter()
    .map(|(l, t)| (l, t.to_string()))
    .collect();
    ChoiceQuestion {
        options,
        ..ChoiceQuestion::single()
    }
}

fn multi_with_options() -> ChoiceQuestion {
    let options: BTreeMap<char, String> = [
        ('A', "Reach floor 3"),
        ('B', "Open the door"),
        ('C', "Go up"),
        ('D', "Go down"),
        ('E', "Ring the alarm"),
    ]
    .into_iter()
    .map(|(l, t)| (l, t.to_string()))
    .collect();
    ChoiceQuestion {
        options,
        ..ChoiceQuestion::multi()
    }
}

#[track_caller]
fn found(reply: &str, q: &ChoiceQuestion, letters: &str, rule: Rule) {
    match extract_choice(reply, q) {
        Ok(e) => {
            assert_eq!(
                e.letters.iter().collect::<String>(),
                letters,
                "reply {reply:?}"
            );
            assert_eq!(e.rule, rule, "reply {reply:?}");
        }
        Err(f) => panic!("reply {reply:?}: expected {letters} by {rule:?}, failed: {f:?}"),
    }
}

#[track_caller]
fn fails(reply: &str, q: &ChoiceQuestion) -> ParseFailure {
    match extract_choice(reply, q) {
        Ok(e) => panic!("reply {reply:?}: expected a failure, got {e:?}"),
        Err(f) => f,
    }
}

#[test]
fn a_bare_letter_in_any_dress() {
    let q = ChoiceQuestion::single();
    found("B", &q, "B", Rule::Bare);
    found("b", &q, "B", Rule::Bare);
    found("  (B)  ", &q, "B", Rule::Bare);
    found("B.", &q, "B", Rule::Bare);
    found("**B**", &q, "B", Rule::Bare);
    found("**C**.", &q, "C", Rule::Bare);
    found("Option B", &q, "B", Rule::Bare);
    found("`D`!", &q, "D", Rule::Bare);
}

#[test]
fn answer_phrases() {
    let q = ChoiceQuestion::single();
    found("Answer: B", &q, "B", Rule::AnswerPhrase);
    found("The answer is (B).", &q, "B", Rule::AnswerPhrase);
    found("The correct answer is: **C**", &q, "C", Rule::AnswerPhrase);
    found("Final Answer: D", &q, "D", Rule::AnswerPhrase);
    found("the answer is b.", &q, "B", Rule::AnswerPhrase);
    found(
        "I would choose option A because it is lit.",
        &q,
        "A",
        Rule::AnswerPhrase,
    );
    found("Option C is correct.", &q, "C", Rule::AnswerPhrase);
    found(
        "答案：B".replace("答案", "Answer").as_str(),
        &q,
        "B",
        Rule::AnswerPhrase,
    );
}

#[test]
fn verbose_reasoning_before_the_letter() {
    let q = ChoiceQuestion::single();
    let reply = "Let's analyze the image. The panel shows a timer display and a start key. \
                 The user has just set the time, so the next step is to start it.\n\nThe answer is B";
    found(reply, &q, "B", Rule::AnswerPhrase);
    // VLMEvalKit PR#1552: "The correct answer is B…" inside a long reply.
    found(
        "The correct answer is B, because the arrow points up.",
        &q,
        "B",
        Rule::AnswerPhrase,
    );
}

#[test]
fn the_answer_restated_at_the_end_after_discussing_other_options_wins() {
    let q = ChoiceQuestion::single();
    let reply = "A. Turn on the light: no, the light is already on.\n\
                 B. Start the microwave: possible, but the door is open.\n\
                 C. Open the fridge: the hand reaches for the fridge handle.\n\
                 Answer: C";
    found(reply, &q, "C", Rule::AnswerPhrase);
    let reply = "Option A is tempting because the light blinks, but option B ignores the lock. \
                 Looking again at the final frame, D is correct.";
    found(reply, &q, "D", Rule::AnswerPhrase);
    // The last phrase wins over an earlier one.
    found(
        "At first the answer seemed to be A. On reflection, the answer is D.",
        &q,
        "D",
        Rule::AnswerPhrase,
    );
    // A closing line with only the letter.
    found(
        "The left key is the timer and the right key starts it.\nTherefore, B.",
        &q,
        "B",
        Rule::LastLine,
    );
}

#[test]
fn short_sentences_around_the_letter() {
    let q = ChoiceQuestion::single();
    found("It is B.", &q, "B", Rule::Bare);
    found("I think B", &q, "B", Rule::Bare);
    found("I think B is the right one.", &q, "B", Rule::AnswerPhrase);
    found(
        "The answer is A because the light is on.",
        &q,
        "A",
        Rule::AnswerPhrase,
    );
    found("A: the light key", &q, "A", Rule::Leading);
    let m = ChoiceQuestion::multi();
    found("Both B and D are correct.", &m, "BD", Rule::Bare);
}

#[test]
fn more_phrasings_seen_in_model_output() {
    let q = ChoiceQuestion::single();
    found("I'd go with B.", &q, "B", Rule::AnswerPhrase);
    found("Correct option: (C)", &q, "C", Rule::AnswerPhrase);
    found("The best option is C.", &q, "C", Rule::AnswerPhrase);
    found("C is the most likely answer.", &q, "C", Rule::AnswerPhrase);
    found("The correct response is D", &q, "D", Rule::AnswerPhrase);
    found("ANSWER: b", &q, "B", Rule::AnswerPhrase);
    found("Answer - B", &q, "B", Rule::AnswerPhrase);
    found("**Answer: C** – the fridge.", &q, "C", Rule::AnswerPhrase);
    found("answer：C", &q, "C", Rule::AnswerPhrase);
    found("My final choice: B", &q, "B", Rule::Bare);
    found("So the final answer is $B$.", &q, "B", Rule::Bare);
    found(
        "Based on the video, the elevator is going up, so (B).",
        &q,
        "B",
        Rule::LastLine,
    );
    found("B\n\nExplanation: the door opens.", &q, "B", Rule::Leading);
}

#[test]
fn a_boxed_letter() {
    let q = ChoiceQuestion::single();
    found("So we get $\\boxed{B}$.", &q, "B", Rule::Boxed);
    found("\\boxed{\\text{C}}", &q, "C", Rule::Boxed);
    found(
        "First \\boxed{A}, no wait: \\boxed{D}",
        &q,
        "D",
        Rule::Boxed,
    );
}

#[test]
fn a_json_answer() {
    let q = ChoiceQuestion::single();
    found("{\"answer\": \"B\"}", &q, "B", Rule::Json);
    found(
        "```json\n{\"reasoning\": \"the light\", \"answer\": \"a\"}\n```",
        &q,
        "A",
        Rule::Json,
    );
    found(
        "Here you go: {\"Answer\": \"(C)\"} hope it helps",
        &q,
        "C",
        Rule::Json,
    );
}

#[test]
fn a_letter_at_the_start() {
    let q = ChoiceQuestion::single();
    found(
        "B. The microwave is started by the round key.",
        &q,
        "B",
        Rule::Leading,
    );
    found("(C) because the fridge door moves", &q, "C", Rule::Leading);
    found("D) Call the elevator", &q, "D", Rule::Leading);
}

#[test]
fn option_text_only() {
    let q = single_with_options();
    found("Start the microwave", &q, "B", Rule::OptionText);
    found("start the microwave.", &q, "B", Rule::OptionText);
    let m = multi_with_options();
    found("Reach floor 3, Go up", &m, "AC", Rule::OptionText);
}

#[test]
fn multi_select_lists() {
    let q = ChoiceQuestion::multi();
    found("A, C", &q, "AC", Rule::Bare);
    found("A and C", &q, "AC", Rule::Bare);
    found("B and D", &q, "BD", Rule::Bare);
    found("AC", &q, "AC", Rule::Bare);
    found("[\"A\",\"C\"]", &q, "AC", Rule::Bare);
    found("{\"answer\": [\"A\", \"C\", \"E\"]}", &q, "ACE", Rule::Json);
    found(
        "The answers are A, C, and E.",
        &q,
        "ACE",
        Rule::AnswerPhrase,
    );
    found("\\boxed{A, D}", &q, "AD", Rule::Boxed);
}

#[test]
fn two_letters_where_one_is_asked_fail() {
    let q = ChoiceQuestion::single();
    let f = fails("A, B", &q);
    assert!(matches!(f, ParseFailure::MultipleLetters { ref letters, .. } if letters == "AB"));
    let f = fails("The answer is A or C.", &q);
    assert!(matches!(f, ParseFailure::MultipleLetters { .. }), "{f:?}");
    let f = fails("B and D", &q);
    assert!(matches!(f, ParseFailure::MultipleLetters { .. }), "{f:?}");
}

#[test]
fn answers_that_must_fail() {
    let q = ChoiceQuestion::single();
    assert_eq!(fails("", &q), ParseFailure::Empty);
    assert_eq!(fails("   \n ", &q), ParseFailure::Empty);
    assert_eq!(
        fails("I cannot tell from the video.", &q),
        ParseFailure::NoAnswer
    );
    assert_eq!(
        fails("A button on the left is lit.", &q),
        ParseFailure::NoAnswer
    );
    // An article is not an answer.
    assert_eq!(
        fails("To answer a question like this we need more frames.", &q),
        ParseFailure::NoAnswer
    );
    // "bad" is a word, not the letters B, A, D.
    assert_eq!(fails("bad", &q), ParseFailure::NoAnswer);
    assert!(matches!(
        fails("The answer is E.", &q),
        ParseFailure::OutOfRange { .. }
    ));
    assert!(matches!(
        fails("\\boxed{F}", &ChoiceQuestion::multi()),
        ParseFailure::OutOfRange { .. }
    ));
}

#[test]
fn given_answers() {
    let q = ChoiceQuestion::multi();
    let e = extract_from_answer(&json!(["C", "a"]), &q).unwrap();
    assert_eq!(
        (e.letters.iter().collect::<String>(), e.rule),
        ("AC".to_string(), Rule::Provided)
    );
    let e = extract_from_answer(&json!("b"), &ChoiceQuestion::single()).unwrap();
    assert_eq!(e.rule, Rule::Provided);
    // A short given answer with filler words is still read as given.
    let e = extract_from_answer(&json!("The answer is (D)"), &ChoiceQuestion::single()).unwrap();
    assert_eq!(e.rule, Rule::Provided);
    // A given answer that is prose goes through the reply rules.
    let e = extract_from_answer(
        &json!("I would choose D because it is lit"),
        &ChoiceQuestion::single(),
    )
    .unwrap();
    assert_eq!(
        (e.letters.iter().collect::<String>(), e.rule),
        ("D".to_string(), Rule::AnswerPhrase)
    );
    assert!(matches!(
        extract_from_answer(&json!(3), &q),
        Err(ParseFailure::InvalidAnswer { .. })
    ));
    assert!(matches!(
        extract_from_answer(&json!(["A", 2]), &q),
        Err(ParseFailure::InvalidAnswer { .. })
    ));
}

//! SWITCH rules one at a time: OpenQA normalisation and scores, the judge
//! protocol (request, reply parsing, contamination, retry), and the video
//! judge table. Expected values are worked out by hand in the comments.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

use knoblab_score::switch::judge::{
    build_request, build_retry_request, contamination_of, next_step, outcome, parse_reply,
    AnswerMatch, JudgeCase, JudgeOutcome, JudgeStep, ReplyError, REQUIRED_FIELDS,
};
use knoblab_score::switch::openqa::{
    exact_match, normalize_answer, open_text, score_structured, score_text, token_f1, OpenRule,
};
use knoblab_score::switch::score_videos;
use serde_json::{json, Value};

#[track_caller]
fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-12, "{a} != {b}");
}

#[test]
fn squad_normalisation() {
    assert_eq!(
        normalize_answer("The Red  button, pressed!"),
        "red button pressed"
    );
    assert_eq!(normalize_answer("An LED — a light"), "led — light");
    assert_eq!(normalize_answer("  "), "");
}

#[test]
fn exact_match_and_token_f1() {
    assert_eq!(exact_match("the Door opens.", "door opens"), 1.0);
    // [door opens slowly] vs [door opens]: common 2, P = 2/3, R = 1, F1 = 2·(2/3)/(5/3) = 4/5.
    close(token_f1("door opens slowly", "door opens"), 0.8);
    // Repeated tokens count once each: [on on] vs [on]: common 1, P = 1/2, R = 1, F1 = 2/3.
    close(token_f1("on on", "on"), 2.0 / 3.0);
    // Articles only normalise to nothing: both empty → 1; one empty → 0.
    assert_eq!(token_f1("the", "a"), 1.0);
    assert_eq!(token_f1("the", "door"), 0.0);
}

#[test]
fn numbers_compare_as_numbers() {
    let s = score_text("It must be pressed 3 times", "3");
    assert_eq!((s.em, s.f1), (1.0, 1.0));
    let s = score_text("three", "3.0");
    assert_eq!((s.em, s.f1), (1.0, 1.0));
    let s = score_text("4", "3");
    assert_eq!((s.em, s.f1), (0.0, 0.0));
    // Two different numbers: not a numeric answer; text compare: [3 or 4] vs [3]:
    // common 1, P = 1/3, R = 1, F1 = 1/2.
    let s = score_text("3 or 4", "3");
    assert_eq!(s.em, 0.0);
    close(s.f1, 0.5);
}

#[test]
fn structured_answers_score_field_by_field() {
    let gold = json!({"ui_signal": "red LED blinks", "physical_world_state": "door locked"});
    let pred = json!({"UI Signal": "red LED blinks", "physical_world_state": "the door is locked"});
    let (score, fields) = score_structured(pred.as_object().unwrap(), gold.as_object().unwrap());
    // ui_signal exact; physical_world_state [door is locked] vs [door locked]:
    // common 2, P = 2/3, R = 1, F1 = 4/5. EM 0 (not every field); F1 (1 + 4/5)/2 = 9/10.
    assert_eq!(score.em, 0.0);
    close(score.f1, 0.9);
    assert_eq!(fields.len(), 2);
    let (score, _) = score_structured(gold.as_object().unwrap(), gold.as_object().unwrap());
    assert_eq!((score.em, score.f1), (1.0, 1.0));
}

#[test]
fn open_replies_are_scored_on_their_marked_answer() {
    assert_eq!(
        open_text("Reasoning…\nFinal answer: green light"),
        ("green light".into(), OpenRule::AnswerLine)
    );
    assert_eq!(
        open_text("{\"answer\": \"green\"}"),
        ("green".into(), OpenRule::Json)
    );
    assert_eq!(open_text("so \\boxed{3}"), ("3".into(), OpenRule::Boxed));
    assert_eq!(
        open_text(" it beeps "),
        ("it beeps".into(), OpenRule::Whole)
    );
}

fn valid_reply(score: u8, answer_match: &str) -> String {
    json!({
        "question_type": "state", "verdict": if score == 1 { "correct" } else { "incorrect" },
        "score": score, "answer_match": answer_match, "essential_missing": false,
        "wrong_extra_info": false, "too_vague": false, "format_issue": false,
        "brief_reason": "because"
    })
    .to_string()
}

fn case(question: &str, gold: &str) -> JudgeCase {
    JudgeCase {
        question: question.into(),
        gold: gold.into(),
        prediction: "the light turns green".into(),
        options: vec![],
        contamination: contamination_of(question, gold, false),
    }
}

#[test]
fn the_judge_request_is_an_openai_chat_body_with_question_gold_and_prediction() {
    let c = case("What happens to the light?", "It turns green");
    let body = build_request("judge-model", &c);
    assert_eq!(body["model"], "judge-model");
    assert_eq!(body["stream"], false);
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    let system = messages[0]["content"].as_str().unwrap();
    for field in REQUIRED_FIELDS {
        assert!(system.contains(field), "rubric lacks {field}");
    }
    let user = messages[1]["content"].as_str().unwrap();
    assert!(
        user.contains("What happens to the light?")
            && user.contains("It turns green")
            && user.contains("the light turns green")
    );
    let retry = build_retry_request("judge-model", &c, "nope", &ReplyError::NoJson);
    let messages = retry["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[2]["role"], "assistant");
    assert!(messages[3]["content"]
        .as_str()
        .unwrap()
        .contains("no JSON object"));
}

#[test]
fn judge_replies_are_parsed_and_checked() {
    let v = parse_reply(&format!(
        "Here is my grading:\n```json\n{}\n```",
        valid_reply(1, "Paraphrase")
    ))
    .unwrap();
    assert_eq!((v.score, v.answer_match), (1, AnswerMatch::Paraphrase));
    assert!(v.warnings.is_empty());
    // A chat-completions body is read through to its content.
    let body = json!({"choices": [{"message": {"role": "assistant", "content": valid_reply(0, "complete miss")}}]});
    let v = parse_reply(&body.to_string()).unwrap();
    assert_eq!(v.answer_match, AnswerMatch::CompleteMiss);
    // Inconsistent fields are kept with a warning.
    let v = parse_reply(&valid_reply(1, "contradiction")).unwrap();
    assert_eq!(v.warnings.len(), 1);

    assert_eq!(
        parse_reply("The answer is correct."),
        Err(ReplyError::NoJson)
    );
    assert_eq!(parse_reply(""), Err(ReplyError::NoJson));
    let mut partial: Value = serde_json::from_str(&valid_reply(1, "exact")).unwrap();
    partial.as_object_mut().unwrap().remove("brief_reason");
    partial.as_object_mut().unwrap().remove("too_vague");
    assert_eq!(
        parse_reply(&partial.to_string()),
        Err(ReplyError::MissingFields {
            fields: vec!["too_vague".into(), "brief_reason".into()]
        })
    );
    let bad_score = valid_reply(1, "exact").replace("\"score\":1", "\"score\":0.5");
    assert!(
        matches!(parse_reply(&bad_score), Err(ReplyError::BadField { field, .. }) if field == "score")
    );
    let bad_match = valid_reply(1, "close enough");
    assert!(
        matches!(parse_reply(&bad_match), Err(ReplyError::BadField { field, .. }) if field == "answer_match")
    );
}

#[test]
fn invalid_replies_are_retried_once_then_fail() {
    assert_eq!(next_step(&[]), JudgeStep::Ask);
    assert!(matches!(
        next_step(&["not json".into()]),
        JudgeStep::Retry {
            error: ReplyError::NoJson
        }
    ));
    assert!(matches!(
        next_step(&["not json".into(), valid_reply(1, "exact")]),
        JudgeStep::Done { attempts: 2, .. }
    ));
    assert!(
        matches!(next_step(&["x".into(), "y".into()]), JudgeStep::Failed { errors } if errors.len() == 2)
    );
    // A failure is neither 0 nor 1.
    let c = case("What happens?", "It turns green");
    let o = outcome(&c, Some(&["x".into(), "y".into()]));
    assert!(matches!(o, JudgeOutcome::Failed { .. }));
    assert_eq!(o.score(), None);
}

#[test]
fn multiple_choice_contamination() {
    // Mentions options, without them: flagged, scored 0, never sent.
    let c = case("Which option shows the final state?", "B");
    assert!(c.contamination.is_some());
    assert!(!c.needs_judge());
    let o = outcome(&c, Some(&[valid_reply(1, "exact")]));
    assert!(matches!(
        o,
        JudgeOutcome::MultipleChoiceContamination { .. }
    ));
    assert_eq!(o.score(), Some(0));
    // A/B/C/D in the question; a bare-letter gold.
    assert!(contamination_of("Answer with A/B/C/D.", "the red one", false).is_some());
    assert!(contamination_of("What is lit?", "C", false).is_some());
    // Options present (lettered lines): flagged but judged.
    let c = case("Which is lit?\nA. red\nB. green", "B");
    assert!(c.contamination.as_ref().unwrap().options_present);
    let o = outcome(&c, Some(&[valid_reply(1, "exact")]));
    assert!(matches!(
        o,
        JudgeOutcome::Judged {
            multiple_choice_contamination: true,
            ..
        }
    ));
    // An ordinary open question is clean.
    assert!(contamination_of(
        "What does the blinking amber light mean?",
        "The filter needs cleaning",
        false
    )
    .is_none());
}

#[test]
fn video_judge_means_per_model_and_form() {
    let bytes = std::fs::read(concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "/tests/fixtures/switch/video_judge.jsonl"
    ))
    .unwrap();
    let report = score_videos("video_judge.jsonl", &bytes).unwrap();
    let rows: Vec<(&str, &str, usize)> = report
        .rows
        .iter()
        .map(|r| (r.model.as_str(), r.input_form.as_str(), r.n))
        .collect();
    assert_eq!(
        rows,
        [
            ("gen-a", "img2video", 2),
            ("gen-a", "video2video", 1),
            ("gen-b", "img2video", 1)
        ]
    );
    let a = &report.rows[0];
    // gen-a img2video: SF (4+2)/2 = 3, CC (3+5)/2 = 4, PC (2+4)/2 = 3, EO (5+3)/2 = 4,
    // overall (3+4)/2 = 3.5, confidence (0.9+0.5)/2 = 0.7; one video with major errors.
    assert_eq!(
        (
            a.scene_fidelity,
            a.control_correctness,
            a.procedure_correctness,
            a.execution_observability,
            a.overall_score
        ),
        (3.0, 4.0, 3.0, 4.0, 3.5)
    );
    close(a.confidence.unwrap(), 0.7);
    assert_eq!(a.with_major_errors, 1);
    // "high" is not a number: no mean confidence. A bare-number dimension is accepted.
    assert_eq!(report.rows[1].confidence, None);
    assert_eq!(report.rows[2].control_correctness, 2.0);
    assert_eq!(report.rows[2].with_major_errors, 1);
}

#[test]
fn video_judge_errors_name_line_and_field() {
    let bytes = b"{\"model\": \"m\", \"input_form\": \"img2video\", \"scene_fidelity\": {\"score\": 7}, \"control_correctness\": 3, \"procedure_correctness\": 3, \"execution_observability\": 3, \"overall_score\": 3}\n";
    let err = score_videos("v.jsonl", bytes).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("v.jsonl: line 1: field `scene_fidelity`: expected {\"score\": 1–5"),
        "{text}"
    );
}

//! SWITCH invariants: no reply text panics extraction or judge parsing,
//! every accuracy is in [0, 1], and EM ≤ F1 for every item.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]

use knoblab_score::switch::extract::{extract_choice, ChoiceQuestion};
use knoblab_score::switch::judge::{next_step, parse_reply};
use knoblab_score::switch::openqa::{open_text, score_text};
use knoblab_score::switch::predictions::read_predictions;
use knoblab_score::switch::{build_report, GroundTruth};
use proptest::prelude::*;

/// Pieces that real replies are made of, so that the generator reaches the
/// rules' corners (phrases, brackets, JSON, LaTeX, unicode) and not only
/// random noise.
fn reply() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("The answer is ".to_string()),
        Just("Answer:".to_string()),
        Just("\\boxed{".to_string()),
        Just("}".to_string()),
        Just("{\"answer\": ".to_string()),
        Just("\"".to_string()),
        Just("[".to_string()),
        Just("(".to_string()),
        Just(")".to_string()),
        Just("**".to_string()),
        Just(", ".to_string()),
        Just(" and ".to_string()),
        Just("\n".to_string()),
        Just(". ".to_string()),
        Just("é日本😀".to_string()),
        Just("Start the microwave".to_string()),
        "[A-Fa-f]",
        "[A-Ea-e]{1,3}",
        ".{0,12}",
    ];
    prop::collection::vec(piece, 0..12).prop_map(|v| v.concat())
}

fn question() -> ChoiceQuestion {
    let mut q = ChoiceQuestion::multi();
    q.options.insert('B', "Start the microwave".into());
    q
}

fn fixture_gt() -> GroundTruth {
    GroundTruth::load_path(&std::path::PathBuf::from(concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "/tests/fixtures/switch/gt"
    )))
    .expect("fixture")
}

proptest! {
    #[test]
    fn no_reply_panics_extraction(text in reply(), any_text in any::<String>()) {
        for t in [&text, &any_text] {
            let _ = extract_choice(t, &question());
            let _ = extract_choice(t, &ChoiceQuestion::single());
            let _ = open_text(t);
            let _ = parse_reply(t);
            let _ = next_step(&[t.clone(), t.clone()]);
        }
    }

    #[test]
    fn extracted_letters_are_labels_of_the_question(text in reply()) {
        let q = ChoiceQuestion::single();
        if let Ok(e) = extract_choice(&text, &q) {
            prop_assert_eq!(e.letters.len(), 1);
            prop_assert!(e.letters.iter().all(|c| q.labels.contains(c)));
        }
    }

    #[test]
    fn em_never_exceeds_f1(prediction in reply(), gold in reply()) {
        let s = score_text(&prediction, &gold);
        prop_assert!(s.em <= s.f1, "{s:?}");
        prop_assert!((0.0..=1.0).contains(&s.f1));
    }

    #[test]
    fn report_cells_are_in_unit_range_and_em_le_f1_per_item(replies in prop::collection::vec(reply(), 20)) {
        let gt = fixture_gt();
        let mut lines = String::new();
        for (item, text) in gt.items.iter().zip(&replies) {
            let kind = match item.key.kind {
                knoblab_score::switch::dataset::ItemKind::Mcq => "mcq",
                knoblab_score::switch::dataset::ItemKind::OpenQa => "openqa",
            };
            let line = serde_json::json!({
                "task_family": item.key.task_family, "form": item.key.form, "id": item.key.id,
                "kind": kind, "response": text,
                "judge": {"attempts": [text]},
            });
            lines.push_str(&line.to_string());
            lines.push('\n');
        }
        let preds = read_predictions("p.jsonl", lines.as_bytes()).expect("valid lines");
        let r = build_report(&gt, "p.jsonl", &preds).expect("scores");
        let unit = |x: Option<f64>| x.is_none_or(|v| (0.0..=1.0).contains(&v));
        prop_assert!(unit(r.mcq.overall.accuracy));
        prop_assert!(r.mcq.columns.0.iter().all(|(_, c)| unit(c.accuracy)));
        prop_assert!(r.by_form.0.iter().chain(&r.by_scenario.0).all(|(_, c)| unit(c.accuracy)));
        prop_assert!(unit(r.multi_select_partial.mean));
        prop_assert!(unit(r.openqa.em) && unit(r.openqa.f1));
        prop_assert!(r.judge.as_ref().is_none_or(|j| unit(j.accuracy)));
        for item in &r.per_item {
            if let Some(o) = &item.openqa {
                prop_assert!(o.em <= o.f1, "{}: {o:?}", item.item);
            }
            if let Some(m) = &item.mcq {
                prop_assert!(m.partial.is_none_or(|p| (0.0..=1.0).contains(&p)));
            }
        }
    }
}

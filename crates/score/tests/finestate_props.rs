#![cfg(not(target_arch = "wasm32"))]
//! Invariants of the FineState-Bench scorer: no reply text panics either
//! parser, and corrected-mode ES rates never exceed their SR rates.

use knoblab_score::finestate::corrected::{parse_corrected, Convention};
use knoblab_score::finestate::evaluate::{OfficialOptions, Reply};
use knoblab_score::finestate::loader::{Dataset, Instance, Platform};
use knoblab_score::finestate::parser::{parse_reply, ParserBuild};
use knoblab_score::finestate::predictions::{Prediction, PredictionFormat, PredictionSet};
use knoblab_score::finestate::report::{score, ScoreOptions};
use proptest::prelude::*;
use serde_json::{json, Value};

const MODELS: [Option<&str>; 7] = [
    None,
    Some("google/gemini-2.5-flash"),
    Some("OS-Atlas-Pro-7B"),
    Some("Qwen2.5-VL-3B-UI-R1"),
    Some("UGround-V1-7B"),
    Some("Jedi-7B-1080p"),
    Some("InfiGUI-R1-3B"),
];

/// Reply-like text: the official formats' pieces, numbers in every shape,
/// Unicode digits and spaces, and arbitrary characters.
fn reply_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("2. Interaction Coordinates: ".to_string()),
        Just("Interaction  Coordinates：".to_string()),
        Just("<point>[[".to_string()),
        Just("]]</point>".to_string()),
        Just("<points x1=\"".to_string()),
        Just("\" y1=\"".to_string()),
        Just("<|box_start|>[[".to_string()),
        Just("]]<|box_end|>".to_string()),
        Just("\"coordinate\": [".to_string()),
        Just("坐标：".to_string()),
        Just("located at the ".to_string()),
        Just("1. Component Description:".to_string()),
        Just("3. Reasoning:".to_string()),
        "[-+]?[0-9]{0,5}(\\.[0-9]{0,6})?(e-?[0-9]{1,3})?".prop_map(String::from),
        Just("０.５".to_string()),
        Just("٣".to_string()),
        Just("\u{1c}\u{3000}\n".to_string()),
        "[\\[\\](),.:： \n]{1,3}".prop_map(String::from),
        any::<String>(),
    ];
    prop::collection::vec(piece, 0..12).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn no_reply_text_panics_either_parser(text in reply_text(), m in 0usize..7) {
        for build in [ParserBuild::Py, ParserBuild::Pyc] {
            let r = parse_reply(&text, MODELS[m], build);
            if let Some([x, y]) = r.coordinates {
                prop_assert!((0.0..=1.0).contains(&x) && (0.0..=1.0).contains(&y));
            }
        }
        for c in [Convention::Unit, Convention::Permille, Convention::Pixels { width: 1920.0, height: 1080.0 }] {
            let _ = parse_corrected(&text, c);
        }
    }

    #[test]
    fn corrected_es_rates_never_exceed_sr_rates(
        items in prop::collection::vec(
            (
                prop::collection::vec(0.0f64..1.0, 4),
                prop::collection::vec(0.0f64..1.0, 4),
                prop::collection::vec(0.0f64..1.0, 4),
                (0.0f64..1.0, 0.0f64..1.0),
                (0.0f64..1.0, 0.0f64..1.0),
                0u8..4,
            ),
            1..40,
        ),
        texts in prop::collection::vec(reply_text(), 40),
    ) {
        let boxed = |v: &Vec<f64>, shape: u8| -> Value {
            match shape {
                0 => json!([v[0].min(v[2]), v[1].min(v[3]), v[0].max(v[2]), v[1].max(v[3])]),
                1 => json!([]),
                2 => json!(["0.1", v[1], v[2], v[3]]),
                _ => json!([v[0], v[1], v[2], v[3]]),
            }
        };
        let mut data = Dataset::default();
        let mut predictions = Vec::new();
        for (n, (b, nw, t, p0, p1, shape)) in items.iter().enumerate() {
            let key = format!("i{n}");
            data.instances.push(Instance {
                platform: Platform::Web,
                index: n,
                image_field: format!("web_en/{key}.png"),
                image_path: format!("web_en/{key}.png"),
                key: key.clone(),
                family: None,
                component_type: "slider".into(),
                locate: json!("locate"),
                interact: json!(if n % 5 == 4 { "" } else { "interact" }),
                bbox: boxed(b, *shape % 2 * 3),
                now: boxed(nw, *shape),
                target: boxed(t, (*shape + 1) % 4),
                source: "prop".into(),
            });
            let locate = if n % 2 == 0 {
                Reply::Point(Some([p0.0, p0.1]))
            } else {
                Reply::Text(texts[n].clone())
            };
            predictions.push(Prediction {
                platform: Some(Platform::Web),
                image: key,
                locate: Some(locate),
                interact: Some(Reply::Point(Some([p1.0, p1.1]))),
                source: "prop".into(),
                hinted: None,
                model: None,
            });
        }
        let set = PredictionSet { format: PredictionFormat::JsonLines, predictions, problems: Vec::new() };
        let options = ScoreOptions {
            official: OfficialOptions { model: None, parser: ParserBuild::Py, vda: true },
            convention: Convention::Unit,
        };
        let report = score(&data, &set, &options);
        for p in &report.platforms {
            let r = p.corrected.rates();
            prop_assert!(r.state_awareness_rate_locate <= r.locate_success_rate);
            prop_assert!(r.state_awareness_rate_interaction <= r.interaction_success_rate);
            prop_assert!(p.corrected.state_awareness_locate <= p.corrected.locate_success);
        }
        for g in report.by_family.iter().chain(&report.by_component_type) {
            let r = g.corrected.rates();
            prop_assert!(r.state_awareness_rate_locate <= r.locate_success_rate);
            prop_assert!(r.state_awareness_rate_interaction <= r.interaction_success_rate);
        }
    }
}

#![cfg(not(target_arch = "wasm32"))]
//! Invariants of the EPIC-Bench scorer: box-union IoU against a brute-force
//! pixel count (symmetric, in [0, 1], 1 with itself), RLE round trips, and
//! no input text that panics the formatter, the JSON reader or the RLE
//! decoder.

use knoblab_score::epic::extract::Dialect;
use knoblab_score::epic::formatter::{format_record, FormatOptions};
use knoblab_score::epic::mask::Mask;
use knoblab_score::epic::pyjson;
use knoblab_score::epic::pyvalue::PyValue;
use knoblab_score::epic::raster::{union_iou, PixelBox};
use knoblab_score::epic::rle::{counts_from_string, decode_instance, encode};
use proptest::prelude::*;

const H: u32 = 23;
const W: u32 = 31;

fn boxes() -> impl Strategy<Value = Vec<PixelBox>> {
    prop::collection::vec((0..=W, 0..=H, 0..=W, 0..=H), 0..5).prop_map(|v| {
        v.into_iter()
            .map(|(a, b, c, d)| PixelBox {
                x1: a.min(c),
                y1: b.min(d),
                x2: a.max(c),
                y2: b.max(d),
            })
            .collect()
    })
}

fn dense(bx: &[PixelBox]) -> Vec<bool> {
    let mut bits = vec![false; (H * W) as usize];
    for b in bx {
        for y in b.y1..b.y2 {
            for x in b.x1..b.x2 {
                bits[(y * W + x) as usize] = true;
            }
        }
    }
    bits
}

proptest! {
    #[test]
    fn iou_matches_pixels_and_is_symmetric(a in boxes(), b in boxes()) {
        let (da, db) = (dense(&a), dense(&b));
        let (ma, mb) = (Mask::from_dense(H, W, &da), Mask::from_dense(H, W, &db));
        let inter = da.iter().zip(&db).filter(|(x, y)| **x && **y).count();
        let union = da.iter().zip(&db).filter(|(x, y)| **x || **y).count();
        let brute = if union == 0 { 1.0 } else { inter as f64 / union as f64 };
        let ab = union_iou(&a, &mb);
        let ba = union_iou(&b, &ma);
        prop_assert_eq!(ab, brute);
        prop_assert_eq!(ab, ba);
        prop_assert!((0.0..=1.0).contains(&ab));
        prop_assert_eq!(union_iou(&a, &ma), 1.0);
    }

    #[test]
    fn rle_round_trips(bits in prop::collection::vec(any::<bool>(), (H * W) as usize)) {
        let m = Mask::from_dense(H, W, &bits);
        let v = PyValue::Dict(vec![
            ("size".into(), PyValue::List(vec![PyValue::Int(H.into()), PyValue::Int(W.into())])),
            ("counts".into(), PyValue::Str(encode(&m))),
        ]);
        prop_assert_eq!(decode_instance(&v).unwrap(), m);
    }

    #[test]
    fn no_text_panics(text in ".{0,200}", raw in prop::collection::vec(any::<u8>(), 0..200)) {
        let lossy = String::from_utf8_lossy(&raw).into_owned();
        for t in [&text, &lossy] {
            let _ = pyjson::loads(t);
            let _ = counts_from_string(t);
            for img in [
                "EPIC_Bench/TargetLocalization/BasicAttributes/Color/s/s_image.jpg",
                "EPIC_Bench/Navigation/FeasiblePath/FeasiblePath_Exo/s/s_image.jpg",
                "EPIC_Bench/Navigation/VisualMatching/s/s_image.jpg",
                "EPIC_Bench/Manipulation/PlacementRegion/s/s_image.jpg",
            ] {
                let rec = PyValue::Dict(vec![
                    ("response".into(), PyValue::Str(t.clone())),
                    ("images".into(), PyValue::List(vec![PyValue::Str(img.into())])),
                ]);
                for dialect in [Dialect::Official, Dialect::Corrected] {
                    let opts = FormatOptions { dialect, ..FormatOptions::default() };
                    let _ = format_record(&rec, &opts);
                }
            }
        }
    }

    #[test]
    fn json_like_replies_do_not_panic(
        key in prop::sample::select(vec!["number_of_objects", "bounding_boxes", "points", "placement_feasibility", "number_of_instances"]),
        body in "[\\[\\]{}(),:'\" 0-9a-zA-Z.\\-]{0,80}",
    ) {
        let t = format!("{{\"{key}\": {body}");
        let rec = PyValue::Dict(vec![
            ("response".into(), PyValue::Str(t)),
            ("images".into(), PyValue::List(vec![PyValue::Str(
                "EPIC_Bench/TargetLocalization/BasicAttributes/Color/s/s_image.jpg".into())])),
        ]);
        let _ = format_record(&rec, &FormatOptions::default());
    }
}

/// A JSON value of any shape, with the strings and numbers Python's
/// parser distinguishes.
fn json_value() -> impl Strategy<Value = PyValue> {
    let leaf = prop_oneof![
        Just(PyValue::None),
        any::<bool>().prop_map(PyValue::Bool),
        any::<i64>().prop_map(|i| PyValue::Int(i.into())),
        (-1e6f64..1e6).prop_map(PyValue::Float),
        ".{0,8}".prop_map(PyValue::Str),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(PyValue::List),
            prop::collection::vec(("[a-c\\\\\"]{0,3}", inner), 0..4).prop_map(PyValue::Dict),
        ]
    })
}

/// JSON-like text: a value as Python writes it, maybe broken in one
/// place, or text from JSON's alphabet.
fn json_like() -> impl Strategy<Value = String> {
    prop_oneof![
        json_value().prop_map(|v| pyjson::dumps(&v)),
        (
            json_value(),
            any::<prop::sample::Index>(),
            "[\\[\\]{},:\"\\\\ 0-9a-zA-Z.+\\-]"
        )
            .prop_map(|(v, at, c)| {
                let text: Vec<char> = pyjson::dumps(&v).chars().collect();
                let k = at.index(text.len());
                let mut out: String = text[..k].iter().collect();
                out.push_str(&c);
                out.extend(&text[(k + 1).min(text.len())..]);
                out
            }),
        "[\\[\\]{},:\" 0-9.eE+\\-ntrufalsNIiy\\\\]{0,30}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// The reader that only checks a value (the GT reader and the intake
    /// skip what they do not keep) accepts exactly what `json.loads`
    /// accepts, refusing the rest with the same error at the same place.
    #[test]
    fn skipping_reader_accepts_what_loads_accepts(text in json_like()) {
        let mut r = pyjson::Reader::new(&text);
        r.ws();
        let skipped = r.skip_value().and_then(|_| r.finish());
        prop_assert_eq!(skipped.err(), pyjson::loads(&text).err(), "{:?}", text);
    }
}

//! A deterministic synthetic FineState-Bench set in the official layouts, for
//! benchmarks and invariants: 2,209 instances by default (the paper v2
//! count), desktop in the raw schema with its four family folders, web and
//! mobile as standardised JSON Lines, and JSON Lines predictions whose reply
//! texts cycle through the formats the official parser meets (spec §11 used
//! "a synthetic set of 2,209 instances (4,418 queries), generated from the
//! fixture's response and box pool").

use serde_json::json;

use super::files::MemFiles;
use super::loader::{Family, Platform};

/// The paper v2 instance count.
pub const PAPER_INSTANCES: usize = 2209;

/// A generated dataset and a predictions file for it.
#[derive(Debug, Clone)]
pub struct SyntheticSet {
    /// The dataset root: annotation files and (empty) images.
    pub files: MemFiles,
    /// JSON Lines of `{platform, image, locate, interact}`.
    pub predictions: Vec<u8>,
    /// Instances per platform, desktop, web, mobile.
    pub counts: [usize; 3],
}

/// splitmix64: small, seeded, the same on every target.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A float in [0, 1) with three decimals.
    fn unit3(&mut self) -> f64 {
        (self.next() % 1000) as f64 / 1000.0
    }

    fn pick<'a>(&mut self, items: &'a [&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

const TYPES: [&[&str]; 4] = [
    &["slider", "knob", "stepper", "seek_bar", "chart_point"],
    &["switch", "checkbox", "radio_group", "tab", "accordion"],
    &[
        "rating",
        "color_picker",
        "date_picker",
        "time_picker",
        "dropdown",
    ],
    &["drag_reorder", "zoom_pan", "resizable_pane", "carousel"],
];

/// A reply aimed at point (x, y), in one of the formats models produce.
fn reply(rng: &mut Rng, x: f64, y: f64) -> String {
    match rng.next() % 12 {
        0 => format!(
            "1. Component Description: the control\n2. Interaction Coordinates: [{x:.3}, {y:.3}]\n3. Reasoning: it matches the instruction"
        ),
        1 => format!("The control is at [{x:.3}, {y:.3}]."),
        2 => format!("Click at ({x:.2}, {y:.2})"),
        3 => format!("<point>[[{}, {}]]</point>", (x * 1024.0) as u32, (y * 1024.0) as u32),
        4 => format!(
            "<points x1=\"{}\" y1=\"{}\" alt=\"target\">click</points>",
            (x * 1920.0) as u32,
            (y * 1080.0) as u32
        ),
        5 => format!(
            "<|box_start|>[[{x:.2}, {y:.2}, {:.2}, {:.2}]]<|box_end|>",
            (x + 0.02).min(1.0),
            (y + 0.02).min(1.0)
        ),
        6 => format!("Interaction Coordinates: [{}, {}]", (x * 1920.0) as u32, (y * 1080.0) as u32),
        7 => format!("{{\"action\": \"click\", \"coordinate\": [{}, {}]}}", (x * 1920.0) as u32, (y * 1080.0) as u32),
        8 => format!("{x}, {y}"),
        9 => "I cannot find this control in the screenshot.".to_string(),
        10 => "Error: upstream timeout after 30s".to_string(),
        _ => format!("坐标：[{x:.3}, {y:.3}]"),
    }
}

fn boxes(rng: &mut Rng) -> ([f64; 4], [f64; 4], [f64; 4]) {
    let x0 = (rng.unit3() * 0.6 * 1000.0).round() / 1000.0;
    let y0 = (rng.unit3() * 0.8 * 1000.0).round() / 1000.0;
    let w = 0.1 + rng.unit3() * 0.3;
    let h = 0.03 + rng.unit3() * 0.1;
    let r = |v: f64| (v * 1000.0).round() / 1000.0;
    let loc = [r(x0), r(y0), r(x0 + w), r(y0 + h)];
    let now = [r(x0 + w * 0.1), loc[1], r(x0 + w * 0.3), loc[3]];
    let tgt = [r(x0 + w * 0.6), loc[1], r(x0 + w * 0.8), loc[3]];
    (loc, now, tgt)
}

/// Generates `total` instances split over desktop, web and mobile roughly
/// as the official scripts' limits (821 / 697 / 648), from `seed`.
#[allow(
    clippy::disallowed_methods,
    reason = "reads back the synthetic data it has just generated"
)]
pub fn generate(total: usize, seed: u64) -> SyntheticSet {
    let mut rng = Rng(seed);
    let desktop = total * 821 / (821 + 697 + 648);
    let web = total * 697 / (821 + 697 + 648);
    let mobile = total - desktop - web;
    let mut files = MemFiles::new();
    let mut predictions = String::new();
    let mut desktop_files: std::collections::BTreeMap<String, String> = Default::default();
    let mut jsonl: [String; 2] = [String::new(), String::new()];
    for (platform, count) in [
        (Platform::Desktop, desktop),
        (Platform::Web, web),
        (Platform::Mobile, mobile),
    ] {
        for n in 0..count {
            let fi = (rng.next() % 4) as usize;
            let family = Family::ALL[fi];
            let ctype = rng.pick(TYPES[fi]);
            let id = format!("{}{n:04}_{ctype}", &platform.name()[..1]);
            let (loc, now, tgt) = boxes(&mut rng);
            let target = match rng.next() % 4 {
                0 => [(now[0] + now[2]) / 2.0, (now[1] + now[3]) / 2.0],
                1 => [(tgt[0] + tgt[2]) / 2.0, (tgt[1] + tgt[3]) / 2.0],
                2 => [(loc[0] + loc[2]) / 2.0, (loc[1] + loc[3]) / 2.0],
                _ => [rng.unit3(), rng.unit3()],
            };
            let target_int = if rng.next().is_multiple_of(2) {
                [(tgt[0] + tgt[2]) / 2.0, (tgt[1] + tgt[3]) / 2.0]
            } else {
                [rng.unit3(), rng.unit3()]
            };
            let component = json!({
                "name": format!("{ctype} {id}"),
                "type": if platform == Platform::Desktop { ctype.to_uppercase() } else { ctype.to_string() },
                "current_state": "before",
                "target_state": "after",
                "instructions": {
                    "locate": format!("Locate the {ctype} of {id}."),
                    "interact": format!("Set the {ctype} of {id} to the requested value."),
                },
            });
            let image_rel = format!("{}/{id}.png", family.folder());
            match platform {
                Platform::Desktop => {
                    let record = json!({
                        "image": format!("desktop_en/{image_rel}"),
                        "component": component,
                        "processing_details": {"locate": loc, "loactebbox": now, "interact": [tgt[0], tgt[1]], "interactbbox": tgt},
                    });
                    files.insert(&format!("desktop_en/{image_rel}"), Vec::new());
                    let file = format!("desktop_en/{}json/{ctype}.json", family.folder());
                    let text = desktop_files.entry(file).or_default();
                    text.push_str(&record.to_string());
                    text.push('\n');
                }
                _ => {
                    let (image, on_disk, slot) = if platform == Platform::Web {
                        (
                            format!("web_en/{image_rel}"),
                            format!("web_en/{image_rel}"),
                            0,
                        )
                    } else {
                        (
                            format!("mobile/{image_rel}"),
                            format!("mobile_en/{image_rel}"),
                            1,
                        )
                    };
                    let record = json!({
                        "image": image,
                        "component": component,
                        "processing_details": {"bbox": loc, "now_coords": now, "target_coords": tgt},
                    });
                    files.insert(&on_disk, Vec::new());
                    jsonl[slot].push_str(&record.to_string());
                    jsonl[slot].push('\n');
                }
            }
            let line = json!({
                "platform": platform.name(),
                "image": id,
                "locate": reply(&mut rng, target[0], target[1]),
                "interact": reply(&mut rng, target_int[0], target_int[1]),
            });
            predictions.push_str(&line.to_string());
            predictions.push('\n');
        }
    }
    // Family C files are one JSON array each (spec §2.1).
    for (path, text) in desktop_files {
        let bytes = if path.contains(Family::SpecificData.folder()) {
            let items: Vec<serde_json::Value> = text
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect();
            serde_json::Value::Array(items).to_string().into_bytes()
        } else {
            text.into_bytes()
        };
        files.insert(&path, bytes);
    }
    let [web_text, mobile_text] = jsonl;
    files.insert("web_en/web_cases.jsonl", web_text.into_bytes());
    files.insert("mobile_en/mobile_cases.jsonl", mobile_text.into_bytes());
    SyntheticSet {
        files,
        predictions: predictions.into_bytes(),
        counts: [desktop, web, mobile],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finestate::loader::{load_dataset, ImagePolicy};

    #[test]
    fn the_paper_sized_set_loads_whole_and_is_deterministic() {
        let a = generate(PAPER_INSTANCES, 7);
        let b = generate(PAPER_INSTANCES, 7);
        assert_eq!(a.predictions, b.predictions);
        let data = load_dataset(&a.files, ImagePolicy::Check);
        assert_eq!(data.instances.len(), PAPER_INSTANCES);
        assert!(data.skipped.is_empty(), "{:?}", data.skipped.first());
        assert_eq!(a.counts.iter().sum::<usize>(), PAPER_INSTANCES);
    }
}

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)
//! The generated part of the library (`knoblab_devicegen::generated`):
//! the committed manifest (`data/generated.json`), task list
//! (`data/generated-tasks.json`) and logic hashes (in
//! `data/library-version.json`) are what the generator makes now, hash for
//! hash; a seeded sample of generated devices is made in full and is sound
//! (no diagnostic, manifest hash, task list and logic hash, the oracle
//! solves every task within budget); the figures have the paper's
//! shape; and devices of one category differ in their logic and in what a
//! model sees. The whole library's check is `knoblab library check`
//! (docs/library.md, "The figures beside the paper's").

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use knoblab_core::bundle::generated::GENERATED_TASKS_FILE;
use knoblab_core::bundle::stamp::{LibraryVersion, VERSION_FILE};
use knoblab_core::bundle::{check_path, LibraryIndex};
use knoblab_devicegen::generated::{
    check_listed_device, GeneratedIndex, GeneratedTasks, Inputs, Listed,
};
use knoblab_devicegen::stats::{figures, stats};

fn data() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("data")
}

fn committed() -> GeneratedIndex {
    GeneratedIndex::parse(&std::fs::read(data().join("generated.json")).unwrap()).unwrap()
}

fn inputs() -> &'static Inputs {
    Inputs::embedded().unwrap()
}

fn committed_tasks() -> GeneratedTasks {
    let bytes = std::fs::read(data().join(GENERATED_TASKS_FILE)).unwrap();
    GeneratedTasks::parse(&bytes, &committed()).unwrap()
}

fn committed_version() -> LibraryVersion {
    LibraryVersion::parse(&std::fs::read(data().join(VERSION_FILE)).unwrap()).unwrap()
}

/// The manifest, the task list (`generated-tasks.json`: what the Agent
/// page plans with and `knoblab.library()` lists, without making a
/// device) and each generated device's logic hash in the library's
/// version file are what the generator makes now.
#[test]
fn the_committed_manifest_is_what_the_generator_makes() {
    let catalogue = inputs().catalogue(|_| true).unwrap();
    let made = catalogue.manifest;
    let committed = committed();
    let tasks = committed_tasks();
    assert_eq!(
        catalogue.tasks.devices.len(),
        tasks.devices.len(),
        "data/{GENERATED_TASKS_FILE}: run `knoblab library generate`"
    );
    for (m, c) in catalogue.tasks.devices.iter().zip(&tasks.devices) {
        assert_eq!(
            m, c,
            "{}: differs from data/{GENERATED_TASKS_FILE}; run `knoblab library generate`",
            m.id
        );
    }
    assert_eq!(catalogue.tasks, tasks);
    let version = committed_version();
    for (id, logic) in &catalogue.logic {
        assert_eq!(
            version.devices.get(id),
            Some(logic),
            "{id}: its logic hash differs from data/{VERSION_FILE}; run `knoblab library generate`"
        );
    }
    assert_eq!(catalogue.logic.len(), made.devices.len());
    assert_eq!(made.devices.len(), committed.devices.len());
    for (m, c) in made.devices.iter().zip(&committed.devices) {
        assert_eq!(
            m, c,
            "{}: differs from data/generated.json; run `knoblab library generate`",
            m.id
        );
    }
    assert_eq!(made.hash, committed.hash);
    let ids: BTreeSet<&str> = made.devices.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids.len(), made.devices.len(), "an id repeats");
}

/// A seeded sample (every 46th device, from an offset drawn from a fixed
/// seed) made with its pictures and checked in full.
#[test]
fn a_seeded_sample_of_generated_devices_is_sound() {
    let manifest = committed();
    let (tasks, version) = (committed_tasks(), committed_version());
    let offset = (0x5eed_u64 % 46) as usize;
    let mut checked = 0;
    let mut episodes = 0;
    for entry in manifest.devices.iter().skip(offset).step_by(46) {
        // Drawn, its tasks are the task list's and its logic hash the
        // version file's (made there without pictures).
        let listed = Listed {
            tasks: tasks.of(&entry.id),
            logic: version.devices.get(&entry.id).map(String::as_str),
        };
        episodes += check_listed_device(inputs(), entry, Some(listed))
            .unwrap_or_else(|e| panic!("{}: {e}", entry.id));
        checked += 1;
    }
    assert!(checked >= 19, "{checked} devices checked");
    assert_eq!(episodes, checked * 17);
}

#[test]
fn the_library_has_the_papers_shape() {
    let index = LibraryIndex::parse(&std::fs::read(data().join("library.json")).unwrap()).unwrap();
    let hand: Vec<_> = index
        .devices
        .iter()
        .map(|d| figures(&check_path(&data().join(&d.path)).into_result().unwrap()))
        .collect();
    let s = stats(&hand, &committed(), &inputs().space.counts);
    assert_eq!((s.devices, s.categories), (968, 26));
    for (category, (ours, paper)) in &s.per_category {
        assert_eq!(ours, paper, "{category}");
    }
    assert!(s.episodes >= 14_953, "{} episodes", s.episodes);
    assert!(s.single >= 4_948, "{} single-turn", s.single);
    assert!(s.multi >= 10_005, "{} multi-turn", s.multi);
    // Every row of Table 8 (press, rotate, push, pull, timed_wait, grasp)
    // within 5 points of the paper's share, and no action the paper does
    // not have.
    assert_eq!(s.actions.len(), 6, "{:?}", s.actions);
    assert!(
        s.actions_off().is_empty(),
        "actions off the paper's mix by more than 5 points: {:?} ({:?})",
        s.actions_off(),
        s.actions
    );
}

/// Within each category: most devices have an SSM no other device of the
/// category has (different states or transitions), and the controls of
/// every device differ from the archetype it was varied from in kind,
/// place, size or wording.
#[test]
fn devices_of_a_category_differ_in_their_logic_and_their_looks() {
    let inputs = inputs();
    let mut ssms: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut same_controls = Vec::new();
    for (c, index) in inputs.plan() {
        let (v, g) = inputs.variant(c, index).unwrap();
        let category = v.category.category.clone();
        // The logic without the wording: states and transitions.
        let ssm: knoblab_core::bundle::StateMachine =
            serde_json::from_slice(&g.files["ssm.json"]).unwrap();
        let shape: Vec<String> = ssm
            .states
            .iter()
            .flat_map(|(name, s)| {
                s.on.iter().flat_map(move |(k, ts)| {
                    ts.iter().map(move |t| {
                        format!(
                            "{name} {k} {} {:?} {:?}",
                            t.next_state, t.atomic_action, t.parameter
                        )
                    })
                })
            })
            .collect();
        ssms.entry(category.clone())
            .or_default()
            .insert(shape.join("\n"));
        *counts.entry(category.clone()).or_insert(0) += 1;
        let (file, _) = &inputs.categories[c];
        let base = file.devices.iter().find(|d| d.id == v.archetype).unwrap();
        let controls = |d: &knoblab_devicegen::DeviceDesc| {
            d.parts
                .iter()
                .filter(|p| p.component.is_some())
                .map(|p| format!("{:?} {:?} {:?} {:?}", p.look, p.label, p.icon, p.face))
                .collect::<Vec<_>>()
        };
        if controls(base) == controls(&v.desc) {
            same_controls.push(v.desc.id.clone());
        }
    }
    let mut logic = Vec::new();
    for (category, n) in &counts {
        let distinct = ssms[category].len();
        logic.push(format!("{category} {distinct}/{n}"));
    }
    let distinct: usize = ssms.values().map(BTreeSet::len).sum();
    let total: usize = counts.values().sum();
    // SSMs: at least a third of the generated devices have logic of their
    // own (the small templates have few sound prunings).
    assert!(distinct * 3 >= total, "distinct SSMs: {}", logic.join(", "));
    assert!(
        same_controls.len() * 20 <= total,
        "{} devices have their archetype's controls unchanged: {same_controls:?}",
        same_controls.len()
    );
}

/// Cells across and down of the difference hash.
const GRID: u32 = 16;

/// The difference hash of a picture: the device cropped from the
/// background (the pixels whose grey differs from the corner's), grey,
/// shrunk to 17×16 by area averaging, one bit per horizontally adjacent
/// pair of cells (left brighter): 256 bits.
fn dhash(png: &[u8]) -> Vec<bool> {
    let img = image::load_from_memory(png).unwrap().to_luma8();
    let (w, h) = img.dimensions();
    let bg = i32::from(img.get_pixel(0, 0)[0]);
    let (mut x0, mut y0, mut x1, mut y1) = (w, h, 0, 0);
    for (x, y, p) in img.enumerate_pixels() {
        if (i32::from(p[0]) - bg).abs() > 6 {
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x + 1), y1.max(y + 1));
        }
    }
    assert!(x1 > x0 && y1 > y0, "an empty picture");
    let (cw, ch) = (x1 - x0, y1 - y0);
    let cell = |cx: u32, cy: u32| {
        let (a, b) = (
            x0 + cx * cw / (GRID + 1),
            x0 + ((cx + 1) * cw / (GRID + 1)).max(cx * cw / (GRID + 1) + 1),
        );
        let (c, d) = (
            y0 + cy * ch / GRID,
            y0 + ((cy + 1) * ch / GRID).max(cy * ch / GRID + 1),
        );
        let mut sum = 0u64;
        for y in c..d.min(h) {
            for x in a..b.min(w) {
                sum += u64::from(img.get_pixel(x, y)[0]);
            }
        }
        sum / u64::from((b - a) * (d - c)).max(1)
    };
    let mut bits = Vec::new();
    for y in 0..GRID {
        for x in 0..GRID {
            bits.push(cell(x, y) > cell(x + 1, y));
        }
    }
    bits
}

/// No two devices of a seeded sample (every sixth generated device, and
/// every hand-described one) look alike: the difference hashes (256 bits)
/// of their front views are more than [`NEAR`] bits apart.
const NEAR: usize = 4;

#[test]
fn no_two_sampled_devices_look_alike() {
    let inputs = inputs();
    let mut hashes: Vec<(String, Vec<bool>)> = Vec::new();
    for entry in committed().devices.iter().step_by(6) {
        hashes.push((
            entry.id.clone(),
            dhash(&inputs.thumbnail(&entry.id).unwrap()),
        ));
    }
    for (file, _) in &inputs.categories {
        for d in &file.devices {
            let png = std::fs::read(data().join("devices").join(&d.id).join("views/front.png"));
            hashes.push((d.id.clone(), dhash(&png.unwrap())));
        }
    }
    let mut near = Vec::new();
    let mut closest = usize::MAX;
    for (i, (a, ha)) in hashes.iter().enumerate() {
        for (b, hb) in &hashes[i + 1..] {
            let d = ha.iter().zip(hb).filter(|(a, b)| a != b).count();
            closest = closest.min(d);
            if d <= NEAR {
                near.push(format!("{a} and {b}: {d} bits"));
            }
        }
    }
    println!(
        "{} front views, closest pair {closest} bits apart",
        hashes.len()
    );
    assert!(hashes.len() >= 200);
    assert!(
        near.is_empty(),
        "devices that look alike:\n{}",
        near.join("\n")
    );
}

/// How many devices may give one instruction text. A goal's request is
/// phrased by one of eight templates per device and state, so a text is
/// shared by about an eighth of the devices whose template has that
/// request: at most about 16 (both alarm clocks' "Let the alarm go off.",
/// 125 devices; 22 today by chance). One template per state would have
/// every coffee machine (72) give the same texts.
const MOST_DEVICES_PER_INSTRUCTION: usize = 30;

/// Instructions vary in wording across devices: over the whole library
/// (the hand-described devices' tasks and every generated device's), no
/// instruction text is given by more than [`MOST_DEVICES_PER_INSTRUCTION`]
/// devices, and a state's request reads in several ways within its
/// category.
#[test]
fn no_instruction_text_repeats_across_many_devices() {
    let inputs = inputs();
    let mut by_text: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut add = |id: &str, tasks: &knoblab_core::bundle::TaskFile| {
        for goal in tasks.tasks.iter().flat_map(|t| &t.goals) {
            by_text
                .entry(goal.instruction.clone())
                .or_default()
                .insert(id.to_string());
        }
    };
    let index = LibraryIndex::parse(&std::fs::read(data().join("library.json")).unwrap()).unwrap();
    for d in &index.devices {
        let text = std::fs::read(data().join(&d.path).join("tasks.json")).unwrap();
        add(&d.id, &serde_json::from_slice(&text).unwrap());
    }
    let mut devices = 0;
    for (c, index) in inputs.plan() {
        let (v, g) = inputs.variant(c, index).unwrap();
        add(
            &v.desc.id,
            &serde_json::from_slice(&g.files["tasks.json"]).unwrap(),
        );
        devices += 1;
    }
    assert_eq!(devices + index.devices.len(), 968);
    let (most, text) = by_text.iter().map(|(t, ids)| (ids.len(), t)).max().unwrap();
    println!(
        "{} distinct instruction texts over 968 devices; the most repeated, {most:?} by {most} devices: {text:?}",
        by_text.len()
    );
    assert!(
        most <= MOST_DEVICES_PER_INSTRUCTION,
        "{text:?} is given by {most} devices (at most {MOST_DEVICES_PER_INSTRUCTION})"
    );
    // Far more texts than the templates have requests (about 170 states
    // with a request over 26 categories, each phrased eight ways).
    assert!(by_text.len() >= 1_000, "{} distinct texts", by_text.len());
}

/// The committed per-category contact sheets (`docs/sheets/`) are what
/// the generator draws now: the smallest category's (ThermometerGun, 11
/// devices) is drawn again and compared byte for byte, every category
/// has one, and all 26 together stay under 6 MB. `knoblab library sheet
/// --all --out docs/sheets` (in `make library`) redraws them.
#[test]
fn the_committed_contact_sheets_are_what_the_generator_draws() {
    let inputs = inputs();
    let sheets = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("docs/sheets");
    let mut total = 0;
    for category in inputs.category_names() {
        let path = sheets.join(format!("{category}.png"));
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        total += bytes.len();
    }
    assert!(total < 6_000_000, "the 26 sheets take {total} bytes");
    let drawn = inputs.category_sheet("ThermometerGun").unwrap();
    let committed = std::fs::read(sheets.join("ThermometerGun.png")).unwrap();
    assert!(
        drawn == committed,
        "docs/sheets/ThermometerGun.png ({} bytes) differs from the sheet drawn now ({} bytes): \
         run `knoblab library sheet --all --out docs/sheets`",
        committed.len(),
        drawn.len()
    );
}

/// Each generated device's card (its front view, drawn by `knoblab library
/// generate` where its library entry points, so that browsing the cards
/// loads no generator in the page) is committed, nothing else lies in
/// `data/generated/`, and a seeded sample is what the generator draws now.
#[test]
fn the_committed_cards_are_what_the_generator_draws() {
    use knoblab_core::bundle::generated::GENERATED_PATH;
    let manifest = committed();
    let mut expected = BTreeSet::new();
    for device in &manifest.devices {
        let card = device.library_entry();
        expected.insert(data().join(card.file_url(&card.thumbnail)));
    }
    let mut found = BTreeSet::new();
    let mut stack = vec![data().join(GENERATED_PATH)];
    while let Some(dir) = stack.pop() {
        for item in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = item.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                found.insert(path);
            }
        }
    }
    let missing: Vec<_> = expected.difference(&found).take(5).collect();
    let stale: Vec<_> = found.difference(&expected).take(5).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "data/{GENERATED_PATH}: missing {missing:?}, not a card {stale:?}: run `knoblab library generate`"
    );
    assert_eq!(found.len(), 916);
    let offset = (0x5eed_u64 % 229) as usize;
    for device in manifest.devices.iter().skip(offset).step_by(229) {
        let card = device.library_entry();
        let path = data().join(card.file_url(&card.thumbnail));
        let committed = std::fs::read(&path).unwrap();
        // The front view alone, at half the canvas's size.
        let image = knoblab_core::bundle::image::read_view_image(committed.clone()).unwrap();
        assert_eq!(
            (image.media_type.as_str(), image.width, image.height),
            ("image/png", 320, 240)
        );
        let drawn = inputs().thumbnail(&device.id).unwrap();
        assert!(
            committed == drawn,
            "{} ({} bytes) differs from the card drawn now ({} bytes): run `knoblab library generate`",
            path.display(),
            committed.len(),
            drawn.len()
        );
    }
}

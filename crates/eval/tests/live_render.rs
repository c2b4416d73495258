#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)
//! Live pictures (`knoblab_core::sim::render`, the bundles' live layer): a
//! state's signs change the pixels of their own parts and nothing far
//! from them, a state that shows nothing new changes nothing, the two
//! render modes play the same episodes with the same metrics, runs of
//! different modes are not pooled, and the library's coverage of states
//! by signs is listed per category.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use image::RgbaImage;
use knoblab_core::bundle::{check_path, load_bytes, Bundle, LibraryIndex, LIVE_FILE};
use knoblab_core::metrics::{self, MetricsError};
use knoblab_core::sim::render::{live_boxes, signs, RenderMode, Renderer};
use knoblab_core::sim::{Episode, Settings, Trajectory};
use knoblab_eval::agents::{run_tasks, Oracle};

fn data() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("data")
}

fn library() -> Vec<Bundle> {
    let index = LibraryIndex::parse(&std::fs::read(data().join("library.json")).unwrap()).unwrap();
    index
        .devices
        .iter()
        .map(|d| {
            check_path(&data().join(&d.path))
                .into_result()
                .unwrap_or_else(|e| panic!("{e}"))
        })
        .collect()
}

fn bundle(id: &str) -> Bundle {
    check_path(&data().join("devices").join(id))
        .into_result()
        .unwrap()
}

/// The states an episode can rest in: not the dangerous `Error`, which
/// resets at once.
fn resting_states(b: &Bundle) -> Vec<&str> {
    b.ssm
        .states
        .iter()
        .filter(|(name, s)| !s.is_error(name))
        .map(|(name, _)| name.as_str())
        .collect()
}

/// How a state looks: its patches (the same list, the same pixels).
fn look(b: &Bundle, state: &str) -> Vec<usize> {
    b.live
        .as_ref()
        .and_then(|l| l.look(state))
        .map(|l| l.patches.clone())
        .unwrap_or_default()
}

/// The pixels where two pictures differ (rows compared whole first, so
/// that only the few rows a sign touches are walked pixel by pixel).
fn differing(a: &RgbaImage, b: &RgbaImage) -> Vec<(u32, u32)> {
    let row = a.width() as usize * 4;
    let mut out = Vec::new();
    if a.as_raw() == b.as_raw() {
        return out;
    }
    for (y, (ra, rb)) in a
        .as_raw()
        .chunks(row)
        .zip(b.as_raw().chunks(row))
        .enumerate()
    {
        if ra == rb {
            continue;
        }
        for x in 0..row / 4 {
            if ra[x * 4..x * 4 + 4] != rb[x * 4..x * 4 + 4] {
                out.push((x as u32, y as u32));
            }
        }
    }
    out
}

/// Every resting state's live picture of every view that has patches
/// (the other views are checked to be the static picture itself).
fn live_pictures(b: &Bundle) -> BTreeMap<(String, String), RgbaImage> {
    let mut renderer = Renderer::new(b);
    let mut out = BTreeMap::new();
    for state in b.ssm.states.keys() {
        for view in b.views.keys() {
            if renderer.has_patches(state, view) {
                let p = renderer.pixels(state, view, RenderMode::Live).unwrap();
                out.insert((state.clone(), view.clone()), p);
            } else {
                let shown = renderer.render(state, view, RenderMode::Live).unwrap();
                assert_eq!(shown.bytes, b.views[view].image.bytes);
            }
        }
    }
    out
}

/// A part's rectangle grown by the room a drawing may take around it (a
/// stroke, a shadow, a slide switch's thumb standing proud of its track).
fn grown([x, y, w, h]: [f64; 4]) -> [f64; 4] {
    let m = (0.3 * w.min(h)).max(4.0);
    [x - m, y - m, w + 2.0 * m, h + 2.0 * m]
}

fn inside((px, py): (u32, u32), [x, y, w, h]: [f64; 4]) -> bool {
    let (px, py) = (f64::from(px) + 0.5, f64::from(py) + 0.5);
    px >= x && py >= y && px <= x + w && py <= y + h
}

#[test]
fn every_transition_changes_pixels_only_on_the_parts_whose_sign_changed() {
    let mut checked = 0usize;
    let mut unchanged = 0usize;
    let mut problems = Vec::new();
    // A seeded sample: every other device (the next test takes the others).
    for b in library().into_iter().step_by(2) {
        let live = b
            .live
            .as_ref()
            .expect("every library device has a live layer");
        let pictures = live_pictures(&b);
        let mut statics: BTreeMap<&str, RgbaImage> = BTreeMap::new();
        let mut renderer = Renderer::new(&b);
        for view in b.views.keys() {
            statics.insert(view, renderer.pixels("", view, RenderMode::Static).unwrap());
        }
        let picture = |state: &str, view: &str| {
            pictures
                .get(&(state.to_string(), view.to_string()))
                .unwrap_or(&statics[view])
        };
        let mut transitions: BTreeSet<(&str, &str)> = BTreeSet::new();
        for (from, state) in &b.ssm.states {
            for t in state.on.values().flatten() {
                if from != &t.next_state {
                    transitions.insert((from, &t.next_state));
                }
            }
        }
        for (from, to) in transitions {
            let (a, z) = (look(&b, from), look(&b, to));
            let changed: BTreeSet<usize> = a
                .iter()
                .chain(&z)
                .filter(|p| a.contains(p) != z.contains(p))
                .copied()
                .collect();
            for view in b.views.keys() {
                let diff = differing(picture(from, view), picture(to, view));
                let parts: Vec<[f64; 4]> = changed
                    .iter()
                    .map(|&i| &live.spec.patches[i])
                    .filter(|p| p.view == *view)
                    .map(|p| grown(p.part))
                    .collect();
                checked += 1;
                if parts.is_empty() {
                    unchanged += 1;
                    if !diff.is_empty() {
                        problems.push(format!(
                            "{} {from} -> {to} on {view}: no sign changes, yet {} pixels do",
                            b.manifest.id,
                            diff.len()
                        ));
                    }
                    continue;
                }
                if diff.is_empty() {
                    problems.push(format!(
                        "{} {from} -> {to} on {view}: a sign changes, no pixel does",
                        b.manifest.id
                    ));
                }
                if let Some(far) = diff.iter().find(|p| !parts.iter().any(|r| inside(**p, *r))) {
                    problems.push(format!(
                        "{} {from} -> {to} on {view}: pixel {far:?} changed, far from the parts \
                         whose sign changed ({parts:?})",
                        b.manifest.id
                    ));
                }
            }
        }
    }
    eprintln!(
        "{checked} (transition, view) pairs checked, {unchanged} of them with no sign change"
    );
    assert!(checked > 1000, "only {checked} pairs checked");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_sign_is_drawn_inside_its_part_and_a_moved_box_inside_the_static_one() {
    let mut problems = Vec::new();
    for (i, b) in library().iter().enumerate() {
        // A seeded sample: the devices the previous test leaves out.
        if i % 2 == 0 {
            continue;
        }
        let b = b.clone();
        let live = b.live.as_ref().unwrap();
        let mut renderer = Renderer::new(&b);
        for state in resting_states(&b) {
            for view in b.views.keys() {
                if !renderer.has_patches(state, view) {
                    continue;
                }
                let stat = renderer.pixels(state, view, RenderMode::Static).unwrap();
                let pict = renderer.pixels(state, view, RenderMode::Live).unwrap();
                let parts: Vec<[f64; 4]> = live
                    .patches_of(state, view)
                    .map(|p| grown(p.part))
                    .collect();
                if let Some(far) = differing(&stat, &pict)
                    .into_iter()
                    .find(|p| !parts.iter().any(|r| inside(*p, *r)))
                {
                    problems.push(format!(
                        "{} {state} {view}: pixel {far:?} differs from the static picture outside every sign's part",
                        b.manifest.id
                    ));
                }
                let fixed = b.component_boxes(view);
                for (component, moved) in live_boxes(&b, state, view, RenderMode::Live) {
                    let contained = fixed.iter().any(|(c, s)| {
                        *c == component
                            && moved.x >= s.x
                            && moved.y >= s.y
                            && moved.x + moved.w <= s.x + s.w
                            && moved.y + moved.h <= s.y + s.h
                    });
                    if !contained {
                        problems.push(format!(
                            "{} {state} {view}: {component}'s live box {moved:?} leaves its static box",
                            b.manifest.id
                        ));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn an_open_door_has_its_box_where_the_door_now_is() {
    let b = bundle("microwave-0001");
    let shut = live_boxes(&b, "Standby", "front", RenderMode::Live);
    let open = live_boxes(&b, "DoorOpen", "front", RenderMode::Live);
    let door = |boxes: &[(&str, knoblab_core::geom::PixelBox)]| {
        boxes
            .iter()
            .find(|(c, _)| *c == "door")
            .map(|(_, b)| *b)
            .unwrap()
    };
    assert_eq!(door(&shut), door(&b.component_boxes("front")));
    assert!(
        door(&open).w < door(&shut).w * 0.5,
        "{:?} vs {:?}",
        door(&open),
        door(&shut)
    );
    // Static mode keeps the SSM's boxes whatever the state.
    assert_eq!(
        door(&live_boxes(&b, "DoorOpen", "front", RenderMode::Static)),
        door(&shut)
    );
}

#[test]
fn static_mode_shows_the_bundle_pictures_byte_for_byte() {
    let b = bundle("coffee-0001");
    let mut renderer = Renderer::new(&b);
    for state in resting_states(&b) {
        for (name, view) in &b.views {
            let shown = renderer.render(state, name, RenderMode::Static).unwrap();
            assert_eq!(shown.bytes, view.image.bytes, "{state} {name}");
        }
    }
    // Live pictures are PNGs of the view's size, and the same bytes every time.
    let once = renderer
        .render("HeatingUp", "front", RenderMode::Live)
        .unwrap();
    let again = Renderer::new(&b)
        .render("HeatingUp", "front", RenderMode::Live)
        .unwrap();
    assert_eq!(once.bytes, again.bytes);
    assert!(once.bytes.starts_with(b"\x89PNG"));
    assert_eq!((once.width, once.height), (640, 480));
    assert!(signs(&b, "HeatingUp")
        .iter()
        .any(|s| s.contains("blinking")));
}

/// A trajectory without what may differ between the modes: its settings.
fn unset(mut t: Trajectory) -> Trajectory {
    t.settings = Settings::default();
    t
}

#[test]
fn live_and_static_episodes_have_the_same_steps_feedback_and_metrics() {
    let mut compared = 0;
    for (i, b) in library().iter().enumerate() {
        // A seeded sample: every third device.
        if i % 3 != 0 {
            continue;
        }
        let mut oracle = Oracle::new(b);
        let paper = run_tasks(b, None, &mut oracle, &Settings::default()).unwrap();
        let live_settings = Settings {
            render: RenderMode::Live,
            ..Settings::default()
        };
        let live = run_tasks(b, None, &mut oracle, &live_settings).unwrap();
        assert!(paper
            .iter()
            .all(|t| t.settings.render == RenderMode::Static));
        assert!(live.iter().all(|t| t.settings.render == RenderMode::Live));
        let m_paper = metrics::run(std::slice::from_ref(b), &paper).unwrap();
        let m_live = metrics::run(std::slice::from_ref(b), &live).unwrap();
        assert_eq!(m_paper.metrics, m_live.metrics, "{}", b.manifest.id);
        for (p, l) in paper.into_iter().zip(live) {
            assert_eq!(unset(p), unset(l), "{}", b.manifest.id);
            compared += 1;
        }
        // A random walk hits hints, nulls and notifications too.
        let mut episode = Episode::new(b);
        let mut other = Episode::new(b);
        let task = &b.tasks[0].id;
        episode.reset(task, Settings::default()).unwrap();
        other.reset(task, live_settings.clone()).unwrap();
        let mut rng = 7u64;
        while !episode.is_done() {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let (x, y) = ((rng >> 33) % 1001, (rng >> 13) % 1001);
            let action = match rng % 4 {
                0 => "Timed_wait()".to_string(),
                1 => format!("Pull(coord=[{x}, {y}], params=[4])"),
                _ => format!("Press(coord=[{x}, {y}], params=[0])"),
            };
            let a = episode.step(&action).unwrap();
            let z = other.step(&action).unwrap();
            assert_eq!(a, z, "{} {action}", b.manifest.id);
            let shown = other.picture().unwrap();
            assert_eq!(
                episode.picture().unwrap().bytes,
                b.views[&a.observation.view].image.bytes
            );
            assert_eq!(
                (shown.width, shown.height),
                (a.observation.image.width, a.observation.image.height)
            );
        }
    }
    assert!(compared >= 100, "{compared} episodes compared");
}

#[test]
fn metrics_refuse_to_pool_static_and_live_runs() {
    let b = bundle("kettle-0001");
    let mut oracle = Oracle::new(&b);
    let mut runs = run_tasks(&b, None, &mut oracle, &Settings::default()).unwrap();
    runs[1].settings.render = RenderMode::Live;
    let err = metrics::run(std::slice::from_ref(&b), &runs).unwrap_err();
    assert!(matches!(err, MetricsError::MixedRender { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("live") && text.contains("static") && text.contains("line 2"),
        "{text}"
    );
    // A file from before the field existed reads as static.
    let old: Settings = serde_json::from_str(r#"{"lambda": 5, "agent": "oracle"}"#).unwrap();
    assert_eq!(old.render, RenderMode::Static);
    assert_eq!(RenderMode::parse("LIVE").unwrap(), RenderMode::Live);
    assert!(RenderMode::parse("animated")
        .unwrap_err()
        .to_string()
        .contains("static or live"));
}

#[test]
fn the_live_layer_survives_the_single_file_form_and_a_broken_one_is_refused() {
    let b = bundle("washer-0001");
    let single = serde_json::to_vec(&b.to_single_json()).unwrap();
    let back = load_bytes("washer.json", &single).unwrap();
    let (a, z) = (b.live.as_ref().unwrap(), back.live.as_ref().unwrap());
    assert_eq!(a.spec.patches, z.spec.patches);
    assert_eq!(a.spec.states, z.spec.states);
    for (view, sheet) in &a.sheets {
        assert_eq!(sheet.bytes, z.sheets[view].bytes);
    }
    // A patch outside its sheet, a state the SSM lacks.
    let mut files = files_of(&data().join("devices/washer-0001"));
    let mut spec = a.spec.clone();
    spec.patches[0].from[0] = 100_000;
    spec.states.insert("Levitating".into(), Default::default());
    for (name, bytes) in files.iter_mut() {
        if name == LIVE_FILE {
            *bytes = serde_json::to_vec(&spec).unwrap();
        }
    }
    let err = knoblab_core::bundle::load_files("washer", files)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("live.json") && err.contains("patches[0].from"),
        "{err}"
    );
    assert!(err.contains("Levitating"), "{err}");
}

/// A bundle folder's files as the loader takes them in memory: each path
/// relative to `dir`, with `/`, and its bytes.
fn files_of(dir: &Path) -> Vec<(String, Vec<u8>)> {
    walk(dir)
        .into_iter()
        .map(|entry| {
            let name = entry
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (name, std::fs::read(&entry).unwrap())
        })
        .collect()
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// Why a state of a category may look like another, as
/// `docs/live-coverage.md` writes it down: (category, states, why) per row
/// of its table, so that a new invisible state fails until it is explained
/// there.
fn invisible() -> Vec<(String, Vec<String>, String)> {
    let doc = std::fs::read_to_string(
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("docs/live-coverage.md"),
    )
    .unwrap();
    doc.lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| Category |"))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split(" | ").map(str::trim).collect();
            assert_eq!(cells.len(), 3, "a row of three cells: {l}");
            (
                cells[0].to_string(),
                cells[1].split(", ").map(str::to_string).collect(),
                cells[2].to_string(),
            )
        })
        .collect()
}

#[test]
fn coverage_lists_per_category_the_states_that_show_no_sign_of_their_own() {
    let mut by_category: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut states = 0usize;
    for b in library() {
        let rest = resting_states(&b);
        states += rest.len();
        let mut looks: BTreeMap<Vec<usize>, Vec<&str>> = BTreeMap::new();
        for s in &rest {
            looks.entry(look(&b, s)).or_default().push(s);
        }
        for group in looks.values().filter(|g| g.len() > 1) {
            for s in group {
                let others: Vec<&str> = group.iter().filter(|o| *o != s).copied().collect();
                by_category
                    .entry(b.manifest.category.clone())
                    .or_default()
                    .insert(format!(
                        "{s} (looks like {} on {})",
                        others.join(", "),
                        b.manifest.id
                    ));
            }
        }
    }
    let invisible = invisible();
    let mut told = 0usize;
    let mut unexplained = Vec::new();
    for (category, list) in &by_category {
        eprintln!("{category}:");
        for s in list {
            let state = s.split(' ').next().unwrap_or_default();
            let why = invisible
                .iter()
                .find(|(c, states, _)| c == category && states.iter().any(|t| t == state))
                .map(|(.., why)| why.as_str());
            match why {
                Some(why) => eprintln!("  {s}: {why}"),
                None => unexplained.push(format!("{category} {s}")),
            }
        }
        told += list.len();
    }
    eprintln!("{told} of {states} resting states look like another state of their device");
    assert!(
        unexplained.is_empty(),
        "states that look like another, with no reason written in docs/live-coverage.md:\n{}",
        unexplained.join("\n")
    );
    // And no row of the doc is stale: each state it lists still looks like
    // another state of a device of its category.
    let stale: Vec<String> = invisible
        .iter()
        .flat_map(|(c, states, _)| states.iter().map(move |s| (c, s)))
        .filter(|(c, s)| {
            !by_category
                .get(c.as_str())
                .is_some_and(|list| list.iter().any(|l| l.split(' ').next() == Some(s.as_str())))
        })
        .map(|(c, s)| format!("{c} {s}"))
        .collect();
    assert!(
        stale.is_empty(),
        "docs/live-coverage.md lists states that now show a sign of their own:\n{}",
        stale.join("\n")
    );
    assert!(
        told * 5 < states,
        "{told} of {states} states cannot be told apart from another: more than a fifth"
    );
}

/// A live layer draws over PNG pictures with PNG sheets only: the same
/// bundle with its front view's picture (or its front sheet) made a JPEG
/// of the same size is refused, naming the sheet's field and the type
/// found (the renderer decodes PNG alone, so the page's player links no
/// JPEG decoder: issue #46).
#[test]
fn a_live_layer_over_a_jpeg_picture_or_with_a_jpeg_sheet_is_refused() {
    let dir = data().join("devices/washer-0001");
    let live: knoblab_core::bundle::live::LiveSpec =
        serde_json::from_slice(&std::fs::read(dir.join(LIVE_FILE)).unwrap()).unwrap();
    let sheet_file = live.sheets["front"].clone();
    let jpeg_like = |png: &[u8]| {
        let image = image::load_from_memory(png).unwrap().to_rgb8();
        let mut out = std::io::Cursor::new(Vec::new());
        image.write_to(&mut out, image::ImageFormat::Jpeg).unwrap();
        out.into_inner()
    };
    for replaced in ["views/front.png".to_string(), sheet_file] {
        let mut files = files_of(&dir);
        for (name, bytes) in files.iter_mut() {
            if *name == replaced {
                *bytes = jpeg_like(bytes);
            }
        }
        let err = knoblab_core::bundle::load_files("washer", files)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("live.json") && err.contains("sheets.front") && err.contains("image/jpeg"),
            "{replaced}: {err}"
        );
    }
}

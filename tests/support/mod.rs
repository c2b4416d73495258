//! Test bundles built in code, in one place: the published VGEBench kettle
//! (`tests/fixtures/kettle/ssm.json`) with blank views of the
//! sizes its boxes declare, and `kettle-panel`, the same with a dashboard.
//!
//! The rule tests use these in-code bundles, whose task ids and dashboard
//! numbers they assert on; [`all_bundles`] adds the loader's file fixtures
//! (`tests/fixtures/kettle`, `kettle-panel`, `lamp`) so that the oracle and
//! property tests also run on bundles loaded from disk.
#![allow(dead_code)]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

pub mod bomb;
pub mod png;

use std::collections::BTreeMap;
use std::sync::Arc;

use knoblab_core::bundle::model::{BboxOrigin, Manifest, FORMAT};
use knoblab_core::bundle::{
    Bundle, Goal, StateMachine, Task, View, ViewBox, ViewImage, ViewKind, ViewSpec,
};

pub const KETTLE_SSM: &str = concat!(
    concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
    "/tests/fixtures/kettle/ssm.json"
);

/// The views of the published kettle, with the sizes its boxes declare.
pub const KETTLE_VIEWS: [(&str, u32, u32); 5] = [
    ("back", 1138, 1122),
    ("bottom", 1195, 908),
    ("front", 1209, 1369),
    ("right", 786, 1191),
    ("top", 1292, 760),
];

/// The dashboard of `kettle-panel`: a region of the front view around the
/// power button's box `[852, 955, 184, 76]`.
pub const PANEL_REGION: [f64; 4] = [820.0, 930.0, 250.0, 130.0];
pub const PANEL_SIZE: (u32, u32) = (1000, 520);
/// The power button's box on the dashboard (declared in its own pixels).
pub const PANEL_POWER_BOX: [f64; 6] = [300.0, 150.0, 400.0, 200.0, 1000.0, 520.0];

fn view(file: &str, kind: ViewKind, width: u32, height: u32) -> View {
    View {
        spec: ViewSpec {
            file: file.to_string(),
            kind,
            parent: None,
            region: None,
        },
        image: ViewImage {
            width,
            height,
            media_type: "image/png".to_string(),
            bytes: Arc::from(Vec::new()),
        },
    }
}

fn goal(state: &str, instruction: &str) -> Goal {
    Goal {
        state: state.to_string(),
        instruction: instruction.to_string(),
    }
}

fn task(id: &str, state: Option<&str>, view: Option<&str>, goals: Vec<Goal>) -> Task {
    Task {
        id: id.to_string(),
        initial_state: state.map(str::to_string),
        initial_view: view.map(str::to_string),
        goals,
    }
}

/// The tasks both test bundles carry.
pub fn kettle_tasks() -> Vec<Task> {
    vec![
        task(
            "boil",
            None,
            None,
            vec![goal("Boiling", "Start heating the water.")],
        ),
        task(
            "open_lid",
            None,
            None,
            vec![goal("LidOpen", "Open the lid.")],
        ),
        task(
            "boil_until_done",
            None,
            None,
            vec![goal("BoilingComplete", "Boil the water and let it finish.")],
        ),
        task(
            "stop_heating",
            Some("Boiling"),
            None,
            vec![goal("Standby", "Stop heating.")],
        ),
        task(
            "boil_from_top",
            None,
            Some("top"),
            vec![goal("Boiling", "Start heating the water.")],
        ),
        task(
            "boil_from_angle",
            None,
            Some("front_top"),
            vec![goal("Boiling", "Start heating the water.")],
        ),
        task(
            "fill_then_boil",
            None,
            None,
            vec![
                goal("LidOpen", "Open the lid to add water."),
                goal("Standby", "Close the lid."),
                goal("Boiling", "Now start heating."),
            ],
        ),
    ]
}

/// The published kettle: five orthographic views of the declared sizes and
/// an axonometric `front_top`.
pub fn kettle() -> Bundle {
    let text = std::fs::read_to_string(KETTLE_SSM).expect("the kettle fixture");
    let ssm: StateMachine = serde_json::from_str(&text).expect("the kettle SSM parses");
    let mut views = BTreeMap::new();
    for (name, w, h) in KETTLE_VIEWS {
        views.insert(
            name.to_string(),
            view(&format!("views/{name}.png"), ViewKind::Orthographic, w, h),
        );
    }
    views.insert(
        "front_top".to_string(),
        view("views/front_top.png", ViewKind::Axonometric, 1200, 1200),
    );
    Bundle {
        manifest: Manifest {
            format: FORMAT.to_string(),
            id: "kettle-0001".to_string(),
            category: "ElectricKettle".to_string(),
            name: "Electric kettle".to_string(),
            initial_view: "front".to_string(),
            license: "CC-BY-4.0".to_string(),
            source: "VGEBench appendix".to_string(),
            bbox_origin: BboxOrigin::TopLeft,
        },
        ssm,
        views,
        tasks: kettle_tasks(),
        live: None,
    }
}

/// The kettle with a `dashboard` view (parent front, region around the
/// power button) on which the power button also has a box.
pub fn kettle_panel() -> Bundle {
    let mut b = kettle();
    b.manifest.id = "kettle-panel-0001".to_string();
    let mut dash = view(
        "views/dashboard.png",
        ViewKind::Dashboard,
        PANEL_SIZE.0,
        PANEL_SIZE.1,
    );
    dash.spec.parent = Some("front".to_string());
    dash.spec.region = Some(PANEL_REGION);
    b.views.insert("dashboard".to_string(), dash);
    for state in b.ssm.states.values_mut() {
        if let Some(ts) = state.on.get_mut("power_button") {
            for t in ts {
                t.bbox.push(ViewBox {
                    coordinate: PANEL_POWER_BOX,
                    view: "dashboard".to_string(),
                });
            }
        }
    }
    b
}

/// `kettle-panel` where the power button is only on the front view and the
/// dashboard, so reaching it needs the dashboard.
pub fn kettle_panel_only() -> Bundle {
    let mut b = kettle_panel();
    b.manifest.id = "kettle-panel-only".to_string();
    for state in b.ssm.states.values_mut() {
        if let Some(ts) = state.on.get_mut("power_button") {
            for t in ts {
                t.bbox
                    .retain(|vb| vb.view == "front" || vb.view == "dashboard");
            }
        }
    }
    b
}

/// Every test bundle.
pub fn all_bundles() -> Vec<Bundle> {
    let mut bundles = vec![kettle(), kettle_panel(), kettle_panel_only()];
    bundles.extend(file_bundles());
    bundles
}

/// The bundles kept as files under `tests/fixtures/` (the loader's test
/// bundles), loaded as a user's would be.
pub fn file_bundles() -> Vec<Bundle> {
    ["kettle", "kettle-panel", "lamp"]
        .into_iter()
        .map(|name| {
            let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
                .join("tests/fixtures")
                .join(name);
            knoblab_core::bundle::load_path(&path)
                .unwrap_or_else(|e| panic!("test bundle {name} loads: {e}"))
        })
        .collect()
}

/// The 0–1000 point at the centre of a `[x, y, w, h]` box of an image.
pub fn centre(b: [f64; 4], width: u32, height: u32) -> String {
    let x = ((b[0] + b[2] / 2.0) * 1000.0 / f64::from(width)).round();
    let y = ((b[1] + b[3] / 2.0) * 1000.0 / f64::from(height)).round();
    format!("[{x}, {y}]")
}

/// The power button's centre in the front view: `[780, 725]`.
pub fn power_front() -> String {
    centre([852.0, 955.0, 184.0, 76.0], 1209, 1369)
}

/// The lid button's centre in the front view.
pub fn lid_front() -> String {
    centre([881.0, 81.0, 117.0, 34.0], 1209, 1369)
}

/// The lid button's centre in the top view.
pub fn lid_top() -> String {
    centre([1005.0, 377.0, 126.0, 96.0], 1292, 760)
}

/// The files of a folder, relative paths with `/`, sorted.
pub fn files_of(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// A zip of the folder, its entries under `prefix` (`""` or `"kettle/"`).
pub fn zip_of(dir: &std::path::Path, prefix: &str, method: zip::CompressionMethod) -> Vec<u8> {
    use std::io::Write;
    let mut out = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut out);
    let options = zip::write::SimpleFileOptions::default().compression_method(method);
    for (rel, bytes) in files_of(dir) {
        zip.start_file(format!("{prefix}{rel}"), options).unwrap();
        zip.write_all(&bytes).unwrap();
    }
    zip.finish().unwrap();
    out.into_inner()
}

//! One device, from its description to its bundle files: the views drawn,
//! every component's boxes measured on them, its SSM derived from the
//! category template with those boxes, its tasks, and the check that the
//! result loads without a single diagnostic.

use std::collections::BTreeMap;

use resvg::usvg::Tree;

use crate::bundle::model::FORMAT;
use crate::bundle::{
    check_files_in_memory, derive_device, template_components, ComponentParts, Manifest,
    StateMachine, TaskFile, ViewBox, ViewSpec,
};

use super::desc::{CategoryFile, DeviceDesc};
use super::mechanics::{operate, operation_of};
use super::render::{measured_box, parse};
use super::tasks::{counted_tasks, Counts};
use super::views::{dashboard, document, part_rect, scenes, Only, Scene, CANVAS};

/// The view an episode starts in.
pub const INITIAL_VIEW: &str = "front";
/// Room around the panel's parts in a dashboard region, in pixels.
const PANEL_PADDING: f64 = 16.0;
/// A dashboard is only worth it when the panel is small in the front view:
/// its region may be at most this share of the picture's width.
const MAX_PANEL_SHARE: f64 = 0.6;

/// A device's drawing, before any pixel is made: each view's scene and
/// parsed tree, and the boxes measured on them.
pub struct Drawing {
    pub scenes: Vec<Scene>,
    pub trees: Vec<Tree>,
    /// Per component, its box in every view it is seen in.
    pub boxes: BTreeMap<String, Vec<ViewBox>>,
    /// The dashboard's region of the front view, when there is one.
    pub region: Option<[f64; 4]>,
}

/// Draws every view of `desc` and measures its components' boxes.
pub fn draw(desc: &DeviceDesc) -> Result<Drawing, String> {
    let mut scenes = scenes(&desc.body);
    let mut trees = Vec::new();
    for scene in &scenes {
        trees.push(parse(&document(desc, scene, Only::Everything)?)?);
    }
    let mut boxes: BTreeMap<String, Vec<ViewBox>> = BTreeMap::new();
    for (scene, tree) in scenes.iter().zip(&trees) {
        measure(desc, scene, tree, &mut boxes);
    }
    let mut region = None;
    if desc.dashboard {
        let front = scenes
            .iter()
            .find(|s| s.name == INITIAL_VIEW)
            .ok_or("no front view")?
            .clone();
        let r = panel_region(desc, &front)?;
        let scene = dashboard(&front, r);
        let tree = parse(&document(desc, &scene, Only::Everything)?)?;
        measure(desc, &scene, &tree, &mut boxes);
        scenes.push(scene);
        trees.push(tree);
        region = Some(r);
    }
    Ok(Drawing {
        scenes,
        trees,
        boxes,
        region,
    })
}

/// Adds the box of every component the scene shows.
fn measure(
    desc: &DeviceDesc,
    scene: &Scene,
    tree: &Tree,
    boxes: &mut BTreeMap<String, Vec<ViewBox>>,
) {
    let (cw, ch) = CANVAS;
    for p in &desc.parts {
        let Some(component) = &p.component else {
            continue;
        };
        if !scene.faces.iter().any(|(f, ..)| *f == p.face) {
            continue;
        }
        if let Some([x, y, w, h]) = measured_box(tree, component) {
            boxes.entry(component.clone()).or_default().push(ViewBox {
                coordinate: [x, y, w, h, cw, ch],
                view: scene.name.clone(),
            });
        }
    }
}

/// The front-view region around the parts marked `panel` (components and
/// decorations, such as the display), padded and widened to the canvas's
/// proportions, kept inside the picture.
fn panel_region(desc: &DeviceDesc, front: &Scene) -> Result<[f64; 4], String> {
    let (cw, ch) = CANVAS;
    let mut union: Option<[f64; 4]> = None;
    for p in desc.parts.iter().filter(|p| p.panel) {
        let [x, y, w, h] = part_rect(front, p)
            .ok_or_else(|| format!("{}: a panel part must be on the front face", desc.id))?;
        let u = union.get_or_insert([x, y, x + w, y + h]);
        *u = [u[0].min(x), u[1].min(y), u[2].max(x + w), u[3].max(y + h)];
    }
    let [x0, y0, x1, y1] =
        union.ok_or_else(|| format!("{}: a dashboard needs parts marked \"panel\"", desc.id))?;
    let w = ((x1 - x0) + 2.0 * PANEL_PADDING).max(((y1 - y0) + 2.0 * PANEL_PADDING) * cw / ch);
    if w > cw * MAX_PANEL_SHARE {
        return Err(format!(
            "{}: the panel spans {w:.0} of {cw} pixels of the front view; a dashboard is for a small \
             panel (at most {:.0})",
            desc.id,
            cw * MAX_PANEL_SHARE
        ));
    }
    let h = w * ch / cw;
    let x = ((x0 + x1) / 2.0 - w / 2.0).clamp(0.0, cw - w).round();
    let y = ((y0 + y1) / 2.0 - h / 2.0).clamp(0.0, ch - h).round();
    Ok([x, y, w.round(), (w.round() * ch / cw).round()])
}

/// The generated bundle of one device: its files, by path in its folder.
pub struct Generated {
    pub manifest: Manifest,
    pub files: BTreeMap<String, Vec<u8>>,
    pub tasks: usize,
}

/// Generates one device's bundle. With `pictures` false the view images
/// are left out (the JSON files are complete without them), for a quick
/// check that the committed files still match the generator.
pub fn generate(
    category: &CategoryFile,
    desc: &DeviceDesc,
    ucsm: &StateMachine,
    pictures: bool,
) -> Result<Generated, String> {
    generate_counted(category, desc, ucsm, pictures, Counts::HAND, HAND_SOURCE)
}

/// Where a hand-described device comes from (its manifest's `source`).
pub const HAND_SOURCE: &str = "drawn for KnobLab by its device generator (knoblab library build)";
/// Where a generated variant comes from.
pub const VARIANT_SOURCE: &str =
    "generated by KnobLab's seeded variation generator (knoblab::devicegen::vary)";

/// [`generate`] with other task counts and another `source` line.
pub fn generate_counted(
    category: &CategoryFile,
    desc: &DeviceDesc,
    ucsm: &StateMachine,
    pictures: bool,
    counts: Counts,
    source: &str,
) -> Result<Generated, String> {
    let at = |e: String| format!("{} ({}): {e}", desc.id, category.category);
    let drawing = draw(desc).map_err(at)?;
    let mut parts: BTreeMap<String, ComponentParts> = BTreeMap::new();
    let known = template_components(ucsm);
    for component in desc.parts.iter().filter_map(|p| p.component.as_ref()) {
        if !known.contains(component) {
            return Err(at(format!(
                "component \"{component}\" is not a part of the {} template; its parts are: {}",
                category.category,
                known.iter().cloned().collect::<Vec<_>>().join(", ")
            )));
        }
        let op = operation_of(component, &category.operations).map_err(at)?;
        let operated = operate(ucsm, component, &op).map_err(at)?;
        let bbox = drawing.boxes.get(component).cloned().unwrap_or_default();
        if bbox.is_empty() {
            return Err(at(format!("component {component} is seen in no view")));
        }
        parts.insert(
            component.clone(),
            ComponentParts {
                bbox,
                atomic_action: operated.atomic_action,
                parameter: operated.parameter,
                overrides: operated.overrides,
            },
        );
    }
    let ssm = derive_device(ucsm, &parts).map_err(|e| at(e.to_string()))?;
    no_dead_end(&ssm).map_err(at)?;
    let task_list = counted_tasks(&ssm, INITIAL_VIEW, counts).map_err(at)?;
    let manifest = Manifest {
        format: FORMAT.to_string(),
        id: desc.id.clone(),
        category: category.category.clone(),
        name: desc.name.clone(),
        initial_view: INITIAL_VIEW.to_string(),
        license: "CC-BY-4.0".to_string(),
        source: source.to_string(),
        bbox_origin: Default::default(),
    };
    let mut views = serde_json::Map::new();
    for scene in &drawing.scenes {
        let spec = ViewSpec {
            file: format!("views/{}.png", scene.name),
            kind: scene.kind,
            parent: drawing
                .region
                .filter(|_| scene.name == "dashboard")
                .map(|_| INITIAL_VIEW.to_string()),
            region: drawing.region.filter(|_| scene.name == "dashboard"),
        };
        views.insert(
            scene.name.clone(),
            serde_json::to_value(spec).map_err(|e| at(e.to_string()))?,
        );
    }
    let json = |value: serde_json::Result<String>| {
        value
            .map(|s| (s + "\n").into_bytes())
            .map_err(|e| at(e.to_string()))
    };
    let mut files = BTreeMap::new();
    files.insert(
        "manifest.json".to_string(),
        json(serde_json::to_string_pretty(&manifest))?,
    );
    files.insert(
        "ssm.json".to_string(),
        json(serde_json::to_string_pretty(&ssm))?,
    );
    files.insert(
        "views.json".to_string(),
        json(serde_json::to_string_pretty(&views))?,
    );
    files.insert(
        "tasks.json".to_string(),
        json(serde_json::to_string_pretty(&TaskFile {
            tasks: task_list.clone(),
        }))?,
    );
    let signs = super::live::part_signs(category, desc, ucsm, &ssm).map_err(at)?;
    if pictures {
        let mut statics = Vec::new();
        for (scene, tree) in drawing.scenes.iter().zip(&drawing.trees) {
            let pixmap = super::render::raster(tree).map_err(at)?;
            files.insert(
                format!("views/{}.png", scene.name),
                super::render::png(&pixmap).map_err(at)?,
            );
            statics.push(pixmap);
        }
        if !signs.is_empty() {
            files.extend(
                super::live::live_files(desc, &drawing.scenes, &statics, &signs, &ssm)
                    .map_err(at)?,
            );
        }
        check(desc, &files).map_err(at)?;
    }
    Ok(Generated {
        manifest,
        files,
        tasks: task_list.len(),
    })
}

/// Every state has a way out: a transition, or it is an error state the
/// episode ends in. (Pruning a template can leave a state whose only way
/// out was a left-out component's.)
fn no_dead_end(ssm: &StateMachine) -> Result<(), String> {
    let dead: Vec<&str> = ssm
        .states
        .iter()
        .filter(|(name, s)| s.on.values().all(Vec::is_empty) && !s.is_error(name))
        .map(|(name, _)| name.as_str())
        .collect();
    if dead.is_empty() {
        return Ok(());
    }
    Err(format!(
        "states with no way out: {}; give the device the part that leaves them",
        dead.join(", ")
    ))
}

/// The bundle must load with no diagnostic at all, warnings included.
fn check(desc: &DeviceDesc, files: &BTreeMap<String, Vec<u8>>) -> Result<(), String> {
    let list: Vec<(String, Vec<u8>)> = files.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    let checked = check_files_in_memory(&desc.id, list);
    if checked.diagnostics.is_empty() {
        return Ok(());
    }
    Err(format!(
        "the generated bundle has problems:\n{}",
        checked
            .diagnostics
            .iter()
            .map(|d| format!("  {d}"))
            .collect::<Vec<_>>()
            .join("\n")
    ))
}

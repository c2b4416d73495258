//! One device, from its description to its bundle files: the views drawn,
//! every component's boxes measured on them, its SSM derived from the
//! category template with those boxes, its tasks, and the check that the
//! result loads without a single diagnostic.

use std::collections::BTreeMap;

use resvg::usvg::Tree;

use knoblab_core::bundle::model::FORMAT;
use knoblab_core::bundle::{
    check_files_in_memory, derive_device, template_components, ComponentParts, DeriveError,
    Diagnostic, Manifest, StateMachine, TaskFile, ViewBox, ViewSpec,
};
use knoblab_core::sim::planner::PlanError;

use super::desc::{CategoryFile, DeviceDesc};
use super::live::LiveError;
use super::mechanics::{operate, operation_of, MechanicsError};
use super::render::{measured_box, parse, RenderError};
use super::tasks::{counted_tasks, Counts, TooFewTasks};
use super::views::{dashboard, document, part_rect, scenes, Only, Scene, ViewError, CANVAS};

/// Why a device could not be made, or was refused as unsound.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DeviceError {
    /// What went wrong in making one device, with its id and category.
    #[error("{device} ({category}): {problem}")]
    Device {
        /// The device's id.
        device: String,
        /// Its category.
        category: String,
        /// What went wrong.
        problem: Box<DeviceError>,
    },
    /// The body has no front view (never, for the shapes there are).
    #[error("no front view")]
    NoFrontView,
    /// A part marked `panel` is not on the front face.
    #[error("{device}: a panel part must be on the front face")]
    PanelOffFront {
        /// The device's id.
        device: String,
    },
    /// A dashboard is asked for, and no part is marked `panel`.
    #[error("{device}: a dashboard needs parts marked \"panel\"")]
    NoPanel {
        /// The device's id.
        device: String,
    },
    /// The panel is too wide for a dashboard to magnify it.
    #[error(
        "{device}: the panel spans {width:.0} of {canvas} pixels of the front view; a dashboard is for a small \
         panel (at most {most:.0})"
    )]
    PanelTooWide {
        /// The device's id.
        device: String,
        /// The panel's width, padded, in pixels.
        width: f64,
        /// The front view's width, in pixels.
        canvas: f64,
        /// The widest panel a dashboard takes, in pixels.
        most: f64,
    },
    /// A view could not be drawn.
    #[error(transparent)]
    View(#[from] ViewError),
    /// A view could not be rendered.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// The description names a component its category's template lacks.
    #[error(
        "component \"{component}\" is not a part of the {category} template; its parts are: {}",
        .known.join(", ")
    )]
    NotInTemplate {
        /// The component.
        component: String,
        /// The category.
        category: String,
        /// The template's components.
        known: Vec<String>,
    },
    /// A component's actions could not be worked out.
    #[error(transparent)]
    Mechanics(#[from] MechanicsError),
    /// A component is drawn in no view (so it has no box).
    #[error("component {component} is seen in no view")]
    Unseen {
        /// The component.
        component: String,
    },
    /// The SSM could not be derived from the template.
    #[error(transparent)]
    Derive(#[from] DeriveError),
    /// Some states have no way out.
    #[error(
        "states with no way out: {}; give the device the part that leaves them",
        .states.join(", ")
    )]
    DeadEnd {
        /// The states.
        states: Vec<String>,
    },
    /// Too few tasks can be found.
    #[error(transparent)]
    Tasks(#[from] TooFewTasks),
    /// The bundle's rules report problems.
    #[error(
        "the generated bundle has problems:\n{}",
        .diagnostics.iter().map(|d| format!("  {d}")).collect::<Vec<_>>().join("\n")
    )]
    Problems {
        /// Every problem found.
        diagnostics: Vec<Diagnostic>,
    },
    /// A task's start or goal is not a state or view of the device.
    #[error("task {task:?}: its start or a goal is not a state or view")]
    TaskStart {
        /// The task's id.
        task: String,
    },
    /// A task has no ideal path.
    #[error("task {task:?}: {problem}")]
    NoIdealPath {
        /// The task's id.
        task: String,
        /// Why the planner found none.
        problem: PlanError,
    },
    /// The live layer could not be made.
    #[error(transparent)]
    Live(#[from] LiveError),
    /// A file could not be written as JSON.
    #[error("{message}")]
    Json {
        /// The JSON writer's message.
        message: String,
    },
}

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
    /// Each view's scene: the faces shown, where, and how lit.
    pub scenes: Vec<Scene>,
    /// Each scene's SVG, parsed, in the same order.
    pub trees: Vec<Tree>,
    /// Per component, its box in every view it is seen in.
    pub boxes: BTreeMap<String, Vec<ViewBox>>,
    /// The dashboard's region of the front view, when there is one.
    pub region: Option<[f64; 4]>,
}

/// Draws every view of `desc` and measures its components' boxes.
pub fn draw(desc: &DeviceDesc) -> Result<Drawing, DeviceError> {
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
            .ok_or(DeviceError::NoFrontView)?
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
fn panel_region(desc: &DeviceDesc, front: &Scene) -> Result<[f64; 4], DeviceError> {
    let (cw, ch) = CANVAS;
    let mut union: Option<[f64; 4]> = None;
    for p in desc.parts.iter().filter(|p| p.panel) {
        let [x, y, w, h] = part_rect(front, p).ok_or_else(|| DeviceError::PanelOffFront {
            device: desc.id.clone(),
        })?;
        let u = union.get_or_insert([x, y, x + w, y + h]);
        *u = [u[0].min(x), u[1].min(y), u[2].max(x + w), u[3].max(y + h)];
    }
    let [x0, y0, x1, y1] = union.ok_or_else(|| DeviceError::NoPanel {
        device: desc.id.clone(),
    })?;
    let w = ((x1 - x0) + 2.0 * PANEL_PADDING).max(((y1 - y0) + 2.0 * PANEL_PADDING) * cw / ch);
    if w > cw * MAX_PANEL_SHARE {
        return Err(DeviceError::PanelTooWide {
            device: desc.id.clone(),
            width: w,
            canvas: cw,
            most: cw * MAX_PANEL_SHARE,
        });
    }
    let h = w * ch / cw;
    let x = ((x0 + x1) / 2.0 - w / 2.0).clamp(0.0, cw - w).round();
    let y = ((y0 + y1) / 2.0 - h / 2.0).clamp(0.0, ch - h).round();
    Ok([x, y, w.round(), (w.round() * ch / cw).round()])
}

/// The generated bundle of one device: its files, by path in its folder.
pub struct Generated {
    /// The bundle's manifest.
    pub manifest: Manifest,
    /// Each file's bytes, by path in the device's folder.
    pub files: BTreeMap<String, Vec<u8>>,
    /// How many tasks it has.
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
) -> Result<Generated, DeviceError> {
    generate_counted(category, desc, ucsm, pictures, Counts::HAND, HAND_SOURCE)
}

/// Where a hand-described device comes from (its manifest's `source`).
pub const HAND_SOURCE: &str = "drawn for KnobLab by its device generator (knoblab library build)";
/// Where a generated variant comes from. The text is part of every
/// generated device's manifest, so of its content hash and of the frozen
/// library's version: it keeps the module path it was written with
/// (`knoblab::devicegen::vary`, now `knoblab_devicegen::vary`).
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
) -> Result<Generated, DeviceError> {
    let at = |problem: DeviceError| DeviceError::Device {
        device: desc.id.clone(),
        category: category.category.clone(),
        problem: Box::new(problem),
    };
    make(category, desc, ucsm, pictures, counts, source).map_err(at)
}

/// [`generate_counted`]'s work; its errors do not name the device yet.
fn make(
    category: &CategoryFile,
    desc: &DeviceDesc,
    ucsm: &StateMachine,
    pictures: bool,
    counts: Counts,
    source: &str,
) -> Result<Generated, DeviceError> {
    let drawing = draw(desc)?;
    let mut parts: BTreeMap<String, ComponentParts> = BTreeMap::new();
    let known = template_components(ucsm);
    for component in desc.parts.iter().filter_map(|p| p.component.as_ref()) {
        if !known.contains(component) {
            return Err(DeviceError::NotInTemplate {
                component: component.clone(),
                category: category.category.clone(),
                known: known.iter().cloned().collect(),
            });
        }
        let op = operation_of(component, &category.operations)?;
        let operated = operate(ucsm, component, &op)?;
        let bbox = drawing.boxes.get(component).cloned().unwrap_or_default();
        if bbox.is_empty() {
            return Err(DeviceError::Unseen {
                component: component.clone(),
            });
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
    let ssm = derive_device(ucsm, &parts)?;
    no_dead_end(&ssm)?;
    let task_list = counted_tasks(&ssm, INITIAL_VIEW, counts)?;
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
    let specs: Vec<(String, ViewSpec)> = drawing
        .scenes
        .iter()
        .map(|scene| {
            let spec = ViewSpec {
                file: format!("views/{}.png", scene.name),
                kind: scene.kind,
                parent: drawing
                    .region
                    .filter(|_| scene.name == "dashboard")
                    .map(|_| INITIAL_VIEW.to_string()),
                region: drawing.region.filter(|_| scene.name == "dashboard"),
            };
            (scene.name.clone(), spec)
        })
        .collect();
    sound(&manifest, &ssm, &specs, &task_list)?;
    let json_error = |e: serde_json::Error| DeviceError::Json {
        message: e.to_string(),
    };
    let mut views = serde_json::Map::new();
    for (name, spec) in &specs {
        views.insert(
            name.clone(),
            serde_json::to_value(spec).map_err(json_error)?,
        );
    }
    let json = |value: serde_json::Result<String>| {
        value.map(|s| (s + "\n").into_bytes()).map_err(json_error)
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
    let signs = super::live::part_signs(category, desc, ucsm, &ssm)?;
    if pictures {
        let mut statics = Vec::new();
        for (scene, tree) in drawing.scenes.iter().zip(&drawing.trees) {
            let pixmap = super::render::raster(tree)?;
            files.insert(
                format!("views/{}.png", scene.name),
                super::render::png(&pixmap)?,
            );
            statics.push(pixmap);
        }
        if !signs.is_empty() {
            files.extend(super::live::live_files(
                desc,
                &drawing.scenes,
                &statics,
                &signs,
                &ssm,
            )?);
        }
        check(desc, &files)?;
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
fn no_dead_end(ssm: &StateMachine) -> Result<(), DeviceError> {
    let dead: Vec<&str> = ssm
        .states
        .iter()
        .filter(|(name, s)| s.on.values().all(Vec::is_empty) && !s.is_error(name))
        .map(|(name, _)| name.as_str())
        .collect();
    if dead.is_empty() {
        return Ok(());
    }
    Err(DeviceError::DeadEnd {
        states: dead.into_iter().map(str::to_string).collect(),
    })
}

/// What makes a device sound, checked before a single pixel is drawn (so
/// that a generated variant is tried cheaply): the state machine's rules
/// (`bundle::validate`, stuck states included) report nothing, and every
/// task has an ideal path (the planner the oracle follows, goal after goal,
/// each from where the one before ended). The planner reads only the views'
/// sizes, so each view stands in with an empty picture of the canvas's size,
/// the size every box is measured on.
fn sound(
    manifest: &Manifest,
    ssm: &StateMachine,
    specs: &[(String, ViewSpec)],
    tasks: &[knoblab_core::bundle::Task],
) -> Result<(), DeviceError> {
    let problems = knoblab_core::bundle::validate::machine_diagnostics(ssm);
    if !problems.is_empty() {
        return Err(DeviceError::Problems {
            diagnostics: problems,
        });
    }
    let bundle = stand_in(manifest, ssm, specs, tasks);
    let device = knoblab_core::sim::Device::new(&bundle);
    for task in tasks {
        let (start, goals) = device
            .task_start(task)
            .ok_or_else(|| DeviceError::TaskStart {
                task: task.id.clone(),
            })?;
        knoblab_core::sim::planner::ideal_path(&device, start, &goals).map_err(|problem| {
            DeviceError::NoIdealPath {
                task: task.id.clone(),
                problem,
            }
        })?;
    }
    Ok(())
}

/// A device's bundle with each view standing in as an empty picture of
/// the canvas's size, the size every box is measured on and every view is
/// drawn at: all that the planner, the state-machine rules and the logic
/// hash read, without a pixel drawn.
pub(crate) fn stand_in(
    manifest: &Manifest,
    ssm: &StateMachine,
    specs: &[(String, ViewSpec)],
    tasks: &[knoblab_core::bundle::Task],
) -> knoblab_core::bundle::Bundle {
    use knoblab_core::bundle::{View, ViewImage};
    let (cw, ch) = CANVAS;
    knoblab_core::bundle::Bundle {
        manifest: manifest.clone(),
        ssm: ssm.clone(),
        views: specs
            .iter()
            .map(|(name, spec)| {
                let image = ViewImage {
                    width: cw as u32,
                    height: ch as u32,
                    media_type: "image/png".to_string(),
                    bytes: Vec::new().into(),
                };
                let spec = spec.clone();
                (name.clone(), View { spec, image })
            })
            .collect(),
        tasks: tasks.to_vec(),
        live: None,
    }
}

/// The bundle must load with no diagnostic at all, warnings included.
fn check(desc: &DeviceDesc, files: &BTreeMap<String, Vec<u8>>) -> Result<(), DeviceError> {
    let list: Vec<(String, Vec<u8>)> = files.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    let checked = check_files_in_memory(&desc.id, list);
    if checked.diagnostics.is_empty() {
        return Ok(());
    }
    Err(DeviceError::Problems {
        diagnostics: checked.diagnostics,
    })
}

#[cfg(test)]
mod tests;

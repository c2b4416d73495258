//! The live layer of a generated device (`live.json` and `live/<view>.png`,
//! see [`knoblab_core::bundle::live`]): what each state of the device shows,
//! drawn once at build time as small patches over the static views.
//!
//! ## What a state shows
//!
//! - **From the operations** (nothing to write): a rotary knob or dial
//!   points at the mark of the state's position (positions map onto marks
//!   in order, the initial state's as near the drawn pointer as the marks
//!   allow); a slide switch or lever sits at its position along the track;
//!   a part that slides `out` or `lift`s (a door, a lid, a drawer, a tray)
//!   is open above its lowest position; a plug (`in`) is in its port above
//!   its lowest position.
//! - **From the category's `signs`** (see [`SignRule`]): a part that names
//!   a sign is a light (lit in the rule's `on` and `blink` states, dark
//!   otherwise), a display (the rule's text, blank otherwise), a grille
//!   (blades spinning, blurred) or any other part (glowing).
//!
//! ## Overlays, not pictures per state
//!
//! Each distinct way a part looks (a variant) is drawn once per view that
//! shows the part: the whole view is rendered with that one part changed
//! and compared with the static rendering, and only the pixels that differ
//! are kept (transparent elsewhere), cropped to where they differ. A
//! view's patches are packed on one sheet. A state lists its patches; the
//! core lays them over the static picture ([`knoblab_core::sim::render`]). One
//! patch serves every state with that variant, so the layer grows with the
//! number of variants, not states × views.

use std::collections::{BTreeMap, BTreeSet};

use resvg::tiny_skia::Pixmap;

use knoblab_core::bundle::live::{LiveSpec, Patch, StateLook, LIVE_FILE, LIVE_FORMAT};
use knoblab_core::bundle::StateMachine;

use super::desc::{Axis, CategoryFile, DeviceDesc, Look, Operation, ShownAs, SignRule};
use super::draw::Variant;
use super::mechanics::operation_of;
use super::render::{bounds_where, measured_box, parse, png_rgba, raster, RenderError};
use super::views::{document_in, part_rect, Only, Scene, Variants, ViewError, CANVAS};

/// Why a device's live layer could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LiveError {
    /// A sign rule of the category names a state its template lacks.
    #[error(
        "sign \"{sign}\" names state \"{state}\", which the {category} template does not have"
    )]
    UnknownState {
        /// The sign.
        sign: String,
        /// The state it names.
        state: String,
        /// The category.
        category: String,
    },
    /// A part shows a sign the category does not define.
    #[error(
        "parts[{index}] shows sign \"{sign}\", which the category's \"signs\" does not \
         define; it defines: {}",
        .defined.join(", ")
    )]
    UnknownSign {
        /// The part's index in the description's `parts`.
        index: usize,
        /// The sign it names.
        sign: String,
        /// The signs the category defines.
        defined: Vec<String>,
    },
    /// A view with one part changed could not be drawn.
    #[error(transparent)]
    View(#[from] ViewError),
    /// A view with one part changed could not be rendered.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// A sheet of patches of this size cannot be made.
    #[error("cannot make a {width}×{height} sheet")]
    Sheet {
        /// Its width, in pixels.
        width: u32,
        /// Its height, in pixels.
        height: u32,
    },
    /// `live.json` could not be written.
    #[error("{message}")]
    Json {
        /// The JSON writer's message.
        message: String,
    },
}

/// Width of a sheet of patches (a patch wider than this gets its own row).
const SHEET_WIDTH: u32 = 640;

/// How one part looks in each state, and the words for it.
#[derive(Debug, Clone)]
pub struct PartSigns {
    /// The part's index in the description's `parts`.
    pub index: usize,
    /// Per state of the SSM: the variant and what it shows, in words.
    pub by_state: BTreeMap<String, (Variant, String)>,
}

/// Every part of `desc` that shows something, with its look in every state
/// of `ssm`.
pub fn part_signs(
    category: &CategoryFile,
    desc: &DeviceDesc,
    ucsm: &StateMachine,
    ssm: &StateMachine,
) -> Result<Vec<PartSigns>, LiveError> {
    for (sign, rule) in &category.signs {
        for state in rule
            .on
            .iter()
            .chain(&rule.blink)
            .chain(&rule.dim)
            .chain(rule.text.keys())
        {
            if !ucsm.states.contains_key(state) {
                return Err(LiveError::UnknownState {
                    sign: sign.clone(),
                    state: state.clone(),
                    category: category.category.clone(),
                });
            }
        }
    }
    let states: Vec<&str> = ssm.states.keys().map(String::as_str).collect();
    let mut out = Vec::new();
    for (index, part) in desc.parts.iter().enumerate() {
        let name = part_name(part);
        let mut by_state = BTreeMap::new();
        if let Some(sign) = &part.sign {
            let rule = category
                .signs
                .get(sign)
                .ok_or_else(|| LiveError::UnknownSign {
                    index,
                    sign: sign.clone(),
                    defined: category.signs.keys().cloned().collect(),
                })?;
            for &state in &states {
                by_state.insert(state.to_string(), declared(part.look, sign, rule, state));
            }
        } else if let Some(component) = &part.component {
            let Ok(op) = operation_of(component, &category.operations) else {
                continue;
            };
            let Some(found) = operated(part.look, &part.marks, part.pointer, &op, ssm, &name)
            else {
                continue;
            };
            by_state = found;
        }
        if !by_state.is_empty() {
            out.push(PartSigns { index, by_state });
        }
    }
    Ok(out)
}

/// What people call a part in a sign's words.
fn part_name(part: &super::desc::Part) -> String {
    part.label
        .clone()
        .filter(|l| !l.is_empty() && part.look != Look::Display && part.look != Look::Text)
        .or_else(|| part.component.clone())
        .unwrap_or_else(|| format!("{:?}", part.look).to_lowercase())
}

/// A declared sign's look in one state.
fn declared(look: Look, sign: &str, rule: &SignRule, state: &str) -> (Variant, String) {
    let on = rule.on.iter().any(|s| s == state);
    let blink = rule.blink.iter().any(|s| s == state);
    let dim = rule.dim.iter().any(|s| s == state);
    let shown = if look == Look::Grille && rule.shown_as == ShownAs::Glow {
        ShownAs::Spin
    } else {
        rule.shown_as
    };
    match look {
        Look::Display => match rule.text.get(state).or(rule.default.as_ref()) {
            Some(text) if dim => (
                Variant::DimText(text.clone()),
                format!("{sign} display dimmed, shows \"{text}\""),
            ),
            Some(text) => (
                Variant::Text(text.clone()),
                format!("{sign} display shows \"{text}\""),
            ),
            None => (Variant::Blank, format!("{sign} display blank")),
        },
        Look::Light if blink => (
            Variant::Static,
            format!("{sign} light blinking (drawn lit)"),
        ),
        Look::Light if on => (Variant::Static, format!("{sign} light on")),
        Look::Light if dim => (Variant::Dim, format!("{sign} light dim")),
        Look::Light => (Variant::Off, format!("{sign} light off")),
        _ if !(on || blink || dim) => (Variant::Static, format!("{sign} off")),
        _ => {
            let how = if blink { " (blinking, drawn lit)" } else { "" };
            match shown {
                ShownAs::Spin => (Variant::Spin, format!("{sign} moving{how}")),
                ShownAs::Open => (Variant::Open { lift: false }, format!("{sign} out")),
                ShownAs::Glow if dim => (Variant::Dim, format!("{sign} glowing dimly")),
                ShownAs::Glow => (Variant::Glow, format!("{sign} lit{how}")),
            }
        }
    }
}

/// A component's look in every state, from its operation (see the module
/// documentation); `None` when its look shows no position.
fn operated(
    look: Look,
    marks: &[String],
    pointer: usize,
    op: &Operation,
    ssm: &StateMachine,
    name: &str,
) -> Option<BTreeMap<String, (Variant, String)>> {
    let (positions, default, axis) = match op {
        Operation::Rotate { positions, default } => (positions, *default, None),
        Operation::Slide {
            axis,
            positions,
            default,
        } => (positions, *default, Some(*axis)),
        _ => return None,
    };
    let at = |s: &str| positions.get(s).copied().unwrap_or(default);
    let all: BTreeSet<i32> = ssm.states.keys().map(|s| at(s)).collect();
    let (&low, &high) = (all.first()?, all.last()?);
    let mut out = BTreeMap::new();
    for state in ssm.states.keys() {
        let p = at(state);
        let shown = match (axis, look) {
            (None, Look::Knob | Look::Dial) if marks.len() > 1 => {
                let n = marks.len() as i32;
                let span = high - low;
                let start = at(&ssm.initial_state);
                let base = (pointer as i32 - (start - low)).clamp(0, (n - 1 - span).max(0));
                let mark = (base + p - low).clamp(0, n - 1) as usize;
                (
                    Variant::Pointer(mark),
                    format!("{name} at {}", marks.get(mark).map_or("", String::as_str)),
                )
            }
            (Some(Axis::Up | Axis::Down | Axis::Right), Look::Slider | Look::Lever) => {
                let steps = (high - low).max(1) as u32;
                let step = (p - low) as u32;
                // Pushed up to go higher: the thumb starts at the bottom.
                let along = if axis == Some(Axis::Up) {
                    steps - step
                } else {
                    step
                };
                (
                    Variant::Thumb(along, steps),
                    format!("{name} at position {}", p - low),
                )
            }
            (Some(Axis::Out | Axis::Lift), _) if p > low => (
                Variant::Open {
                    lift: axis == Some(Axis::Lift),
                },
                format!("{name} open"),
            ),
            (Some(Axis::Out | Axis::Lift), _) => (Variant::Static, format!("{name} closed")),
            (Some(Axis::In), _) if p > low => (Variant::Plugged, format!("{name} plugged in")),
            (Some(Axis::In), _) => (Variant::Static, format!("{name} empty")),
            _ => return None,
        };
        out.insert(state.clone(), shown);
    }
    Some(out)
}

/// The live layer's files: `live.json` and one sheet per view with
/// patches. `statics` are the static renderings, in the order of `scenes`.
pub fn live_files(
    desc: &DeviceDesc,
    scenes: &[Scene],
    statics: &[Pixmap],
    signs: &[PartSigns],
    ssm: &StateMachine,
) -> Result<BTreeMap<String, Vec<u8>>, LiveError> {
    let mut patches: Vec<Patch> = Vec::new();
    let mut images: Vec<Pixmap> = Vec::new();
    // (part, variant) → the patches drawing it, one per view that shows it.
    let mut drawn: BTreeMap<(usize, Variant), Vec<usize>> = BTreeMap::new();
    for ps in signs {
        let part = &desc.parts[ps.index];
        let variants: BTreeSet<(&Variant, &String)> =
            ps.by_state.values().map(|(v, w)| (v, w)).collect();
        for (variant, words) in variants {
            if *variant == Variant::Static {
                continue;
            }
            let mut made = Vec::new();
            for (scene, base) in scenes.iter().zip(statics) {
                let Some(rect) = part_rect(scene, part) else {
                    continue;
                };
                let mut only = Variants::new();
                only.insert(ps.index, variant.clone());
                let tree = parse(&document_in(desc, scene, Only::Everything, &only)?)?;
                let changed = raster(&tree)?;
                let Some((image, at)) = difference(base, &changed) else {
                    continue;
                };
                let (component, moved_box) = match &part.component {
                    Some(c) => moved(&tree, base_box(desc, scene, c)?, c),
                    None => (None, None),
                };
                made.push(patches.len());
                patches.push(Patch {
                    view: scene.name.clone(),
                    from: [0, 0, image.width(), image.height()],
                    at,
                    sign: words.clone(),
                    part: rect.map(|v| (v * 100.0).round() / 100.0),
                    component,
                    moved_box,
                });
                images.push(image);
            }
            drawn.insert((ps.index, variant.clone()), made);
        }
    }
    let mut states = BTreeMap::new();
    for state in ssm.states.keys() {
        let mut look = StateLook::default();
        for ps in signs {
            if let Some((variant, words)) = ps.by_state.get(state) {
                look.signs.push(words.clone());
                if let Some(made) = drawn.get(&(ps.index, variant.clone())) {
                    look.patches.extend(made);
                }
            }
        }
        states.insert(state.clone(), look);
    }
    let mut files = BTreeMap::new();
    let mut sheets = BTreeMap::new();
    for scene in scenes {
        let mine: Vec<usize> = (0..patches.len())
            .filter(|&i| patches[i].view == scene.name)
            .collect();
        if mine.is_empty() {
            continue;
        }
        let sheet = pack(&mine, &mut patches, &images)?;
        let file = format!("live/{}.png", scene.name);
        files.insert(file.clone(), png_rgba(&sheet)?);
        sheets.insert(scene.name.clone(), file);
    }
    let spec = LiveSpec {
        format: LIVE_FORMAT.to_string(),
        sheets,
        patches,
        states,
    };
    files.insert(
        LIVE_FILE.to_string(),
        (serde_json::to_string_pretty(&spec).map_err(|e| LiveError::Json {
            message: e.to_string(),
        })? + "\n")
            .into_bytes(),
    );
    Ok(files)
}

/// The component's box on the static drawing of the scene.
fn base_box(
    desc: &DeviceDesc,
    scene: &Scene,
    component: &str,
) -> Result<Option<[f64; 4]>, LiveError> {
    let tree = parse(&document_in(
        desc,
        scene,
        Only::Component(component),
        &Variants::new(),
    )?)?;
    Ok(measured_box(&tree, component))
}

/// Where a component is drawn now, when that differs from its static box:
/// the measured box, kept inside the static one (matching uses the static
/// box, so a click where the part is drawn must reach it).
fn moved(
    tree: &resvg::usvg::Tree,
    base: Option<[f64; 4]>,
    component: &str,
) -> (Option<String>, Option<[f64; 6]>) {
    let (Some(now), Some([bx, by, bw, bh])) = (measured_box(tree, component), base) else {
        return (None, None);
    };
    if now == [bx, by, bw, bh] {
        return (None, None);
    }
    let x0 = now[0].max(bx);
    let y0 = now[1].max(by);
    let x1 = (now[0] + now[2]).min(bx + bw);
    let y1 = (now[1] + now[3]).min(by + bh);
    if x1 - x0 < 1.0 || y1 - y0 < 1.0 || [x0, y0, x1 - x0, y1 - y0] == [bx, by, bw, bh] {
        return (None, None);
    }
    let (cw, ch) = CANVAS;
    (
        Some(component.to_string()),
        Some([x0, y0, x1 - x0, y1 - y0, cw, ch]),
    )
}

/// The pixels of `changed` that differ from `base`, cropped to where they
/// differ (transparent where they do not), and where the crop goes.
fn difference(base: &Pixmap, changed: &Pixmap) -> Option<(Pixmap, [u32; 2])> {
    let w = base.width();
    let differs = |i: usize| base.pixels()[i] != changed.pixels()[i];
    let [x0, y0, bw, bh] = bounds_where(w, base.pixels().len(), differs)?;
    let mut out = Pixmap::new(bw, bh)?;
    let ow = out.width();
    for y in y0..y0 + bh {
        for x in x0..x0 + bw {
            let i = (y * w + x) as usize;
            if differs(i) {
                out.pixels_mut()[((y - y0) * ow + (x - x0)) as usize] = changed.pixels()[i];
            }
        }
    }
    Some((out, [x0, y0]))
}

/// Packs the patches `mine` on one sheet, row by row in their order,
/// setting each one's `from`.
fn pack(mine: &[usize], patches: &mut [Patch], images: &[Pixmap]) -> Result<Pixmap, LiveError> {
    let (mut x, mut y, mut row) = (0u32, 0u32, 0u32);
    let mut width = SHEET_WIDTH;
    let mut places = Vec::new();
    for &i in mine {
        let (w, h) = (images[i].width(), images[i].height());
        width = width.max(w);
        if x + w > width && x > 0 {
            y += row;
            x = 0;
            row = 0;
        }
        places.push((i, x, y));
        x += w;
        row = row.max(h);
    }
    let height = (y + row).max(1);
    let mut sheet = Pixmap::new(width, height).ok_or(LiveError::Sheet { width, height })?;
    for (i, px, py) in places {
        let image = &images[i];
        for yy in 0..image.height() {
            for xx in 0..image.width() {
                sheet.pixels_mut()[((py + yy) * width + px + xx) as usize] =
                    image.pixels()[(yy * image.width() + xx) as usize];
            }
        }
        patches[i].from = [px, py, image.width(), image.height()];
    }
    Ok(sheet)
}

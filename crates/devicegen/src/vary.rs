// Over 600 lines: every choice a variant makes draws from one seeded stream in a fixed order,
// and that order is part of the frozen library (each device's content hash), so
// the steps stay in one file where their order reads top to bottom.

//! The seeded variation generator: many distinct devices per category,
//! each a pure function of (the category's template, its description file,
//! the design space `data/gen/space/space.json`, an index).
//!
//! A variant starts from one of the category's hand-described devices (its
//! archetype, taken in turn) and is changed, every choice drawn from a
//! ChaCha8 stream seeded by the category and the index:
//!
//! - **Optional components**: some controls are left out, which prunes the
//!   template to a smaller SSM ([`knoblab_core::bundle::derive`]: unreachable
//!   states go; a variant whose SSM has a dead end or too few tasks is
//!   refused and the next attempt drawn); a control whose only work is a
//!   timer ([`Space::timer_controls`]) more often.
//! - **Timers**: an automatic switch-off or relock the template has
//!   ([`Space::optional_timers`]) left out; a warm-up skipped
//!   ([`Space::instant`]: what led into it leads where its timer would).
//! - **Control kinds**: a pressed control drawn as a button, a round button
//!   or a rocker; a two-position pressed control may become a slide switch
//!   (pushed on, pulled off: another action in the SSM) or a rotary switch
//!   (turned on, turned back); a rotary as a knob or a dial; a slide as a
//!   slider or a lever; a door pulled open a push latch, a lever pulled
//!   across pushed ([`Space::latches`]). A transition whose action changes
//!   is described with the new verb ("Turn the power switch").
//! - **Body**: its proportions (width, height and depth scaled, the parts
//!   with their faces), its corner rounding, its material (body and trim
//!   colours), the controls' colour.
//! - **Layout**: a face's parts mirrored left to right (the panel on the
//!   other side), the positions of same-sized controls exchanged.
//! - **Wording**: labels replaced by other words for the same thing, in
//!   title case, dropped for an icon; icons added or taken away; each goal's
//!   request phrased by one of several templates.
//!
//! Every step keeps parts inside the rectangle they had, so nothing that
//! did not overlap comes to overlap.

use std::collections::BTreeMap;

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde::Deserialize;
use sha2::{Digest, Sha256};

use knoblab_core::bundle::model::TIMED_WAIT;
use knoblab_core::bundle::StateMachine;

use super::desc::{Axis, CategoryFile, DeviceDesc, Face, Look, Operation, Part, Shape};
use super::mechanics::{operate, operation_of};
use super::views::face_size;

/// Where the design space is, relative to the repository root.
pub const SPACE_FILE: &str = "data/gen/space/space.json";
/// The `format` of the design space file.
pub const SPACE_FORMAT: &str = "knoblab-space/1";
/// How many attempts a variant gets before it is drawn without pruning or
/// slide switches.
pub const ATTEMPTS: u32 = 12;

/// The design space of every category (`data/gen/space/space.json`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Space {
    /// Must be [`SPACE_FORMAT`].
    pub format: String,
    /// The generated library's version (recorded in its manifest).
    pub version: String,
    /// Single- and multi-turn tasks each generated device gets.
    pub single_turn: usize,
    /// Multi-turn tasks each generated device gets.
    pub multi_turn: usize,
    /// Devices per category, the hand-described ones included (the
    /// paper's Table 7).
    pub counts: BTreeMap<String, usize>,
    /// How much the body's width, height and depth may be scaled.
    pub proportions: Proportions,
    /// The range a box body's corner rounding is drawn from.
    pub round: [f64; 2],
    /// Body materials a variant takes its name's word and colours from.
    pub materials: Vec<Material>,
    /// Colours a device's controls may take.
    pub accents: Vec<String>,
    /// Other words for a printed label (by the label's text).
    pub labels: BTreeMap<String, Vec<String>>,
    /// An icon for a control whose name contains the key.
    pub icons: BTreeMap<String, String>,
    /// The chance of each change a variant may get.
    pub chances: Chances,
    /// Parts pulled in the archetype that a model may push instead
    /// ([`Chances::door_as_latch`]): a door pulled out along `out` opened
    /// by a push latch, a lever pulled across thumbed across.
    pub latches: Vec<String>,
    /// Per category, states a model may not have ([`Chances::instant`]):
    /// a wait whose timed transition a quicker model does at once.
    pub instant: BTreeMap<String, Vec<String>>,
    /// Controls whose only work is a timer or a delay (a sleep timer, a
    /// delayed start), left out with [`Chances::prune_timer`].
    pub timer_controls: Vec<String>,
    /// Per category, the states whose timed transition is a feature a
    /// device may lack ([`Chances::drop_timer`]): an automatic switch-off
    /// or relock, not the end of a programme the device exists to run.
    pub optional_timers: BTreeMap<String, Vec<String>>,
    /// Templates a goal's request is phrased with: `{}` the request as the
    /// template writes it, `{lc}` with a small first letter, `{lc_q}` also
    /// without its final full stop.
    pub requests: Vec<String>,
}

/// Ranges the body's width, height and depth are scaled by.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Proportions {
    /// The range the width is scaled by: [least, most].
    pub width: [f64; 2],
    /// The range the height is scaled by: [least, most].
    pub height: [f64; 2],
    /// The range the depth is scaled by: [least, most].
    pub depth: [f64; 2],
}

/// A body material: its name (in the device's name) and colours.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Material {
    /// Its word in the device's name.
    pub name: String,
    /// The body colour, `#rrggbb`.
    pub color: String,
    /// The trim colour, for a body that has a trim.
    pub trim: String,
}

/// The chance of each change (0 never, 1 always).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Chances {
    /// Each optional control left out.
    pub prune: f64,
    /// Each drawer, plug or chain (parts pulled out) left out.
    pub prune_pulled: f64,
    /// A two-position pressed control made a slide switch.
    pub press_as_slide: f64,
    /// A slide switch made a rotary selector (the same positions, turned).
    pub slide_as_rotate: f64,
    /// A two-position pressed control made a rotary switch (turned on,
    /// turned back off).
    pub press_as_rotate: f64,
    /// A door of [`Space::latches`] opened by a push latch (pushed to
    /// spring open, pushed shut) instead of pulled open.
    pub door_as_latch: f64,
    /// Each timed transition of [`Space::optional_timers`] left out (a
    /// scale without auto-off, a key fob that does not lock itself again).
    pub drop_timer: f64,
    /// Each state of [`Space::instant`] skipped: what led into it leads
    /// where its timer would have (a coffee machine that is hot at once).
    pub instant: f64,
    /// Each control of [`Space::timer_controls`] left out (instead of
    /// [`Chances::prune`]).
    pub prune_timer: f64,
    /// A button, round button or rocker given another of these looks.
    pub restyle_press: f64,
    /// A knob made a dial, or a dial a knob.
    pub restyle_rotate: f64,
    /// A slide switch made a lever, or a lever a slide switch.
    pub restyle_slide: f64,
    /// Each face's parts mirrored.
    pub mirror_face: f64,
    /// Each group of same-sized controls shuffled.
    pub shuffle_group: f64,
    /// The buttons, rockers, knobs and dials given one of [`Space::accents`].
    pub recolour_controls: f64,
    /// A box body's corner rounding drawn again from [`Space::round`].
    pub reround: f64,
    /// A label with other words in [`Space::labels`] given one of them.
    pub relabel: f64,
    /// A label put in title case.
    pub title_case: f64,
    /// A control with both an icon and a label loses its icon.
    pub drop_icon: f64,
    /// A button without an icon given one from [`Space::icons`].
    pub add_icon: f64,
    /// A button with an icon loses its label.
    pub icon_only: f64,
}

/// Why a design space was refused, or a variant could not be drawn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VaryError {
    /// The design space is not its JSON.
    #[error("{SPACE_FILE}: {error}; see data/README.md, \"Generated devices\"")]
    SpaceJson {
        /// The JSON reader's error.
        error: knoblab_core::input::json::JsonError,
    },
    /// The design space is of another format.
    #[error("{SPACE_FILE}: format is {found:?}; expected {SPACE_FORMAT:?}")]
    SpaceFormat {
        /// The `format` found.
        found: String,
    },
    /// The design space leaves a list empty that variants draw from.
    #[error("{SPACE_FILE}: materials, accents and requests must each name at least one")]
    SpaceEmpty,
    /// The category file describes no device to vary.
    #[error("{category}: no device to vary")]
    NoArchetype {
        /// The category.
        category: String,
    },
}

impl Space {
    /// Reads and checks a design space.
    pub fn parse(text: &str) -> Result<Space, VaryError> {
        let space: Space = knoblab_core::input::json::from_text(text)
            .map_err(|e| VaryError::SpaceJson { error: e })?;
        if space.format != SPACE_FORMAT {
            return Err(VaryError::SpaceFormat {
                found: space.format,
            });
        }
        if space.materials.is_empty() || space.accents.is_empty() || space.requests.is_empty() {
            return Err(VaryError::SpaceEmpty);
        }
        Ok(space)
    }
}

/// One variant, ready for [`super::device::generate`]: the category file
/// with this device's operations, the device, and the template with this
/// device's wording of the requests.
#[derive(Debug, Clone)]
pub struct Variant {
    /// The category file, with this device's operations.
    pub category: CategoryFile,
    /// The varied device's description.
    pub desc: DeviceDesc,
    /// The category template, with this device's wording of the requests.
    pub ucsm: StateMachine,
    /// Which hand-described device it was varied from.
    pub archetype: String,
    /// The attempt that was kept (0 first; [`ATTEMPTS`] the plain one).
    pub attempt: u32,
}

/// The id prefix of a category's devices (`lamp` for `lamp-0001`).
pub fn prefix(file: &CategoryFile) -> String {
    file.devices
        .first()
        .and_then(|d| d.id.rsplit_once('-').map(|(p, _)| p.to_string()))
        .unwrap_or_else(|| file.category.to_lowercase())
}

/// The id of generated device `index` (from 1) of a category.
pub fn variant_id(file: &CategoryFile, index: usize) -> String {
    format!("{}-g{index:04}", prefix(file))
}

/// The category's name in words: `air fryer` for `AirFryer`.
pub fn noun(category: &str) -> String {
    let mut out = String::new();
    for (i, c) in category.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push(' ');
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// A deterministic stream for (category, index, attempt).
fn stream(category: &str, index: usize, attempt: u32) -> ChaCha8Rng {
    let digest = Sha256::digest(format!("knoblab-variant/1:{category}:{index}:{attempt}"));
    let mut seed = [0u8; 32];
    seed.copy_from_slice(&digest);
    ChaCha8Rng::from_seed(seed)
}

/// Draws from a stream: fractions, ranges, picks.
struct Dice(ChaCha8Rng);

impl Dice {
    /// A fraction in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    fn range(&mut self, [lo, hi]: [f64; 2]) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    fn index(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.0.next_u64() % n as u64) as usize
        }
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.index(items.len())]
    }
    /// A permutation of 0..n (Fisher–Yates).
    fn shuffle(&mut self, n: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = self.index(i + 1);
            order.swap(i, j);
        }
        order
    }
}

/// How a component is worked, in broad kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Press,
    Rotate,
    Slide,
    Other,
}

fn kind(op: &Operation) -> Kind {
    match op {
        Operation::Press => Kind::Press,
        Operation::Rotate { .. } => Kind::Rotate,
        Operation::Slide {
            axis: Axis::Up | Axis::Down | Axis::Right,
            ..
        } => Kind::Slide,
        _ => Kind::Other,
    }
}

/// Looks a control can be drawn with and still be what it is.
const PRESS_LOOKS: [Look; 3] = [Look::Button, Look::RoundButton, Look::Rocker];
const ROTATE_LOOKS: [Look; 2] = [Look::Knob, Look::Dial];
const SLIDE_LOOKS: [Look; 2] = [Look::Slider, Look::Lever];

/// The size a look gets inside a part's rectangle `[w, h]`.
fn fit(look: Look, [w, h]: [f64; 2]) -> [f64; 2] {
    let m = w.min(h);
    match look {
        Look::RoundButton | Look::Knob | Look::Dial => [m, m],
        Look::Rocker => [m * 0.62, m],
        Look::Button => [w, h.min(w)],
        Look::Slider | Look::Lever if h >= w => [m * 0.45, h],
        Look::Slider | Look::Lever => [w, m * 0.45],
        _ => [w, h],
    }
}

/// Positions that make a pressed control a two-position switch: every
/// one of its transitions goes from one position to the other. None when
/// its transitions do not split the states so.
fn two_positions(ucsm: &StateMachine, component: &str) -> Option<BTreeMap<String, i32>> {
    let mut edges: Vec<(&str, &str)> = Vec::new();
    for (from, state) in &ucsm.states {
        for t in state.on.get(component).into_iter().flatten() {
            edges.push((from.as_str(), t.next_state.as_str()));
        }
    }
    if edges.is_empty() {
        return None;
    }
    let mut side: BTreeMap<&str, i32> = BTreeMap::new();
    // The initial state, when the control works there, is "off" (0).
    let first = edges
        .iter()
        .find(|(f, _)| *f == ucsm.initial_state)
        .or(edges.first())
        .map(|(f, _)| *f)?;
    side.insert(first, 0);
    let mut changed = true;
    while changed {
        changed = false;
        for &(a, b) in &edges {
            match (side.get(a).copied(), side.get(b).copied()) {
                (Some(x), Some(y)) if x == y => return None,
                (Some(x), None) => {
                    side.insert(b, 1 - x);
                    changed = true;
                }
                (None, Some(y)) => {
                    side.insert(a, 1 - y);
                    changed = true;
                }
                _ => {}
            }
        }
        if !changed {
            // A part of the graph not yet reached from `first`.
            if let Some(&(a, _)) = edges.iter().find(|(a, _)| !side.contains_key(a)) {
                side.insert(a, 0);
                changed = true;
            }
        }
    }
    Some(
        side.into_iter()
            .filter(|(_, p)| *p == 1)
            .map(|(s, p)| (s.to_string(), p))
            .collect(),
    )
}

fn title_case(label: &str) -> String {
    label
        .split(' ')
        .map(|w| {
            let mut cs = w.chars();
            match cs.next() {
                Some(c) => c
                    .to_uppercase()
                    .chain(cs.flat_map(char::to_lowercase))
                    .collect(),
                None => String::new(),
            }
        })
        .collect::<Vec<String>>()
        .join(" ")
}

/// `request` phrased by `template`.
fn phrase(template: &str, request: &str) -> String {
    let mut chars = request.chars();
    let lc: String = match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    };
    let lc_q = lc.trim_end_matches('.').to_string();
    template
        .replace("{lc_q}", &lc_q)
        .replace("{lc}", &lc)
        .replace("{}", request)
}

/// Which component each part is and how it is worked (`None`: a part
/// that works nothing, or a component the category does not operate).
fn operations(parts: &[Part], file: &CategoryFile) -> Vec<Option<Operation>> {
    parts
        .iter()
        .map(|p| {
            p.component
                .as_ref()
                .and_then(|c| operation_of(c, &file.operations).ok())
        })
        .collect()
}

/// Draws variant `index` (from 1) of a category, attempt `attempt`: with
/// `plain`, no control is left out and none becomes a slide switch (the
/// fallback that always keeps the archetype's logic).
pub fn draw_variant(
    space: &Space,
    file: &CategoryFile,
    ucsm: &StateMachine,
    index: usize,
    attempt: u32,
) -> Result<Variant, VaryError> {
    let plain = attempt >= ATTEMPTS;
    let archetypes = &file.devices;
    if archetypes.is_empty() {
        return Err(VaryError::NoArchetype {
            category: file.category.clone(),
        });
    }
    let base = &archetypes[(index - 1) % archetypes.len()];
    let mut dice = Dice(stream(&file.category, index, attempt));
    let mut desc = base.clone();
    let mut category = file.clone();
    category.devices = Vec::new();
    desc.id = variant_id(file, index);

    // Which component each part is and how it is worked.
    let ops = operations(&desc.parts, file);
    if !plain {
        leave_out_controls(&mut dice, space, &mut desc, &ops);
    }
    let ops = operations(&desc.parts, file);
    let mut template = ucsm.clone();
    if !plain {
        leave_out_timers(&mut dice, space, file, &mut template);
    }
    let mut draft = Draft {
        desc,
        category,
        template,
    };
    work_controls(&mut dice, space, ucsm, plain, &mut draft, &ops);
    direct_slides(ucsm, &mut draft);
    let Draft {
        mut desc,
        category,
        mut template,
    } = draft;
    exchange_places(&mut dice, space, &mut desc);
    mirror_faces(&mut dice, space, &mut desc);
    proportions(&mut dice, space, &mut desc);
    let material = materials(&mut dice, space, &mut desc);
    wording(&mut dice, space, &mut desc);
    phrase_requests(&mut dice, space, &mut template);

    let model = format!(
        "{}{}",
        prefix(file)
            .chars()
            .next()
            .unwrap_or('x')
            .to_ascii_uppercase(),
        100 + (dice.0.next_u64() % 900)
    );
    desc.name = format!("{} {} {model}", material.name, noun(&file.category));
    Ok(Variant {
        category,
        desc,
        ucsm: template,
        archetype: base.id.clone(),
        attempt,
    })
}

/// What a variant is drawn on: the device, its category file and its
/// template, changed step by step.
struct Draft {
    desc: DeviceDesc,
    category: CategoryFile,
    template: StateMachine,
}

/// Controls, and the small parts that are pulled out, left out: at most
/// half of them.
fn leave_out_controls(
    dice: &mut Dice,
    space: &Space,
    desc: &mut DeviceDesc,
    ops: &[Option<Operation>],
) {
    let chances = &space.chances;
    // Controls, and the small parts that are pulled out (a drawer, a
    // plug, a chain), may be left out; a body without them still looks
    // whole. Parts that show a sign stay, but for a timer control,
    // whose light goes with it.
    let controls: Vec<(usize, f64)> = (0..desc.parts.len())
        .filter_map(|i| {
            let op = ops[i].as_ref()?;
            let timer = desc.parts[i]
                .component
                .as_ref()
                .is_some_and(|c| space.timer_controls.contains(c));
            if desc.parts[i].sign.is_some() && !timer {
                None
            } else if timer {
                Some((i, chances.prune_timer))
            } else if kind(op) != Kind::Other {
                Some((i, chances.prune))
            } else if pulled(op)
                && matches!(desc.parts[i].look, Look::Drawer | Look::Port | Look::Chain)
            {
                Some((i, chances.prune_pulled))
            } else {
                None
            }
        })
        .collect();
    let mut drop: Vec<usize> = controls
        .iter()
        .filter(|(_, p)| dice.chance(*p))
        .map(|(i, _)| *i)
        .collect();
    drop.truncate(controls.len() / 2);
    let mut i = 0;
    desc.parts.retain(|_| {
        i += 1;
        !drop.contains(&(i - 1))
    });
}

/// Optional timers: an automatic switch-off or relock left out, a state
/// that moves on by itself skipped (the derivation then drops what only it
/// reached; an unsound result is refused like any other attempt).
fn leave_out_timers(
    dice: &mut Dice,
    space: &Space,
    file: &CategoryFile,
    template: &mut StateMachine,
) {
    let chances = &space.chances;
    for state in space
        .optional_timers
        .get(&file.category)
        .into_iter()
        .flatten()
    {
        let Some(s) = template.states.get_mut(state) else {
            continue;
        };
        if s.on.contains_key(TIMED_WAIT) && dice.chance(chances.drop_timer) {
            s.on.remove(TIMED_WAIT);
        }
    }
    for state in space.instant.get(&file.category).into_iter().flatten() {
        if dice.chance(chances.instant) {
            skip(template, state);
        }
    }
}

/// Control kinds: a control worked another way (a press as a turn or a
/// slide, a slide as a turn, a pulled door as a push latch), or restyled.
fn work_controls(
    dice: &mut Dice,
    space: &Space,
    ucsm: &StateMachine,
    plain: bool,
    draft: &mut Draft,
    ops: &[Option<Operation>],
) {
    let chances = &space.chances;
    let Draft {
        desc,
        category,
        template,
    } = draft;
    for (part, op) in desc.parts.iter_mut().zip(ops) {
        let (Some(component), Some(op)) = (part.component.clone(), op) else {
            continue;
        };
        match kind(op) {
            Kind::Press if PRESS_LOOKS.contains(&part.look) => {
                // A two-position switch turned on and back off.
                if !plain && dice.chance(chances.press_as_rotate) {
                    if let Some(positions) = two_positions(ucsm, &component) {
                        let rotary = Operation::Rotate {
                            positions,
                            default: 0,
                        };
                        if operate(ucsm, &component, &rotary).is_ok() {
                            part.look = Look::Knob;
                            part.size = fit(Look::Knob, part.size);
                            part.marks = rotary_marks(&rotary);
                            part.pointer = 0;
                            part.icon = None;
                            category.operations.insert(component.clone(), rotary);
                            reword(template, &component, "Press", "Turn");
                            continue;
                        }
                    }
                }
                let slide = !plain && dice.chance(chances.press_as_slide);
                if slide {
                    if let Some(positions) = two_positions(ucsm, &component) {
                        let vertical = part.size[1] >= part.size[0] * 0.8;
                        let axis = if vertical { Axis::Up } else { Axis::Right };
                        let op = Operation::Slide {
                            axis,
                            positions,
                            default: 0,
                        };
                        if operate(ucsm, &component, &op).is_ok() {
                            let m = part.size[0].min(part.size[1]);
                            part.size = if vertical {
                                [m * 0.45, part.size[1].max(m)]
                            } else {
                                [part.size[0], m * 0.45]
                            };
                            part.look = Look::Slider;
                            part.icon = None;
                            category.operations.insert(component.clone(), op);
                            reword(template, &component, "Press", "Slide");
                            continue;
                        }
                    }
                }
                if dice.chance(chances.restyle_press) {
                    let look = *dice.pick(&PRESS_LOOKS);
                    if look != part.look {
                        part.size = fit(look, part.size);
                        part.look = look;
                    }
                }
            }
            Kind::Rotate
                if ROTATE_LOOKS.contains(&part.look) && dice.chance(chances.restyle_rotate) =>
            {
                part.look = *dice.pick(&ROTATE_LOOKS);
                part.size = fit(part.look, part.size);
            }
            Kind::Slide if SLIDE_LOOKS.contains(&part.look) => {
                if let Operation::Slide {
                    positions, default, ..
                } = op
                {
                    let rotary = Operation::Rotate {
                        positions: positions.clone(),
                        default: *default,
                    };
                    if !plain
                        && dice.chance(chances.slide_as_rotate)
                        && operate(ucsm, &component, &rotary).is_ok()
                    {
                        part.look = Look::Knob;
                        part.size = [part.size[0].max(part.size[1]) * 0.5; 2];
                        part.marks = rotary_marks(&rotary);
                        part.pointer = 0;
                        category.operations.insert(component.clone(), rotary);
                        continue;
                    }
                }
                if dice.chance(chances.restyle_slide) {
                    part.look = *dice.pick(&SLIDE_LOOKS);
                }
            }
            // A door opened by a push latch: pushed, it springs open;
            // pushed again, it shuts (the same states, each move a push).
            Kind::Other
                if !plain
                    && space.latches.contains(&component)
                    && dice.chance(chances.door_as_latch) =>
            {
                let parameter = match op {
                    Operation::Slide {
                        axis: Axis::Out, ..
                    } => vec!["4".to_string()],
                    Operation::Fixed { action, parameter } if action == "pull" => parameter.clone(),
                    _ => continue,
                };
                let latch = Operation::Fixed {
                    action: "push".to_string(),
                    parameter,
                };
                if operate(ucsm, &component, &latch).is_ok() {
                    category.operations.insert(component.clone(), latch);
                    reword(template, &component, "Pull", "Push");
                }
            }
            _ => {}
        }
    }
}

/// A slide switch's positions run the way that has it pushed more often
/// than pulled (its "on" end up or down: both are made).
fn direct_slides(ucsm: &StateMachine, draft: &mut Draft) {
    let Draft { desc, category, .. } = draft;
    let slides: Vec<String> = category
        .operations
        .iter()
        .filter(|(c, op)| {
            matches!(
                op,
                Operation::Slide {
                    axis: Axis::Up | Axis::Down | Axis::Right,
                    ..
                }
            ) && desc.parts.iter().any(|p| p.component.as_ref() == Some(*c))
        })
        .map(|(c, _)| c.clone())
        .collect();
    for component in slides {
        let Some(op) = category.operations.get(&component).cloned() else {
            continue;
        };
        let flipped = reversed(&op);
        if pushes(ucsm, &component, &flipped) > pushes(ucsm, &component, &op) {
            category.operations.insert(component, flipped);
        }
    }
}

/// Layout: the places of same-looking, same-sized controls exchanged.
fn exchange_places(dice: &mut Dice, space: &Space, desc: &mut DeviceDesc) {
    let chances = &space.chances;
    let mut groups: BTreeMap<(Face, String), Vec<usize>> = BTreeMap::new();
    for (i, p) in desc.parts.iter().enumerate() {
        if p.component.is_some() && !p.panel {
            let key = format!("{:?} {:.0} {:.0}", p.look, p.size[0], p.size[1]);
            groups.entry((p.face, key)).or_default().push(i);
        }
    }
    for (i, p) in desc.parts.iter().enumerate() {
        if p.component.is_some() && p.panel {
            let key = format!("panel {:?} {:.0} {:.0}", p.look, p.size[0], p.size[1]);
            groups.entry((p.face, key)).or_default().push(i);
        }
    }
    for members in groups.values().filter(|m| m.len() >= 2) {
        if !dice.chance(chances.shuffle_group) {
            continue;
        }
        let places: Vec<[f64; 2]> = members.iter().map(|&i| desc.parts[i].at).collect();
        for (k, j) in dice.shuffle(members.len()).into_iter().enumerate() {
            desc.parts[members[k]].at = places[j];
        }
    }
}

/// Faces mirrored (the panel on the other side).
fn mirror_faces(dice: &mut Dice, space: &Space, desc: &mut DeviceDesc) {
    let chances = &space.chances;
    for face in Face::ALL {
        if dice.chance(chances.mirror_face) {
            let (fw, _) = face_size(&desc.body, face);
            for p in desc.parts.iter_mut().filter(|p| p.face == face) {
                p.at[0] = fw - p.at[0];
            }
        }
    }
}

/// Proportions: the body scaled, its parts with their faces.
fn proportions(dice: &mut Dice, space: &Space, desc: &mut DeviceDesc) {
    let chances = &space.chances;
    let fx = dice.range(space.proportions.width);
    let fy = dice.range(space.proportions.height);
    let fz = if desc.body.shape == Shape::Cylinder {
        fx
    } else {
        dice.range(space.proportions.depth)
    };
    let [w, h, d] = desc.body.size;
    desc.body.size = [round1(w * fx), round1(h * fy), round1(d * fz)];
    let (gx, gy, gz) = (
        desc.body.size[0] / w,
        desc.body.size[1] / h,
        desc.body.size[2] / d,
    );
    for p in &mut desc.parts {
        let (ax, ay) = match p.face {
            Face::Front | Face::Back => (gx, gy),
            Face::Left | Face::Right => (gz, gy),
            Face::Top | Face::Bottom => (gx, gz),
        };
        let s = ax.min(ay);
        p.at = [round1(p.at[0] * ax), round1(p.at[1] * ay)];
        p.size = [round1(p.size[0] * s), round1(p.size[1] * s)];
    }
    desc.body.base = round1(desc.body.base * gy);
    if desc.body.shape == Shape::Box && dice.chance(chances.reround) {
        desc.body.round = (dice.range(space.round) * 100.0).round() / 100.0;
    }
}

/// The body's material and the controls' colour; the material drawn.
fn materials(dice: &mut Dice, space: &Space, desc: &mut DeviceDesc) -> Material {
    let chances = &space.chances;
    let material = dice.pick(&space.materials).clone();
    let old_body = desc.body.color.clone();
    desc.body.color = material.color.clone();
    if desc.body.trim.is_some() {
        desc.body.trim = Some(material.trim.clone());
    }
    if dice.chance(chances.recolour_controls) {
        let accent = dice.pick(&space.accents).clone();
        for p in &mut desc.parts {
            let recolour = p.component.is_some()
                && matches!(
                    p.look,
                    Look::Button | Look::RoundButton | Look::Rocker | Look::Knob | Look::Dial
                )
                && p.color.as_deref().is_none_or(is_neutral);
            if recolour {
                p.color = Some(accent.clone());
            }
        }
    }
    for p in &mut desc.parts {
        // Decorations painted like the body follow the new material.
        if p.component.is_none() && p.color.as_deref() == Some(old_body.as_str()) {
            p.color = Some(material.color.clone());
        }
    }
    material
}

/// Wording: labels and icons.
fn wording(dice: &mut Dice, space: &Space, desc: &mut DeviceDesc) {
    let chances = &space.chances;
    for p in &mut desc.parts {
        if matches!(p.look, Look::Display | Look::Text) {
            continue;
        }
        if let Some(label) = p.label.clone() {
            let mut label = label;
            if let Some(words) = space.labels.get(&label) {
                if dice.chance(chances.relabel) {
                    label = dice.pick(words).clone();
                }
            }
            if dice.chance(chances.title_case) && label.chars().any(char::is_alphabetic) {
                label = title_case(&label);
            }
            p.label = Some(label);
        }
        let Some(component) = p.component.clone() else {
            continue;
        };
        let buttonish = matches!(p.look, Look::Button | Look::RoundButton);
        if p.icon.is_some() && p.label.is_some() && dice.chance(chances.drop_icon) {
            p.icon = None;
        } else if p.icon.is_none() && buttonish && dice.chance(chances.add_icon) {
            p.icon = space
                .icons
                .iter()
                .find(|(key, _)| component.contains(key.as_str()))
                .map(|(_, icon)| icon.clone());
        }
        if buttonish && p.icon.is_some() && p.label.is_some() && dice.chance(chances.icon_only) {
            p.label = None;
        }
    }
}

/// The requests, phrased for this device.
fn phrase_requests(dice: &mut Dice, space: &Space, template: &mut StateMachine) {
    for state in template.states.values_mut() {
        if let Some(request) = &state.request {
            let template: &String = dice.pick(&space.requests);
            state.request = Some(phrase(template, request));
        }
    }
}

/// `state` skipped: every transition into it goes where its timed
/// transition goes, described as both together ("Switch the machine on;
/// the water is hot"). Nothing changes when it has no timed transition.
fn skip(template: &mut StateMachine, state: &str) {
    let Some(timed) = template
        .states
        .get(state)
        .and_then(|s| s.on.get(TIMED_WAIT))
        .and_then(|ts| ts.first())
        .cloned()
    else {
        return;
    };
    if timed.next_state == state || template.initial_state == state {
        return;
    }
    let mut then = timed.transition_description.chars();
    let then: String = match then.next() {
        Some(c) => c.to_lowercase().chain(then).collect(),
        None => String::new(),
    };
    for s in template.states.values_mut() {
        for t in s.on.values_mut().flatten() {
            if t.next_state == state {
                let first = t
                    .transition_description
                    .split(';')
                    .next()
                    .unwrap_or_default()
                    .to_string();
                t.next_state = timed.next_state.clone();
                t.transition_description = format!("{first}; {then}");
            }
        }
    }
}

/// The transitions of `component` in `template` described for the way
/// this device works it: a description that begins with the verb `from`
/// begins with `to` instead, and a control made a switch is called one
/// ("Press the power button" becomes "Turn the power switch").
fn reword(template: &mut StateMachine, component: &str, from: &str, to: &str) {
    for state in template.states.values_mut() {
        for t in state.on.get_mut(component).into_iter().flatten() {
            if let Some(rest) = t.transition_description.strip_prefix(from) {
                if rest.starts_with(' ') {
                    let rest = if to == "Push" {
                        rest.to_string()
                    } else {
                        rest.replace(" button", " switch")
                    };
                    t.transition_description = format!("{to}{rest}");
                }
            }
        }
    }
}

/// Whether a component is worked by pulling it out (and pushing it back).
fn pulled(op: &Operation) -> bool {
    match op {
        Operation::Slide { axis, .. } => matches!(axis, Axis::Out | Axis::In | Axis::Lift),
        Operation::Fixed { action, .. } => action == "pull",
        _ => false,
    }
}

/// The same slide with its positions numbered the other way.
fn reversed(op: &Operation) -> Operation {
    match op {
        Operation::Slide {
            axis,
            positions,
            default,
        } => Operation::Slide {
            axis: *axis,
            positions: positions.iter().map(|(s, p)| (s.clone(), -p)).collect(),
            default: -default,
        },
        other => other.clone(),
    }
}

/// How many of a component's transitions are pushes (0 when it cannot be
/// worked so).
fn pushes(ucsm: &StateMachine, component: &str, op: &Operation) -> usize {
    operate(ucsm, component, op).map_or(0, |o| {
        o.overrides
            .iter()
            .filter(|t| t.atomic_action.as_deref() == Some("push"))
            .count()
    })
}

/// Scale marks for a rotary made from a slide: one per position.
fn rotary_marks(op: &Operation) -> Vec<String> {
    let Operation::Rotate { positions, default } = op else {
        return Vec::new();
    };
    let hi = positions
        .values()
        .copied()
        .chain([*default])
        .max()
        .unwrap_or(0);
    let lo = positions
        .values()
        .copied()
        .chain([*default])
        .min()
        .unwrap_or(0);
    (lo..=hi)
        .map(|p| {
            if p == lo {
                "O".to_string()
            } else {
                p.to_string()
            }
        })
        .collect()
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// A grey: no hue to keep (a red stop button stays red).
fn is_neutral(color: &str) -> bool {
    super::svg::Rgb::parse(color).is_ok_and(|c| {
        let (lo, hi) = (c.0.min(c.1).min(c.2), c.0.max(c.1).max(c.2));
        hi - lo < 24
    })
}

#[cfg(test)]
mod tests;

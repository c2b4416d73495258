//! The compact descriptions a device library is generated from
//! (`data/gen/<Category>.json`): per category, how each component is
//! operated; per device, its body and the parts placed on its faces.
//!
//! A description says where a part is and what it looks like, never where
//! its box is: boxes are measured on the drawing (see [`super::render`]).

use std::collections::BTreeMap;

use serde::Deserialize;

/// One file of `data/gen/`: a category's operations and its devices.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CategoryFile {
    /// One of the 26 categories; names `data/ucsm/<category>.json`.
    pub category: String,
    /// How each component of the category is worked, when its name's
    /// ending does not say it (see [`super::mechanics`]).
    #[serde(default)]
    pub operations: BTreeMap<String, Operation>,
    /// What each named sign shows in which state (see [`SignRule`]); a
    /// part shows one by naming it in its `sign`.
    #[serde(default)]
    pub signs: BTreeMap<String, SignRule>,
    /// The category's devices, each drawn and built as one bundle.
    pub devices: Vec<DeviceDesc>,
}

/// What a sign shows, by state of the category template. A part naming
/// the sign shows it in its own way: a light is lit (blinking is drawn
/// lit), a display shows the text, a grille's blades spin (blurred), any
/// other part glows. States the rule does not name show the sign off (a
/// dark light, a blank display unless `default` is given).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignRule {
    /// States in which it is on (lit, spinning, glowing).
    #[serde(default)]
    pub on: Vec<String>,
    /// States in which it blinks: drawn as on in a still picture; the
    /// state's description says it blinks.
    #[serde(default)]
    pub blink: Vec<String>,
    /// For a display: its text in each state.
    #[serde(default)]
    pub text: BTreeMap<String, String>,
    /// For a display: its text in the states `text` does not name (none:
    /// blank, the display is off).
    #[serde(default)]
    pub default: Option<String>,
    /// States in which it is on but dimmed (a night-dimmed display, a low
    /// beam, a faint night light).
    #[serde(default)]
    pub dim: Vec<String>,
    /// How a part other than a light or a display shows it being on
    /// (default: it glows).
    #[serde(default, rename = "as")]
    pub shown_as: ShownAs,
}

/// How a part that is neither a light nor a display shows its sign.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShownAs {
    /// Lit: a lamp, a lit button (a grille's blades spin instead).
    #[default]
    Glow,
    /// Out of its place: a key blade flipped out, a handset lifted, a lid
    /// or a tank taken off.
    Open,
    /// Moving fast, blurred: blades, bells.
    Spin,
}

/// How a component is worked; the parameters of each transition follow
/// from it and from the template's states.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Operation {
    /// Pressed: a click, or a long press or double click when the
    /// template's transition says "hold" or "double".
    Press,
    /// Turned between numbered positions: `positions` gives a state's
    /// position, `default` that of every other state.
    Rotate {
        /// Each state's position, by state name.
        positions: BTreeMap<String, i32>,
        /// The position of every state `positions` does not name.
        #[serde(default)]
        default: i32,
    },
    /// Slid, swung or pulled between numbered positions along `axis`.
    Slide {
        /// Which way the part moves toward a higher position.
        axis: Axis,
        /// Each state's position, by state name.
        positions: BTreeMap<String, i32>,
        /// The position of every state `positions` does not name.
        #[serde(default)]
        default: i32,
    },
    /// Picked up or held.
    Grasp,
    /// Always the same action and parameters.
    Fixed {
        /// The atomic action, as written (`press`, `pull`, …).
        action: String,
        /// Its parameters, as written (none by default).
        #[serde(default)]
        parameter: Vec<String>,
    },
}

/// The way a sliding part moves toward a higher position, and so which
/// Push/Pull direction (`specs/devices.md` section 2) each move takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Axis {
    /// Pushed up to go higher, pulled down to come back (a slide switch).
    Up,
    /// Pushed down to go higher, pulled up to come back (a cooking lever).
    Down,
    /// Pushed right to go higher, pulled left to come back.
    Right,
    /// Pulled out to go higher, pushed in to come back (a door, a drawer).
    Out,
    /// Pushed in to go higher, pulled out to come back (a plug in a port).
    In,
    /// Pulled up to go higher, pushed down to come back (a flip lid).
    Lift,
}

/// One drawn device.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceDesc {
    /// The bundle id and folder name (`kettle-0001`).
    pub id: String,
    /// The display name.
    pub name: String,
    /// Its shape, size and colours.
    pub body: Body,
    /// Components and decorations, drawn in this order on their faces.
    pub parts: Vec<Part>,
    /// Add a dashboard close-up of the front view around the parts marked
    /// `panel`.
    #[serde(default)]
    pub dashboard: bool,
}

/// The device's body: a box of `size` = [width, height, depth] (units are
/// free; views are scaled to fit), its corners rounded by `round` (0 sharp,
/// 1 fully round), and its colours.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Body {
    /// Width, height and depth, in body units.
    pub size: [f64; 3],
    /// How round the corners are: 0 sharp, 1 fully round.
    #[serde(default)]
    pub round: f64,
    /// `box`, or `cylinder` (round seen from above: a vertical axis).
    #[serde(default)]
    pub shape: Shape,
    /// The main colour, `#rrggbb`.
    pub color: String,
    /// A second colour for a base band, bezel or trim.
    #[serde(default)]
    pub trim: Option<String>,
    /// Height of a trim band at the bottom of the side faces (0 for none).
    #[serde(default)]
    pub base: f64,
}

/// The body's outline seen from above.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// Rectangular seen from above.
    #[default]
    Box,
    /// Round seen from above: a vertical axis.
    Cylinder,
}

/// The six faces of the body, each seen straight on in the view of its
/// name. Face coordinates: x to the right and y down as that view shows
/// the face, from its top-left corner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Face {
    /// The face toward the user, seen in the view an episode starts in.
    Front,
    /// The face opposite the front.
    Back,
    /// The side face seen in the left view.
    Left,
    /// The side face seen in the right view.
    Right,
    /// The upper face, seen from above.
    Top,
    /// The underside, seen from below.
    Bottom,
}

impl Face {
    /// The six faces, front first.
    pub const ALL: [Face; 6] = [
        Face::Front,
        Face::Back,
        Face::Left,
        Face::Right,
        Face::Top,
        Face::Bottom,
    ];

    /// The name of the orthographic view that shows this face.
    pub fn view(self) -> &'static str {
        match self {
            Face::Front => "front",
            Face::Back => "back",
            Face::Left => "left",
            Face::Right => "right",
            Face::Top => "top",
            Face::Bottom => "bottom",
        }
    }
}

/// A component (when `component` is set) or a decoration, placed with its
/// centre at `at` on `face`, `size` = [width, height] in body units.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Part {
    /// The template component this part is; none for a decoration.
    #[serde(default)]
    pub component: Option<String>,
    /// The face it is placed on.
    pub face: Face,
    /// Its centre in the face's coordinates, in body units.
    pub at: [f64; 2],
    /// Its width and height, in body units.
    pub size: [f64; 2],
    /// What it is drawn as.
    pub look: Look,
    /// A short printed label, under the part (or inside a display).
    #[serde(default)]
    pub label: Option<String>,
    /// A symbol drawn on the part (see [`super::icons`]).
    #[serde(default)]
    pub icon: Option<String>,
    /// The part's main colour (each look has its own default).
    #[serde(default)]
    pub color: Option<String>,
    /// Scale marks around a knob or dial, or keys of a keypad.
    #[serde(default)]
    pub marks: Vec<String>,
    /// For a knob or dial: the mark its pointer points at (index).
    #[serde(default)]
    pub pointer: usize,
    /// Inside the dashboard close-up (front face only).
    #[serde(default)]
    pub panel: bool,
    /// The category sign this part shows in live pictures (see
    /// [`SignRule`]).
    #[serde(default)]
    pub sign: Option<String>,
}

/// What a part looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Look {
    /// A rounded rectangular push button.
    Button,
    /// A round push button.
    RoundButton,
    /// A rocker switch, pressed on one side.
    Rocker,
    /// A slide switch: a track with a thumb (vertical when taller than wide).
    Slider,
    /// A knob with a pointer and a scale.
    Knob,
    /// A large dial ring with numbers.
    Dial,
    /// A socket or port.
    Port,
    /// A hinged door or cover: a panel with a seam and a grip.
    Door,
    /// A round door with a glass window (a washing machine's).
    Porthole,
    /// A drawer, tray or basket front with a handle slot.
    Drawer,
    /// A handle bar.
    Handle,
    /// A pull chain with a bead.
    Chain,
    /// A trigger under a grip.
    Trigger,
    /// A grid of keys.
    Keypad,
    /// A ribbed wheel seen edge on.
    Wheel,
    /// A winding key.
    Key,
    /// A flat platform or plate.
    Platform,
    /// A lever with a knob at its end.
    Lever,
    /// A display showing `label`.
    Display,
    /// An indicator light (`color`).
    Light,
    /// Printed text (`label`).
    Text,
    /// A vent grille.
    Grille,
    /// A flat coloured panel.
    Plate,
    /// A lens.
    Lens,
    /// An analogue clock face with hands.
    Clock,
}

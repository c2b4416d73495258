//! One drawing function per look of a part ([`Look`]), each in its own
//! file. [`draw`] picks the function of a part's look; what every look
//! shares (the part's centre, size and colours, one pixel's size) comes in
//! a [`Ctx`]. A look draws the part itself and may add print beside it
//! (a knob's scale, a slider's marks) to `print`.

mod buttons;
mod chain;
mod clock;
mod display;
mod door;
mod grille;
mod handle;
mod key;
mod keypad;
mod knob;
mod lens;
mod light;
mod plate;
mod platform;
mod port;
mod porthole;
mod rocker;
mod slider;
mod text;
mod trigger;
mod wheel;

use super::desc::{Look, Part};
use super::icons::{glyph, UnknownIcon};
use super::svg::{circle, num, polar, rect, stroke, text, tick, ColourError, Rgb};

/// How a part is drawn in one state of the device (live pictures); the
/// static views draw every part [`Variant::Static`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Variant {
    /// As the description draws it.
    Static,
    /// A knob or dial pointing at this mark.
    Pointer(usize),
    /// A slide switch or lever at step `.0` of `.1` along its track.
    Thumb(u32, u32),
    /// A door, lid or drawer open (`lift`: hinged at its top edge, else at
    /// its left edge); any other part pulled out of its seat.
    Open {
        /// Hinged at its top edge (a lid), not at its left edge.
        lift: bool,
    },
    /// A plug in the port.
    Plugged,
    /// A display showing this text.
    Text(String),
    /// A dimmed display showing this text.
    DimText(String),
    /// A light lit dimly, a part glowing faintly.
    Dim,
    /// A display that is off.
    Blank,
    /// A light that is off.
    Off,
    /// A lamp lit, an element glowing.
    Glow,
    /// Blades spinning behind a grille, blurred.
    Spin,
}

/// A display's screen colour when its part gives none (the lit green of a
/// small LCD).
pub(super) const SCREEN: Rgb = Rgb(0x9c, 0xc4, 0x9a);

/// The screen colour of a display part: its own, else [`SCREEN`]; a dimmed
/// or blank screen is a shade of it.
pub(super) fn screen_colour(part: &Part) -> Result<Rgb, ColourError> {
    Ok(part
        .color
        .as_deref()
        .map(Rgb::parse)
        .transpose()?
        .unwrap_or(SCREEN))
}

/// What a look is drawn from: the part and the state it is drawn in, its
/// centre (`cx`, `cy`), size (`w`, `h`), top-left corner (`x`, `y`) and
/// smaller side (`m`), in face units.
#[derive(Clone, Copy)]
pub(super) struct Ctx<'a> {
    pub part: &'a Part,
    pub variant: &'a Variant,
    pub cx: f64,
    pub cy: f64,
    pub w: f64,
    pub h: f64,
    pub x: f64,
    pub y: f64,
    pub m: f64,
    /// The stroke width of outlines (1.2 pixels), as SVG text.
    pub sw: &'a str,
    /// The part's own colour, when the description gives one.
    pub color: Option<Rgb>,
    /// The colour of the face the part sits on.
    pub face: Rgb,
    /// One output pixel, in face units.
    pub px: f64,
    /// The dark grey most looks default to.
    pub dark: Rgb,
}

/// The part drawn in its look; print beside it goes to `print`.
pub(super) fn draw(ctx: &Ctx, print: &mut String) -> Result<String, UnknownIcon> {
    Ok(match ctx.part.look {
        Look::Button | Look::RoundButton => buttons::draw(ctx)?,
        Look::Rocker => rocker::draw(ctx),
        Look::Slider | Look::Lever => slider::draw(ctx, print),
        Look::Knob | Look::Dial => knob::draw(ctx, print),
        Look::Port => port::draw(ctx),
        Look::Porthole => porthole::draw(ctx),
        Look::Door | Look::Drawer => door::draw(ctx),
        Look::Handle => handle::draw(ctx),
        Look::Chain => chain::draw(ctx),
        Look::Trigger => trigger::draw(ctx),
        Look::Keypad => keypad::draw(ctx),
        Look::Wheel => wheel::draw(ctx),
        Look::Key => key::draw(ctx),
        Look::Platform => platform::draw(ctx),
        Look::Display => display::draw(ctx),
        Look::Light => light::draw(ctx),
        Look::Text => text::draw(ctx),
        Look::Grille => grille::draw(ctx),
        Look::Plate => plate::draw(ctx),
        Look::Clock => clock::draw(ctx),
        Look::Lens => lens::draw(ctx),
    })
}

//! The contact sheet: every device's front view in one picture, with its
//! name and category, so the whole library can be looked at at once.

use super::desc::DeviceDesc;
use super::render::{parse, png, raster, RenderError};
use super::svg::{escape, num};
use super::views::{content, scenes, Only, ViewError, CANVAS};

/// Why a contact sheet could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SheetError {
    /// A body has no front view (never, for the shapes there are).
    #[error("no front view")]
    NoFrontView,
    /// A device's front view could not be drawn.
    #[error(transparent)]
    View(#[from] ViewError),
    /// The sheet could not be rendered.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// A device the live sheet shows is not among the bundles given.
    #[error("the live sheet shows {id}, which the library does not have")]
    LiveMissing {
        /// The device's id.
        id: String,
    },
    /// One state's live picture could not be made.
    #[error("{id} {state}: {problem}")]
    LivePicture {
        /// The device's id.
        id: String,
        /// The state.
        state: String,
        /// Why the picture could not be made.
        problem: knoblab_core::sim::render::RenderError,
    },
    /// The live sheet's canvas could not be made.
    #[error("cannot make the live sheet")]
    LiveCanvas,
}

/// Devices per row.
const COLUMNS: usize = 8;
/// A cell's picture is the front view at this scale.
const THUMB_SCALE: f64 = 0.36;
/// Caption height under each picture, in pixels.
const CAPTION: f64 = 34.0;

/// A cell's picture on a category's sheet (`docs/sheets/`): smaller, so
/// that the 26 committed sheets of all 968 devices stay a few megabytes.
pub const CATEGORY_THUMB_SCALE: f64 = 0.3;

/// The sheet as PNG bytes, devices in the order given.
pub fn contact_sheet(devices: &[(&str, &DeviceDesc)]) -> Result<Vec<u8>, SheetError> {
    contact_sheet_at(devices, THUMB_SCALE)
}

/// The sheet as PNG bytes, each front view drawn at `scale` of the view's
/// size. Below [`THUMB_SCALE`] the captions are set smaller and a name
/// too long for its cell is cut short with "…"; a device given with an
/// empty category is captioned with its id alone (a category's sheet).
pub fn contact_sheet_at(
    devices: &[(&str, &DeviceDesc)],
    scale: f64,
) -> Result<Vec<u8>, SheetError> {
    let thumb = scale;
    let (cw, ch) = (CANVAS.0 * thumb, CANVAS.1 * thumb + CAPTION);
    let small = thumb < THUMB_SCALE;
    let (name_size, id_size) = if small { (9.5, 9.0) } else { (11.0, 10.0) };
    // DejaVu Sans averages about 0.58 em a character.
    let fits = ((cw - 8.0) / (name_size * 0.58)) as usize;
    let rows = devices.len().div_ceil(COLUMNS).max(1);
    let (w, h) = (cw * COLUMNS as f64, ch * rows as f64);
    let mut cells = String::new();
    for (i, (category, desc)) in devices.iter().enumerate() {
        let name = if small && desc.name.chars().count() > fits {
            let cut: String = desc.name.chars().take(fits.saturating_sub(1)).collect();
            format!("{}…", cut.trim_end())
        } else {
            desc.name.clone()
        };
        let under = if category.is_empty() {
            desc.id.clone()
        } else {
            format!("{category} · {}", desc.id)
        };
        let (x, y) = ((i % COLUMNS) as f64 * cw, (i / COLUMNS) as f64 * ch);
        let drawing = front_drawing(desc)?;
        cells.push_str(&format!(
            r##"<g transform="translate({} {})"><rect x="2" y="2" width="{}" height="{}" fill="#f3f2ee"/><g transform="scale({thumb})">{drawing}</g><text x="{}" y="{}" font-size="{}" text-anchor="middle" fill="#222">{}</text><text x="{}" y="{}" font-size="{}" text-anchor="middle" fill="#666">{}</text></g>"##,
            num(x),
            num(y),
            num(cw - 4.0),
            num(ch - 4.0),
            num(cw / 2.0),
            num(CANVAS.1 * thumb + 12.0),
            num(name_size),
            escape(&name),
            num(cw / 2.0),
            num(CANVAS.1 * thumb + 26.0),
            num(id_size),
            escape(&under),
        ));
    }
    let svg = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans"><rect width="{w}" height="{h}" fill="#d8d6d0"/>{cells}</svg>"##
    );
    Ok(png(&raster(&parse(&svg)?)?)?)
}

/// A device's front view without its `<svg>` element, its ids prefixed
/// with the device's (so that several share one document).
fn front_drawing(desc: &DeviceDesc) -> Result<String, SheetError> {
    let front = scenes(&desc.body)
        .into_iter()
        .next()
        .ok_or(SheetError::NoFrontView)?;
    Ok(content(
        desc,
        &front,
        &format!("{}-", desc.id),
        Only::Everything,
    )?)
}

/// A card's picture: the front view at half size, as PNG (what the
/// library page shows for a generated device, drawn when the card is).
pub fn front_png(desc: &DeviceDesc) -> Result<Vec<u8>, SheetError> {
    const SCALE: f64 = 0.5;
    let drawing = front_drawing(desc)?;
    let (w, h) = (CANVAS.0 * SCALE, CANVAS.1 * SCALE);
    let svg = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans"><rect width="{w}" height="{h}" fill="#f3f2ee"/><g transform="scale({SCALE})">{drawing}</g></svg>"##
    );
    Ok(png(&raster(&parse(&svg)?)?)?)
}

/// The devices, views and states of the live contact sheet: each row one
/// device in three states, drawn by the core's live renderer.
pub const LIVE_SHEET: [(&str, &str, [&str; 3]); 6] = [
    (
        "microwave-0001",
        "front",
        ["Standby", "Heating", "DoorOpen"],
    ),
    (
        "coffee-0001",
        "front",
        ["PoweredOff", "HeatingUp", "BrewingEspresso"],
    ),
    ("kettle-0001", "front", ["Standby", "Boiling", "KeepWarm"]),
    (
        "fan-0002",
        "front",
        ["FanOff", "FanSpeed2", "OscillatingSpeed3"],
    ),
    (
        "washer-0001",
        "front",
        ["PoweredOff", "QuickWashSelected", "DoorOpen"],
    ),
    (
        "scale-0001",
        "top",
        ["ScaleOff", "WeighingGrams", "ReadyPounds"],
    ),
];

/// Scale of a picture on the live sheet.
const LIVE_SCALE: f64 = 0.4;

/// The live contact sheet as PNG: [`LIVE_SHEET`]'s devices, each state's
/// picture made by [`knoblab_core::sim::render::Renderer`] from the generated
/// bundle (so the sheet shows exactly what an episode shows), captioned
/// with the device, the state and its signs' count.
pub fn live_sheet(bundles: &[&knoblab_core::bundle::Bundle]) -> Result<Vec<u8>, SheetError> {
    use knoblab_core::sim::render::{signs, RenderMode, Renderer};
    let (cw, ch) = (
        (CANVAS.0 * LIVE_SCALE).round() as u32,
        (CANVAS.1 * LIVE_SCALE).round() as u32,
    );
    let caption = 30u32;
    let (w, h) = (cw * 3, (ch + caption) * LIVE_SHEET.len() as u32);
    let mut texts = String::new();
    let mut pictures = Vec::new();
    for (row, (id, view, states)) in LIVE_SHEET.iter().enumerate() {
        let bundle = bundles
            .iter()
            .find(|b| b.manifest.id == *id)
            .ok_or_else(|| SheetError::LiveMissing { id: id.to_string() })?;
        let mut renderer = Renderer::new(bundle);
        for (col, state) in states.iter().enumerate() {
            let pixels = renderer
                .pixels(state, view, RenderMode::Live)
                .map_err(|problem| SheetError::LivePicture {
                    id: id.to_string(),
                    state: state.to_string(),
                    problem,
                })?;
            let small =
                image::imageops::resize(&pixels, cw, ch, image::imageops::FilterType::Triangle);
            let (x, y) = (col as u32 * cw, row as u32 * (ch + caption));
            pictures.push((small, x, y));
            let shown = signs(bundle, state).len();
            texts.push_str(&format!(
                r##"<text x="{}" y="{}" font-size="11" text-anchor="middle" fill="#222">{}</text><text x="{}" y="{}" font-size="10" text-anchor="middle" fill="#666">{} · {} view · {shown} signs</text>"##,
                x + cw / 2,
                y + ch + 12,
                escape(&bundle.manifest.name),
                x + cw / 2,
                y + ch + 25,
                escape(state),
                escape(view),
            ));
        }
    }
    let svg = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans"><rect width="{w}" height="{h}" fill="#d8d6d0"/>{texts}</svg>"##
    );
    let base = raster(&parse(&svg)?)?;
    let mut sheet = image::RgbaImage::new(w, h);
    for (i, p) in base.pixels().iter().enumerate() {
        let c = p.demultiply();
        sheet.put_pixel(
            i as u32 % w,
            i as u32 / w,
            image::Rgba([c.red(), c.green(), c.blue(), 255]),
        );
    }
    for (small, x, y) in pictures {
        image::imageops::overlay(&mut sheet, &small, i64::from(x), i64::from(y));
    }
    let mut pixmap = resvg::tiny_skia::Pixmap::new(w, h).ok_or(SheetError::LiveCanvas)?;
    for (i, p) in sheet.pixels().enumerate() {
        pixmap.pixels_mut()[i] =
            resvg::tiny_skia::ColorU8::from_rgba(p.0[0], p.0[1], p.0[2], 255).premultiply();
    }
    Ok(png(&pixmap)?)
}

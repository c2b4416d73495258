//! The contact sheet: every device's front view in one picture, with its
//! name and category, so the whole library can be looked at at once.

use super::desc::DeviceDesc;
use super::render::{parse, png, raster};
use super::svg::{escape, num};
use super::views::{content, scenes, Only, CANVAS};

/// Devices per row.
const COLUMNS: usize = 8;
/// A cell's picture is the front view at this scale.
const THUMB_SCALE: f64 = 0.36;
/// Caption height under each picture, in pixels.
const CAPTION: f64 = 34.0;

/// The sheet as PNG bytes, devices in the order given.
pub fn contact_sheet(devices: &[(&str, &DeviceDesc)]) -> Result<Vec<u8>, String> {
    let (cw, ch) = (CANVAS.0 * THUMB_SCALE, CANVAS.1 * THUMB_SCALE + CAPTION);
    let rows = devices.len().div_ceil(COLUMNS).max(1);
    let (w, h) = (cw * COLUMNS as f64, ch * rows as f64);
    let mut cells = String::new();
    for (i, (category, desc)) in devices.iter().enumerate() {
        let (x, y) = ((i % COLUMNS) as f64 * cw, (i / COLUMNS) as f64 * ch);
        let front = scenes(&desc.body)
            .into_iter()
            .next()
            .ok_or("no front view")?;
        let drawing = content(desc, &front, &format!("{}-", desc.id), Only::Everything)?;
        cells.push_str(&format!(
            r##"<g transform="translate({} {})"><rect x="2" y="2" width="{}" height="{}" fill="#f3f2ee"/><g transform="scale({THUMB_SCALE})">{drawing}</g><text x="{}" y="{}" font-size="11" text-anchor="middle" fill="#222">{}</text><text x="{}" y="{}" font-size="10" text-anchor="middle" fill="#666">{} · {}</text></g>"##,
            num(x),
            num(y),
            num(cw - 4.0),
            num(ch - 4.0),
            num(cw / 2.0),
            num(CANVAS.1 * THUMB_SCALE + 12.0),
            escape(&desc.name),
            num(cw / 2.0),
            num(CANVAS.1 * THUMB_SCALE + 26.0),
            escape(category),
            escape(&desc.id),
        ));
    }
    let svg = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans"><rect width="{w}" height="{h}" fill="#d8d6d0"/>{cells}</svg>"##
    );
    png(&raster(&parse(&svg)?)?)
}

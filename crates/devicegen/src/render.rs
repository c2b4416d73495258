//! From SVG to pixels and boxes, with resvg: the same parsed tree gives
//! the picture and every component's box, so the two cannot disagree.
//!
//! Text is set in the font vendored under `data/gen/fonts/` (DejaVu Sans
//! Condensed Bold, with its licence), never a font of the machine, so the
//! library renders the same everywhere: each `<text>` of a drawing becomes
//! the `<path>` of its glyphs before resvg parses it ([`crate::font`]).

use std::sync::OnceLock;

use resvg::tiny_skia::{Pixmap, Transform};
use resvg::usvg::{Options, Tree};

use super::font::{Anchor, Font, FontError};
use super::views::CANVAS;

/// Why a drawing could not be turned into pixels.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    /// In the page, a device was drawn before the font was given
    /// (`provide_font`, on wasm32).
    #[error("the font data/{FONT_PATH} has not been loaded yet (render::provide_font)")]
    NoFont,
    /// The bytes given as the font are not the vendored font.
    #[error("{FONT_PATH}: {bytes} bytes that are not the vendored DejaVu Sans Condensed Bold")]
    NotTheFont {
        /// How many bytes were given.
        bytes: usize,
    },
    /// The vendored font's tables could not be read.
    #[error("{FONT_PATH}: {0}")]
    Font(#[from] FontError),
    /// The SVG made by the generator does not parse.
    #[error("the generated SVG does not parse: {message}")]
    Svg {
        /// The SVG reader's message.
        message: String,
    },
    /// A canvas of this size cannot be made (zero or too large).
    #[error("cannot make a {width}×{height} canvas")]
    Canvas {
        /// Its width, in pixels.
        width: u32,
        /// Its height, in pixels.
        height: u32,
    },
    /// The PNG encoder failed.
    #[error("PNG encoding failed: {message}")]
    Png {
        /// The encoder's message.
        message: String,
    },
}

/// The vendored font, relative to the repository's `data/` (the page
/// fetches it from there: see [`provide_font`]).
pub const FONT_PATH: &str = "gen/fonts/DejaVuSansCondensed-Bold.ttf";

/// The SHA-256 of the vendored font: the only bytes [`provide_font`] takes
/// (another font would draw other pictures and boxes).
pub const FONT_SHA256: &str = "6d2f2481e2aae944e8411cc5be515c69503ff7f5db52f2c67bcbe5d4de6bec13";

/// The vendored font, compiled in natively.
#[cfg(not(target_arch = "wasm32"))]
fn font_bytes() -> Result<&'static [u8], RenderError> {
    Ok(include_bytes!(
        "../../../data/gen/fonts/DejaVuSansCondensed-Bold.ttf"
    ))
}

/// On wasm32 the font (668 KB) is not compiled into the page's module: the
/// page fetches it the first time it draws a device and hands it over
/// here, so a visit that draws nothing does not download it.
#[cfg(target_arch = "wasm32")]
static PROVIDED: OnceLock<Vec<u8>> = OnceLock::new();

/// Gives the drawing the vendored font's bytes (`data/` + [`FONT_PATH`]),
/// once; later calls change nothing. Refuses bytes that are not that font
/// ([`FONT_SHA256`]).
#[cfg(target_arch = "wasm32")]
pub fn provide_font(bytes: Vec<u8>) -> Result<(), RenderError> {
    if !is_the_font(&bytes) {
        return Err(RenderError::NotTheFont { bytes: bytes.len() });
    }
    let _ = PROVIDED.set(bytes);
    Ok(())
}

/// Whether `bytes` are the vendored font's.
pub fn is_the_font(bytes: &[u8]) -> bool {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    hex == FONT_SHA256
}

/// Whether the font has been given ([`provide_font`]).
#[cfg(target_arch = "wasm32")]
pub fn has_font() -> bool {
    PROVIDED.get().is_some()
}

#[cfg(target_arch = "wasm32")]
fn font_bytes() -> Result<&'static [u8], RenderError> {
    PROVIDED.get().map(Vec::as_slice).ok_or(RenderError::NoFont)
}

/// The vendored font, read once.
fn font() -> Result<&'static Font<'static>, RenderError> {
    static FONT: OnceLock<Font<'static>> = OnceLock::new();
    if let Some(font) = FONT.get() {
        return Ok(font);
    }
    let font = Font::parse(font_bytes()?)?;
    Ok(FONT.get_or_init(|| font))
}

/// Parses an SVG document, its text set in the vendored font.
pub fn parse(svg: &str) -> Result<Tree, RenderError> {
    let svg = outline_text(svg, font()?);
    Tree::from_str(&svg, &Options::default()).map_err(|e| RenderError::Svg {
        message: e.to_string(),
    })
}

/// `svg` with each `<text>` element (as the generator writes them: `x`,
/// `y`, `font-size`, `text-anchor`, `fill`, and the label, no child
/// element) replaced by a `<path>` of its glyphs in `font`, filled alike.
pub fn outline_text(svg: &str, font: &Font<'_>) -> String {
    let mut out = String::with_capacity(svg.len());
    let mut rest = svg;
    while let Some(at) = rest.find("<text") {
        out.push_str(&rest[..at]);
        let element = &rest[at..];
        let (Some(open), Some(close)) = (element.find('>'), element.find("</text>")) else {
            // Not an element this function knows: left for resvg.
            out.push_str(element);
            return out;
        };
        if close < open {
            out.push_str(&element[..close]);
            rest = &element[close..];
            continue;
        }
        let tag = &element[..open];
        let label = unescape(&element[open + 1..close]);
        let number = |name: &str| attribute(tag, name).and_then(|v| v.parse::<f64>().ok());
        let anchor = match attribute(tag, "text-anchor") {
            Some("middle") => Anchor::Middle,
            Some("end") => Anchor::End,
            _ => Anchor::Start,
        };
        let d = font.label_path(
            &label,
            number("x").unwrap_or(0.0),
            number("y").unwrap_or(0.0),
            number("font-size").unwrap_or(12.0),
            anchor,
        );
        if !d.is_empty() {
            let fill = attribute(tag, "fill").unwrap_or("#000");
            out.push_str(&format!(r#"<path d="{d}" fill="{fill}"/>"#));
        }
        rest = &element[close + "</text>".len()..];
    }
    out.push_str(rest);
    out
}

/// The value of the attribute `name` in a start tag (`name="value"`).
fn attribute<'t>(tag: &'t str, name: &str) -> Option<&'t str> {
    let key = format!(" {name}=\"");
    let from = tag.find(&key)? + key.len();
    let len = tag[from..].find('"')?;
    Some(&tag[from..from + len])
}

/// A text node's characters ([`crate::svg::escape`] undone).
fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// Draws a tree onto a transparent canvas of the tree's size.
pub fn raster(tree: &Tree) -> Result<Pixmap, RenderError> {
    let size = tree.size().to_int_size();
    let mut pixmap = Pixmap::new(size.width(), size.height()).ok_or(RenderError::Canvas {
        width: size.width(),
        height: size.height(),
    })?;
    resvg::render(tree, Transform::identity(), &mut pixmap.as_mut());
    Ok(pixmap)
}

/// A picture as PNG: opaque RGB, best compression (the library is
/// downloaded by every page visitor).
pub fn png(pixmap: &Pixmap) -> Result<Vec<u8>, RenderError> {
    encode_png(pixmap, false)
}

/// A picture as PNG with its alpha channel (transparent where nothing is
/// drawn), best compression: the live layer's patch sheets.
pub fn png_rgba(pixmap: &Pixmap) -> Result<Vec<u8>, RenderError> {
    encode_png(pixmap, true)
}

fn encode_png(pixmap: &Pixmap, alpha: bool) -> Result<Vec<u8>, RenderError> {
    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    use image::ImageEncoder;
    let channels = if alpha { 4 } else { 3 };
    let bytes: Vec<u8> = pixmap
        .pixels()
        .iter()
        .flat_map(|p| {
            let c = p.demultiply();
            [c.red(), c.green(), c.blue(), c.alpha()]
                .into_iter()
                .take(channels)
        })
        .collect();
    let color = if alpha {
        image::ExtendedColorType::Rgba8
    } else {
        image::ExtendedColorType::Rgb8
    };
    let mut out = Vec::new();
    PngEncoder::new_with_quality(&mut out, CompressionType::Best, FilterType::Adaptive)
        .write_image(&bytes, pixmap.width(), pixmap.height(), color)
        .map_err(|e| RenderError::Png {
            message: e.to_string(),
        })?;
    Ok(out)
}

/// The box `[x, y, w, h]` (whole pixels, rounded outward) of the element
/// `id` as the tree draws it, stroke included; `None` when the element is
/// absent or not wholly inside the canvas (a part cut by a close-up's edge
/// is not offered there: its box would promise pixels that are not shown).
pub fn measured_box(tree: &Tree, id: &str) -> Option<[f64; 4]> {
    let node = tree.node_by_id(id)?;
    let r = node.abs_stroke_bounding_box();
    let (cw, ch) = CANVAS;
    let x0 = f64::from(r.left()).floor();
    let y0 = f64::from(r.top()).floor();
    let x1 = f64::from(r.right()).ceil();
    let y1 = f64::from(r.bottom()).ceil();
    let inside = x0 >= 0.0 && y0 >= 0.0 && x1 <= cw && y1 <= ch;
    (inside && x1 - x0 >= 1.0 && y1 - y0 >= 1.0).then_some([x0, y0, x1 - x0, y1 - y0])
}

/// The smallest box `[x, y, w, h]` holding every pixel with some opacity.
pub fn drawn_bounds(pixmap: &Pixmap) -> Option<[u32; 4]> {
    let pixels = pixmap.pixels();
    bounds_where(pixmap.width(), pixels.len(), |i| pixels[i].alpha() != 0)
}

/// The smallest box `[x, y, w, h]` holding every pixel `i` for which
/// `keep(i)` holds, of `count` pixels in rows of `width`.
pub(super) fn bounds_where(
    width: u32,
    count: usize,
    keep: impl Fn(usize) -> bool,
) -> Option<[u32; 4]> {
    let mut bounds: Option<[u32; 4]> = None;
    for i in (0..count).filter(|&i| keep(i)) {
        let (x, y) = (i as u32 % width, i as u32 / width);
        let b = bounds.get_or_insert([x, y, x, y]);
        b[0] = b[0].min(x);
        b[1] = b[1].min(y);
        b[2] = b[2].max(x);
        b[3] = b[3].max(y);
    }
    bounds.map(|[x0, y0, x1, y1]| [x0, y0, x1 - x0 + 1, y1 - y0 + 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    const SVG: &str = r##"<svg xmlns="http://www.w3.org/2000/svg" width="640" height="480">
        <g id="knob"><circle cx="100" cy="100" r="20" fill="#000"/></g>
        <text x="10" y="300" font-size="20">ON</text></svg>"##;

    #[test]
    fn the_measured_box_is_where_the_pixels_are() {
        let tree = parse(SVG).unwrap();
        assert_eq!(measured_box(&tree, "knob"), Some([80.0, 80.0, 40.0, 40.0]));
        let only =
            parse(&SVG.replace(r#"<text x="10" y="300" font-size="20">ON</text>"#, "")).unwrap();
        assert_eq!(
            drawn_bounds(&raster(&only).unwrap()),
            Some([80, 80, 40, 40])
        );
        assert_eq!(measured_box(&tree, "dial"), None);
    }

    #[test]
    fn text_is_drawn_with_the_vendored_font() {
        let tree = parse(SVG).unwrap();
        let pixmap = raster(&tree).unwrap();
        let text_pixels = pixmap
            .pixels()
            .iter()
            .enumerate()
            .filter(|(i, p)| *i as u32 / 640 > 250 && p.alpha() > 0)
            .count();
        assert!(text_pixels > 50, "{text_pixels} pixels of text");
        assert!(png(&pixmap).unwrap().starts_with(b"\x89PNG"));
    }
}

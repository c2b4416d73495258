//! The picture an episode shows: the static view (the paper's mode, and
//! the default), or the view drawn for the current state (`live`).
//!
//! Live pictures are made here, in the core, with the `image` crate only,
//! so they are the same pixels and the same PNG bytes natively, in the page
//! and from Python: the static view is decoded, the patches that the
//! bundle's live layer ([`crate::bundle::live`]) lists for the state and
//! view are laid over it in order (integer "over" blending), and the result
//! is encoded as PNG. A state with no patch on a view shows the static
//! picture's own bytes.
//!
//! The mode changes what is seen, never what happens: transitions,
//! feedback, budgets and metrics are the same in both modes, and matching
//! uses the SSM's boxes in both. Where a part moved (an open door), the
//! layer records where it is now, and [`live_boxes`] reports that box
//! (always inside the static one, so a click where the part is drawn
//! still reaches it).
//!
//! ```
//! use knoblab_core::sim::render::{RenderMode, Renderer};
//! let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/devices/microwave-0001");
//! let bundle = knoblab_core::bundle::load_path(std::path::Path::new(dir)).unwrap();
//! let mut renderer = Renderer::new(&bundle);
//! let shut = renderer.render("Standby", "front", RenderMode::Live).unwrap();
//! let open = renderer.render("DoorOpen", "front", RenderMode::Live).unwrap();
//! assert_ne!(shut.bytes, open.bytes);
//! let paper = renderer.render("DoorOpen", "front", RenderMode::Static).unwrap();
//! assert_eq!(paper.bytes, bundle.views["front"].image.bytes);
//! ```

use std::collections::BTreeMap;
use std::sync::Arc;

use image::RgbaImage;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::bundle::{Bundle, ViewImage};
use crate::geom::PixelBox;

/// How views are drawn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RenderMode {
    /// The bundle's pictures as they are, whatever the state: VGEBench's
    /// setting, the default, and the mode of every number compared with
    /// the paper.
    #[default]
    Static,
    /// Each view drawn for the current state: lights, displays, pointers,
    /// open doors (when the bundle has a live layer).
    Live,
}

impl RenderMode {
    /// The name used in settings, flags and URLs.
    pub fn as_str(self) -> &'static str {
        match self {
            RenderMode::Static => "static",
            RenderMode::Live => "live",
        }
    }

    /// Reads [`RenderMode::as_str`]'s names.
    pub fn parse(text: &str) -> Result<RenderMode, RenderError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "static" => Ok(RenderMode::Static),
            "live" => Ok(RenderMode::Live),
            _ => Err(RenderError::UnknownMode {
                found: text.to_string(),
            }),
        }
    }
}

impl std::fmt::Display for RenderMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a picture could not be made.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RenderError {
    /// A render mode other than `static` or `live`.
    #[error("render mode \"{found}\" is unknown; expected static or live")]
    UnknownMode {
        /// The mode given.
        found: String,
    },
    /// A view the bundle does not have.
    #[error("the bundle has no view \"{view}\" (views: {known})")]
    UnknownView {
        /// The view asked for.
        view: String,
        /// The bundle's views.
        known: String,
    },
    /// A view's picture or a sheet of patches could not be decoded.
    #[error("{what} could not be decoded: {message}")]
    Decode {
        /// Which picture.
        what: String,
        /// The decoder's message.
        message: String,
    },
    /// The drawn picture could not be encoded (the encoder's message).
    #[error("the live picture could not be encoded: {0}")]
    Encode(String),
}

/// Makes pictures of one bundle, keeping what it decoded (the static views
/// and the sheets of patches) for the next step.
#[derive(Debug, Clone)]
pub struct Renderer<'b> {
    bundle: &'b Bundle,
    views: BTreeMap<String, Arc<RgbaImage>>,
    sheets: BTreeMap<String, Arc<RgbaImage>>,
}

impl<'b> Renderer<'b> {
    /// A renderer of the bundle's views; it decodes each picture when first drawn.
    pub fn new(bundle: &'b Bundle) -> Renderer<'b> {
        Renderer {
            bundle,
            views: BTreeMap::new(),
            sheets: BTreeMap::new(),
        }
    }

    /// The picture of `view` with the device in `state`: in `static` mode,
    /// or when the state shows nothing on that view, the bundle's own
    /// picture (same bytes); otherwise the live picture as PNG.
    pub fn render(
        &mut self,
        state: &str,
        view: &str,
        mode: RenderMode,
    ) -> Result<ViewImage, RenderError> {
        let image = view_image(self.bundle, view)?;
        if mode == RenderMode::Static || !self.has_patches(state, view) {
            return Ok(image.clone());
        }
        let pixels = self.pixels(state, view, mode)?;
        Ok(ViewImage {
            width: pixels.width(),
            height: pixels.height(),
            media_type: crate::bundle::image::PNG.to_string(),
            bytes: Arc::from(encode_png(&pixels)?),
        })
    }

    /// Whether the state lays any patch on the view.
    pub fn has_patches(&self, state: &str, view: &str) -> bool {
        self.bundle
            .live
            .as_ref()
            .is_some_and(|live| live.patches_of(state, view).next().is_some())
    }

    /// The decoded picture (RGBA) of `view` in `state`, as [`Self::render`]
    /// would encode it.
    pub fn pixels(
        &mut self,
        state: &str,
        view: &str,
        mode: RenderMode,
    ) -> Result<RgbaImage, RenderError> {
        let mut out = (*self.base(view)?).clone();
        let Some(live) = self
            .bundle
            .live
            .as_ref()
            .filter(|_| mode == RenderMode::Live)
        else {
            return Ok(out);
        };
        let patches: Vec<_> = live.patches_of(state, view).cloned().collect();
        if patches.is_empty() {
            return Ok(out);
        }
        let sheet = self.sheet(view)?;
        for p in &patches {
            let [fx, fy, w, h] = p.from;
            let [ax, ay] = p.at;
            for dy in 0..h {
                for dx in 0..w {
                    let (sx, sy, tx, ty) = (fx + dx, fy + dy, ax + dx, ay + dy);
                    if sx >= sheet.width()
                        || sy >= sheet.height()
                        || tx >= out.width()
                        || ty >= out.height()
                    {
                        continue;
                    }
                    let s = sheet.get_pixel(sx, sy).0;
                    let a = u32::from(s[3]);
                    if a == 0 {
                        continue;
                    }
                    let d = out.get_pixel_mut(tx, ty);
                    for (dc, sc) in d.0.iter_mut().zip(s).take(3) {
                        let v = (u32::from(sc) * a + u32::from(*dc) * (255 - a) + 127) / 255;
                        *dc = v as u8;
                    }
                    d.0[3] = 255;
                }
            }
        }
        Ok(out)
    }

    fn base(&mut self, view: &str) -> Result<Arc<RgbaImage>, RenderError> {
        if let Some(image) = self.views.get(view) {
            return Ok(image.clone());
        }
        let image = view_image(self.bundle, view)?;
        let decoded = Arc::new(decode(
            &image.bytes,
            &format!("the picture of view \"{view}\""),
        )?);
        self.views.insert(view.to_string(), decoded.clone());
        Ok(decoded)
    }

    fn sheet(&mut self, view: &str) -> Result<Arc<RgbaImage>, RenderError> {
        if let Some(image) = self.sheets.get(view) {
            return Ok(image.clone());
        }
        let what = format!("the live sheet of view \"{view}\"");
        let sheet = self
            .bundle
            .live
            .as_ref()
            .and_then(|live| live.sheets.get(view))
            .ok_or_else(|| RenderError::Decode {
                what: what.clone(),
                message: "the live layer has no sheet for this view".to_string(),
            })?;
        let decoded = Arc::new(decode(&sheet.bytes, &what)?);
        self.sheets.insert(view.to_string(), decoded.clone());
        Ok(decoded)
    }
}

/// One picture without keeping anything decoded (see [`Renderer`]).
pub fn render(
    bundle: &Bundle,
    state: &str,
    view: &str,
    mode: RenderMode,
) -> Result<ViewImage, RenderError> {
    Renderer::new(bundle).render(state, view, mode)
}

/// The signs a state shows, in words (empty without a live layer). For
/// people and tests: a model is only ever shown the picture.
pub fn signs<'a>(bundle: &'a Bundle, state: &str) -> &'a [String] {
    bundle
        .live
        .as_ref()
        .and_then(|live| live.look(state))
        .map_or(&[], |look| look.signs.as_slice())
}

/// The component boxes of a view in pixels of its image, as the picture
/// of `state` in `mode` shows them: in live mode a component that moved
/// (an open door) has its box where it is now. Matching keeps the SSM's
/// boxes in both modes; the moved box lies inside the static one.
pub fn live_boxes<'a>(
    bundle: &'a Bundle,
    state: &str,
    view: &str,
    mode: RenderMode,
) -> Vec<(&'a str, PixelBox)> {
    let mut boxes = bundle.component_boxes(view);
    let (Some(live), RenderMode::Live) = (&bundle.live, mode) else {
        return boxes;
    };
    let Some(image) = bundle.views.get(view).map(|v| &v.image) else {
        return boxes;
    };
    for p in live.patches_of(state, view) {
        if let (Some(component), Some([x, y, w, h, iw, ih])) = (&p.component, p.moved_box) {
            let moved = PixelBox { x, y, w, h };
            let moved = if iw > 0.0 && ih > 0.0 {
                moved.rescale(iw as u32, ih as u32, image.width, image.height)
            } else {
                moved
            };
            for (c, b) in boxes.iter_mut() {
                if *c == component.as_str() {
                    *b = moved;
                }
            }
        }
    }
    boxes
}

/// The static picture of `view`, or the error naming the views there are.
fn view_image<'b>(bundle: &'b Bundle, view: &str) -> Result<&'b ViewImage, RenderError> {
    bundle
        .views
        .get(view)
        .map(|v| &v.image)
        .ok_or_else(|| RenderError::UnknownView {
            view: view.to_string(),
            known: bundle.views.keys().cloned().collect::<Vec<_>>().join(", "),
        })
}

/// A PNG's pixels. Live pictures are drawn over PNG pictures with PNG
/// sheets only (`bundle::validate::live` refuses a live layer over any
/// other), so no other decoder is linked where the player runs (the page's
/// main module: issue #46).
fn decode(bytes: &[u8], what: &str) -> Result<RgbaImage, RenderError> {
    let failed = |message: String| RenderError::Decode {
        what: what.to_string(),
        message,
    };
    let decoder =
        image::codecs::png::PngDecoder::new(std::io::Cursor::new(bytes)).map_err(|e| {
            failed(format!(
                "{e} (a live picture is drawn over PNG pictures only)"
            ))
        })?;
    image::DynamicImage::from_decoder(decoder)
        .map(|i| i.to_rgba8())
        .map_err(|e| failed(e.to_string()))
}

/// Opaque RGB PNG, fast compression: a live picture is made every step.
fn encode_png(pixels: &RgbaImage) -> Result<Vec<u8>, RenderError> {
    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    use image::ImageEncoder;
    let rgb: Vec<u8> = pixels
        .pixels()
        .flat_map(|p| [p.0[0], p.0[1], p.0[2]])
        .collect();
    let mut out = Vec::new();
    PngEncoder::new_with_quality(&mut out, CompressionType::Fast, FilterType::Sub)
        .write_image(
            &rgb,
            pixels.width(),
            pixels.height(),
            image::ExtendedColorType::Rgb8,
        )
        .map_err(|e| RenderError::Encode(e.to_string()))?;
    Ok(out)
}

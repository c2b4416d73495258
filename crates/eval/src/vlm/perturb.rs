//! Image perturbations for robustness runs: JPEG re-encoding at quality 50
//! or 20, Gaussian blur with σ 1, 3 or 5, and 8 black patches covering 10,
//! 25 or 40% of the picture, placed from a seed. The same picture, setting
//! and seed give the same bytes (golden files in `tests/fixtures/vlm/`).

use super::error::VlmError;
use std::fmt;
use std::io::Cursor;

use base64::Engine;
use image::codecs::jpeg::JpegEncoder;
use image::{DynamicImage, ImageFormat, Rgb, RgbImage};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde::{Deserialize, Serialize};

use super::provider::Part;

/// How many black patches a patch perturbation draws.
pub const PATCHES: u32 = 8;

/// One perturbation of the picture sent to a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Perturbation {
    /// Re-encoded as JPEG at this quality (50 or 20 offered).
    Jpeg {
        /// The JPEG quality, 1–100.
        quality: u8,
    },
    /// Gaussian blur with this σ in pixels (1, 3 or 5 offered).
    Blur {
        /// σ in pixels, 1–20.
        sigma: u8,
    },
    /// [`PATCHES`] black squares covering this percentage (10, 25 or 40).
    Patches {
        /// The share of the picture covered, in percent, 1–90.
        percent: u8,
    },
}

impl Perturbation {
    /// The choices the page offers.
    pub const CHOICES: [Perturbation; 8] = [
        Perturbation::Jpeg { quality: 50 },
        Perturbation::Jpeg { quality: 20 },
        Perturbation::Blur { sigma: 1 },
        Perturbation::Blur { sigma: 3 },
        Perturbation::Blur { sigma: 5 },
        Perturbation::Patches { percent: 10 },
        Perturbation::Patches { percent: 25 },
        Perturbation::Patches { percent: 40 },
    ];

    /// Reads `jpeg:50`, `blur:3`, `patches:25`.
    pub fn parse(text: &str) -> Result<Perturbation, VlmError> {
        let bad = || VlmError::UnknownPerturbation {
            found: text.to_string(),
        };
        let (kind, value) = text.trim().split_once(':').ok_or_else(bad)?;
        let value: u8 = value.trim().parse().map_err(|_| bad())?;
        match kind.trim().to_ascii_lowercase().as_str() {
            "jpeg" if (1..=100).contains(&value) => Ok(Perturbation::Jpeg { quality: value }),
            "blur" if (1..=20).contains(&value) => Ok(Perturbation::Blur { sigma: value }),
            "patches" if (1..=90).contains(&value) => Ok(Perturbation::Patches { percent: value }),
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for Perturbation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Perturbation::Jpeg { quality } => write!(f, "jpeg:{quality}"),
            Perturbation::Blur { sigma } => write!(f, "blur:{sigma}"),
            Perturbation::Patches { percent } => write!(f, "patches:{percent}"),
        }
    }
}

/// An encoded picture ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedImage {
    /// Its media type (`image/png`, `image/jpeg`).
    pub media_type: String,
    /// The encoded bytes.
    pub bytes: Vec<u8>,
}

impl EncodedImage {
    /// As a message part (base64).
    pub fn part(&self) -> Part {
        Part::Image {
            media_type: self.media_type.clone(),
            base64: base64::engine::general_purpose::STANDARD.encode(&self.bytes),
        }
    }

    /// As a `data:` URL, for showing the picture that was sent.
    pub fn data_url(&self) -> String {
        format!(
            "data:{};base64,{}",
            self.media_type,
            base64::engine::general_purpose::STANDARD.encode(&self.bytes)
        )
    }
}

/// Applies a perturbation to a PNG or JPEG picture. The patches are placed
/// by `seed`. JPEG perturbations give JPEG, the others PNG. Bytes that do
/// not decode give a message, never a panic.
pub fn apply(
    bytes: &[u8],
    perturbation: Perturbation,
    seed: u64,
) -> Result<EncodedImage, VlmError> {
    let image = image::load_from_memory(bytes)
        .map_err(|e| VlmError::Undecodable {
            perturbation: perturbation.to_string(),
            message: e.to_string(),
        })?
        .to_rgb8();
    match perturbation {
        Perturbation::Jpeg { quality } => jpeg(&image, quality),
        Perturbation::Blur { sigma } => {
            let blurred = image::imageops::blur(&image, f32::from(sigma));
            png(&blurred)
        }
        Perturbation::Patches { percent } => {
            let mut image = image;
            black_patches(&mut image, percent, seed);
            png(&image)
        }
    }
}

fn jpeg(image: &RgbImage, quality: u8) -> Result<EncodedImage, VlmError> {
    let mut bytes = Vec::new();
    JpegEncoder::new_with_quality(&mut bytes, quality)
        .encode_image(image)
        .map_err(|e| VlmError::Encoding {
            format: "JPEG",
            message: e.to_string(),
        })?;
    Ok(EncodedImage {
        media_type: "image/jpeg".into(),
        bytes,
    })
}

fn png(image: &RgbImage) -> Result<EncodedImage, VlmError> {
    let mut out = Cursor::new(Vec::new());
    DynamicImage::ImageRgb8(image.clone())
        .write_to(&mut out, ImageFormat::Png)
        .map_err(|e| VlmError::Encoding {
            format: "PNG",
            message: e.to_string(),
        })?;
    Ok(EncodedImage {
        media_type: "image/png".into(),
        bytes: out.into_inner(),
    })
}

/// A square patch: top-left corner and side, in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Patch {
    x: u32,
    y: u32,
    side: u32,
}

/// Where the patches go. **Decision:** the 8 patches are equal squares,
/// each covering `percent`/8 of the picture, placed one per cell of a 4×2
/// grid (2×4 for a portrait picture) at a random position inside its cell.
/// So they never overlap and cover exactly the asked share (to whole
/// pixels) while their places still vary with the seed. A square larger
/// than its cell (a picture more than about 2.5 times wider than tall at
/// 40%) is shrunk to the cell, covering less.
fn place_patches(width: u32, height: u32, percent: u8, seed: u64) -> Vec<Patch> {
    let (columns, rows) = if width >= height { (4, 2) } else { (2, 4) };
    let area = f64::from(width) * f64::from(height) * f64::from(percent) / 100.0;
    let side = (area / f64::from(PATCHES)).sqrt().round() as u32;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut below = |n: u32| (rng.next_u64() % u64::from(n.max(1))) as u32;
    let mut placed = Vec::new();
    for cell in 0..PATCHES {
        let (cx, cy) = (cell % columns, cell / columns);
        let (x0, x1) = (width * cx / columns, width * (cx + 1) / columns);
        let (y0, y1) = (height * cy / rows, height * (cy + 1) / rows);
        let side = side.clamp(1, (x1 - x0).min(y1 - y0).max(1));
        placed.push(Patch {
            x: x0 + below((x1 - x0).saturating_sub(side) + 1),
            y: y0 + below((y1 - y0).saturating_sub(side) + 1),
            side,
        });
    }
    placed
}

fn black_patches(image: &mut RgbImage, percent: u8, seed: u64) {
    let (w, h) = image.dimensions();
    for p in place_patches(w, h, percent, seed) {
        for y in p.y..(p.y + p.side).min(h) {
            for x in p.x..(p.x + p.side).min(w) {
                image.put_pixel(x, y, Rgb([0, 0, 0]));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overlaps(a: &Patch, b: &Patch) -> bool {
        a.x < b.x + b.side && b.x < a.x + a.side && a.y < b.y + b.side && b.y < a.y + a.side
    }

    #[test]
    fn names_read_back() {
        for p in Perturbation::CHOICES {
            assert_eq!(Perturbation::parse(&p.to_string()), Ok(p));
        }
        for bad in ["jpeg", "jpeg:0", "blur:x", "patches:95", "noise:3"] {
            assert!(Perturbation::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn patches_cover_the_share_asked_when_they_fit() {
        for percent in [10, 25, 40] {
            let patches = place_patches(400, 300, percent, 7);
            assert_eq!(patches.len(), PATCHES as usize);
            for (i, a) in patches.iter().enumerate() {
                assert!(a.x + a.side <= 400 && a.y + a.side <= 300);
                for b in &patches[i + 1..] {
                    assert!(!overlaps(a, b), "{percent}%: {a:?} overlaps {b:?}");
                }
            }
            let covered: u32 = patches.iter().map(|p| p.side * p.side).sum();
            let share = f64::from(covered) / 120_000.0 * 100.0;
            // Rounding each side to whole pixels moves the share by under 1 point here.
            assert!(
                (share - f64::from(percent)).abs() < 1.0,
                "{percent}%: {share}"
            );
        }
    }

    #[test]
    fn the_seed_decides_where_patches_go() {
        assert_eq!(
            place_patches(200, 200, 25, 1),
            place_patches(200, 200, 25, 1)
        );
        assert_ne!(
            place_patches(200, 200, 25, 1),
            place_patches(200, 200, 25, 2)
        );
    }

    #[test]
    fn tiny_pictures_do_not_panic() {
        let patches = place_patches(1, 1, 40, 3);
        assert!(patches.iter().all(|p| p.x == 0 && p.y == 0 && p.side == 1));
        let patches = place_patches(3, 1, 40, 3);
        assert!(patches
            .iter()
            .all(|p| p.x + p.side <= 3 && p.y + p.side <= 1));
        assert!(apply(b"not an image", Perturbation::Blur { sigma: 1 }, 0)
            .unwrap_err()
            .to_string()
            .contains("blur:1"));
    }
}

//! View images ([`ViewImage`]): only their size is needed, read from the
//! header without decoding the pixels, within the bounds of
//! [`super::limits`].

use std::io::Cursor;
use std::sync::Arc;

use base64::Engine;
use image::ImageFormat;
use thiserror::Error;

use super::limits::{human_bytes, MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS};

/// A view's picture, decoded enough to know its size. The encoded bytes are
/// kept (shared, cheap to clone) so the page can show them and an agent can
/// send them to a model.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The media type of `bytes`, e.g. `image/png`.
    pub media_type: String,
    /// The encoded file, as it came.
    pub bytes: Arc<[u8]>,
}

/// The media type of a PNG picture.
pub const PNG: &str = "image/png";

impl ViewImage {
    /// Whether it is a PNG (a live layer draws over PNG pictures only).
    pub fn is_png(&self) -> bool {
        self.media_type == PNG
    }
}

/// Why a view image, or the `data:` URL holding one, was refused. Each
/// message says what was found and what is accepted; the caller names the
/// view.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ImageError {
    /// The image is larger than [`MAX_IMAGE_BYTES`].
    #[error("the image takes {found}; at most {cap} is accepted")]
    TooLarge {
        /// The image's size, for people.
        found: String,
        /// The cap, for people.
        cap: String,
    },
    /// The bytes could not be probed at all.
    #[error("the image could not be read: {message}")]
    Unreadable {
        /// The decoder's message.
        message: String,
    },
    /// An image, but neither PNG nor JPEG.
    #[error("the image is {format}; a view image must be PNG or JPEG")]
    Format {
        /// The format found.
        format: String,
    },
    /// The bytes are no image format at all.
    #[error("not an image: the file starts with {start}; a view image must be PNG or JPEG")]
    NotImage {
        /// The first bytes, as text or hex.
        start: String,
    },
    /// The header of a PNG or JPEG could not be read.
    #[error("the {media_type} header could not be read: {message}")]
    Header {
        /// `image/png` or `image/jpeg`.
        media_type: &'static str,
        /// The decoder's message.
        message: String,
    },
    /// The header declares no pixels.
    #[error("the image header declares {width}×{height} pixels; a view image needs at least 1×1")]
    Empty {
        /// Declared width.
        width: u32,
        /// Declared height.
        height: u32,
    },
    /// The header declares more than [`MAX_IMAGE_PIXELS`] pixels.
    #[error(
        "the image header declares {width}×{height} = {pixels} pixels; at most {MAX_IMAGE_PIXELS} \
         ({} megapixels) can be decoded safely", MAX_IMAGE_PIXELS / 1_000_000
    )]
    TooManyPixels {
        /// Declared width.
        width: u32,
        /// Declared height.
        height: u32,
        /// Their product.
        pixels: u64,
    },
    /// The text does not start with `data:`.
    #[error("expected a data: URL")]
    NotDataUrl,
    /// The `data:` URL has no comma before its data.
    #[error("the data: URL has no ',' before its data")]
    NoComma,
    /// The `data:` URL is not base64.
    #[error("the data: URL is not base64 (found `data:{header},`); expected `data:image/png;base64,...`")]
    NotBase64 {
        /// What stands between `data:` and the comma.
        header: String,
    },
    /// The `data:` URL would decode to more than [`MAX_IMAGE_BYTES`].
    #[error("the data: URL holds about {found}; at most {cap} is accepted")]
    DataUrlTooLarge {
        /// The decoded size, estimated, for people.
        found: String,
        /// The cap, for people.
        cap: String,
    },
    /// The base64 text is invalid.
    #[error("the data: URL's base64 is invalid: {message}")]
    InvalidBase64 {
        /// The decoder's message.
        message: String,
    },
}

/// Reads a view image's size and media type from its header.
///
/// Refuses, with a message saying what was found and what is accepted:
/// more than [`MAX_IMAGE_BYTES`] bytes, bytes that are not a PNG or JPEG,
/// a header that cannot be read, a zero size, or more than
/// [`MAX_IMAGE_PIXELS`] pixels (checked from the header, so a decompression
/// bomb is never decoded).
///
/// **Decision** (issue #46): a JPEG's size is read from its frame header
/// here ([`jpeg_declared_size`]) rather than by the `image` crate's
/// reader, which would link a JPEG decoder into every build that reads a
/// bundle (the page's main module among them), though no JPEG is ever
/// decoded there: a view's picture is shown as it came, and live pictures
/// are drawn over PNG pictures only (`bundle::validate::live`).
pub fn read_view_image(bytes: Vec<u8>) -> Result<ViewImage, ImageError> {
    if bytes.len() > MAX_IMAGE_BYTES {
        return Err(ImageError::TooLarge {
            found: human_bytes(bytes.len() as u64),
            cap: human_bytes(MAX_IMAGE_BYTES as u64),
        });
    }
    let (media_type, size) = match image::guess_format(&bytes) {
        Ok(ImageFormat::Png) => {
            // The PNG decoder on 32-bit wasm refuses a huge header itself
            // ("Memory limit exceeded"): the size IHDR declares is checked
            // first, so the page gives the same message as the CLI.
            if let Some((width, height)) = png_declared_size(&bytes) {
                check_size(width, height)?;
            }
            (PNG, png_size(&bytes))
        }
        Ok(ImageFormat::Jpeg) => ("image/jpeg", jpeg_declared_size(&bytes)),
        Ok(other) => {
            return Err(ImageError::Format {
                format: format!("{other:?}"),
            })
        }
        Err(_) => {
            return Err(ImageError::NotImage {
                start: describe_start(&bytes),
            })
        }
    };
    let (width, height) = size.map_err(|message| ImageError::Header {
        media_type,
        message,
    })?;
    check_size(width, height)?;
    Ok(ViewImage {
        width,
        height,
        media_type: media_type.to_string(),
        bytes: Arc::from(bytes),
    })
}

/// A PNG's size, its header read by the PNG decoder.
fn png_size(bytes: &[u8]) -> Result<(u32, u32), String> {
    use image::ImageDecoder;
    image::codecs::png::PngDecoder::new(Cursor::new(bytes))
        .map(|decoder| decoder.dimensions())
        .map_err(|e| e.to_string())
}

/// The width and height a JPEG's frame header (its first SOF segment)
/// declares, walking its segments up to the image data (SOS), as a
/// decoder reads the headers; why not, when the file ends or breaks first.
pub fn jpeg_declared_size(bytes: &[u8]) -> Result<(u32, u32), String> {
    let be = |at: usize| {
        bytes
            .get(at..at + 2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
    };
    let cut = || "the file ends before its image data (SOS)".to_string();
    if bytes.get(..2) != Some(&[0xFF, 0xD8][..]) {
        return Err("no start-of-image marker (FF D8)".to_string());
    }
    let mut size = None;
    let mut at = 2;
    loop {
        if *bytes.get(at).ok_or_else(cut)? != 0xFF {
            return Err(format!("no segment marker at byte {at}"));
        }
        // Fill bytes (FF) may precede a marker.
        while bytes.get(at + 1) == Some(&0xFF) {
            at += 1;
        }
        let marker = *bytes.get(at + 1).ok_or_else(cut)?;
        at += 2;
        match marker {
            // Markers without a segment: TEM, the restarts, SOI.
            0x01 | 0xD0..=0xD8 => continue,
            0xD9 => return Err("the image ends (EOI) before its image data".into()),
            0xDA => {
                return size
                    .ok_or_else(|| "the image data begins before a frame header (SOF)".into())
            }
            _ => {
                let length = be(at).ok_or_else(cut)?;
                if length < 2 || bytes.len() < at + usize::from(length) {
                    return Err(format!(
                        "the segment at byte {at} declares length {length}; the file has {} bytes",
                        bytes.len()
                    ));
                }
                // Start of frame, every kind (C4, C8 and CC are other segments).
                let frame = matches!(marker, 0xC0..=0xC3 | 0xC5..=0xC7 | 0xC9..=0xCB | 0xCD..=0xCF);
                if frame && size.is_none() {
                    let height = be(at + 3).ok_or_else(cut)?;
                    let width = be(at + 5).ok_or_else(cut)?;
                    size = Some((u32::from(width), u32::from(height)));
                }
                at += usize::from(length);
            }
        }
    }
}

/// Refuses a declared size of zero or of more than [`MAX_IMAGE_PIXELS`].
fn check_size(width: u32, height: u32) -> Result<(), ImageError> {
    if width == 0 || height == 0 {
        return Err(ImageError::Empty { width, height });
    }
    let pixels = u64::from(width) * u64::from(height);
    if pixels > MAX_IMAGE_PIXELS {
        return Err(ImageError::TooManyPixels {
            width,
            height,
            pixels,
        });
    }
    Ok(())
}

/// The width and height a PNG's first chunk (IHDR) declares: the 8-byte
/// signature, the chunk's length and type, then width and height as
/// big-endian u32. `None` when the bytes do not start that way.
fn png_declared_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.get(..8)? != b"\x89PNG\r\n\x1a\n" || bytes.get(12..16)? != b"IHDR" {
        return None;
    }
    let be = |at: usize| Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    Some((be(16)?, be(20)?))
}

/// Decodes a `data:[<media type>][;base64],<data>` URL into its bytes.
/// Only base64 URLs are accepted (an image is binary); the encoded text is
/// measured before decoding, so an oversized URL is refused cheaply.
pub fn decode_data_url(url: &str) -> Result<Vec<u8>, ImageError> {
    let rest = url.strip_prefix("data:").ok_or(ImageError::NotDataUrl)?;
    let (header, data) = rest.split_once(',').ok_or(ImageError::NoComma)?;
    if !header.ends_with(";base64") {
        return Err(ImageError::NotBase64 {
            header: header.to_string(),
        });
    }
    // base64 takes 4 characters for 3 bytes.
    let decoded_len = data.len() / 4 * 3;
    if decoded_len > MAX_IMAGE_BYTES {
        return Err(ImageError::DataUrlTooLarge {
            found: human_bytes(decoded_len as u64),
            cap: human_bytes(MAX_IMAGE_BYTES as u64),
        });
    }
    let data = data.trim();
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|e| ImageError::InvalidBase64 {
            message: e.to_string(),
        })
}

/// A `data:` URL holding `image`'s bytes, for the single-file form.
pub fn encode_data_url(image: &ViewImage) -> String {
    format!(
        "data:{};base64,{}",
        image.media_type,
        base64::engine::general_purpose::STANDARD.encode(&image.bytes[..])
    )
}

/// The first bytes of a file, for a message: as text when they are
/// printable, else in hex.
fn describe_start(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "nothing (it is empty)".into();
    }
    let head = &bytes[..bytes.len().min(8)];
    if head.iter().all(|b| b.is_ascii_graphic() || *b == b' ') {
        format!("\"{}\"", String::from_utf8_lossy(head))
    } else {
        let hex: Vec<String> = head.iter().map(|b| format!("{b:02x}")).collect();
        format!("bytes {}", hex.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_file_is_not_an_image() {
        let err = read_view_image(b"hello world".to_vec())
            .unwrap_err()
            .to_string();
        assert!(err.contains("not an image"), "{err}");
        assert!(err.contains("\"hello wo\""), "{err}");
    }

    #[test]
    fn an_empty_file_is_not_an_image() {
        let err = read_view_image(Vec::new()).unwrap_err().to_string();
        assert!(err.contains("empty"), "{err}");
    }

    fn encoded(format: ImageFormat, width: u32, height: u32) -> Vec<u8> {
        let pixels = image::GrayImage::new(width, height);
        let mut out = Cursor::new(Vec::new());
        pixels.write_to(&mut out, format).unwrap();
        out.into_inner()
    }

    #[test]
    fn png_and_jpeg_sizes_come_from_their_headers() {
        let png = read_view_image(encoded(ImageFormat::Png, 37, 11)).unwrap();
        assert_eq!(
            (png.width, png.height, png.media_type.as_str()),
            (37, 11, "image/png")
        );
        let jpeg = read_view_image(encoded(ImageFormat::Jpeg, 16, 9)).unwrap();
        assert_eq!(
            (jpeg.width, jpeg.height, jpeg.media_type.as_str()),
            (16, 9, "image/jpeg")
        );
    }

    #[test]
    fn a_jpeg_header_cut_or_broken_is_refused_with_where() {
        let jpeg = encoded(ImageFormat::Jpeg, 16, 9);
        for cut in [4, 20, 60] {
            let err = read_view_image(jpeg[..cut].to_vec())
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("the image/jpeg header could not be read"),
                "{cut}: {err}"
            );
        }
        // Image data (SOS) before any frame header.
        let err = jpeg_declared_size(&[0xFF, 0xD8, 0xFF, 0xDA, 0, 2]).unwrap_err();
        assert!(err.contains("before a frame header"), "{err}");
        // A segment that claims less than its own length field.
        let err = jpeg_declared_size(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 1]).unwrap_err();
        assert!(err.contains("declares length 1"), "{err}");
        // The end of the image before any image data.
        let err = jpeg_declared_size(&[0xFF, 0xD8, 0xFF, 0xD9]).unwrap_err();
        assert!(err.contains("EOI"), "{err}");
        // Bytes between segments that are no marker.
        let err = jpeg_declared_size(&[0xFF, 0xD8, 0x00]).unwrap_err();
        assert!(err.contains("no segment marker at byte 2"), "{err}");
    }

    #[test]
    fn a_progressive_jpeg_size_comes_from_its_frame_header() {
        // SOI, an APP0 of 4 bytes, SOF2 (progressive): 8-bit, 300 high,
        // 500 wide, one component; then SOS.
        let bytes = [
            0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0, 0xFF, 0xC2, 0, 11, 8, 1, 44, 1, 244, 1, 1, 0x11, 0,
            0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 63, 0,
        ];
        assert_eq!(jpeg_declared_size(&bytes), Ok((500, 300)));
    }

    #[test]
    fn a_truncated_png_is_refused() {
        let mut png = encoded(ImageFormat::Png, 37, 11);
        png.truncate(20);
        let err = read_view_image(png).unwrap_err().to_string();
        assert!(
            err.contains("the image/png header could not be read"),
            "{err}"
        );
    }

    #[test]
    fn an_oversized_file_is_refused_before_it_is_read() {
        let err = read_view_image(vec![0; MAX_IMAGE_BYTES + 1])
            .unwrap_err()
            .to_string();
        assert!(err.contains("at most 32 MiB"), "{err}");
    }

    #[test]
    fn data_urls_round_trip() {
        let image = read_view_image(encoded(ImageFormat::Png, 3, 2)).unwrap();
        let url = encode_data_url(&image);
        assert!(url.starts_with("data:image/png;base64,"));
        assert_eq!(decode_data_url(&url).unwrap(), &image.bytes[..]);
    }

    #[test]
    fn data_urls_must_be_base64() {
        assert!(decode_data_url("data:image/png,abc")
            .unwrap_err()
            .to_string()
            .contains("not base64"));
        assert!(decode_data_url("views/front.png").is_err());
        assert_eq!(
            decode_data_url("data:image/png;base64,aGk=").unwrap(),
            b"hi"
        );
        assert!(decode_data_url("data:image/png;base64,!!!")
            .unwrap_err()
            .to_string()
            .contains("invalid"));
    }
}

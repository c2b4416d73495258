//! Labels drawn as the outlines of the vendored font's glyphs
//! (`knoblab_devicegen::font`, what the generator draws natively and in
//! the page) against resvg's own text engine (a shaper with the same font,
//! what the generator used before; built here only, in tests): the same
//! glyphs at the same places, pixel for pixel but for anti-aliasing.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test: a panic here is a failed test

use std::sync::Arc;

use knoblab_devicegen::font::{Anchor, Font, Pen};
use knoblab_devicegen::render::{self, FONT_SHA256};
use resvg::tiny_skia::{Pixmap, Transform};
use resvg::usvg::{fontdb, Options, Tree};

const FONT: &[u8] = include_bytes!("../../../data/gen/fonts/DejaVuSansCondensed-Bold.ttf");

/// `label` at `size`, centred on (`x`, `y`), as an SVG document 200×60.
fn document(label: &str, size: f64) -> String {
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="60"><text x="100" y="42" font-size="{size}" text-anchor="middle" fill="#000">{label}</text></svg>"##
    )
}

/// The document drawn by resvg's text engine with the vendored font.
fn by_text_engine(svg: &str) -> Pixmap {
    let mut db = fontdb::Database::new();
    db.load_font_data(FONT.to_vec());
    let options = Options {
        font_family: "DejaVu Sans".to_string(),
        fontdb: Arc::new(db),
        ..Options::default()
    };
    let tree = Tree::from_str(svg, &options).unwrap();
    raster(&tree)
}

fn raster(tree: &Tree) -> Pixmap {
    let mut pixmap = Pixmap::new(200, 60).unwrap();
    resvg::render(tree, Transform::identity(), &mut pixmap.as_mut());
    pixmap
}

/// Pixels whose coverage differs by more than a quarter, and the pixels
/// covered at all in `a`.
fn compare(a: &Pixmap, b: &Pixmap) -> (usize, usize) {
    let differ = a
        .pixels()
        .iter()
        .zip(b.pixels())
        .filter(|(p, q)| p.alpha().abs_diff(q.alpha()) > 64)
        .count();
    let covered = a.pixels().iter().filter(|p| p.alpha() > 0).count();
    (differ, covered)
}

/// Every character the library's descriptions and marks use (printable
/// ASCII, the degree sign, the contact sheet's middle dot) and a composite
/// glyph (é). Drawn one at a time, each is where the text engine puts it,
/// in the same outline.
#[test]
fn each_character_is_the_text_engines_glyph() {
    let chars = (' '..='~').chain(['°', '·', 'é']);
    for c in chars {
        let label = knoblab_devicegen::svg::escape(&c.to_string());
        let svg = document(&label, 40.0);
        let ours = raster(&render::parse(&svg).unwrap());
        let theirs = by_text_engine(&svg);
        let (differ, covered) = compare(&theirs, &ours);
        assert!(differ <= 2, "{c:?}: {differ} of {covered} pixels differ");
        if c != ' ' {
            assert!(covered > 10, "{c:?}: nothing drawn");
        }
    }
}

/// Labels as the generator writes them (words, numbers, marks, a degree):
/// kerned pairs included, each glyph where the shaper puts it.
#[test]
fn labels_are_laid_out_as_the_shaper_lays_them_out() {
    for label in [
        "ON",
        "OFF",
        "AUTO",
        "Temp",
        "180°C",
        "12:30",
        "AV",
        "To",
        "Wa",
        "LOW",
        "HIGH",
        "Y.",
        "P,",
        "1 2 3",
        "Lock",
        "Start/Pause",
    ] {
        for size in [10.0, 14.0, 23.5] {
            let svg = document(label, size);
            let ours = raster(&render::parse(&svg).unwrap());
            let theirs = by_text_engine(&svg);
            let (differ, covered) = compare(&theirs, &ours);
            assert!(
                differ * 50 <= covered.max(50),
                "{label:?} at {size}: {differ} of {covered} pixels differ"
            );
        }
    }
}

/// The font reader's own figures against the font's tables as read by
/// hand: units per em, a glyph's advance, and a kerning pair.
#[test]
fn the_font_reader_reads_the_vendored_font() {
    let font = Font::parse(FONT).unwrap();
    assert_eq!(font.units_per_em(), 2048);
    let a = font.glyph('A');
    assert_ne!(a, 0);
    assert_eq!(font.glyph('\u{10FFFF}'), 0, "a character the font lacks");
    assert!(font.advance(a) > 1000 && font.advance(a) < 2048);
    // "AV" is a pair every Latin font kerns tighter.
    assert!(font.kerning(a, font.glyph('V')) < 0);
    assert_eq!(font.kerning(font.glyph('1'), font.glyph('1')), 0);
}

/// A pen that counts what it is asked to draw.
#[derive(Default)]
struct Count {
    moves: usize,
    segments: usize,
    closes: usize,
}

impl Pen for Count {
    fn move_to(&mut self, _: f64, _: f64) {
        self.moves += 1;
    }
    fn line_to(&mut self, _: f64, _: f64) {
        self.segments += 1;
    }
    fn quad_to(&mut self, _: f64, _: f64, _: f64, _: f64) {
        self.segments += 1;
    }
    fn close(&mut self) {
        self.closes += 1;
    }
}

/// Contours close: "O" is two, "8" three, "é" (a composite: e's two and
/// the accent's) three; a space draws nothing.
#[test]
fn outlines_have_their_contours() {
    let font = Font::parse(FONT).unwrap();
    for (c, contours) in [('O', 2), ('8', 3), ('é', 3), (' ', 0)] {
        let mut pen = Count::default();
        font.outline(font.glyph(c), &mut pen).unwrap();
        assert_eq!((pen.moves, pen.closes), (contours, contours), "{c:?}");
        assert_eq!(pen.segments == 0, contours == 0, "{c:?}");
    }
    let path = font.label_path("O", 0.0, 0.0, 10.0, Anchor::Start);
    assert!(path.starts_with('M') && path.ends_with('Z'), "{path}");
}

/// Bytes that are not the vendored font are refused by the page's
/// `provide_font`: its digest is the vendored file's.
#[test]
fn the_fonts_digest_is_the_vendored_files() {
    assert!(render::is_the_font(FONT));
    assert!(!render::is_the_font(&FONT[1..]));
    assert_eq!(FONT_SHA256.len(), 64);
}

/// A font cut short is refused with the table that ends too soon.
#[test]
fn a_truncated_font_says_which_table() {
    let err = Font::parse(&FONT[..2000]).err().unwrap();
    assert!(err.to_string().contains("table"), "{err}");
    assert!(Font::parse(b"").is_err());
}

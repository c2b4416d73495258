//! Every size and count cap on input, in one place, each with the reason
//! for its value. A hostile or broken file (a zip bomb, a PNG declaring
//! 100000×100000 pixels, a ring of a million states, a path of a million
//! points) is refused with a message naming the cap, before the memory or
//! the time is spent. The page runs in a browser tab, where running out of
//! memory kills the page, so the caps hold there too.
//!
//! [`crate::bundle::limits`] and [`knoblab_score::limits`] re-export the
//! byte caps under their old names; this module is where they are set.

// ---- bytes -----------------------------------------------------------------

/// The most pixels (width × height) a view image may declare: 40
/// megapixels, about four times a 12-megapixel photo. Checked from the
/// image header, before anything is decoded; a decoded RGBA image this size
/// takes 160 MB.
pub const MAX_IMAGE_PIXELS: u64 = 40_000_000;

/// The most bytes one view image may take encoded (32 MiB). A real view is
/// a few hundred KB; this bounds what a data URL or a file may make us hold.
pub const MAX_IMAGE_BYTES: usize = 32 * 1024 * 1024;

/// The most bytes any one file of a bundle may take once read (32 MiB):
/// a JSON file, an image, a zip entry after decompression. A zip entry is
/// read through a limit of this size, whatever size its header claims, so a
/// zip bomb stops here.
pub const MAX_FILE_BYTES: usize = 32 * 1024 * 1024;

/// The most bytes a whole bundle may take (256 MiB): a zip or single JSON
/// file as given, and the sum of the files read out of a folder or a zip.
pub const MAX_BUNDLE_BYTES: usize = 256 * 1024 * 1024;

/// The most entries a zip may list (10,000): its central directory is read
/// whole when the zip is opened. A bundle has a handful of files; a
/// FineState or SWITCH ground-truth zip a few thousand.
pub const MAX_ZIP_ENTRIES: usize = 10_000;

/// The most entries a ground-truth zip may list (200,000): FineState's full
/// release lists every screenshot (about 2,300 per platform); the central
/// directory of 200,000 entries takes about 20 MB.
pub const MAX_RESULTS_ZIP_ENTRIES: usize = 200_000;

/// The most bytes one results or ground-truth file may take (256 MiB),
/// whole or as a zip entry once decompressed. Real ones take a few MB (a
/// full EPIC-Bench run of raw replies, a FineState results list, a SWITCH
/// `vqa.json`); the bound only keeps a hostile file from taking the
/// machine's memory. The CLI checks a file's size before reading it; a zip
/// entry is refused by its declared size, and read through this cap
/// whatever its header claims.
pub const MAX_RESULTS_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// The most bytes a `knoblab eval` output file may take when a run is
/// resumed (1 GiB). Its records keep each model turn's raw reply and
/// reasoning, a few KB a step: a plan of 10,000 episodes of 20 steps at
/// 4 KB a turn is about 800 MB, so the bound is above the largest run the
/// CLI is meant for and keeps a wrong `--out` (a disk image) from being
/// read into memory.
pub const MAX_EVAL_OUTPUT_BYTES: u64 = 1 << 30;

/// The most bytes one model reply may take (16 MiB): no model answers an
/// action in that much; the bound keeps a broken or hostile endpoint from
/// streaming without end.
pub const MAX_REPLY_BYTES: u64 = 16 << 20;

/// The most bytes the entries read out of one results zip may take
/// together (512 MiB): two full-size files.
pub const MAX_ZIP_READ_BYTES: u64 = 512 * 1024 * 1024;

/// How deep JSON may nest: `serde_json`'s own recursion limit (128), left
/// on. Deeper input is refused with "recursion limit exceeded" and its line
/// and column; no bundle file needs more than about ten levels.
pub const MAX_JSON_DEPTH: usize = 128;

/// The most problems one check reports (1000); past it, one last line says
/// how many more there were. A broken generator can write a file with a
/// problem on every line; nobody reads more, and the page must stay light.
pub const MAX_DIAGNOSTICS: usize = 1000;

// ---- counts ----------------------------------------------------------------

/// The most states one state machine may have (100,000). The shipped
/// devices have at most a few hundred (a combination of parts multiplies
/// states, so a derived device can reach thousands); validation and the
/// planner are linear in the states and transitions (the figure for
/// 100,000 states is in docs/performance.md).
pub const MAX_STATES: usize = 100_000;

/// The most points one EPIC trajectory path may have (10,000). A model's
/// path is a few to a few hundred points; the scorer rasterises every
/// segment, so a path of 300,000 points took 25 s and 2.4 GB before this
/// cap. 10,000 points is twenty times the longest path in the official
/// runs and is scored in a fraction of a second.
pub const MAX_PATH_POINTS: usize = 10_000;

/// The most λ (budget multiplier) a run may use (100). The spec's default
/// is 5 and its experiments use up to 10; every step of an episode is kept
/// until the episode ends, so λ = 4294967295 asked for billions of steps.
pub const MAX_LAMBDA: u32 = 100;

/// The most steps one recorded episode may have (100,000). With λ at
/// [`MAX_LAMBDA`] a task of 1,000 optimal steps reaches it (the library's
/// longest episode at λ = 100 has 900 steps); a step record takes about
/// 500 bytes as JSON, so an episode at the cap is about 50 MB of records.
pub const MAX_EPISODE_STEPS: usize = 100_000;

/// The most samples (episodes, predictions, results records) one results or
/// trajectory file may hold (1,000,000). The benchmarks have a few thousand
/// samples each; the byte cap alone would let a file of tiny records make
/// millions of objects.
pub const MAX_SAMPLES_PER_FILE: usize = 1_000_000;

/// Human-readable size, for messages: `32 MiB`, `512 KiB`, `100 bytes`.
pub fn human_bytes(n: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * 1024;
    if n >= MIB && n.is_multiple_of(MIB) {
        format!("{} MiB", n / MIB)
    } else if n >= MIB {
        format!("{:.1} MiB", n as f64 / MIB as f64)
    } else if n >= KIB && n.is_multiple_of(KIB) {
        format!("{} KiB", n / KIB)
    } else {
        format!("{n} bytes")
    }
}

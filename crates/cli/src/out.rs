//! Everything the CLI prints goes through here.
//!
//! - A closed stdout (`knoblab validate … | head -c1`) ends the program
//!   quietly with exit 0, as `head` expects: a write error is returned as
//!   an [`std::io::Error`] of kind `BrokenPipe`, which [`super::main`]
//!   turns into a quiet success. `println!` would panic instead.
//! - A closed stderr loses the message and nothing else ([`warn`]).
//! - Text for people has its control characters escaped
//!   ([`knoblab_core::input::text::escape_lines`]): a bundle name holding
//!   `ESC[2J` cannot clear the screen or forge lines. JSON documents are
//!   printed as `serde_json` writes them (it escapes every C0 control).

use std::io::Write;

use knoblab_core::input::text::escape_lines;

/// Prints a text report for people on stdout, control characters escaped.
pub fn text(report: &str) -> anyhow::Result<()> {
    raw(&escape_lines(report))
}

/// Prints one JSON document on stdout, with a final newline.
pub fn json<T: serde::Serialize + ?Sized>(doc: &T) -> anyhow::Result<()> {
    let mut text = serde_json::to_string_pretty(doc)?;
    text.push('\n');
    raw(&text)
}

/// Prints `text` on stdout as it is (already escaped, or JSON).
pub fn raw(text: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()?;
    Ok(())
}

/// A line on stderr (`knoblab: ` before it), control characters escaped.
/// A closed stderr is ignored: there is nowhere left to say anything.
pub fn warn(message: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "knoblab: {}", escape_lines(message));
}

/// Names on stderr what the numbers do not use (issue #47): a line per
/// item, the first [`UNUSED_SHOWN`] of them, then how many more; every one
/// is in the `--json` document's `unused` list.
pub fn unused(unused: &[knoblab_app::scoring::Unused]) {
    if unused.is_empty() {
        return;
    }
    warn(&format!(
        "not used: {} (every one under \"unused\" in --json)",
        knoblab_app::scoring::summary(unused)
    ));
    for u in unused.iter().take(UNUSED_SHOWN) {
        warn(&format!("  {u}"));
    }
    if unused.len() > UNUSED_SHOWN {
        warn(&format!("  and {} more", unused.len() - UNUSED_SHOWN));
    }
}

/// How many unused items are listed on stderr.
pub const UNUSED_SHOWN: usize = 20;

/// Whether an error is a write to a closed pipe (the reader went away).
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

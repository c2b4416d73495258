//! Writes the benchmark-sized synthetic EPIC-Bench set
//! (`score::epic::synthetic`, 6,661 samples) to a folder, as a user would
//! drop it on the scoring page: `raw.jsonl` (the replies) and `gt.zip`
//! (the masks under `EPIC_Bench/`), and the same masks unpacked under
//! `gt/` for `knoblab score epic --gt`. The end-to-end test times the page
//! on it and compares its numbers with the CLI's.
//!
//! `cargo run --example epic_synthetic -- OUT_DIR [SCALE]`

use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let out = std::path::PathBuf::from(args.next().ok_or("usage: epic_synthetic OUT_DIR [SCALE]")?);
    let scale: f64 = args.next().map(|s| s.parse()).transpose()?.unwrap_or(1.0);
    std::fs::create_dir_all(&out)?;
    let set = knoblab_score::epic::synthetic::generate_scaled(7, scale);
    std::fs::write(out.join("raw.jsonl"), &set.raw_jsonl)?;
    let mut paths: Vec<(&str, &[u8])> = set.gt.files().collect();
    paths.sort();
    let mut zip = zip::ZipWriter::new(std::fs::File::create(out.join("gt.zip"))?);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (path, bytes) in paths {
        let file = out.join("gt").join(path);
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(file, bytes)?;
        zip.start_file(path, options)?;
        zip.write_all(bytes)?;
    }
    zip.finish()?;
    println!(
        "{} samples, {} GT bytes, written to {}",
        set.samples,
        set.gt_bytes,
        out.display()
    );
    Ok(())
}

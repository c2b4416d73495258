//! Times, natively, the calls the Score page's workers make on a folder
//! written by `epic_synthetic` (`raw.jsonl` and `gt.zip`, as dropped): each
//! helper's `job::epic_shard`, the size of the shard it posts, and the
//! merging worker's `job::run_sharded`, with the stages inside them (unzip,
//! formatting, scoring, merging) timed on their own. The page runs the same
//! code in wasm, so this shows where its time goes without a browser; the
//! end-to-end timing is `e2e/score.test.mjs`.
//!
//! `cargo run --profile cli --example epic_page_job -- DIR [WORKERS]`

use std::time::Instant;

use knoblab::score::epic::report::{score_shard, Shard};
use knoblab::score::epic::{MapSource, RunOptions};
use knoblab::score::job::{self, InputFile, Job, JobOptions};

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().ok_or("usage: epic_page_job DIR [WORKERS]")?);
    let of: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(2);
    let raw = std::fs::read(dir.join("raw.jsonl"))?;
    let zip = std::fs::read(dir.join("gt.zip"))?;
    let files = || {
        vec![
            InputFile {
                path: "raw.jsonl".into(),
                bytes: raw.clone(),
            },
            InputFile {
                path: "gt.zip".into(),
                bytes: zip.clone(),
            },
        ]
    };

    // The stages on their own.
    let t = Instant::now();
    let entries = job::unzip("gt.zip", &zip)?;
    println!("unzip gt.zip: {:.0} ms, {} files", ms(t), entries.len());
    let mut gt = MapSource::new();
    for (path, bytes) in entries {
        gt.insert(&path, bytes);
    }
    let text = std::str::from_utf8(&raw)?;
    let t = Instant::now();
    let whole = score_shard(text, &gt, &RunOptions::default(), Shard::ALL)?;
    println!(
        "format and score every sample, both passes (details kept): {:.0} ms",
        ms(t)
    );
    let t = Instant::now();
    let wire = knoblab::score::epic::wire::shard_to_json(&whole);
    println!(
        "the whole run as a shard's JSON: {:.0} ms, {:.1} MB",
        ms(t),
        wire.len() as f64 / 1e6
    );
    let t = Instant::now();
    let back = knoblab::score::epic::wire::shard_from_json(&wire)?;
    println!(
        "read back: {:.0} ms ({} samples)",
        ms(t),
        back.official.len()
    );

    // What the workers do, as the page calls them.
    let mut shards = Vec::new();
    for index in 1..of {
        let t = Instant::now();
        let job = Job::from_files(files(), JobOptions::default());
        let list = job::epic_shard(&job, Shard { index, of });
        let text = serde_json::to_string(&list)?;
        println!(
            "helper {index}/{of}: epic_shard {:.0} ms, posts {:.1} MB",
            ms(t),
            text.len() as f64 / 1e6
        );
        shards.push(text);
    }
    let t = Instant::now();
    let job = Job::from_files(files(), JobOptions::default());
    let own = job::epic_shard(&job, Shard { index: 0, of });
    shards.insert(0, serde_json::to_string(&own)?);
    println!("merger's own shard: {:.0} ms", ms(t));
    let t = Instant::now();
    let outcome = job::run_sharded(&job, &mut |_| {}, &shards);
    let posted = serde_json::to_string(&outcome)?;
    println!(
        "merger's run_sharded (unzip, format, merge, view) and its outcome JSON: {:.0} ms, {:.1} MB, {} shards merged",
        ms(t),
        posted.len() as f64 / 1e6,
        outcome.epic_shards
    );
    Ok(())
}

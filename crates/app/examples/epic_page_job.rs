//! Times, natively, the calls the Score page's workers make on a folder
//! written by `epic_synthetic` (`raw.jsonl` and `gt.zip`, as dropped): each
//! worker's `job::epic_shard` and the size of the digest it posts, the
//! merging worker's `job::Merging` (each shard merged as it comes, then the
//! job run with them) and the size of the outcome it posts, and one item's
//! drill-down (`job::epic_item`), with some stages timed on their own. The
//! page runs the same code in wasm, so this shows where its time goes
//! without a browser; the end-to-end timing is `e2e/score.test.mjs`.
//!
//! `cargo run --profile cli --example epic_page_job -- DIR [WORKERS]`

#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)
use std::time::Instant;

use knoblab_app::job::{self, InputFile, Job, JobOptions};
use knoblab_score::epic::report::Shard;
use knoblab_score::epic::{self, MapSource, RunOptions};

/// This thread's CPU time in ms (Linux's `/proc/thread-self/schedstat`;
/// 0 elsewhere): under load, wall time says little.
fn cpu_ms() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns / 1e6)
}

/// A stage's wall and CPU time.
struct Clock(Instant, f64);

fn start() -> Clock {
    Clock(Instant::now(), cpu_ms())
}

impl std::fmt::Display for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let wall = self.0.elapsed().as_secs_f64() * 1000.0;
        write!(f, "{wall:.0} ms ({:.0} ms CPU)", cpu_ms() - self.1)
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().ok_or("usage: epic_page_job DIR [WORKERS]")?);
    let of: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(2);
    let raw = std::fs::read(dir.join("raw.jsonl"))?;
    let zip = std::fs::read(dir.join("gt.zip"))?;
    println!(
        "raw.jsonl {:.1} MB, gt.zip {:.1} MB, {of} workers",
        raw.len() as f64 / 1e6,
        zip.len() as f64 / 1e6
    );
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

    // Some stages on their own.
    let text = std::str::from_utf8(&raw)?;
    let t = start();
    let intake = epic::intake::intake(text);
    println!(
        "parse every line once (the intake's warnings): {}, {} skipped",
        t,
        intake.skipped.len()
    );
    let t = start();
    let entries = job::unzip("gt.zip", &zip)?;
    println!("unzip the whole gt.zip: {}, {} files", t, entries.len());
    let mut gt = MapSource::new();
    for (path, bytes) in entries {
        gt.insert(&path, bytes);
    }
    let opts = RunOptions::default();
    for shard in [Shard::ALL, Shard { index: 0, of }] {
        let t = start();
        let d = epic::shard::digest_shard(text, &gt, &opts, shard)?;
        let wire = epic::wire::digest_to_json(&d);
        println!(
            "digest of shard {}/{} (GT unzipped beforehand): {}, {} samples, {:.2} MB of JSON",
            shard.index,
            shard.of,
            t,
            d.official.len(),
            wire.len() as f64 / 1e6
        );
    }

    // What the workers do, as the page calls them: the merging worker
    // scores the first shard and keeps it as it is, each helper writes its
    // shard's digest as text, and the merging worker adds it.
    let job = Job::from_files(files(), JobOptions::default());
    let mut merging = job::Merging::new();
    let t = start();
    merging.score_own(&job, Shard { index: 0, of });
    println!("worker 0: its own shard {} (reads its GT from the zip)", t);
    let mut lists = Vec::new();
    for index in 1..of {
        let t = start();
        let list = job::epic_shard(&job, Shard { index, of });
        let text = serde_json::to_string(&list)?;
        println!(
            "worker {index}: epic_shard {} (reads its GT from the zip), posts {:.2} MB",
            t,
            text.len() as f64 / 1e6
        );
        lists.push(text);
    }
    let t = start();
    for list in &lists {
        merging.add(list);
    }
    println!(
        "merging worker: {} helper shards merged as they come: {}",
        lists.len(),
        t
    );
    let t = start();
    let outcome = merging.finish(&job, &mut |_| {});
    let finished = t.to_string();
    let t = start();
    let posted = serde_json::to_string(&outcome)?;
    println!(
        "merging worker: the job run with them {finished}, its outcome's JSON {}, {:.2} MB, {} shards merged",
        t,
        posted.len() as f64 / 1e6,
        outcome.epic_shards
    );
    let t = start();
    let back: job::Outcome = serde_json::from_str(&posted)?;
    println!(
        "the page reads the outcome: {} ({} items)",
        t,
        back.reports.first().map_or(0, |r| r.items.rows.len())
    );
    let t = start();
    let item = job::epic_item(&job, "raw.jsonl", 4321)?;
    println!(
        "one item's drill-down: {} ({} details, overlay {})",
        t,
        item.details.len(),
        item.overlay.is_some()
    );
    Ok(())
}

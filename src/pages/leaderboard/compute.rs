//! The page's one way into the leaderboard computation
//! ([`knoblab_app::leaderboard`]): [`compute`]. Everything heavy the page
//! asks of it (reading the dropped runs, opening the devices they played,
//! scoring, the bootstraps, a paired comparison) goes through this
//! function, so that it can move into a Web Worker as a whole: it takes
//! and returns plain data, and fetches only what any worker can fetch.
//! Today it runs on the page's thread.

use knoblab_app::devices::{generated_entry, open_entry_logic};
use knoblab_app::leaderboard::plan::read_plan;
use knoblab_app::leaderboard::publish::{read_dropped, traces_of, Dropped, Published};
use knoblab_app::leaderboard::{self, compare, Comparison, Options, RunInput};
use knoblab_core::bundle::Bundle;

use crate::browser::fetch::{fetch_bytes, fetch_library, read_file, LIBRARY_URL};
use crate::pages::score::worker::{JobFile, Source};

/// What the page asks.
pub enum Request {
    /// The leaderboard of these files: runs, or a saved
    /// leaderboard (the last one given wins; runs given with it are not
    /// ranked).
    Build {
        /// The files, in the order given (read one at a time).
        files: Vec<JobFile>,
        /// Seed and resamples.
        options: Options,
        /// A plan file (name, bytes): the episodes the runs were meant to
        /// cover ([`read_plan`]).
        plan: Option<(String, Vec<u8>)>,
    },
    /// Rows `a` and `b` (0-based) of `board`, compared.
    Compare {
        /// The board.
        board: Box<Published>,
        /// Row A.
        a: usize,
        /// Row B.
        b: usize,
    },
}

/// What it answers.
pub enum Reply {
    /// A board (none when no file could be read), with the files that
    /// were refused (each message names its file) and the names of those
    /// read as runs (the page keeps them for the next drop).
    Board {
        /// The leaderboard.
        board: Option<Box<Published>>,
        /// Files not taken, each with why.
        refused: Vec<String>,
        /// The files read as runs.
        runs: Vec<String>,
    },
    /// A comparison.
    Compared(Box<Comparison>),
}

/// Computes what `request` asks; an error says what went wrong and where.
pub async fn compute(request: Request) -> Result<Reply, String> {
    match request {
        Request::Build {
            files,
            mut options,
            plan,
        } => {
            if let Some((name, bytes)) = plan {
                options.plan = Some(read_plan(&name, &bytes).map_err(|e| e.to_string())?);
            }
            build(files, &options).await
        }
        Request::Compare { board, a, b } => {
            let options = Options {
                seed: board.leaderboard.seed,
                resamples: board.leaderboard.resamples,
                compare: Vec::new(),
                plan: None,
            };
            compare(&board.leaderboard, a, b, &options)
                .map(|c| Reply::Compared(Box::new(c)))
                .map_err(|e| e.to_string())
        }
    }
}

async fn build(files: Vec<JobFile>, options: &Options) -> Result<Reply, String> {
    let mut refused = Vec::new();
    let mut names = Vec::new();
    let mut prepared = Vec::new();
    let mut traces = Vec::new();
    let mut bundles: Vec<Bundle> = Vec::new();
    let mut saved: Option<Box<Published>> = None;
    // One file at a time: read, score, keep its rows and traces, drop it,
    // so the page holds one file's trajectories at once.
    for f in &files {
        let bytes = match bytes_of(f).await {
            Ok(b) => b,
            Err(e) => {
                refused.push(e);
                continue;
            }
        };
        let run = match read_dropped(&f.path, &bytes) {
            Ok(Dropped::Run(run)) => run,
            Ok(Dropped::Board(board)) => {
                saved = Some(board);
                continue;
            }
            Err(e) => {
                refused.push(e);
                continue;
            }
        };
        drop(bytes);
        let more = library_devices(&played_ids(&run), &bundles).await?;
        bundles.extend(more);
        bundles = leaderboard::with_generated(std::slice::from_ref(&run), bundles)
            .map_err(|e| e.to_string())?;
        prepared.push(leaderboard::prepare(&run, &bundles));
        traces.push(traces_of(&run));
        names.push(run.name);
    }
    if let Some(board) = saved {
        for name in &names {
            refused.push(format!(
                "{name}: not ranked: a saved leaderboard was opened with it; drop runs on their own to rank them"
            ));
        }
        return Ok(Reply::Board {
            board: Some(board),
            refused,
            runs: Vec::new(),
        });
    }
    if prepared.is_empty() {
        return Ok(Reply::Board {
            board: None,
            refused,
            runs: names,
        });
    }
    if let Some(keys) = &options.plan {
        let ids: Vec<&str> = keys
            .iter()
            .filter_map(|k| leaderboard::split_key(k).map(|(b, _)| b))
            .collect();
        let more = library_devices(&ids, &bundles).await?;
        bundles.extend(more);
    }
    let board =
        leaderboard::from_prepared(prepared, bundles, options).map_err(|e| e.to_string())?;
    Ok(Reply::Board {
        board: Some(Box::new(Published::new(board, traces))),
        refused,
        runs: names,
    })
}

/// The devices a run played.
fn played_ids(run: &RunInput) -> Vec<&str> {
    run.file
        .episodes
        .iter()
        .map(|(_, t)| t.bundle_id.as_str())
        .chain(
            run.file
                .api_error_episodes
                .iter()
                .map(|a| a.bundle_id.as_str()),
        )
        .collect()
}

/// The bytes of a dropped, chosen or fetched file.
async fn bytes_of(f: &JobFile) -> Result<Vec<u8>, String> {
    match &f.source {
        Source::File(file) => read_file(file).await,
        Source::Url(url) => fetch_bytes(url).await,
    }
}

/// The hand-described library devices among `ids` that `have` lacks,
/// fetched and opened without their pictures ([`open_entry_logic`]); the
/// generated ones are made by [`leaderboard::with_generated`].
async fn library_devices(ids: &[&str], have: &[Bundle]) -> Result<Vec<Bundle>, String> {
    let mut wanted: Vec<&str> = ids
        .iter()
        .copied()
        .filter(|id| !have.iter().any(|b| b.manifest.id == *id))
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    // A generated device's logic is made without drawing: no font needed.
    wanted.retain(|id| generated_entry(id).is_none());
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    let index = fetch_library().await?;
    let base = LIBRARY_URL.rsplit_once('/').map_or("", |(dir, _)| dir);
    let mut out = Vec::new();
    for entry in index
        .devices
        .iter()
        .filter(|e| wanted.contains(&e.id.as_str()))
    {
        let mut files = Vec::with_capacity(entry.files.len());
        for file in &entry.files {
            let url = format!("{base}/{}", entry.file_url(file));
            files.push((file.clone(), fetch_bytes(&url).await?));
        }
        out.push(open_entry_logic(entry, files).map_err(|e| e.to_string())?);
    }
    Ok(out)
}

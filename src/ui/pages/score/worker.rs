//! Scoring off the main thread: a module Web Worker that loads this very
//! wasm module ([`crate::ui::browser::module_worker`], whose Decision is
//! one wasm build for the page and its workers) and calls
//! [`knoblab_score_job`]. The worker reads the dropped `File`s itself, so
//! a big results set never passes through the page's thread; cancel is
//! `Worker.terminate()`.

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker};

use crate::score::epic::report::Shard;
use crate::score::job::{self, InputFile, Job, JobOptions};
use crate::ui::browser::js_message;
use crate::ui::browser::module_worker::{set, spawn, string_field};

/// The worker's script: load the module once, then for each job read its
/// files (dropped `File`s or URLs of shipped samples), score them in Rust
/// and post progress and the outcome back as JSON text.
const WORKER_JS: &str = r#"
const FONT_PATH = "knoblab-font";
let ready = null;
const inbox = [];
let wake = null;
self.onmessage = async (event) => {
  const msg = event.data;
  if (msg.init) {
    ready = import(msg.init.js).then(async (m) => { await m.default({ module_or_path: msg.init.wasm }); return m; });
    return;
  }
  // A helper's EPIC-Bench shard, forwarded by the page to the merging worker.
  if (msg.shard !== undefined) {
    inbox.push(msg.shard);
    if (wake) wake();
    return;
  }
  try {
    const m = await ready;
    const paths = [], buffers = [];
    for (const [i, f] of msg.files.entries()) {
      self.postMessage({ progress: JSON.stringify({ done: i, total: msg.files.length, stage: `reading ${f.path}` }) });
      let buffer;
      if (f.file) {
        buffer = await f.file.arrayBuffer();
      } else {
        const response = await fetch(f.url);
        if (!response.ok) throw new Error(`${f.path}: HTTP ${response.status} from ${f.url}`);
        buffer = await response.arrayBuffer();
      }
      paths.push(f.path);
      buffers.push(new Uint8Array(buffer));
    }
    const { index, of } = msg.part;
    // A helper scores its shard of the EPIC-Bench files and is done.
    if (index > 0) {
      self.postMessage({ shard: m.knoblab_score_shard(paths, buffers, msg.options, index, of) });
      return;
    }
    const shards = [];
    if (of > 1) {
      self.postMessage({ progress: JSON.stringify({ done: 0, total: 1, stage: `scoring in ${of} workers` }) });
      shards.push(m.knoblab_score_shard(paths, buffers, msg.options, 0, of));
      while (inbox.length < of - 1) await new Promise((resolve) => { wake = resolve; });
      shards.push(...inbox.splice(0));
    }
    // Library bundles are fetched only when a file needs them (trajectories).
    if (msg.bundles.length && m.knoblab_needs_bundles(paths, buffers, msg.options)) {
      for (const b of msg.bundles) {
        self.postMessage({ progress: JSON.stringify({ done: 0, total: 1, stage: `reading ${b.url}` }) });
        const response = await fetch(b.url);
        if (!response.ok) throw new Error(`${b.url}: HTTP ${response.status}`);
        const bytes = new Uint8Array(await response.arrayBuffer());
        // The generator's font: generated devices are drawn here when played.
        if (b.path === FONT_PATH) { m.knoblab_provide_font(bytes); continue; }
        paths.push(b.path);
        buffers.push(bytes);
      }
    }
    const out = m.knoblab_score_job(paths, buffers, msg.options, (p) => self.postMessage({ progress: p }), shards);
    self.postMessage({ done: out });
  } catch (e) {
    self.postMessage({ error: String(e && e.message ? e.message : e) });
  }
};
"#;

/// The path under which the page sends the generator's font with the
/// library's bundle files (the worker hands it to the core, not to the job).
pub const FONT_JOB_PATH: &str = "knoblab-font";

/// Gives the core the generator's font, so that the trajectories of
/// generated devices are scored against devices drawn here.
#[wasm_bindgen]
pub fn knoblab_provide_font(bytes: Vec<u8>) -> Result<(), JsValue> {
    crate::devicegen::render::provide_font(bytes).map_err(|e| JsValue::from_str(&e.to_string()))
}

/// The job of the files (paths and bytes in the same order) and options
/// (JSON of [`JobOptions`]), read by the core ([`Job::from_worker`]).
fn job_of(
    paths: Vec<String>,
    buffers: Vec<js_sys::Uint8Array>,
    options: &str,
) -> Result<Job, job::WorkerError> {
    Job::from_worker(input_files(paths, buffers), options)
}

/// The dropped files from their paths and bytes (in the same order).
fn input_files(paths: Vec<String>, buffers: Vec<js_sys::Uint8Array>) -> Vec<InputFile> {
    paths
        .into_iter()
        .zip(buffers)
        .map(|(path, bytes)| InputFile {
            path,
            bytes: bytes.to_vec(),
        })
        .collect()
}

/// The worker's entry: score the files (paths and bytes in the same
/// order) with the job options (JSON of [`JobOptions`]), calling
/// `progress` with JSON [`job::Progress`] values; `shards` holds every
/// worker's [`knoblab_score_shard`] (empty when one worker scores alone).
/// Returns the JSON of [`job::Outcome`], or of `{"error": …}` when the
/// options are invalid.
#[wasm_bindgen]
pub fn knoblab_score_job(
    paths: Vec<String>,
    buffers: Vec<js_sys::Uint8Array>,
    options: &str,
    progress: &js_sys::Function,
    shards: Vec<String>,
) -> String {
    let job = match job_of(paths, buffers, options) {
        Ok(j) => j,
        Err(e) => return serde_json::json!({ "error": e.to_string() }).to_string(),
    };
    let outcome = job::run_sharded(
        &job,
        &mut |p| {
            if let Ok(text) = serde_json::to_string(p) {
                let _ = progress.call1(&JsValue::NULL, &JsValue::from_str(&text));
            }
        },
        &shards,
    );
    serde_json::to_string(&outcome)
        .unwrap_or_else(|e| serde_json::json!({ "error": e.to_string() }).to_string())
}

/// A helper worker's entry: shard `index` of `of` of every EPIC-Bench
/// results file among the files, as the JSON list of
/// [`job::EpicShardText`] the merging worker reads (`[]` when there is
/// none, or the options are invalid: the merging worker then scores alone).
#[wasm_bindgen]
pub fn knoblab_score_shard(
    paths: Vec<String>,
    buffers: Vec<js_sys::Uint8Array>,
    options: &str,
    index: usize,
    of: usize,
) -> String {
    let shards = job_of(paths, buffers, options)
        .map(|job| job::epic_shard(&job, Shard { index, of }))
        .unwrap_or_default();
    serde_json::to_string(&shards).unwrap_or_else(|_| "[]".into())
}

/// Whether any of the files is scored against bundles (trajectories):
/// [`job::needs_bundles`].
#[wasm_bindgen]
pub fn knoblab_needs_bundles(
    paths: Vec<String>,
    buffers: Vec<js_sys::Uint8Array>,
    options: &str,
) -> bool {
    job::needs_bundles(&input_files(paths, buffers), options)
}

/// A file for a job: dropped (`File`) or shipped (a URL).
#[derive(Clone)]
pub enum Source {
    /// A file dropped on the page.
    File(web_sys::File),
    /// A file shipped with the page, fetched from this URL.
    Url(String),
}

/// One file of a job, as the worker receives it.
#[derive(Clone)]
pub struct JobFile {
    /// Its path in the job, as in the dropped folder.
    pub path: String,
    /// Where its bytes come from.
    pub source: Source,
}

/// What the worker says.
pub enum Message {
    /// How far the job is.
    Progress(job::Progress),
    /// The job finished: its [`job::Outcome`], as JSON.
    Done(String),
    /// The job failed: why.
    Error(String),
}

/// How many workers score a job on this machine ([`job::worker_count`]).
fn worker_count() -> usize {
    job::worker_count(window().navigator().hardware_concurrency())
}

/// A running job: the merging worker and its helpers. Dropping the handle
/// does not stop them, [`ScoreWorker::cancel`] does.
pub struct ScoreWorker {
    workers: Vec<Worker>,
    _on_message: Vec<Closure<dyn FnMut(MessageEvent)>>,
}

/// The job message of worker `index` of `of`.
fn job_message(
    files: &[JobFile],
    bundles: &[JobFile],
    options: &str,
    index: usize,
    of: usize,
) -> js_sys::Object {
    let list = |files: &[JobFile]| {
        let list = js_sys::Array::new();
        for f in files {
            let o = js_sys::Object::new();
            set(&o, "path", &JsValue::from_str(&f.path));
            match &f.source {
                Source::File(file) => set(&o, "file", file),
                Source::Url(u) => set(&o, "url", &JsValue::from_str(u)),
            }
            list.push(&o);
        }
        list
    };
    let job = js_sys::Object::new();
    set(&job, "files", &list(files));
    set(&job, "bundles", &list(bundles));
    set(&job, "options", &JsValue::from_str(options));
    let part = js_sys::Object::new();
    set(&part, "index", &JsValue::from_f64(index as f64));
    set(&part, "of", &JsValue::from_f64(of as f64));
    set(&job, "part", &part);
    job
}

impl ScoreWorker {
    /// Starts the workers, runs one job on them, and reports each message
    /// of the merging worker. EPIC-Bench files are scored in shards, one
    /// per worker; each helper sends its shard through the page to the
    /// merging worker (worker 0), which merges them in the core.
    pub fn start(
        files: Vec<JobFile>,
        bundles: Vec<JobFile>,
        options: &JobOptions,
        on_message: impl Fn(Message) + 'static,
    ) -> Result<ScoreWorker, String> {
        let of = worker_count();
        let options = serde_json::to_string(options).map_err(|e| e.to_string())?;
        let merger = spawn(WORKER_JS)?;
        let on_merger = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let data = event.data();
            if let Some(p) = string_field(&data, "progress") {
                if let Ok(p) = serde_json::from_str::<job::Progress>(&p) {
                    on_message(Message::Progress(p));
                }
            } else if let Some(out) = string_field(&data, "done") {
                on_message(Message::Done(out));
            } else if let Some(e) = string_field(&data, "error") {
                on_message(Message::Error(e));
            }
        });
        merger.set_onmessage(Some(on_merger.as_ref().unchecked_ref()));
        let mut workers = vec![merger.clone()];
        let mut closures = vec![on_merger];
        for index in 1..of {
            let helper = match spawn(WORKER_JS) {
                Ok(h) => h,
                Err(e) => {
                    for w in &workers {
                        w.terminate();
                    }
                    return Err(e);
                }
            };
            let (to, me) = (merger.clone(), helper.clone());
            let on_helper = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                let data = event.data();
                // A helper that fails sends no shard: the merger then scores
                // the files alone, and says why if they cannot be scored.
                let shard = match (string_field(&data, "shard"), string_field(&data, "error")) {
                    (Some(s), _) => s,
                    (None, Some(_)) => "[]".to_string(),
                    (None, None) => return,
                };
                let msg = js_sys::Object::new();
                set(&msg, "shard", &JsValue::from_str(&shard));
                let _ = to.post_message(&msg);
                me.terminate();
            });
            helper.set_onmessage(Some(on_helper.as_ref().unchecked_ref()));
            helper
                .post_message(&job_message(&files, &[], &options, index, of))
                .map_err(|e| js_message(&e))?;
            workers.push(helper);
            closures.push(on_helper);
        }
        merger
            .post_message(&job_message(&files, &bundles, &options, 0, of))
            .map_err(|e| js_message(&e))?;
        Ok(ScoreWorker {
            workers,
            _on_message: closures,
        })
    }

    /// Stops the workers at once (cancel).
    pub fn cancel(&self) {
        for w in &self.workers {
            w.terminate();
        }
    }
}

//! Scoring off the main thread: a module Web Worker that loads this very
//! wasm module (the page's own JS glue and `.wasm`, whose hashed URLs
//! Trunk writes into `index.html` as preload links) and calls
//! [`knoblab_score_job`]. The worker reads the dropped `File`s itself, so
//! a big results set never passes through the page's thread; cancel is
//! `Worker.terminate()`.
//!
//! **Decision:** one wasm build, not Trunk's `data-type="worker"` second
//! binary: a second release build of the whole core would double the
//! page's build time and download, for the same code.

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, BlobPropertyBag, MessageEvent, Url, Worker, WorkerOptions, WorkerType};

use crate::score::session::{self, InputFile, Job, JobOptions};

/// The worker's script: load the module once, then for each job read its
/// files (dropped `File`s or URLs of shipped samples), score them in Rust
/// and post progress and the outcome back as JSON text.
const WORKER_JS: &str = r#"
let ready = null;
self.onmessage = async (event) => {
  const msg = event.data;
  if (msg.init) {
    ready = import(msg.init.js).then(async (m) => { await m.default({ module_or_path: msg.init.wasm }); return m; });
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
    // Library bundles are fetched only when a file needs them (trajectories).
    if (msg.bundles.length && m.knoblab_needs_bundles(paths, buffers, msg.options)) {
      for (const b of msg.bundles) {
        self.postMessage({ progress: JSON.stringify({ done: 0, total: 1, stage: `reading ${b.url}` }) });
        const response = await fetch(b.url);
        if (!response.ok) throw new Error(`${b.url}: HTTP ${response.status}`);
        paths.push(b.path);
        buffers.push(new Uint8Array(await response.arrayBuffer()));
      }
    }
    const out = m.knoblab_score_job(paths, buffers, msg.options, (p) => self.postMessage({ progress: p }));
    self.postMessage({ done: out });
  } catch (e) {
    self.postMessage({ error: String(e && e.message ? e.message : e) });
  }
};
"#;

/// Paths under this prefix are the files of a library bundle
/// (`knoblab-bundle:<name>/<file>`), for trajectory metrics.
pub const BUNDLE_PREFIX: &str = "knoblab-bundle:";

/// The worker's entry: score the files (paths and bytes in the same
/// order) with the job options (JSON of [`JobOptions`]), calling
/// `progress` with JSON [`session::Progress`] values; returns the JSON of
/// [`session::Outcome`], or of `{"error": …}` when the options are invalid.
#[wasm_bindgen]
pub fn knoblab_score_job(
    paths: Vec<String>,
    buffers: Vec<js_sys::Uint8Array>,
    options: &str,
    progress: &js_sys::Function,
) -> String {
    let options: JobOptions = match serde_json::from_str(options) {
        Ok(o) => o,
        Err(e) => return serde_json::json!({ "error": format!("job options: {e}") }).to_string(),
    };
    let mut job = Job {
        options,
        ..Job::default()
    };
    for (path, bytes) in paths.into_iter().zip(buffers) {
        let file = InputFile {
            path,
            bytes: bytes.to_vec(),
        };
        match file
            .path
            .strip_prefix(BUNDLE_PREFIX)
            .and_then(|rest| rest.split_once('/'))
        {
            Some((name, inner)) => {
                let inner = InputFile {
                    path: inner.to_string(),
                    bytes: file.bytes,
                };
                match job.bundles.iter_mut().find(|b| b.name == name) {
                    Some(b) => b.files.push(inner),
                    None => job.bundles.push(session::BundleFiles {
                        name: name.to_string(),
                        files: vec![inner],
                    }),
                }
            }
            None => job.files.push(file),
        }
    }
    let outcome = session::run(&job, &mut |p| {
        if let Ok(text) = serde_json::to_string(p) {
            let _ = progress.call1(&JsValue::NULL, &JsValue::from_str(&text));
        }
    });
    serde_json::to_string(&outcome)
        .unwrap_or_else(|e| serde_json::json!({ "error": e.to_string() }).to_string())
}

/// Whether any of the files is scored against bundles (trajectories), by
/// detection or by the user's choice in `options`.
#[wasm_bindgen]
pub fn knoblab_needs_bundles(
    paths: Vec<String>,
    buffers: Vec<js_sys::Uint8Array>,
    options: &str,
) -> bool {
    let overrides = serde_json::from_str::<JobOptions>(options)
        .map(|o| o.overrides)
        .unwrap_or_default();
    let files: Vec<InputFile> = paths
        .into_iter()
        .zip(buffers)
        .map(|(path, bytes)| InputFile {
            path,
            bytes: bytes.to_vec(),
        })
        .collect();
    session::classify(&files, &overrides)
        .iter()
        .any(|e| e.format == Some(crate::score::detect::Format::Trajectories))
}

/// A file for a job: dropped (`File`) or shipped (a URL).
#[derive(Clone)]
pub enum Source {
    File(web_sys::File),
    Url(String),
}

/// One file of a job, as the worker receives it.
#[derive(Clone)]
pub struct JobFile {
    pub path: String,
    pub source: Source,
}

/// What the worker says.
pub enum Message {
    Progress(session::Progress),
    Done(String),
    Error(String),
}

/// The URLs of this page's wasm-bindgen JS and `.wasm`, from the preload
/// links Trunk writes into `index.html`.
fn module_urls() -> Result<(String, String), String> {
    let doc = document();
    let href = |selector: &str| -> Option<String> {
        doc.query_selector(selector)
            .ok()
            .flatten()
            .and_then(|e| e.dyn_into::<web_sys::HtmlLinkElement>().ok())
            .map(|l| l.href())
    };
    let js = href("link[rel=modulepreload][href$='.js']:not([href*='/snippets/'])")
        .ok_or("the page's module link is missing (built without Trunk?)")?;
    let wasm = href("link[rel=preload][href$='.wasm']")
        .ok_or("the page's wasm preload link is missing (built without Trunk?)")?;
    Ok((js, wasm))
}

fn js_error(e: JsValue) -> String {
    crate::ui::net::js_message(&e)
}

/// A running worker; dropping the handle does not stop it, [`ScoreWorker::cancel`] does.
pub struct ScoreWorker {
    worker: Worker,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
}

impl ScoreWorker {
    /// Starts a worker, runs one job on it, and reports each message.
    pub fn start(
        files: Vec<JobFile>,
        bundles: Vec<JobFile>,
        options: &JobOptions,
        on_message: impl Fn(Message) + 'static,
    ) -> Result<ScoreWorker, String> {
        let (js, wasm) = module_urls()?;
        let parts = js_sys::Array::of1(&JsValue::from_str(WORKER_JS));
        let bag = BlobPropertyBag::new();
        bag.set_type("text/javascript");
        let blob = Blob::new_with_str_sequence_and_options(&parts, &bag).map_err(js_error)?;
        let url = Url::create_object_url_with_blob(&blob).map_err(js_error)?;
        let worker_options = WorkerOptions::new();
        worker_options.set_type(WorkerType::Module);
        let worker = Worker::new_with_options(&url, &worker_options).map_err(js_error)?;
        let _ = Url::revoke_object_url(&url);
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let data = event.data();
            let get = |k: &str| {
                js_sys::Reflect::get(&data, &JsValue::from_str(k))
                    .ok()
                    .and_then(|v| v.as_string())
            };
            if let Some(p) = get("progress") {
                if let Ok(p) = serde_json::from_str::<session::Progress>(&p) {
                    on_message(Message::Progress(p));
                }
            } else if let Some(out) = get("done") {
                on_message(Message::Done(out));
            } else if let Some(e) = get("error") {
                on_message(Message::Error(e));
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        let set = |o: &js_sys::Object, k: &str, v: &JsValue| {
            let _ = js_sys::Reflect::set(o, &JsValue::from_str(k), v);
        };
        let init = js_sys::Object::new();
        let paths = js_sys::Object::new();
        set(&paths, "js", &JsValue::from_str(&js));
        set(&paths, "wasm", &JsValue::from_str(&wasm));
        set(&init, "init", &paths);
        worker.post_message(&init).map_err(js_error)?;
        let list = |files: Vec<JobFile>| {
            let list = js_sys::Array::new();
            for f in files {
                let o = js_sys::Object::new();
                set(&o, "path", &JsValue::from_str(&f.path));
                match f.source {
                    Source::File(file) => set(&o, "file", &file),
                    Source::Url(u) => set(&o, "url", &JsValue::from_str(&u)),
                }
                list.push(&o);
            }
            list
        };
        let job = js_sys::Object::new();
        set(&job, "files", &list(files));
        set(&job, "bundles", &list(bundles));
        let options = serde_json::to_string(options).map_err(|e| e.to_string())?;
        set(&job, "options", &JsValue::from_str(&options));
        worker.post_message(&job).map_err(js_error)?;
        Ok(ScoreWorker {
            worker,
            _on_message: on_message,
        })
    }

    /// Stops the worker at once (cancel).
    pub fn cancel(&self) {
        self.worker.terminate();
    }
}

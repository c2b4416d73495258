//! Scoring off the main thread: module Web Workers that run the page's own
//! module, posted to each compiled ([`crate::browser::module_worker::spawn_page`]),
//! and call its entries ([`crate::worker`]: `knoblab_score_shard`,
//! `knoblab_score_job`, ...), whose code each worker downloads as chunks
//! that the page itself never fetches (issue #46). Each
//! worker reads the dropped `File`s itself, so a big results set never
//! passes through the page's thread; cancel is `Worker.terminate()`. A
//! helper's shard and the job's outcome (about a megabyte of JSON each on
//! a benchmark-sized set) travel as UTF-8 bytes in a transferred
//! `Uint8Array`, never as a JS string: a string going into a module is
//! copied a character at a time by wasm-bindgen's glue, and cloned again
//! at each `postMessage`.

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker};

use crate::browser::js_message;
use crate::browser::module_worker::{bytes_field, set, spawn_page, string_field, PageWorker};
use knoblab_app::job::{self, JobOptions};
use knoblab_score::view::ItemView;

/// The worker's script, beside the page (`www/score-worker.js`, copied
/// by Trunk): instantiates the page's module once, then for each job
/// reads its files (dropped `File`s or URLs of shipped samples), scores
/// them in Rust and posts progress (JSON text) and the outcome (JSON
/// bytes) back.
const WORKER_JS: &str = "score-worker.js";

#[wasm_bindgen(inline_js = r#"
export function knoblab_record_marks(prefix, marks) {
  if (!Array.isArray(marks)) return;
  for (const [name, at] of marks) performance.mark(prefix + name, { startTime: Math.max(0, at - performance.timeOrigin) });
}
"#)]
extern "C" {
    /// Records a worker's `[name, time]` marks (times on the page's clock,
    /// `timeOrigin + now()`) as the page's performance marks, each named
    /// after its worker (`worker 1: shard scored`).
    fn knoblab_record_marks(prefix: &str, marks: &JsValue);
}

/// Records the timing marks a worker's message carries.
fn record_marks(worker: usize, data: &JsValue) {
    if let Ok(marks) = js_sys::Reflect::get(data, &JsValue::from_str("marks")) {
        knoblab_record_marks(&format!("worker {worker}: "), &marks);
    }
}

/// The path under which the page sends the generator's font with the
/// library's bundle files (the worker hands it to the core, not to the job).
pub const FONT_JOB_PATH: &str = "knoblab-font";

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
    /// The job finished: its [`job::Outcome`], as JSON (UTF-8 bytes).
    Done(Vec<u8>),
    /// The job failed: why.
    Error(String),
}

thread_local! {
    /// Workers started ahead of the next job ([`warm_up`]).
    static SPARE: RefCell<Vec<Worker>> = const { RefCell::new(Vec::new()) };
    /// Whether a spare worker was told to warm the scoring code up (once
    /// per page load: the optimized code stays with the module), and the
    /// handler that records its marks until a job takes it.
    static WARMING: RefCell<Option<OnMessage>> = const { RefCell::new(None) };
}

/// Starts the workers of the next job ahead of it, so that their module is
/// instantiated while the visitor picks files, not after the drop. The
/// first one the page starts also warms the scoring code up
/// (`knoblab_warm_up`, [`job::WARM_UP_ROUNDS`] rounds, fewer if a job
/// comes first): one worker is enough, as every worker runs the same
/// compiled module. Its marks are recorded as `spare worker: warm-up: …`
/// until a job takes it.
pub fn warm_up() {
    let want = worker_count();
    SPARE.with(|spare| {
        let mut spare = spare.borrow_mut();
        while spare.len() < want {
            match spawn_page(WORKER_JS, PageWorker::Score) {
                Ok(w) => {
                    WARMING.with(|warming| {
                        let mut warming = warming.borrow_mut();
                        if warming.is_none() {
                            *warming = Some(start_warm_up(&w));
                        }
                    });
                    spare.push(w)
                }
                Err(_) => break,
            }
        }
    });
}

/// A worker's message handler, kept alive while it is set.
type OnMessage = Closure<dyn FnMut(MessageEvent)>;

/// Tells worker `w` to warm the scoring code up, and records the marks it
/// posts when it is done; returns the handler, to be kept.
fn start_warm_up(w: &Worker) -> OnMessage {
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        if let Ok(marks) = js_sys::Reflect::get(&event.data(), &JsValue::from_str("marks")) {
            knoblab_record_marks("spare worker: ", &marks);
        }
    });
    w.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    let warm = js_sys::Object::new();
    set(&warm, "scale", &JsValue::from_f64(job::WARM_UP_SCALE));
    set(
        &warm,
        "rounds",
        &JsValue::from_f64(job::WARM_UP_ROUNDS as f64),
    );
    let message = js_sys::Object::new();
    set(&message, "warm", &warm);
    let _ = w.post_message(&message);
    on_message
}

/// Stops the workers started ahead of a job (the page is left).
pub fn stand_down() {
    SPARE.with(|spare| {
        for w in spare.borrow_mut().drain(..) {
            w.terminate();
        }
    });
}

/// A worker started ahead ([`warm_up`]), else a new one.
fn take_or_spawn() -> Result<Worker, String> {
    match SPARE.with(|spare| spare.borrow_mut().pop()) {
        Some(w) => Ok(w),
        None => spawn_page(WORKER_JS, PageWorker::Score),
    }
}

/// How many workers score a job on this machine ([`job::worker_count`]).
fn worker_count() -> usize {
    job::worker_count(window().navigator().hardware_concurrency())
}

/// A reply awaited from the merging worker: an item's drill-down.
type ItemReply = Box<dyn FnOnce(Result<ItemView, String>)>;

/// The drill-downs asked of the merging worker and not yet answered, by
/// request number.
#[derive(Default)]
struct Pending {
    next: u32,
    waiting: Vec<(u32, ItemReply)>,
}

/// A job's workers: the merging worker and its helpers while it runs, the
/// merging worker alone once it is done (it answers the drill-down,
/// [`ScoreWorker::item`]). Dropping the handle does not stop them,
/// [`ScoreWorker::cancel`] does.
pub struct ScoreWorker {
    workers: Vec<Worker>,
    pending: Rc<RefCell<Pending>>,
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
        let merger = take_or_spawn()?;
        let pending = Rc::new(RefCell::new(Pending::default()));
        let answered = pending.clone();
        let on_merger = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let data = event.data();
            record_marks(0, &data);
            if let Some(item) = string_field(&data, "item") {
                let id = js_sys::Reflect::get(&data, &JsValue::from_str("id"))
                    .ok()
                    .and_then(|v| v.as_f64());
                let reply = {
                    let mut p = answered.borrow_mut();
                    let at = p
                        .waiting
                        .iter()
                        .position(|(n, _)| Some(f64::from(*n)) == id);
                    at.map(|i| p.waiting.remove(i).1)
                };
                if let Some(reply) = reply {
                    reply(worker_json::<ItemView>(&item).map_err(|_| super::error_of(&item)));
                }
            } else if let Some(p) = string_field(&data, "progress") {
                if let Ok(p) = worker_json::<job::Progress>(&p) {
                    on_message(Message::Progress(p));
                }
            } else if let Some(out) = bytes_field(&data, "done") {
                on_message(Message::Done(out.to_vec()));
            } else if let Some(e) = string_field(&data, "error") {
                on_message(Message::Error(e));
            }
        });
        merger.set_onmessage(Some(on_merger.as_ref().unchecked_ref()));
        // The merging worker gets its job first: it has the most to do (the
        // file's intake with its shard, then the merge and the report).
        if let Err(e) = merger.post_message(&job_message(&files, &bundles, &options, 0, of)) {
            merger.terminate();
            return Err(js_message(&e));
        }
        let mut workers = vec![merger.clone()];
        let mut closures = vec![on_merger];
        // A helper that cannot start ends the job: the workers started stop.
        let stop = |workers: &[Worker], e: String| {
            for w in workers {
                w.terminate();
            }
            Err(e)
        };
        for index in 1..of {
            let helper = match take_or_spawn() {
                Ok(h) => h,
                Err(e) => return stop(&workers, e),
            };
            let (to, me) = (merger.clone(), helper.clone());
            let on_helper = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                let data = event.data();
                record_marks(index, &data);
                // A helper that fails sends no shard: the merger then scores
                // the files alone, and says why if they cannot be scored.
                // The shard's bytes are passed on as they came (transferred,
                // not copied), never decoded here.
                let shard = match (bytes_field(&data, "shard"), string_field(&data, "error")) {
                    (Some(s), _) => s,
                    (None, Some(_)) => js_sys::Uint8Array::from(&b"[]"[..]),
                    (None, None) => return,
                };
                let msg = js_sys::Object::new();
                set(&msg, "shard", &shard);
                let _ = to.post_message_with_transfer(&msg, &js_sys::Array::of1(&shard.buffer()));
                me.terminate();
            });
            helper.set_onmessage(Some(on_helper.as_ref().unchecked_ref()));
            let posted = helper.post_message(&job_message(&files, &[], &options, index, of));
            workers.push(helper);
            closures.push(on_helper);
            if let Err(e) = posted {
                return stop(&workers, js_message(&e));
            }
        }
        Ok(ScoreWorker {
            workers,
            pending,
            _on_message: closures,
        })
    }

    /// Asks the merging worker, once the job is done, for the drill-down of
    /// item `index` of the EPIC-Bench file `file` ([`job::epic_item`]);
    /// `reply` gets it, or why not.
    pub fn item(
        &self,
        file: &str,
        index: usize,
        reply: impl FnOnce(Result<ItemView, String>) + 'static,
    ) {
        let Some(merger) = self.workers.first() else {
            reply(Err(
                "the scoring worker is gone; score the files again".into()
            ));
            return;
        };
        let id = {
            let mut p = self.pending.borrow_mut();
            p.next = p.next.wrapping_add(1);
            let id = p.next;
            p.waiting.push((id, Box::new(reply)));
            id
        };
        let ask = js_sys::Object::new();
        set(&ask, "file", &JsValue::from_str(file));
        set(&ask, "index", &JsValue::from_f64(index as f64));
        set(&ask, "id", &JsValue::from_f64(f64::from(id)));
        let msg = js_sys::Object::new();
        set(&msg, "item", &ask);
        if let Err(e) = merger.post_message(&msg) {
            let reply = {
                let mut p = self.pending.borrow_mut();
                let at = p.waiting.iter().position(|(n, _)| *n == id);
                at.map(|i| p.waiting.remove(i).1)
            };
            if let Some(reply) = reply {
                reply(Err(js_message(&e)));
            }
        }
    }

    /// Stops the workers at once (cancel), and the drill-down with them.
    pub fn cancel(&self) {
        for w in &self.workers {
            w.terminate();
        }
        self.pending.borrow_mut().waiting.clear();
    }
}

/// A message the page's own worker sent, as JSON text.
#[allow(
    clippy::disallowed_methods,
    reason = "the page's own worker wrote it, not a user's file"
)]
fn worker_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
    serde_json::from_str(text)
}

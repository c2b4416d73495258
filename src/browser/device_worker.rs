//! Generated devices are drawn off the main thread: one module Web Worker
//! running the page's own module, whose generator and picture code are a
//! chunk that only this worker calls (`draw_device`, downloaded and
//! compiled by the page when the first drawing is asked for: issue #46;
//! [`super::module_worker::spawn_page`], `crate::worker`), started then and
//! kept while the page lives. It makes
//! a whole device by the library's rule ([`knoblab_app::devices::generated_files`],
//! the half of [`knoblab_app::devices::open_entry`] that draws) and posts back
//! its files, which the main thread checks with the page's one loader
//! ([`knoblab_core::bundle::open_made`], the other half). Nothing is drawn
//! twice and no rule is written here. (A library card's front view is not
//! drawn here: `knoblab library generate` draws it into `data/`, so that
//! browsing the cards loads no generator.)
//!
//! **Decision:** the device travels as its files (names and bytes, the
//! buffers transferred, not copied), not as a zip or a single JSON file of
//! `knoblab-bundle/1`: both forms go through the same checks, and the files
//! cost neither the worker a deflate nor the main thread an inflate or a
//! base64 decode. Checking them on the main thread reads JSON and picture
//! headers only (no pixel is decoded).
//!
//! **Decision:** one drawing at a time, the others queued in the order
//! asked. A request belongs to the page that asked ([`Asker`]); leaving
//! that page cancels its requests ([`cancel`]): queued ones are dropped, and
//! a device being drawn stops the worker at once (a new one starts for the
//! next request: seconds of drawing are worth more than the hundred or so
//! milliseconds of starting one).

use std::cell::RefCell;
use std::collections::VecDeque;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{MessageEvent, Worker};

use super::js_message;
use super::module_worker::{set, spawn_page, string_field, PageWorker};
use knoblab_devicegen::render::FONT_PATH;

/// The worker's script, beside the page (`www/device-worker.js`, copied
/// by Trunk): instantiates the page's module once, fetches the generator's
/// font before the first drawing, then answers each request (`{job, id, font}`)
/// with `{job, files, ms}` or `{job, error}`. A trap in the module (a
/// panic) leaves it unusable: the answer says so (`broken`) and the page
/// starts another worker.
const WORKER_JS: &str = "device-worker.js";

/// The files of the worker's `knoblab_draw_device` answer (`[name, bytes]` pairs),
/// copied into this module's memory.
pub fn files_of(value: &JsValue) -> Result<Vec<(String, Vec<u8>)>, String> {
    let list = value
        .dyn_ref::<js_sys::Array>()
        .ok_or("the device worker's answer holds no list of files")?;
    list.iter()
        .map(|pair| {
            let pair = pair.dyn_into::<js_sys::Array>().ok();
            let name = pair.as_ref().and_then(|p| p.get(0).as_string());
            let bytes = pair.and_then(|p| p.get(1).dyn_into::<js_sys::Uint8Array>().ok());
            match (name, bytes) {
                (Some(name), Some(bytes)) => Ok((name, bytes.to_vec())),
                _ => {
                    Err("the device worker's answer has a file without a name or bytes".to_string())
                }
            }
        })
        .collect()
}

/// The page that asked for a drawing: leaving it cancels its requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asker {
    /// The player: the Play and Embed pages and `window.knoblab`.
    Player,
    /// The Agent page's batches.
    Agent,
}

/// Why a drawing did not arrive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DrawError {
    /// The page that asked was left, or a newer request replaced it.
    Cancelled,
    /// The worker could not start, or the device could not be made: why.
    Failed(String),
}

impl std::fmt::Display for DrawError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DrawError::Cancelled => {
                f.write_str("cancelled: the page that asked for it was left, or asked for another")
            }
            DrawError::Failed(message) => f.write_str(message),
        }
    }
}

impl From<String> for DrawError {
    fn from(message: String) -> Self {
        DrawError::Failed(message)
    }
}

/// One request, queued or being drawn; its caller awaits a promise that
/// `resolve` or `reject` settles (rejected with `undefined` when cancelled).
struct Job {
    number: u64,
    asker: Asker,
    id: String,
    resolve: js_sys::Function,
    reject: js_sys::Function,
    /// Cancelled while being drawn: its caller has been told; its answer
    /// is dropped.
    cancelled: bool,
}

impl Job {
    fn fail(&self, message: &str) {
        let _ = self
            .reject
            .call1(&JsValue::NULL, &JsValue::from_str(message));
    }

    fn cancel(&mut self) {
        if !self.cancelled {
            self.cancelled = true;
            let _ = self.reject.call1(&JsValue::NULL, &JsValue::UNDEFINED);
        }
    }
}

/// The running worker and its handlers (kept alive with it).
struct Running {
    worker: Worker,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(JsValue)>,
}

/// The page's one device worker: started on the first request, replaced
/// when it is stopped or breaks.
#[derive(Default)]
struct Drawer {
    worker: Option<Running>,
    drawing: Option<Job>,
    queue: VecDeque<Job>,
    numbered: u64,
}

thread_local! {
    static DRAWER: RefCell<Drawer> = RefCell::new(Drawer::default());
}

/// The generator's font, as an absolute URL (the worker's script has a
/// `blob:` URL, against which a relative one means nothing).
fn font_url() -> Result<String, String> {
    let base = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.base_uri().ok().flatten())
        .ok_or("the page has no base URL")?;
    web_sys::Url::new_with_base(&format!("data/{FONT_PATH}"), &base)
        .map(|u| u.href())
        .map_err(|e| js_message(&e))
}

impl Drawer {
    /// Starts the next queued request when nothing is being drawn.
    fn pump(&mut self) {
        while self.drawing.is_none() {
            let Some(job) = self.queue.pop_front() else {
                return;
            };
            match self.post(&job) {
                Ok(()) => self.drawing = Some(job),
                Err(e) => {
                    job.fail(&e);
                    self.stop();
                }
            }
        }
    }

    /// Posts a request to the worker, starting the worker first if need be.
    fn post(&mut self, job: &Job) -> Result<(), String> {
        if self.worker.is_none() {
            self.worker = Some(start()?);
        }
        let worker = self
            .worker
            .as_ref()
            .map(|r| &r.worker)
            .ok_or("the device worker did not start")?;
        let msg = js_sys::Object::new();
        set(&msg, "job", &JsValue::from_f64(job.number as f64));
        set(&msg, "id", &JsValue::from_str(&job.id));
        set(&msg, "font", &JsValue::from_str(&font_url()?));
        worker.post_message(&msg).map_err(|e| js_message(&e))
    }

    /// Stops the worker (the next request starts another).
    fn stop(&mut self) {
        if let Some(running) = self.worker.take() {
            running.worker.terminate();
        }
    }

    /// The worker answered request `number` with `data`.
    fn answered(&mut self, number: u64, data: &JsValue) {
        let Some(job) = self.drawing.take_if(|j| j.number == number) else {
            return;
        };
        if let Some(error) = string_field(data, "error") {
            if !job.cancelled {
                job.fail(&error);
            }
            let broken = js_sys::Reflect::get(data, &JsValue::from_str("broken"))
                .is_ok_and(|b| b.is_truthy());
            if broken {
                self.stop();
            }
        } else if !job.cancelled {
            let _ = job.resolve.call1(&JsValue::NULL, data);
        }
        self.pump();
    }

    /// The worker failed outside a request (its script or module did not
    /// load): the request being drawn fails with the reason.
    fn failed(&mut self, message: &str) {
        self.stop();
        if let Some(job) = self.drawing.take() {
            if !job.cancelled {
                job.fail(message);
            }
        }
        self.pump();
    }

    /// Cancels the requests `which` picks (see the module's Decision).
    fn cancel(&mut self, which: impl Fn(&Job) -> bool) {
        let (mut dropped, kept): (VecDeque<Job>, VecDeque<Job>) =
            self.queue.drain(..).partition(|j| which(j));
        self.queue = kept;
        for job in &mut dropped {
            job.cancel();
        }
        let stop_drawing = match &mut self.drawing {
            Some(job) if which(job) => {
                job.cancel();
                true
            }
            _ => false,
        };
        if stop_drawing {
            self.drawing = None;
            self.stop();
        }
        self.pump();
    }
}

/// Starts the worker, its answers going to [`Drawer::answered`].
fn start() -> Result<Running, String> {
    let worker = spawn_page(WORKER_JS, PageWorker::Device)?;
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        let data = event.data();
        let number = js_sys::Reflect::get(&data, &JsValue::from_str("job"))
            .ok()
            .and_then(|n| n.as_f64());
        if let Some(number) = number {
            DRAWER.with(|d| d.borrow_mut().answered(number as u64, &data));
        }
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    let on_error = Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
        let message = string_field(&event, "message")
            .unwrap_or_else(|| "the device worker stopped".to_string());
        DRAWER.with(|d| {
            d.borrow_mut()
                .failed(&format!("the device worker failed: {message}"))
        });
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    Ok(Running {
        worker,
        _on_message: on_message,
        _on_error: on_error,
    })
}

/// Queues a request and awaits the worker's answer (the message's data).
async fn request(id: &str, asker: Asker) -> Result<JsValue, DrawError> {
    let mut settle = None;
    let promise = js_sys::Promise::new(&mut |resolve, reject| settle = Some((resolve, reject)));
    let (resolve, reject) =
        settle.ok_or_else(|| DrawError::Failed("the browser ran no promise executor".into()))?;
    DRAWER.with(|d| {
        let mut d = d.borrow_mut();
        d.numbered += 1;
        let job = Job {
            number: d.numbered,
            asker,
            id: id.to_string(),
            resolve,
            reject,
            cancelled: false,
        };
        d.queue.push_back(job);
        d.pump();
    });
    JsFuture::from(promise).await.map_err(|e| {
        if e.is_undefined() {
            DrawError::Cancelled
        } else {
            DrawError::Failed(format!("{id}: {}", js_message(&e)))
        }
    })
}

/// The worker's time for one drawing, in milliseconds, when it said.
fn worker_ms(data: &JsValue) -> Option<f64> {
    js_sys::Reflect::get(data, &JsValue::from_str("ms"))
        .ok()
        .and_then(|v| v.as_f64())
}

/// A generated device's files, made in the worker (to be checked by
/// [`knoblab_core::bundle::open_made`]), and the worker's drawing time in ms.
pub async fn draw_device(
    id: &str,
    asker: Asker,
) -> Result<(Vec<(String, Vec<u8>)>, Option<f64>), DrawError> {
    let data = request(id, asker).await?;
    let files = js_sys::Reflect::get(&data, &JsValue::from_str("files"))
        .map_err(|e| DrawError::Failed(js_message(&e)))?;
    Ok((files_of(&files)?, worker_ms(&data)))
}

/// Cancels every request of `asker`, queued or being drawn (the page that
/// asked is being left).
pub fn cancel(asker: Asker) {
    DRAWER.with(|d| d.borrow_mut().cancel(|j| j.asker == asker));
}

//! The model API's HTTP: a POST with a timeout that the batch can also
//! abort (`AbortController`), GETs of library files, and a sleep. Only the
//! headers the core puts in the request are sent; nothing is logged.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::Promise;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, Headers, RequestInit, Response};

use knoblab_eval::vlm::{Failure, HttpRequest};

use super::js_message;

/// What came back from a POST: status, `Retry-After` (as sent) and body.
pub struct HttpResponse {
    /// The HTTP status.
    pub status: u16,
    /// The `Retry-After` header as sent, if any.
    pub retry_after: Option<String>,
    /// The body, as text.
    pub body: String,
}

fn window() -> Result<web_sys::Window, String> {
    web_sys::window().ok_or_else(|| "no window".to_string())
}

/// Milliseconds since 1970, from the browser's clock.
pub fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}

/// Waits `ms` milliseconds.
pub async fn sleep(ms: u64) {
    let promise = Promise::new(&mut |resolve, _| {
        if let Ok(w) = window() {
            let ms = i32::try_from(ms).unwrap_or(i32::MAX);
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
        }
    });
    let _ = JsFuture::from(promise).await;
}

/// Sends a request, abandoning it after `timeout_ms` or when `abort` is
/// aborted by the batch (then the failure says so). A response of any
/// status is `Ok`; no response at all is a network failure.
pub async fn post(
    request: &HttpRequest,
    timeout_ms: u64,
    abort: &AbortController,
) -> Result<HttpResponse, Failure> {
    let network = |message: String| Failure::Network { message };
    let w = window().map_err(network)?;
    let headers = Headers::new().map_err(|e| network(js_message(&e)))?;
    for (name, value) in &request.headers {
        headers
            .set(name, value)
            .map_err(|e| network(format!("header {name}: {}", js_message(&e))))?;
    }
    let init = RequestInit::new();
    init.set_method("POST");
    init.set_headers(&headers);
    init.set_body(&JsValue::from_str(&request.body));
    init.set_signal(Some(&abort.signal()));

    let timed_out = Rc::new(Cell::new(false));
    let on_timeout = {
        let timed_out = timed_out.clone();
        let abort = abort.clone();
        Closure::once(move || {
            timed_out.set(true);
            abort.abort();
        })
    };
    let timer = w
        .set_timeout_with_callback_and_timeout_and_arguments_0(
            on_timeout.as_ref().unchecked_ref(),
            i32::try_from(timeout_ms).unwrap_or(i32::MAX),
        )
        .map_err(|e| network(js_message(&e)))?;
    let result = send(&w, &request.url, &init).await;
    w.clear_timeout_with_handle(timer);
    drop(on_timeout);
    result.map_err(|message| {
        if timed_out.get() {
            Failure::Timeout {
                after_ms: timeout_ms,
            }
        } else {
            network(message)
        }
    })
}

async fn send(w: &web_sys::Window, url: &str, init: &RequestInit) -> Result<HttpResponse, String> {
    let response: Response = JsFuture::from(w.fetch_with_str_and_init(url, init))
        .await
        .map_err(|e| js_message(&e))?
        .dyn_into()
        .map_err(|_| "fetch did not return a Response".to_string())?;
    let retry_after = response.headers().get("retry-after").ok().flatten();
    let body = JsFuture::from(response.text().map_err(|e| js_message(&e))?)
        .await
        .map_err(|e| js_message(&e))?
        .as_string()
        .unwrap_or_default();
    Ok(HttpResponse {
        status: response.status(),
        retry_after,
        body,
    })
}

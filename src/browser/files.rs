//! Files in and out: downloads made in the page (no server), a chosen
//! file's text, and the hand-off to the Score page.

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, Url};

use super::js_message;

/// The sessionStorage key the Score page reads trajectories from.
pub const SCORE_HANDOFF: &str = "knoblab.score.handoff";

/// Offers `text` as a download named `name`. The page's one way to save a
/// file: the player's trajectories, the Agent page's exports and the Score
/// page's reports and leaderboards all go through it.
pub fn download(name: &str, media_type: &str, text: &str) -> Result<(), String> {
    let fail = |e: wasm_bindgen::JsValue| {
        format!("the download could not be prepared ({})", js_message(&e))
    };
    let parts = js_sys::Array::of1(&text.into());
    let options = BlobPropertyBag::new();
    options.set_type(media_type);
    let blob = Blob::new_with_str_sequence_and_options(&parts, &options).map_err(fail)?;
    let url = Url::create_object_url_with_blob(&blob).map_err(fail)?;
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let a: HtmlAnchorElement = document.create_element("a").map_err(fail)?.unchecked_into();
    a.set_href(&url);
    a.set_download(name);
    a.click();
    let _ = Url::revoke_object_url(&url);
    Ok(())
}

/// The text of the first file chosen in an `<input type="file">`.
pub async fn chosen_text(input: &web_sys::HtmlInputElement) -> Result<Option<String>, String> {
    let Some(file) = input.files().and_then(|f| f.get(0)) else {
        return Ok(None);
    };
    let text = JsFuture::from(file.text())
        .await
        .map_err(|e| format!("{}: {}", file.name(), js_message(&e)))?;
    Ok(text.as_string())
}

/// Puts JSON Lines where the Score page looks, then opens it.
pub fn open_in_score(lines: &str) -> Result<(), String> {
    let w = web_sys::window().ok_or("no window")?;
    w.session_storage()
        .map_err(|e| js_message(&e))?
        .ok_or("no sessionStorage")?
        .set_item(SCORE_HANDOFF, lines)
        .map_err(|e| js_message(&e))?;
    w.location().set_hash("#/score").map_err(|e| js_message(&e))
}

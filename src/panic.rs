//! A panic in the browser stops the WebAssembly module. Instead of leaving a
//! blank or frozen page, the hook logs the panic to the console and puts an
//! error banner on the page, built with plain DOM calls (the app itself can
//! no longer run) and with the message as text, never as HTML.

/// Installs the hook; call once, before mounting.
pub fn install_hook() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show_banner(&info.to_string());
    }));
}

fn show_banner(message: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Some(document) = window.document() else {
        return;
    };
    let Some(body) = document.body() else {
        return;
    };
    let make = |tag: &str| document.create_element(tag).ok();
    // After a panic the module may still be called (an event listener, say)
    // and panic again: one banner, with every message under it.
    if let Some(details) = document
        .query_selector("#panic-banner details")
        .ok()
        .flatten()
    {
        if let Some(pre) = make("pre") {
            pre.set_text_content(Some(message));
            let _ = details.append_child(&pre);
        }
        return;
    }
    let (Some(banner), Some(text), Some(reload), Some(details), Some(pre)) = (
        make("div"),
        make("p"),
        make("a"),
        make("details"),
        make("pre"),
    ) else {
        return;
    };
    let _ = banner.set_attribute("id", "panic-banner");
    let _ = banner.set_attribute("role", "alert");
    let _ = banner.set_attribute("data-testid", "panic-banner");
    text.set_text_content(Some(
        "KnobLab hit an internal error and stopped. Work already saved in this browser is kept. ",
    ));
    // The module is dead, so the link must work without it: a new query
    // string makes the browser load the page again, keeping the route.
    let location = window.location();
    let path = location.pathname().unwrap_or_else(|_| "./".into());
    let hash = location.hash().unwrap_or_default();
    let href = format!("{path}?reload={}{hash}", js_sys::Date::now() as u64);
    let _ = reload.set_attribute("href", &href);
    reload.set_text_content(Some("Reload KnobLab"));
    let _ = text.append_child(&reload);
    pre.set_text_content(Some(message));
    let _ = details.append_child(&pre);
    let _ = banner.append_child(&text);
    let _ = banner.append_child(&details);
    let _ = body.prepend_with_node_1(&banner);
}

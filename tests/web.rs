//! Browser tests: components mounted in headless Chromium, clicked, and read
//! back from the DOM. Run with `make wasm-test`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(target_arch = "wasm32")]

use knoblab_page::app::{App, Header};
use knoblab_page::route::{Location, Page};
use leptos::prelude::*;
use leptos::wasm_bindgen::JsCast;
use leptos::web_sys::{Element, HtmlElement};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A fresh element on the page to mount into.
fn container() -> HtmlElement {
    let document = document();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    root.unchecked_into()
}

fn by_testid(root: &Element, id: &str) -> Element {
    root.query_selector(&format!("[data-testid='{id}']"))
        .unwrap()
        .unwrap_or_else(|| panic!("no element with data-testid={id}"))
}

#[wasm_bindgen_test]
async fn the_menu_button_opens_and_closes_the_navigation() {
    let root = container();
    let _handle = leptos::mount::mount_to(root.clone(), || {
        view! { <Header page=Signal::derive(|| Page::About) /> }
    });
    let toggle = by_testid(&root, "menu-toggle");
    let nav = root.query_selector("#site-nav").unwrap().unwrap();
    assert_eq!(
        toggle.get_attribute("aria-expanded").as_deref(),
        Some("false")
    );
    assert!(!nav.class_list().contains("open"));

    toggle.unchecked_ref::<HtmlElement>().click();
    leptos::task::tick().await;
    assert_eq!(
        toggle.get_attribute("aria-expanded").as_deref(),
        Some("true")
    );
    assert!(nav.class_list().contains("open"));
    assert_eq!(toggle.text_content().as_deref(), Some("Close"));

    toggle.unchecked_ref::<HtmlElement>().click();
    leptos::task::tick().await;
    assert_eq!(
        toggle.get_attribute("aria-expanded").as_deref(),
        Some("false")
    );
}

#[wasm_bindgen_test]
async fn the_header_marks_the_current_page() {
    let root = container();
    let _handle = leptos::mount::mount_to(root.clone(), || {
        view! { <Header page=Signal::derive(|| Page::Score) /> }
    });
    let score = by_testid(&root, "nav-score");
    let library = by_testid(&root, "nav-library");
    assert!(score.class_list().contains("active"));
    assert_eq!(score.get_attribute("aria-current").as_deref(), Some("page"));
    assert!(!library.class_list().contains("active"));
    assert_eq!(score.get_attribute("href").as_deref(), Some("#/score"));
}

#[wasm_bindgen_test]
async fn the_app_follows_the_hash_to_another_page() {
    let window = window();
    window.location().set_hash("#/about").unwrap();
    let root = container();
    let _handle = leptos::mount::mount_to(root.clone(), App);
    leptos::task::tick().await;
    assert!(by_testid(&root, "main")
        .text_content()
        .unwrap()
        .contains("About KnobLab"));

    // Following a link changes the hash; the app hears `hashchange`.
    by_testid(&root, "nav-agent")
        .unchecked_ref::<HtmlElement>()
        .click();
    for _ in 0..50 {
        leptos::task::tick().await;
        if root
            .query_selector("[data-testid='agent-page']")
            .unwrap()
            .is_some()
        {
            break;
        }
        gloo_timers_sleep(20).await;
    }
    let main = by_testid(&root, "main").text_content().unwrap();
    assert!(main.contains("Agent"), "main was: {main}");
    assert!(main.contains("Run one episode"), "main was: {main}");
    window.location().set_hash("").unwrap();
}

#[wasm_bindgen_test]
fn hashes_parse_into_pages_and_query_parameters() {
    assert_eq!(Location::parse("").page, Page::Library);
    assert_eq!(Location::parse("#/").page, Page::Library);
    assert_eq!(Location::parse("#/score").page, Page::Score);
    assert_eq!(Location::parse("#/play/").page, Page::Play);
    let board = Location::parse("#/leaderboard?src=results%2Fleaderboard.json");
    assert_eq!(board.page, Page::Leaderboard);
    assert_eq!(board.param("src"), Some("results/leaderboard.json"));
    let l = Location::parse("#/play?bundle=data%2Fkettle.json&task=boil+it");
    assert_eq!(l.page, Page::Play);
    assert_eq!(l.param("bundle"), Some("data/kettle.json"));
    assert_eq!(l.param("task"), Some("boil it"));
    assert_eq!(l.param("missing"), None);
    let unknown = Location::parse("#/nowhere");
    assert_eq!(unknown.page, Page::NotFound);
    assert_eq!(unknown.path, "/nowhere");
    // A malformed escape is kept as written rather than failing.
    assert_eq!(
        Location::parse("#/play?task=%E0%A4%A").param("task"),
        Some("%E0%A4%A")
    );
}

/// Waits `ms` milliseconds on the browser's clock.
async fn gloo_timers_sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        window()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(promise).await.unwrap();
}

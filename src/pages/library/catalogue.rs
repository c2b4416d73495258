//! The cards of the library, a page at a time: the categories as buttons
//! with their counts, the search, the page's cards and the pager. Which
//! cards a query shows is the core's ([`knoblab_eval::play::catalogue`]).
//!
//! A hand-described device's card shows its shipped front view (a lazy
//! `<img>`: only the cards in sight are fetched). A generated device has
//! no picture to fetch: its front view alone is drawn in the device worker
//! ([`device_worker::draw_thumbnail`], off the main thread) when its card
//! is on the page shown, one card after another, and kept for the rest of
//! the visit. Showing another page of cards, or leaving the Library page,
//! cancels the drawings still queued.

use std::cell::RefCell;
use std::collections::HashMap;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::browser::device_worker::{self, Asker, DrawError};
use crate::browser::fetch::LIBRARY_URL;
use knoblab_core::bundle::generated::is_generated;
use knoblab_core::bundle::{LibraryEntry, LibraryIndex};
use knoblab_eval::play::catalogue::{category_counts, Query};
use knoblab_eval::play::share::encode_component;

thread_local! {
    /// Generated devices' front views drawn in this visit, as `data:` URLs.
    static THUMBNAILS: RefCell<HashMap<String, String>> = RefCell::new(HashMap::new());
}

/// A generated device's front view, drawn in the device worker, kept for
/// the visit.
async fn generated_thumbnail(id: &str) -> Result<String, DrawError> {
    let png = device_worker::draw_thumbnail(id, Asker::Catalogue).await?;
    let url = format!(
        "data:image/png;base64,{}",
        base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &png)
    );
    THUMBNAILS.with(|t| t.borrow_mut().insert(id.to_string(), url.clone()));
    Ok(url)
}

/// One device card. `drawn` is a generated device's front view once drawn.
#[component]
fn DeviceCard(entry: LibraryEntry, drawn: RwSignal<Option<String>>) -> impl IntoView {
    let base = LIBRARY_URL.rsplit_once('/').map_or("", |(dir, _)| dir);
    let href = format!("#/play?bundle={}", encode_component(&entry.id));
    let tasks = format!(
        "{} task{}",
        entry.tasks,
        if entry.tasks == 1 { "" } else { "s" }
    );
    let generated = is_generated(&entry);
    let picture = if generated {
        (move || match drawn.get() {
            Some(src) => view! { <img src=src alt="" data-testid="thumbnail" /> }.into_any(),
            None => view! { <span class="thumb-drawing" data-testid="thumbnail-drawing">"drawing…"</span> }
                .into_any(),
        })
        .into_any()
    } else {
        let src = format!("{base}/{}", entry.file_url(&entry.thumbnail));
        view! { <img src=src alt="" loading="lazy" data-testid="thumbnail" /> }.into_any()
    };
    view! {
        <li>
            <a class="card" href=href data-testid="device-card" data-id=entry.id.clone()
                data-category=entry.category.clone() data-generated=generated.to_string()>
                {picture}
                <span class="card-name">{entry.name.clone()}</span>
                <span class="card-meta">
                    <span class="category">{entry.category.clone()}</span>
                    <span class="tasks">{tasks}</span>
                    {generated.then(|| view! { <span class="generated" title="made by the generator when opened">"generated"</span> })}
                </span>
            </a>
        </li>
    }
}

/// The catalogue: category buttons with counts, the search, one page of
/// cards and the pager.
#[component]
pub fn Catalogue(
    /// The library index, whose devices are listed.
    index: LibraryIndex,
) -> impl IntoView {
    let query = RwSignal::new(Query::default());
    let counts = category_counts(&index.devices);
    let total = index.devices.len();
    let devices = StoredValue::new(index.devices);
    // Leaving the Library page drops the cards still to draw.
    on_cleanup(|| device_worker::cancel(Asker::Catalogue));

    let category_button = move |category: String, label: String, count: usize| {
        let value = category.clone();
        view! {
            <li>
                <button type="button" class="category-count" data-testid="category" data-category=category.clone()
                    data-count=count.to_string()
                    aria-pressed=move || (query.with(|q| q.category == value)).to_string()
                    on:click=move |_| query.update(|q| { q.category = category.clone(); q.page = 0; })>
                    {label} " " <span class="count">{count}</span>
                </button>
            </li>
        }
    };
    let buttons = std::iter::once(category_button(String::new(), "All".to_string(), total))
        .chain(
            counts
                .into_iter()
                .map(|(c, n)| category_button(c.clone(), c, n)),
        )
        .collect_view();

    let page_view = move || {
        let q = query.get();
        let (cards, matching, page, pages) = devices.with_value(|all| {
            let p = q.page(all);
            let cards: Vec<LibraryEntry> = p.cards.into_iter().cloned().collect();
            (cards, p.matching, p.page, p.pages)
        });
        let with_signals: Vec<(LibraryEntry, RwSignal<Option<String>>)> = cards
            .into_iter()
            .map(|e| {
                let cached = THUMBNAILS.with(|t| t.borrow().get(&e.id).cloned());
                (e, RwSignal::new(cached))
            })
            .collect();
        let queue: Vec<(String, RwSignal<Option<String>>)> = with_signals
            .iter()
            .filter(|(e, s)| is_generated(e) && s.get_untracked().is_none())
            .map(|(e, s)| (e.id.clone(), *s))
            .collect();
        // The cards of the page shown before are not drawn any more.
        device_worker::cancel(Asker::Catalogue);
        for (id, drawn) in queue {
            spawn_local(async move {
                match generated_thumbnail(&id).await {
                    Ok(url) => {
                        let _ = drawn.try_set(Some(url));
                    }
                    Err(DrawError::Cancelled) => {}
                    Err(e) => leptos::logging::warn!("knoblab: the card of {id}: {e}"),
                }
            });
        }
        let first = page * knoblab_eval::play::catalogue::PAGE_SIZE;
        let range = if matching == 0 {
            "no device matches".to_string()
        } else {
            format!(
                "{}–{} of {matching} devices ({total} in the library)",
                first + 1,
                (first + knoblab_eval::play::catalogue::PAGE_SIZE).min(matching)
            )
        };
        view! {
            <p class="count" data-testid="device-count" data-matching=matching.to_string()>{range}</p>
            <ul class="cards" data-testid="cards">
                {with_signals.into_iter().map(|(entry, drawn)| view! { <DeviceCard entry=entry drawn=drawn /> }).collect_view()}
            </ul>
            <nav class="pager" data-testid="pager" aria-label="pages">
                <button type="button" data-testid="page-previous" disabled={page == 0}
                    on:click=move |_| query.update(|q| q.page = page.saturating_sub(1))>"← Previous"</button>
                <span data-testid="page-number">{format!("page {} of {pages}", page + 1)}</span>
                <button type="button" data-testid="page-next" disabled={page + 1 >= pages}
                    on:click=move |_| query.update(|q| q.page = page + 1)>"Next →"</button>
            </nav>
        }
    };

    view! {
        <div class="filters">
            <ul class="categories" data-testid="categories" aria-label="categories">{buttons}</ul>
            <label>
                "Search "
                <input type="search" placeholder="Name, id or category" data-testid="search"
                    on:input=move |ev| query.update(|q| { q.search = event_target_value(&ev); q.page = 0; }) />
            </label>
        </div>
        {page_view}
    }
}

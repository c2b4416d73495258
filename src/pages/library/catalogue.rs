//! The cards of the library, a page at a time: the categories as buttons
//! with their counts, the search, the page's cards and the pager. Which
//! cards a query shows is the core's ([`knoblab_eval::play::catalogue`]).
//!
//! Each card shows its device's front view from the library's files (a lazy
//! `<img>`: only the cards in sight are fetched): a hand-described device's
//! shipped view, a generated device's card drawn when the library was made
//! (`knoblab library generate`, at the path its entry names), so that
//! browsing loads no generator; a generated device is drawn when opened.

use leptos::prelude::*;

use crate::browser::fetch::LIBRARY_URL;
use knoblab_core::bundle::generated::is_generated;
use knoblab_core::bundle::{LibraryEntry, LibraryIndex};
use knoblab_eval::play::catalogue::{category_counts, Query};
use knoblab_eval::play::share::encode_component;

/// One device card.
#[component]
fn DeviceCard(entry: LibraryEntry) -> impl IntoView {
    let base = LIBRARY_URL.rsplit_once('/').map_or("", |(dir, _)| dir);
    let href = format!("#/play?bundle={}", encode_component(&entry.id));
    let tasks = format!(
        "{} task{}",
        entry.tasks,
        if entry.tasks == 1 { "" } else { "s" }
    );
    let generated = is_generated(&entry);
    let src = format!("{base}/{}", entry.file_url(&entry.thumbnail));
    let picture = view! { <img src=src alt="" loading="lazy" data-testid="thumbnail" /> };
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
                {cards.into_iter().map(|entry| view! { <DeviceCard entry=entry /> }).collect_view()}
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

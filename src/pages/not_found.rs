//! What an unknown route shows.

use leptos::prelude::*;

/// The page for a route that names no page.
#[component]
pub fn NotFoundPage(
    /// The route asked for.
    path: String,
) -> impl IntoView {
    view! {
        <section class="page" data-testid="not-found">
            <h1>"No such page"</h1>
            <p>"There is no page at " <code>{format!("#{path}")}</code> "."</p>
            <p><a href="#/library">"Go to the device library"</a></p>
        </section>
    }
}

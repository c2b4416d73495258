//! The Library page.

use leptos::prelude::*;

use super::NotBuiltYet;

#[component]
pub fn LibraryPage() -> impl IntoView {
    view! {
        <NotBuiltYet
            title="Library"
            plans="Every device of KnobLab's library as a card, with filters, and a place to open your own bundle (a folder, a zip, a single JSON file or a URL)."
        />
    }
}

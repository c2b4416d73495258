//! One file per page, or one folder for a page with parts of its own:
//! `score/`, `agent/`, `leaderboard/`, and `play/` (the player, with the Play and Embed
//! pages that show it). Pages that are not built yet say so plainly.

pub mod about;
pub mod agent;
pub mod leaderboard;
pub mod library;
pub mod not_found;
pub mod panic_test;
pub mod play;
pub mod score;

use leptos::prelude::*;

/// The honest placeholder of a page that is not built yet: what it will do.
#[component]
pub fn NotBuiltYet(
    /// The page's title.
    title: &'static str,
    /// What it will do, in a sentence or two.
    plans: &'static str,
) -> impl IntoView {
    view! {
        <section class="page" data-testid="not-built">
            <h1>{title}</h1>
            <p class="notice">"This page is not built yet."</p>
            <p>{plans}</p>
        </section>
    }
}

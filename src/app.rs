//! The shell: header with navigation, the route switch, the footer.

use leptos::prelude::*;

use super::pages::about::AboutPage;
use super::pages::agent::AgentPage;
use super::pages::leaderboard::LeaderboardPage;
use super::pages::library::LibraryPage;
use super::pages::not_found::NotFoundPage;
use super::pages::panic_test::PanicTestPage;
use super::pages::play::embed::EmbedPage;
use super::pages::play::page::PlayPage;
use super::pages::play::Player;
use super::pages::score::ScorePage;
use super::route::{Location, LocationSignal, Page};

fn current_location() -> Location {
    let hash = window().location().hash().unwrap_or_default();
    Location::parse(&hash)
}

/// The whole app: header, the page the hash names, footer.
#[component]
pub fn App() -> impl IntoView {
    let (location, set_location) = signal(current_location());
    let listener = window_event_listener(leptos::ev::hashchange, move |_| {
        set_location.set(current_location());
    });
    on_cleanup(move || listener.remove());
    provide_context::<LocationSignal>(location);
    // One player for the play and embed pages and for `window.knoblab`.
    let player = Player::default();
    provide_context(player);
    super::api::install(player);

    let page = Memo::new(move |_| location.with(|l| l.page));
    // The embed page is the player alone, for an iframe: no header, no footer.
    let framed = move || page.get() != Page::Embed;
    view! {
        {move || framed().then(|| view! { <Header page=page /> })}
        <main id="main" data-testid="main">
            {move || match page.get() {
                Page::Library => view! { <LibraryPage /> }.into_any(),
                Page::Play => view! { <PlayPage /> }.into_any(),
                Page::Agent => view! { <AgentPage /> }.into_any(),
                Page::Score => view! { <ScorePage /> }.into_any(),
                Page::Leaderboard => view! { <LeaderboardPage /> }.into_any(),
                Page::About => view! { <AboutPage /> }.into_any(),
                Page::PanicTest => view! { <PanicTestPage /> }.into_any(),
                Page::Embed => view! { <EmbedPage /> }.into_any(),
                Page::NotFound => {
                    let path = location.with_untracked(|l| l.path.clone());
                    view! { <NotFoundPage path=path /> }.into_any()
                }
            }}
        </main>
        {move || framed().then(|| view! {
            <footer class="site-footer">
                "KnobLab runs entirely in your browser: devices, models you call with your own key, and scoring. Nothing is uploaded."
            </footer>
        })}
    }
}

/// The header: the name, and the navigation, which folds into a menu button
/// on narrow screens.
#[component]
pub fn Header(
    /// The page shown, whose link is marked current.
    #[prop(into)]
    page: Signal<Page>,
) -> impl IntoView {
    let (menu_open, set_menu_open) = signal(false);
    view! {
        <header class="site-header">
            <a class="brand" href="#/library" data-testid="brand">
                <img src="favicon.svg" alt="" width="28" height="28" />
                <span>"KnobLab"</span>
            </a>
            <button
                class="menu-toggle"
                data-testid="menu-toggle"
                aria-controls="site-nav"
                aria-expanded=move || if menu_open.get() { "true" } else { "false" }
                on:click=move |_| set_menu_open.update(|open| *open = !*open)
            >
                {move || if menu_open.get() { "Close" } else { "Menu" }}
            </button>
            <nav id="site-nav" class="site-nav" class:open=move || menu_open.get() aria-label="Pages">
                {Page::NAV
                    .into_iter()
                    .map(|(target, label)| {
                        view! {
                            <a
                                href=target.href()
                                data-testid=format!("nav-{}", label.to_lowercase())
                                class:active=move || page.get() == target
                                aria-current=move || (page.get() == target).then_some("page")
                                on:click=move |_| set_menu_open.set(false)
                            >
                                {label}
                            </a>
                        }
                    })
                    .collect_view()}
            </nav>
        </header>
    }
}

//! The shell: header with navigation, the route switch, the footer.

use leptos::prelude::*;

use super::pages::about::AboutPage;
use super::pages::library::LibraryPage;
use super::pages::not_found::NotFoundPage;
use super::pages::panic_test::PanicTestPage;
use super::pages::play::embed::EmbedPage;
use super::pages::play::page::PlayPage;
use super::pages::play::Player;
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
                Page::Agent => chunked::agent(),
                Page::Score => chunked::score(),
                Page::Leaderboard => chunked::leaderboard(),
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

/// The Agent, Score and Leaderboard pages, which most visits never open.
///
/// In the release (feature `split`) each is a split point: its code moves
/// into a chunk of the module that the page downloads when the route is first
/// shown (scripts/split_page.py), so the library and the player load none of
/// it. Elsewhere each page is simply built in place.
mod chunked {
    use leptos::prelude::*;

    use crate::pages::agent::AgentPage;
    use crate::pages::leaderboard::LeaderboardPage;
    use crate::pages::score::ScorePage;

    pub fn agent_view() -> AnyView {
        view! { <AgentPage /> }.into_any()
    }

    pub fn score_view() -> AnyView {
        view! { <ScorePage /> }.into_any()
    }

    pub fn leaderboard_view() -> AnyView {
        view! { <LeaderboardPage /> }.into_any()
    }

    #[cfg(not(feature = "split"))]
    pub use self::{agent_view as agent, leaderboard_view as leaderboard, score_view as score};

    #[cfg(feature = "split")]
    pub use split::{agent, leaderboard, score};

    #[cfg(feature = "split")]
    mod split {
        use leptos::prelude::*;
        use wasm_split_helpers::wasm_split;

        use crate::chunk::Missing;

        #[wasm_split(agent_page, fallible)]
        fn agent_page() -> Result<AnyView, Missing> {
            Ok(super::agent_view())
        }

        #[wasm_split(score_page, fallible)]
        fn score_page() -> Result<AnyView, Missing> {
            Ok(super::score_view())
        }

        #[wasm_split(leaderboard_page, fallible)]
        fn leaderboard_page() -> Result<AnyView, Missing> {
            Ok(super::leaderboard_view())
        }

        pub fn agent() -> AnyView {
            shown("Agent", agent_page())
        }

        pub fn score() -> AnyView {
            shown("Score", score_page())
        }

        pub fn leaderboard() -> AnyView {
            shown("Leaderboard", leaderboard_page())
        }

        /// The page once its chunk is in, or why it is not. Nothing is shown
        /// while it downloads (a few hundred kilobytes at most); a failed
        /// download is not remembered, so a reload tries again.
        fn shown(
            name: &'static str,
            load: impl std::future::Future<Output = Result<AnyView, Missing>> + 'static,
        ) -> AnyView {
            let load = send_wrapper::SendWrapper::new(load);
            view! {
                <Suspense fallback=|| ()>
                    {Suspend::new(async move {
                        match load.await {
                            Ok(page) => page,
                            Err(Missing) => view! {
                                <section class="page" data-testid="chunk-missing">
                                    <h1>{name}</h1>
                                    <p class="error" role="alert">
                                        {format!(
                                            "The {name} page's code could not be downloaded: \
                                             the network is off and this browser had not kept it \
                                             for offline use yet, or the server did not answer. \
                                             Reload once the network is back; nothing you did \
                                             here is lost."
                                        )}
                                    </p>
                                </section>
                            }.into_any(),
                        }
                    })}
                </Suspense>
            }
            .into_any()
        }
    }
}

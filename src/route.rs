//! Hash-based routes: `#/library`, `#/play?bundle=…&task=…`,
//! `#/leaderboard?src=…`, `#/about`.
//! A hash never reaches the server, so any static host serves every route.

use leptos::prelude::ReadSignal;

/// The current location, provided once as a context value (by the shell,
/// [`super::app`]; read by the pages, which so need nothing from it).
pub type LocationSignal = ReadSignal<Location>;

/// A page of the app.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Page {
    /// The device library (`#/library`).
    Library,
    /// The player (`#/play`).
    Play,
    /// Running a model or another agent (`#/agent`).
    Agent,
    /// Offline scoring (`#/score`).
    Score,
    /// Runs side by side, with intervals and their trajectories
    /// (`#/leaderboard`, `#/leaderboard?src=URL` to open a saved one).
    Leaderboard,
    /// About KnobLab (`#/about`).
    About,
    /// Provokes a panic, so tests can see the error banner.
    PanicTest,
    /// A route that names no page.
    NotFound,
    /// The player alone, for an iframe (`#/embed?bundle=…&task=…`).
    Embed,
}

impl Page {
    /// The pages in the navigation bar, in order, with their labels.
    pub const NAV: [(Page, &'static str); 6] = [
        (Page::Library, "Library"),
        (Page::Play, "Play"),
        (Page::Agent, "Agent"),
        (Page::Score, "Score"),
        (Page::Leaderboard, "Leaderboard"),
        (Page::About, "About"),
    ];

    /// The hash that opens this page.
    pub fn href(self) -> &'static str {
        match self {
            Page::Library => "#/library",
            Page::Play => "#/play",
            Page::Agent => "#/agent",
            Page::Score => "#/score",
            Page::Leaderboard => "#/leaderboard",
            Page::About => "#/about",
            Page::PanicTest => "#/__panic",
            Page::NotFound => "#/",
            Page::Embed => "#/embed",
        }
    }
}

/// Where the page is: which page, and the query after `?` as key-value pairs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The page.
    pub page: Page,
    /// The path as written, for the "not found" message.
    pub path: String,
    /// The query's key-value pairs, decoded, in order.
    pub query: Vec<(String, String)>,
}

impl Location {
    /// Reads a `location.hash` value such as `#/play?task=boil`. An empty hash
    /// or `#/` is the library, the landing page.
    pub fn parse(hash: &str) -> Location {
        let rest = hash.strip_prefix('#').unwrap_or(hash);
        let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
        let path = path.trim_end_matches('/');
        let page = match path {
            "" | "/library" => Page::Library,
            "/play" => Page::Play,
            "/agent" => Page::Agent,
            "/score" => Page::Score,
            "/leaderboard" => Page::Leaderboard,
            "/about" => Page::About,
            "/__panic" => Page::PanicTest,
            "/embed" => Page::Embed,
            _ => Page::NotFound,
        };
        let query = query
            .split('&')
            .filter(|pair| !pair.is_empty())
            .map(|pair| {
                let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                (decode(k), decode(v))
            })
            .collect();
        Location {
            page,
            path: path.to_string(),
            query,
        }
    }

    /// The first value of a query parameter.
    pub fn param(&self, key: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Percent-decoding as the browser would; malformed escapes are kept as written.
fn decode(s: &str) -> String {
    js_sys::decode_uri_component(&s.replace('+', " "))
        .map(String::from)
        .unwrap_or_else(|_| s.to_string())
}

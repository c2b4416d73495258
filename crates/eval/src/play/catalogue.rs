//! The library page's catalogue at the library's scale (968 cards): the
//! categories with their counts, the search, and the page of cards shown,
//! computed here so the page only draws what this returns.
//!
//! ```
//! use knoblab_core::bundle::LibraryEntry;
//! use knoblab_eval::play::catalogue::{Query, PAGE_SIZE};
//! let card = |id: &str, category: &str| LibraryEntry {
//!     id: id.into(), name: format!("A {id}"), category: category.into(),
//!     path: format!("generated/{id}"), files: vec![], thumbnail: "views/front.png".into(), tasks: 17,
//! };
//! let devices: Vec<LibraryEntry> = (1..=30).map(|i| card(&format!("lamp-g{i:04}"), "Lamp"))
//!     .chain([card("kettle-0001", "ElectricKettle")]).collect();
//! let counts = knoblab_eval::play::catalogue::category_counts(&devices);
//! assert_eq!(counts, [("ElectricKettle".to_string(), 1), ("Lamp".to_string(), 30)]);
//! let page = Query { category: "Lamp".into(), page: 1, ..Query::default() }.page(&devices);
//! assert_eq!((page.matching, page.pages, page.cards.len()), (30, 2, 30 - PAGE_SIZE));
//! ```

use knoblab_core::bundle::LibraryEntry;

/// Cards on one page: few enough that a page of generated thumbnails is
/// drawn in a few seconds, enough to fill a desktop screen.
pub const PAGE_SIZE: usize = 24;

/// Every category of `devices` with its number of devices, by name.
pub fn category_counts(devices: &[LibraryEntry]) -> Vec<(String, usize)> {
    let mut counts = std::collections::BTreeMap::<&str, usize>::new();
    for d in devices {
        *counts.entry(d.category.as_str()).or_default() += 1;
    }
    counts
        .into_iter()
        .map(|(c, n)| (c.to_string(), n))
        .collect()
}

/// What the visitor asked for: a category (empty: all), a search text and
/// a page (from 0).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    /// The category to show; empty shows every category.
    pub category: String,
    /// Words each to be found, ignoring case, in a device's name, id or category; empty matches all.
    pub search: String,
    /// The page asked for, from 0.
    pub page: usize,
}

/// One page of the catalogue.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<'a> {
    /// The cards of this page, in library order.
    pub cards: Vec<&'a LibraryEntry>,
    /// How many devices match the category and the search.
    pub matching: usize,
    /// The page shown (the asked one, kept inside the pages there are).
    pub page: usize,
    /// How many pages the matching devices fill (at least 1).
    pub pages: usize,
}

impl Query {
    /// Whether a device matches: in the category, and every word of the
    /// search found (ignoring case) in its name, id or category.
    pub fn matches(&self, entry: &LibraryEntry) -> bool {
        if !self.category.is_empty() && entry.category != self.category {
            return false;
        }
        let haystack = format!("{} {} {}", entry.name, entry.id, entry.category).to_lowercase();
        self.search
            .to_lowercase()
            .split_whitespace()
            .all(|word| haystack.contains(word))
    }

    /// The page of matching devices this query shows.
    pub fn page<'a>(&self, devices: &'a [LibraryEntry]) -> Page<'a> {
        let matching: Vec<&LibraryEntry> = devices.iter().filter(|d| self.matches(d)).collect();
        let pages = matching.len().div_ceil(PAGE_SIZE).max(1);
        let page = self.page.min(pages - 1);
        let cards = matching
            .iter()
            .skip(page * PAGE_SIZE)
            .take(PAGE_SIZE)
            .copied()
            .collect();
        Page {
            cards,
            matching: matching.len(),
            page,
            pages,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(id: &str, name: &str, category: &str) -> LibraryEntry {
        LibraryEntry {
            id: id.into(),
            name: name.into(),
            category: category.into(),
            path: format!("devices/{id}"),
            files: vec!["manifest.json".into()],
            thumbnail: "views/front.png".into(),
            tasks: 12,
        }
    }

    #[test]
    fn every_word_of_the_search_must_be_found_in_name_id_or_category() {
        let kettle = card("kettle-0001", "Steel kettle with a dial", "ElectricKettle");
        let query = |s: &str| Query {
            search: s.into(),
            ..Query::default()
        };
        assert!(query("STEEL dial").matches(&kettle));
        assert!(query("kettle-0001").matches(&kettle));
        assert!(query("electrickettle").matches(&kettle));
        assert!(!query("steel fan").matches(&kettle));
        assert!(query("   ").matches(&kettle));
    }

    #[test]
    fn a_page_past_the_last_shows_the_last() {
        let devices: Vec<LibraryEntry> = (0..50)
            .map(|i| card(&format!("lamp-{i:04}"), "Lamp", "Lamp"))
            .collect();
        let page = Query {
            page: 9,
            ..Query::default()
        }
        .page(&devices);
        assert_eq!((page.page, page.pages, page.matching), (2, 3, 50));
        assert_eq!(page.cards.len(), 2);
        assert_eq!(page.cards[0].id, "lamp-0048");
        let none = Query {
            search: "nothing".into(),
            ..Query::default()
        }
        .page(&devices);
        assert_eq!(
            (none.page, none.pages, none.matching, none.cards.len()),
            (0, 1, 0, 0)
        );
    }
}

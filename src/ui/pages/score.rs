//! The Score page: see [`crate::ui::score`].

pub use crate::ui::score::ScorePage;

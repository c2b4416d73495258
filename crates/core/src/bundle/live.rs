//! The optional live layer of a bundle (`live.json` and its sheets of
//! patches): what each state of the device shows, as small pictures laid
//! over the static views.
//!
//! A bundle without it loads and plays exactly as before; with it, the
//! simulator's `live` render mode ([`crate::sim::render`]) draws the current
//! view for the current state by copying, onto the static picture, the
//! patches the state lists for that view. The layer changes no rule: the
//! logic hash, the transitions and the component boxes used for matching
//! are the same in both modes.
//!
//! ```json
//! // live.json
//! {"format": "knoblab-live/1",
//!  "sheets": {"front": "live/front.png"},
//!  "patches": [{"view": "front", "from": [0, 0, 24, 20], "at": [301, 388],
//!               "sign": "power light off", "part": [301, 388, 24, 20]}],
//!  "states": {"Standby": {"patches": [0], "signs": ["power light off"]}}}
//! ```
//!
//! - `sheets`: per view, one PNG holding that view's patches (RGBA; a
//!   transparent pixel leaves the static picture as it is).
//! - `patches[i]`: the rectangle `from` `[x, y, w, h]` of the view's sheet
//!   goes to `at` `[x, y]` of the view's picture; `sign` says what it shows;
//!   `part` is the `[x, y, w, h]` rectangle of the part that shows it (for
//!   tests and the answer overlay); `component` and `box` say where a
//!   component that moved is now (`[x, y, w, h, W, H]`, inside its static
//!   box).
//! - `states[s]`: the patches of state `s`, in drawing order, and the
//!   signs it shows, in words. A state not listed shows the static views.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::image::ViewImage;

/// The live layer's file name (in the single-file form, the key `live`).
pub const LIVE_FILE: &str = "live.json";

/// The format `live.json` declares.
pub const LIVE_FORMAT: &str = "knoblab-live/1";

/// `live.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LiveSpec {
    /// Always [`LIVE_FORMAT`].
    pub format: String,
    /// Per view, its sheet of patches: a path in the bundle (or, in the
    /// single-file form, a `data:` URL).
    pub sheets: BTreeMap<String, String>,
    /// Every patch, indexed by the states' `patches`.
    pub patches: Vec<Patch>,
    /// What each state shows, by state name.
    pub states: BTreeMap<String, StateLook>,
}

/// One patch: a rectangle of a view's sheet and where it goes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Patch {
    /// The view it is drawn on.
    pub view: String,
    /// `[x, y, w, h]` in pixels of the view's sheet.
    pub from: [u32; 4],
    /// `[x, y]`: where the rectangle's top-left corner goes on the view.
    pub at: [u32; 2],
    /// What it shows, in words ("power light off", "door open").
    pub sign: String,
    /// The `[x, y, w, h]` pixels of the part showing the sign.
    pub part: [f64; 4],
    /// The component that moved, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub component: Option<String>,
    /// Where that component is now: `[x, y, w, h, W, H]`.
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "box")]
    pub moved_box: Option<[f64; 6]>,
}

/// What one state shows.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateLook {
    /// Indices into `patches`, in drawing order.
    pub patches: Vec<usize>,
    /// Every sign of the state in words, the unchanged ones included
    /// ("power light on" is how the static picture already draws it).
    #[serde(default)]
    pub signs: Vec<String>,
}

/// A loaded live layer: the file and each view's sheet.
#[derive(Debug, Clone, PartialEq)]
pub struct Live {
    /// The file as read.
    pub spec: LiveSpec,
    /// Each view's sheet, decoded enough to know its size.
    pub sheets: BTreeMap<String, ViewImage>,
}

impl Live {
    /// What a state shows (nothing listed: the static views).
    pub fn look(&self, state: &str) -> Option<&StateLook> {
        self.spec.states.get(state)
    }

    /// The patches of a state on one view, in drawing order.
    pub fn patches_of<'a>(
        &'a self,
        state: &str,
        view: &'a str,
    ) -> impl Iterator<Item = &'a Patch> + 'a {
        self.look(state)
            .into_iter()
            .flat_map(|look| look.patches.iter())
            .filter_map(|&i| self.spec.patches.get(i))
            .filter(move |p| p.view == view)
    }

    /// Bytes of the layer (the file aside): its sheets.
    pub fn sheet_bytes(&self) -> usize {
        self.sheets.values().map(|s| s.bytes.len()).sum()
    }
}

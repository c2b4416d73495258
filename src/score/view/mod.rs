//! What the scoring page draws, as plain data: tables in each paper's
//! layout, bar charts, per-item rows, and the leaderboard row of a file.
//!
//! **Decision:** every aggregate in a view is read from the JSON document
//! that `knoblab score … --json` (or `knoblab metrics --json`) prints for
//! the same report, through a JSON pointer that the cell keeps. The page
//! therefore shows the CLI's very numbers, and a test can check each
//! displayed cell against the CLI's output by its pointer.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::display::percent;

pub mod epic;
pub mod epic_overlay;
pub mod finestate;
pub mod switch;
pub mod trajectories;

/// One scored file, ready to draw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportView {
    /// "EPIC-Bench", "FineState-Bench", …
    pub benchmark: String,
    /// The results file's name.
    pub file: String,
    /// What detection said ("EPIC-Bench raw outputs, 184 samples").
    pub detected: String,
    /// Lines above the tables: ground-truth coverage, what the modes mean.
    pub notes: Vec<String>,
    pub tables: Vec<TableView>,
    pub charts: Vec<ChartView>,
    pub items: ItemsView,
    /// The file's row in the leaderboard.
    pub row: LeaderRow,
}

/// A table: a header and rows of cells.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableView {
    /// A stable id (`epic-table2`), for tests and anchors.
    pub id: String,
    pub title: String,
    pub note: Option<String>,
    pub header: Vec<String>,
    pub rows: Vec<Vec<CellView>>,
}

/// One cell: its text, and for an aggregate the number and where it is in
/// the CLI's JSON document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellView {
    pub text: String,
    pub value: Option<f64>,
    /// A JSON pointer into the CLI's `--json` document.
    pub pointer: Option<String>,
}

impl CellView {
    /// A cell of plain text.
    pub fn text(text: impl Into<String>) -> CellView {
        CellView {
            text: text.into(),
            value: None,
            pointer: None,
        }
    }

    /// A rate read from `doc` at `pointer`, shown as [`percent`] shows
    /// every rate; "–" where the document has no number (an empty column).
    pub fn rate(doc: &Value, pointer: String) -> CellView {
        let value = doc.pointer(&pointer).and_then(Value::as_f64);
        CellView {
            text: percent(value),
            value,
            pointer: value.map(|_| pointer),
        }
    }

    /// A count read from `doc` at `pointer`.
    pub fn count(doc: &Value, pointer: String) -> CellView {
        let value = doc.pointer(&pointer).and_then(Value::as_f64);
        CellView {
            text: value.map_or("–".into(), |v| format!("{v}")),
            value,
            pointer: value.map(|_| pointer),
        }
    }
}

/// A bar chart: bars of values in 0–1, in one or more series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChartView {
    pub title: String,
    /// The series names ("official", "corrected"); one colour each.
    pub series: Vec<String>,
    pub groups: Vec<BarGroup>,
}

/// The bars of one label, one per series (`None` where it has no value).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BarGroup {
    pub label: String,
    pub values: Vec<Option<f64>>,
}

/// The per-item table and what its filters offer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ItemsView {
    /// The task (or platform, or skill) names in the filter menu.
    pub tasks: Vec<String>,
    pub rows: Vec<ItemView>,
}

/// One item: enough for the table row and its drill-down.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemView {
    pub id: String,
    pub task: String,
    /// In 0–1; `None` when the item has no single score.
    pub score: Option<f64>,
    pub invalid: bool,
    /// One line: why it is invalid, or what was found.
    pub summary: String,
    /// The drill-down: (label, text) pairs, shown as text.
    pub details: Vec<(String, String)>,
    /// What to draw on the item's image, when present.
    pub overlay: Option<Overlay>,
}

/// Shapes over an image, in the image's pixels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Overlay {
    /// The image's path as the results file names it.
    pub image: Option<String>,
    pub width: Option<f64>,
    pub height: Option<f64>,
    pub shapes: Vec<Shape>,
}

/// One shape of an overlay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Shape {
    /// `[x0, y0, x1, y1]`; `gt` tells ground truth from prediction.
    Box {
        rect: [f64; 4],
        gt: bool,
    },
    Point {
        at: [f64; 2],
        gt: bool,
        label: String,
    },
    Path {
        points: Vec<[f64; 2]>,
    },
    /// A ground-truth mask as its vertical runs `[x, y0, y1)`.
    Mask {
        runs: Vec<[u32; 3]>,
    },
}

/// A file's row of the leaderboard: its columns' values, fractions in 0–1
/// except the columns listed in `plain`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeaderRow {
    pub benchmark: String,
    pub file: String,
    /// The model, where the file names one.
    pub model: Option<String>,
    pub columns: Vec<String>,
    pub values: Vec<Option<f64>>,
    /// Columns that are plain numbers (VSPS, distances), not fractions.
    pub plain: Vec<usize>,
}

impl LeaderRow {
    /// Column `i` as tables show it: a fraction as [`percent`], a plain
    /// number with two decimals, "–" when empty.
    pub fn text(&self, i: usize) -> String {
        let v = self.values.get(i).copied().flatten();
        if self.plain.contains(&i) {
            crate::display::number(v)
        } else {
            percent(v)
        }
    }
}

/// A JSON pointer from its parts, escaped (`~` → `~0`, `/` → `~1`).
pub fn pointer(parts: &[&str]) -> String {
    parts
        .iter()
        .map(|p| format!("/{}", p.replace('~', "~0").replace('/', "~1")))
        .collect()
}

/// A number of `doc` at a pointer.
pub fn number(doc: &Value, parts: &[&str]) -> Option<f64> {
    doc.pointer(&pointer(parts)).and_then(Value::as_f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pointers_escape_slashes_so_epic_group_keys_resolve() {
        let doc = json!({"by_group": {"TargetLocalization/BasicAttributes": {"mean_score": 0.5}}});
        let p = pointer(&[
            "by_group",
            "TargetLocalization/BasicAttributes",
            "mean_score",
        ]);
        assert_eq!(
            p,
            "/by_group/TargetLocalization~1BasicAttributes/mean_score"
        );
        assert_eq!(CellView::rate(&doc, p).text, "50.0");
    }

    #[test]
    fn a_missing_number_is_a_dash_without_a_pointer() {
        let cell = CellView::rate(&json!({}), "/nothing".into());
        assert_eq!(
            (cell.text.as_str(), cell.value, cell.pointer),
            ("–", None, None)
        );
    }
}

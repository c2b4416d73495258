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

use knoblab_core::display::percent;

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
    /// Every line and item of the inputs the numbers do not use (skipped,
    /// refused, given twice, matching nothing), each with its file and
    /// line, shown above the tables (issue #47).
    #[serde(default)]
    pub unused: Vec<knoblab_core::input::unused::Unused>,
    /// The tables, in the paper's order.
    pub tables: Vec<TableView>,
    /// The charts under the tables.
    pub charts: Vec<ChartView>,
    /// Every item, for the drill-down.
    pub items: ItemsView,
    /// The file's row in the leaderboard.
    pub row: LeaderRow,
}

/// A table: a header and rows of cells.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableView {
    /// A stable id (`epic-table2`), for tests and anchors.
    pub id: String,
    /// The table's caption (`Table 2: …`).
    pub title: String,
    /// A line under the caption, where one is needed.
    pub note: Option<String>,
    /// The column names.
    pub header: Vec<String>,
    /// The rows, each a cell per column.
    pub rows: Vec<Vec<CellView>>,
    /// Rows that are headings, not data: the paper's column groups over
    /// the header, or a group of model rows. In such a row each non-empty
    /// cell runs over the empty cells after it.
    #[serde(default)]
    pub span_rows: Vec<usize>,
}

impl TableView {
    /// The cells of heading row `i` as (text, how many columns it runs
    /// over); every cell alone (span 1) in a data row.
    pub fn spans(&self, i: usize) -> Vec<(&str, usize)> {
        let Some(row) = self.rows.get(i) else {
            return Vec::new();
        };
        if !self.span_rows.contains(&i) {
            return row.iter().map(|c| (c.text.as_str(), 1)).collect();
        }
        let mut out: Vec<(&str, usize)> = Vec::new();
        for c in row {
            let runs_on = c.text.is_empty() && !out_is_leading(&out);
            match out.last_mut() {
                Some((_, n)) if runs_on => *n += 1,
                _ => out.push((c.text.as_str(), 1)),
            }
        }
        out
    }

    /// The column-group rows: the heading rows before the first data row
    /// that do not run across the whole table (a row group's heading does).
    /// A paper prints them above the column names, and so do the page and
    /// the LaTeX export.
    pub fn column_group_rows(&self) -> Vec<usize> {
        let width = self.header.len();
        (0..self.rows.len())
            .take_while(|i| self.span_rows.contains(i))
            .filter(|&i| {
                let spans = self.spans(i);
                !(spans.len() == 1 && spans[0].1 == width)
            })
            .collect()
    }
}

/// Whether every cell so far is empty (leading empty cells stay alone, so
/// a column-group row keeps the columns before its first group apart).
fn out_is_leading(out: &[(&str, usize)]) -> bool {
    out.iter().all(|(t, _)| t.is_empty())
}

/// One cell: its text, and for an aggregate the number and where it is in
/// the CLI's JSON document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellView {
    /// What the cell shows.
    pub text: String,
    /// The number behind it, for an aggregate.
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
    /// The chart's caption.
    pub title: String,
    /// The series names ("official", "corrected"); one colour each.
    pub series: Vec<String>,
    /// The labelled groups of bars, left to right.
    pub groups: Vec<BarGroup>,
}

/// The bars of one label, one per series (`None` where it has no value).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BarGroup {
    /// The label under the group.
    pub label: String,
    /// A value per series, in the order of the chart's series.
    pub values: Vec<Option<f64>>,
}

/// The per-item table and what its filters offer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ItemsView {
    /// The task (or platform, or skill) names in the filter menu.
    pub tasks: Vec<String>,
    /// The items, in the results file's order.
    pub rows: Vec<ItemView>,
    /// Whether the rows come without their drill-down (`details`,
    /// `overlay`), which the page asks the worker for when an item is
    /// opened (EPIC-Bench: [`knoblab_app::job::epic_item`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub on_demand: bool,
}

/// Which items the Score page's drill-down lists: one task (or all), the
/// invalid ones only or all, and a score range in percent as the visitor
/// types it. An item with no single score is never hidden by the range.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemFilter {
    /// The task to keep; empty keeps every task.
    pub task: String,
    /// Keep only the items that are invalid.
    pub invalid_only: bool,
    /// The lowest score kept, in percent (0–100), inclusive.
    pub min_percent: f64,
    /// The highest score kept, in percent (0–100), inclusive.
    pub max_percent: f64,
}

impl Default for ItemFilter {
    /// Every item: all tasks, valid or not, 0 % to 100 %.
    fn default() -> Self {
        ItemFilter {
            task: String::new(),
            invalid_only: false,
            min_percent: 0.0,
            max_percent: 100.0,
        }
    }
}

/// How far outside a typed bound a score may be and still count as on it.
/// A bound typed in percent is divided by 100, and 0.57 is not exact in
/// binary: a score computed another way (57 × 0.01, a quotient of counts)
/// can land a bit above or below 57 / 100 while the table shows both as
/// "57.0", so a strict comparison would drop a score shown exactly at the
/// bound. 1e-12 is far above that rounding error (about 1e-16 for
/// values in 0–1) and far below any difference a table shows (0.001 %).
pub const BOUND_SLACK: f64 = 1e-12;

impl ItemsView {
    /// The indices of the rows the filter keeps, in order.
    pub fn filtered(&self, f: &ItemFilter) -> Vec<usize> {
        let (lo, hi) = (f.min_percent / 100.0, f.max_percent / 100.0);
        self.rows
            .iter()
            .enumerate()
            .filter(|(_, r)| f.task.is_empty() || r.task == f.task)
            .filter(|(_, r)| !f.invalid_only || r.invalid)
            .filter(|(_, r)| {
                r.score
                    .is_none_or(|s| s >= lo - BOUND_SLACK && s <= hi + BOUND_SLACK)
            })
            .map(|(i, _)| i)
            .collect()
    }
}

/// One item: enough for the table row and its drill-down.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemView {
    /// The item's id in its benchmark.
    pub id: String,
    /// Its task (or platform, or skill), as the filter menu names it.
    pub task: String,
    /// In 0–1; `None` when the item has no single score.
    pub score: Option<f64>,
    /// Whether the item counts as invalid (`summary` says why).
    pub invalid: bool,
    /// One line: why it is invalid, or what was found.
    pub summary: String,
    /// The drill-down: (label, text) pairs, shown as text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<(String, String)>,
    /// What to draw on the item's image, when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overlay: Option<Overlay>,
}

/// Shapes over an image, in the image's pixels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Overlay {
    /// The image's path as the results file names it.
    pub image: Option<String>,
    /// The image's width in pixels, when known.
    pub width: Option<f64>,
    /// The image's height in pixels, when known.
    pub height: Option<f64>,
    /// What to draw, in order (later on top).
    pub shapes: Vec<Shape>,
}

/// One shape of an overlay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Shape {
    /// `[x0, y0, x1, y1]`; `gt` tells ground truth from prediction.
    Box {
        /// The corners, in pixels.
        rect: [f64; 4],
        /// Ground truth (`true`) or the prediction.
        gt: bool,
    },
    /// A point, with a short label (`p0`, `p1`).
    Point {
        /// `[x, y]` in pixels.
        at: [f64; 2],
        /// Ground truth (`true`) or the prediction.
        gt: bool,
        /// The label drawn beside it.
        label: String,
    },
    /// A predicted path (EPIC-Bench's path tasks), its points in order.
    Path {
        /// Its points, `[x, y]` in pixels.
        points: Vec<[f64; 2]>,
    },
    /// A ground-truth mask as its vertical runs `[x, y0, y1)`.
    Mask {
        /// The runs, `[x, y0, y1)` in pixels.
        runs: Vec<[u32; 3]>,
    },
}

/// A file's row of the leaderboard: its columns' values, fractions in 0–1
/// except the columns listed in `plain`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeaderRow {
    /// The benchmark's name.
    pub benchmark: String,
    /// The results file it scores.
    pub file: String,
    /// The model, where the file names one.
    pub model: Option<String>,
    /// The column names.
    pub columns: Vec<String>,
    /// A value per column (`None`: not defined for this file).
    pub values: Vec<Option<f64>>,
    /// Columns that are plain numbers (VSPS, distances), not fractions.
    pub plain: Vec<usize>,
    /// The group the row is listed under (SWITCH: the model's access, as
    /// the paper's Tables 1 and 2 group their rows); `None` for a
    /// benchmark whose rows are not grouped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<RowGroup>,
}

/// A group of leaderboard rows: its heading and where it comes among the
/// groups (lower first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowGroup {
    /// Where the group comes among the groups (lower first).
    pub order: u8,
    /// The group's heading.
    pub label: String,
}

/// Rows under one heading, as a leaderboard lists them.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupedRows<'a> {
    /// `None` when no row of the board has a group (one plain list).
    pub label: Option<&'a str>,
    /// The rows under it.
    pub rows: Vec<&'a LeaderRow>,
}

/// The rows of a leaderboard under their groups, the groups in their order
/// (then by label), the rows of a group in the order given (so a sort the
/// user chose holds inside each group). When no row has a group, one
/// unlabelled list; a row without a group on a board that has groups is
/// listed last under "Not grouped". The page's leaderboard, the CLI and
/// every export list rows through this, so they group alike.
///
/// ```
/// use knoblab_score::view::{grouped, LeaderRow, RowGroup};
/// let row = |file: &str, order: u8, label: &str| LeaderRow {
///     benchmark: "SWITCH".into(), file: file.into(), model: None,
///     columns: vec![], values: vec![], plain: vec![],
///     group: Some(RowGroup { order, label: label.into() }),
/// };
/// let rows = [row("a", 1, "Open-weight models"), row("b", 0, "Proprietary / API models"), row("c", 1, "Open-weight models")];
/// let groups = grouped(&rows);
/// assert_eq!(groups[0].label, Some("Proprietary / API models"));
/// assert_eq!(groups[1].rows.iter().map(|r| r.file.as_str()).collect::<Vec<_>>(), ["a", "c"]);
/// ```
pub fn grouped(rows: &[LeaderRow]) -> Vec<GroupedRows<'_>> {
    if rows.iter().all(|r| r.group.is_none()) {
        return vec![GroupedRows {
            label: None,
            rows: rows.iter().collect(),
        }];
    }
    let mut keys: Vec<(u8, &str)> = rows
        .iter()
        .map(|r| {
            r.group
                .as_ref()
                .map_or((u8::MAX, NOT_GROUPED), |g| (g.order, g.label.as_str()))
        })
        .collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .map(|(order, label)| GroupedRows {
            label: Some(label),
            rows: rows
                .iter()
                .filter(|r| {
                    r.group
                        .as_ref()
                        .map_or((u8::MAX, NOT_GROUPED), |g| (g.order, g.label.as_str()))
                        == (order, label)
                })
                .collect(),
        })
        .collect()
}

/// A leaderboard of several files as a table (what the CLI exports): a
/// column-group row first when `column_groups` is given (its cells over
/// `run` and the columns), then per group ([`grouped`]) a heading row and
/// the group's rows, each named by its model (else its file), its cells as
/// [`LeaderRow::text`] shows them with their numbers.
pub fn board_table(
    id: &str,
    title: &str,
    rows: &[LeaderRow],
    column_groups: Option<Vec<CellView>>,
) -> TableView {
    let columns = rows.first().map_or(&[][..], |r| r.columns.as_slice());
    let mut header = vec!["run".to_string()];
    header.extend(columns.iter().cloned());
    let mut out = Vec::new();
    let mut span_rows = Vec::new();
    if let Some(groups) = column_groups {
        span_rows.push(out.len());
        out.push(groups);
    }
    for g in grouped(rows) {
        if let Some(label) = g.label {
            span_rows.push(out.len());
            let mut heading = vec![CellView::text(label)];
            heading.extend(columns.iter().map(|_| CellView::text("")));
            out.push(heading);
        }
        for r in g.rows {
            let mut row = vec![CellView::text(
                r.model.clone().unwrap_or_else(|| r.file.clone()),
            )];
            row.extend((0..r.values.len()).map(|i| CellView {
                text: r.text(i),
                value: r.values.get(i).copied().flatten(),
                pointer: None,
            }));
            out.push(row);
        }
    }
    TableView {
        id: id.into(),
        title: title.into(),
        note: None,
        header,
        rows: out,
        span_rows,
    }
}

/// The heading of rows without a group on a board that has groups.
pub const NOT_GROUPED: &str = "Not grouped";

impl LeaderRow {
    /// The leaderboard's order: by a column's value (`None`: by file
    /// name), ascending or descending, rows with no value in that column
    /// last either way. The sort is stable, so equal rows keep their order.
    pub fn sorted(rows: &[LeaderRow], column: Option<usize>, descending: bool) -> Vec<LeaderRow> {
        let mut rows = rows.to_vec();
        rows.sort_by(|a, b| {
            let order = match column {
                None => a.file.cmp(&b.file),
                Some(c) => {
                    let (x, y) = (
                        a.values.get(c).copied().flatten(),
                        b.values.get(c).copied().flatten(),
                    );
                    match (x, y) {
                        (Some(x), Some(y)) => x.total_cmp(&y),
                        (Some(_), None) => return std::cmp::Ordering::Less,
                        (None, Some(_)) => return std::cmp::Ordering::Greater,
                        (None, None) => std::cmp::Ordering::Equal,
                    }
                }
            };
            if descending {
                order.reverse()
            } else {
                order
            }
        });
        rows
    }

    /// Column `i` as tables show it: a fraction as [`percent`], a plain
    /// number with two decimals, "–" when empty.
    pub fn text(&self, i: usize) -> String {
        let v = self.values.get(i).copied().flatten();
        if self.plain.contains(&i) {
            knoblab_core::display::number(v)
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
mod tests;

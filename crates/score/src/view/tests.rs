//! Tests of `view` (kept apart so that the module reads as one idea).

use super::*;
use serde_json::json;

fn cells(texts: &[&str]) -> Vec<CellView> {
    texts.iter().map(|t| CellView::text(*t)).collect()
}

#[test]
fn column_groups_are_the_leading_headings_that_do_not_span_the_table() {
    let table = TableView {
        id: "t".into(),
        title: "t".into(),
        note: None,
        header: ["Model", "a", "b", "c"].map(String::from).to_vec(),
        rows: vec![
            cells(&["", "Group A", "", "B"]),
            cells(&["Open-weight models", "", "", ""]),
            cells(&["m1", "1", "2", "3"]),
            cells(&["Proprietary", "", "", ""]),
            cells(&["m2", "4", "5", "6"]),
        ],
        span_rows: vec![0, 1, 3],
    };
    assert_eq!(table.spans(0), [("", 1), ("Group A", 2), ("B", 1)]);
    assert_eq!(table.column_group_rows(), [0]);
    let no_groups = TableView {
        rows: table.rows[1..].to_vec(),
        span_rows: vec![0, 2],
        ..table
    };
    assert!(no_groups.column_group_rows().is_empty());
}

fn item(task: &str, score: Option<f64>, invalid: bool) -> ItemView {
    ItemView {
        id: format!("{task}-{score:?}"),
        task: task.into(),
        score,
        invalid,
        summary: String::new(),
        details: Vec::new(),
        overlay: None,
    }
}

#[test]
fn the_item_filter_keeps_a_task_the_invalid_ones_and_a_score_range() {
    let items = ItemsView {
        tasks: vec!["a".into(), "b".into()],
        rows: vec![
            item("a", Some(0.2), false),
            item("b", Some(0.9), true),
            item("a", None, true),
            item("b", Some(0.5), false),
        ],
        on_demand: false,
    };
    assert_eq!(items.filtered(&ItemFilter::default()), [0, 1, 2, 3]);
    let a = ItemFilter {
        task: "a".into(),
        ..ItemFilter::default()
    };
    assert_eq!(items.filtered(&a), [0, 2]);
    let invalid = ItemFilter {
        invalid_only: true,
        ..ItemFilter::default()
    };
    assert_eq!(items.filtered(&invalid), [1, 2]);
    // The range hides scored items outside it, never unscored ones.
    let mid = ItemFilter {
        min_percent: 30.0,
        max_percent: 60.0,
        ..ItemFilter::default()
    };
    assert_eq!(items.filtered(&mid), [2, 3]);
}

#[test]
fn a_score_shown_at_a_typed_bound_is_inside_it() {
    // 0.57 computed as a quotient of counts is not 57.0 / 100.0 to the
    // last bit; the slack keeps it, as the table shows it as 57.0.
    let score = 57.0 * 0.01;
    assert_ne!(score, 57.0 / 100.0);
    let items = ItemsView {
        tasks: Vec::new(),
        rows: vec![item("t", Some(score), false)],
        on_demand: false,
    };
    for (min, max) in [(57.0, 100.0), (0.0, 57.0)] {
        let f = ItemFilter {
            min_percent: min,
            max_percent: max,
            ..ItemFilter::default()
        };
        assert_eq!(items.filtered(&f), [0], "{min}..{max}");
    }
    let above = ItemFilter {
        min_percent: 57.001,
        ..ItemFilter::default()
    };
    assert!(items.filtered(&above).is_empty());
}

fn row(file: &str, v: Option<f64>) -> LeaderRow {
    LeaderRow {
        benchmark: "b".into(),
        file: file.into(),
        model: None,
        columns: vec!["x".into()],
        values: vec![v],
        plain: Vec::new(),
        group: None,
    }
}

#[test]
fn the_leaderboard_sorts_by_a_column_with_empty_values_last_either_way() {
    let rows = [
        row("c", Some(0.5)),
        row("a", None),
        row("b", Some(0.9)),
        row("d", Some(0.1)),
    ];
    let files = |rs: Vec<LeaderRow>| rs.into_iter().map(|r| r.file).collect::<Vec<_>>();
    assert_eq!(
        files(LeaderRow::sorted(&rows, None, false)),
        ["a", "b", "c", "d"]
    );
    assert_eq!(
        files(LeaderRow::sorted(&rows, None, true)),
        ["d", "c", "b", "a"]
    );
    assert_eq!(
        files(LeaderRow::sorted(&rows, Some(0), true)),
        ["b", "c", "d", "a"]
    );
    assert_eq!(
        files(LeaderRow::sorted(&rows, Some(0), false)),
        ["d", "c", "b", "a"]
    );
    // A column past the row's values counts as empty: the order stays.
    assert_eq!(
        files(LeaderRow::sorted(&rows, Some(5), false)),
        ["c", "a", "b", "d"]
    );
}

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

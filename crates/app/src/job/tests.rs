//! Tests of `job` (kept apart so that the module reads as one idea).

use super::*;
use knoblab_score::view::{ItemsView, LeaderRow};

fn report(benchmark: &str, file: &str, columns: usize) -> ReportView {
    ReportView {
        benchmark: benchmark.into(),
        file: file.into(),
        detected: String::new(),
        notes: Vec::new(),
        unused: Vec::new(),
        tables: Vec::new(),
        charts: Vec::new(),
        items: ItemsView::default(),
        row: LeaderRow {
            benchmark: benchmark.into(),
            file: file.into(),
            model: None,
            columns: (0..columns).map(|i| format!("c{i}")).collect(),
            values: vec![None; columns],
            plain: Vec::new(),
            group: None,
        },
    }
}

#[test]
fn leaderboards_gather_rows_by_benchmark_in_report_order() {
    let reports = [
        report("SWITCH", "s1", 2),
        report("EPIC-Bench", "e1", 3),
        report("SWITCH", "video-only", 0),
        report("SWITCH", "s2", 2),
    ];
    let boards = leaderboards(&reports);
    let got: Vec<(&str, Vec<&str>)> = boards
        .iter()
        .map(|b| {
            (
                b.benchmark.as_str(),
                b.rows.iter().map(|r| r.file.as_str()).collect(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [("SWITCH", vec!["s1", "s2"]), ("EPIC-Bench", vec!["e1"])]
    );
}

#[test]
fn a_job_with_no_results_file_says_what_was_dropped() {
    assert_eq!(no_results_message(&[]), "no file was dropped");
    let job = Job::from_files(
        vec![InputFile {
            path: "notes.txt".into(),
            bytes: b"hello".to_vec(),
        }],
        JobOptions::default(),
    );
    let outcome = run(&job, &mut |_| {});
    assert!(outcome.reports.is_empty());
    assert_eq!(outcome.failures.len(), 1);
    assert_eq!(outcome.failures[0].message, outcome.files[0].label);
}

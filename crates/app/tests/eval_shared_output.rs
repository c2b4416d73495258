//! One output file, several writers (shards, Ray tasks): each episode is
//! in the file once whatever the order of their appends, a dead writer's
//! torn line is cut before the next line goes on, and a run can play a
//! selection of its plan's items.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use knoblab_app::run::{
    evaluate, prepare_output, read_finished, EvalError, EvalOptions, EvalPlan, Output, RunArgs,
    Stop,
};
use knoblab_eval::vlm::EpisodeRecord;

const KETTLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/kettle");

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("knoblab-shared-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The oracle on every kettle task, twice: no server needed.
fn oracle_plan() -> (RunArgs, EvalPlan) {
    let args = RunArgs {
        bundles: vec![KETTLE.into()],
        agent: "oracle".into(),
        repeats: 2,
        ..RunArgs::default()
    };
    let plan = args.plan().unwrap();
    (args, plan)
}

fn options(args: &RunArgs, plan: &EvalPlan, select: Option<Vec<usize>>) -> EvalOptions {
    EvalOptions {
        select,
        concurrency: 1,
        ..args.options(plan)
    }
}

fn lines(path: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.ends_with('\n'));
    text.lines().map(str::to_string).collect()
}

#[test]
fn a_selection_plays_only_its_items_and_a_wrong_position_is_refused() {
    let dir = temp_dir("select");
    let out = dir.join("run.jsonl");
    let (args, plan) = oracle_plan();
    let total = plan.spec.items.len();
    assert!(total >= 4);
    let outcome = evaluate(
        &plan,
        &options(&args, &plan, Some(vec![1, 3])),
        &out,
        &|_| {},
        &AtomicBool::new(false),
    )
    .unwrap();
    assert_eq!(outcome.ran, 2);
    let items: Vec<String> = read_finished(&out)
        .unwrap()
        .records
        .iter()
        .map(|r| r.item.clone())
        .collect();
    assert_eq!(
        items,
        vec![plan.spec.items[1].key(), plan.spec.items[3].key()]
    );
    assert_eq!(outcome.left, total - 2);
    assert_eq!(outcome.stop, Stop::Complete);

    let e = evaluate(
        &plan,
        &options(&args, &plan, Some(vec![total])),
        &out,
        &|_| {},
        &AtomicBool::new(false),
    )
    .unwrap_err();
    assert!(matches!(e, EvalError::Option { .. }));
    assert!(e
        .to_string()
        .contains(&format!("item {total} is not in the plan")));

    // The rest, selected again with what is done: only the rest is played.
    let outcome = evaluate(
        &plan,
        &options(&args, &plan, Some((0..total).collect())),
        &out,
        &|_| {},
        &AtomicBool::new(false),
    )
    .unwrap();
    assert_eq!(outcome.ran, total - 2);
    assert_eq!(outcome.left, 0);
    assert_eq!(lines(&out).len(), total);
}

/// Every record of a whole oracle run, to append again. `name` keeps the
/// run's folder apart from other tests of this process, which run at once.
fn records(name: &str) -> (EvalPlan, Vec<EpisodeRecord>) {
    let dir = temp_dir(&format!("source-{name}"));
    let out = dir.join("run.jsonl");
    let (args, plan) = oracle_plan();
    let outcome = evaluate(
        &plan,
        &options(&args, &plan, None),
        &out,
        &|_| {},
        &AtomicBool::new(false),
    )
    .unwrap();
    (plan, outcome.records)
}

#[test]
fn writers_appending_the_same_episodes_at_once_leave_each_once() {
    let (plan, records) = records("writers");
    let dir = temp_dir("writers");
    let out = dir.join("run.jsonl");
    prepare_output(&plan, &out).unwrap();
    // Four writers, each with its own open file (as four processes have),
    // each appending every record, in a different order.
    let written: Vec<usize> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|w| {
                let (records, out) = (&records, &out);
                s.spawn(move || {
                    let finished = read_finished(out).unwrap();
                    let mut output = Output::open(out, &finished, false).unwrap();
                    let mut order: Vec<&EpisodeRecord> = records.iter().collect();
                    order.rotate_left(w % records.len());
                    if w % 2 == 1 {
                        order.reverse();
                    }
                    order
                        .into_iter()
                        .filter(|r| output.append(r).unwrap())
                        .count()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(written.iter().sum::<usize>(), records.len(), "{written:?}");
    let finished = read_finished(&out).unwrap();
    assert!(finished.notes.is_empty(), "{:?}", finished.notes);
    let lines = lines(&out);
    assert_eq!(lines.len(), records.len());
    let items: BTreeSet<String> = finished.records.iter().map(|r| r.item.clone()).collect();
    let planned: BTreeSet<String> = plan.spec.items.iter().map(|i| i.key()).collect();
    assert_eq!(items, planned);
}

#[test]
fn a_dead_writers_torn_line_is_cut_before_the_next_line() {
    let (plan, records) = records("torn");
    let dir = temp_dir("torn");
    let out = dir.join("run.jsonl");
    let finished = prepare_output(&plan, &out).unwrap();
    let mut first = Output::open(&out, &finished, false).unwrap();
    assert!(first.append(&records[0]).unwrap());
    // Another writer died halfway through its line.
    let line = serde_json::to_string(&records[1]).unwrap();
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().append(true).open(&out).unwrap();
        f.write_all(&line.as_bytes()[..line.len() / 2]).unwrap();
    }
    assert!(first.append(&records[2]).unwrap());
    let notes = first.take_notes();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("torn last line"), "{}", notes[0]);
    let items: Vec<String> = read_finished(&out)
        .unwrap()
        .records
        .iter()
        .map(|r| r.item.clone())
        .collect();
    assert_eq!(
        items,
        vec![records[0].item.clone(), records[2].item.clone()]
    );
    // The torn episode is written whole by whoever plays it again.
    assert!(first.append(&records[1]).unwrap());
    assert_eq!(lines(&out).len(), 3);
}

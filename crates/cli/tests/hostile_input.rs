//! The input layer (issue #23), tested where each rule lives and through
//! the `knoblab` binary as a user runs it: files that are not files, work
//! bounded by the input, numbers that cannot lie, nothing dropped
//! silently, a closed pipe, control characters, encodings, duplicate keys,
//! and outputs that never overwrite an input. Every run of the binary has a
//! deadline, so a regression that blocks fails the test instead of hanging
//! the suite.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use knoblab_core::bundle::check_files_in_memory;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures");
const KETTLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/kettle");
const EPIC_GT: &str = concat!(
    concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
    "/tests/fixtures/official/epic/dataset/annotation"
);

/// How long one run of the binary may take before it counts as hung.
const DEADLINE: Duration = Duration::from_secs(60);

/// Runs `knoblab` with a deadline; returns its exit code, stdout, stderr.
fn knoblab(args: &[&str]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_knoblab"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stdout.read_to_end(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stderr.read_to_end(&mut s);
        s
    });
    let code = wait(&mut child, args);
    (
        code,
        String::from_utf8_lossy(&out.join().unwrap()).into_owned(),
        String::from_utf8_lossy(&err.join().unwrap()).into_owned(),
    )
}

fn wait(child: &mut std::process::Child, args: &[&str]) -> i32 {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code().unwrap_or(-1);
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            panic!("knoblab {args:?} did not finish within {DEADLINE:?} (it blocked)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("hostile_input")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn mkfifo(path: &Path) -> bool {
    Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success())
}

/// A copy of the kettle bundle folder.
fn kettle_copy(dir: &Path) -> PathBuf {
    let to = dir.join("kettle");
    copy_dir(Path::new(KETTLE), &to);
    to
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// One oracle episode per kettle task, as `knoblab run` writes them.
fn kettle_trajectories(dir: &Path) -> Vec<String> {
    let out = dir.join("oracle.jsonl");
    let (code, _, err) = knoblab(&["run", KETTLE, "--agent", "oracle", "--out", &s(&out)]);
    assert_eq!(code, 0, "{err}");
    std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

// ---- files that are not files ------------------------------------------------

#[test]
fn a_fifo_or_a_device_is_named_and_never_read() {
    let dir = scratch("fifo");
    let fifo = dir.join("pipe.jsonl");
    if !mkfifo(&fifo) {
        eprintln!("mkfifo is not available; skipping the FIFO cases");
        return;
    }
    let fifo = s(&fifo);
    let epic_pred = fifo.clone();
    let switch_gt = format!("{FIXTURES}/switch/gt");
    let eval_out = s(&dir.join("eval.jsonl"));
    for args in [
        vec!["metrics", &fifo, "--bundles", KETTLE],
        vec!["score", "epic", "--gt", EPIC_GT, "--pred", &epic_pred],
        vec!["score", "switch", "--gt", &switch_gt, "--pred", &fifo],
        vec!["score", "switch", "--video", &fifo],
        vec!["derive", &fifo, "--components", "a"],
        vec!["validate", &fifo],
        // `eval` reads its output back before appending (a resume), and its
        // library index.
        vec!["eval", KETTLE, "--agent", "oracle", "--out", &fifo],
        vec![
            "eval",
            "--library",
            &fifo,
            "--agent",
            "oracle",
            "--out",
            &eval_out,
        ],
    ] {
        let (code, out, err) = knoblab(&args);
        assert_ne!(code, 0, "{args:?}");
        assert!(
            (err + &out).contains("a FIFO (named pipe)"),
            "{args:?} should name the FIFO"
        );
    }
    for zero in ["/dev/zero", "/dev//zero", "/dev/./zero", "/dev/../dev/zero"] {
        let (code, _, err) = knoblab(&["metrics", zero, "--bundles", KETTLE]);
        assert_eq!(code, 2);
        assert!(
            err.contains("is a character device, not a regular file"),
            "{err}"
        );
    }
}

#[test]
fn a_fifo_inside_a_bundle_folder_is_named() {
    let dir = scratch("fifo_bundle");
    let bundle = kettle_copy(&dir);
    std::fs::remove_file(bundle.join("ssm.json")).unwrap();
    if !mkfifo(&bundle.join("ssm.json")) {
        return;
    }
    let (code, out, _) = knoblab(&["validate", &s(&bundle)]);
    assert_eq!(code, 1);
    assert!(
        out.contains("ssm.json") && out.contains("is a FIFO (named pipe)"),
        "{out}"
    );
}

#[test]
fn ground_truth_paths_stay_under_the_root_and_each_file_is_read_once() {
    let dir = scratch("gt_paths");
    let record = |gt: &str| {
        serde_json::json!({
            "task_category": ["TargetLocalization"], "task_type": ["Category"],
            "format_type": ["bbox"], "coordinate_system": ["auto"],
            "formatted_response_localization": [[100, 60, 180, 140]],
            "formatted_response_count": [1],
            "formatted_response_path": ["Not Required"],
            "formatted_response_binary": ["Not Required"],
            "ground_truth": {"gt_json_path": [gt]},
        })
        .to_string()
    };
    let real = "dataset/annotation/EPIC_Bench/TargetLocalization/BasicAttributes/Category/tl_cat_001/tl_cat_001_mask_rle.json";
    let mut lines = vec![];
    // 300 spellings of /dev/zero, absolute and climbing out of --gt.
    for i in 0..300 {
        let slashes = "/".repeat(1 + i % 5);
        let ups = "../".repeat(1 + i % 7);
        lines.push(record(&match i % 3 {
            0 => format!("{slashes}dev{slashes}zero"),
            1 => format!("{ups}dev/zero"),
            _ => format!("EPIC_Bench/{ups}{ups}dev/./zero"),
        }));
    }
    for spelling in [
        real.to_string(),
        format!("./{real}"),
        real.replace('/', "//"),
    ] {
        lines.push(record(&spelling));
    }
    let pred = dir.join("pred.jsonl");
    std::fs::write(&pred, lines.join("\n") + "\n").unwrap();
    let started = Instant::now();
    let (code, out, err) = knoblab(&[
        "score",
        "epic",
        "--gt",
        EPIC_GT,
        "--pred",
        &s(&pred),
        "--json",
    ]);
    eprintln!("303 records, 300 naming /dev/zero: {:?}", started.elapsed());
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let input = &doc["input"];
    assert_eq!(input["gt_files_read"], 1, "{input}");
    let refused = input["gt_refused"].as_array().unwrap();
    assert!(!refused.is_empty());
    assert!(
        refused.iter().all(|r| {
            let r = r.as_str().unwrap();
            r.contains("is absolute") || r.contains("leaves its folder")
        }),
        "{refused:?}"
    );
    assert!(err.contains("ground-truth path(s) refused"), "{err}");
}

// ---- work bounded by the input ----------------------------------------------

/// The kettle bundle's files in memory, with `ssm.json` and `tasks.json`
/// replaced.
fn kettle_with(ssm: String, tasks: String) -> Vec<(String, Vec<u8>)> {
    let mut files = vec![
        ("ssm.json".to_string(), ssm.into_bytes()),
        ("tasks.json".to_string(), tasks.into_bytes()),
    ];
    for name in ["manifest.json", "views.json"] {
        files.push((
            name.into(),
            std::fs::read(Path::new(KETTLE).join(name)).unwrap(),
        ));
    }
    for entry in std::fs::read_dir(Path::new(KETTLE).join("views")).unwrap() {
        let entry = entry.unwrap();
        let name = format!("views/{}", entry.file_name().to_string_lossy());
        files.push((name, std::fs::read(entry.path()).unwrap()));
    }
    files
}

/// A ring of `n` states, each with one push to the next.
fn ring(n: usize) -> String {
    let mut states = serde_json::Map::new();
    for i in 0..n {
        states.insert(
            format!("S{i}"),
            serde_json::json!({"description": "", "on": {"knob": [{
                "next_state": format!("S{}", (i + 1) % n),
                "transition_description": "",
                "bbox": [{"coordinate": [852, 955, 184, 76, 1209, 1369], "view": "front"}],
                "atomic_action": "push", "parameter": ["1"]
            }]}}),
        );
    }
    serde_json::json!({"name": "Ring", "path": "ring", "initial_state": "S0", "states": states})
        .to_string()
}

const RING_TASKS: &str =
    r#"{"tasks": [{"id": "t", "goals": [{"state": "S1", "instruction": "Turn the knob."}]}]}"#;

#[test]
fn a_100000_state_ring_validates_in_linear_time() {
    let n = knoblab_core::input::limits::MAX_STATES;
    let files = kettle_with(ring(n), RING_TASKS.into());
    let started = Instant::now();
    let checked = check_files_in_memory("ring", files);
    let took = started.elapsed();
    eprintln!("validation of a {n}-state ring: {took:?}");
    let bundle = checked.bundle.as_ref().unwrap_or_else(|| {
        panic!(
            "{:?}",
            checked.diagnostics.iter().take(5).collect::<Vec<_>>()
        )
    });
    assert_eq!(bundle.ssm.states.len(), n);
    assert!(
        !checked
            .diagnostics
            .iter()
            .any(|d| d.message.contains("get stuck")),
        "a ring has no stuck state"
    );
}

#[test]
fn a_machine_over_the_state_cap_is_refused_and_stuck_states_are_found() {
    let n = knoblab_core::input::limits::MAX_STATES + 1;
    let checked = check_files_in_memory("big", kettle_with(ring(n), RING_TASKS.into()));
    assert!(checked.bundle.is_none());
    assert!(
        checked.diagnostics.iter().any(|d| d
            .message
            .contains(&format!("has {n} states; at most 100000"))),
        "{:?}",
        checked.diagnostics.first()
    );
    // A line of 20,000 states: every state but the initial one is stuck,
    // found by one backward search.
    let line = ring(20_000).replace("\"next_state\":\"S0\"", "\"next_state\":\"S19999\"");
    let checked = check_files_in_memory("line", kettle_with(line, RING_TASKS.into()));
    let stuck = checked
        .diagnostics
        .iter()
        .filter(|d| d.message.contains("get stuck"))
        .count();
    assert!(
        stuck >= 999,
        "{stuck} stuck warnings (the report keeps the first 1000 problems)"
    );
}

#[test]
fn lambda_past_its_cap_is_refused_before_running() {
    let dir = scratch("lambda");
    let out = dir.join("out.jsonl");
    let (code, _, err) = knoblab(&[
        "run",
        KETTLE,
        "--agent",
        "oracle",
        "--lambda",
        "4294967295",
        "--out",
        &s(&out),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("lambda = 4294967295 is outside its domain")
            && err.contains("a whole number from 1 to 100"),
        "{err}"
    );
    assert!(!out.exists());
}

/// λ below its domain (issue #47): `--lambda 0` would end every episode
/// before its first step; it is refused, naming the domain, and nothing is
/// written.
#[test]
fn lambda_zero_is_refused_before_running() {
    let dir = scratch("lambda0");
    let out = dir.join("out.jsonl");
    let (code, _, err) = knoblab(&[
        "run",
        KETTLE,
        "--agent",
        "oracle",
        "--lambda",
        "0",
        "--out",
        &s(&out),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("lambda = 0 is outside its domain")
            && err.contains("a whole number from 1 to 100"),
        "{err}"
    );
    assert!(!out.exists());
}

// ---- numbers that can be trusted ----------------------------------------------

fn metrics_of(dir: &Path, name: &str, lines: &[String]) -> (i32, String, String) {
    let file = dir.join(name);
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    knoblab(&["metrics", &s(&file), "--bundles", KETTLE, "--json"])
}

fn edited(line: &str, edit: impl Fn(&mut serde_json::Value)) -> String {
    let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
    edit(&mut v);
    v.to_string()
}

#[test]
fn metrics_recompute_every_counter_and_refuse_a_record_that_disagrees() {
    let dir = scratch("counters");
    let lines = kettle_trajectories(&dir);
    let (code, _, err) = metrics_of(&dir, "ok.jsonl", &lines);
    assert_eq!(code, 0, "{err}");

    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "five_of_one",
            Box::new(|v| {
                v["goals_reached"] = 5.into();
                v["goals_total"] = 1.into();
            }),
            "`goals_reached` is 5, but its steps reach 1 of 1 goal(s)",
        ),
        (
            "no_steps",
            Box::new(|v| v["steps"] = serde_json::json!([])),
            "`steps` is empty",
        ),
        (
            "total",
            Box::new(|v| v["goals_total"] = 3.into()),
            "`goals_total` is 3, but the task has 1 goal(s)",
        ),
        (
            "solved",
            Box::new(|v| {
                v["terminated"] = false.into();
            }),
            "`terminated` is false",
        ),
    ];
    for (name, edit, expected) in cases {
        let mut bad = lines.clone();
        bad[0] = edited(&bad[0], &edit);
        let (code, out, err) = metrics_of(&dir, &format!("{name}.jsonl"), &bad);
        assert_eq!(code, 2, "{name}: {out}");
        assert!(err.contains(expected), "{name}: {err}");
        assert!(err.contains("line 1"), "{name} names the line: {err}");
    }
}

#[test]
fn copies_of_an_episode_and_empty_files_are_refused() {
    let dir = scratch("copies");
    let lines = kettle_trajectories(&dir);
    let fifty: Vec<String> = std::iter::repeat_n(lines[0].clone(), 50).collect();
    let (code, _, err) = metrics_of(&dir, "fifty.jsonl", &fifty);
    assert_eq!(code, 2);
    assert!(err.contains(":2: a copy of line 1"), "{err}");

    let empty = dir.join("empty.jsonl");
    std::fs::write(&empty, "\n  \n").unwrap();
    for file in [s(&empty), "/dev/null".to_string()] {
        let (code, out, err) = knoblab(&["metrics", &file, "--bundles", KETTLE]);
        assert_eq!(code, 2, "{file}: {out}");
        assert!(
            err.contains("is empty") || err.contains("not a regular file"),
            "{file}: {err}"
        );
    }
    let video = dir.join("video.jsonl");
    std::fs::write(&video, "").unwrap();
    let (code, _, err) = knoblab(&["score", "switch", "--video", &s(&video)]);
    assert_eq!(code, 2);
    assert!(
        err.contains("is empty; expected video judge outputs"),
        "{err}"
    );
}

/// Repeats that `knoblab eval --repeats N` writes are N episodes (each
/// record names its batch item, `bundle/task#repeat`), even when their
/// steps are the same; the same item twice is one episode given twice.
#[test]
fn eval_repeats_are_kept_and_copies_of_one_repeat_are_refused() {
    let dir = scratch("repeats");
    let out = dir.join("eval.jsonl");
    let (code, _, err) = knoblab(&[
        "eval",
        KETTLE,
        "--agent",
        "oracle",
        "--repeats",
        "3",
        "--out",
        &s(&out),
    ]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<String> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let tasks = kettle_trajectories(&dir).len();
    assert_eq!(lines.len(), 3 * tasks, "one record per task and repeat");
    let (code, doc, err) = knoblab(&["metrics", &s(&out), "--bundles", KETTLE, "--json"]);
    assert_eq!(code, 0, "repeats are not copies: {err}");
    let doc: serde_json::Value = serde_json::from_str(&doc).unwrap();
    assert_eq!(doc["episodes"], serde_json::json!(3 * tasks), "{doc}");

    // Two repeats with the very same steps (only the item differs) are two
    // episodes.
    let item = |line: &str| -> String {
        serde_json::from_str::<serde_json::Value>(line).unwrap()["item"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // Records are appended as episodes end, in any order: take repeat 0.
    let base = lines
        .iter()
        .find(|l| item(l).ends_with("#0"))
        .expect("a record of repeat 0")
        .clone();
    let first = item(&base);
    let twin = edited(&base, |v| {
        v["item"] = first.replace("#0", "#7").into();
    });
    let (code, doc, err) = metrics_of(&dir, "twins.jsonl", &[base.clone(), twin]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&doc).unwrap();
    assert_eq!(doc["episodes"], serde_json::json!(2), "{doc}");

    // The same item twice is refused with both lines, whether the lines are
    // equal or not.
    let (code, _, err) = metrics_of(&dir, "copy.jsonl", &[base.clone(), base.clone()]);
    assert_eq!(code, 2);
    assert!(
        err.contains(":2: episode") && err.contains("already recorded at line 1"),
        "{err}"
    );
    let reworded = edited(&base, |v| v["cost"] = 0.5.into());
    let (code, _, err) = metrics_of(&dir, "same_item.jsonl", &[base.clone(), reworded]);
    assert_eq!(code, 2);
    assert!(err.contains(&first) && err.contains("line 1"), "{err}");
}

// ---- nothing dropped silently -----------------------------------------------

#[test]
fn a_corrupt_epic_line_and_copies_of_a_sample_are_reported_by_line() {
    let dir = scratch("epic_lines");
    let raw = std::fs::read_to_string(format!(
        "{FIXTURES}/official/epic/raw/Qwen3-VL/probe-q3.jsonl"
    ))
    .unwrap();
    let first = raw.lines().next().unwrap();
    let mut text = format!("{first}\n{{\"response\": broken\n");
    for _ in 0..100 {
        text.push_str(first);
        text.push('\n');
    }
    let pred = dir.join("Qwen3-VL").join("pred.jsonl");
    std::fs::create_dir_all(pred.parent().unwrap()).unwrap();
    std::fs::write(&pred, text).unwrap();
    let (code, out, err) = knoblab(&[
        "score",
        "epic",
        "--gt",
        EPIC_GT,
        "--pred",
        &s(&pred),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("1 line(s) skipped") && err.contains("line 2 (not valid JSON"),
        "{err}"
    );
    assert!(err.contains("100 record(s) repeat a sample"), "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["input"]["skipped_lines"][0]["line"], 2);
    assert_eq!(doc["input"]["duplicates"].as_array().unwrap().len(), 100);
    assert_eq!(doc["input"]["duplicates"][0]["first"], 1);
}

// ---- output ------------------------------------------------------------------

#[test]
fn a_closed_pipe_ends_the_program_quietly() {
    // Enough output to fill any pipe buffer: the kettle validated 3000 times.
    let many: Vec<&str> = std::iter::repeat_n(KETTLE, 3000).collect();
    let mut args = vec!["validate"];
    args.extend(&many);
    // `| head -c1`: one byte read, then the pipe closed.
    let mut child = Command::new(env!("CARGO_BIN_EXE_knoblab"))
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut one = [0u8; 1];
    stdout.read_exact(&mut one).unwrap();
    drop(stdout);
    let mut stderr = child.stderr.take().unwrap();
    let code = wait(&mut child, &["validate", "…"]);
    let mut err = String::new();
    stderr.read_to_string(&mut err).unwrap();
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err, "");

    // A pipe closed before anything is written, for every subcommand that
    // prints.
    let switch_gt = format!("{FIXTURES}/switch/gt");
    let switch_pred = format!("{FIXTURES}/switch/pred.jsonl");
    let ucsm = format!("{FIXTURES}/vgebench-kettle/ucsm.json");
    for args in [
        vec!["validate", KETTLE],
        vec![
            "score",
            "switch",
            "--gt",
            &switch_gt,
            "--pred",
            &switch_pred,
        ],
        vec![
            "derive",
            &ucsm,
            "--parts",
            concat!(
                concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
                "/tests/fixtures/kettle-parts.json"
            ),
        ],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_knoblab"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let mut stderr = child.stderr.take().unwrap();
        let code = wait(&mut child, &args);
        let mut err = String::new();
        stderr.read_to_string(&mut err).unwrap();
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(code == 0 || code == 1, "{args:?}: exit {code}: {err}");
    }
}

#[test]
fn control_characters_from_a_bundle_are_escaped() {
    let dir = scratch("escapes");
    let bundle = kettle_copy(&dir);
    let manifest = bundle.join("manifest.json");
    let text = std::fs::read_to_string(&manifest)
        .unwrap()
        .replace("\"kettle-0001\"", "\"kettle\\u001b[2J\\rFAKE OK\"");
    std::fs::write(&manifest, text).unwrap();
    let (_, out, _) = knoblab(&["validate", &s(&bundle)]);
    assert!(!out.contains('\u{1b}') && !out.contains('\r'), "{out:?}");
    assert!(out.contains("kettle\\u{1b}[2J\\u{d}FAKE OK"), "{out}");
}

/// `run` prints task ids from the bundle: escaped as `validate` does
/// (issue #47), never sent raw to the terminal.
#[test]
fn run_escapes_control_characters_from_a_bundle() {
    let dir = scratch("run-escapes");
    let bundle = kettle_copy(&dir);
    let tasks = bundle.join("tasks.json");
    let text = std::fs::read_to_string(&tasks)
        .unwrap()
        .replace("\"boil\"", "\"boil\\u001b[2J\\rFAKE\"");
    std::fs::write(&tasks, text).unwrap();
    let out = dir.join("out.jsonl");
    let (code, stdout, err) =
        knoblab(&["run", &s(&bundle), "--agent", "oracle", "--out", &s(&out)]);
    assert_eq!(code, 0, "{err}");
    assert!(
        !stdout.contains('\u{1b}') && !stdout.contains('\r'),
        "{stdout:?}"
    );
    assert!(stdout.contains("boil\\u{1b}[2J\\u{d}FAKE: "), "{stdout}");
}

/// `run` over an older results file (issue #47): the old file is replaced
/// whole, never truncated in place, so a run killed as it starts writing
/// leaves the old results or a whole first line. Held open from before the
/// run, the old file still reads as it was: it was replaced by a rename,
/// not written over.
#[test]
fn run_replaces_an_older_results_file_whole() {
    let dir = scratch("run-replace");
    let out = dir.join("out.jsonl");
    std::fs::write(&out, "old results\n").unwrap();
    let mut held = std::fs::File::open(&out).unwrap();
    let (code, _, err) = knoblab(&["run", KETTLE, "--agent", "oracle", "--out", &s(&out)]);
    assert_eq!(code, 0, "{err}");
    let mut old = String::new();
    std::io::Read::read_to_string(&mut held, &mut old).unwrap();
    assert_eq!(old, "old results\n");
    let new = std::fs::read_to_string(&out).unwrap();
    assert_eq!(new.lines().count(), 3, "{new}");
    assert!(
        new.lines().all(|l| l.starts_with('{') && l.ends_with('}')),
        "{new}"
    );
    // No temporary file is left beside it.
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("out.jsonl")]);
}

// ---- encodings and duplicate keys -------------------------------------------

#[test]
fn a_bom_is_accepted_and_utf16_is_named_by_every_json_reader() {
    let dir = scratch("encodings");
    let bundle = kettle_copy(&dir);
    let ssm = std::fs::read(bundle.join("ssm.json")).unwrap();
    let mut with_bom = b"\xEF\xBB\xBF".to_vec();
    with_bom.extend(&ssm);
    std::fs::write(bundle.join("ssm.json"), &with_bom).unwrap();
    let (code, out, _) = knoblab(&["validate", &s(&bundle)]);
    assert_eq!(code, 0, "{out}");

    let mut utf16 = vec![0xFF, 0xFE];
    for unit in String::from_utf8(ssm.clone()).unwrap().encode_utf16() {
        utf16.extend(unit.to_le_bytes());
    }
    std::fs::write(bundle.join("ssm.json"), &utf16).unwrap();
    let (code, out, _) = knoblab(&["validate", &s(&bundle)]);
    assert_eq!(code, 1);
    assert!(
        out.contains("ssm.json: the text is UTF-16 LE (byte-order mark FF FE); save it as UTF-8"),
        "{out}"
    );

    // derive reads a UCSM with a BOM, and names UTF-16.
    let ucsm = dir.join("ucsm.json");
    std::fs::write(&ucsm, &with_bom).unwrap();
    let (code, _, err) = knoblab(&["derive", &s(&ucsm), "--components", "power_button"]);
    assert_eq!(code, 0, "a UCSM with a BOM derives: {err}");
    std::fs::write(&ucsm, &utf16).unwrap();
    let (code, _, err) = knoblab(&["derive", &s(&ucsm), "--components", "power_button"]);
    assert_eq!(code, 2);
    assert!(err.contains("UTF-16 LE"), "{err}");

    // A trajectory file in UTF-16.
    let traj = dir.join("t.jsonl");
    std::fs::write(&traj, &utf16).unwrap();
    let (code, _, err) = knoblab(&["metrics", &s(&traj), "--bundles", KETTLE]);
    assert_eq!(code, 2);
    assert!(err.contains("UTF-16 LE"), "{err}");
}

#[test]
fn two_states_of_one_name_are_refused_with_both_lines() {
    let dir = scratch("duplicate_keys");
    let bundle = kettle_copy(&dir);
    let ssm = std::fs::read_to_string(bundle.join("ssm.json")).unwrap();
    let doubled = ssm.replacen(
        "\"states\": {",
        "\"states\": {\n    \"Standby\": {\"on\": {}},",
        1,
    );
    std::fs::write(bundle.join("ssm.json"), doubled).unwrap();
    let (code, out, _) = knoblab(&["validate", &s(&bundle)]);
    assert_eq!(code, 1);
    assert!(
        out.contains("the key \"Standby\" appears twice in one object, at line 6"),
        "{out}"
    );
}

// ---- writes --------------------------------------------------------------------

#[test]
fn an_output_never_overwrites_an_input() {
    let dir = scratch("writes");
    let bundle = kettle_copy(&dir);
    let ssm = bundle.join("ssm.json");
    let before = std::fs::read(&ssm).unwrap();
    let (code, _, err) = knoblab(&["run", &s(&bundle), "--agent", "oracle", "--out", &s(&ssm)]);
    assert_eq!(code, 2);
    assert!(err.contains("an output never overwrites an input"), "{err}");
    assert_eq!(std::fs::read(&ssm).unwrap(), before);

    let ucsm = dir.join("ucsm.json");
    std::fs::copy(format!("{FIXTURES}/vgebench-kettle/ucsm.json"), &ucsm).unwrap();
    let before = std::fs::read(&ucsm).unwrap();
    let spelt = dir.join(".").join("ucsm.json");
    let (code, _, err) = knoblab(&[
        "derive",
        &s(&ucsm),
        "--components",
        "power_button",
        "--out",
        &s(&spelt),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is the input"), "{err}");
    assert_eq!(std::fs::read(&ucsm).unwrap(), before);
}

#[test]
fn an_epic_path_at_the_points_cap_is_scored_and_one_past_it_is_not() {
    let dir = scratch("path_cap");
    let cap = knoblab_core::input::limits::MAX_PATH_POINTS;
    let record = |n: usize| {
        let points: Vec<[u32; 2]> = (0..n)
            .map(|i| [150 + (i % 20) as u32, 100 + (i % 137) as u32])
            .collect();
        serde_json::json!({
            "task_category": ["Navigation"], "task_type": ["FeasiblePath_Ego"],
            "format_type": ["point"], "coordinate_system": ["auto"],
            "formatted_response_localization": ["Not Required"],
            "formatted_response_count": ["Not Required"],
            "formatted_response_path": points,
            "formatted_response_binary": ["Not Required"],
            "ground_truth": {"gt_json_path": ["dataset/annotation/EPIC_Bench/Navigation/FeasiblePath/FeasiblePath_Ego/fpe_001/fpe_001_mask_rle.json"]},
        })
        .to_string()
    };
    for (n, scored) in [(cap, true), (cap + 1, false)] {
        let pred = dir.join(format!("path{n}.jsonl"));
        std::fs::write(&pred, record(n) + "\n").unwrap();
        let started = Instant::now();
        let (code, out, err) = knoblab(&[
            "score",
            "epic",
            "--gt",
            EPIC_GT,
            "--pred",
            &s(&pred),
            "--json",
        ]);
        eprintln!("an EPIC path of {n} points: {:?}", started.elapsed());
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            !out.contains("more than 10000 points"),
            scored,
            "{n} points: {}",
            &out[..out.len().min(2000)]
        );
    }
}

#[test]
fn finestate_gaps_and_second_predictions_are_always_reported() {
    let dir = scratch("finestate_gaps");
    let example: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(format!(
            "{FIXTURES}/official/finestate/example_official_result_file.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let one = example["content"].clone();
    let gt = format!("{FIXTURES}/official/finestate/dataset");
    for (name, list, expected) in [
        (
            "one.json",
            vec![one.clone()],
            "instance(s) have no prediction",
        ),
        (
            "twice.json",
            vec![one.clone(), one],
            "1 image(s) have more than one prediction; the later one (by file order) is used",
        ),
    ] {
        let pred = dir.join(name);
        std::fs::write(&pred, serde_json::to_string(&list).unwrap()).unwrap();
        let (code, _, err) = knoblab(&[
            "score",
            "finestate",
            "--gt",
            &gt,
            "--pred",
            &s(&pred),
            "--model",
            "m",
            "--json",
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(err.contains(expected), "{name}: {err}");
        assert!(
            err.contains("in the JSON document"),
            "{name} says where the list is: {err}"
        );
    }
}

/// Every numeric option of `knoblab eval` outside its domain (issue #47)
/// is refused where the flags are read, naming the option, the value and
/// the domain; nothing is run or written.
#[test]
fn eval_options_outside_their_domain_are_refused() {
    let dir = scratch("eval-domains");
    let out = dir.join("out.jsonl");
    for (flag, value, said) in [
        (
            "--lambda",
            "0",
            "lambda = 0 is outside its domain: a whole number from 1 to 100",
        ),
        ("--repeats", "0", "repeats = 0 is outside its domain"),
        (
            "--concurrency",
            "0",
            "concurrency = 0 is outside its domain",
        ),
        (
            "--temperature",
            "-1",
            "temperature = -1 is outside its domain: a number from 0 to 2",
        ),
        ("--max-tokens", "0", "max_tokens = 0 is outside its domain"),
        ("--timeout", "0", "timeout = 0 is outside its domain"),
        (
            "--retries",
            "2.5",
            "retries = 2.5 is outside its domain: a whole number from 0 to 20",
        ),
        ("--backoff", "nan", "backoff = nan is outside its domain"),
        ("--seed", "-1", "seed = -1 is outside its domain"),
        ("--price-in", "-1", "price_in = -1 is outside its domain"),
        ("--max-cost", "0", "max_cost = 0 is outside its domain"),
    ] {
        let (code, _, err) = knoblab(&[
            "eval",
            KETTLE,
            "--agent",
            "oracle",
            &format!("{flag}={value}"),
            "--out",
            &s(&out),
        ]);
        assert_eq!(code, 2, "{flag} {value}: {err}");
        assert!(err.contains(said), "{flag} {value}: {err}");
        assert!(!out.exists());
    }
}

// ---- the input layer's rules in every benchmark reader (#47) ----------------

/// The EPIC record the GT-path test scores, naming `gt`.
fn epic_record(gt: &str) -> String {
    serde_json::json!({
        "task_category": ["TargetLocalization"], "task_type": ["Category"],
        "format_type": ["bbox"], "coordinate_system": ["auto"],
        "formatted_response_localization": [[100, 60, 180, 140]],
        "formatted_response_count": [1],
        "formatted_response_path": ["Not Required"],
        "formatted_response_binary": ["Not Required"],
        "ground_truth": {"gt_json_path": [gt]},
    })
    .to_string()
}

#[test]
fn epic_ground_truth_with_a_key_twice_or_in_utf16_is_named() {
    let dir = scratch("epic_rules");
    let gt = dir.join("annotation");
    copy_dir(Path::new(EPIC_GT), &gt);
    let rel = "EPIC_Bench/TargetLocalization/BasicAttributes/Category/tl_cat_001/tl_cat_001_mask_rle.json";
    let file = gt.join(rel);
    let text = std::fs::read_to_string(&file).unwrap();
    let pred = dir.join("pred.jsonl");
    // A second sample whose GT file stays whole, so that the run scores.
    let other = rel.replace("001", "002");
    assert!(gt.join(&other).is_file(), "{other}");
    let both = format!(
        "{}\n{}\n",
        epic_record(&format!("dataset/annotation/{rel}")),
        epic_record(&format!("dataset/annotation/{other}"))
    );
    std::fs::write(&pred, &both).unwrap();
    let score = || {
        let (code, out, err) = knoblab(&[
            "score",
            "epic",
            "--gt",
            &s(&gt),
            "--pred",
            &s(&pred),
            "--json",
        ]);
        assert_eq!(code, 0, "{err}");
        let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
        (doc["input"]["gt_refused"].clone(), err)
    };
    let (refused, _) = score();
    assert_eq!(refused, serde_json::json!([]));

    let open = text.find('{').unwrap();
    std::fs::write(
        &file,
        format!("{{\"text_annotation\": null, {}", &text[open + 1..]),
    )
    .unwrap();
    let (refused, err) = score();
    let refused = refused.to_string();
    assert!(
        refused.contains("the key \\\"text_annotation\\\" appears twice"),
        "{refused}"
    );
    assert!(err.contains("ground-truth path(s) refused"), "{err}");

    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    std::fs::write(&file, utf16).unwrap();
    let (refused, _) = score();
    assert!(refused.to_string().contains("UTF-16 LE"), "{refused}");

    // Results whose lines end in a lone CR are refused, not read as one line.
    std::fs::write(&file, &text).unwrap();
    let line = epic_record(&format!("dataset/annotation/{rel}"));
    std::fs::write(&pred, format!("{line}\r{line}\r")).unwrap();
    let (code, _, err) = knoblab(&["score", "epic", "--gt", &s(&gt), "--pred", &s(&pred)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("carriage return alone"), "{err}");
}

#[test]
fn finestate_and_switch_readers_keep_the_layers_rules() {
    let dir = scratch("finestate_rules");
    let gt = dir.join("dataset");
    copy_dir(
        Path::new(&format!("{FIXTURES}/official/finestate/dataset")),
        &gt,
    );
    let cases = gt.join("web_en/web_cases.jsonl");
    let text = std::fs::read_to_string(&cases).unwrap();
    let first = text.lines().next().unwrap();
    let v: serde_json::Value = serde_json::from_str(first).unwrap();
    let image = v["image"].as_str().unwrap();
    let outside = first.replacen(image, "/etc/passwd", 1);
    let climbing = first.replacen(image, "web_en/../../secret.png", 1);
    std::fs::write(&cases, format!("{text}{outside}\n{climbing}\n")).unwrap();
    let fifo = mkfifo(&gt.join("web_en/more.jsonl"));
    let example: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(format!(
            "{FIXTURES}/official/finestate/example_official_result_file.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let pred = dir.join("pred.json");
    std::fs::write(
        &pred,
        serde_json::to_string(&vec![example["content"].clone()]).unwrap(),
    )
    .unwrap();
    let run = |pred: &Path| {
        knoblab(&[
            "score",
            "finestate",
            "--gt",
            &s(&gt),
            "--pred",
            &s(pred),
            "--model",
            "m",
            "--json",
        ])
    };
    let (code, out, err) = run(&pred);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let skipped = doc.to_string();
    assert_eq!(
        skipped.matches("image_path_refused").count(),
        2,
        "{skipped}"
    );
    assert!(
        skipped.contains("the path `/etc/passwd` is absolute"),
        "{skipped}"
    );
    assert!(
        skipped.contains("the path `web_en/../../secret.png` leaves its folder"),
        "{skipped}"
    );
    if fifo {
        assert!(
            skipped.contains("web_en/more.jsonl") && skipped.contains("a FIFO (named pipe)"),
            "{skipped}"
        );
    }

    // FineState predictions with a key twice in one object.
    let doubled = std::fs::read_to_string(&pred).unwrap().replacen(
        "{\"image_path\"",
        "{\"image_path\": \"x.png\", \"image_path\"",
        1,
    );
    assert!(doubled.contains("\"image_path\": \"x.png\""), "{doubled}");
    std::fs::write(&pred, doubled).unwrap();
    let (code, _, err) = run(&pred);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("the key \"image_path\" appears twice"),
        "{err}"
    );

    // SWITCH predictions with a key twice in one object.
    let switch_pred = std::fs::read_to_string(format!("{FIXTURES}/switch/pred.jsonl")).unwrap();
    let line = switch_pred.lines().next().unwrap();
    let key = serde_json::from_str::<serde_json::Value>(line).unwrap();
    let key = key.as_object().unwrap().keys().next().unwrap().clone();
    let pred = dir.join("switch.jsonl");
    std::fs::write(
        &pred,
        line.replacen('{', &format!("{{\"{key}\": null, "), 1),
    )
    .unwrap();
    let (code, _, err) = knoblab(&[
        "score",
        "switch",
        "--gt",
        &format!("{FIXTURES}/switch/gt"),
        "--pred",
        &s(&pred),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("the key \"{key}\" appears twice")),
        "{err}"
    );
}

//! `knoblab leaderboard` on runs the CLI itself makes: the oracle, the
//! random agent with two seeds, a run cut short, a run whose model server
//! answered 500 to every request (so its episodes ended as `api_error`),
//! and a run recorded on another library version. Each row's values are
//! `knoblab metrics --json`'s for its file; intervals are seeded and hold
//! the estimate; partial runs are marked and their missing episodes
//! counted; a run compared with itself differs by 0, with a zero-width
//! interval.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a test: a panic here is a failed test
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const LIBRARY: &str = "../../data/library.json";
const DEVICES: &str = "airfryer-0001,carkey-0001";

fn knoblab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_knoblab"))
        .args(args)
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .expect("knoblab runs")
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "knoblab failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("knoblab-lb-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn eval(out: &Path, extra: &[&str]) {
    let out = out.to_str().unwrap();
    let mut args = vec![
        "eval",
        "--library",
        LIBRARY,
        "--devices",
        DEVICES,
        "--quiet",
        "--out",
        out,
    ];
    args.extend_from_slice(extra);
    ok(&knoblab(&args));
}

/// A model server that answers 500 to every request.
fn failing_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut length = 0usize;
                let mut line = String::new();
                loop {
                    line.clear();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                        break;
                    }
                    if let Some((n, v)) = line.split_once(':') {
                        if n.trim().eq_ignore_ascii_case("content-length") {
                            length = v.trim().parse().unwrap_or(0);
                        }
                    }
                }
                let mut body = vec![0; length];
                let _ = reader.read_exact(&mut body);
                let reply = "{\"error\":\"down\"}";
                let mut stream = stream;
                let _ = write!(
                    stream,
                    "HTTP/1.1 500 X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}",
                    reply.len()
                );
            });
        }
    });
    format!("http://{addr}/v1")
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

fn item(line: &str) -> String {
    let v: Value = serde_json::from_str(line).unwrap();
    v["item"].as_str().unwrap().to_string()
}

/// The runs: oracle, random seeds 1 and 2, random seed 2 cut after 10
/// episodes, oracle with its last 5 planned episodes ended as api_error,
/// and oracle on another library version.
struct Runs {
    dir: PathBuf,
    files: Vec<String>,
}

fn make_runs(name: &str) -> Runs {
    let dir = temp_dir(name);
    let oracle = dir.join("oracle.jsonl");
    eval(&oracle, &["--agent", "oracle"]);
    for seed in ["1", "2"] {
        eval(
            &dir.join(format!("random{seed}.jsonl")),
            &["--agent", "random", "--seed", seed],
        );
    }
    // Killed early: the first 10 episodes of a run.
    let random2 = lines(&dir.join("random2.jsonl"));
    std::fs::write(dir.join("cut.jsonl"), random2[..10].join("\n") + "\n").unwrap();

    // A model whose server fails: every episode an api_error.
    let failed = dir.join("failed.jsonl");
    let base = failing_server();
    eval(
        &failed,
        &[
            "--agent",
            "model",
            "--base-url",
            &base,
            "--model",
            "m",
            "--retries",
            "0",
            "--backoff",
            "0",
            "--concurrency",
            "2",
        ],
    );
    let failed_lines = lines(&failed);
    assert!(failed_lines.iter().all(|l| l.contains("\"api_error\"")));
    // The oracle's file with 5 of its episodes replaced by the failed
    // run's records of the same items, as a resumed run would hold them.
    let oracle_lines = lines(&oracle);
    let gone: Vec<String> = oracle_lines.iter().rev().take(5).map(|l| item(l)).collect();
    let mut mixed: Vec<String> = oracle_lines
        .iter()
        .filter(|l| !gone.contains(&item(l)))
        .cloned()
        .collect();
    mixed.extend(
        failed_lines
            .iter()
            .filter(|l| gone.contains(&item(l)))
            .cloned(),
    );
    assert_eq!(mixed.len(), oracle_lines.len());
    std::fs::write(dir.join("api.jsonl"), mixed.join("\n") + "\n").unwrap();

    // Another library version: the oracle's records stamped version 99.
    let other: Vec<String> = oracle_lines
        .iter()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v["settings"]["library"]["version"] = Value::from(99);
            v["settings"]["library"]["hash"] = Value::from("0".repeat(64));
            v.to_string()
        })
        .collect();
    std::fs::write(dir.join("other.jsonl"), other.join("\n") + "\n").unwrap();

    let files = ["oracle", "random1", "random2", "cut", "api", "other"]
        .iter()
        .map(|n| dir.join(format!("{n}.jsonl")).display().to_string())
        .collect();
    Runs { dir, files }
}

fn leaderboard(files: &[String], extra: &[&str]) -> Value {
    let mut args = vec!["leaderboard", "--library", LIBRARY, "--json"];
    args.extend(files.iter().map(String::as_str));
    args.extend_from_slice(extra);
    serde_json::from_str(&ok(&knoblab(&args))).unwrap()
}

#[test]
fn rows_match_knoblab_metrics_intervals_are_seeded_and_denominators_are_honest() {
    let runs = make_runs("main");
    let board = leaderboard(&runs.files, &["--seed", "7", "--resamples", "300"]);
    assert_eq!(board["format"], "knoblab-leaderboard/1");
    assert_eq!(board["stratified_by"], "device");
    let rows = board["runs"].as_array().unwrap();
    assert_eq!(rows.len(), 6);
    let plan = board["plan"]["episodes"].as_u64().unwrap() as usize;
    let oracle_n = lines(&runs.dir.join("oracle.jsonl")).len();
    // The plan is the union of the runs of the plan's library: every
    // task once; the other library's run adds nothing.
    assert_eq!(plan, oracle_n);

    let keys = [
        "sr",
        "ssr",
        "spl",
        "state_f1",
        "eir",
        "tir",
        "vsps",
        "gvpe",
        "eer",
        "psr",
        "avg_dist",
        "avg_w_dist",
    ];
    let mut checked = 0;
    for (row, file) in rows.iter().zip(&runs.files) {
        assert_eq!(row["file"].as_str().unwrap(), file);
        let metrics: Value = serde_json::from_str(&ok(&knoblab(&[
            "metrics",
            file,
            "--bundles",
            "../../data/devices",
            "--json",
        ])))
        .unwrap();
        for key in keys {
            let cell = &row["metrics"][key];
            assert_eq!(cell["value"], metrics[key], "{file}: {key}");
            if let (Some(v), Some(lo), Some(hi)) = (
                cell["value"].as_f64(),
                cell["ci_low"].as_f64(),
                cell["ci_high"].as_f64(),
            ) {
                assert!(
                    lo <= v + 1e-12 && v <= hi + 1e-12,
                    "{file}: {key} {lo} {v} {hi}"
                );
                checked += 1;
            }
        }
        assert_eq!(row["error_counts"], metrics["errors"], "{file}");
        assert_eq!(
            row["metrics"]["sr"]["n"].as_u64(),
            metrics["episodes"].as_u64()
        );
    }
    assert!(checked > 40, "only {checked} intervals checked");

    let row = |name: &str| {
        rows.iter()
            .find(|r| r["file"].as_str().unwrap().ends_with(name))
            .unwrap()
    };
    assert_eq!(row("oracle.jsonl")["status"], "complete");
    assert_eq!(row("oracle.jsonl")["coverage"]["missing"], 0);
    // Random seeds differ, and their SR is below the oracle's.
    assert_ne!(
        row("random1.jsonl")["metrics"]["eir"]["value"],
        row("random2.jsonl")["metrics"]["eir"]["value"]
    );

    // The cut run: partial, its 10 played, the rest missing; SR over the
    // plan is its SR scaled by played / plan (missing = failure).
    let cut = row("cut.jsonl");
    assert_eq!(cut["status"], "partial");
    assert_eq!(cut["coverage"]["played"], 10);
    assert_eq!(
        cut["coverage"]["missing"].as_u64().unwrap() as usize,
        plan - 10
    );
    assert_eq!(
        cut["metrics"]["sr"]["missing"].as_u64().unwrap() as usize,
        plan - 10
    );
    let missing_listed = cut["episodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["state"] == "missing")
        .count();
    assert_eq!(missing_listed, plan - 10);

    // The api_error run: 5 counted, not scored, not dropped.
    let api = row("api.jsonl");
    assert_eq!(api["status"], "partial");
    assert_eq!(api["coverage"]["api_error"], 5);
    assert_eq!(
        api["coverage"]["played"].as_u64().unwrap() as usize,
        plan - 5
    );
    assert_eq!(api["metrics"]["sr"]["value"], 1.0);
    let sr_plan = api["sr_plan"]["value"].as_f64().unwrap();
    assert!((sr_plan - (plan - 5) as f64 / plan as f64).abs() < 1e-12);
    assert_eq!(api["sr_plan"]["n"].as_u64().unwrap() as usize, plan);

    // Another library: shown apart with its own numbers.
    let other = row("other.jsonl");
    assert_eq!(other["status"], "other_library");
    assert_eq!(other["library"]["version"], 99);
    assert_eq!(other["metrics"]["sr"]["value"], 1.0);

    // Drill-downs cover every played episode once.
    for r in [row("oracle.jsonl"), row("cut.jsonl")] {
        for by in ["by_category", "by_kind"] {
            let total: u64 = r[by]
                .as_object()
                .unwrap()
                .values()
                .map(|g| g["coverage"]["played"].as_u64().unwrap())
                .sum();
            assert_eq!(total, r["coverage"]["played"].as_u64().unwrap(), "{by}");
        }
    }
    assert!(row("oracle.jsonl")["by_kind"]["multi"].is_object());

    // The same seed gives the same document; another seed other intervals.
    let again = leaderboard(&runs.files, &["--seed", "7", "--resamples", "300"]);
    assert_eq!(board, again);
    let reseeded = leaderboard(&runs.files, &["--seed", "8", "--resamples", "300"]);
    let cells = |b: &Value, field: &str| -> Vec<Value> {
        b["runs"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|r| keys.iter().map(move |k| r["metrics"][*k][field].clone()))
            .collect()
    };
    assert_eq!(cells(&board, "value"), cells(&reseeded, "value"));
    assert_ne!(cells(&board, "ci_low"), cells(&reseeded, "ci_low"));

    // The same runs with their lines in another order: the same document
    // (episodes are drawn in key order within each device).
    let reversed: Vec<String> = runs
        .files
        .iter()
        .map(|f| {
            let mut l = lines(Path::new(f));
            l.reverse();
            let path = format!("{f}.reversed");
            std::fs::write(&path, l.join("\n") + "\n").unwrap();
            path
        })
        .collect();
    let turned = leaderboard(&reversed, &["--seed", "7", "--resamples", "300"]);
    assert_eq!(cells(&board, "ci_low"), cells(&turned, "ci_low"));
    assert_eq!(cells(&board, "ci_high"), cells(&turned, "ci_high"));
}

#[test]
fn the_bootstrap_resamples_within_device() {
    let runs = make_runs("strata");
    let oracle = lines(&runs.dir.join("oracle.jsonl"));
    let random = lines(&runs.dir.join("random1.jsonl"));
    let mut mixed: Vec<String> = oracle
        .iter()
        .filter(|l| l.contains("\"bundle_id\":\"airfryer-0001\""))
        .cloned()
        .collect();
    mixed.extend(
        random
            .iter()
            .filter(|l| l.contains("\"bundle_id\":\"carkey-0001\""))
            .cloned(),
    );
    let path = runs.dir.join("mixed.jsonl");
    std::fs::write(&path, mixed.join("\n") + "\n").unwrap();
    let board = leaderboard(&[path.display().to_string()], &["--resamples", "500"]);
    let sr = &board["runs"][0]["metrics"]["sr"];
    let v = sr["value"].as_f64().unwrap();
    assert!(v > 0.0 && v < 1.0, "{v}");
    assert_eq!(sr["ci_low"].as_f64(), Some(v));
    assert_eq!(sr["ci_high"].as_f64(), Some(v));
    // The category drill-down: one device each, SR 1 and 0.
    let by = &board["runs"][0]["by_category"];
    assert_eq!(by["AirFryer"]["metrics"]["sr"]["value"], 1.0);
    assert_eq!(by["CarKey"]["metrics"]["sr"]["value"], 0.0);
}

#[test]
fn comparisons_pair_episodes_and_a_run_against_itself_differs_by_zero() {
    let runs = make_runs("compare");
    let files = &runs.files[..4];
    let board = leaderboard(
        files,
        &[
            "--resamples",
            "200",
            "--compare",
            "1",
            "1",
            "--compare",
            &runs.files[0],
            "4",
        ],
    );
    let same = &board["comparisons"][0];
    for m in ["sr", "ssr"] {
        assert_eq!(same[m]["value"], 0.0);
        assert_eq!(same[m]["ci_low"], 0.0);
        assert_eq!(same[m]["ci_high"], 0.0);
    }
    assert_eq!(same["only_a"].as_array().unwrap().len(), 0);
    // Oracle against the cut random run: paired over the 10 both played,
    // the oracle solving every one of them.
    let vs = &board["comparisons"][1];
    assert_eq!(vs["shared"], 10);
    let solved_by_random = board["runs"][3]["episodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["sr"] == 1.0)
        .count();
    assert_eq!(
        vs["only_a"].as_array().unwrap().len(),
        10 - solved_by_random
    );
    let d = vs["sr"]["value"].as_f64().unwrap();
    assert!((d - (10 - solved_by_random) as f64 / 10.0).abs() < 1e-12);
    let (lo, hi) = (
        vs["sr"]["ci_low"].as_f64().unwrap(),
        vs["sr"]["ci_high"].as_f64().unwrap(),
    );
    assert!(lo <= d && d <= hi);

    // A run of another library is not compared.
    let mut args = vec!["leaderboard", "--library", LIBRARY, "--json"];
    args.push(&runs.files[0]);
    args.push(&runs.files[5]);
    args.extend(["--compare", "1", "2"]);
    let refused = knoblab(&args);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("another library version"));

    // A row that is not there is named.
    let mut args = vec!["leaderboard", "--library", LIBRARY];
    args.push(&runs.files[0]);
    args.extend(["--compare", "1", "nope.jsonl"]);
    let refused = knoblab(&args);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr)
        .contains("--compare nope.jsonl: neither a file given nor a row number from 1 to 1"));

    // No resamples: the values, without intervals.
    let bare = leaderboard(&runs.files[..1], &["--resamples", "0"]);
    let sr = &bare["runs"][0]["metrics"]["sr"];
    assert_eq!(sr["value"], 1.0);
    assert!(sr["ci_low"].is_null() && sr["ci_high"].is_null());
}

#[test]
fn exports_carry_every_row_and_interval() {
    let runs = make_runs("exports");
    let files = &runs.files[..4];
    let run = |flag: &str| {
        let mut args = vec![
            "leaderboard",
            "--library",
            LIBRARY,
            "--resamples",
            "50",
            flag,
        ];
        args.extend(files.iter().map(String::as_str));
        ok(&knoblab(&args))
    };
    let csv = run("--csv");
    let mut csv_lines = csv.lines();
    let header: Vec<&str> = csv_lines.next().unwrap().split(',').collect();
    assert_eq!(&header[..3], &["file", "model", "status"]);
    assert!(header.contains(&"sr_low") && header.contains(&"avg_w_dist_high"));
    let rows: Vec<Vec<&str>> = csv_lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 4);
    assert!(rows.iter().all(|r| r.len() == header.len()));
    assert_eq!(rows[3][2], "partial");

    let md = run("--markdown");
    assert!(md.contains("| Run | Model | Status |"));
    assert!(md.contains("partial: played 10 of"));
    let tex = run("--latex");
    assert_eq!(tex.lines().filter(|l| l.ends_with("\\\\")).count(), 4);
    assert!(tex.contains("$^\\dagger$"));
}

/// The page's e2e test (e2e/leaderboard.test.mjs) checks its table against
/// `expected.json`, the CLI's `--json` on the fixture's runs: it must stay
/// what the CLI prints.
#[test]
fn the_fixture_the_page_is_checked_against_is_the_clis_output() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/leaderboard_runs");
    let out = Command::new(env!("CARGO_BIN_EXE_knoblab"))
        .current_dir(&dir)
        .args([
            "leaderboard",
            "oracle.jsonl",
            "random.jsonl",
            "partial.jsonl",
            "--library",
            "../../../data/library.json",
            "--json",
        ])
        .output()
        .unwrap();
    let now: Value = serde_json::from_str(&ok(&out)).unwrap();
    let committed: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    assert_eq!(
        now, committed,
        "tests/fixtures/leaderboard_runs/expected.json is stale: regenerate it as its README says"
    );
    assert_eq!(now["runs"][2]["status"], "partial");
}

/// `--publish` writes the `--json` document with every played episode's
/// actions, one trace per record line.
#[test]
fn publish_writes_the_document_and_every_episodes_actions() {
    let runs = make_runs("publish");
    let dir = temp_dir("publish-out");
    let file = dir.join("board.json");
    // oracle, random1, cut (partial), api (api_error episodes: no trace).
    let files = [
        runs.files[0].clone(),
        runs.files[1].clone(),
        runs.files[3].clone(),
        runs.files[4].clone(),
    ];
    let mut args: Vec<&str> = vec!["leaderboard"];
    args.extend(files.iter().map(String::as_str));
    args.extend([
        "--library",
        LIBRARY,
        "--seed",
        "5",
        "--resamples",
        "50",
        "--json",
    ]);
    let with_publish: Vec<&str> = args
        .iter()
        .copied()
        .chain(["--publish", file.to_str().unwrap()])
        .collect();
    let printed: Value = serde_json::from_str(&ok(&knoblab(&with_publish))).unwrap();
    let plain: Value = serde_json::from_str(&ok(&knoblab(&args))).unwrap();
    assert_eq!(printed, plain, "--publish changes nothing printed");
    let published: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(published["format"], "knoblab-leaderboard-published/1");
    assert_eq!(published["leaderboard"], plain);
    let traces = published["traces"].as_array().unwrap();
    assert_eq!(traces.len(), 4);
    for (row, traces) in plain["runs"].as_array().unwrap().iter().zip(traces) {
        let traces = traces.as_array().unwrap();
        let played: Vec<&Value> = row["episodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["state"] == "played")
            .collect();
        assert_eq!(traces.len(), played.len(), "{}", row["file"]);
        for e in played {
            let t = traces.iter().find(|t| t["line"] == e["line"]).unwrap();
            assert_eq!(t["bundle_id"], e["bundle_id"]);
            assert_eq!(t["task_id"], e["task_id"]);
            assert_eq!(
                t["actions"].as_array().unwrap().len() as u64,
                e["steps"].as_u64().unwrap()
            );
        }
    }
    let bad = knoblab(&[
        "leaderboard",
        &runs.files[0],
        "--library",
        LIBRARY,
        "--publish",
        dir.join("no/such/dir/board.json").to_str().unwrap(),
    ]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--publish"));
}

/// `--plan`: the episodes the runs were meant to cover. An episode no run
/// played counts as missing in every row (placed with its device's
/// category); a run's own file as the plan changes nothing; episodes
/// played outside a plan are added to it with a warning; a plan line that
/// is not a key is refused by its line.
#[test]
fn a_given_plan_counts_the_episodes_no_run_played() {
    let dir = temp_dir("plan");
    let oracle = dir.join("oracle.jsonl");
    eval(&oracle, &["--agent", "oracle"]);
    let random = dir.join("random.jsonl");
    eval(&random, &["--agent", "random", "--seed", "3"]);
    let files = [oracle.display().to_string(), random.display().to_string()];
    let union = leaderboard(&files, &["--resamples", "20"]);
    let keys: Vec<String> = union["runs"][0]["episodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["key"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(keys.len(), 24);

    // The plan as keys, with two episodes of a device nobody played.
    let plan = dir.join("plan.txt");
    let mut lines = keys.clone();
    lines.push("purifier-0001/single-auto-mode#0".into());
    lines.push(String::new());
    lines.push("purifier-0001/single-fan-speed1#0".into());
    std::fs::write(&plan, lines.join("\n") + "\n").unwrap();
    let planned = leaderboard(
        &files,
        &["--resamples", "20", "--plan", plan.to_str().unwrap()],
    );
    assert_eq!(planned["plan"]["episodes"], 26);
    assert_eq!(planned["plan"]["given"], 26);
    assert_eq!(planned["plan"]["outside_given"], 0);
    for (row, before) in planned["runs"]
        .as_array()
        .unwrap()
        .iter()
        .zip(union["runs"].as_array().unwrap())
    {
        assert_eq!(row["status"], "partial", "{}", row["file"]);
        assert_eq!(row["coverage"]["missing"], 2);
        assert_eq!(row["coverage"]["plan"], 26);
        // What was played is scored as before; SR over the plan counts the two as failures.
        assert_eq!(
            row["metrics"],
            before["metrics"]
                .clone()
                .as_object()
                .map(|m| {
                    let mut m = m.clone();
                    for v in m.values_mut() {
                        v["missing"] = Value::from(2);
                    }
                    Value::Object(m)
                })
                .unwrap()
        );
        assert_eq!(row["sr_plan"]["n"], 26);
        let missing: Vec<&Value> = row["episodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["state"] == "missing")
            .collect();
        assert_eq!(missing.len(), 2);
        assert!(missing
            .iter()
            .all(|e| e["category"] == "AirPurifier" && e["bundle_id"] == "purifier-0001"));
    }
    let oracle_plan_sr = planned["runs"][0]["sr_plan"]["value"].as_f64().unwrap();
    assert!(
        (oracle_plan_sr - 24.0 / 26.0).abs() < 1e-12,
        "{oracle_plan_sr}"
    );

    // The oracle's file as the plan: the union again, nothing missing.
    let same = leaderboard(
        &files,
        &["--resamples", "20", "--plan", oracle.to_str().unwrap()],
    );
    assert_eq!(same["plan"]["given"], 24);
    assert_eq!(same["runs"], union["runs"]);

    // A plan of 4 episodes: the other 20 played are added to it, with a warning.
    std::fs::write(&plan, keys[..4].join("\n")).unwrap();
    let out = knoblab(&[
        "leaderboard",
        "--library",
        LIBRARY,
        "--json",
        &files[0],
        &files[1],
        "--resamples",
        "0",
        "--plan",
        plan.to_str().unwrap(),
    ]);
    let small: Value = serde_json::from_str(&ok(&out)).unwrap();
    assert_eq!(small["plan"]["episodes"], 24);
    assert_eq!(small["plan"]["outside_given"], 20);
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("20 episodes played are not among the 4 of --plan"));

    // A line that is not a key.
    std::fs::write(&plan, format!("{}\nkettle boil\n", keys[0])).unwrap();
    let bad = knoblab(&[
        "leaderboard",
        "--library",
        LIBRARY,
        &files[0],
        "--plan",
        plan.to_str().unwrap(),
    ]);
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("line 2") && err.contains("bundle/task#repeat"),
        "{err}"
    );
}

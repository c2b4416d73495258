//! `knoblab eval` against mock model servers started here, on a free
//! loopback port: an OpenAI-compatible one and an Anthropic one, scripted
//! per request (correct actions, malformed replies, 429 with Retry-After,
//! 500, a hang past the timeout, a reply cut mid-body). The requests
//! received, the output file, the metrics and every output are checked,
//! and the key is looked for everywhere it must not be. A run killed with
//! SIGKILL while episodes are in flight is resumed to exactly one record
//! per planned episode.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use knoblab_core::bundle::load_path;
use knoblab_core::metrics::file::EpisodeStatus;
use knoblab_eval::agents::Oracle;
use knoblab_eval::vlm::EpisodeRecord;
use serde_json::Value;

const KETTLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/kettle");
const KEY: &str = "sk-test-5ecret-d0-not-leak";

// ---------------------------------------------------------------- the mock

/// A request as the mock received it.
#[derive(Debug, Clone)]
struct Received {
    path: String,
    headers: Vec<(String, String)>,
    body: String,
}

impl Received {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The JSON body's messages.
    fn messages(&self) -> Vec<Value> {
        let body: Value = serde_json::from_str(&self.body).unwrap_or(Value::Null);
        body["messages"].as_array().cloned().unwrap_or_default()
    }
}

/// What the mock does for one request.
#[derive(Debug, Clone)]
enum Scripted {
    /// A good reply with this text.
    Text(String),
    /// This status and body, with a `Retry-After` header if given.
    Raw(u16, String, Option<String>),
    /// No answer for this long, then the connection is closed.
    Hang(Duration),
    /// Headers promise 500 bytes; 40 come, then the connection closes.
    Cut,
}

#[derive(Clone, Copy, PartialEq)]
enum Flavour {
    OpenAi,
    Anthropic,
}

type Respond = Arc<dyn Fn(&Received) -> Scripted + Send + Sync>;

struct Mock {
    base_url: String,
    host: String,
    requests: Arc<Mutex<Vec<Received>>>,
}

impl Mock {
    fn start(flavour: Flavour, delay: Duration, script: Vec<Scripted>, respond: Respond) -> Mock {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let host = listener.local_addr().unwrap().to_string();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let script = Arc::new(Mutex::new(VecDeque::from(script)));
        {
            let requests = requests.clone();
            std::thread::spawn(move || {
                for stream in listener.incoming().flatten() {
                    let (requests, script, respond) =
                        (requests.clone(), script.clone(), respond.clone());
                    std::thread::spawn(move || {
                        serve(stream, flavour, delay, &requests, &script, respond.as_ref())
                    });
                }
            });
        }
        Mock {
            base_url: format!("http://{host}/v1"),
            host,
            requests,
        }
    }

    fn requests(&self) -> Vec<Received> {
        self.requests.lock().unwrap().clone()
    }
}

fn serve(
    stream: TcpStream,
    flavour: Flavour,
    delay: Duration,
    requests: &Mutex<Vec<Received>>,
    script: &Mutex<VecDeque<Scripted>>,
    respond: &(dyn Fn(&Received) -> Scripted + Send + Sync),
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let mut headers = Vec::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((n, v)) = line.split_once(':') {
            headers.push((n.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let received = Received {
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    requests.lock().unwrap().push(received.clone());
    let next = script.lock().unwrap().pop_front();
    let action = next.unwrap_or_else(|| respond(&received));
    std::thread::sleep(delay);
    let mut stream = stream;
    let (status, body, retry_after) = match action {
        Scripted::Hang(d) => {
            std::thread::sleep(d);
            return;
        }
        Scripted::Cut => {
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\
                  Connection: close\r\n\r\n{\"choices\":[{\"message\":{\"content\":\"Act",
            );
            let _ = stream.flush();
            return;
        }
        Scripted::Raw(status, body, retry_after) => (status, body, retry_after),
        Scripted::Text(text) => (200, reply_body(flavour, &text), None),
    };
    let retry = retry_after.map_or(String::new(), |r| format!("Retry-After: {r}\r\n"));
    let head = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n{retry}\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body.as_bytes());
    let _ = stream.flush();
}

fn reply_body(flavour: Flavour, text: &str) -> String {
    match flavour {
        Flavour::OpenAi => serde_json::json!({
            "choices": [{"message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 1000, "completion_tokens": 20}
        }),
        Flavour::Anthropic => serde_json::json!({
            "content": [{"type": "text", "text": text}],
            "usage": {"input_tokens": 1000, "output_tokens": 20}
        }),
    }
    .to_string()
}

/// The text of a message (a string, or its text parts).
fn text_of(message: &Value) -> String {
    match &message["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Answers each turn with the oracle's action for the episode's task
/// (found by its instruction) and turn (the assistant messages so far;
/// the run keeps the full history).
fn oracle_responder(instructions: BTreeMap<String, Vec<String>>) -> Respond {
    Arc::new(move |r: &Received| {
        let messages = r.messages();
        let turn = messages.iter().filter(|m| m["role"] == "assistant").count();
        let last = messages.last().map(text_of).unwrap_or_default();
        let action = instructions
            .iter()
            .find(|(i, _)| last.contains(i.as_str()))
            .and_then(|(_, actions)| actions.get(turn).cloned())
            .unwrap_or_else(|| "Timed_wait()".into());
        Scripted::Text(format!("Thought: turn {turn}.\nAction: {action}"))
    })
}

/// The oracle's actions of each named kettle task, by its first instruction.
fn kettle_oracle(tasks: &[&str]) -> BTreeMap<String, Vec<String>> {
    let bundle = load_path(Path::new(KETTLE)).unwrap();
    let oracle = Oracle::new(&bundle);
    tasks
        .iter()
        .map(|id| {
            let task = bundle.task(id).unwrap();
            (task.goals[0].instruction.clone(), oracle.plan_actions(task))
        })
        .collect()
}

// ---------------------------------------------------------------- helpers

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("knoblab-eval-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn eval_command(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_knoblab"));
    c.arg("eval")
        .args(args)
        .env("KNOBLAB_TEST_KEY", KEY)
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY");
    c
}

fn eval(args: &[&str]) -> Output {
    eval_command(args).output().expect("knoblab runs")
}

fn records(path: &Path) -> Vec<EpisodeRecord> {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.is_empty() || text.ends_with('\n'), "a torn last line");
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The key in no file of `dir`, and not in stdout or stderr.
fn assert_key_nowhere(dir: &Path, outputs: &[&Output]) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let bytes = std::fs::read(entry.path()).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(KEY),
            "the key is in {}",
            entry.path().display()
        );
    }
    for o in outputs {
        assert!(!String::from_utf8_lossy(&o.stdout).contains(KEY));
        assert!(!String::from_utf8_lossy(&o.stderr).contains(KEY));
    }
}

/// Every request: to the mock's host and path, the key only in its header.
fn assert_key_only_in_its_header(mock: &Mock, header: &str, path: &str, value: &str) {
    let requests = mock.requests();
    assert!(!requests.is_empty());
    for r in &requests {
        assert_eq!(r.path, path);
        assert_eq!(r.header("host"), Some(mock.host.as_str()));
        assert_eq!(r.header(header), Some(value));
        assert!(!r.body.contains(KEY), "the key in a body");
        for (n, v) in &r.headers {
            if n != header {
                assert!(!v.contains(KEY), "the key in header {n}");
            }
        }
    }
}

fn json_doc(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)))
}

// ---------------------------------------------------------------- tests

#[test]
fn an_openai_mock_with_correct_actions_a_429_and_a_500_scores_every_episode() {
    let dir = temp_dir("openai");
    let out = dir.join("run.jsonl");
    let mock = Mock::start(
        Flavour::OpenAi,
        Duration::ZERO,
        vec![
            Scripted::Raw(
                429,
                r#"{"error":{"message":"slow down"}}"#.into(),
                Some("1".into()),
            ),
            Scripted::Raw(500, "".into(), Some("0".into())),
        ],
        oracle_responder(kettle_oracle(&["boil", "open_lid"])),
    );
    let started = Instant::now();
    let o = eval(&[
        KETTLE,
        "--tasks",
        "boil,open_lid",
        "--repeats",
        "2",
        "--api",
        "openai",
        "--base-url",
        &mock.base_url,
        "--model",
        "mock-vlm",
        "--api-key-env",
        "KNOBLAB_TEST_KEY",
        "--concurrency",
        "1",
        "--history",
        "full",
        "--timeout",
        "2",
        "--retries",
        "2",
        "--backoff",
        "0.05",
        "--price-in",
        "2.5",
        "--price-out",
        "10",
        "--out",
        out.to_str().unwrap(),
        "--json",
        "--quiet",
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    // The 429 asked for a second: it was waited for.
    assert!(started.elapsed() >= Duration::from_secs(1));

    let records = records(&out);
    assert_eq!(records.len(), 4);
    let items: BTreeSet<&str> = records.iter().map(|r| r.item.as_str()).collect();
    assert_eq!(items.len(), 4, "every item once");
    for r in &records {
        assert_eq!(r.status, EpisodeStatus::Finished);
        assert!(
            r.trajectory.terminated,
            "{}: the oracle's actions solve it",
            r.item
        );
        assert_eq!(r.trajectory.settings.model.as_deref(), Some("mock-vlm"));
        assert_eq!(
            r.trajectory.settings.endpoint.as_deref(),
            Some(mock.base_url.as_str())
        );
        assert_eq!(r.turns.len(), r.trajectory.steps.len());
        assert!(r.cost.is_some_and(|c| c > 0.0));
    }
    // The first turn needed three attempts (429, 500, then the reply).
    assert_eq!(records[0].turns[0].attempts, 3);
    assert_eq!(records[0].turns[0].reasoning.as_deref(), Some("turn 0."));

    let doc = json_doc(&o);
    assert_eq!(doc["episodes"], 4);
    assert_eq!(doc["sr"], 1.0);
    assert_eq!(doc["file"], out.display().to_string());

    // `knoblab metrics` reads the same file to the same document.
    let m = Command::new(env!("CARGO_BIN_EXE_knoblab"))
        .args([
            "metrics",
            out.to_str().unwrap(),
            "--bundles",
            KETTLE,
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(json_doc(&m), doc);

    let requests = mock.requests();
    let steps: usize = records.iter().map(|r| r.trajectory.steps.len()).sum();
    assert_eq!(
        requests.len(),
        steps + 2,
        "one request per step, and two retries"
    );
    assert_key_only_in_its_header(
        &mock,
        "authorization",
        "/v1/chat/completions",
        &format!("Bearer {KEY}"),
    );
    assert_key_nowhere(&dir, &[&o, &m]);

    // The same command again has nothing left to do and sends nothing.
    let again = eval(&[
        KETTLE,
        "--tasks",
        "boil,open_lid",
        "--repeats",
        "2",
        "--base-url",
        &mock.base_url,
        "--model",
        "mock-vlm",
        "--api-key-env",
        "KNOBLAB_TEST_KEY",
        "--history",
        "full",
        "--out",
        out.to_str().unwrap(),
        "--json",
        "--quiet",
    ]);
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(mock.requests().len(), requests.len());
    assert_eq!(json_doc(&again), doc);

    // Another model on the same file is refused, naming the difference.
    let other = eval(&[
        KETTLE,
        "--tasks",
        "boil,open_lid",
        "--repeats",
        "2",
        "--base-url",
        &mock.base_url,
        "--model",
        "other-vlm",
        "--history",
        "full",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(other.status.code(), Some(2));
    let err = String::from_utf8_lossy(&other.stderr);
    assert!(
        err.contains("model: mock-vlm before, other-vlm now"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_anthropic_mock_retries_hangs_and_cut_replies_and_reports_api_errors_apart() {
    let dir = temp_dir("anthropic");
    let out = dir.join("run.jsonl");
    let responder = oracle_responder(kettle_oracle(&["boil"]));
    let mock = Mock::start(
        Flavour::Anthropic,
        Duration::ZERO,
        vec![
            // Episode 1: a hang past the timeout, a cut reply, then the answer.
            Scripted::Hang(Duration::from_millis(1500)),
            Scripted::Cut,
            Scripted::Text("Action: Press(coord=[0, 0], params=[0])".into()),
            // Episode 2: a malformed reply: not retried, an api_error.
            Scripted::Raw(200, "<html>busy</html>".into(), None),
            // Episode 3: 500s until the retries run out: an api_error.
            Scripted::Raw(500, r#"{"error":{"message":"overloaded"}}"#.into(), None),
            Scripted::Raw(500, r#"{"error":{"message":"overloaded"}}"#.into(), None),
            Scripted::Raw(500, r#"{"error":{"message":"overloaded"}}"#.into(), None),
        ],
        responder,
    );
    let o = eval(&[
        KETTLE,
        "--tasks",
        "boil",
        "--repeats",
        "4",
        "--api",
        "anthropic",
        "--base-url",
        &mock.base_url,
        "--model",
        "mock-claude",
        "--api-key-env",
        "KNOBLAB_TEST_KEY",
        "--concurrency",
        "1",
        "--timeout",
        "0.4",
        "--retries",
        "2",
        "--backoff",
        "0.05",
        "--lambda",
        "2",
        "--history",
        "full",
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    let records = records(&out);
    assert_eq!(records.len(), 4);
    let by_item: BTreeMap<&str, &EpisodeRecord> =
        records.iter().map(|r| (r.item.as_str(), r)).collect();
    let first = by_item.values().find(|r| r.item.ends_with("#0")).unwrap();
    assert_eq!(first.turns[0].attempts, 3, "hang, cut, then the reply");
    assert!(first.turns[0].api_error.is_none());
    let errors: Vec<&&EpisodeRecord> = by_item
        .values()
        .filter(|r| r.status == EpisodeStatus::ApiError)
        .collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    let messages: Vec<&str> = errors.iter().filter_map(|r| r.api_error()).collect();
    assert!(
        messages.iter().any(|m| m.contains("malformed reply")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.contains("HTTP 500: overloaded")),
        "{messages:?}"
    );
    let malformed = errors
        .iter()
        .find(|r| r.api_error().is_some_and(|m| m.contains("malformed")))
        .unwrap();
    assert_eq!(
        malformed.turns.last().unwrap().attempts,
        1,
        "a malformed reply is not retried"
    );
    assert!(
        stderr.contains("2 episodes ended as api_error and are not scored"),
        "{stderr}"
    );
    // Only the two episodes that ran to their end are scored.
    assert_eq!(json_doc(&o)["episodes"], 2);

    assert_key_only_in_its_header(&mock, "x-api-key", "/v1/messages", KEY);
    for r in mock.requests() {
        assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
        assert!(r.header("authorization").is_none());
    }
    assert_key_nowhere(&dir, &[&o]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_local_server_needs_no_key_and_gets_no_key_header() {
    let dir = temp_dir("keyless");
    let out = dir.join("run.jsonl");
    let mock = Mock::start(
        Flavour::OpenAi,
        Duration::ZERO,
        Vec::new(),
        oracle_responder(kettle_oracle(&["boil"])),
    );
    let o = Command::new(env!("CARGO_BIN_EXE_knoblab"))
        .args([
            "eval",
            KETTLE,
            "--tasks",
            "boil",
            "--base-url",
            &mock.base_url,
        ])
        .args([
            "--model",
            "local",
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ])
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(table.starts_with("Main results"), "{table}");
    for r in mock.requests() {
        assert!(r.header("authorization").is_none());
        assert_eq!(r.header("content-type"), Some("application/json"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every planned item of the kettle × `repeats`, as keys.
fn planned(repeats: u32) -> BTreeSet<String> {
    let bundle = load_path(Path::new(KETTLE)).unwrap();
    let mut out = BTreeSet::new();
    for t in &bundle.tasks {
        for r in 0..repeats {
            out.insert(format!("{}/{}#{r}", bundle.manifest.id, t.id));
        }
    }
    out
}

#[test]
fn a_run_killed_with_sigkill_resumes_to_every_episode_exactly_once() {
    let dir = temp_dir("kill");
    let out = dir.join("run.jsonl");
    // Slow replies (80 ms each), so that episodes are in flight when killed.
    let mock = Mock::start(
        Flavour::OpenAi,
        Duration::from_millis(80),
        Vec::new(),
        Arc::new(|_: &Received| Scripted::Text("Action: Timed_wait()".into())),
    );
    let args = [
        KETTLE,
        "--repeats",
        "5",
        "--base-url",
        &mock.base_url,
        "--model",
        "m",
        "--api-key-env",
        "KNOBLAB_TEST_KEY",
        "--concurrency",
        "3",
        "--lambda",
        "2",
        "--timeout",
        "5",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ];
    let mut child = eval_command(&args).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let lines = std::fs::read_to_string(&out).map_or(0, |t| t.lines().count());
        if lines >= 3 || Instant::now() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let before = records(&out).len();
    let plan = planned(5);
    assert!(
        before >= 3 && before < plan.len(),
        "killed after {before} episodes"
    );
    let sent_before = mock.requests().len();

    let o = eval(&args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let after = records(&out);
    let items: Vec<&str> = after.iter().map(|r| r.item.as_str()).collect();
    let unique: BTreeSet<String> = items.iter().map(|s| s.to_string()).collect();
    assert_eq!(items.len(), plan.len(), "every episode exactly once");
    assert_eq!(unique, plan);
    // The resumed run played only what was missing.
    let steps_left: usize = after[before..]
        .iter()
        .map(|r| r.trajectory.steps.len())
        .sum();
    assert!(mock.requests().len() - sent_before >= steps_left);
    assert!(mock.requests().len() - sent_before < steps_left + 3 * 4);
    assert_key_nowhere(&dir, &[&o]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_torn_last_line_is_dropped_with_a_message_and_its_episode_runs_again() {
    let dir = temp_dir("torn");
    let out = dir.join("run.jsonl");
    let args = [
        KETTLE,
        "--agent",
        "oracle",
        "--repeats",
        "2",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ];
    let o = eval(&args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let whole = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<&str> = whole.lines().collect();
    assert_eq!(lines.len(), planned(2).len());
    // Tear the last line in half, as a power loss mid-write would.
    let last = lines[lines.len() - 1];
    let torn = &whole.as_bytes()[..whole.len() - last.len() / 2 - 1];
    std::fs::write(&out, torn).unwrap();

    let o = eval(&args);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("the last line is torn"), "{stderr}");
    let after = records(&out);
    let unique: BTreeSet<String> = after.iter().map(|r| r.item.clone()).collect();
    assert_eq!(after.len(), planned(2).len());
    assert_eq!(unique, planned(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ctrl_c_stops_cleanly_saying_how_many_finished_and_how_to_resume() {
    let dir = temp_dir("sigint");
    let out = dir.join("run.jsonl");
    let mock = Mock::start(
        Flavour::OpenAi,
        Duration::from_millis(80),
        Vec::new(),
        Arc::new(|_: &Received| Scripted::Text("Action: Timed_wait()".into())),
    );
    let args = [
        KETTLE,
        "--repeats",
        "5",
        "--base-url",
        &mock.base_url,
        "--model",
        "m",
        "--concurrency",
        "2",
        "--lambda",
        "2",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ];
    let child = eval_command(&args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(&out).map_or(0, |t| t.lines().count()) < 1
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(10));
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let o = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{stderr}");
    let done = records(&out).len();
    assert!(done < planned(5).len());
    assert!(
        stderr.contains(&format!("stopped: {done} of 15 episodes are in")),
        "{stderr}"
    );
    assert!(stderr.contains("run the same command again"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

//! `knoblab eval --cache DIR` against a mock OpenAI-compatible server on a
//! loopback port, counting the requests it gets: a first run sends one per
//! step, a rerun of the finished sweep none (every turn marked `cached`,
//! no cost), a changed prompt or picture misses; a failed call is retried
//! and only its good reply is kept, a reply cut by the token limit is never
//! kept; processes running at once share one cache folder.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use knoblab_core::bundle::load_path;
use knoblab_eval::agents::Oracle;
use knoblab_eval::vlm::EpisodeRecord;
use serde_json::Value;

const KETTLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/kettle");

/// What the mock does with the n-th request (from 0) and its JSON body:
/// a status and a body.
type Respond = Arc<dyn Fn(usize, &Value) -> (u16, String) + Send + Sync>;

/// A mock model server counting its requests.
struct Mock {
    base_url: String,
    count: Arc<AtomicUsize>,
}

impl Mock {
    fn start(delay: Duration, respond: Respond) -> Mock {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let count = Arc::new(AtomicUsize::new(0));
        let counter = count.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (counter, respond) = (counter.clone(), respond.clone());
                std::thread::spawn(move || serve(stream, delay, &counter, respond.as_ref()));
            }
        });
        Mock { base_url, count }
    }

    fn requests(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }
}

fn serve(
    stream: TcpStream,
    delay: Duration,
    count: &AtomicUsize,
    respond: &(dyn Fn(usize, &Value) -> (u16, String) + Send + Sync),
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    let mut length = 0usize;
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        if line.trim().is_empty() {
            break;
        }
        if let Some((n, v)) = line.split_once(':') {
            if n.trim().eq_ignore_ascii_case("content-length") {
                length = v.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let n = count.fetch_add(1, Ordering::SeqCst);
    let json: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let (status, reply) = respond(n, &json);
    std::thread::sleep(delay);
    let head = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n",
        reply.len()
    );
    let mut stream = stream;
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(reply.as_bytes());
}

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

/// The oracle's action for the request's task (by its instruction) and
/// turn (the assistant messages so far: the runs keep the full history).
fn oracle_action(actions: &BTreeMap<String, Vec<String>>, body: &Value) -> (usize, String) {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let turn = messages.iter().filter(|m| m["role"] == "assistant").count();
    let last = messages.last().map(text_of).unwrap_or_default();
    let action = actions
        .iter()
        .find(|(i, _)| last.contains(i.as_str()))
        .and_then(|(_, a)| a.get(turn).cloned())
        .unwrap_or_else(|| "Timed_wait()".into());
    (turn, action)
}

fn reply(text: &str, finish: &str) -> String {
    serde_json::json!({
        "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 1000, "completion_tokens": 20}
    })
    .to_string()
}

/// Every kettle task's oracle actions, by the task's first instruction.
fn kettle_oracle() -> BTreeMap<String, Vec<String>> {
    let bundle = load_path(Path::new(KETTLE)).unwrap();
    let oracle = Oracle::new(&bundle);
    bundle
        .tasks
        .iter()
        .map(|t| (t.goals[0].instruction.clone(), oracle.plan_actions(t)))
        .collect()
}

/// Answers every turn with the oracle's action.
fn oracle() -> Respond {
    let actions = kettle_oracle();
    Arc::new(move |_, body| {
        let (turn, action) = oracle_action(&actions, body);
        (
            200,
            reply(&format!("Thought: turn {turn}.\nAction: {action}"), "stop"),
        )
    })
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("knoblab-cache-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn eval_command(mock: &Mock, cache: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_knoblab"));
    c.args(["eval", KETTLE, "--tasks", "boil,open_lid", "--repeats", "2"])
        .args(["--base-url", &mock.base_url, "--model", "mock-vlm"])
        .args(["--history", "full", "--timeout", "5"])
        .args(["--retries", "2", "--backoff", "0.05"])
        .args(["--price-in", "2.5", "--price-out", "10"])
        .args(["--api-key-env", "KNOBLAB_NO_SUCH_KEY", "--json"])
        .arg("--cache")
        .arg(cache)
        .arg("--out")
        .arg(out)
        .args(extra);
    c
}

fn eval(mock: &Mock, cache: &Path, out: &Path, extra: &[&str]) -> Output {
    let o = eval_command(mock, cache, out, extra).output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// A run's records, by item (the file holds them as they ended).
fn records(path: &Path) -> Vec<EpisodeRecord> {
    let mut r = EpisodeRecord::parse_lines(&std::fs::read_to_string(path).unwrap()).unwrap();
    r.sort_by(|a, b| a.item.cmp(&b.item));
    r
}

fn turns(records: &[EpisodeRecord]) -> usize {
    records.iter().map(|r| r.turns.len()).sum()
}

/// The cache's entry files, and any file that is not one.
fn entries(cache: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            if e.path().is_dir() {
                walk(&e.path(), out);
            } else {
                out.push(e.path());
            }
        }
    }
    let mut all = Vec::new();
    walk(cache, &mut all);
    all.into_iter().partition(|p| {
        p.extension().is_some_and(|e| e == "json")
            && serde_json::from_slice::<Value>(&std::fs::read(p).unwrap()).is_ok()
    })
}

#[test]
fn a_rerun_sends_nothing_and_a_changed_prompt_or_picture_misses() {
    let dir = temp_dir("rerun");
    let cache = dir.join("cache");
    let mock = Mock::start(Duration::ZERO, oracle());

    let first = dir.join("first.jsonl");
    let o = eval(&mock, &cache, &first, &[]);
    let a = records(&first);
    assert_eq!(a.len(), 4);
    assert!(a.iter().all(|r| r.trajectory.terminated));
    let sent = mock.requests();
    assert_eq!(sent, turns(&a), "one request per turn");
    assert!(a.iter().flat_map(|r| &r.turns).all(|t| !t.cached));
    assert!(a.iter().all(|r| r.cost.is_some_and(|c| c > 0.0)));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains(&format!(
            "cache: 0 replies reused, {sent} requests sent, {sent} replies stored"
        )),
        "{stderr}"
    );
    let (whole, other) = entries(&cache);
    assert_eq!((whole.len(), other.len()), (sent, 0), "{other:?}");

    // The same sweep into a new file: nothing is sent, every turn is
    // marked, the episodes are the same, and nothing is paid.
    let second = dir.join("second.jsonl");
    let o = eval(&mock, &cache, &second, &[]);
    assert_eq!(mock.requests(), sent, "a rerun sends no request");
    let b = records(&second);
    assert_eq!(b.len(), 4);
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.item, y.item);
        assert_eq!(x.trajectory.steps, y.trajectory.steps);
        assert_eq!(x.usage, y.usage, "tokens are kept");
        assert_eq!(y.cost, Some(0.0), "a cached reply costs nothing");
        assert!(y.turns.iter().all(|t| t.cached));
        let replies =
            |r: &EpisodeRecord| r.turns.iter().map(|t| t.reply.clone()).collect::<Vec<_>>();
        assert_eq!(replies(x), replies(y));
    }
    assert_eq!(json(&o)["sr"], 1.0);

    // Another prompt (the coordinates' convention is in its text): every
    // request is sent, nothing comes from the cache.
    let before = mock.requests();
    let unit = dir.join("unit.jsonl");
    eval(&mock, &cache, &unit, &["--coords", "0-1"]);
    let c = records(&unit);
    assert_eq!(mock.requests() - before, turns(&c));
    assert!(c.iter().flat_map(|r| &r.turns).all(|t| !t.cached));

    // Another picture (a JPEG of it): the same text, a different image,
    // so every request is sent.
    let before = mock.requests();
    let jpeg = dir.join("jpeg.jsonl");
    eval(&mock, &cache, &jpeg, &["--perturb", "jpeg:40"]);
    let d = records(&jpeg);
    assert_eq!(mock.requests() - before, turns(&d));
    assert!(d.iter().flat_map(|r| &r.turns).all(|t| !t.cached));
    std::fs::remove_dir_all(&dir).unwrap();
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn a_failed_call_is_retried_and_not_kept_nor_a_reply_cut_by_the_token_limit() {
    let dir = temp_dir("failures");
    let cache = dir.join("cache");
    let actions = kettle_oracle();
    // The first request gets a 500; every turn 1 is cut by the token
    // limit (`finish_reason: length`) but still holds its action.
    let respond: Respond = Arc::new(move |n, body| {
        if n == 0 {
            return (500, r#"{"error":{"message":"boom"}}"#.into());
        }
        let (turn, action) = oracle_action(&actions, body);
        let finish = if turn == 1 { "length" } else { "stop" };
        (
            200,
            reply(&format!("Thought: turn {turn}.\nAction: {action}"), finish),
        )
    });
    let mock = Mock::start(Duration::ZERO, respond);
    let first = dir.join("first.jsonl");
    eval(&mock, &cache, &first, &["--concurrency", "1"]);
    let a = records(&first);
    assert_eq!(a.len(), 4);
    assert!(a.iter().all(|r| r.trajectory.terminated));
    assert_eq!(a[0].turns[0].attempts, 2, "the 500 was retried");
    let cut = a.iter().filter(|r| r.turns.len() > 1).count();
    assert!(cut > 0, "some episode has a turn 1");
    assert_eq!(
        mock.requests(),
        turns(&a) + 1,
        "one request per turn, one retry"
    );
    let (whole, _) = entries(&cache);
    assert_eq!(
        whole.len(),
        turns(&a) - cut,
        "neither the 500 nor a cut reply is kept"
    );

    // The rerun sends exactly the turns whose reply was not kept.
    let before = mock.requests();
    let second = dir.join("second.jsonl");
    eval(&mock, &cache, &second, &["--concurrency", "1"]);
    let b = records(&second);
    assert_eq!(mock.requests() - before, cut);
    for r in &b {
        for (i, t) in r.turns.iter().enumerate() {
            assert_eq!(t.cached, i != 1, "{}: turn {i}", r.item);
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn processes_running_at_once_share_one_cache() {
    let dir = temp_dir("shared");
    let cache = dir.join("cache");
    // A delay per reply, so the processes' requests overlap.
    let mock = Mock::start(Duration::from_millis(20), oracle());
    let outs: Vec<PathBuf> = (0..3).map(|i| dir.join(format!("p{i}.jsonl"))).collect();
    let children: Vec<_> = outs
        .iter()
        .map(|out| {
            eval_command(&mock, &cache, out, &["--quiet"])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let per_run = turns(&records(&outs[0]));
    for out in &outs {
        let r = records(out);
        assert_eq!(r.len(), 4);
        assert!(r.iter().all(|r| r.trajectory.terminated));
    }
    let sent = mock.requests();
    assert!(
        (per_run..=3 * per_run).contains(&sent),
        "{sent} requests for three runs of {per_run} turns"
    );
    // Whole entries only, no temporary file left, one per request.
    let (whole, other) = entries(&cache);
    assert!(other.is_empty(), "{other:?}");
    assert_eq!(whole.len(), per_run);
    // And a fourth run finds every reply.
    let last = dir.join("last.jsonl");
    eval(&mock, &cache, &last, &[]);
    assert_eq!(mock.requests(), sent);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_cache_that_cannot_be_made_stops_the_run_before_any_request() {
    let dir = temp_dir("bad");
    let mock = Mock::start(Duration::ZERO, oracle());
    let file = dir.join("a-file");
    std::fs::write(&file, "").unwrap();
    let o = eval_command(&mock, &file, &dir.join("out.jsonl"), &[])
        .output()
        .unwrap();
    assert_ne!(o.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("a-file"), "{stderr}");
    assert_eq!(mock.requests(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

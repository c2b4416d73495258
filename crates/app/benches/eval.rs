//! The native runner at full tilt: 64 episodes in flight against a local
//! mock OpenAI-compatible server that answers at once (in a child process,
//! so the CPU measured is the runner's alone). Prints episodes per second,
//! CPU per step, and the share of that CPU spent encoding pictures into
//! requests (base64 and the JSON body, measured apart on the same views).
//!
//! `cargo bench --bench eval` (figures in docs/performance.md's section
//! "Evaluate a model from the command line").

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)] // a benchmark: criterion's macros write undocumented items, and a setup that fails should stop it
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use knoblab_app::run::{evaluate, load_library, make_plan, DeviceFilter, EvalOptions};
use knoblab_core::sim::Episode;
use knoblab_eval::vlm::{AgentSettings, ApiKey, ModelAgent, Source};

const IN_FLIGHT: usize = 64;

/// Seconds of CPU this process has used (user + system), from /proc.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<f64> = after
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0.0))
        .collect();
    // utime and stime are fields 14 and 15 (11 and 12 after the name).
    (fields.get(11).unwrap_or(&0.0) + fields.get(12).unwrap_or(&0.0)) / 100.0
}

/// The mock: keep-alive HTTP/1.1, every request answered at once.
fn serve() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    println!("{}", listener.local_addr().unwrap());
    std::io::stdout().flush().unwrap();
    for stream in listener.incoming().flatten() {
        std::thread::spawn(move || connection(stream));
    }
}

fn connection(stream: TcpStream) {
    let body = r#"{"choices":[{"message":{"content":"Thought: wait.\nAction: Timed_wait()"}}],"usage":{"prompt_tokens":900,"completion_tokens":12}}"#;
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
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
                if n.eq_ignore_ascii_case("content-length") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
        }
        let mut sink = vec![0; length];
        if reader.read_exact(&mut sink).is_err() {
            return;
        }
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        if writer.write_all(head.as_bytes()).is_err() || writer.write_all(body.as_bytes()).is_err()
        {
            return;
        }
    }
}

fn main() {
    if std::env::var_os("KNOBLAB_BENCH_MOCK").is_some() {
        return serve();
    }
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let mut mock = Command::new(std::env::current_exe().unwrap())
        .env("KNOBLAB_BENCH_MOCK", "1")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut addr = String::new();
    BufReader::new(mock.stdout.take().unwrap())
        .read_line(&mut addr)
        .unwrap();

    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let filter = DeviceFilter {
        devices: vec!["airfryer-0001".into(), "alarmclock-0001".into()],
        categories: Vec::new(),
    };
    let bundles = load_library(&root.join("data/library.json"), &filter).unwrap();
    let mut settings = AgentSettings::default();
    settings.endpoint.base_url = format!("http://{}/v1", addr.trim());
    settings.endpoint.model = "mock".into();
    settings.lambda = 1;
    settings.concurrency = IN_FLIGHT as u32;
    let tasks: usize = bundles.iter().map(|b| b.tasks.len()).sum();
    let repeats = (4 * IN_FLIGHT).div_ceil(tasks) as u32;
    let plan = make_plan(Source::Model, settings.clone(), bundles, &[], repeats, None).unwrap();
    let out = std::env::temp_dir().join(format!("knoblab-bench-eval-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(knoblab_app::run::spec_path(&out));
    let options = EvalOptions {
        key: ApiKey::new("sk-bench"),
        concurrency: IN_FLIGHT,
        max_cost: None,
        shard: None,
        select: None,
        send_to: None,
        cache: None,
    };

    let cpu0 = cpu_seconds();
    let t0 = Instant::now();
    let outcome = evaluate(&plan, &options, &out, &|_| {}, &AtomicBool::new(false)).unwrap();
    let wall = t0.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu0;
    let _ = mock.kill();
    let _ = mock.wait();
    let episodes = outcome.records.len();
    let steps: usize = outcome
        .records
        .iter()
        .map(|r| r.trajectory.steps.len())
        .sum();
    let requests: u32 = outcome
        .records
        .iter()
        .flat_map(|r| r.turns.iter())
        .map(|t| t.attempts)
        .sum();

    // The same steps' requests built again, alone: base64 of the picture
    // and the JSON body, what a request costs before it is sent.
    let mut build = 0.0;
    for record in outcome.records.iter().take(16) {
        let bundle = plan
            .bundles
            .iter()
            .find(|b| b.manifest.id == record.trajectory.bundle_id)
            .unwrap();
        let mut episode = Episode::new(bundle);
        let (observation, _) = episode
            .reset(&record.trajectory.task_id, Default::default())
            .unwrap();
        let image = &bundle.views[&observation.view].image;
        let mut agent = ModelAgent::new(settings.clone());
        let t = Instant::now();
        for _ in 0..64 {
            agent.restart(0);
            std::hint::black_box(agent.prepare(&observation, image, "sk-bench").unwrap());
        }
        build += t.elapsed().as_secs_f64() / 64.0;
    }
    let per_request = build / 16.0;

    // Appending a finished episode: one whole line, then fsync.
    let probe = out.with_extension("probe.jsonl");
    let mut writer = knoblab_app::run::Output::open(&probe, &Default::default(), false).unwrap();
    let t = Instant::now();
    for record in outcome.records.iter().take(64) {
        writer.append(record).unwrap();
    }
    let per_append = t.elapsed().as_secs_f64() / outcome.records.len().clamp(1, 64) as f64;
    let _ = std::fs::remove_file(&probe);
    let encode_share = per_request * requests as f64 / cpu.max(1e-9);

    println!(
        "eval: {episodes} episodes, {steps} steps, {requests} requests, {IN_FLIGHT} in flight"
    );
    println!(
        "eval: {:.1} episodes/s, {:.0} steps/s, wall {wall:.2} s, CPU {cpu:.2} s",
        episodes as f64 / wall,
        steps as f64 / wall
    );
    println!(
        "eval: CPU per step {:.3} ms; building a request (picture base64 + JSON) {:.3} ms, \
         {:.0}% of the CPU",
        cpu * 1000.0 / steps.max(1) as f64,
        per_request * 1000.0,
        encode_share * 100.0
    );
    println!(
        "eval: appending an episode (one line + fsync, under the file's lock) {:.2} ms, \
         {:.0}% of the wall time at most one writer at a time",
        per_append * 1000.0,
        per_append * episodes as f64 / wall * 100.0
    );
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(knoblab_app::run::spec_path(&out));
}

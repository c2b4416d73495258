//! The episode driver with no I/O at all: the test is the transport and
//! the clock. What it asks for (a request, a wait, nothing), what it does
//! with each answer (a reply, a 429 with Retry-After, a timeout, a
//! malformed body), and that every agent plays through it alike: the
//! replay through the driver is the replay `run_episode` plays.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

use std::path::Path;
use std::sync::Arc;

use knoblab_core::bundle::{load_path, Bundle};
use knoblab_core::metrics::file::EpisodeStatus;
use knoblab_core::sim::Episode;
use knoblab_eval::agents::{run_episode, Oracle};
use knoblab_eval::vlm::batch::{plan, BatchItem, RunSpec, Source};
use knoblab_eval::vlm::driver::{player, Answer, ApiKey, DriverConfig, EpisodeDriver, Event, Need};
use knoblab_eval::vlm::{AgentSettings, Failure, Flavor, RecordedAnswers, RetryPolicy};

const KETTLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/kettle");

fn kettle() -> Bundle {
    load_path(Path::new(KETTLE)).unwrap()
}

fn spec(bundle: &Bundle, source: Source) -> RunSpec {
    let settings = AgentSettings {
        retry: RetryPolicy {
            retries: 2,
            base_ms: 100,
            cap_ms: 10_000,
        },
        lambda: 2,
        ..AgentSettings::default()
    };
    let tasks = vec![(bundle.manifest.id.clone(), vec!["boil".to_string()])];
    RunSpec::new(source, settings, plan(&tasks, 1), &[bundle])
}

fn reply(text: &str) -> Answer {
    let body = serde_json::json!({
        "choices": [{"message": {"content": text}}],
        "usage": {"prompt_tokens": 500, "completion_tokens": 12}
    });
    Answer::Response {
        status: 200,
        retry_after: None,
        body: body.to_string(),
    }
}

fn driver<'b>(bundle: &'b Bundle, spec: &RunSpec, key: &str) -> EpisodeDriver<'b, 'b> {
    let item = spec.items[0].clone();
    let agent = player(spec, bundle, None, item.repeat).unwrap();
    let mut config = DriverConfig::for_run(spec, ApiKey::new(key));
    config.watch = true;
    EpisodeDriver::new(Episode::new(bundle), &item, agent, config).unwrap()
}

#[test]
fn a_model_episode_asks_waits_as_told_and_ends_with_its_record() {
    let bundle = kettle();
    let spec = spec(&bundle, Source::Model);
    let oracle = Oracle::new(&bundle);
    let solution = oracle.plan_actions(bundle.task("boil").unwrap());
    assert!(!solution.is_empty());
    let mut d = driver(&bundle, &spec, "sk-abc");

    // The first request carries the key in its header, nowhere else.
    let Need::Send {
        request,
        timeout_ms,
    } = d.poll(1_000).unwrap()
    else {
        panic!("a model episode starts with a request");
    };
    assert_eq!(timeout_ms, spec.settings.timeout_ms);
    assert_eq!(request.url, "https://api.openai.com/v1/chat/completions");
    assert_eq!(
        request.headers[0],
        ("authorization".into(), "Bearer sk-abc".into())
    );
    assert!(!request.body.contains("sk-abc"));
    // Polling again without an answer asks for the same request.
    assert_eq!(
        d.poll(1_001).unwrap(),
        Need::Send {
            request: request.clone(),
            timeout_ms
        }
    );

    // A 429 asking for 3 s: the driver waits exactly that, then re-sends.
    d.feed(
        Answer::Response {
            status: 429,
            retry_after: Some("3".into()),
            body: r#"{"error":{"message":"slow down"}}"#.into(),
        },
        1_100,
    );
    assert_eq!(d.poll(1_100).unwrap(), Need::Wait { ms: 3_000 });
    assert_eq!(d.poll(2_600).unwrap(), Need::Wait { ms: 1_500 });
    let Need::Send { request: again, .. } = d.poll(4_100).unwrap() else {
        panic!("the retry after the wait");
    };
    assert_eq!(again, request);
    // A timeout next: the backoff's second wait (2 × 100 ms).
    d.feed(
        Answer::Failure(Failure::Timeout { after_ms: 60_000 }),
        5_000,
    );
    assert_eq!(d.poll(5_000).unwrap(), Need::Wait { ms: 200 });
    assert!(matches!(d.poll(5_200).unwrap(), Need::Send { .. }));

    // Then the oracle's actions, one reply per turn.
    let mut now = 5_300;
    let mut turns = 0;
    let record = loop {
        match d.poll(now).unwrap() {
            Need::Send { .. } => {
                let action = solution
                    .get(turns)
                    .cloned()
                    .unwrap_or("Timed_wait()".into());
                d.feed(reply(&format!("Thought: go.\nAction: {action}")), now + 40);
                turns += 1;
            }
            Need::Wait { ms } => now += ms,
            Need::Done(record) => break record,
        }
        now += 50;
    };
    assert_eq!(record.status, EpisodeStatus::Finished);
    assert!(record.trajectory.terminated);
    assert_eq!(record.turns.len(), solution.len());
    assert_eq!(record.turns[0].attempts, 3, "429, timeout, then the reply");
    assert_eq!(record.turns[0].elapsed_ms, 5_340 - 1_000);
    assert_eq!(record.usage.input_tokens, 500 * solution.len() as u64);
    assert_eq!(record.trajectory.settings.model.as_deref(), Some("gpt-4o"));
    assert!(!serde_json::to_string(&record).unwrap().contains("sk-abc"));
    assert!(!format!("{d:?}").contains("sk-abc"));

    let events = d.take_events();
    let retries: Vec<u64> = events
        .iter()
        .filter_map(|e| match e {
            Event::Retrying { wait_ms, .. } => Some(*wait_ms),
            _ => None,
        })
        .collect();
    assert_eq!(retries, [3_000, 200]);
    let steps = events
        .iter()
        .filter(|e| matches!(e, Event::Step(_)))
        .count();
    assert_eq!(steps, solution.len());
    // Polling after the end gives the same record again.
    assert_eq!(d.poll(now).unwrap(), Need::Done(record));
}

#[test]
fn a_request_that_fails_for_good_ends_the_episode_as_api_error() {
    let bundle = kettle();
    let spec = spec(&bundle, Source::Model);
    // A malformed reply is not retried.
    let mut d = driver(&bundle, &spec, "");
    let Need::Send { request, .. } = d.poll(0).unwrap() else {
        panic!()
    };
    assert!(
        request.headers.iter().all(|(n, _)| n != "authorization"),
        "no key, no header"
    );
    d.feed(
        Answer::Response {
            status: 200,
            retry_after: None,
            body: "<html>".into(),
        },
        10,
    );
    let Need::Done(record) = d.poll(10).unwrap() else {
        panic!("a malformed reply ends the episode")
    };
    assert_eq!(record.status, EpisodeStatus::ApiError);
    assert!(record.api_error().unwrap().contains("not JSON"));
    assert_eq!(record.turns[0].attempts, 1);
    assert!(record.trajectory.steps.is_empty());

    // 500s until the retries (2) are used up: three attempts.
    let mut d = driver(&bundle, &spec, "");
    let mut now = 0;
    let mut sent = 0;
    let record = loop {
        match d.poll(now).unwrap() {
            Need::Send { .. } => {
                sent += 1;
                d.feed(
                    Answer::Response {
                        status: 500,
                        retry_after: None,
                        body: String::new(),
                    },
                    now,
                );
            }
            Need::Wait { ms } => now += ms,
            Need::Done(r) => break r,
        }
    };
    assert_eq!(sent, 3);
    assert_eq!(record.api_error(), Some("HTTP 500: (empty body)"));
    assert_eq!(record.turns[0].attempts, 3);
    // The failed request is a step the page shows, without a record.
    let failed = d
        .take_events()
        .into_iter()
        .find_map(|e| match e {
            Event::Step(s) => Some(s),
            _ => None,
        })
        .unwrap();
    assert!(failed.record.is_none() && failed.image.is_some());
}

#[test]
fn the_oracle_and_a_replay_need_nothing_and_match_run_episode() {
    let bundle = kettle();
    let oracle_spec = spec(&bundle, Source::Oracle);
    let mut d = driver(&bundle, &oracle_spec, "sk-unused");
    let Need::Done(record) = d.poll(0).unwrap() else {
        panic!("the oracle sends nothing")
    };
    assert!(record.trajectory.terminated);
    assert!(record.turns.is_empty() && record.cost.is_none());
    assert_eq!(record.trajectory.settings.agent, "oracle");
    let mut oracle = Oracle::new(&bundle);
    let direct = run_episode(&bundle, "boil", &mut oracle, &record.trajectory.settings).unwrap();
    assert_eq!(direct, record.trajectory);

    // Replaying that record through the driver: the same steps, played
    // through the model agent's prompt and parser, no request sent.
    let text = serde_json::to_string(&*record).unwrap();
    let replay = Arc::new(RecordedAnswers::parse(&text).unwrap());
    let replay_spec = spec(&bundle, Source::Replay);
    let item = BatchItem {
        bundle_id: bundle.manifest.id.clone(),
        task_id: "boil".into(),
        repeat: 0,
    };
    let agent = player(&replay_spec, &bundle, Some(&replay), 0).unwrap();
    let config = DriverConfig::for_run(&replay_spec, ApiKey::default());
    let mut d = EpisodeDriver::new(Episode::new(&bundle), &item, agent, config).unwrap();
    let Need::Done(replayed) = d.poll(0).unwrap() else {
        panic!("a replay sends nothing")
    };
    assert_eq!(replayed.trajectory.steps, record.trajectory.steps);
    assert_eq!(replayed.turns.len(), record.trajectory.steps.len());
    assert_eq!(replayed.trajectory.settings.agent, "replay");
    // No replay file: the player cannot be made.
    assert!(player(&replay_spec, &bundle, None, 0).is_err());
}

#[test]
fn a_run_spec_names_what_differs_and_reads_back() {
    let bundle = kettle();
    let a = spec(&bundle, Source::Model);
    let mut b = a.clone();
    assert!(a.differences(&b).is_empty());
    b.settings.concurrency = 9;
    b.settings.timeout_ms = 5;
    assert!(
        a.differences(&b).is_empty(),
        "concurrency and timeout may change"
    );
    b.settings.endpoint.model = "other".into();
    b.settings.lambda = 7;
    b.settings.endpoint.flavor = Flavor::Anthropic;
    b.bundles
        .insert(bundle.manifest.id.clone(), "changed".into());
    let d = a.differences(&b);
    assert!(
        d.contains(&"model: gpt-4o before, other now".to_string()),
        "{d:?}"
    );
    assert!(d.contains(&"λ: 2 before, 7 now".to_string()), "{d:?}");
    assert!(
        d.iter()
            .any(|x| x.starts_with("API: openai before, anthropic now")),
        "{d:?}"
    );
    assert!(
        d.iter().any(|x| x.starts_with("the logic of device")),
        "{d:?}"
    );
    let text = serde_json::to_string(&a).unwrap();
    assert_eq!(RunSpec::parse(&text).unwrap(), a);
    let newer = text.replacen("\"version\":2", "\"version\":99", 1);
    assert_ne!(newer, text, "the spec is written at version 2");
    assert!(RunSpec::parse(&newer)
        .unwrap_err()
        .to_string()
        .contains("version 99"));
    // A model run's episodes record the model; an oracle run's do not.
    assert_eq!(a.trajectory_settings().model.as_deref(), Some("gpt-4o"));
    assert_eq!(
        spec(&bundle, Source::Oracle).trajectory_settings().model,
        None
    );
}

/// The requests of one model episode on `bundle`'s first task in `render`
/// mode, the model replying with the oracle's actions: each request body
/// with its pictures taken out, the pictures, and the record.
fn model_episode_in(
    bundle: &Bundle,
    render: knoblab_core::sim::RenderMode,
) -> (
    Vec<serde_json::Value>,
    Vec<String>,
    knoblab_eval::vlm::EpisodeRecord,
) {
    fn take_pictures(v: &mut serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::String(s) if s.starts_with("data:image") => {
                out.push(std::mem::replace(s, "<picture>".into()));
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(|x| take_pictures(x, out)),
            serde_json::Value::Object(m) => m.values_mut().for_each(|x| take_pictures(x, out)),
            _ => {}
        }
    }
    let task = bundle.tasks[0].id.clone();
    let settings = AgentSettings {
        render,
        ..AgentSettings::default()
    };
    let tasks = vec![(bundle.manifest.id.clone(), vec![task.clone()])];
    let spec = RunSpec::new(Source::Model, settings, plan(&tasks, 1), &[bundle]);
    let solution = Oracle::new(bundle).plan_actions(bundle.task(&task).unwrap());
    let mut d = driver(bundle, &spec, "sk-test");
    let (mut bodies, mut pictures, mut now, mut turns) = (Vec::new(), Vec::new(), 0, 0);
    loop {
        match d.poll(now).unwrap() {
            Need::Send { request, .. } => {
                let mut body: serde_json::Value = serde_json::from_str(&request.body).unwrap();
                take_pictures(&mut body, &mut pictures);
                bodies.push(body);
                let action = solution
                    .get(turns)
                    .cloned()
                    .unwrap_or("Timed_wait()".into());
                d.feed(reply(&format!("Thought: go.\nAction: {action}")), now + 10);
                turns += 1;
            }
            Need::Wait { ms } => now += ms,
            Need::Done(record) => return (bodies, pictures, *record),
        }
        now += 20;
    }
}

#[test]
fn a_live_model_episode_sends_the_same_prompt_and_only_other_pictures() {
    use knoblab_core::sim::RenderMode;
    let bundle = load_path(Path::new(concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "/data/devices/microwave-0001"
    )))
    .unwrap();
    let (still, still_pictures, still_record) = model_episode_in(&bundle, RenderMode::Static);
    let (live, live_pictures, live_record) = model_episode_in(&bundle, RenderMode::Live);
    // Every request's text (system prompt, instruction, history, feedback)
    // is the same in both modes: the model is told nothing different.
    assert!(still.len() > 1);
    assert_eq!(still, live);
    assert_eq!(still_pictures.len(), live_pictures.len());
    // What it sees differs once the state has a sign (the first picture is
    // of the initial state, drawn the same or not at all differently).
    let differing = still_pictures
        .iter()
        .zip(&live_pictures)
        .filter(|(a, b)| a != b)
        .count();
    assert!(differing > 0, "no live picture differs from the static one");
    // The mode is in the record's settings; the steps and feedback agree.
    assert_eq!(still_record.trajectory.settings.render, RenderMode::Static);
    assert_eq!(live_record.trajectory.settings.render, RenderMode::Live);
    let steps =
        |r: &knoblab_eval::vlm::EpisodeRecord| serde_json::to_value(&r.trajectory.steps).unwrap();
    assert_eq!(steps(&still_record), steps(&live_record));
    assert_eq!(still_record.status, EpisodeStatus::Finished);
}

//! FineState-Bench scoring speed on the synthetic 2,209-instance set.
//! Official code (spec §11): parse 0.13–0.22 s; parse + score + metrics
//! 0.26–0.57 s; end to end 2.4–8.0 s.
//!
//! Measured 2026-11-30 on the shared 2-core machine (load average 5–10), with
//! `CARGO_PROFILE_BENCH_OPT_LEVEL=3 CARGO_PROFILE_BENCH_LTO=false
//! CARGO_PROFILE_BENCH_CODEGEN_UNITS=16 cargo bench --bench finestate`:
//! parse 4,418 replies 14.4 ms; parse + score + metrics (both modes) 55 ms;
//! load + read predictions + score + JSON 165 ms.

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)] // a benchmark: criterion's macros write undocumented items, and a setup that fails should stop it

use criterion::{criterion_group, criterion_main, Criterion};
use knoblab_score::finestate::evaluate::{OfficialOptions, Reply};
use knoblab_score::finestate::loader::{load_dataset, ImagePolicy};
use knoblab_score::finestate::parser::{parse_reply, ParserBuild};
use knoblab_score::finestate::predictions::read_predictions;
use knoblab_score::finestate::report::{score, ScoreOptions};
use knoblab_score::finestate::synthetic::{generate, PAPER_INSTANCES};

fn bench(c: &mut Criterion) {
    let set = generate(PAPER_INSTANCES, 42);
    let data = load_dataset(&set.files, ImagePolicy::Check);
    let Ok(preds) = read_predictions("synthetic.jsonl", &set.predictions) else {
        return;
    };
    let options = ScoreOptions {
        official: OfficialOptions {
            model: Some("google/gemini-2.5-flash".into()),
            parser: ParserBuild::Py,
            vda: false,
        },
        convention: Default::default(),
    };
    let texts: Vec<&str> = preds
        .predictions
        .iter()
        .flat_map(|p| [&p.locate, &p.interact])
        .filter_map(|r| match r {
            Some(Reply::Text(t)) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    let mut group = c.benchmark_group("finestate_2209");
    group.sample_size(10);
    group.bench_function("parse_4418_replies", |b| {
        b.iter(|| {
            texts
                .iter()
                .filter(|t| {
                    parse_reply(t, options.official.model.as_deref(), ParserBuild::Py).success
                })
                .count()
        })
    });
    group.bench_function("parse_score_metrics", |b| {
        b.iter(|| score(&data, &preds, &options))
    });
    group.bench_function("end_to_end_load_parse_score_json", |b| {
        b.iter(|| {
            let data = load_dataset(&set.files, ImagePolicy::Check);
            let preds = read_predictions("synthetic.jsonl", &set.predictions).ok()?;
            let report = score(&data, &preds, &options);
            Some(report.to_json(None).to_string().len())
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

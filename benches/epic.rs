//! EPIC-Bench scoring speed on the deterministic 6,661-sample synthetic set
//! (`score::epic::synthetic`). The official Python needs about 2 CPU-minutes
//! for the scorer and 1.3 s for the formatter on a set like this
//! (`epic-official.md` §16).

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)] // a benchmark: criterion's macros write undocumented items, and a setup that fails should stop it

use criterion::{criterion_group, criterion_main, Criterion};
use knoblab::score::epic::formatter::{format_jsonl, FormatOptions};
use knoblab::score::epic::render::write_json;
use knoblab::score::epic::report::{score_text, score_text_for_output};
use knoblab::score::epic::synthetic::generate;
use knoblab::score::epic::RunOptions;

fn bench(c: &mut Criterion) {
    let set = generate(2026);
    let std = format_jsonl(&set.raw_jsonl, &FormatOptions::default()).to_jsonl();
    let opts = RunOptions::default();
    let mut g = c.benchmark_group("epic_6661");
    g.bench_function("format_raw", |b| {
        b.iter(|| {
            format_jsonl(&set.raw_jsonl, &FormatOptions::default())
                .records
                .len()
        })
    });
    g.bench_function("score_std_official_and_corrected", |b| {
        b.iter(|| {
            score_text(&std, &set.gt, &opts)
                .map(|r| r.official.summary.overall.mean_score)
                .unwrap_or(f64::NAN)
        })
    });
    // What `knoblab score epic --json` does after reading the files: raw
    // replies formatted and scored in both passes, the document streamed.
    g.bench_function("score_raw_both_passes_and_write_json", |b| {
        b.iter(|| {
            score_text_for_output(&set.raw_jsonl, &set.gt, &opts)
                .ok()
                .filter(|r| write_json(r, "raw.jsonl", std::io::sink()).is_ok())
                .map_or(f64::NAN, |r| r.official.summary.overall.mean_score)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

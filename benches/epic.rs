//! EPIC-Bench scoring speed on the deterministic 6,661-sample synthetic set
//! (`score::epic::synthetic`). The official Python needs about 2 CPU-minutes
//! for the scorer and 1.3 s for the formatter on a set like this
//! (`epic-official.md` §16).

use criterion::{criterion_group, criterion_main, Criterion};
use knoblab::score::epic::formatter::{format_jsonl, FormatOptions};
use knoblab::score::epic::report::score_text;
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
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

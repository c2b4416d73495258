//! EPIC-Bench scoring speed on the deterministic 6,661-sample synthetic set
//! (`score::epic::synthetic`). The official Python needs about 2 CPU-minutes
//! for the scorer and 1.3 s for the formatter on a set like this
//! (`epic-official.md` §16).

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)] // a benchmark: criterion's macros write undocumented items, and a setup that fails should stop it
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use knoblab_core::input::zip::{BoundedZip, ZipLimits};
use knoblab_score::epic::formatter::{format_jsonl, FormatOptions};
use knoblab_score::epic::render::write_json;
use knoblab_score::epic::report::{score_text, score_text_for_output};
use knoblab_score::epic::synthetic::generate;
use knoblab_score::epic::RunOptions;

/// The `knoblab` binary's allocator (src/main.rs), so that these figures
/// are the CLI's; the library's own code is the same with any allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    // A dropped GT zip (deflated, as `epic_synthetic` writes it): its
    // central directory read, and then every entry inflated, as a job's
    // workers read it between them.
    let zip = zip_of(set.gt.files());
    g.bench_function("gt_zip_open", |b| {
        b.iter(|| {
            BoundedZip::open(&zip, ZipLimits::RESULTS)
                .map(|z| z.len())
                .unwrap_or(0)
        })
    });
    g.bench_function("gt_zip_open_and_read_every_entry", |b| {
        b.iter(|| {
            let mut z = BoundedZip::open(&zip, ZipLimits::RESULTS).unwrap();
            (0..z.len())
                .filter(|&i| matches!(z.read_index(i), Ok(Some(_))))
                .count()
        })
    });
    g.finish();
}

/// Files in a deflated zip held in memory.
fn zip_of<'a>(files: impl Iterator<Item = (&'a str, &'a [u8])>) -> Vec<u8> {
    use std::io::Write;
    let mut out = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut out);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (path, bytes) in files {
        zip.start_file(path, options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
    out.into_inner()
}

/// The CPU time the benchmarking thread spent, in nanoseconds (Linux's
/// per-thread scheduler statistics): what a run costs whatever else the
/// machine is doing, where the wall time of a loaded machine is mostly
/// waiting for a core.
struct ThreadCpu;

fn thread_cpu_ns() -> u64 {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat")
        .expect("/proc/thread-self/schedstat (Linux) gives the thread's CPU time");
    stat.split_whitespace()
        .next()
        .and_then(|ns| ns.parse().ok())
        .expect("schedstat starts with the CPU time in nanoseconds")
}

impl Measurement for ThreadCpu {
    type Intermediate = u64;
    type Value = u64;

    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, start: u64) -> u64 {
        thread_cpu_ns().saturating_sub(start)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, ns: &u64) -> f64 {
        *ns as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &CpuFormatter
    }
}

/// Nanoseconds of CPU shown as criterion shows durations, marked "cpu".
struct CpuFormatter;

impl ValueFormatter for CpuFormatter {
    fn scale_values(&self, typical_ns: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = if typical_ns < 1e3 {
            (1.0, "ns cpu")
        } else if typical_ns < 1e6 {
            (1e-3, "µs cpu")
        } else if typical_ns < 1e9 {
            (1e-6, "ms cpu")
        } else {
            (1e-9, "s cpu")
        };
        for v in values.iter_mut() {
            *v *= factor;
        }
        unit
    }
    fn scale_throughputs(
        &self,
        _: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str {
        let n = match throughput {
            Throughput::Bytes(n) | Throughput::BytesDecimal(n) | Throughput::Elements(n) => {
                *n as f64
            }
        };
        for v in values.iter_mut() {
            *v = n * 1e9 / *v;
        }
        "per cpu second"
    }
    fn scale_for_machines(&self, _: &mut [f64]) -> &'static str {
        "ns cpu"
    }
}

/// The CLI's path again, timed in CPU time (the figure docs/performance.md gives).
fn bench_cpu(c: &mut Criterion<ThreadCpu>) {
    let set = generate(2026);
    let opts = RunOptions::default();
    let mut g = c.benchmark_group("epic_6661_cpu");
    g.sample_size(20);
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
criterion_group! {
    name = cpu;
    config = Criterion::default().with_measurement(ThreadCpu);
    targets = bench_cpu
}
criterion_main!(benches, cpu);

//! Carrier inference throughput: numbers per second for a batch of 1,000,000 mixed numbers on
//! one core (`Scorer::score` per number, as `teu infer` does; and the polars column path).
//!
//! The batch mixes, in a fixed order: generated container numbers (lines' own boxes and
//! lessors'), bills of lading and bookings from `teu_synth::dcsa`, the same written in
//! lower case with spaces and dashes, container numbers with a wrong check digit, and garbage.
//!
//! Run with `cargo bench --bench infer`. Set `TEU_BENCH_NUMBERS` to change the batch size.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use teu_pipeline::infer::{batch, History, Scorer};
use teu_synth::dcsa::{self, GenOptions};

fn numbers(n: usize) -> Vec<String> {
    let files = dcsa::generate(&GenOptions {
        shipments: 3_000,
        seed: 42,
        events_per_file: 0,
    });
    let mut pool: Vec<String> = Vec::new();
    for e in files.iter().flat_map(|f| &f.events) {
        if let Some(c) = e["equipmentReference"].as_str() {
            pool.push(c.to_string());
        }
        for r in e["documentReferences"].as_array().into_iter().flatten() {
            if let Some(v) = r["documentReferenceValue"].as_str() {
                pool.push(v.to_string());
            }
        }
    }
    pool.sort();
    pool.dedup();
    let mut out = Vec::with_capacity(n);
    let mut i = 0usize;
    while out.len() < n {
        let base = &pool[(i * 7919) % pool.len()];
        out.push(match i % 10 {
            7 => {
                let mut s = base.to_lowercase();
                s.insert(4, ' ');
                s.push('-');
                s
            }
            8 if base.len() == 11 => {
                let mut s = base[..10].to_string();
                s.push(if base.ends_with('0') { '1' } else { '0' });
                s
            }
            9 if i % 20 == 9 => format!("?{base}"),
            _ => base.clone(),
        });
        i += 1;
    }
    out
}

fn bench(c: &mut Criterion) {
    let n: usize = std::env::var("TEU_BENCH_NUMBERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let owned = numbers(n);
    let refs: Vec<&str> = owned.iter().map(String::as_str).collect();
    let scorer = Scorer::bundled();
    let history = History::default();
    let mut group = c.benchmark_group("infer");
    group.throughput(Throughput::Elements(n as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("score", |b| {
        b.iter(|| batch::infer_all(scorer, &refs, &history).len())
    });
    group.bench_function("column", |b| {
        b.iter(|| {
            batch::infer_strs(scorer, &refs, &history)
                .map(|df| df.height())
                .unwrap_or(0)
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

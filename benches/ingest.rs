//! Ingest throughput: events per second for normalizing a generated DCSA T&T 2.2 feed of at
//! least 1,000,000 events.
//!
//! Stages measured separately and together:
//! - `read`: JSON parse and validation into `EventRow`s (`feeds::read_bytes`);
//! - `derive`: the polars normalization into containers and shipments (`normalize::derive`);
//! - `read+derive`: both, which is what `teu ingest` does before writing to the store.
//!
//! Run with `cargo bench --bench ingest`. Set `TEU_BENCH_EVENTS` to change the feed size.

use std::time::Duration;

use chrono::Utc;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use teu_pipeline::feeds;
use teu_pipeline::model::EventRow;
use teu_pipeline::normalize::{self, Refs};
use teu_pipeline::reference;
use teu_synth::dcsa::{self, GenOptions};
use uuid::Uuid;

/// The same allocator as the `teu` binary.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn feed(min_events: usize) -> Vec<Vec<u8>> {
    let mut shipments = min_events / 80;
    loop {
        let files = dcsa::generate(&GenOptions {
            shipments,
            seed: 42,
            events_per_file: 50_000,
        });
        if dcsa::event_count(&files) >= min_events {
            return files
                .iter()
                .map(|f| serde_json::to_vec(&f.events).expect("serialize"))
                .collect();
        }
        shipments = shipments * 5 / 4 + 1;
    }
}

fn read_all(files: &[Vec<u8>]) -> Vec<EventRow> {
    let mut rows = Vec::new();
    for (i, bytes) in files.iter().enumerate() {
        let batch =
            feeds::read_bytes(bytes, &format!("bench-{i}.json")).expect("generated feed reads");
        rows.extend(batch.events.into_iter().map(|e| e.row));
    }
    rows
}

fn bench(c: &mut Criterion) {
    let min_events: usize = std::env::var("TEU_BENCH_EVENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let files = feed(min_events);
    let rows = read_all(&files);
    let events = rows.len() as u64;
    let (ports, carriers) = reference::bundled();
    let refs = Refs { ports, carriers };
    let account = Uuid::from_u128(7);
    let derived = normalize::derive(account, &rows, &refs, Utc::now()).expect("derive");
    eprintln!(
        "feed: {events} events in {} files, {} shipments, {} containers",
        files.len(),
        derived.shipments.len(),
        derived.containers.len()
    );

    let mut group = c.benchmark_group("ingest");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(
        std::env::var("TEU_BENCH_SECONDS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(60),
    ));
    group.throughput(Throughput::Elements(events));
    group.bench_function("read", |b| b.iter(|| read_all(&files)));
    group.bench_function("derive", |b| {
        b.iter(|| normalize::derive(account, &rows, &refs, Utc::now()).expect("derive"))
    });
    group.bench_function("read+derive", |b| {
        b.iter(|| {
            let rows = read_all(&files);
            normalize::derive(account, &rows, &refs, Utc::now()).expect("derive")
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

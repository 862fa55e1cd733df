//! Track simplification (RDP, `teu_pipeline::route::simplify`) on 1k, 100k and 1M-point tracks,
//! and the whole AIS path: an AIS CSV (generated voyages, MarineCadastre layout) read and
//! validated, split per vessel, each track simplified and written as GeoJSON LineStrings.
//!
//! The tracks are a vessel-like random walk (heading changes of a few degrees per report, about
//! 0.3 nm between reports), so RDP has real work to do. Run with `cargo bench --bench simplify`.

use std::collections::BTreeMap;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use teu_pipeline::generate::{generate, GenOptions};
use teu_pipeline::generate_ais::{events_of, generate_ais};
use teu_pipeline::route::simplify::simplify_track;

/// A deterministic vessel-like track of `n` points (xorshift, no extra dependency).
fn track(n: usize) -> Vec<[f64; 2]> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let (mut lon, mut lat, mut heading) = (-30.0f64, 0.0f64, 45.0f64);
    (0..n)
        .map(|_| {
            heading += (next() - 0.5) * 6.0;
            let step = 0.005;
            lon += step * heading.to_radians().sin();
            lat = (lat + step * heading.to_radians().cos()).clamp(-80.0, 80.0);
            [lon, lat]
        })
        .collect()
}

fn simplification(c: &mut Criterion) {
    let mut g = c.benchmark_group("simplify");
    g.measurement_time(Duration::from_secs(8)).sample_size(10);
    for n in [1_000, 100_000, 1_000_000] {
        let t = track(n);
        let kept = simplify_track(&t).len();
        eprintln!("simplify {n} points -> {kept} points");
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::from_parameter(n), &t, |b, t| {
            b.iter(|| simplify_track(t))
        });
    }
    g.finish();
}

fn ais_to_geojson(c: &mut Criterion) {
    let files = generate(&GenOptions {
        shipments: 60,
        seed: 3,
        events_per_file: 0,
    });
    let ais = generate_ais(&events_of(&files), 3);
    eprintln!(
        "AIS file: {} positions, {} bytes",
        ais.positions,
        ais.csv.len()
    );
    let mut g = c.benchmark_group("ais_file_to_geojson");
    g.measurement_time(Duration::from_secs(8)).sample_size(10);
    g.throughput(Throughput::Elements(ais.positions as u64));
    g.bench_function("read+simplify+geojson", |b| {
        b.iter(|| {
            let batch = teu_pipeline::feeds::ais::read_csv(ais.csv.as_bytes(), &ais.name)
                .expect("generated AIS reads");
            let mut by_vessel: BTreeMap<&str, Vec<[f64; 2]>> = BTreeMap::new();
            for (_, p) in &batch.positions {
                by_vessel
                    .entry(p.vessel_key())
                    .or_default()
                    .push([p.longitude, p.latitude]);
            }
            let features: Vec<serde_json::Value> = by_vessel
                .values()
                .map(|pts| {
                    serde_json::json!({"type": "Feature", "properties": {},
                        "geometry": {"type": "LineString", "coordinates": simplify_track(pts)}})
                })
                .collect();
            serde_json::to_string(
                &serde_json::json!({"type": "FeatureCollection", "features": features}),
            )
            .map(|s| s.len())
        })
    });
    g.finish();
}

criterion_group!(benches, simplification, ais_to_geojson);
criterion_main!(benches);

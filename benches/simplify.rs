//! Track simplification (RDP, `teu_pipeline::route::simplify`) on 1k, 100k and 1M-point tracks,
//! and the whole AIS path: an AIS CSV (generated voyages, MarineCadastre layout) read and
//! validated (`feeds::ais::read_tracks`), split per vessel, each track simplified and written as
//! a GeoJSON FeatureCollection of LineStrings (`route::tracks::ais_geojson`: the same bytes as the
//! `geojson` crate's types, which it replaced).
//!
//! The tracks are a vessel-like random walk (heading changes of a few degrees per report, about
//! 0.3 nm between reports), so RDP has real work to do. Run with `cargo bench --bench simplify`.
//!
//! With `TEU_SIMPLIFY_EXPORT=DIR` set, the bench runs no criterion group: it writes each track
//! (`track-N.f64`, little-endian `[lon, lat]` pairs), teu's simplified track (`teu-N.f64`) and
//! `teu.json` (per size: input points, tolerance in degrees, output points, seconds of each of
//! [`EXPORT_RUNS`] runs) for `benches/compare/compare.py`, which runs shapely (GEOS) on the same
//! points with the same tolerance.
//!
//! With `TEU_AIS_DUMP=DIR` set, the bench runs no criterion group either: for the generated AIS
//! file of the bench and every file named in `TEU_AIS_DUMP_FILES` (paths separated by `:`) it
//! writes `<file name>.tracks.txt` (what `read_tracks` returned, `{:#?}`) and
//! `<file name>.geojson` (the bench's GeoJSON string), so two builds can be compared byte for
//! byte (`cmp`); the generated file itself is written there too.

use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use teu_pipeline::route::simplify::{clean, simplify_track, tolerance_deg};
use teu_synth::ais::{events_of, generate_ais};
use teu_synth::dcsa::{generate, GenOptions};

/// Track sizes, points.
const SIZES: [usize; 3] = [1_000, 100_000, 1_000_000];
/// Timed runs per size in the export (after one untimed warm-up).
const EXPORT_RUNS: usize = 5;

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
    for n in SIZES {
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
        b.iter(|| ais_geojson(ais.csv.as_bytes(), &ais.name).1.len())
    });
    g.finish();
}

/// The AIS path of the bench on one file: its tracks and the GeoJSON string.
fn ais_geojson(csv: &[u8], name: &str) -> (teu_pipeline::feeds::ais::AisTracks, String) {
    let tracks = teu_pipeline::feeds::ais::read_tracks(csv, name).expect("AIS reads");
    let text = teu_pipeline::route::tracks::ais_geojson(&tracks);
    (tracks, text)
}

/// The AIS dump (module documentation).
fn ais_dump(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let files = generate(&GenOptions {
        shipments: 60,
        seed: 3,
        events_per_file: 0,
    });
    let ais = generate_ais(&events_of(&files), 3);
    std::fs::write(dir.join(&ais.name), &ais.csv)?;
    let mut inputs = vec![(ais.name.clone(), ais.csv.into_bytes())];
    if let Some(list) = std::env::var_os("TEU_AIS_DUMP_FILES") {
        for path in std::env::split_paths(&list) {
            let name = path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .to_string();
            inputs.push((name, std::fs::read(&path)?));
        }
    }
    for (name, bytes) in inputs {
        let (tracks, text) = ais_geojson(&bytes, &name);
        std::fs::write(
            dir.join(format!("{name}.tracks.txt")),
            format!("{tracks:#?}"),
        )?;
        std::fs::write(dir.join(format!("{name}.geojson")), text)?;
        eprintln!("{name}: {} positions", tracks.positions());
    }
    Ok(())
}

fn write_f64(path: &Path, points: &[[f64; 2]]) -> std::io::Result<()> {
    let bytes: Vec<u8> = points
        .iter()
        .flat_map(|p| p.iter().flat_map(|v| v.to_le_bytes()))
        .collect();
    std::fs::write(path, bytes)
}

/// The export for the shapely side-by-side (module documentation).
fn export(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut sizes = Vec::new();
    for n in SIZES {
        let t = track(n);
        let tolerance = tolerance_deg(&clean(&t));
        let out = simplify_track(&t);
        let seconds: Vec<f64> = (0..EXPORT_RUNS)
            .map(|_| {
                let start = Instant::now();
                let kept = std::hint::black_box(simplify_track(std::hint::black_box(&t)));
                let s = start.elapsed().as_secs_f64();
                assert_eq!(kept.len(), out.len(), "simplification is deterministic");
                s
            })
            .collect();
        write_f64(&dir.join(format!("track-{n}.f64")), &t)?;
        write_f64(&dir.join(format!("teu-{n}.f64")), &out)?;
        eprintln!("{n} points -> {} (tolerance {tolerance} deg)", out.len());
        sizes.push(serde_json::json!({
            "points": n, "tolerance_deg": tolerance, "teu_points": out.len(), "teu_seconds": seconds,
        }));
    }
    let doc = serde_json::json!({
        "parallel_half": teu_pipeline::route::simplify::PARALLEL_HALF,
        "sizes": sizes,
    });
    std::fs::write(dir.join("teu.json"), doc.to_string())
}

criterion_group!(benches, simplification, ais_to_geojson);

fn main() {
    if let Some(dir) = std::env::var_os("TEU_SIMPLIFY_EXPORT") {
        if let Err(e) = export(Path::new(&dir)) {
            eprintln!("export to {}: {e}", Path::new(&dir).display());
            std::process::exit(1);
        }
        return;
    }
    if let Some(dir) = std::env::var_os("TEU_AIS_DUMP") {
        if let Err(e) = ais_dump(Path::new(&dir)) {
            eprintln!("AIS dump to {}: {e}", Path::new(&dir).display());
            std::process::exit(1);
        }
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}

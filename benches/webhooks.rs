//! Webhooks, measured: what notifications cost an ingest, how fast a backlog drains, whether
//! memory stays flat while it does, and whether a hanging receiver slows the others.
//!
//! 1. Generates a DCSA feed of `TEU_BENCH_SHIPMENTS` shipments (default 3,000) with its terminal
//!    and line-deadline feeds (`teu_synth::dcsa`, `generate_terminal`).
//! 2. Ingests it into two fresh SQLite databases (or `TEU_BENCH_DATABASE_URL`, a PostgreSQL
//!    server URL whose databases `teu_bench_hooks_a0`/`_b0`, … are recreated): once with no
//!    webhook, once with two webhooks subscribed to every event teu emits; `TEU_BENCH_ROUNDS`
//!    rounds (default 3) of such a pair, alternating which goes first. Reports feed rows per
//!    second of each and the difference per round, and the median difference.
//! 3. Delivers the backlog with the delivery workers (`teu_rest::delivery::run`, default
//!    settings) to two receivers in this process: one answers 204 at once, the other never
//!    answers (each attempt costs the 10 s timeout). Reports the fast webhook's notifications
//!    per second until all of its notifications succeeded, and the resident memory sampled every
//!    100 ms while it drains (min and max).
//!
//! Run with `cargo bench --bench webhooks` (release build).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use teu_pipeline::model::Account;
use teu_pipeline::webhooks::WebhookAttributes;
use teu_store::scratch::ScratchDatabase;
use teu_store::Store;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn rss_mib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map(|kb| kb / 1024)
        .unwrap_or(0)
}

async fn store(name: &str, dir: &std::path::Path) -> Store {
    let url = match std::env::var("TEU_BENCH_DATABASE_URL") {
        Ok(server) => {
            ScratchDatabase::create(&server, &format!("teu_bench_hooks_{name}"))
                .await
                .expect("scratch database")
                .url
        }
        Err(_) => format!("sqlite:{}", dir.join(format!("{name}.db")).display()),
    };
    Store::connect(&url).await.expect("store")
}

/// Ingests the feed; returns (rows, seconds).
///
/// Runs `sync` first (outside the timed span), so that the previous ingest's dirty pages are
/// written back before this one starts rather than during it.
async fn ingest(store: &Store, account: &Account, files: &[(String, Vec<u8>)]) -> (usize, f64) {
    let _ = std::process::Command::new("sync").status();
    let started = Instant::now();
    let mut rows = 0;
    for (name, bytes) in files {
        let batch = teu_pipeline::feeds::read_bytes(bytes, name).expect("feed reads");
        let summary = teu_pipeline::ingest::ingest_batch(store, account, batch)
            .await
            .expect("ingest");
        rows += summary.rows_read;
    }
    (rows, started.elapsed().as_secs_f64())
}

async fn receiver(hang: bool, count: Arc<AtomicU64>) -> String {
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move || {
            let count = count.clone();
            async move {
                count.fetch_add(1, Ordering::Relaxed);
                if hang {
                    tokio::time::sleep(Duration::from_secs(3600)).await;
                }
                StatusCode::NO_CONTENT
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}/hook", listener.local_addr().expect("addr"));
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    // `cargo bench` passes `--bench`; nothing to parse.
    let shipments: usize = std::env::var("TEU_BENCH_SHIPMENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3_000);
    let options = teu_synth::dcsa::GenOptions {
        shipments,
        seed: 11,
        events_per_file: 5_000,
    };
    let generated = teu_synth::dcsa::generate(&options);
    let extra = teu_synth::terminal::extra_feeds(&generated, options.seed);
    let mut files: Vec<(String, Vec<u8>)> = generated
        .iter()
        .map(|f| {
            (
                f.name.clone(),
                serde_json::to_vec(&f.events).expect("serialize"),
            )
        })
        .collect();
    files.extend(
        extra
            .files
            .into_iter()
            .map(|(name, content)| (name, content.into_bytes())),
    );
    let dir = tempfile::tempdir().expect("temp dir");

    // Rounds (`TEU_BENCH_ROUNDS`, default 3) each ingest the same files into two fresh
    // databases, one without webhooks and one with two webhooks on every event, and alternate
    // which goes first, so that drift of the machine (page cache, other work) falls on both
    // sides. One run of a pair varies by several percent; the median difference is the figure.
    let rounds: usize = std::env::var("TEU_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3)
        .max(1);
    let fast_count = Arc::new(AtomicU64::new(0));
    let hang_count = Arc::new(AtomicU64::new(0));
    let fast_url = receiver(false, fast_count.clone()).await;
    let hang_url = receiver(true, hang_count.clone()).await;
    let mut differences = Vec::new();
    let mut last = None;
    for round in 0..rounds {
        let plain = store(&format!("a{round}"), dir.path()).await;
        let plain_account = plain.ensure_account("bench", false).await.expect("account");
        let hooked = store(&format!("b{round}"), dir.path()).await;
        let account = hooked
            .ensure_account("bench", false)
            .await
            .expect("account");
        for url in [&fast_url, &hang_url] {
            hooked
                .create_webhook(
                    account.id,
                    WebhookAttributes {
                        url: Some(url.clone()),
                        ..WebhookAttributes::default()
                    },
                )
                .await
                .expect("webhook");
        }
        let (rows, plain_s, hooked_s) = if round % 2 == 0 {
            let (rows, plain_s) = ingest(&plain, &plain_account, &files).await;
            let (_, hooked_s) = ingest(&hooked, &account, &files).await;
            (rows, plain_s, hooked_s)
        } else {
            let (_, hooked_s) = ingest(&hooked, &account, &files).await;
            let (rows, plain_s) = ingest(&plain, &plain_account, &files).await;
            (rows, plain_s, hooked_s)
        };
        let counts = hooked.notification_counts().await.expect("counts");
        let pending: i64 = counts.iter().map(|(_, n)| n).sum();
        let difference = (plain_s / hooked_s - 1.0) * 100.0;
        differences.push(difference);
        println!(
            "round {}/{rounds} ({} first): ingest of {shipments} shipments, {rows} feed rows: \
             {:.0} rows/s without webhooks ({plain_s:.1} s), {:.0} rows/s with two webhooks \
             ({hooked_s:.1} s, {pending} notifications written): {difference:+.1}%",
            round + 1,
            if round % 2 == 0 { "without" } else { "with" },
            rows as f64 / plain_s,
            rows as f64 / hooked_s,
        );
        drop(plain);
        last = Some((hooked, pending));
    }
    differences.sort_by(f64::total_cmp);
    println!(
        "ingest with webhooks against without, median of {rounds} rounds: {:+.1}% (rounds: {})",
        differences[differences.len() / 2],
        differences
            .iter()
            .map(|d| format!("{d:+.1}%"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let Some((hooked, pending)) = last else {
        return;
    };
    let per_hook = pending / 2;

    // Deliver.
    let mut config = teu_rest::delivery::DeliveryConfig::from_env().expect("config");
    config.allow_private = true;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let rss_before = rss_mib();
    let started = Instant::now();
    let worker = tokio::spawn(teu_rest::delivery::run(
        hooked.clone(),
        config,
        async move {
            let _ = stopped.await;
        },
    ));
    let (mut lo, mut hi) = (u64::MAX, 0);
    loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let rss = rss_mib();
        lo = lo.min(rss);
        hi = hi.max(rss);
        if fast_count.load(Ordering::Relaxed) as i64 >= per_hook {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(1800),
            "delivery did not finish"
        );
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "delivery: {per_hook} notifications to the answering webhook in {secs:.1} s = {:.0} notifications/s, \
         while the other webhook's receiver hung ({} requests reached it); resident memory {rss_before} MiB before, \
         {lo}–{hi} MiB while draining",
        per_hook as f64 / secs,
        hang_count.load(Ordering::Relaxed),
    );
    let _ = stop.send(());
    // The hanging deliveries finish at their 10 s timeout.
    let _ = tokio::time::timeout(Duration::from_secs(30), worker).await;
}

//! Load comparison: a 30-container page with its shipments over GraphQL versus
//! `GET /v2/containers?include=shipment&page[size]=30`, in one run, against a real
//! `teu serve --demo` (this build's binary, SQLite in a temp dir) on loopback.
//!
//! For each API, `TEU_LOAD_CONNECTIONS` workers (default 16), each with its own keep-alive
//! connection, send requests back to back for `TEU_LOAD_SECONDS` (default 10) after a 2-second
//! warm-up. Every response body is parsed and checked (30 containers, each with its shipment
//! present; no GraphQL errors); a failed check counts as an error. Latencies are recorded per
//! request; the report gives requests per second, p50, p90, p99 and max. The GraphQL query
//! selects what the `/v2` document carries: every scalar field of `Container` and `Shipment`,
//! holds, fees and import deadlines, and the ids of each container's events and of each
//! shipment's containers (the `/v2` relationships).
//!
//! Run with `cargo bench --bench load` (a release build of the server).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

const PAGE: usize = 30;

const CONTAINER_FIELDS: &str = "id number refNumbers sealNumber createdAt equipmentType \
    equipmentLength equipmentHeight weightInLbs pickupLfd pickupAppointmentAt availabilityKnown \
    availableForPickup podArrivedAt podDischargedAt podFullOutAt terminalCheckedAt \
    podFullOutChassisNumber locationAtPodTerminal finalDestinationFullOutAt emptyTerminatedAt \
    holdsAtPodTerminal { name status description } \
    feesAtPodTerminal { type amount currencyCode } podTimezone finalDestinationTimezone \
    emptyTerminatedTimezone podRailCarrierScac indRailCarrierScac podLastTrackingRequestAt \
    shipmentLastTrackingRequestAt podRailLoadedAt podRailDepartedAt indEtaAt indAtaAt \
    indRailUnloadedAt indFacilityLfdOn \
    importDeadlines { pickupLfdTerminal pickupLfdRail pickupLfdLine } currentStatus \
    events { id }";

const SHIPMENT_FIELDS: &str = "id billOfLadingNumber normalizedNumber refNumbers createdAt tags \
    portOfLadingLocode portOfLadingName portOfDischargeLocode portOfDischargeName \
    destinationLocode destinationName shippingLineScac shippingLineName shippingLineShortName \
    customerName podVesselName podVesselImo podVoyageNumber polEtdAt polAtdAt podEtaAt \
    podOriginalEtaAt podAtaAt destinationEtaAt destinationAtaAt polTimezone podTimezone \
    destinationTimezone lineTrackingLastAttemptedAt lineTrackingLastSucceededAt \
    lineTrackingStoppedAt lineTrackingStoppedReason containers { id }";

/// One API under load.
#[derive(Clone, Copy)]
enum Target {
    GraphQl,
    Rest,
}

impl Target {
    fn name(self) -> &'static str {
        match self {
            Target::GraphQl => "GraphQL containers(first: 30) { … shipment { … } }",
            Target::Rest => "GET /v2/containers?include=shipment&page[size]=30",
        }
    }
}

struct Setup {
    base: String,
    key: String,
    graphql_body: String,
}

/// Sends one request and checks the body; the error says what was wrong.
async fn one(client: &reqwest::Client, setup: &Setup, target: Target) -> Result<(), String> {
    let req = match target {
        Target::GraphQl => client
            .post(format!("{}/graphql", setup.base))
            .header("Content-Type", "application/json")
            .body(setup.graphql_body.clone()),
        Target::Rest => client.get(format!(
            "{}/v2/containers?include=shipment&page[size]={PAGE}",
            setup.base
        )),
    };
    let resp = req
        .header("Authorization", format!("Token {}", setup.key))
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let status = resp.status().as_u16();
    let bytes = resp.bytes().await.map_err(|e| e.to_string())?;
    if status != 200 {
        return Err(format!("status {status}"));
    }
    let body: Value = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
    match target {
        Target::GraphQl => {
            if !body["errors"].is_null() {
                return Err(format!("GraphQL errors: {}", body["errors"]));
            }
            let edges = body["data"]["containers"]["edges"]
                .as_array()
                .ok_or("no edges")?;
            if edges.len() != PAGE {
                return Err(format!("{} containers", edges.len()));
            }
            if edges.iter().any(|e| {
                e["node"]["shipment"]["billOfLadingNumber"]
                    .as_str()
                    .is_none()
            }) {
                return Err("a container without its shipment".into());
            }
        }
        Target::Rest => {
            let data = body["data"].as_array().ok_or("no data")?;
            if data.len() != PAGE {
                return Err(format!("{} containers", data.len()));
            }
            let included: std::collections::HashSet<&str> = body["included"]
                .as_array()
                .ok_or("no included")?
                .iter()
                .filter(|r| r["type"] == "shipment")
                .filter_map(|r| r["id"].as_str())
                .collect();
            if data.iter().any(|c| {
                c["relationships"]["shipment"]["data"]["id"]
                    .as_str()
                    .is_none_or(|id| !included.contains(id))
            }) {
                return Err("a container without its included shipment".into());
            }
        }
    }
    Ok(())
}

struct Outcome {
    latencies_us: Vec<u64>,
    errors: Vec<String>,
    elapsed: Duration,
}

async fn run(setup: Arc<Setup>, target: Target, connections: usize, length: Duration) -> Outcome {
    let start = Instant::now();
    let end = start + length;
    let mut workers = Vec::new();
    for _ in 0..connections {
        let setup = setup.clone();
        workers.push(tokio::spawn(async move {
            // One client per worker: one keep-alive connection each.
            let client = reqwest::Client::builder()
                .pool_max_idle_per_host(1)
                .build()
                .expect("client");
            let mut latencies = Vec::new();
            let mut errors = Vec::new();
            while Instant::now() < end {
                let t = Instant::now();
                match one(&client, &setup, target).await {
                    Ok(()) => latencies.push(t.elapsed().as_micros() as u64),
                    Err(e) => errors.push(e),
                }
            }
            (latencies, errors)
        }));
    }
    let mut out = Outcome {
        latencies_us: Vec::new(),
        errors: Vec::new(),
        elapsed: Duration::ZERO,
    };
    for w in workers {
        let (l, e) = w.await.expect("worker");
        out.latencies_us.extend(l);
        out.errors.extend(e);
    }
    out.elapsed = start.elapsed();
    out.latencies_us.sort_unstable();
    out
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[i.min(sorted.len() - 1)] as f64 / 1000.0
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing: skip the run then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let connections = env_or("TEU_LOAD_CONNECTIONS", 16) as usize;
    let seconds = env_or("TEU_LOAD_SECONDS", 10);
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite:{}", dir.path().join("teu.db").display());
    let mut child = Command::new(env!("CARGO_BIN_EXE_teu"))
        .args([
            "--database-url",
            &url,
            "serve",
            "--demo",
            "--bind",
            "127.0.0.1:0",
        ])
        .env("RUST_LOG", "error")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn teu serve --demo");
    let mut reader = BufReader::new(child.stdout.take().expect("stdout"));
    let (mut key, mut base) = (None, None);
    while base.is_none() {
        let mut line = String::new();
        if reader.read_line(&mut line).expect("read stdout") == 0 {
            panic!("teu serve exited before listening");
        }
        if let Some(k) = line.strip_prefix("API key: ") {
            key = Some(k.trim().to_string());
        }
        if let Some(rest) = line.strip_prefix("Listening on ") {
            base = rest.split_whitespace().next().map(str::to_string);
        }
    }
    std::thread::spawn(move || for _ in reader.lines() {});
    let query = format!(
        "{{ containers(first: {PAGE}) {{ totalCount edges {{ node {{ {CONTAINER_FIELDS} \
         shipment {{ {SHIPMENT_FIELDS} }} }} }} }} }}"
    );
    let setup = Arc::new(Setup {
        base: base.expect("address"),
        key: key.expect("API key"),
        graphql_body: serde_json::json!({ "query": query }).to_string(),
    });

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let client = reqwest::Client::new();
        for target in [Target::GraphQl, Target::Rest] {
            if let Err(e) = one(&client, &setup, target).await {
                panic!("{}: {e}", target.name());
            }
        }
        println!(
            "load: {connections} connections, {seconds} s per API after a 2 s warm-up, \
             loopback, {} build, SQLite demo data ({} cores, load average {})",
            if cfg!(debug_assertions) { "debug" } else { "optimized" },
            std::thread::available_parallelism().map_or(0, |n| n.get()),
            std::fs::read_to_string("/proc/loadavg")
                .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
                .unwrap_or_default()
        );
        println!(
            "| API | requests | errors | requests/s | p50 ms | p90 ms | p99 ms | max ms |\n|---|---|---|---|---|---|---|---|"
        );
        for target in [Target::GraphQl, Target::Rest] {
            run(setup.clone(), target, connections, Duration::from_secs(2)).await;
            let o = run(setup.clone(), target, connections, Duration::from_secs(seconds)).await;
            let l = &o.latencies_us;
            println!(
                "| {} | {} | {} | {:.0} | {:.1} | {:.1} | {:.1} | {:.1} |",
                target.name(),
                l.len(),
                o.errors.len(),
                l.len() as f64 / o.elapsed.as_secs_f64(),
                percentile(l, 50.0),
                percentile(l, 90.0),
                percentile(l, 99.0),
                percentile(l, 100.0),
            );
            if let Some(e) = o.errors.first() {
                println!("  first error: {e}");
            }
        }
    });
    let _ = child.kill();
    let _ = child.wait();
}

//! Faults (issue 8): an ingest killed with SIGKILL and rerun leaves the same tables as a clean
//! run, nothing lost or doubled; a database that goes away while serving gives 503 JSON:API
//! errors and the server recovers by itself when it returns.

#[macro_use]
mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{generated_feed, snapshot, Server, TestDb, TEU};
use serde_json::Value;

on_both_backends!(killed_ingest_rerun_equals_clean_run);

async fn killed_ingest_rerun_equals_clean_run(db: &TestDb) {
    let feed = generated_feed(300, 5);
    db.create_account("crashed");
    db.create_account("clean");

    // Start the ingest and SIGKILL it as soon as the first file is reported: later files are
    // unread or half-written.
    let mut child = Command::new(TEU)
        .args(["--database-url", &db.url, "ingest", "--account", "crashed"])
        .arg(feed.path())
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn ingest");
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("first summary line");
    child.kill().expect("SIGKILL");
    let status = child.wait().expect("wait");
    assert!(
        !status.success(),
        "the ingest finished before the kill: {first}"
    );
    let partial = snapshot(db, "crashed").await;

    // Rerun the same ingest to the end, and do a clean run into another account.
    db.ingest("crashed", &[feed.path().to_path_buf()]);
    db.ingest("clean", &[feed.path().to_path_buf()]);
    let recovered = snapshot(db, "crashed").await;
    let clean = snapshot(db, "clean").await;

    assert!(
        partial["containers"].len() < clean["containers"].len(),
        "the kill came after the whole ingest: {} of {} containers",
        partial["containers"].len(),
        clean["containers"].len()
    );
    for (table, rows) in &clean {
        assert!(!rows.is_empty(), "{table}");
        assert_eq!(
            recovered[table].len(),
            rows.len(),
            "{table}: rows lost or doubled"
        );
        assert!(
            recovered[table] == *rows,
            "{table}: contents differ from a clean run"
        );
    }
}

/// A TCP proxy to PostgreSQL that the test can cut (closing every open connection and refusing
/// new ones) and restore.
struct Proxy {
    port: u16,
    up: Arc<AtomicBool>,
    cut: tokio::sync::watch::Sender<u64>,
}

impl Proxy {
    async fn start(target: String) -> Proxy {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let up = Arc::new(AtomicBool::new(true));
        let (cut, cuts) = tokio::sync::watch::channel(0u64);
        let accept_up = up.clone();
        tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                if !accept_up.load(Ordering::SeqCst) {
                    drop(inbound);
                    continue;
                }
                let target = target.clone();
                let mut cuts = cuts.clone();
                // Only cuts after this connection opened close it.
                cuts.borrow_and_update();
                tokio::spawn(async move {
                    let Ok(mut outbound) = tokio::net::TcpStream::connect(&target).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                        _ = cuts.changed() => {}
                    }
                });
            }
        });
        Proxy { port, up, cut }
    }

    fn set_up(&self, up: bool) {
        self.up.store(up, Ordering::SeqCst);
        if !up {
            self.cut.send_modify(|n| *n += 1);
        }
    }
}

/// GET /v2/containers through the server; status and parsed body.
async fn containers(server: &Server, key: &str) -> (u16, Value) {
    server.get("/v2/containers", Some(key)).await
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_outage_gives_503_and_the_server_recovers() {
    let Some(db) = TestDb::postgres().await else {
        eprintln!("skipped: TEU_TEST_POSTGRES_URL is not set");
        return;
    };
    let key = db.create_account("acme");
    db.ingest("acme", &[common::data("dcsa/tnt-220-response.json")]);
    // The server reaches PostgreSQL only through the proxy.
    let (host_port, name) = db
        .url
        .trim_start_matches("postgres://")
        .split_once('/')
        .map(|(h, n)| (h.rsplit('@').next().unwrap().to_string(), n.to_string()))
        .expect("postgres url");
    let proxy = Proxy::start(host_port).await;
    let proxied = db.with_url(format!(
        "postgres://postgres@127.0.0.1:{}/{name}",
        proxy.port
    ));
    let server = Server::start(&proxied, &[]);
    let (status, body) = containers(&server, &key).await;
    assert_eq!(status, 200, "{body}");

    proxy.set_up(false);
    let started = Instant::now();
    let (status, body) = containers(&server, &key).await;
    assert_eq!(status, 503, "{body}");
    let error = &body["errors"][0];
    assert_eq!(error["status"], "503");
    assert!(
        error["title"].is_string() && error["detail"].is_string(),
        "{body}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(25),
        "{:?}",
        started.elapsed()
    );

    proxy.set_up(true);
    // No restart: the pool opens new connections once the database is back.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (status, body) = containers(&server, &key).await;
        if status == 200 {
            assert_eq!(body["meta"]["total"], 1);
            break;
        }
        assert!(Instant::now() < deadline, "not recovered: {status} {body}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    drop(server);
    db.cleanup().await;
}

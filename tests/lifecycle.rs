//! Server lifecycle (issue 8): SIGTERM drains in-flight requests before the process exits, and
//! API keys never reach the logs, even at the most verbose level.

mod common;

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{data, generated_feed, TestDb, TEU};

/// Starts `teu serve` with `RUST_LOG=level`, stderr captured; returns the child and base URL.
fn serve(db: &TestDb, level: &str) -> (std::process::Child, String) {
    let mut child = Command::new(TEU)
        .args(["--database-url", &db.url, "serve", "--bind", "127.0.0.1:0"])
        .env("RUST_LOG", level)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn teu serve");
    let mut reader = BufReader::new(child.stdout.take().expect("stdout"));
    let base = loop {
        let mut line = String::new();
        assert!(reader.read_line(&mut line).expect("stdout") > 0, "exited");
        if let Some(rest) = line.strip_prefix("Listening on ") {
            break rest.split_whitespace().next().expect("address").to_string();
        }
    };
    std::thread::spawn(move || for _ in reader.lines() {});
    (child, base)
}

/// Whether `e` was caused by the peer resetting the connection (an `io::Error` of kind
/// `ConnectionReset` somewhere in its chain of sources).
fn reset_by_peer(e: &reqwest::Error) -> bool {
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::ConnectionReset {
                return true;
            }
        }
        source = s.source();
    }
    false
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_drains_in_flight_requests() {
    let db = TestDb::sqlite();
    let key = db.create_account("acme");
    let feed = generated_feed(60, 3);
    db.ingest("acme", &[feed.path().to_path_buf()]);
    let (mut child, base) = serve(&db, "warn");
    let http = reqwest::Client::new();
    // 40 concurrent page requests with their shipments: the server is busy when SIGTERM comes.
    // SIGTERM waits for the first response head, so that the server has accepted requests
    // (a fixed sleep was too short on a loaded machine: nothing had been accepted yet).
    let answering = std::sync::Arc::new(tokio::sync::Notify::new());
    let requests: Vec<_> = (0..40)
        .map(|i| {
            let req = http
                .get(format!(
                    "{base}/v2/containers?include=shipment&page[size]=100&page[number]={}",
                    i % 3 + 1
                ))
                .header("Authorization", format!("Token {key}"));
            let answering = answering.clone();
            tokio::spawn(async move {
                let resp = req.send().await?;
                answering.notify_one();
                let status = resp.status().as_u16();
                let body: serde_json::Value = resp.json().await?;
                Ok::<_, reqwest::Error>((status, body))
            })
        })
        .collect();
    tokio::time::timeout(Duration::from_secs(20), answering.notified())
        .await
        .expect("no response head within 20 s");
    let signalled = Instant::now();
    let pid = child.id().to_string();
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill")
        .success());
    let mut completed = 0;
    for r in requests {
        // A request the server accepted must finish whole; one that came after the listener
        // closed may be refused, but never cut off half-way.
        match r.await.expect("task") {
            Ok((status, body)) => {
                assert_eq!(status, 200, "{body}");
                assert!(body["data"].is_array(), "{body}");
                completed += 1;
            }
            // A connection still in the kernel's listen backlog when the listener closes was
            // never accepted by teu; Linux resets it (ECONNRESET before any response byte).
            Err(e) => assert!(
                e.is_connect() || reset_by_peer(&e),
                "a request failed after it was accepted: {e} ({:?})",
                std::error::Error::source(&e)
            ),
        }
    }
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        assert!(
            signalled.elapsed() < Duration::from_secs(20),
            "teu serve did not exit after SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(status.success(), "exit status {status}");
    assert!(completed > 0, "no request was in flight");
    // The port is closed afterwards.
    assert!(http
        .get(format!("{base}/v2/containers"))
        .send()
        .await
        .is_err());
}

#[tokio::test(flavor = "multi_thread")]
async fn api_keys_never_reach_the_logs() {
    let db = TestDb::sqlite();
    let key = db.create_account("acme");
    db.ingest("acme", &[data("dcsa/tnt-220-response.json")]);
    let (mut child, base) = serve(&db, "trace");
    let http = reqwest::Client::new();
    let wrong = "teu_0123456789abcdef0123456789abcdef";
    for (k, path) in [
        (key.as_str(), "/v2/containers?include=shipment"),
        (
            key.as_str(),
            "/v2/containers/00000000-0000-0000-0000-000000000000",
        ),
        (wrong, "/v2/shipments"),
    ] {
        let resp = http
            .get(format!("{base}{path}"))
            .header("Authorization", format!("Token {k}"))
            .send()
            .await
            .expect("request");
        assert!(resp.status().as_u16() < 500);
    }
    let resp = http
        .post(format!("{base}/graphql"))
        .header("Authorization", format!("Token {key}"))
        .json(&serde_json::json!({"query": "{ containers(first: 1) { totalCount } }"}))
        .send()
        .await
        .expect("graphql");
    assert_eq!(resp.status().as_u16(), 200);
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let mut logs = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut logs)
        .expect("logs");
    let _ = child.wait();
    assert!(
        logs.contains("/v2/containers"),
        "trace logs were written: {logs:.500}"
    );
    // Neither the key nor its secret part appear; nor does the wrong key.
    let secret = key.trim_start_matches("teu_");
    assert!(!logs.contains(secret), "the API key was logged");
    assert!(
        !logs.contains(wrong.trim_start_matches("teu_")),
        "a rejected key was logged"
    );
}

//! Hostile input against the real server (issue 8): oversized bodies, deeply nested JSON, huge
//! page sizes, SQL-looking strings and invalid UTF-8 all get a clear 4xx with a JSON:API
//! `errors` array, and the server keeps serving afterwards.

#[macro_use]
mod common;

use common::{data, generated_feed, summaries, Server, TestDb};
use serde_json::Value;

on_both_backends!(
    hostile_input_gets_clear_client_errors,
    repeated_rows_in_one_file_are_one_row,
);

/// Sends a request and returns the status and the body parsed as JSON (panics when the body is
/// not JSON: every error must be a JSON:API document).
async fn send(req: reqwest::RequestBuilder) -> (u16, Value) {
    let resp = req.send().await.expect("request");
    let status = resp.status().as_u16();
    let text = resp.text().await.expect("body");
    let body = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("status {status}: body is not JSON ({e}): {text:.200}"));
    (status, body)
}

/// POSTs headers announcing a `len`-byte body to the infer operation over a raw connection,
/// sends none of it, and reads the answer: status and JSON body.
async fn oversized_post(base: &str, key: &str, len: usize) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = base.trim_start_matches("http://");
    let mut conn = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let head = format!(
        "POST /v2/tracking_requests/infer_number HTTP/1.1\r\nHost: {addr}\r\n\
         Authorization: Token {key}\r\nContent-Type: application/json\r\n\
         Content-Length: {len}\r\n\r\n{{\"number\":\""
    );
    conn.write_all(head.as_bytes()).await.expect("write head");
    // Read until the head and its Content-Length of body are in (the connection may stay open).
    let mut raw = Vec::new();
    let complete = |raw: &[u8]| {
        let text = String::from_utf8_lossy(raw);
        let Some((head, body)) = text.split_once("\r\n\r\n") else {
            return false;
        };
        let len = head
            .lines()
            .find_map(|l| {
                l.to_ascii_lowercase()
                    .strip_prefix("content-length:")
                    .map(|v| v.trim().to_string())
            })
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(0);
        body.len() >= len
    };
    let read = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        let mut chunk = [0u8; 4096];
        while !complete(&raw) {
            match conn.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => raw.extend_from_slice(&chunk[..n]),
            }
        }
    })
    .await;
    assert!(
        read.is_ok(),
        "no answer before the body was sent: {:?}",
        String::from_utf8_lossy(&raw)
    );
    let text = String::from_utf8_lossy(&raw);
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {text}"));
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    let body = serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
    (status, body)
}

/// The first error object of a JSON:API error document, checked for its required members.
fn first_error(status: u16, body: &Value) -> &Value {
    let e = &body["errors"][0];
    assert_eq!(e["status"], status.to_string(), "{body}");
    assert!(e["title"].is_string(), "{body}");
    assert!(e["detail"].is_string(), "{body}");
    e
}

async fn hostile_input_gets_clear_client_errors(db: &TestDb) {
    let key = db.create_account("acme");
    db.ingest("acme", &[data("dcsa/tnt-220-response.json")]);
    let server = Server::start(db, &[]);
    let http = server.client();
    let auth = format!("Token {key}");
    let post = |path: &str| {
        http.post(format!("{}{path}", server.base))
            .header("Authorization", &auth)
            .header("Content-Type", "application/json")
    };
    let get = |path: &str| {
        http.get(format!("{}{path}", server.base))
            .header("Authorization", &auth)
    };

    // An oversized body: a request announcing 3 MiB of JSON. The server answers 413 from the
    // headers alone, without reading the body (so the client reads the answer before sending).
    let (status, body) = oversized_post(&server.base, &key, 3 << 20).await;
    assert_eq!(status, 413, "{body}");
    assert!(first_error(status, &body)["detail"]
        .as_str()
        .unwrap()
        .contains("bytes"));

    // JSON nested 100,000 deep: refused by the parser's depth limit, not a stack overflow.
    let deep = format!(
        "{{\"number\":{}1{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let (status, body) = send(post("/v2/tracking_requests/infer_number").body(deep)).await;
    assert!(status == 400 || status == 422, "{status} {body}");
    first_error(status, &body);

    // Invalid UTF-8 in a body.
    let (status, body) = send(
        post("/v2/tracking_requests/infer_number").body(vec![b'{', b'"', 0xff, 0xfe, b'"', b'}']),
    )
    .await;
    assert!(status == 400 || status == 422, "{status} {body}");
    first_error(status, &body);

    // A page size far beyond the maximum, and one beyond u64.
    for size in ["1000000", "99999999999999999999999999"] {
        let (status, body) = send(get(&format!("/v2/containers?page[size]={size}"))).await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(
            first_error(status, &body)["source"]["parameter"],
            "page[size]"
        );
    }

    // SQL-looking strings in an id, a parameter and a body: plain not-found or bad-request
    // answers, and the data is still there afterwards.
    let (status, body) = send(get("/v2/containers/1'%20OR%20'1'='1")).await;
    assert_eq!(status, 404, "{body}");
    first_error(status, &body);
    let (status, body) = send(get(
        "/v2/shipments?include=shipment;DROP%20TABLE%20containers",
    ))
    .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(first_error(status, &body)["source"]["parameter"], "include");
    let (status, body) = send(
        post("/v2/tracking_requests/infer_number")
            .body(r#"{"number":"MSKU'; DROP TABLE containers;--"}"#),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["attributes"]["validation"]["is_valid"], false);

    // Invalid UTF-8 percent-encoded in the query string.
    let (status, body) = send(get("/v2/containers?page[number]=%FF%FE")).await;
    assert_eq!(status, 400, "{body}");
    first_error(status, &body);

    // The server still answers, with the data intact.
    let (status, body) = send(get("/v2/containers")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["meta"]["total"], 1);
}

/// A feed that repeats a row within one file is ingested whole, on PostgreSQL too (which refuses
/// a multi-row upsert that meets one row twice): a repeated terminal check is one check, and a
/// repeated DCSA eventID is quarantined by the reader ("duplicate eventID", the first one
/// stays). Found by the 100,000-container PostgreSQL ingest (five simulated terminal files
/// failed).
async fn repeated_rows_in_one_file_are_one_row(db: &TestDb) {
    db.create_account("repeats");
    let dir = tempfile::tempdir().expect("temp dir");
    let text = std::fs::read_to_string(data("dcsa/tnt-220-response.json")).expect("sample");
    let mut events: Vec<Value> = serde_json::from_str(&text).expect("JSON array");
    let n = events.len();
    let mut newer = events[0].clone();
    newer["eventCreatedDateTime"] = "2021-01-24T08:00:00Z".into();
    newer["changeRemark"] = "re-issued".into();
    let older = events[0].clone();
    events[0] = newer;
    events.push(older);
    let dcsa = dir.path().join("repeated-event.json");
    std::fs::write(&dcsa, serde_json::to_string(&events).unwrap()).unwrap();

    let feed = generated_feed(30, 9);
    let csv = std::fs::read_to_string(feed.path().join("terminal-checks.csv")).expect("checks");
    let mut lines: Vec<&str> = csv.lines().collect();
    let repeated = lines[1];
    lines.push(repeated);
    let checks = dir.path().join("repeated-check.csv");
    std::fs::write(&checks, lines.join("\n")).unwrap();

    let out = db.ingest("repeats", &[dcsa, checks]);
    let rows = summaries(&out);
    assert_eq!(rows.len(), 2, "{out}");
    assert_eq!(rows[0].1, n + 1, "{out}");
    assert_eq!(rows[0].3, 1, "the repeated eventID is quarantined: {out}");
    assert_eq!(rows[1].1, lines.len() - 1, "{out}");
    let mut conn = teu_store::db::Conn::connect(&db.url)
        .await
        .expect("connect");
    let count = |sql: &'static str| teu_store::db::query(sql);
    let events_stored: i64 = count("SELECT COUNT(*) FROM transport_events")
        .fetch_one(&mut conn)
        .await
        .unwrap()
        .try_get(0)
        .expect("column");
    assert_eq!(events_stored as usize, n, "one row per eventID");
    let remarks = teu_store::db::query(&format!(
        "SELECT {} FROM transport_events",
        db.body_bytes("body")
    ))
    .fetch_all(&mut conn)
    .await
    .unwrap()
    .iter()
    .filter(|r| {
        common::event_body(&r.try_get::<Vec<u8>, _>(0).expect("column")).contains("re-issued")
    })
    .count();
    assert_eq!(
        remarks, 1,
        "the first (here the later-issued) version is kept"
    );
    let checks_stored: i64 = count("SELECT COUNT(*) FROM terminal_checks")
        .fetch_one(&mut conn)
        .await
        .unwrap()
        .try_get(0)
        .expect("column");
    assert_eq!(
        checks_stored as usize,
        lines.len() - 2,
        "the repeated check is one check"
    );
}

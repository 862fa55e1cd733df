//! End-to-end tests of GraphQL subscriptions: the real `teu serve` on a random port, a real
//! WebSocket (graphql-transport-ws), and `teu ingest` run as a separate process, on SQLite (the
//! polled `updates` table) and PostgreSQL (LISTEN/NOTIFY, when `TEU_TEST_POSTGRES_URL` is set).

#[macro_use]
mod common;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

use common::{generated_feed, Server, TestDb};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

on_both_backends!(
    ingest_reaches_the_shipments_subscribers,
    unauthenticated_connections_are_refused,
    every_server_on_the_database_notifies
);

/// How long "nothing arrives" is watched for (several SQLite poll intervals).
const QUIET: Duration = Duration::from_millis(2500);
/// How long an expected message may take.
const PATIENCE: Duration = Duration::from_secs(20);

const CONTAINER_UPDATED: &str = "subscription($s: ID) { containerUpdated(shipmentId: $s) { \
    id number currentStatus shipment { id billOfLadingNumber } } }";

/// A graphql-transport-ws client.
struct Ws {
    socket: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

impl Ws {
    /// Opens a WebSocket to `path` with the graphql-transport-ws subprotocol.
    async fn open(server: &Server, path: &str) -> Ws {
        let url = format!("{}{path}", server.base.replacen("http://", "ws://", 1));
        let mut request = url.into_client_request().expect("request");
        request.headers_mut().insert(
            "Sec-WebSocket-Protocol",
            "graphql-transport-ws".parse().expect("header"),
        );
        let (socket, response) = tokio_tungstenite::connect_async(request)
            .await
            .expect("WebSocket handshake");
        assert_eq!(
            response
                .headers()
                .get("sec-websocket-protocol")
                .and_then(|v| v.to_str().ok()),
            Some("graphql-transport-ws")
        );
        Ws { socket }
    }

    /// Opens, sends `connection_init` with the key and waits for `connection_ack`.
    async fn connect(server: &Server, key: &str) -> Ws {
        let mut ws = Ws::open(server, "/graphql").await;
        ws.send(json!({"type": "connection_init", "payload": {"Authorization": format!("Token {key}")}}))
            .await;
        let ack = ws
            .recv(PATIENCE)
            .await
            .expect("an answer to connection_init");
        assert_eq!(ack, Frame::Json(json!({"type": "connection_ack"})));
        ws
    }

    async fn send(&mut self, message: Value) {
        self.socket
            .send(Message::text(message.to_string()))
            .await
            .expect("send");
    }

    /// Starts subscription `id`, then gives the server a moment to register it (the protocol
    /// has no acknowledgement for `subscribe`).
    async fn subscribe(&mut self, id: &str, query: &str, variables: Value) {
        self.send(json!({"id": id, "type": "subscribe",
            "payload": {"query": query, "variables": variables}}))
            .await;
        tokio::time::sleep(Duration::from_millis(500)).await;
    }

    /// The next text or close frame within `wait` (pings are answered and skipped).
    async fn recv(&mut self, wait: Duration) -> Option<Frame> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let msg = tokio::time::timeout_at(deadline, self.socket.next())
                .await
                .ok()?;
            match msg {
                None => return Some(Frame::Closed(None)),
                Some(Err(e)) => return Some(Frame::Closed(Some((0, e.to_string())))),
                Some(Ok(Message::Text(t))) => {
                    let v: Value = serde_json::from_str(&t).expect("JSON frame");
                    if v["type"] == "ping" {
                        self.send(json!({"type": "pong"})).await;
                        continue;
                    }
                    return Some(Frame::Json(v));
                }
                Some(Ok(Message::Close(c))) => {
                    return Some(Frame::Closed(
                        c.map(|c| (u16::from(c.code), c.reason.to_string())),
                    ))
                }
                Some(Ok(_)) => continue,
            }
        }
    }

    /// The payloads of `next` messages until `n` have arrived (panics after [`PATIENCE`]).
    async fn next_payloads(&mut self, n: usize) -> Vec<Value> {
        let mut out = Vec::new();
        while out.len() < n {
            match self.recv(PATIENCE).await {
                Some(Frame::Json(v)) if v["type"] == "next" => {
                    assert!(v["payload"]["errors"].is_null(), "{v}");
                    out.push(v["payload"]["data"].clone());
                }
                other => panic!("expected a `next` message, got {other:?} after {out:?}"),
            }
        }
        out
    }

    /// Asserts that nothing arrives for [`QUIET`].
    async fn assert_quiet(&mut self, what: &str) {
        if let Some(frame) = self.recv(QUIET).await {
            panic!("{what}: expected no message, got {frame:?}");
        }
    }
}

#[derive(Debug, PartialEq)]
enum Frame {
    Json(Value),
    /// Close code and reason, if the server sent them.
    Closed(Option<(u16, String)>),
}

/// A generated feed of three shipments split into two files: `first` holds the opening events
/// of the first shipment (so that it exists), `rest` everything else (which moves its
/// containers on and creates the other two shipments).
struct SplitFeed {
    _dir: tempfile::TempDir,
    first: PathBuf,
    rest: PathBuf,
}

fn split_feed() -> SplitFeed {
    let generated = generated_feed(3, 7);
    let text = std::fs::read_to_string(generated.path().join("generated-0001.json"))
        .expect("generated feed");
    let events: Vec<Value> = serde_json::from_str(&text).expect("feed JSON");
    let dir = tempfile::tempdir().expect("temp dir");
    let first = dir.path().join("first.json");
    let rest = dir.path().join("rest.json");
    std::fs::write(&first, Value::Array(events[..12].to_vec()).to_string()).expect("write");
    std::fs::write(&rest, Value::Array(events[12..].to_vec()).to_string()).expect("write");
    SplitFeed {
        _dir: dir,
        first,
        rest,
    }
}

/// The account's shipments: (id, bill of lading, {container number: (id, status)}).
async fn shipments(
    server: &Server,
    key: &str,
) -> Vec<(String, String, Vec<(String, String, String)>)> {
    let (status, body) = server
        .graphql(
            Some(key),
            "{ shipments(first: 100) { edges { node { id billOfLadingNumber \
             containers { id number currentStatus } } } } }",
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    body["data"]["shipments"]["edges"]
        .as_array()
        .expect("edges")
        .iter()
        .map(|e| {
            let n = &e["node"];
            let containers = n["containers"]
                .as_array()
                .expect("containers")
                .iter()
                .map(|c| {
                    (
                        c["number"].as_str().expect("number").to_string(),
                        c["id"].as_str().expect("id").to_string(),
                        c["currentStatus"].as_str().expect("status").to_string(),
                    )
                })
                .collect();
            (
                n["id"].as_str().expect("id").to_string(),
                n["billOfLadingNumber"].as_str().expect("bl").to_string(),
                containers,
            )
        })
        .collect()
}

async fn ingest_reaches_the_shipments_subscribers(db: &TestDb) {
    let key = db.create_account("acme");
    let other_key = db.create_account("other");
    let feed = split_feed();
    db.ingest("acme", std::slice::from_ref(&feed.first));
    let server = Server::start(db, &[]);

    let before = shipments(&server, &key).await;
    assert_eq!(before.len(), 1, "{before:?}");
    let (shipment_id, bl, known) = before[0].clone();

    let mut watcher = Ws::connect(&server, &key).await;
    watcher
        .subscribe("1", CONTAINER_UPDATED, json!({"s": shipment_id}))
        .await;
    // The same account, all containers, and the tracking requests.
    let mut everything = Ws::connect(&server, &key).await;
    everything
        .subscribe("all", CONTAINER_UPDATED, json!({}))
        .await;
    let mut requests = Ws::connect(&server, &key).await;
    requests
        .subscribe(
            "tr",
            "subscription { trackingRequestUpdated { id requestNumber status shipment { billOfLadingNumber } } }",
            json!({}),
        )
        .await;
    // Another account, no filter: must never hear of acme's containers.
    let mut stranger = Ws::connect(&server, &other_key).await;
    stranger.subscribe("x", CONTAINER_UPDATED, json!({})).await;

    // A request for a container that only the second file brings.
    let unknown_yet = {
        let text = std::fs::read_to_string(&feed.rest).expect("rest");
        let events: Vec<Value> = serde_json::from_str(&text).expect("JSON");
        events
            .iter()
            .filter_map(|e| e["equipmentReference"].as_str().map(str::to_string))
            .find(|n| !known.iter().any(|(k, _, _)| k == n))
            .expect("a container of another shipment")
    };
    let (status, body) = server
        .graphql(
            Some(&key),
            "mutation($n: String!) { createTrackingRequest(input: {requestNumber: $n, \
             requestType: CONTAINER, scac: \"MSCU\"}) { id status } }",
            json!({"n": unknown_yet}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["data"]["createTrackingRequest"]["status"], "PENDING",
        "{body}"
    );
    let request_id = body["data"]["createTrackingRequest"]["id"].clone();

    // `teu ingest` in another process.
    db.ingest("acme", std::slice::from_ref(&feed.rest));
    let after = shipments(&server, &key).await;
    assert_eq!(after.len(), 3, "{after:?}");
    let (_, _, containers) = after
        .iter()
        .find(|(id, _, _)| *id == shipment_id)
        .expect("the watched shipment")
        .clone();
    assert!(!containers.is_empty());

    // The watched shipment's containers arrive, each once, with their new data.
    let got = watcher.next_payloads(containers.len()).await;
    let mut seen = Vec::new();
    for data in &got {
        let c = &data["containerUpdated"];
        assert_eq!(c["shipment"]["id"], shipment_id.as_str(), "{data}");
        assert_eq!(c["shipment"]["billOfLadingNumber"], bl.as_str());
        seen.push((
            c["number"].as_str().expect("number").to_string(),
            c["id"].as_str().expect("id").to_string(),
            c["currentStatus"].as_str().expect("status").to_string(),
        ));
    }
    seen.sort();
    let mut expected = containers.clone();
    expected.sort();
    assert_eq!(seen, expected);
    watcher
        .assert_quiet("after the watched shipment's containers")
        .await;

    // The unfiltered subscription gets every container of the account.
    let all: usize = after.iter().map(|(_, _, c)| c.len()).sum();
    let got = everything.next_payloads(all).await;
    let numbers: BTreeSet<_> = got
        .iter()
        .map(|d| {
            d["containerUpdated"]["number"]
                .as_str()
                .expect("number")
                .to_string()
        })
        .collect();
    assert_eq!(numbers.len(), all);

    let got = requests.next_payloads(1).await;
    let r = &got[0]["trackingRequestUpdated"];
    assert_eq!(r["id"], request_id);
    assert_eq!(r["status"], "CREATED");
    assert!(r["shipment"]["billOfLadingNumber"].is_string(), "{r}");

    stranger.assert_quiet("another account's subscriber").await;

    // Re-ingesting the same file changes nothing, so nobody hears anything.
    db.ingest("acme", std::slice::from_ref(&feed.rest));
    watcher.assert_quiet("an unchanged re-ingest").await;
    everything.assert_quiet("an unchanged re-ingest").await;
    requests.assert_quiet("an unchanged re-ingest").await;
}

async fn unauthenticated_connections_are_refused(db: &TestDb) {
    let key = db.create_account("acme");
    let server = Server::start(db, &[]);
    for payload in [
        json!({}),
        json!({"Authorization": "Token teu_not_a_key"}),
        json!({"Authorization": format!("Bearer {key}")}),
    ] {
        let mut ws = Ws::open(&server, "/graphql/ws").await;
        ws.send(json!({"type": "connection_init", "payload": payload}))
            .await;
        match ws.recv(PATIENCE).await {
            Some(Frame::Closed(_)) | None => {}
            other => panic!("{payload}: expected the connection closed, got {other:?}"),
        }
    }
    // A subscribe before connection_init closes the connection too.
    let mut ws = Ws::open(&server, "/graphql").await;
    ws.send(json!({"id": "1", "type": "subscribe",
        "payload": {"query": CONTAINER_UPDATED}}))
        .await;
    assert!(
        matches!(ws.recv(PATIENCE).await, Some(Frame::Closed(_))),
        "subscribe without connection_init"
    );
    // A malformed filter id is BAD_USER_INPUT (async-graphql sends a resolver error as a
    // `next` with errors, then `complete`).
    let mut ws = Ws::connect(&server, &key).await;
    ws.send(json!({"id": "1", "type": "subscribe",
        "payload": {"query": CONTAINER_UPDATED, "variables": {"s": "nope"}}}))
        .await;
    match ws.recv(PATIENCE).await {
        Some(Frame::Json(v)) => {
            assert_eq!(v["type"], "next", "{v}");
            let error = &v["payload"]["errors"][0];
            assert_eq!(error["extensions"]["code"], "BAD_USER_INPUT", "{v}");
            assert_eq!(error["extensions"]["field"], "shipmentId", "{v}");
        }
        other => panic!("expected an error, got {other:?}"),
    }
    // Plain GET /graphql still serves GraphiQL.
    let resp = server
        .client()
        .get(format!("{}/graphql", server.base))
        .send()
        .await
        .expect("GET");
    assert_eq!(resp.status().as_u16(), 200);
}

async fn every_server_on_the_database_notifies(db: &TestDb) {
    let key = db.create_account("acme");
    let feed = split_feed();
    db.ingest("acme", std::slice::from_ref(&feed.first));
    let one = Server::start(db, &[]);
    let two = Server::start(db, &[]);
    let shipment_id = shipments(&one, &key).await[0].0.clone();
    let mut a = Ws::connect(&one, &key).await;
    let mut b = Ws::connect(&two, &key).await;
    a.subscribe("a", CONTAINER_UPDATED, json!({"s": shipment_id}))
        .await;
    b.subscribe("b", CONTAINER_UPDATED, json!({"s": shipment_id}))
        .await;
    db.ingest("acme", std::slice::from_ref(&feed.rest));
    let n = shipments(&one, &key)
        .await
        .into_iter()
        .find(|(id, _, _)| *id == shipment_id)
        .expect("shipment")
        .2
        .len();
    for ws in [&mut a, &mut b] {
        let got = ws.next_payloads(n).await;
        assert!(got
            .iter()
            .all(|d| d["containerUpdated"]["shipment"]["id"] == shipment_id.as_str()));
    }
}

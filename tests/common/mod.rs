//! Test harness: real databases and the real `teu` binary on a random port.
//!
//! - [`TestDb::sqlite`] makes a SQLite file in a temporary directory.
//! - [`TestDb::postgres`] makes a fresh database on the PostgreSQL server named by
//!   `TEU_TEST_POSTGRES_URL` (e.g. `postgres://postgres@127.0.0.1:5432/postgres`) and drops it
//!   afterwards. When the variable is unset the PostgreSQL variants are skipped with a note;
//!   when it is set and the server cannot be used, they fail.
//! - [`Server::start`] runs `teu serve --bind 127.0.0.1:0` and reads the chosen address from
//!   its stdout.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;
use teu_store::scratch::ScratchDatabase;

/// Runs each named scenario `async fn NAME(db: &TestDb)` twice: `sqlite::NAME` on a temporary
/// SQLite file and `postgres::NAME` on a fresh PostgreSQL database (skipped with a note when
/// `TEU_TEST_POSTGRES_URL` is unset). The test file must have `TestDb` in scope.
#[allow(unused_macros)] // not every test file runs on both backends
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread")]
                async fn $name() {
                    let db = super::TestDb::sqlite();
                    super::$name(&db).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread")]
                async fn $name() {
                    let Some(db) = super::TestDb::postgres().await else {
                        eprintln!("skipped: TEU_TEST_POSTGRES_URL is not set");
                        return;
                    };
                    super::$name(&db).await;
                    db.cleanup().await;
                }
            )*
        }
    };
}

pub const TEU: &str = env!("CARGO_BIN_EXE_teu");

/// Path of a file in the repository's `data/` directory.
pub fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data").join(rel)
}

pub struct TestDb {
    pub url: String,
    _dir: Option<tempfile::TempDir>,
    pg_drop: Option<ScratchDatabase>,
}

impl TestDb {
    /// The select-list item reading a compressed column (`transport_events.body`, the bodies
    /// of `containers` and `shipments`, ...) as bytes for its codec (`teu_store::payloads`):
    /// SQLite rows hold a zstd frame (a BLOB) or, written before compression or by a test, JSON
    /// text; PostgreSQL's column is `BYTEA`.
    pub fn body_bytes(&self, column: &str) -> String {
        if self.url.starts_with("sqlite:") {
            format!("CAST({column} AS BLOB)")
        } else {
            column.to_string()
        }
    }

    /// The select-list item reading a time column of the event tables (migration 28) as
    /// milliseconds since the epoch: SQLite keeps the integer, PostgreSQL a `timestamptz`.
    pub fn millis(&self, column: &str) -> String {
        if self.url.starts_with("sqlite:") {
            column.to_string()
        } else {
            format!("CAST(EXTRACT(EPOCH FROM {column}) * 1000 AS BIGINT)")
        }
    }

    pub fn sqlite() -> TestDb {
        let dir = tempfile::tempdir().expect("temp dir");
        let url = format!("sqlite:{}", dir.path().join("teu.db").display());
        TestDb {
            url,
            _dir: Some(dir),
            pg_drop: None,
        }
    }

    /// `None` when `TEU_TEST_POSTGRES_URL` is not set.
    pub async fn postgres() -> Option<TestDb> {
        let admin = std::env::var("TEU_TEST_POSTGRES_URL").ok()?;
        let name = format!("teu_test_{}", uuid::Uuid::new_v4().simple());
        let db = ScratchDatabase::create(&admin, &name)
            .await
            .unwrap_or_else(|e| {
                panic!("TEU_TEST_POSTGRES_URL is set but PostgreSQL cannot be used: {e}")
            });
        Some(TestDb {
            url: db.url.clone(),
            _dir: None,
            pg_drop: Some(db),
        })
    }

    /// The same database reached through another URL (e.g. through a proxy); dropping the
    /// returned value cleans nothing up.
    pub fn with_url(&self, url: String) -> TestDb {
        TestDb {
            url,
            _dir: None,
            pg_drop: None,
        }
    }

    /// Drops the PostgreSQL test database (SQLite's directory goes away on drop).
    pub async fn cleanup(self) {
        if let Some(db) = self.pg_drop {
            let _ = db.drop().await;
        }
    }

    /// Runs `teu --database-url URL args...` and returns its output.
    pub fn teu(&self, args: &[&str]) -> Output {
        Command::new(TEU)
            .arg("--database-url")
            .arg(&self.url)
            .args(args)
            .env("RUST_LOG", "warn")
            .output()
            .expect("run teu")
    }

    /// Creates an account and returns its API key (checks the key is alone on stdout).
    pub fn create_account(&self, name: &str) -> String {
        self.create_account_with(name, false)
    }

    /// Creates an account, with the Routing Data feature (`--routing-data`) when `routing`, and
    /// returns its API key (checks the key is alone on stdout).
    pub fn create_account_with(&self, name: &str, routing: bool) -> String {
        let mut args = vec!["accounts", "create", "--name", name];
        if routing {
            args.push("--routing-data");
        }
        let out = self.teu(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8(out.stdout).expect("utf-8");
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), 1, "the key alone on stdout: {stdout:?}");
        assert!(lines[0].starts_with("teu_"), "{stdout}");
        lines[0].to_string()
    }

    /// `teu ingest --account NAME paths...`; panics unless it exits 0. Returns stdout.
    pub fn ingest(&self, account: &str, paths: &[PathBuf]) -> String {
        self.ingest_with(account, &[], paths)
    }

    /// `teu ingest --account NAME OPTIONS… paths...`; panics unless it exits 0. Returns stdout.
    pub fn ingest_with(&self, account: &str, options: &[&str], paths: &[PathBuf]) -> String {
        let mut args = vec!["ingest".to_string(), "--account".into(), account.into()];
        args.extend(options.iter().map(ToString::to_string));
        args.extend(paths.iter().map(|p| p.display().to_string()));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = self.teu(&refs);
        assert!(
            out.status.success(),
            "ingest failed: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8")
    }
}

/// Runs `teu ARGS… TEMP_DIR` (a command that writes files into a directory) and returns the
/// directory; panics unless it exits 0.
pub fn teu_into_temp_dir(args: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = Command::new(TEU)
        .args(args)
        .arg(dir.path())
        .output()
        .expect("run teu");
    assert!(
        out.status.success(),
        "teu {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

/// Writes a generated feed (`teu generate`) into a temp dir and returns the dir.
pub fn generated_feed(shipments: usize, seed: u64) -> tempfile::TempDir {
    teu_into_temp_dir(&[
        "generate",
        "--shipments",
        &shipments.to_string(),
        "--seed",
        &seed.to_string(),
    ])
}

/// Writes a simulated feed (`teu simulate`: `containers` boxes in chunks of `per_file`, an
/// email every 5 arriving shipments) into a temp dir and returns the dir.
pub fn simulated_feed(containers: usize, per_file: usize, seed: u64) -> tempfile::TempDir {
    teu_into_temp_dir(&[
        "simulate",
        "--containers",
        &containers.to_string(),
        "--containers-per-file",
        &per_file.to_string(),
        "--email-every",
        "5",
        "--seed",
        &seed.to_string(),
    ])
}

pub struct Server {
    pub base: String,
    child: Child,
    pub stdout_lines: Vec<String>,
    http: reqwest::Client,
}

impl Server {
    /// Starts `teu serve` on a random port; `extra` adds arguments (e.g. `--demo`).
    pub fn start(db: &TestDb, extra: &[&str]) -> Server {
        Server::start_with_env(db, extra, &[])
    }

    /// [`Server::start`] with extra environment variables.
    pub fn start_with_env(db: &TestDb, extra: &[&str], env: &[(&str, &str)]) -> Server {
        let mut child = Command::new(TEU)
            .arg("--database-url")
            .arg(&db.url)
            .args(["serve", "--bind", "127.0.0.1:0"])
            .args(extra)
            .env("RUST_LOG", "warn")
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn teu serve");
        let stdout = child.stdout.take().expect("stdout");
        let mut reader = BufReader::new(stdout);
        let mut lines = Vec::new();
        let base = loop {
            let mut line = String::new();
            let n = reader.read_line(&mut line).expect("read stdout");
            assert!(
                n > 0,
                "teu serve exited before listening; output: {lines:?}"
            );
            if let Some(rest) = line.strip_prefix("Listening on ") {
                break rest.split_whitespace().next().expect("address").to_string();
            }
            lines.push(line.trim_end().to_string());
        };
        // Keep draining stdout so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in reader.lines() {});
        Server {
            base,
            child,
            stdout_lines: lines,
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(30))
                .build()
                .expect("client"),
        }
    }

    /// GET `path` with `Authorization: Token key` (no header when `key` is `None`).
    pub async fn get(&self, path: &str, key: Option<&str>) -> (u16, Value) {
        let mut req = self.http.get(format!("{}{path}", self.base));
        if let Some(k) = key {
            req = req.header("Authorization", format!("Token {k}"));
        }
        let resp = req.send().await.expect("request");
        let status = resp.status().as_u16();
        let text = resp.text().await.expect("body");
        let body = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("GET {path}: not JSON ({e}): {text}"));
        (status, body)
    }

    /// POST a GraphQL query; returns status and body.
    pub async fn graphql(&self, key: Option<&str>, query: &str, variables: Value) -> (u16, Value) {
        let mut req = self
            .http
            .post(format!("{}/graphql", self.base))
            .json(&serde_json::json!({"query": query, "variables": variables}));
        if let Some(k) = key {
            req = req.header("Authorization", format!("Token {k}"));
        }
        let resp = req.send().await.expect("request");
        let status = resp.status().as_u16();
        let text = resp.text().await.expect("body");
        (
            status,
            serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("graphql: not JSON ({e}): {text}")),
        )
    }

    /// The API key `teu serve --demo` printed (`API key: …`).
    pub fn demo_key(&self) -> String {
        self.stdout_lines
            .iter()
            .find_map(|l| l.strip_prefix("API key: "))
            .expect("API key line")
            .to_string()
    }

    pub fn client(&self) -> &reqwest::Client {
        &self.http
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Parses `teu ingest` summary lines
/// (`FILE: DCSA T&T 2.2: 7 rows read, 7 accepted, 0 quarantined (...)`) into
/// (file name, rows read, accepted, quarantined).
pub fn summaries(stdout: &str) -> Vec<(String, usize, usize, usize)> {
    stdout
        .lines()
        .filter_map(|l| {
            let (file, rest) = l.split_once(": ")?;
            let (_format, counts) = rest.split_once(": ")?;
            let mut it = counts.split(", ");
            let read = it.next()?.strip_suffix(" rows read")?.parse().ok()?;
            let accepted = it.next()?.strip_suffix(" accepted")?.parse().ok()?;
            let quarantined = it.next()?.split(" quarantined").next()?.parse().ok()?;
            let name = Path::new(file).file_name()?.to_string_lossy().into_owned();
            Some((name, read, accepted, quarantined))
        })
        .collect()
}

/// Tables whose rows an ingest writes. Rows are compared by their content, with account-scoped
/// ids and wall-clock times removed (two accounts never share ids, and ingest time differs).
const BODY_TABLES: [&str; 3] = ["shipments", "containers", "transport_events"];
const COUNTED_TABLES: [&str; 4] = [
    "quarantine",
    "terminal_checks",
    "line_deadlines",
    "transport_events",
];

/// The JSON text of a stored `transport_events.body` read through [`TestDb::body_bytes`].
pub fn event_body(stored: &[u8]) -> String {
    teu_store::payloads::decode_event_body(stored).expect("a stored event body")
}

/// Drops ids and ingest-time timestamps from a stored body, recursively.
fn without_ids_and_clock(v: &mut Value) {
    match v {
        Value::Object(map) => {
            map.retain(|k, _| {
                !(k == "id"
                    || k.ends_with("_id")
                    || k.ends_with("_ids")
                    || matches!(k.as_str(), "created_at" | "refreshed_at" | "updated_at"))
            });
            map.values_mut().for_each(without_ids_and_clock);
        }
        Value::Array(items) => items.iter_mut().for_each(without_ids_and_clock),
        _ => {}
    }
}

/// Each shipment of `account` as `bill of lading: container numbers`, sorted, after asserting
/// that the members both APIs read (`Store::shipments_with_members` for `/v2`,
/// `Store::container_ids_of_shipments` for GraphQL; `shipments.member_ids`, migration 40) are
/// exactly the containers whose `shipment_id` names the shipment, in container number order
/// (its bytes), then id: the truth is the `containers` table, read here on its own.
async fn shipment_members(
    conn: &mut teu_store::db::Conn,
    store: &teu_store::Store,
    account: uuid::Uuid,
) -> Vec<String> {
    let id_of = |r: &teu_store::db::DbRow, column: &str| {
        uuid::Uuid::from_slice(&r.try_get::<Vec<u8>, _>(column).expect("column"))
            .expect("16-byte id")
    };
    let mut boxes: BTreeMap<uuid::Uuid, Vec<(String, uuid::Uuid)>> = BTreeMap::new();
    for r in
        teu_store::db::query("SELECT id, shipment_id, number FROM containers WHERE account_id = $1")
            .bind(teu_store::db::RecordId(account))
            .fetch_all(&mut *conn)
            .await
            .expect("containers")
    {
        let number: String = r.try_get("number").expect("column");
        boxes
            .entry(id_of(&r, "shipment_id"))
            .or_default()
            .push((number, id_of(&r, "id")));
    }
    let shipments: Vec<uuid::Uuid> =
        teu_store::db::query("SELECT id FROM shipments WHERE account_id = $1")
            .bind(teu_store::db::RecordId(account))
            .fetch_all(&mut *conn)
            .await
            .expect("shipments")
            .iter()
            .map(|r| id_of(r, "id"))
            .collect();
    let served = store
        .shipments_with_members(account, &shipments)
        .await
        .expect("shipments with members");
    assert_eq!(served.len(), shipments.len(), "every shipment is read");
    let mut ids_only = store
        .container_ids_of_shipments(account, &shipments)
        .await
        .expect("container ids of shipments");
    let mut rows = Vec::new();
    for (shipment, members) in served {
        let mut expected = boxes.remove(&shipment.id).unwrap_or_default();
        expected.sort_by(|a, b| (a.0.as_bytes(), a.1).cmp(&(b.0.as_bytes(), b.1)));
        let expected_ids: Vec<uuid::Uuid> = expected.iter().map(|(_, id)| *id).collect();
        assert_eq!(
            members, expected_ids,
            "shipment {}: its members are its containers, by number",
            shipment.bill_of_lading_number
        );
        assert_eq!(
            ids_only.remove(&shipment.id).unwrap_or_default(),
            expected_ids,
            "shipment {}: GraphQL's container ids",
            shipment.bill_of_lading_number
        );
        let numbers: Vec<&str> = expected.iter().map(|(n, _)| n.as_str()).collect();
        rows.push(format!(
            "{}: {}",
            shipment.bill_of_lading_number,
            numbers.join(" ")
        ));
    }
    assert!(
        boxes.is_empty(),
        "containers of no stored shipment: {:?}",
        boxes.keys().collect::<Vec<_>>()
    );
    rows.sort();
    rows
}

/// Everything an ingest wrote for `account`: per table, the sorted normalized bodies, each
/// shipment's members ([`shipment_members`]), and the row counts of the other tables.
pub async fn snapshot(db: &TestDb, account: &str) -> BTreeMap<String, Vec<String>> {
    let mut conn = teu_store::db::Conn::connect(&db.url)
        .await
        .expect("connect");
    // Every table keeps the account's id as its 16 bytes (migrations 28 to 49).
    let account_id: Vec<u8> = teu_store::db::query("SELECT id FROM accounts WHERE name = $1")
        .bind(account)
        .fetch_one(&mut conn)
        .await
        .expect("account")
        .try_get(0)
        .expect("column");
    let account_uuid = uuid::Uuid::from_slice(&account_id).expect("account id");
    let account_bytes = account_uuid.as_bytes().to_vec();
    let mut out = BTreeMap::new();
    for table in BODY_TABLES {
        // Every body is a zstd frame of its table's codec (derived records since migration 32).
        let body = db.body_bytes("body");
        let sql = format!("SELECT {body} FROM {table} WHERE account_id = $1");
        let q = teu_store::db::query(&sql);
        let q = match table {
            "transport_events" => q.bind(account_bytes.clone()),
            // The derived tables keep it in the backend's record form (migration 38).
            _ => q.bind(teu_store::db::RecordId(account_uuid)),
        };
        let rows = q.fetch_all(&mut conn).await.expect("bodies");
        let mut bodies: Vec<String> = rows
            .iter()
            .map(|r| {
                let stored = r.try_get::<Vec<u8>, _>(0).expect("column");
                let text = match table {
                    "transport_events" => event_body(&stored),
                    "containers" => teu_store::payloads::CONTAINER_BODIES
                        .decode(&stored)
                        .expect("a stored container body"),
                    _ => teu_store::payloads::SHIPMENT_BODIES
                        .decode(&stored)
                        .expect("a stored shipment body"),
                };
                let mut v: Value = serde_json::from_str(&text).expect("JSON body");
                without_ids_and_clock(&mut v);
                v.to_string()
            })
            .collect();
        bodies.sort();
        out.insert(table.to_string(), bodies);
    }
    // Each link as the box number, its event's time and `named_actual`: the same in every order
    // files arrive in. Links are stored in each container's `event_links` (migration 27), read
    // as the API serves them; each must name a stored event of the account with its raw event
    // and `named_actual`, in event-time order.
    let store = teu_store::Store::connect(&db.url).await.expect("store");
    let containers: Vec<(uuid::Uuid, String)> =
        teu_store::db::query("SELECT id, number FROM containers WHERE account_id = $1")
            .bind(teu_store::db::RecordId(account_uuid))
            .fetch_all(&mut conn)
            .await
            .expect("container ids")
            .iter()
            .map(|r| {
                let id = uuid::Uuid::from_slice(&r.try_get::<Vec<u8>, _>("id").expect("column"))
                    .expect("16-byte container id");
                (id, r.try_get::<String, _>(1).expect("column"))
            })
            .collect();
    let ids: Vec<uuid::Uuid> = containers.iter().map(|(id, _)| *id).collect();
    let served = store
        .event_links_of_containers(account_uuid, &ids)
        .await
        .expect("event links");
    let events: std::collections::HashMap<uuid::Uuid, (uuid::Uuid, i64, i64)> =
        teu_store::db::query(&format!(
            "SELECT id, raw_event_id, {}, COALESCE(named_actual, -1) FROM transport_events \
             WHERE account_id = $1",
            db.millis("event_at")
        ))
        .bind(account_bytes.clone())
        .fetch_all(&mut conn)
        .await
        .expect("events")
        .iter()
        .map(|r| {
            let id = |i| {
                uuid::Uuid::from_slice(&r.try_get::<Vec<u8>, _>(i).expect("column"))
                    .expect("16-byte id")
            };
            (
                id(0),
                (
                    id(1),
                    r.try_get(2).expect("column"),
                    r.try_get(3).expect("column"),
                ),
            )
        })
        .collect();
    let mut link_rows: Vec<String> = Vec::new();
    for (id, number) in &containers {
        let links = served.get(id).map(Vec::as_slice).unwrap_or_default();
        let mut previous: Option<(i64, uuid::Uuid)> = None;
        for link in links {
            let (raw, at, named) = events.get(&link.id).unwrap_or_else(|| {
                panic!("{number} links {}, not an event of the account", link.id)
            });
            assert_eq!(
                raw, &link.raw_event_id,
                "{number}: raw event of {}",
                link.id
            );
            assert_eq!(
                *named,
                i64::from(link.named_actual),
                "{number}: named_actual of {}",
                link.id
            );
            if let Some(before) = previous {
                assert!(
                    before < (*at, link.id),
                    "{number}: links out of event order"
                );
            }
            previous = Some((*at, link.id));
            link_rows.push(format!("{number} {at} {named}"));
        }
    }
    link_rows.sort();
    out.insert("container links".to_string(), link_rows);
    out.insert(
        "shipment members".to_string(),
        shipment_members(&mut conn, &store, account_uuid).await,
    );
    // The derivation stores the value of each container it derives.
    let stored: i64 = teu_store::db::query(
        "SELECT COUNT(*) FROM containers WHERE account_id = $1 AND event_links IS NOT NULL",
    )
    .bind(teu_store::db::RecordId(account_uuid))
    .fetch_one(&mut conn)
    .await
    .expect("stored event links")
    .try_get(0)
    .expect("column");
    assert_eq!(
        stored as usize,
        ids.len(),
        "every container stores its event links"
    );
    for table in COUNTED_TABLES {
        let sql = format!("SELECT COUNT(*) FROM {table} WHERE account_id = $1");
        let q = teu_store::db::query(&sql);
        let q = match table {
            "transport_events" => q.bind(account_bytes.clone()),
            // The other tables keep it in the backend's record form (migrations 39, 45).
            _ => q.bind(teu_store::db::RecordId(account_uuid)),
        };
        let n: i64 = q
            .fetch_one(&mut conn)
            .await
            .expect("count")
            .try_get(0)
            .expect("column");
        out.insert(format!("{table} rows"), vec![n.to_string()]);
    }
    out
}

/// A small deterministic generator (xorshift64*), so tests need no randomness crate.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Fisher–Yates shuffle.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

/// A fresh PostgreSQL test database, from synchronous code running on a multi-threaded tokio
/// test; panics when `TEU_TEST_POSTGRES_URL` is not set (check first).
pub fn postgres_blocking() -> TestDb {
    tokio::task::block_in_place(|| {
        tokio::runtime::Handle::current()
            .block_on(TestDb::postgres())
            .expect("PostgreSQL test database")
    })
}

/// Every container of the account with its shipment (`/v2/containers?include=shipment`, page
/// by page), in list order.
pub async fn containers_with_shipments(server: &Server, key: &str) -> Vec<(Value, Value)> {
    let mut out = Vec::new();
    let mut shipments: BTreeMap<String, Value> = BTreeMap::new();
    for page in 1.. {
        let (status, doc) = server
            .get(
                &format!("/v2/containers?include=shipment&page[size]=100&page[number]={page}"),
                Some(key),
            )
            .await;
        assert_eq!(status, 200, "{doc}");
        for s in doc["included"].as_array().into_iter().flatten() {
            shipments.insert(s["id"].as_str().unwrap_or_default().to_string(), s.clone());
        }
        let data = doc["data"].as_array().cloned().unwrap_or_default();
        if data.is_empty() {
            break;
        }
        for c in data {
            let sid = c["relationships"]["shipment"]["data"]["id"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let s = shipments.get(&sid).cloned().unwrap_or(Value::Null);
            out.push((c, s));
        }
    }
    out
}

/// Panics listing the first 20 of `problems` (sorted, without repeats) when there are any.
pub fn assert_no_problems(mut problems: Vec<String>) {
    problems.sort();
    problems.dedup();
    assert!(
        problems.is_empty(),
        "{} problems, first 20:\n{}",
        problems.len(),
        problems
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

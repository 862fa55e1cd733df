//! Upgrades (issue 16): a database written by an earlier release opens with this build, is
//! migrated with its data, and serves what this build serves after ingesting the same feed
//! into a fresh database.
//!
//! `tests/upgrade/` holds what the release of commit [`RELEASE`] wrote (`scripts/upgrade-fixture.sh`):
//! a SQL dump of its SQLite and of its PostgreSQL database after ingesting the generated feed
//! in `tests/upgrade/feed/` into account `acme`, and that account's API key. The fresh database
//! gets the same account id (ids are UUID v5 of natural keys scoped by the account), so both
//! serve the same ids, and the documents are compared whole, ingest times aside.

#[macro_use]
mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use common::{Server, TestDb};

/// The commit whose release wrote the fixtures (migrations up to `20261125000013`).
const RELEASE: &str = "f2f879b";

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/upgrade")
}

/// The zstd-compressed text file at `path`.
fn unzstd(path: &Path) -> Vec<u8> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    zstd::decode_all(file).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The fixture feed, decompressed into a temp dir (same relative paths, `.zst` dropped).
fn feed() -> tempfile::TempDir {
    fn walk(from: &Path, to: &Path) {
        for entry in std::fs::read_dir(from).expect("feed dir") {
            let path = entry.expect("entry").path();
            let name = path
                .file_name()
                .expect("name")
                .to_string_lossy()
                .to_string();
            if path.is_dir() {
                let sub = to.join(&name);
                std::fs::create_dir_all(&sub).expect("mkdir");
                walk(&path, &sub);
            } else if let Some(plain) = name.strip_suffix(".zst") {
                std::fs::write(to.join(plain), unzstd(&path)).expect("write feed file");
            }
        }
    }
    let dir = tempfile::tempdir().expect("temp dir");
    walk(&fixture_dir().join("feed"), dir.path());
    dir
}

/// Runs the release's SQL dump of `backend` (`sqlite` or `postgres`) on the empty database.
async fn load_dump(url: &str, backend: &str) {
    let sql = String::from_utf8(unzstd(
        &fixture_dir().join(format!("{RELEASE}-{backend}.sql.zst")),
    ))
    .expect("UTF-8 dump");
    let url = if backend == "sqlite" {
        format!("{url}?mode=rwc")
    } else {
        url.to_string()
    };
    let mut conn = teu_store::db::Conn::connect(&url).await.expect("connect");
    conn.run_script(&sql)
        .await
        .expect("load the release's dump");
    conn.close().await.expect("close");
}

/// Every page of `path` (a list endpoint with its query, without `page`), 100 resources a page:
/// `meta.total` of the first page, every `data` resource by id and every `included` resource by
/// type and id. (Pages are in order of when each row was last changed, which differs between
/// two databases, so resources are compared by id.)
async fn walk(
    server: &Server,
    key: &str,
    path: &str,
) -> (Value, BTreeMap<String, Value>, BTreeMap<String, Value>) {
    let (mut data, mut included) = (BTreeMap::new(), BTreeMap::new());
    let mut total = Value::Null;
    for page in 1.. {
        let (status, doc) = server
            .get(
                &format!("{path}&page[size]=100&page[number]={page}"),
                Some(key),
            )
            .await;
        assert_eq!(status, 200, "{path}: {doc}");
        if page == 1 {
            total = doc["meta"]["total"].clone();
        }
        let resources = doc["data"].as_array().cloned().unwrap_or_default();
        if resources.is_empty() {
            break;
        }
        for r in resources {
            let id = r["id"].as_str().unwrap_or_default().to_string();
            assert!(
                data.insert(id.clone(), r).is_none(),
                "{path}: {id} on two pages"
            );
        }
        for r in doc["included"].as_array().cloned().unwrap_or_default() {
            let id = format!(
                "{} {}",
                r["type"].as_str().unwrap_or_default(),
                r["id"].as_str().unwrap_or_default()
            );
            included.insert(id, r);
        }
    }
    (total, data, included)
}

/// `v` without the members that say when a row was written (`created_at`: when this database
/// first stored it), which differ between two ingests of the same feed.
fn without_ingest_times(v: &mut Value) {
    match v {
        Value::Object(map) => {
            map.remove("created_at");
            map.values_mut().for_each(without_ingest_times);
        }
        Value::Array(items) => items.iter_mut().for_each(without_ingest_times),
        _ => {}
    }
}

/// What the server answers on the account's containers and shipments, ingest times aside.
async fn answers(server: &Server, key: &str) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for (name, path) in [
        ("containers", "/v2/containers?include=shipment"),
        ("shipments", "/v2/shipments?include=containers"),
        // Filter columns filled by migrations from the bodies (migration 32: a stop the feeds
        // derived) select what the fresh database's rows select.
        (
            "stopped shipments",
            "/v2/shipments?filter[tracking_stopped]=true",
        ),
        (
            "running shipments",
            "/v2/shipments?filter[tracking_stopped]=false",
        ),
    ] {
        let (total, data, included) = walk(server, key, path).await;
        assert_eq!(
            total,
            Value::from(data.len()),
            "{name}: meta.total against the resources of every page"
        );
        for (what, map) in [("data", data), ("included", included)] {
            // Links name the server's random port: compare them without it.
            let text = serde_json::to_string(&map)
                .expect("JSON")
                .replace(&server.base, "BASE");
            let mut v: Value = serde_json::from_str(&text).expect("JSON");
            without_ingest_times(&mut v);
            out.insert(format!("{name} {what}"), v);
        }
        out.insert(format!("{name} total"), total);
    }
    out
}

/// Every stored event's columns (migration 28: 16-byte ids, times in milliseconds) say what its
/// body says: the event time is the body's `event_at`, the version time its `event_created_at` (or
/// `event_at` when the carrier gave none), to the millisecond. Every event keeps its carrier's
/// payload, the DCSA event of the body's `event_id`, in whichever layout holds it (apart before the
/// one-frame layout of `payloads::EVENTS`, inside the body's frame since).
async fn event_columns_match_their_bodies(db: &TestDb) {
    let mut conn = teu_store::db::Conn::connect(&db.url)
        .await
        .expect("connect");
    let rows = teu_store::db::query(&format!(
        "SELECT id, raw_event_id, {}, {}, {} AS body, {} AS payload FROM transport_events",
        db.millis("event_at"),
        db.millis("issued_at"),
        db.body_bytes("body"),
        db.body_bytes("payload")
    ))
    .fetch_all(&mut conn)
    .await
    .expect("events");
    assert!(
        rows.len() > 100,
        "the database holds the feed's events: {}",
        rows.len()
    );
    let millis = |body: &Value, field: &str| {
        body[field].as_str().map(|t| {
            chrono::DateTime::parse_from_rfc3339(t)
                .unwrap_or_else(|e| panic!("{field} {t}: {e}"))
                .timestamp_millis()
        })
    };
    for r in rows {
        let id: Vec<u8> = r.try_get(0).expect("column");
        let raw: Vec<u8> = r.try_get(1).expect("column");
        assert_eq!((id.len(), raw.len()), (16, 16), "ids as 16 bytes");
        let stored = teu_store::payloads::decode_event(
            &r.try_get::<Vec<u8>, _>("body").expect("column"),
            r.try_get::<Option<Vec<u8>>, _>("payload")
                .expect("column")
                .as_deref(),
        )
        .expect("a stored event");
        let body: Value = serde_json::from_str(&stored.body).expect("body");
        // Each event's carrier payload moved beside it (migration 30), then into its body's
        // frame (`payloads::EVENTS`): none was left behind.
        let payload: Value = serde_json::from_str(stored.payload.as_deref().expect("a payload"))
            .expect("payload JSON");
        assert_eq!(
            payload["eventID"].as_str().map(str::trim),
            body["event_id"].as_str(),
            "the payload of {body}"
        );
        let at = millis(&body, "event_at").expect("an event time");
        assert_eq!(
            r.try_get::<i64, _>(2).expect("column"),
            at,
            "event_at of {body}"
        );
        let issued = millis(&body, "event_created_at").unwrap_or(at);
        assert_eq!(
            r.try_get::<i64, _>(3).expect("column"),
            issued,
            "issued_at of {body}"
        );
    }
    conn.close().await.expect("close");
}

/// Every container, shipment and terminal check this build wrote keeps its text as zstd
/// frames of its table's dictionary (migration 32): the body decodes to the row's record (its
/// id or container number, and the number column), a check's original row names its
/// container, and the frames are under a quarter of the text they hold.
async fn stored_text_is_compressed(db: &TestDb) {
    use teu_store::payloads::{CONTAINER_BODIES, SHIPMENT_BODIES, TERMINAL_CHECKS};
    let mut conn = teu_store::db::Conn::connect(&db.url)
        .await
        .expect("connect");
    for (table, codec, column_of_number, raw) in [
        ("containers", &CONTAINER_BODIES, "number", None),
        ("shipments", &SHIPMENT_BODIES, "bill_of_lading_number", None),
        (
            "terminal_checks",
            &TERMINAL_CHECKS,
            "container_number",
            Some("raw"),
        ),
    ] {
        let rows = teu_store::db::query(&format!(
            "SELECT {column_of_number} AS number, {} AS body, {} AS raw FROM {table}",
            db.body_bytes("body"),
            db.body_bytes(raw.unwrap_or("body")),
        ))
        .fetch_all(&mut conn)
        .await
        .expect(table);
        assert!(rows.len() > 10, "{table}: {} rows", rows.len());
        let (mut stored, mut text) = (0, 0);
        for r in &rows {
            let number: String = r.try_get("number").expect("column");
            for column in ["body", "raw"] {
                let frame: Vec<u8> = r.try_get(column).expect("column");
                assert!(
                    frame.starts_with(&[0x28, 0xB5, 0x2F, 0xFD]),
                    "{table}.{column}: not a zstd frame"
                );
                let decoded = codec.decode(&frame).expect("a stored value");
                if column == "body" {
                    let record: Value = serde_json::from_str(&decoded).expect("JSON");
                    assert_eq!(record[column_of_number], number.as_str(), "{table}");
                    stored += frame.len();
                    text += decoded.len();
                } else if raw.is_some() {
                    assert!(decoded.contains(&number), "{table}: {decoded}");
                }
            }
        }
        let most = if raw.is_some() { 2 } else { 4 };
        assert!(
            stored * most < text,
            "{table}: {stored} bytes stored for {text} of JSON"
        );
    }
    // Each event is one frame of its body and payload (`payloads::EVENTS`), under a quarter of
    // their text, and no payload is kept apart.
    let apart: i64 =
        teu_store::db::query("SELECT COUNT(*) FROM transport_events WHERE payload IS NOT NULL")
            .fetch_one(&mut conn)
            .await
            .expect("payloads apart")
            .try_get(0)
            .expect("column");
    assert_eq!(apart, 0, "payloads kept apart from their events' frames");
    let rows = teu_store::db::query(&format!(
        "SELECT {} AS body FROM transport_events",
        db.body_bytes("body")
    ))
    .fetch_all(&mut conn)
    .await
    .expect("events");
    assert!(rows.len() > 100, "{} events", rows.len());
    let (mut stored, mut text) = (0, 0);
    for r in &rows {
        let frame: Vec<u8> = r.try_get("body").expect("column");
        assert!(
            teu_store::payloads::EVENTS.names(&frame),
            "an event's frame"
        );
        let event = teu_store::payloads::decode_event(&frame, None).expect("a stored event");
        let payload = event.payload.expect("the payload inside the frame");
        stored += frame.len();
        text += event.body.len() + payload.len();
    }
    assert!(
        stored * 4 < text,
        "events: {stored} bytes stored for {text} of JSON"
    );
    conn.close().await.expect("close");
}

/// One derived record's keys and times: (table, id, account, shipment of a container, created
/// and refreshed in milliseconds since the epoch).
type RecordColumns = (String, uuid::Uuid, uuid::Uuid, Option<uuid::Uuid>, i64, i64);

/// Every container's and shipment's ids and times as the database holds them: as the release
/// wrote them (`native` false: UUID and RFC 3339 text, read before any migration of this
/// build ran) or in the native form of migration 38 (`teu_store::db::RecordId`, `RecordTime`).
async fn record_columns(db: &TestDb, native: bool) -> std::collections::BTreeSet<RecordColumns> {
    let mut conn = teu_store::db::Conn::connect(&db.url)
        .await
        .expect("connect");
    let mut out = std::collections::BTreeSet::new();
    for (table, shipment) in [("containers", "shipment_id"), ("shipments", "NULL")] {
        let sql = format!(
            "SELECT id, account_id, {shipment} AS shipment_id, created_at, refreshed_at FROM {table}"
        );
        for r in teu_store::db::query(&sql)
            .fetch_all(&mut conn)
            .await
            .expect("records")
        {
            let id = |c: &str| stored_id(&r, c, native);
            let time = |c: &str| stored_time(&r, c, native);
            out.insert((
                table.to_string(),
                id("id"),
                id("account_id"),
                (table == "containers").then(|| id("shipment_id")),
                time("created_at").timestamp_millis(),
                time("refreshed_at").timestamp_millis(),
            ));
        }
    }
    conn.close().await.expect("close");
    out
}

/// Column `column` of `r`, an id as the release wrote it (`native` false: UUID text) or in
/// the native form of migrations 38 and 39 (`teu_store::db::RecordId`, 16 bytes).
fn stored_id(r: &teu_store::db::DbRow, column: &str, native: bool) -> uuid::Uuid {
    let read = if native {
        r.try_get::<Vec<u8>, _>(column)
            .map_err(|e| e.to_string())
            .and_then(|b| uuid::Uuid::from_slice(&b).map_err(|e| e.to_string()))
    } else {
        r.try_get::<String, _>(column)
            .map_err(|e| e.to_string())
            .and_then(|t| uuid::Uuid::parse_str(&t).map_err(|e| e.to_string()))
    };
    read.unwrap_or_else(|e| panic!("column {column} (native {native}): not an id: {e}"))
}

/// Column `column` of `r`, a time as the release wrote it (`native` false: RFC 3339 text) or
/// in the native form of migrations 38 and 39 (`teu_store::db::RecordTime`).
fn stored_time(
    r: &teu_store::db::DbRow,
    column: &str,
    native: bool,
) -> chrono::DateTime<chrono::Utc> {
    let read = if native {
        r.record_time(column).map_err(|e| e.to_string())
    } else {
        r.try_get::<String, _>(column)
            .map_err(|e| e.to_string())
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(&t).map_err(|e| e.to_string()))
            .map(|t| t.to_utc())
    };
    read.unwrap_or_else(|e| panic!("column {column} (native {native}): not a time: {e}"))
}

/// One terminal fact's keys and time: (table, id, account, container number, terminal of a
/// check, checked or issued in milliseconds since the epoch).
type FactColumns = (
    String,
    uuid::Uuid,
    uuid::Uuid,
    Option<String>,
    Option<String>,
    Option<uuid::Uuid>,
    i64,
);

/// Every terminal check's and line deadline's ids, container number, bill of lading (a
/// deadline's) and time as the database holds them: as the release wrote them (`native`
/// false: UUID and RFC 3339 text) or in the native form of migration 39
/// (`teu_store::db::RecordId`, `RecordTime`), which SQLite's migrations 41 and 42 keep in
/// tables keyed by the check and by the deadline's container number or bill of lading.
async fn fact_columns(db: &TestDb, native: bool) -> std::collections::BTreeSet<FactColumns> {
    let mut conn = teu_store::db::Conn::connect(&db.url)
        .await
        .expect("connect");
    let mut out = std::collections::BTreeSet::new();
    for (table, bill_of_lading, terminal, at) in [
        ("terminal_checks", "NULL", "terminal_id", "checked_at"),
        ("line_deadlines", "bill_of_lading", "NULL", "issued_at"),
    ] {
        let sql = format!(
            "SELECT id, account_id, container_number, {bill_of_lading} AS bill_of_lading, \
             {terminal} AS terminal_id, {at} AS at FROM {table}"
        );
        for r in teu_store::db::query(&sql)
            .fetch_all(&mut conn)
            .await
            .expect("facts")
        {
            let id = |c: &str| stored_id(&r, c, native);
            let at = stored_time(&r, "at", native);
            let terminal = (table == "terminal_checks").then(|| id("terminal_id"));
            out.insert((
                table.to_string(),
                id("id"),
                id("account_id"),
                r.try_get("container_number").expect("container_number"),
                r.try_get("bill_of_lading").expect("bill_of_lading"),
                terminal,
                at.timestamp_millis(),
            ));
        }
    }
    conn.close().await.expect("close");
    out
}

/// Every account's, API key's and inbound address's ids and times, and every shipment's
/// estimated arrival and container's last free day, as the database holds them: as the
/// release wrote them (`native` false: UUID and RFC 3339 text) or in the native form of
/// migrations 44 and 49. Each row is its table's name and its columns printed (ids as UUIDs,
/// times in milliseconds since the epoch, `-` for `NULL`).
async fn account_columns(db: &TestDb, native: bool) -> std::collections::BTreeSet<Vec<String>> {
    let mut conn = teu_store::db::Conn::connect(&db.url)
        .await
        .expect("connect");
    let mut out = std::collections::BTreeSet::new();
    for (table, sql, ids, times) in [
        (
            "accounts",
            "SELECT id, name, created_at FROM accounts",
            &["id"][..],
            &["created_at"][..],
        ),
        (
            "api_keys",
            "SELECT key_hash, account_id, created_at FROM api_keys",
            &["account_id"][..],
            &["created_at"][..],
        ),
        (
            "inbound_addresses",
            "SELECT address, account_id, created_at FROM inbound_addresses",
            &["account_id"][..],
            &["created_at"][..],
        ),
        (
            "shipments",
            "SELECT id, pod_eta_at FROM shipments",
            &["id"][..],
            &["pod_eta_at"][..],
        ),
        (
            "containers",
            "SELECT id, pickup_lfd FROM containers",
            &["id"][..],
            &["pickup_lfd"][..],
        ),
    ] {
        for r in teu_store::db::query(sql)
            .fetch_all(&mut conn)
            .await
            .expect("rows")
        {
            let mut row = vec![table.to_string()];
            for c in ["name", "key_hash", "address"] {
                if let Ok(v) = r.try_get::<String, _>(c) {
                    row.push(v);
                }
            }
            row.extend(ids.iter().map(|c| stored_id(&r, c, native).to_string()));
            for c in times {
                let t = if native {
                    r.record_time_or_null(c).expect("a time or NULL")
                } else {
                    r.try_get::<Option<String>, _>(c)
                        .expect("text or NULL")
                        .map(|t| {
                            chrono::DateTime::parse_from_rfc3339(&t)
                                .unwrap_or_else(|e| panic!("{table}.{c}: {t}: {e}"))
                                .to_utc()
                        })
                };
                row.push(t.map_or("-".into(), |t| t.timestamp_millis().to_string()));
            }
            out.insert(row);
        }
    }
    conn.close().await.expect("close");
    out
}

/// Fails, naming `migration` and up to three rows on each side, unless `after` holds exactly
/// the rows of `before`.
fn assert_kept<T: Ord + std::fmt::Debug>(
    migration: &str,
    before: &std::collections::BTreeSet<T>,
    after: &std::collections::BTreeSet<T>,
) {
    let lost: Vec<_> = before.difference(after).take(3).collect();
    let made: Vec<_> = after.difference(before).take(3).collect();
    assert!(
        lost.is_empty() && made.is_empty(),
        "{migration} changed rows: before {lost:?}, after {made:?}"
    );
}

/// PostgreSQL: the columns migration 38 changed the type of have planner statistics again
/// (a type change removes them; without them a page read the whole account and sorted it).
async fn derived_columns_have_statistics(db: &TestDb) {
    let mut conn = teu_store::db::Conn::connect(&db.url)
        .await
        .expect("connect");
    for (table, column) in [
        ("containers", "account_id"),
        ("containers", "refreshed_at"),
        ("containers", "shipment_id"),
        ("shipments", "account_id"),
        ("shipments", "refreshed_at"),
    ] {
        let n: i64 = teu_store::db::query(
            "SELECT COUNT(*) FROM pg_stats WHERE schemaname = current_schema() \
             AND tablename = $1 AND attname = $2",
        )
        .bind(table)
        .bind(column)
        .fetch_one(&mut conn)
        .await
        .expect("pg_stats")
        .try_get(0)
        .expect("count");
        assert_eq!(n, 1, "statistics of {table}.{column} after the upgrade");
    }
    conn.close().await.expect("close");
}

async fn a_release_database_upgrades_with_its_data(db: &TestDb) {
    let backend = if db.url.starts_with("sqlite:") {
        "sqlite"
    } else {
        "postgres"
    };
    load_dump(&db.url, backend).await;
    let released = record_columns(db, false).await;
    let released_facts = fact_columns(db, false).await;
    let released_accounts = account_columns(db, false).await;
    for (table, least) in [("accounts", 1), ("api_keys", 1), ("inbound_addresses", 1)] {
        assert!(
            released_accounts.iter().filter(|r| r[0] == table).count() >= least,
            "the release stored {table}"
        );
    }
    assert!(
        released_accounts
            .iter()
            .any(|r| r[0] == "shipments" && r.last().is_some_and(|t| t != "-")),
        "the release stored estimated arrivals"
    );
    for table in ["terminal_checks", "line_deadlines"] {
        assert!(
            released_facts.iter().filter(|r| r.0 == table).count() > 3,
            "the release stored {table}: {released_facts:?}"
        );
    }
    if backend == "postgres" {
        // As a database in use: statistics fresh, so `Store::optimize` analyzes nothing when
        // the upgraded server opens it, and what the planner has after the upgrade is what
        // the migrations left it.
        let mut conn = teu_store::db::Conn::connect(&db.url)
            .await
            .expect("connect");
        conn.run_script("ANALYZE").await.expect("analyze");
        conn.close().await.expect("close");
    }
    assert!(
        released.iter().filter(|r| r.0 == "containers").count() > 10
            && released.iter().filter(|r| r.0 == "shipments").count() > 5,
        "the release stored containers and shipments: {}",
        released.len()
    );
    let key = std::fs::read_to_string(fixture_dir().join(format!("{RELEASE}.key")))
        .expect("fixture key")
        .trim()
        .to_string();
    let upgraded_server = Server::start(db, &[]);
    let upgraded = answers(&upgraded_server, &key).await;
    drop(upgraded_server);
    if backend == "postgres" {
        derived_columns_have_statistics(db).await;
    }
    // Migration 38 kept every derived record's ids and times, to the millisecond.
    assert_kept("migration 38", &released, &record_columns(db, true).await);
    // Migrations 39, 41 and 42 (SQLite) kept every terminal check's and line deadline's ids,
    // container number, bill of lading and time.
    assert_kept(
        "migrations 39, 41 and 42",
        &released_facts,
        &fact_columns(db, true).await,
    );
    // Migrations 44 and 49 kept every account's, key's and address's ids and times, and every
    // estimated arrival and last free day, to the millisecond.
    assert_kept(
        "migrations 44 and 49",
        &released_accounts,
        &account_columns(db, true).await,
    );
    event_columns_match_their_bodies(db).await;
    // `teu rederive` reads every raw payload again: the release stored them as text, which must
    // still read after migration 19 (compressed payloads) and derive the same answers.
    let out = db.teu(&["rederive", "--account", "acme"]);
    assert!(
        out.status.success(),
        "rederive of the upgraded database: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    event_columns_match_their_bodies(db).await;
    let rederived_server = Server::start(db, &[]);
    let rederived = answers(&rederived_server, &key).await;
    drop(rederived_server);

    // The same feed into a fresh database, under the same account id and key.
    let fresh = match backend {
        "sqlite" => TestDb::sqlite(),
        _ => TestDb::postgres().await.expect("PostgreSQL is set"),
    };
    fresh.create_account("bootstrap");
    let mut old = teu_store::db::Conn::connect(&db.url)
        .await
        .expect("connect");
    let account = teu_store::db::query(
        "SELECT id, company_name, created_at FROM accounts WHERE name = 'acme'",
    )
    .fetch_one(&mut old)
    .await
    .expect("the release's account");
    // The upgraded database keeps ids and times in their native form (migration 49).
    let id = uuid::Uuid::from_slice(&account.try_get::<Vec<u8>, _>("id").expect("id"))
        .expect("a 16-byte id");
    let key_hash: String =
        teu_store::db::query("SELECT key_hash FROM api_keys WHERE account_id = $1")
            .bind(teu_store::db::RecordId(id))
            .fetch_one(&mut old)
            .await
            .expect("the release's key")
            .try_get("key_hash")
            .expect("key_hash");
    old.close().await.expect("close");
    let mut new = teu_store::db::Conn::connect(&fresh.url)
        .await
        .expect("connect");
    teu_store::db::query(
        "INSERT INTO accounts (id, name, company_name, routing_data, created_at) \
         VALUES ($1, 'acme', $2, 1, $3)",
    )
    .bind(teu_store::db::RecordId(id))
    .bind(
        account
            .try_get::<String, _>("company_name")
            .expect("company"),
    )
    .bind(teu_store::db::RecordTime(
        account.record_time("created_at").expect("created_at"),
    ))
    .execute(&mut new)
    .await
    .expect("insert account");
    teu_store::db::query(
        "INSERT INTO api_keys (key_hash, account_id, created_at) VALUES ($1, $2, $3)",
    )
    .bind(&key_hash)
    .bind(teu_store::db::RecordId(id))
    .bind(teu_store::db::RecordTime(
        "2026-11-25T00:00:00Z".parse().expect("a time"),
    ))
    .execute(&mut new)
    .await
    .expect("insert key");
    new.close().await.expect("close");
    let feed = feed();
    fresh.ingest("acme", &[feed.path().to_path_buf()]);
    // This build's own writes (PostgreSQL's `UNNEST` insert binds the times as `timestamptz`).
    event_columns_match_their_bodies(&fresh).await;
    let fresh_server = Server::start(&fresh, &[]);
    let want = answers(&fresh_server, &key).await;
    drop(fresh_server);
    stored_text_is_compressed(&fresh).await;
    fresh.cleanup().await;

    assert!(
        want["containers total"].as_u64().unwrap_or(0) > 60,
        "the feed has its containers: {}",
        want["containers total"]
    );
    for ((name, value), (stage, got)) in want
        .iter()
        .flat_map(|w| [(w, ("upgrade", &upgraded)), (w, ("rederive", &rederived))])
    {
        let got = &got[name];
        // Name the first resource that differs, not the whole map.
        let first = match (got.as_object(), value.as_object()) {
            (Some(g), Some(w)) => w
                .iter()
                .find(|(id, v)| g.get(*id) != Some(*v))
                .map(|(id, v)| {
                    format!(
                        "{id}:\nafter the {stage} {}\nfresh {v}",
                        g.get(id).cloned().unwrap_or_default()
                    )
                })
                .or_else(|| {
                    g.keys()
                        .find(|id| !w.contains_key(*id))
                        .map(|id| format!("{id} only after the {stage}"))
                }),
            _ => (got != value).then(|| format!("after the {stage} {got}\nfresh {value}")),
        };
        assert!(
            first.is_none(),
            "{name} differ after the {stage}: {}",
            first.unwrap_or_default()
        );
    }
}

on_both_backends!(a_release_database_upgrades_with_its_data);

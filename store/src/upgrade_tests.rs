//! The migrations that give a column its native type keep every row's value (issue 16, "a
//! database written by the current release opens and migrates with its data").
//!
//! Each test migrates a fresh database to the version just before the migration under test
//! (the migration files up to it, run by `sqlx::migrate::Migrator`), writes rows by hand in
//! that version's form (ids as `Uuid::to_string` wrote them, times as `ts` wrote them: RFC
//! 3339 text to the millisecond), then opens it with [`Store::connect`], which runs the rest,
//! and reads the rows back through the store's own functions and as typed columns. The
//! expected values are the ones written, not what the store printed before.

use std::path::Path;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::db::{self, RecordId, RecordTime};
use crate::Store;
use teu_domain::listing::{ListFilter, ListOrder, STOPPED_BY_USER};

/// A migrated-to-`before` database and its URL: a SQLite file in a temp dir, or a scratch
/// PostgreSQL database (dropped by [`Before::drop`]).
struct Before {
    url: String,
    _dir: Option<tempfile::TempDir>,
    scratch: Option<crate::scratch::ScratchDatabase>,
}

impl Before {
    /// A new database of `backend` ("sqlite" or "postgres") with the migrations whose
    /// version is below `version` applied; `None` for PostgreSQL when `TEU_TEST_POSTGRES_URL`
    /// is not set.
    async fn new(backend: &str, version: i64) -> Option<Before> {
        let (url, dir, scratch) = if backend == "sqlite" {
            let dir = tempfile::tempdir().expect("temp dir");
            let url = format!("sqlite:{}", dir.path().join("before.db").display());
            (url, Some(dir), None)
        } else {
            let Ok(admin) = std::env::var("TEU_TEST_POSTGRES_URL") else {
                eprintln!("skipped: TEU_TEST_POSTGRES_URL is not set");
                return None;
            };
            let name = format!("teu_before_{}", Uuid::new_v4().simple());
            let scratch = crate::scratch::ScratchDatabase::create(&admin, &name)
                .await
                .expect("scratch database");
            (scratch.url.clone(), None, Some(scratch))
        };
        // The migration files below `version`, run as sqlx runs the embedded ones (the same
        // files, so `Store::connect` finds their checksums unchanged).
        let files = tempfile::tempdir().expect("temp dir");
        let all = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("migrations")
            .join(backend);
        for entry in std::fs::read_dir(&all).expect("migrations") {
            let path = entry.expect("migration").path();
            let name = path.file_name().and_then(|n| n.to_str()).expect("a name");
            let number: i64 = name
                .split('_')
                .next()
                .and_then(|v| v.parse().ok())
                .expect("a versioned migration");
            if number < version {
                std::fs::copy(&path, files.path().join(name)).expect("copy");
            }
        }
        let migrator = sqlx::migrate::Migrator::new(files.path())
            .await
            .expect("migrations");
        if backend == "sqlite" {
            let pool = sqlx::SqlitePool::connect(&format!("{url}?mode=rwc"))
                .await
                .expect("SQLite");
            migrator.run(&pool).await.expect("migrate SQLite");
            pool.close().await;
        } else {
            let pool = sqlx::PgPool::connect(&url).await.expect("PostgreSQL");
            migrator.run(&pool).await.expect("migrate PostgreSQL");
            pool.close().await;
        }
        Some(Before {
            url,
            _dir: dir,
            scratch,
        })
    }

    fn sqlite(&self) -> bool {
        self.url.starts_with("sqlite:")
    }

    /// Runs `sql` with the values `binds` binds, on a connection of its own.
    async fn run(&self, sql: &str, binds: impl for<'q> FnOnce(db::Query<'q>) -> db::Query<'q>) {
        let mut conn = db::Conn::connect(&self.url).await.expect("connect");
        binds(db::query(sql))
            .execute(&mut conn)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        conn.close().await.expect("close");
    }

    async fn drop(self) {
        if let Some(scratch) = self.scratch {
            scratch.drop().await.expect("drop");
        }
    }
}

fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .expect("an RFC 3339 time")
        .to_utc()
}

/// Migrations 44 and 50: the derived records' `pod_eta_at`, `user_stopped_at`, `pickup_lfd` and
/// `filters_at`, the leg tracks' `started_at` and `ended_at` (an open leg's '' becoming
/// `NULL`), SQLite's `updates.created_at` and PostgreSQL's AIS position times keep their
/// instants, and the store filters, orders and upserts by them.
async fn record_times_keep_their_instants(backend: &str) {
    let Some(db) = Before::new(backend, 20261222000044).await else {
        return;
    };
    let account = Uuid::new_v4();
    let (bl_a, bl_b) = ("MAEU100000001", "MAEU100000002");
    let (eta, stopped, lfd, filled) = (
        "2026-03-20T06:00:00.123Z",
        "2026-03-05T10:11:12.345Z",
        "2026-03-24T23:59:59.999Z",
        "2026-03-02T08:00:00.000Z",
    );
    for (bl, eta, stopped) in [(bl_a, Some(eta), Some(stopped)), (bl_b, None, None)] {
        let s = crate::bulk_pg::tests::shipment(account, bl);
        db.run(
            "INSERT INTO shipments (id, account_id, bill_of_lading_number, tags, created_at, \
             refreshed_at, content_hash, body, pol_locode, pod_locode, shipping_line_scac, \
             pod_eta_at, filters_at, user_stopped_at, line_tracking_stopped, member_ids) \
             VALUES ($1, $2, $3, '[]', $4, $5, 'h', $6, 'CNSHA', 'NLRTM', 'MAEU', $7, $8, $9, 0, $10)",
            |q| {
                q.bind(RecordId(s.id))
                    .bind(RecordId(account))
                    .bind(bl)
                    .bind(RecordTime(s.created_at))
                    .bind(RecordTime(s.refreshed_at))
                    .bind(serde_json::to_vec(&s).expect("JSON"))
                    .bind(eta)
                    .bind(filled)
                    .bind(stopped)
                    .bind(Vec::<u8>::new())
            },
        )
        .await;
    }
    let numbers = ["MSKU1000016", "MSKU1000021"];
    for (number, lfd) in [(numbers[0], Some(lfd)), (numbers[1], None)] {
        let c = crate::bulk_pg::tests::container(account, bl_a, number, Some("NLRTM"));
        db.run(
            "INSERT INTO containers (id, account_id, shipment_id, number, current_status, \
             pod_locode, created_at, refreshed_at, content_hash, body, pickup_lfd, has_holds, \
             filters_at, event_links) \
             VALUES ($1, $2, $3, $4, 'on_ship', 'NLRTM', $5, $6, 'h', $7, $8, 0, $9, $10)",
            |q| {
                q.bind(RecordId(c.id))
                    .bind(RecordId(account))
                    .bind(RecordId(c.shipment_id))
                    .bind(number)
                    .bind(RecordTime(c.created_at))
                    .bind(RecordTime(c.refreshed_at))
                    .bind(serde_json::to_vec(&c).expect("JSON"))
                    .bind(lfd)
                    .bind(filled)
                    .bind(Vec::<u8>::new())
            },
        )
        .await;
    }
    let imo = "9321483";
    let (from, to) = ("2026-03-06T00:00:00.500Z", "2026-03-19T12:00:00.000Z");
    db.run(
        "INSERT INTO track_versions (imo, version) VALUES ($1, 2)",
        |q| q.bind(imo),
    )
    .await;
    for (ended, track) in [(to, "ended"), ("", "under way")] {
        db.run(
            "INSERT INTO leg_tracks (imo, started_at, ended_at, version, track) \
             VALUES ($1, $2, $3, 2, $4)",
            |q| q.bind(imo).bind(from).bind(ended).bind(track),
        )
        .await;
    }
    // An AIS position as migration 34 keeps it on both backends: milliseconds since the epoch.
    let fix = "2026-03-10T10:00:00.123Z";
    db.run(
        "INSERT INTO vessel_positions (vessel_key, observed_at, imo, vessel_name, latitude, \
         longitude, speed_knots, course_deg, heading_deg) \
         VALUES ('636092000', $1, $2, 'TEST', 51.9, 4.1, 12.5, 270.0, NULL)",
        |q| q.bind(at(fix).timestamp_millis()).bind(imo),
    )
    .await;
    let published = "2026-03-07T01:02:03.456Z";
    if db.sqlite() {
        db.run(
            "INSERT INTO updates (created_at, payload) VALUES ($1, '{}')",
            |q| q.bind(published),
        )
        .await;
    }

    let store = Store::connect(&db.url).await.expect("the upgraded store");
    let a = teu_domain::ids::shipment_id(account, bl_a);
    let b = teu_domain::ids::shipment_id(account, bl_b);
    // The typed columns hold the instants written.
    let row =
        db::query("SELECT pod_eta_at, user_stopped_at, filters_at FROM shipments WHERE id = $1")
            .bind(RecordId(a))
            .fetch_one(store.pool())
            .await
            .expect("shipment a");
    for (column, want) in [
        ("pod_eta_at", eta),
        ("user_stopped_at", stopped),
        ("filters_at", filled),
    ] {
        assert_eq!(
            row.record_time_or_null(column).expect(column),
            Some(at(want)),
            "{backend}: shipments.{column}"
        );
    }
    let shipment = store
        .shipment(account, a)
        .await
        .expect("read")
        .expect("shipment a");
    assert_eq!(shipment.line_tracking_stopped_at, Some(at(stopped)));
    assert_eq!(
        shipment.line_tracking_stopped_reason.as_deref(),
        Some(STOPPED_BY_USER)
    );
    // Ordered by arrival (unknown last), filtered by the user's stop.
    let ids =
        |list: Vec<teu_domain::model::Shipment>| list.iter().map(|s| s.id).collect::<Vec<_>>();
    let (by_eta, _) = store
        .list_shipments_filtered(account, &ListFilter::default(), ListOrder::PodEtaAsc, 0, 10)
        .await
        .expect("by arrival");
    assert_eq!(ids(by_eta), [a, b], "{backend}: by pod_eta_at");
    let stopped_only = ListFilter {
        tracking_stopped: Some(true),
        ..ListFilter::default()
    };
    let (stopped_list, _) = store
        .list_shipments_filtered(account, &stopped_only, ListOrder::PodEtaAsc, 0, 10)
        .await
        .expect("stopped");
    assert_eq!(ids(stopped_list), [a], "{backend}: stopped by the user");
    // Containers by their last free day: the bounds are strict, to the millisecond.
    let ms = chrono::Duration::milliseconds(1);
    for (before, after, want) in [
        (Some(at(lfd) + ms), None, vec![numbers[0]]),
        (Some(at(lfd)), None, vec![]),
        (None, Some(at(lfd) - ms), vec![numbers[0]]),
        (None, Some(at(lfd)), vec![]),
    ] {
        let filter = ListFilter {
            lfd_before: before,
            lfd_after: after,
            ..ListFilter::default()
        };
        let (list, _) = store
            .list_containers_filtered(account, &filter, ListOrder::LfdAsc, 0, 10)
            .await
            .expect("by LFD");
        let got: Vec<String> = list.iter().map(|c| c.number.to_string()).collect();
        assert_eq!(
            got, want,
            "{backend}: LFD before {before:?} after {after:?}"
        );
    }
    let (by_lfd, _) = store
        .list_containers_filtered(account, &ListFilter::default(), ListOrder::LfdAsc, 0, 10)
        .await
        .expect("by LFD");
    let got: Vec<String> = by_lfd.iter().map(|c| c.number.to_string()).collect();
    assert_eq!(got, numbers, "{backend}: by pickup_lfd, unknown last");
    // Both legs read back; replacing the open one leaves the ended one, and one row each.
    let (from, to) = (at(from), at(to));
    let ended = store
        .kept_leg_track(imo, from, Some(to))
        .await
        .expect("ended leg");
    let open = store
        .kept_leg_track(imo, from, None)
        .await
        .expect("open leg");
    assert_eq!(
        (ended.track.as_deref(), open.track.as_deref(), ended.version),
        (Some("ended"), Some("under way"), 2),
        "{backend}: leg tracks"
    );
    store
        .keep_leg_track(imo, from, None, 2, "under way, again")
        .await
        .expect("keep the open leg");
    store
        .keep_leg_track(imo, from, Some(to), 2, "ended, again")
        .await
        .expect("keep the ended leg");
    let ended = store
        .kept_leg_track(imo, from, Some(to))
        .await
        .expect("ended leg");
    let open = store
        .kept_leg_track(imo, from, None)
        .await
        .expect("open leg");
    assert_eq!(
        (ended.track.as_deref(), open.track.as_deref()),
        (Some("ended, again"), Some("under way, again")),
        "{backend}: leg tracks replaced"
    );
    let legs: i64 = db::query("SELECT COUNT(*) AS n FROM leg_tracks")
        .fetch_one(store.pool())
        .await
        .expect("count")
        .try_get("n")
        .expect("n");
    assert_eq!(legs, 2, "{backend}: one row per leg");
    // Migration 50 (PostgreSQL): the position keeps its instant; the bounds are inclusive,
    // to the millisecond.
    let ms = chrono::Duration::milliseconds(1);
    for (lo, hi, want) in [
        (None, None, 1),
        (Some(at(fix)), Some(at(fix)), 1),
        (Some(at(fix) + ms), None, 0),
        (None, Some(at(fix) - ms), 0),
    ] {
        let got = store
            .vessel_positions(imo, lo, hi)
            .await
            .expect("positions");
        assert_eq!(
            got.len(),
            want,
            "{backend}: positions from {lo:?} to {hi:?}"
        );
        if let Some(p) = got.first() {
            assert_eq!(
                (p.observed_at, p.latitude, p.speed_knots),
                (at(fix), 51.9, Some(12.5)),
                "{backend}: the position"
            );
        }
    }
    if db.sqlite() {
        let ms: i64 = db::query("SELECT created_at FROM updates")
            .fetch_one(store.pool())
            .await
            .expect("update")
            .try_get("created_at")
            .expect("created_at");
        assert_eq!(ms, at(published).timestamp_millis(), "updates.created_at");
    }
    store.pool().close().await;
    db.drop().await;
}

#[tokio::test]
async fn record_times_keep_their_instants_sqlite() {
    record_times_keep_their_instants("sqlite").await;
}

#[tokio::test]
async fn record_times_keep_their_instants_postgres() {
    record_times_keep_their_instants("postgres").await;
}

/// Migrations 45 to 49: every row of the tables that kept ids and times as text until then
/// (accounts, API keys, inbound addresses, quarantine, document schemas, webhooks and their
/// notifications, tracking requests, email submissions and documents), written by hand in
/// their text form, reads back through the store with the same ids and instants; the lists
/// keep their order, the outbox claims what was due, and the foreign keys left are sound.
async fn account_tables_keep_their_values(backend: &str) {
    let Some(db) = Before::new(backend, 20261223000045).await else {
        return;
    };
    let id = |n: u128| Uuid::from_u128(0x0196_0000_0000_7000_8000_0000_0000_0000 | n);
    let (account, hook, request, shipment, container, event) =
        (id(1), id(2), id(3), id(4), id(5), id(6));
    let (pending, delivered) = (id(7), id(8));
    let (submission, document, representation, quarantined) = (id(9), id(10), id(11), id(12));
    let times = [
        "2026-01-02T03:04:05.006Z",
        "2026-01-03T00:00:00.000Z",
        "2026-02-11T13:14:15.999Z",
        "2026-03-01T12:00:00.500Z",
        "2026-03-01T12:00:01.500Z",
    ];
    let [t0, t1, t2, t3, t4] = times;
    let key = "teu_upgrade_test_key";
    let address = "d00d@inbound.teu.local";
    db.run(
        "INSERT INTO accounts (id, name, company_name, routing_data, created_at) \
         VALUES ($1, 'upgrade', 'Upgrade Co', 1, $2)",
        |q| q.bind(account.to_string()).bind(t0),
    )
    .await;
    db.run(
        "INSERT INTO api_keys (key_hash, account_id, created_at) VALUES ($1, $2, $3)",
        |q| {
            q.bind(crate::hash_key(key))
                .bind(account.to_string())
                .bind(t1)
        },
    )
    .await;
    db.run(
        "INSERT INTO inbound_addresses (address, account_id, created_at) VALUES ($1, $2, $3)",
        |q| q.bind(address).bind(account.to_string()).bind(t1),
    )
    .await;
    let refused = "2026-04-01T09:08:07.654Z";
    db.run(
        "INSERT INTO quarantine (id, account_id, source_file, row_index, pointer, reason, \
         payload, created_at) VALUES ($1, $2, 'events.json', 7, '/eventDateTime', 'not a time', \
         '{\"eventDateTime\": \"soon\"}', $3)",
        |q| {
            q.bind(quarantined.to_string())
                .bind(account.to_string())
                .bind(refused)
        },
    )
    .await;
    db.run(
        "INSERT INTO document_schemas (id, document_type, schema_version, label, description, \
         current_flag, draft, active_at, schema_format, schema_payload, created_at, updated_at) \
         VALUES ('upgrade_test@9.9', 'upgrade_test', '9.9', 'Upgrade test', 'Written by hand', \
         1, 0, $1, 'json-schema', '{\"type\": \"object\"}', $2, $3)",
        |q| q.bind(t0).bind(t1).bind(t2),
    )
    .await;
    db.run(
        "INSERT INTO webhooks (id, account_id, url, active, events, headers, secret, created_at, \
         updated_at) VALUES ($1, $2, 'https://example.com/hook', 1, \
         '[\"container.transport.vessel_arrived\"]', '[]', 's3cret', $3, $4)",
        |q| {
            q.bind(hook.to_string())
                .bind(account.to_string())
                .bind(t0)
                .bind(t2)
        },
    )
    .await;
    // One notification due since `t3` (no lease), one delivered at `t4`.
    for (n, status, created, delivered_at) in [
        (pending, "pending", t3, None),
        (delivered, "succeeded", t4, Some(t4)),
    ] {
        db.run(
            "INSERT INTO webhook_notifications (id, account_id, webhook_id, event, \
             reference_type, reference_id, container_id, shipment_id, tracking_request_id, \
             detail, body, delivery_status, attempts, next_attempt_at, locked_until, \
             last_status_code, last_error, created_at, delivered_at) VALUES ($1, $2, $3, \
             'container.transport.vessel_arrived', 'transport_event', $4, $5, $6, NULL, \
             '{\"timestamp\": \"2026-03-01T11:00:00Z\"}', NULL, $7, 0, $8, NULL, NULL, NULL, $8, $9)",
            |q| {
                q.bind(n.to_string())
                    .bind(account.to_string())
                    .bind(hook.to_string())
                    .bind(event.to_string())
                    .bind(container.to_string())
                    .bind(shipment.to_string())
                    .bind(status)
                    .bind(created)
                    .bind(delivered_at)
            },
        )
        .await;
    }
    db.run(
        "INSERT INTO tracking_requests (id, account_id, request_number, request_type, scac, \
         status, shipment_id, created_at, updated_at, ref_numbers, shipment_tags) \
         VALUES ($1, $2, 'MSKU1000016', 'container', 'MAEU', 'created', $3, $4, $5, \
         '[\"PO-1\"]', '[]')",
        |q| {
            q.bind(request.to_string())
                .bind(account.to_string())
                .bind(shipment.to_string())
                .bind(t1)
                .bind(t2)
        },
    )
    .await;
    let message = serde_json::json!({
        "id": submission, "account_id": account, "user_id": null, "subject": "BL",
        "body": null, "from": ["ops@example.com"], "to": [address], "cc": [],
        "sent_at": null, "message_id": "<m1@example.com>", "in_reply_to": null,
        "references": [], "content_type": null, "documents_count": 1,
        "document_ids": [document], "created_at": t3, "updated_at": t3
    });
    db.run(
        "INSERT INTO email_submissions (id, account_id, message_id, source_file, created_at, \
         updated_at, body) VALUES ($1, $2, '<m1@example.com>', 'm1.eml', $3, $3, $4)",
        |q| {
            q.bind(submission.to_string())
                .bind(account.to_string())
                .bind(t3)
                .bind(message.to_string())
        },
    )
    .await;
    let sha = "039058c6f2c0cb492c533b0a4d14ef77cc0f78abccced5287d84a1a2011cfb81";
    db.run(
        "INSERT INTO documents (id, account_id, sha256, file_name, media_type, byte_size, \
         content, created_at) VALUES ($1, $2, $3, 'bl.pdf', 'application/pdf', 3, $4, $5)",
        |q| {
            q.bind(document.to_string())
                .bind(account.to_string())
                .bind(sha)
                .bind(vec![1u8, 2, 3])
                .bind(t3)
        },
    )
    .await;
    db.run(
        "INSERT INTO email_documents (email_submission_id, document_id, account_id, position) \
         VALUES ($1, $2, $3, 0)",
        |q| {
            q.bind(submission.to_string())
                .bind(document.to_string())
                .bind(account.to_string())
        },
    )
    .await;
    db.run(
        "INSERT INTO document_representations (id, account_id, document_id, kind, media_type, \
         byte_size, sha256, created_at) VALUES ($1, $2, $3, 'original', 'application/pdf', 3, \
         $4, $5)",
        |q| {
            q.bind(representation.to_string())
                .bind(account.to_string())
                .bind(document.to_string())
                .bind(sha)
                .bind(t3)
        },
    )
    .await;

    let store = Store::connect(&db.url).await.expect("the upgraded store");
    // Accounts, keys and addresses.
    let found = store
        .authenticate(key)
        .await
        .expect("authenticate")
        .expect("the key's account");
    assert_eq!(
        (
            found.id,
            found.name.as_str(),
            found.routing_data,
            found.created_at
        ),
        (account, "upgrade", true, at(t0)),
        "{backend}: the account by its key"
    );
    let owner = store
        .account_by_inbound_address(address)
        .await
        .expect("read")
        .expect("the address's account");
    assert_eq!(owner, found, "{backend}: the account by its address");
    assert_eq!(
        store.inbound_addresses(account).await.expect("addresses"),
        [address]
    );
    assert!(store.accounts().await.expect("accounts").contains(&found));
    let issued = store.issue_key(account).await.expect("a new key");
    assert_eq!(
        store
            .authenticate(&issued)
            .await
            .expect("read")
            .map(|a| a.id),
        Some(account),
        "{backend}: a key issued after the upgrade"
    );
    // Quarantine and schemas.
    let rows = store.quarantined(account).await.expect("quarantined");
    assert_eq!(
        rows.iter()
            .map(|r| (r.source_file.as_str(), r.index, r.pointer.as_str()))
            .collect::<Vec<_>>(),
        [("events.json", Some(7), "/eventDateTime")],
        "{backend}: the quarantined row"
    );
    let row = db::query("SELECT id, created_at FROM quarantine WHERE account_id = $1")
        .bind(RecordId(account))
        .fetch_one(store.pool())
        .await
        .expect("quarantine row");
    assert_eq!(
        (
            row.try_get::<Vec<u8>, _>("id").expect("id"),
            row.record_time("created_at").expect("created_at")
        ),
        (quarantined.as_bytes().to_vec(), at(refused)),
        "{backend}: quarantine columns"
    );
    let schema = store
        .document_schema("upgrade_test@9.9")
        .await
        .expect("read")
        .expect("the schema written by hand");
    assert_eq!(
        (schema.active_at, schema.created_at, schema.updated_at),
        (Some(at(t0)), at(t1), at(t2)),
        "{backend}: document schema times"
    );
    // The bundled schemas went in at start-up over the typed columns; loading them again (a
    // later start, another `now`) leaves every row as it was: their content is unchanged.
    let first = store.document_schemas(None).await.expect("schemas");
    assert!(first.len() > 1, "{backend}: the bundled schemas");
    store.load_document_schemas().await.expect("load again");
    assert_eq!(store.document_schemas(None).await.expect("schemas"), first);
    // Webhooks and the outbox.
    let webhook = store
        .webhook(account, hook)
        .await
        .expect("read")
        .expect("the webhook");
    assert_eq!(
        (
            webhook.account_id,
            webhook.url.as_str(),
            webhook.secret.as_str(),
            webhook.created_at,
            webhook.updated_at
        ),
        (
            account,
            "https://example.com/hook",
            "s3cret",
            at(t0),
            at(t2)
        ),
        "{backend}: the webhook"
    );
    let (listed, total) = store
        .list_notifications(account, 0, 10)
        .await
        .expect("notifications");
    assert_eq!(total, 2);
    let seen: Vec<_> = listed
        .iter()
        .map(|n| {
            (
                n.id,
                n.webhook_id,
                n.reference_id,
                n.container_id,
                n.shipment_id,
                n.created_at,
                n.delivered_at,
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (
                delivered,
                hook,
                event,
                Some(container),
                Some(shipment),
                at(t4),
                Some(at(t4))
            ),
            (
                pending,
                hook,
                event,
                Some(container),
                Some(shipment),
                at(t3),
                None
            ),
        ],
        "{backend}: notifications, newest first"
    );
    let filter = teu_domain::webhooks::outbox::NotificationFilter {
        container_id: Some(container),
        ..Default::default()
    };
    let (filtered, _) = store
        .list_notifications_filtered(account, &filter, 0, 10)
        .await
        .expect("filtered");
    assert_eq!(filtered.len(), 2, "{backend}: by container");
    let claimed = store
        .claim_notifications(10, std::time::Duration::from_secs(60))
        .await
        .expect("claim");
    assert_eq!(
        claimed.iter().map(|n| n.id).collect::<Vec<_>>(),
        [pending],
        "{backend}: the due notification is claimed"
    );
    // Tracking requests.
    let tracked = store
        .tracking_request(account, request)
        .await
        .expect("read")
        .expect("the request");
    assert_eq!(
        (
            tracked.shipment_id,
            tracked.created_at,
            tracked.updated_at,
            tracked.ref_numbers.clone()
        ),
        (Some(shipment), at(t1), at(t2), vec!["PO-1".to_string()]),
        "{backend}: the tracking request"
    );
    let last = store
        .last_tracking_requests(account, &["MSKU1000016".to_string()])
        .await
        .expect("last requests");
    assert_eq!(last.get("MSKU1000016"), Some(&at(t1)));
    for (from, want) in [(at(t1), 1), (at(t1) + chrono::Duration::milliseconds(1), 0)] {
        let filter = teu_domain::tracking_requests::TrackingRequestFilter {
            created_from: Some(from),
            ..Default::default()
        };
        let (_, n) = store
            .list_tracking_requests_filtered(account, &filter, 0, 10)
            .await
            .expect("filtered");
        assert_eq!(n, want, "{backend}: created from {from}");
    }
    // Email.
    let read = store
        .email_submission(account, submission)
        .await
        .expect("read")
        .expect("the submission");
    assert_eq!(
        (read.id, read.document_ids.clone()),
        (submission, vec![document])
    );
    let (page, _) = store
        .list_email_submissions(account, 0, 10)
        .await
        .expect("submissions");
    assert_eq!(page.len(), 1);
    let documents = store
        .documents_by_ids(account, &[document])
        .await
        .expect("documents");
    assert_eq!(
        documents
            .iter()
            .map(|d| (d.id, d.created_at, d.byte_size))
            .collect::<Vec<_>>(),
        [(document, at(t3), 3)],
        "{backend}: the document"
    );
    let representations = store
        .document_representations_by_ids(account, &[representation])
        .await
        .expect("representations");
    assert_eq!(
        representations
            .iter()
            .map(|r| (r.id, r.document_id, r.created_at))
            .collect::<Vec<_>>(),
        [(representation, document, at(t3))]
    );
    assert_eq!(
        store
            .document_content(account, document)
            .await
            .expect("content"),
        Some(vec![1, 2, 3])
    );
    // The foreign keys left: keys and addresses to their account, sound.
    if db.sqlite() {
        let broken = db::query("SELECT COUNT(*) AS n FROM pragma_foreign_key_check")
            .fetch_one(store.pool())
            .await
            .expect("check")
            .try_get::<i64, _>("n")
            .expect("n");
        assert_eq!(broken, 0, "rows breaking a foreign key");
    }
    store.pool().close().await;
    db.drop().await;
}

#[tokio::test]
async fn account_tables_keep_their_values_sqlite() {
    account_tables_keep_their_values("sqlite").await;
}

#[tokio::test]
async fn account_tables_keep_their_values_postgres() {
    account_tables_keep_their_values("postgres").await;
}

/// A fresh database of this build keeps every id and every time in its native form (issue
/// 16): each column named as an id (`id`, `…_id`) is 16 bytes (`BLOB`, `bytea`), each
/// named as a time (`…_at`, `locked_until`, `pickup_lfd`) is integer milliseconds on SQLite
/// and `timestamptz` on PostgreSQL. The ids that are not UUIDs are listed with what they
/// hold.
async fn ids_and_times_are_native(store: &Store, backend: &str) {
    /// Named like ids, but not UUIDs: a schema's name (`<document_type>@<version>`), a
    /// message's Message-ID header, SQLite's sequence of change notices (AUTOINCREMENT).
    const NOT_UUIDS: [(&str, &str); 3] = [
        ("document_schemas", "id"),
        ("email_submissions", "message_id"),
        ("updates", "id"),
    ];
    let sql = if backend == "sqlite" {
        "SELECT m.name AS t, p.name AS c, upper(p.type) AS ty FROM sqlite_master m \
         JOIN pragma_table_info(m.name) p WHERE m.type = 'table' \
         AND m.name NOT LIKE 'sqlite_%' AND m.name <> '_sqlx_migrations'"
    } else {
        "SELECT table_name::text AS t, column_name::text AS c, data_type::text AS ty \
         FROM information_schema.columns WHERE table_schema = current_schema() \
         AND table_name <> '_sqlx_migrations'"
    };
    let mut wrong = Vec::new();
    let mut checked = 0;
    for r in db::query(sql)
        .fetch_all(store.pool())
        .await
        .expect("columns")
    {
        let (t, c, ty): (String, String, String) = (
            r.try_get("t").expect("t"),
            r.try_get("c").expect("c"),
            r.try_get("ty").expect("ty"),
        );
        let (id, time) = (
            c == "id" || c.ends_with("_id"),
            c.ends_with("_at") || c == "locked_until" || c == "pickup_lfd",
        );
        if NOT_UUIDS.contains(&(t.as_str(), c.as_str())) || !(id || time) {
            continue;
        }
        checked += 1;
        let native = match (backend, id) {
            ("sqlite", true) => ty == "BLOB",
            ("sqlite", false) => ty == "INTEGER" || ty == "BIGINT",
            (_, true) => ty == "bytea",
            (_, false) => ty == "timestamp with time zone",
        };
        if !native {
            wrong.push(format!("{t}.{c} {ty}"));
        }
    }
    assert!(
        checked > 40,
        "{backend}: {checked} id and time columns read"
    );
    assert!(wrong.is_empty(), "{backend}: not native: {wrong:?}");
}

#[tokio::test]
async fn ids_and_times_are_native_sqlite() {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite:{}", dir.path().join("fresh.db").display());
    let store = Store::connect(&url).await.expect("store");
    ids_and_times_are_native(&store, "sqlite").await;
}

#[tokio::test]
async fn ids_and_times_are_native_postgres() {
    let Some(db) = crate::scratch::ScratchStore::for_test("teu_native").await else {
        return;
    };
    ids_and_times_are_native(&db.store, "postgres").await;
    db.drop().await.expect("drop");
}

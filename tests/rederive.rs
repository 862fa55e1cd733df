//! `teu rederive`: a database written by the previous release (events with one container,
//! bill of lading and booking each; derived rows from that reading) gets today's answers from
//! its stored carrier payloads, without re-ingesting anything (issue "Derived data that is
//! right", item 7).

#[macro_use]
mod common;

use common::TestDb;
use serde_json::Value;

/// Rewrites the account's stored events the way the previous release stored them (the first
/// container, bill of lading and booking only, no references or transport call id), keeps the first
/// key of each kind in `event_keys` (what the migration backfills from such rows), and throws the
/// derived rows away, as if they had been derived from that reading. The carrier's payload goes
/// back beside the body, as text, where that release kept it (the one-frame layout,
/// `teu_store::payloads::EVENTS`, keeps both in one frame).
async fn downgrade(db: &TestDb) {
    let mut conn = teu_store::db::Conn::connect(&db.url)
        .await
        .expect("connect");
    let rows = teu_store::db::query(&format!(
        "SELECT id, account_id, {} AS body FROM transport_events",
        db.body_bytes("body")
    ))
    .fetch_all(&mut conn)
    .await
    .expect("events");
    teu_store::db::query("DELETE FROM event_keys")
        .execute(&mut conn)
        .await
        .expect("keys");
    let appended = if db.url.starts_with("sqlite:") {
        "CAST(event_keys.event_ids || excluded.event_ids AS BLOB)"
    } else {
        "event_keys.event_ids || excluded.event_ids"
    };
    let mut multi = 0;
    for r in rows {
        // Ids as the event tables keep them, their 16 bytes (migration 28).
        let id: Vec<u8> = r.try_get("id").expect("column");
        let account: Vec<u8> = r.try_get("account_id").expect("column");
        let stored = teu_store::payloads::decode_event(
            &r.try_get::<Vec<u8>, _>("body").expect("column"),
            None,
        )
        .expect("a stored event");
        let payload = stored.payload.expect("the carrier's payload");
        let mut body: Value = serde_json::from_str(&stored.body).expect("body");
        let map = body.as_object_mut().expect("object");
        let mut firsts = Vec::new();
        for (set, one, kind) in [
            // Kinds as `event_keys` stores them (migration 24).
            ("containers", "container_number", 0_i16),
            ("bills_of_lading", "bill_of_lading", 1),
            ("bookings", "booking", 2),
        ] {
            if let Some(Value::Array(values)) = map.remove(set) {
                multi += usize::from(values.len() > 1);
                if let Some(first) = values.into_iter().next() {
                    firsts.push((kind, first.as_str().expect("a key is a string").to_string()));
                    map.insert(one.into(), first);
                }
            }
        }
        map.remove("references");
        map.remove("transport_call_id");
        // As text, as the previous release stored it (its bytes on PostgreSQL's BYTEA).
        teu_store::db::query("UPDATE transport_events SET body = $1, payload = $3 WHERE id = $2")
            .bind(body.to_string().into_bytes())
            .bind(&id)
            .bind(payload.into_bytes())
            .execute(&mut conn)
            .await
            .expect("downgrade body");
        // The first key of each kind, what the migration backfilled from such rows. The
        // trigger kept the replaced version in `replaced_event_versions`; the rederive's writer
        // drains it, and must keep the keys the event still names.
        for (kind, value) in firsts {
            // One row per key, its events' ids appended (migration 29).
            teu_store::db::query(&format!(
                "INSERT INTO event_keys (account_id, kind, value, event_ids) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (account_id, kind, value) DO UPDATE SET event_ids = {appended}"
            ))
            .bind(account.clone())
            .bind(kind)
            .bind(value)
            .bind(id.clone())
            .execute(&mut conn)
            .await
            .expect("backfill key");
        }
    }
    assert!(multi > 0, "the feed has events naming several keys");
    for table in ["container_events", "containers", "shipments"] {
        teu_store::db::query(&format!("DELETE FROM {table}"))
            .execute(&mut conn)
            .await
            .expect("drop derived rows");
    }
}

async fn rederive_restores_todays_answers(db: &TestDb) {
    db.create_account("acme");
    let feed = common::generated_feed(12, 7);
    db.ingest(
        "acme",
        &[
            feed.path().to_path_buf(),
            common::data("dcsa/tnt-220-response.json"),
        ],
    );
    let today = common::snapshot(db, "acme").await;
    downgrade(db).await;
    let broken = common::snapshot(db, "acme").await;
    assert_ne!(broken, today, "the downgrade changed the stored data");

    let out = db.teu(&["rederive", "--account", "acme"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.starts_with("acme: "), "{stdout}");
    assert!(!stdout.contains(" 0 rewritten"), "{stdout}");
    let again = common::snapshot(db, "acme").await;
    for (table, rows) in &today {
        assert_eq!(&again[table], rows, "{table} after rederive");
    }

    // Nothing left to do the second time; every account when none is named.
    let out = db.teu(&["rederive"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains(" 0 rewritten, 0 unreadable"), "{stdout}");
    assert_eq!(common::snapshot(db, "acme").await, today);

    let out = db.teu(&["rederive", "--account", "nobody"]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("nobody"),
        "the error names the account"
    );
}

on_both_backends!(rederive_restores_todays_answers);

//! Store and ingest against a real SQLite file (and PostgreSQL when `TEU_TEST_POSTGRES_URL` is
//! set): accounts and keys, ingest of the real DCSA samples, idempotent re-ingest.

use std::path::PathBuf;

use teu_pipeline::ingest;
use teu_pipeline::model::ContainerStatus;
use teu_pipeline::store::scratch::ScratchStore;
use teu_pipeline::store::{hash_key, Store};

fn sample(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../data/dcsa")
        .join(name)
}

async fn sqlite() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("t.db").display());
    let store = Store::connect(&url).await.unwrap();
    (dir, store)
}

#[tokio::test]
async fn postgres_backend_ingests_the_same() {
    let Some(db) = ScratchStore::for_test("teu_store").await else {
        return;
    };
    accounts_on(&db.store).await;
    ingest_on(&db.store).await;
    kept_events_are_the_stored_ones_on(&db.store).await;
    later_versions_replace_keys_on(&db.store).await;
    stored_links_follow_their_events_on(&db.store).await;
    db.drop().await.unwrap();
}

/// On PostgreSQL a store first takes a batch of events for new (a plain `INSERT`) and, when
/// one is stored already, writes the batch again through the conflict rule
/// (`Store::upsert_events_pg`). A store of its own, so that the later version below is the
/// first batch to meet a stored event: the try for new fails on it, and what the rule writes
/// (the version, its keys, the log of replaced versions) must be what it is on SQLite.
#[tokio::test]
async fn postgres_a_later_version_replaces_its_keys_after_the_try_for_new() {
    let Some(db) = ScratchStore::for_test("teu_store_fresh").await else {
        return;
    };
    later_versions_replace_keys_on(&db.store).await;
    db.drop().await.unwrap();
}

#[tokio::test]
async fn accounts_keys_and_ports() {
    let (_dir, store) = sqlite().await;
    accounts_on(&store).await;
}

async fn accounts_on(store: &Store) {
    assert!(store.port_count().await.unwrap() >= 3962);
    let (account, key) = store.create_account("acme", true).await.unwrap();
    assert!(account.routing_data);
    assert!(key.starts_with("teu_") && key.len() == 44, "{key}");
    assert_ne!(hash_key(&key), key);
    assert_eq!(
        store.authenticate(&key).await.unwrap(),
        Some(account.clone())
    );
    assert_eq!(store.authenticate("teu_wrong").await.unwrap(), None);
    assert!(store.create_account("acme", false).await.is_err());
    let second = store.issue_key(account.id).await.unwrap();
    assert_eq!(
        store.authenticate(&second).await.unwrap().map(|a| a.id),
        Some(account.id)
    );
}

#[tokio::test]
async fn ingest_is_idempotent_and_scoped() {
    let (_dir, store) = sqlite().await;
    ingest_on(&store).await;
}

#[tokio::test]
async fn kept_events_are_the_stored_ones() {
    let (_dir, store) = sqlite().await;
    kept_events_are_the_stored_ones_on(&store).await;
}

/// The events a stored file keeps for its derivation ([`ingest::KnownEvents`]) are exactly the
/// rows the store reads back for them, field for field (time zone included), for every real
/// DCSA sample that has events; the same file stored again (or its versions that lost to the
/// stored ones) keeps none.
async fn kept_events_are_the_stored_ones_on(store: &Store) {
    let (a, _) = store.create_account("kept", false).await.unwrap();
    let mut kept = 0;
    for name in [
        "tnt-220-response.json",
        "tnt-220-response-wrong-event-ids.json",
        "tnt-220-response-wrong-date-times.json",
        "tnt-300-response.json",
        "tnt-300-response-nextpage.json",
    ] {
        let stored = ingest::store_file(store, &a, &sample(name)).await.unwrap();
        let known: Vec<_> = stored.known.events().cloned().collect();
        let ids: Vec<uuid::Uuid> = known.iter().map(|e| e.id).collect();
        let mut read = store.events_by_id(a.id, &ids).await.unwrap();
        read.sort_by_key(|e| e.id);
        let mut known = known;
        known.sort_by_key(|e| e.id);
        assert_eq!(known, read, "{name}: kept events against the stored rows");
        kept += known.len();
        let again = ingest::store_file(store, &a, &sample(name)).await.unwrap();
        assert!(again.known.is_empty(), "{name} again: nothing is written");
    }
    // 7 events of the 2.2 sample, 2 new of the wrong-event-ids file, the 3.0 samples' own.
    assert!(kept >= 10, "{kept} kept");
}

async fn ingest_on(store: &Store) {
    let (a, _) = store.create_account("a", false).await.unwrap();
    let (b, _) = store.create_account("b", false).await.unwrap();
    let files: Vec<PathBuf> = [
        "tnt-220-response.json",
        "tnt-220-response-wrong-event-ids.json",
        "tnt-300-response.json",
    ]
    .iter()
    .map(|f| sample(f))
    .collect();
    for f in &files {
        ingest::ingest_file(store, &a, f).await.unwrap();
    }
    let (containers, total) = store.list_containers(a.id, 0, 100).await.unwrap();
    assert_eq!(total, 1);
    let c = &containers[0];
    assert_eq!(c.number, "APZU4812090");
    // The 3.0 sample's GTIN (an empty gate-in in Paris) is the latest actual movement.
    assert_eq!(c.current_status, ContainerStatus::New);
    let (shipments, st) = store.list_shipments(a.id, 0, 100).await.unwrap();
    assert_eq!(st, 2, "reserved-HHL123 (2.2) and HHL71800000 (3.0)");
    assert!(shipments
        .iter()
        .any(|s| s.bill_of_lading_number == "HHL71800000"));
    let events = store.events_of_containers(a.id, &[c.id]).await.unwrap();
    // 7 of the 2.2 sample; of the 3 good events of the wrong-event-ids file one reuses the
    // sample's eventID …e8 with the same issue time, so the stored version stays: 2 new; and the
    // 3.0 GTIN, linked by container number.
    assert_eq!(events[&c.id].len(), 7 + 2 + 1);
    assert!(events[&c.id]
        .windows(2)
        .all(|w| w[0].event.event_at <= w[1].event.event_at));
    let paris = events[&c.id]
        .iter()
        .find(|e| e.event.locode.as_deref() == Some("FRPAR"))
        .unwrap();
    assert_eq!(paris.timezone.as_deref(), Some("Europe/Paris"));
    let q = store.quarantined(a.id).await.unwrap();
    assert_eq!(q.len(), 4 + 2);

    let before = (
        store.list_containers(a.id, 0, 100).await.unwrap(),
        store.list_shipments(a.id, 0, 100).await.unwrap(),
    );
    for f in &files {
        ingest::ingest_file(store, &a, f).await.unwrap();
    }
    let after = (
        store.list_containers(a.id, 0, 100).await.unwrap(),
        store.list_shipments(a.id, 0, 100).await.unwrap(),
    );
    assert_eq!(
        before, after,
        "re-ingest changes nothing, refreshed_at included"
    );
    assert_eq!(store.quarantined(a.id).await.unwrap().len(), 6);

    assert_eq!(store.list_containers(b.id, 0, 100).await.unwrap().1, 0);
    assert!(store.container(b.id, c.id).await.unwrap().is_none());
    assert!(store.container(a.id, c.id).await.unwrap().is_some());
}

#[tokio::test]
async fn a_store_error_names_the_file_being_ingested() {
    let (_dir, store) = sqlite().await;
    let (a, _) = store.create_account("acme", false).await.unwrap();
    let file = sample("tnt-220-response.json");
    store.close().await;
    let err = ingest::ingest_file(&store, &a, &file).await.unwrap_err();
    let message = err.to_string();
    assert!(
        matches!(err, ingest::IngestError::InFile { .. }),
        "{message}"
    );
    assert!(
        message.starts_with(&format!("{}: ", file.display())),
        "{message}"
    );
}

/// The delivery workers leave a saturated webhook out of their claims
/// (`Store::claim_notifications_except`) and give back what they cannot take in one statement
/// (`Store::release_notifications`).
#[tokio::test]
async fn claims_skip_saturated_webhooks() {
    let (_dir, store) = sqlite().await;
    claims_skip_on(&store).await;
}

#[tokio::test]
async fn postgres_claims_skip_saturated_webhooks() {
    let Some(db) = ScratchStore::for_test("teu_store_claims").await else {
        return;
    };
    claims_skip_on(&db.store).await;
    db.drop().await.unwrap();
}

async fn claims_skip_on(store: &Store) {
    use std::time::Duration;
    use teu_pipeline::webhooks::WebhookAttributes;
    let account = store.ensure_account("hooks", false).await.unwrap();
    let hook = |url: &str| WebhookAttributes {
        url: Some(url.to_string()),
        ..WebhookAttributes::default()
    };
    let slow = store
        .create_webhook(account.id, hook("https://slow.example/t49"))
        .await
        .unwrap();
    let fast = store
        .create_webhook(account.id, hook("https://fast.example/t49"))
        .await
        .unwrap();
    ingest::ingest_file(store, &account, &sample("tnt-220-response.json"))
        .await
        .unwrap();
    let lease = Duration::from_secs(300);
    let claimed = store
        .claim_notifications_except(1_000, lease, &[slow.id])
        .await
        .unwrap();
    assert!(!claimed.is_empty());
    assert!(claimed.iter().all(|n| n.webhook_id == fast.id));
    // Every one of the fast webhook's notifications, none left for a second claim.
    assert!(store
        .claim_notifications_except(1_000, lease, &[slow.id])
        .await
        .unwrap()
        .is_empty());
    // Given back at once: claimable again, with the attempt not counted.
    let ids: Vec<_> = claimed.iter().map(|n| n.id).collect();
    store
        .release_notifications(&ids, Duration::ZERO)
        .await
        .unwrap();
    let again = store.claim_notifications(1_000, lease).await.unwrap();
    let fast_again: Vec<_> = again.iter().filter(|n| n.webhook_id == fast.id).collect();
    assert_eq!(fast_again.len(), claimed.len());
    assert!(fast_again.iter().all(|n| n.attempts == 1), "{fast_again:?}");
    assert_eq!(again.len(), 2 * claimed.len(), "the slow webhook's too");
}

#[tokio::test]
async fn a_later_version_replaces_its_keys() {
    let (_dir, store) = sqlite().await;
    later_versions_replace_keys_on(&store).await;
}

#[tokio::test]
async fn one_batch_extends_stored_keys_and_adds_new_ones() {
    let (_dir, store) = sqlite().await;
    batch_of_stored_and_new_keys_on(&store).await;
}

#[tokio::test]
async fn postgres_one_batch_extends_stored_keys_and_adds_new_ones() {
    let Some(db) = ScratchStore::for_test("teu_store_key_batch").await else {
        return;
    };
    batch_of_stored_and_new_keys_on(&db.store).await;
    db.drop().await.unwrap();
}

/// One `upsert_events` call whose events name a key already stored (a box and a bill of
/// lading of the real DCSA 2.2 sample) and keys no event named before: the stored lists gain
/// the new events after the ones they held, the new keys list exactly their events, and the
/// same call again changes nothing (on SQLite the stored keys are extended by an `UPDATE` and
/// the new ones inserted, `Store::insert_new`; on PostgreSQL one upsert does both).
async fn batch_of_stored_and_new_keys_on(store: &Store) {
    let (a, _) = store.create_account("batched keys", false).await.unwrap();
    ingest::ingest_file(store, &a, &sample("tnt-220-response.json"))
        .await
        .unwrap();
    let stored_box = naming(store, a.id, "APZU4812090").await;
    assert!(!stored_box.is_empty());
    let original = store
        .events_by_id(a.id, &stored_box)
        .await
        .unwrap()
        .into_iter()
        .find(|e| !e.event.bills_of_lading.is_empty())
        .expect("an event of the 2.2 sample names the box and a bill of lading");
    let bill = original.event.bills_of_lading[0].clone();
    let by_bill = |store: &Store| {
        let bill = bill.clone();
        let store = store.clone();
        async move {
            let mut ids: Vec<_> = store
                .event_ids_matching(a.id, &[], &[bill], &[])
                .await
                .unwrap()
                .into_iter()
                .collect();
            ids.sort();
            ids
        }
    };
    let stored_bill = by_bill(store).await;
    // Two new events (ids no event has): the first names the stored box and a new one, the
    // second the new box and a second new one; both keep the original's bill of lading.
    let new_event = |n: u128, boxes: &[&str]| {
        let mut e = original.clone();
        e.id = uuid::Uuid::from_u128(0x7e0_0000 + n);
        e.event.event_id = format!("batched-{n}");
        e.event.containers = boxes.iter().map(ToString::to_string).collect();
        e
    };
    let first = new_event(1, &["APZU4812090", "MSKU1000016"]);
    let second = new_event(2, &["MSKU1000016", "MSKU1000021"]);
    let raws: Vec<String> = [&first, &second]
        .iter()
        .map(|e| serde_json::to_string(&e.event).unwrap())
        .collect();
    let forms = teu_pipeline::store::payloads::encode_events(
        raws.iter()
            .map(String::as_str)
            .zip([&first.event, &second.event]),
    )
    .unwrap();
    let news: Vec<_> = [&first, &second]
        .into_iter()
        .zip(&forms)
        .enumerate()
        .map(|(i, (event, forms))| teu_pipeline::store::NewEvent {
            event,
            source_file: "batch.json",
            source_index: i,
            forms,
        })
        .collect();
    let mut with_first = stored_box.clone();
    with_first.push(first.id);
    with_first.sort();
    let mut both = vec![first.id, second.id];
    both.sort();
    let mut bill_and_both = stored_bill.clone();
    bill_and_both.extend([first.id, second.id]);
    bill_and_both.sort();
    for round in ["first", "again"] {
        let upserted = store.upsert_events(a.id, &news).await.unwrap();
        let written = if round == "first" {
            [first.id, second.id].into()
        } else {
            std::collections::HashSet::new()
        };
        assert_eq!(upserted.written, written, "{round}");
        assert_eq!(
            naming(store, a.id, "APZU4812090").await,
            with_first,
            "{round}"
        );
        assert_eq!(naming(store, a.id, "MSKU1000016").await, both, "{round}");
        assert_eq!(
            naming(store, a.id, "MSKU1000021").await,
            vec![second.id],
            "{round}"
        );
        assert_eq!(by_bill(store).await, bill_and_both, "{round}");
    }
}

#[tokio::test]
async fn stored_links_follow_their_events() {
    let (_dir, store) = sqlite().await;
    stored_links_follow_their_events_on(&store).await;
}

/// Each container's links as served (`containers.event_links`, the only place links are
/// stored since migration 27), for every container of the account.
async fn served_links(
    store: &Store,
    account: uuid::Uuid,
) -> std::collections::HashMap<uuid::Uuid, Vec<teu_pipeline::store::EventLink>> {
    let (containers, _) = store.list_containers(account, 0, 1000).await.unwrap();
    let ids: Vec<_> = containers.iter().map(|c| c.id).collect();
    store
        .event_links_of_containers(account, &ids)
        .await
        .unwrap()
}

/// Ingests `event` alone as a file named `file` (its own JSON standing for the carrier's
/// payload), through the pipeline: stored, then derived from its keys and the keys its
/// replaced version named.
async fn ingest_version(
    store: &Store,
    account: &teu_pipeline::model::Account,
    event: &teu_pipeline::model::TransportEvent,
    file: &str,
) {
    let batch = teu_pipeline::feeds::FeedBatch {
        source_file: file.to_string(),
        format: teu_pipeline::feeds::FeedFormat::DcsaTnt22,
        rows_read: 1,
        events: vec![teu_pipeline::feeds::ReadEvent {
            index: 0,
            row: event.event.clone(),
            raw: serde_json::to_string(&event.event).unwrap(),
        }],
        checks: Vec::new(),
        deadlines: Vec::new(),
        positions: Vec::new(),
        quarantined: Vec::new(),
    };
    ingest::ingest_batch(store, account, batch).await.unwrap();
}

/// The links a container serves are its events in event order (checked against the events
/// read whole), right after a derivation, and again after a later version of one of its
/// events moves that event's time (the moved event is served last). A later version that
/// names another box takes the event from the old box, which is derived again from the key
/// the replaced version named. Real DCSA 2.2 sample events.
async fn stored_links_follow_their_events_on(store: &Store) {
    let (a, _) = store.create_account("linked", false).await.unwrap();
    ingest::ingest_file(store, &a, &sample("tnt-220-response.json"))
        .await
        .unwrap();
    let served = served_links(store, a.id).await;
    let (container, links) = served
        .iter()
        .find(|(_, links)| links.len() > 1)
        .expect("a container of the 2.2 sample with more than one event");
    let events = store
        .events_of_containers(a.id, &[*container])
        .await
        .unwrap();
    let list = &events[container];
    let mut by_time = list.clone();
    by_time.sort_by_key(|e| (e.event.event_at, e.id));
    assert_eq!(
        by_time.iter().map(|e| e.id).collect::<Vec<_>>(),
        links.iter().map(|l| l.id).collect::<Vec<_>>(),
        "links in event order"
    );
    // The first event of the container, re-issued a day after its last event.
    let mut moved = list[0].clone();
    let last = list.last().unwrap().event.event_at;
    moved.event.event_at = last + chrono::Duration::days(1);
    let issued = moved
        .event
        .event_created_at
        .unwrap_or(list[0].event.event_at);
    moved.event.event_created_at = Some(issued + chrono::Duration::days(400));
    ingest_version(store, &a, &moved, "moved.json").await;
    let after = served_links(store, a.id).await;
    let order: Vec<_> = after[container].iter().map(|l| l.id).collect();
    assert_eq!(
        order.last(),
        Some(&moved.id),
        "the moved event is served last"
    );
    assert_eq!(order.len(), links.len());

    // A later version of another of its events names a box of its own and no bill of lading
    // or booking (the carrier corrected the equipment reference): the old box is derived
    // again from the key the replaced version named, and its served links lose the event.
    let mut alone = list[1].clone();
    alone.event.containers = vec!["MSKU1000016".to_string()];
    alone.event.bills_of_lading.clear();
    alone.event.bookings.clear();
    let issued = alone.event.event_created_at.unwrap_or(alone.event.event_at);
    alone.event.event_created_at = Some(issued + chrono::Duration::days(400));
    ingest_version(store, &a, &alone, "alone.json").await;
    let after = served_links(store, a.id).await;
    let ids: Vec<_> = after[container].iter().map(|l| l.id).collect();
    assert!(
        !ids.contains(&alone.id),
        "the moved box's event left the old box"
    );
    assert_eq!(ids.len(), links.len() - 1);
}

/// The ids of the stored events of `account` naming container `number`.
async fn naming(store: &Store, account: uuid::Uuid, number: &str) -> Vec<uuid::Uuid> {
    let mut ids: Vec<_> = store
        .event_ids_matching(account, &[number.to_string()], &[], &[])
        .await
        .unwrap()
        .into_iter()
        .collect();
    ids.sort();
    ids
}

/// Stores `event` as the first row of `file`, its own JSON standing for the carrier's payload;
/// the keys its replaced version named and it does not, and whether it was written.
async fn upsert_version(
    store: &Store,
    account: uuid::Uuid,
    event: &teu_pipeline::model::TransportEvent,
    file: &str,
) -> teu_pipeline::store::UpsertedEvents {
    let raw = serde_json::to_string(&event.event).unwrap();
    let forms = teu_pipeline::store::payloads::encode_events([(raw.as_str(), &event.event)])
        .unwrap()
        .remove(0);
    let new = teu_pipeline::store::NewEvent {
        event,
        source_file: file,
        source_index: 0,
        forms: &forms,
    };
    store.upsert_events(account, &[new]).await.unwrap()
}

/// `event_keys` follows the stored version of each event: a later version that names another
/// box (the carrier corrected the equipment reference) loses the old box's key and gains the
/// new one, through an upsert and through a re-reading (`rewrite_events`); an older version
/// changes nothing. The boxes are those of the real DCSA samples (`data/dcsa`).
async fn later_versions_replace_keys_on(store: &Store) {
    let (a, _) = store.create_account("rekeyed", false).await.unwrap();
    ingest::ingest_file(store, &a, &sample("tnt-220-response.json"))
        .await
        .unwrap();
    let first = naming(store, a.id, "APZU4812090").await;
    let stored = store.events_by_id(a.id, &first).await.unwrap();
    let original = stored
        .iter()
        .find(|e| !e.event.bills_of_lading.is_empty() || !e.event.bookings.is_empty())
        .expect("an event of the 2.2 sample names the box and a bill of lading or booking")
        .clone();

    // A later version names MSKU1000016 instead.
    let mut later = original.clone();
    later.event.containers = vec!["MSKU1000016".to_string()];
    let issued = original
        .event
        .event_created_at
        .unwrap_or(original.event.event_at);
    later.event.event_created_at = Some(issued + chrono::Duration::hours(1));
    let upserted = upsert_version(store, a.id, &later, "correction.json").await;
    let mark = upserted.mark.clone();
    assert_eq!(
        upserted.written,
        [original.id].into(),
        "the later version is written"
    );
    let dropped = upserted.dropped;
    assert_eq!(
        dropped.containers.iter().collect::<Vec<_>>(),
        vec!["APZU4812090"],
        "the replaced version's box is dropped"
    );
    assert!(dropped.bills_of_lading.is_empty() && dropped.bookings.is_empty());
    assert!(!naming(store, a.id, "APZU4812090")
        .await
        .contains(&original.id));
    assert_eq!(naming(store, a.id, "MSKU1000016").await, vec![original.id]);
    let kept = store
        .event_ids_matching(
            a.id,
            &[],
            &later.event.bills_of_lading,
            &later.event.bookings,
        )
        .await
        .unwrap();
    assert!(kept.contains(&original.id), "unchanged keys stay");

    // An older version naming a third box loses to the stored one.
    let mut older = original.clone();
    older.event.containers = vec!["MSKU1000021".to_string()];
    older.event.event_created_at = Some(issued - chrono::Duration::hours(1));
    // The log of replaced versions lists the replaced event after the mark its upsert took,
    // for its account only, and nothing after the mark of a later upsert that lost.
    assert_eq!(
        store.events_replaced_since(a.id, &mark).await.unwrap(),
        [original.id].into()
    );
    let (other, _) = store.create_account("unrelated", false).await.unwrap();
    assert!(store
        .events_replaced_since(other.id, &mark)
        .await
        .unwrap()
        .is_empty());
    let upserted = upsert_version(store, a.id, &older, "late.json").await;
    let since = upserted.mark.clone();
    assert!(
        upserted.dropped.is_empty() && upserted.written.is_empty(),
        "an older version replaces nothing"
    );
    assert!(
        store
            .events_replaced_since(a.id, &since)
            .await
            .unwrap()
            .is_empty(),
        "a version that lost is not logged"
    );
    assert!(naming(store, a.id, "MSKU1000021").await.is_empty());
    assert_eq!(naming(store, a.id, "MSKU1000016").await, vec![original.id]);

    // A re-reading of the same version that names MSKU1000037.
    let mut reread = later.clone();
    reread.event.containers = vec!["MSKU1000037".to_string()];
    let (rewritten, dropped) = store.rewrite_events(a.id, &[reread]).await.unwrap();
    assert_eq!(rewritten, 1);
    assert_eq!(
        dropped.containers.into_iter().collect::<Vec<_>>(),
        vec!["MSKU1000016".to_string()],
        "the re-reading drops the box the replaced version named"
    );
    assert!(naming(store, a.id, "MSKU1000016").await.is_empty());
    assert_eq!(naming(store, a.id, "MSKU1000037").await, vec![original.id]);
}

#[tokio::test]
async fn event_ids_live_in_one_of_two_runs() {
    let (_dir, store) = sqlite().await;
    event_ids_live_in_one_of_two_runs_on(&store).await;
}

/// `(id, seq)` of every stored event by a scan of `transport_events` (no index), and of each
/// run of ids (migration 35): the large `event_ids` and `event_ids_recent`.
async fn id_runs(
    store: &Store,
) -> (
    std::collections::BTreeSet<(uuid::Uuid, i64)>,
    std::collections::BTreeSet<(uuid::Uuid, i64)>,
    std::collections::BTreeSet<(uuid::Uuid, i64)>,
) {
    let read = |table: &'static str| async move {
        teu_pipeline::store::db::query(&format!("SELECT id, seq FROM {table}"))
            .fetch_all(store.pool())
            .await
            .unwrap()
            .iter()
            .map(|r| {
                let id: Vec<u8> = r.try_get("id").unwrap();
                (
                    uuid::Uuid::from_slice(&id).unwrap(),
                    r.try_get::<i64, _>("seq").unwrap(),
                )
            })
            .collect()
    };
    (
        read("transport_events").await,
        read("event_ids").await,
        read("event_ids_recent").await,
    )
}

/// On SQLite every stored event's id is in exactly one of the two runs, with its row's `seq`,
/// whether it was stored before the last merge or after; a re-ingest adds no row; a later
/// version of an event in either run replaces it in place; `events_by_id` and
/// `raw_events_after` find events of both runs, the latter in id order. The truth is a scan
/// of `transport_events` itself and the events of the real DCSA samples.
async fn event_ids_live_in_one_of_two_runs_on(store: &Store) {
    let (a, _) = store.create_account("runs", false).await.unwrap();
    ingest::ingest_file(store, &a, &sample("tnt-220-response.json"))
        .await
        .unwrap();
    let (rows, merged, recent) = id_runs(store).await;
    assert_eq!(rows.len(), 7, "the 2.2 sample's seven good events");
    assert!(merged.is_empty());
    assert_eq!(recent, rows, "new ids go to the recent run");

    assert_eq!(store.merge_event_ids().await.unwrap(), 7);
    let (rows, merged, recent) = id_runs(store).await;
    assert_eq!((merged.clone(), recent.len()), (rows.clone(), 0));
    let first = merged;

    for f in [
        "tnt-300-response.json",
        "tnt-220-response-wrong-event-ids.json",
        "tnt-220-response.json",
    ] {
        ingest::ingest_file(store, &a, &sample(f)).await.unwrap();
    }
    let (rows, merged, recent) = id_runs(store).await;
    // The 3.0 sample's shipment, transport and equipment events (its IoT and reefer events
    // are quarantined: `teu_feeds::dcsa`) and two new ids of the wrong-event-ids file; the
    // repeated 2.2 sample adds nothing.
    assert_eq!(rows.len(), 7 + 3 + 2);
    assert_eq!(merged, first, "the large run changes only at a merge");
    assert!(merged.is_disjoint(&recent));
    assert_eq!(
        merged
            .union(&recent)
            .cloned()
            .collect::<std::collections::BTreeSet<_>>(),
        rows,
        "each row's id in exactly one run, with its seq"
    );

    let ids: Vec<uuid::Uuid> = rows.iter().map(|(id, _)| *id).collect();
    let mut found: Vec<uuid::Uuid> = store
        .events_by_id(a.id, &ids)
        .await
        .unwrap()
        .iter()
        .map(|e| e.id)
        .collect();
    found.sort();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(found, sorted);
    let mut paged = Vec::new();
    let mut after = None;
    loop {
        let page = store.raw_events_after(a.id, after, 3).await.unwrap();
        let Some(last) = page.last() else { break };
        after = Some(last.0);
        assert!(page.iter().all(|(_, payload)| payload.is_some()));
        paged.extend(page.into_iter().map(|(id, _)| id));
    }
    assert_eq!(
        paged, sorted,
        "every event once, in id order, across both runs"
    );

    // A later version of an event of each run replaces it where it is.
    let recent_id = recent.iter().next().unwrap().0;
    let merged_id = first.iter().next().unwrap().0;
    for id in [merged_id, recent_id] {
        let mut later = store.events_by_id(a.id, &[id]).await.unwrap().remove(0);
        let issued = later.event.event_created_at.unwrap_or(later.event.event_at);
        later.event.event_created_at = Some(issued + chrono::Duration::hours(1));
        later.event.containers = vec!["MSKU1000016".to_string()];
        upsert_version(store, a.id, &later, "correction.json").await;
        let stored = store.events_by_id(a.id, &[id]).await.unwrap();
        assert_eq!(stored.len(), 1);
        assert_eq!(
            stored[0].event.event_created_at,
            later.event.event_created_at
        );
    }
    assert_eq!(naming(store, a.id, "MSKU1000016").await, {
        let mut both = vec![merged_id, recent_id];
        both.sort();
        both
    });
    let (after_rows, after_merged, after_recent) = id_runs(store).await;
    assert_eq!(
        (after_rows, after_merged, after_recent),
        (rows, merged, recent),
        "replacing versions moves no row and no id"
    );
}

/// An email file's bytes: one message with Message-ID `<message_id>` and a PDF attachment.
fn email_file(message_id: &str, pdf: &str) -> Vec<u8> {
    format!(
        "From: Ops <ops@forwarder.example>\r\nTo: Desk <desk@consignee.example>\r\n\
         Subject: arrival notice\r\nMessage-ID: <{message_id}>\r\nDate: Mon, 2 Nov 2026 10:00:00 +0000\r\n\
         MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"B\"\r\n\r\n\
         --B\r\nContent-Type: text/plain\r\n\r\nAttached.\r\n\
         --B\r\nContent-Type: application/pdf; name=\"an.pdf\"\r\n\
         Content-Disposition: attachment; filename=\"an.pdf\"\r\n\r\n{pdf}\r\n--B--\r\n"
    )
    .into_bytes()
}

/// Each file's (rows read, accepted, quarantined) of a run's results, or its error's text.
fn outcomes(
    results: &[Result<ingest::Stored, ingest::IngestError>],
) -> Vec<Result<(usize, usize, usize), String>> {
    results
        .iter()
        .map(|r| match r {
            Ok(s) => Ok((
                s.summary.rows_read,
                s.summary.accepted,
                s.summary.quarantined.len(),
            )),
            Err(e) => Err(e.to_string()),
        })
        .collect()
}

/// A run of email files goes into the store together (`ingest::store_emails`), each file
/// with its own summary; given again it adds nothing. When the database refuses one of a
/// run's messages, the run is stored again file by file: that file alone fails, with an
/// error that names it, and the others are kept.
async fn a_run_of_email_files_on(store: &Store) {
    let (account, _) = store.create_account("mail", false).await.unwrap();
    let run = |files: &[(&str, &[u8])]| -> Vec<(PathBuf, Vec<u8>)> {
        files
            .iter()
            .map(|(name, bytes)| (PathBuf::from(name), bytes.to_vec()))
            .collect()
    };
    let (a, b) = (
        email_file("a@forwarder.example", "%PDF-1.4 notice"),
        email_file("b@forwarder.example", "%PDF-1.4 notice"),
    );
    let first = run(&[
        ("a.eml", &a),
        ("garbage.eml", b"\x00\x01 not mail\n"),
        ("b.eml", &b),
    ]);
    let results = ingest::store_emails(store, &account, first.clone()).await;
    assert_eq!(
        outcomes(&results),
        [Ok((1, 1, 0)), Ok((1, 0, 1)), Ok((1, 1, 0))]
    );
    let refused = &results[1].as_ref().unwrap().summary.quarantined[0];
    assert_eq!(
        (refused.source_file.as_str(), refused.pointer.as_str()),
        ("garbage.eml", "/messages/0")
    );
    let (listed, total) = store
        .list_email_submissions(account.id, 0, 30)
        .await
        .unwrap();
    assert_eq!(total, 2);
    // Both messages carry the same PDF: one document.
    assert_eq!(listed[0].document_ids, listed[1].document_ids);
    let again = ingest::store_emails(store, &account, first).await;
    assert_eq!(outcomes(&again), outcomes(&results));
    assert_eq!(
        store
            .list_email_submissions(account.id, 0, 30)
            .await
            .unwrap()
            .1,
        2
    );

    let refuse: &[&str] = match store.backend() {
        teu_pipeline::store::Backend::Sqlite => &[
            "CREATE TRIGGER refuse_poison BEFORE INSERT ON email_submissions \
             WHEN NEW.message_id LIKE '%poison%' BEGIN SELECT RAISE(ABORT, 'poison refused'); END",
        ],
        teu_pipeline::store::Backend::Postgres => &[
            "CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS \
             'BEGIN IF NEW.message_id LIKE ''%poison%'' THEN RAISE EXCEPTION ''poison refused''; \
             END IF; RETURN NEW; END'",
            "CREATE TRIGGER refuse_poison BEFORE INSERT ON email_submissions \
             FOR EACH ROW EXECUTE FUNCTION refuse_poison()",
        ],
    };
    for sql in refuse {
        teu_pipeline::store::db::query(sql)
            .execute(store.writer())
            .await
            .unwrap();
    }
    let second = run(&[
        ("c.eml", &email_file("c@forwarder.example", "%PDF-1.4 c")),
        (
            "poison.eml",
            &email_file("poison@forwarder.example", "%PDF-1.4 p"),
        ),
        ("d.eml", &email_file("d@forwarder.example", "%PDF-1.4 d")),
    ]);
    let outcomes = outcomes(&ingest::store_emails(store, &account, second).await);
    assert_eq!(outcomes[0], Ok((1, 1, 0)));
    assert_eq!(outcomes[2], Ok((1, 1, 0)));
    let error = outcomes[1].as_ref().unwrap_err();
    assert!(error.starts_with("poison.eml: "), "{error}");
    assert!(error.contains("poison refused"), "{error}");
    let (listed, total) = store
        .list_email_submissions(account.id, 0, 30)
        .await
        .unwrap();
    assert_eq!(total, 4);
    let mut ids: Vec<_> = listed.iter().map(|s| s.message_id.as_str()).collect();
    ids.sort_unstable();
    assert_eq!(
        ids,
        [
            "a@forwarder.example",
            "b@forwarder.example",
            "c@forwarder.example",
            "d@forwarder.example"
        ]
    );
}

#[tokio::test]
async fn a_run_of_email_files() {
    let (_dir, store) = sqlite().await;
    a_run_of_email_files_on(&store).await;
}

#[tokio::test]
async fn postgres_a_run_of_email_files() {
    let Some(db) = ScratchStore::for_test("teu_email_run").await else {
        return;
    };
    a_run_of_email_files_on(&db.store).await;
    db.drop().await.unwrap();
}

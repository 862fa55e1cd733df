//! Recomputing an account's derived tables from what it has stored (`teu rederive`).
//!
//! A database written by an earlier release keeps its data and gets today's answers:
//!
//! 1. **Events are read again** from the carrier's original JSON (`transport_events.payload`) with
//!    today's DCSA readers ([`crate::feeds::dcsa`]), so what an older reader dropped (every `EQ`
//!    reference of an event after the first, the `references`, the transport call id) is
//!    recovered. Each normalized event and its keys (`event_keys`) are rewritten in place; a
//!    payload that no longer validates keeps its stored event and is counted.
//! 2. **Every shipment is derived again** from its whole connected history
//!    ([`crate::ingest::linked_history`]), a batch of bills of lading and bookings at a time,
//!    under the account's derivation lock, exactly as an ingest derives; rows it no longer
//!    produces are removed ([`crate::store::Store::upsert_derived`]).
//!
//! Running it twice changes nothing the second time.

use serde_json::Value;
use uuid::Uuid;

use crate::feeds::dcsa;
use crate::ids;
use crate::ingest::{self, IngestError, Keys};
use crate::model::{Account, TransportEvent};
use crate::store::Store;

/// How many stored raw events are read again per batch.
const RAW_BATCH: i64 = 2_000;
/// How many shipment keys (bills of lading, bookings) are derived again per batch.
const KEY_BATCH: usize = 500;

/// What [`rederive_account`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RederiveSummary {
    /// Raw events read again.
    pub raw_events: usize,
    /// Of those, the events whose normalized form changed and was rewritten.
    pub rewritten: usize,
    /// Of those, the payloads today's readers refuse (their stored events are kept).
    pub unreadable: usize,
    /// Shipments derived (a shipment in several batches' histories counts each time).
    pub shipments: usize,
    /// Containers derived (likewise).
    pub containers: usize,
}

/// Re-reads and re-derives everything `account` has stored (module documentation).
/// `progress` is called after each batch with (batches done, batches in all) of step 2.
///
/// # Errors
/// [`IngestError::Store`] when the database fails; [`IngestError::Normalize`] or
/// [`IngestError::Worker`] when a derivation fails. What was written before the error stays.
pub async fn rederive_account(
    store: &Store,
    account: &Account,
    mut progress: impl FnMut(usize, usize),
) -> Result<RederiveSummary, IngestError> {
    let mut summary = RederiveSummary::default();
    let mut after: Option<Uuid> = None;
    // Keys that rewritten events named before and no longer name: derived after the rest,
    // so that what those versions were part of is derived without them.
    let mut dropped_keys = Keys::default();
    loop {
        let page = store.raw_events_after(account.id, after, RAW_BATCH).await?;
        let Some((last, _)) = page.last() else { break };
        after = Some(*last);
        let mut events = Vec::new();
        for payload in page.iter().filter_map(|(_, payload)| payload.as_deref()) {
            summary.raw_events += 1;
            match read_again(payload) {
                Some(row) => events.push(TransportEvent {
                    id: ids::event_id(account.id, &row.event_id),
                    raw_event_id: ids::raw_event_id(account.id, &row.event_id),
                    timezone: None,
                    event: row,
                }),
                None => summary.unreadable += 1,
            }
        }
        let (rewritten, dropped) = store.rewrite_events(account.id, &events).await?;
        summary.rewritten += rewritten;
        dropped_keys.extend_dropped(dropped);
    }

    let keys = store.shipment_keys(account.id).await?;
    let mut batches: Vec<Keys> = keys
        .chunks(KEY_BATCH)
        .map(|chunk| Keys {
            containers: Default::default(),
            bills: chunk.iter().cloned().collect(),
            bookings: chunk.iter().cloned().collect(),
        })
        .collect();
    if !dropped_keys.is_empty() {
        batches.push(dropped_keys);
    }
    let total = batches.len();
    for (done, keys) in batches.into_iter().enumerate() {
        let mut timings = ingest::StageTimings::default();
        let derived = ingest::derive_stored(
            store,
            account,
            &keys,
            ingest::KnownEvents::default(),
            &ingest::WriteTurns::default(),
            &mut timings,
        )
        .await?;
        summary.shipments += derived.shipments;
        summary.containers += derived.containers;
        progress(done + 1, total);
    }
    Ok(summary)
}

/// Today's reading of one stored carrier event (2.2 or 3.0, told apart by the 3.0
/// `eventClassification` object); `None` when it no longer validates.
fn read_again(payload: &str) -> Option<crate::model::EventRow> {
    let value: Value = serde_json::from_str(payload).ok()?;
    let document = if value.get("eventClassification").is_some() {
        serde_json::json!({ "events": [value] })
    } else {
        Value::Array(vec![value])
    };
    let batch = dcsa::read_value(document, "stored raw event").ok()?;
    batch.events.into_iter().next().map(|e| e.row)
}

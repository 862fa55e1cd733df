//! Webhook payloads: the JSON:API documents a delivery sends (a `webhook_notification` as
//! `data`, the records its event calls for in `included`; Terminal49's webhook payload guide),
//! rendered in batches for the delivery workers ([`payloads`]) and one at a time for examples
//! and triggers ([`payload`]).

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde_json::{json, Value};
use teu_pipeline::webhooks::Notification;
use teu_store::Store;
use uuid::Uuid;

use crate::error::ApiError;

/// The resource object of a notification (what `GET /webhook_notifications` lists and what
/// `data` of a delivery holds).
pub fn notification_resource(n: &Notification) -> Value {
    json!({
        "id": n.id,
        "type": "webhook_notification",
        "attributes": {
            "event": n.event,
            "delivery_status": n.delivery_status.as_str(),
            "created_at": crate::resources::timestamp(&n.created_at),
        },
        "relationships": {
            "webhook": {"data": {"id": n.webhook_id, "type": "webhook"}},
            "reference_object": {"data": {"id": n.reference_id, "type": n.reference_type}},
        }
    })
}

/// The body of a delivery of `n`: a JSON:API document with the notification as `data` and the
/// records its event calls for in `included` (the `/v2` serializers of container and shipment;
/// Terminal49's payload guide, "Included resources"). `base` is the absolute URL of `/v2`.
///
/// # Errors
///
/// [`ApiError::Store`] when reading the records fails.
pub async fn payload(store: &Store, n: &Notification, base: &str) -> Result<String, ApiError> {
    let mut bodies = payloads(store, &[n], base).await?;
    Ok(bodies.remove(&n.id).unwrap_or_default())
}

/// Whether an event's payload carries only its reference object (no container, shipment or
/// port in `included`).
fn minimal_payload(event: &str) -> bool {
    matches!(
        event,
        "container.transport.available"
            | "container.transport.not_available"
            | "container.transport.estimated.vessel_departed"
            | "container.transport.estimated.vessel_arrived"
            | "container.transport.estimated.arrived_at_inland_destination"
            | "container.pickup_appointment.changed"
    )
}

/// The records the payloads of a batch of notifications of one account include, read together
/// (one query per table, not per notification).
#[derive(Default)]
struct Included {
    /// Container → its `/v2` document.
    containers: HashMap<Uuid, Value>,
    /// Shipment → its `/v2` document.
    shipments: HashMap<Uuid, Value>,
    /// Tracking request → its `/v2` document.
    tracking_requests: HashMap<Uuid, Value>,
}

impl Included {
    async fn read(
        store: &Store,
        account: Uuid,
        batch: &[&Notification],
        base: &str,
    ) -> Result<Included, ApiError> {
        let mut out = Included::default();
        let mut container_ids: Vec<Uuid> = Vec::new();
        let mut shipment_ids: Vec<Uuid> = Vec::new();
        for n in batch {
            if n.reference_type == "tracking_request" {
                if let Some(id) = n.tracking_request_id {
                    if let std::collections::hash_map::Entry::Vacant(slot) =
                        out.tracking_requests.entry(id)
                    {
                        if let Some(r) = store.tracking_request(account, id).await? {
                            slot.insert(crate::tracking_requests::resource(&r));
                        }
                    }
                }
            }
            if !minimal_payload(&n.event) {
                container_ids.extend(n.container_id);
                shipment_ids.extend(n.shipment_id);
            }
        }
        container_ids.sort_unstable();
        container_ids.dedup();
        shipment_ids.sort_unstable();
        shipment_ids.dedup();
        let mut events = store
            .event_links_of_containers(account, &container_ids)
            .await?;
        for c in store.containers_by_ids(account, &container_ids).await? {
            let own = events.remove(&c.id).unwrap_or_default();
            out.containers.insert(
                c.id,
                serde_json::to_value(crate::resources::container(&c, &own)).unwrap_or(Value::Null),
            );
        }
        for (s, ids) in store.shipments_with_members(account, &shipment_ids).await? {
            let link = format!("{base}/shipments/{}", s.id);
            out.shipments.insert(
                s.id,
                serde_json::to_value(crate::resources::shipment(&s, &ids, link))
                    .unwrap_or(Value::Null),
            );
        }
        Ok(out)
    }
}

/// The bodies of a batch of deliveries ([`payload`] of each), by notification id. The records
/// they include are read once per account and table, so a claim of many notifications costs a
/// few queries, not a few per notification.
///
/// # Errors
///
/// [`ApiError::Store`] when reading the records fails.
pub async fn payloads(
    store: &Store,
    batch: &[&Notification],
    base: &str,
) -> Result<HashMap<Uuid, String>, ApiError> {
    let mut by_account: HashMap<Uuid, Vec<&Notification>> = HashMap::new();
    for n in batch {
        by_account.entry(n.account_id).or_default().push(n);
    }
    let mut out = HashMap::with_capacity(batch.len());
    for (account, notifications) in by_account {
        let included = Included::read(store, account, &notifications, base).await?;
        for n in notifications {
            out.insert(n.id, render(n, &included));
        }
    }
    Ok(out)
}

/// One delivery body from the batch's records (see [`payload`]).
fn render(n: &Notification, records: &Included) -> String {
    let mut included: Vec<Value> = Vec::new();
    let minimal = minimal_payload(&n.event);
    let d = &n.detail;
    let rel = |kind: &str, id: Option<Uuid>| json!({"data": id.map(|id| json!({"id": id, "type": kind}))});
    let port = d.location_locode.as_deref().map(teu_pipeline::ids::port_id);
    let vessel = d.vessel_imo.as_deref().map(teu_pipeline::ids::vessel_id);
    let created = crate::resources::timestamp(&n.created_at);
    let when = |t: &Option<DateTime<Utc>>| t.as_ref().map(crate::resources::timestamp);
    let reference = match n.reference_type.as_str() {
        "tracking_request" => None,
        "estimated_event" => Some(json!({
            "id": n.reference_id, "type": "estimated_event",
            "attributes": {
                "event": n.event, "created_at": created,
                "estimated_timestamp": when(&d.timestamp), "timezone": d.timezone,
                "location_locode": d.location_locode, "voyage_number": d.voyage_number,
                "data_source": "shipping_line",
            },
            "relationships": {
                "shipment": rel("shipment", n.shipment_id),
                "port": rel("port", port),
                "vessel": rel("vessel", vessel),
            }
        })),
        "container_updated_event" | "container_pod_terminal_changed_event" => Some(json!({
            "id": n.reference_id, "type": n.reference_type,
            "attributes": {
                "changeset": d.changeset, "timestamp": when(&d.timestamp),
                "timezone": d.timezone, "data_source": "terminal",
            },
            "relationships": {
                "container": rel("container", n.container_id),
                "terminal": rel("terminal", d.terminal_id),
            }
        })),
        "container_created_event" => Some(json!({
            "id": n.reference_id, "type": "container_created_event",
            "attributes": {"timestamp": when(&d.timestamp)},
            "relationships": {
                "container": rel("container", n.container_id),
                "shipment": rel("shipment", n.shipment_id),
            }
        })),
        _ => {
            let terminal_data = n.event.contains("available")
                || n.event.contains("pickup_")
                || n.event.ends_with("full_out");
            Some(json!({
                "id": n.reference_id, "type": "transport_event",
                "attributes": {
                    "event": n.event, "created_at": created, "voyage_number": d.voyage_number,
                    "timestamp": when(&d.timestamp), "timezone": d.timezone,
                    "location_locode": d.location_locode,
                    "data_source": if terminal_data { "terminal" } else { "shipping_line" },
                },
                "relationships": {
                    "shipment": rel("shipment", n.shipment_id),
                    "container": rel("container", n.container_id),
                    "vessel": rel("vessel", vessel),
                    "location": rel("port", port),
                    "terminal": rel("terminal", d.terminal_id),
                }
            }))
        }
    };
    if let Some(r) = reference {
        included.push(r);
    }
    if n.reference_type == "tracking_request" {
        if let Some(r) = n
            .tracking_request_id
            .and_then(|id| records.tracking_requests.get(&id))
        {
            included.push(r.clone());
        }
    }
    if !minimal {
        if let Some(c) = n.container_id.and_then(|id| records.containers.get(&id)) {
            included.push(c.clone());
        }
        if let Some(s) = n.shipment_id.and_then(|id| records.shipments.get(&id)) {
            included.push(s.clone());
        }
        if let Some(p) = d
            .location_locode
            .as_deref()
            .and_then(|l| teu_pipeline::reference::bundled().0.get(l))
        {
            included.push(crate::reference::port_resource(p));
        }
    }
    let doc = json!({ "data": notification_resource(n), "included": included });
    doc.to_string()
}

//! `/webhooks`, `/webhooks/events`, `/webhooks/trigger` and `/webhook_notifications`: the
//! webhook half of Terminal49's `/v2` (API reference "Webhooks" and "Webhook Notifications"),
//! over `teu_pipeline::webhooks`, and the payloads the delivery workers send ([`payload`]).
//!
//! - `POST /webhooks`: 201 with the webhook and its `secret`; 422 with `source.pointer` at the
//!   member for a bad `url`, `events` (empty, unknown, repeated) or `headers`.
//! - `GET /webhooks` (paginated like `/containers`), `GET /webhooks/{id}`, `PATCH
//!   /webhooks/{id}` (present attributes replace stored ones), `DELETE /webhooks/{id}` (200,
//!   empty body; its pending notifications become `failed`).
//! - `GET /webhooks/events`: the catalog as `webhook_event_category` resources.
//! - `GET /webhook_notifications` (paginated, newest first), `GET /webhook_notifications/{id}`,
//!   `GET /webhook_notifications/examples?event=…` (the payload that event would send).
//! - `POST /webhooks/trigger`: sends an example payload of `event` to `url` once, signed with
//!   `secret` when given, and reports what happened.
//!
//! Unknown, malformed and other accounts' ids are 404.

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::{OriginalUri, Path, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use chrono::{DateTime, Utc};
use serde_json::{json, Value};
use teu_pipeline::model::Account;
use teu_pipeline::store::Store;
use teu_pipeline::webhooks::rules::Detail;
use teu_pipeline::webhooks::{
    self, InvalidWebhook, Notification, Webhook, WebhookAttributes, WebhookError, WebhookHeader,
    CATALOG,
};
use uuid::Uuid;

use crate::error::ApiError;
use crate::pagination::{page_links, PageMeta};
use crate::query::parse_list;
use crate::routes::Base;
use crate::RestState;

impl From<WebhookError> for ApiError {
    fn from(e: WebhookError) -> Self {
        match e {
            WebhookError::Invalid(i) => i.into(),
            WebhookError::Store(e) => ApiError::Store(e),
        }
    }
}

impl From<InvalidWebhook> for ApiError {
    fn from(i: InvalidWebhook) -> Self {
        ApiError::invalid_attribute(&format!("/data/attributes/{}", i.attribute), i.detail)
    }
}

/// The resource object of a webhook (its secret included: only its own account reads it).
pub fn webhook_resource(w: &Webhook) -> Value {
    json!({
        "id": w.id,
        "type": "webhook",
        "attributes": {
            "url": w.url,
            "active": w.active,
            "events": w.events,
            "secret": w.secret,
            "headers": w.headers,
            "created_at": crate::resources::timestamp(&w.created_at),
            "updated_at": crate::resources::timestamp(&w.updated_at),
        }
    })
}

/// The attributes of a POST or PATCH body, with JSON-shape errors pointing at the member.
fn attributes(body: &[u8]) -> Result<WebhookAttributes, ApiError> {
    let value = crate::error::request_document(body, "webhook", true)?;
    let attrs = &value["data"]["attributes"];
    if !attrs.is_object() {
        return Err(ApiError::invalid_attribute(
            "/data/attributes",
            "data.attributes must be an object.",
        ));
    }
    let wrong = |name: &str, what: &str| {
        ApiError::invalid_attribute(
            &format!("/data/attributes/{name}"),
            format!("{name} must be {what}."),
        )
    };
    let mut out = WebhookAttributes::default();
    match &attrs["url"] {
        Value::Null => {}
        Value::String(s) => out.url = Some(s.clone()),
        _ => return Err(wrong("url", "a string")),
    }
    match &attrs["active"] {
        Value::Null => {}
        Value::Bool(b) => out.active = Some(*b),
        _ => return Err(wrong("active", "true or false")),
    }
    match &attrs["events"] {
        Value::Null => {}
        Value::Array(items) => {
            let mut events = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                match item {
                    Value::String(s) => events.push(s.clone()),
                    _ => return Err(wrong(&format!("events/{i}"), "a string")),
                }
            }
            out.events = Some(events);
        }
        _ => return Err(wrong("events", "an array of event names")),
    }
    match &attrs["headers"] {
        Value::Null if attrs.get("headers").is_some() => out.headers = Some(Vec::new()),
        Value::Null => {}
        Value::Array(items) => {
            let mut headers = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let text = |key: &str| match &item[key] {
                    Value::String(s) => Ok(s.clone()),
                    _ => Err(wrong(&format!("headers/{i}/{key}"), "a string")),
                };
                headers.push(WebhookHeader {
                    name: text("name")?,
                    value: text("value")?,
                });
            }
            out.headers = Some(headers);
        }
        _ => {
            return Err(wrong(
                "headers",
                "an array of {\"name\", \"value\"} objects",
            ))
        }
    }
    Ok(out)
}

fn parse_id(kind: &str, id: &str) -> Result<Uuid, ApiError> {
    Uuid::parse_str(id).map_err(|_| ApiError::not_found(kind, id))
}

/// `POST /webhooks`: 201 with the stored webhook.
pub(crate) async fn create(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    body: Bytes,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let attrs = attributes(&body)?;
    let hook = state.store.create_webhook(account.id, attrs).await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({ "data": webhook_resource(&hook) })),
    ))
}

/// `GET /webhooks`: one page of the account's webhooks, newest first.
pub(crate) async fn list(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    base: Base,
    OriginalUri(uri): OriginalUri,
) -> Result<Json<Value>, ApiError> {
    let q = parse_list(uri.query(), &[])?;
    let (page, total) = state
        .store
        .list_webhooks(account.id, q.page.offset(), q.page.limit())
        .await?;
    let total = u64::try_from(total).unwrap_or(0);
    Ok(Json(json!({
        "data": page.iter().map(webhook_resource).collect::<Vec<_>>(),
        "links": page_links(&base.url("/webhooks"), "", q.page, total),
        "meta": PageMeta { size: q.page.size, total },
    })))
}

/// `GET /webhooks/{id}`.
pub(crate) async fn get_one(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let uuid = parse_id("Webhook", &id)?;
    let hook = state
        .store
        .webhook(account.id, uuid)
        .await?
        .ok_or_else(|| ApiError::not_found("Webhook", &id))?;
    Ok(Json(json!({ "data": webhook_resource(&hook) })))
}

/// `PATCH /webhooks/{id}`: present attributes replace the stored ones.
pub(crate) async fn update(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let uuid = parse_id("Webhook", &id)?;
    let attrs = attributes(&body)?;
    let hook = state
        .store
        .update_webhook(account.id, uuid, attrs)
        .await?
        .ok_or_else(|| ApiError::not_found("Webhook", &id))?;
    Ok(Json(json!({ "data": webhook_resource(&hook) })))
}

/// `DELETE /webhooks/{id}`: 200 with an empty body (Terminal49's reference answers 200).
pub(crate) async fn delete(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let uuid = parse_id("Webhook", &id)?;
    if state.store.delete_webhook(account.id, uuid).await? {
        Ok(StatusCode::OK)
    } else {
        Err(ApiError::not_found("Webhook", &id))
    }
}

/// `GET /webhooks/events`: the catalog by category; each event says whether teu emits it and
/// on what change.
pub(crate) async fn events() -> Json<Value> {
    let data: Vec<Value> = CATALOG
        .iter()
        .map(|(id, name, events)| {
            json!({
                "id": id,
                "type": "webhook_event_category",
                "attributes": {
                    "name": name,
                    "events": events.iter().map(|(event, description)| {
                        json!({"name": event, "description": description,
                               "emitted_when": webhooks::emitted_when(event)})
                    }).collect::<Vec<_>>(),
                }
            })
        })
        .collect();
    Json(json!({ "data": data }))
}

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

/// `GET /webhook_notifications`: one page of the account's notifications, newest first.
pub(crate) async fn list_notifications(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    base: Base,
    OriginalUri(uri): OriginalUri,
) -> Result<Json<Value>, ApiError> {
    let q = parse_list(uri.query(), &[])?;
    let (page, total) = state
        .store
        .list_notifications(account.id, q.page.offset(), q.page.limit())
        .await?;
    let total = u64::try_from(total).unwrap_or(0);
    Ok(Json(json!({
        "data": page.iter().map(notification_resource).collect::<Vec<_>>(),
        "included": [],
        "links": page_links(&base.url("/webhook_notifications"), "", q.page, total),
        "meta": PageMeta { size: q.page.size, total },
    })))
}

/// `GET /webhook_notifications/{id}`.
pub(crate) async fn get_notification(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let uuid = parse_id("WebhookNotification", &id)?;
    let n = state
        .store
        .notification(account.id, uuid)
        .await?
        .ok_or_else(|| ApiError::not_found("WebhookNotification", &id))?;
    Ok(Json(
        json!({ "data": notification_resource(&n), "included": [] }),
    ))
}

/// The `event` query parameter of the examples and trigger operations: one catalog event.
fn catalog_event(event: Option<&str>, parameter: &str) -> Result<String, ApiError> {
    match event {
        Some(e) if webhooks::is_event(e) => Ok(e.to_string()),
        Some(e) => Err(ApiError::invalid(
            parameter,
            format!("{e:?} is not a webhook event (see GET /v2/webhooks/events)."),
        )),
        None => Err(ApiError::invalid(parameter, "event is required.")),
    }
}

/// An example notification of `event` for the account: its own latest container and shipment
/// when it has any, else made-up ids; the webhook id is nil.
async fn example(
    store: &Store,
    account: Uuid,
    event: &str,
    base: &str,
) -> Result<String, ApiError> {
    let (containers, _) = store.list_containers(account, 0, 1).await?;
    let container = containers.first();
    let reference_type = match event {
        e if e.starts_with("tracking_request.") => "tracking_request",
        "shipment.estimated.arrival" => "estimated_event",
        "container.updated" => "container_updated_event",
        "container.created" => "container_created_event",
        "container.pod_terminal_changed" => "container_pod_terminal_changed_event",
        _ => "transport_event",
    };
    let now = teu_pipeline::store::now();
    let n = Notification {
        id: Uuid::new_v4(),
        account_id: account,
        webhook_id: Uuid::nil(),
        event: event.to_string(),
        reference_type: reference_type.to_string(),
        reference_id: Uuid::new_v4(),
        container_id: container.map(|c| c.id),
        shipment_id: container.map(|c| c.shipment_id),
        tracking_request_id: None,
        detail: Detail {
            timestamp: Some(now),
            location_locode: container.and_then(|c| c.pod_locode.clone()),
            timezone: container.and_then(|c| c.pod_timezone.clone()),
            changeset: (event == "container.updated").then(|| {
                let mut m = serde_json::Map::new();
                m.insert("available_for_pickup".into(), json!([false, true]));
                m
            }),
            ..Detail::default()
        },
        body: None,
        delivery_status: webhooks::DeliveryStatus::Pending,
        attempts: 0,
        next_attempt_at: now,
        last_status_code: None,
        last_error: None,
        created_at: now,
        delivered_at: None,
    };
    payload(store, &n, base).await
}

/// `GET /webhook_notifications/examples?event=…`: the payload `event` would send, as one
/// notification in a list document.
pub(crate) async fn examples(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    base: Base,
    OriginalUri(uri): OriginalUri,
) -> Result<Json<Value>, ApiError> {
    let event = uri.query().and_then(|q| {
        form_urlencoded::parse(q.as_bytes())
            .find(|(k, _)| k == "event")
            .map(|(_, v)| v.into_owned())
    });
    let event = catalog_event(event.as_deref(), "event")?;
    let body = example(&state.store, account.id, &event, &base.url("")).await?;
    let doc: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    Ok(Json(json!({
        "data": [doc["data"]],
        "included": doc["included"],
    })))
}

/// `POST /webhooks/trigger`: `{"url", "event", "secret"?}`; sends one example payload and
/// answers 200 with what happened (`succeeded`, `status_code`, `error`, request and response
/// headers and bodies).
pub(crate) async fn trigger(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    base: Base,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let value: Value = serde_json::from_slice(&body).map_err(|e| ApiError::MalformedBody {
        detail: format!("The request body is not JSON: {e}."),
    })?;
    let url = match &value["url"] {
        Value::String(s) => {
            webhooks::check_url(s).map_err(|e| ApiError::invalid_attribute("/url", e.detail))?
        }
        _ => return Err(ApiError::invalid_attribute("/url", "url is required.")),
    };
    let event = match &value["event"] {
        Value::String(e) if webhooks::is_event(e) => e.clone(),
        _ => {
            return Err(ApiError::invalid_attribute(
                "/event",
                "event must be a webhook event (see GET /v2/webhooks/events).",
            ))
        }
    };
    let secret = value["secret"].as_str().map(str::to_string);
    let payload = example(&state.store, account.id, &event, &base.url("")).await?;
    let config = crate::delivery::DeliveryConfig::from_env()
        .map_err(|e| ApiError::invalid_attribute("/url", e.to_string()))?;
    let client = crate::delivery::client(&config);
    let hook = Webhook {
        id: Uuid::nil(),
        account_id: account.id,
        url: url.clone(),
        active: true,
        events: vec![event],
        headers: Vec::new(),
        secret: secret.unwrap_or_default(),
        created_at: teu_pipeline::store::now(),
        updated_at: teu_pipeline::store::now(),
    };
    let report = crate::delivery::send(&client, &config, &hook, &payload).await;
    Ok(Json(json!({
        "url": url,
        "succeeded": report.succeeded(),
        "error": report.error,
        "status_code": report.status,
        "request_headers": report.request_headers,
        "request_body": payload,
        "response_headers": report.response_headers,
        "response_body": report.response_body,
    })))
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
        let mut events = store.events_of_containers(account, &container_ids).await?;
        for c in store.containers_by_ids(account, &container_ids).await? {
            let own = events.remove(&c.id).unwrap_or_default();
            out.containers.insert(
                c.id,
                serde_json::to_value(crate::resources::container(&c, &own)).unwrap_or(Value::Null),
            );
        }
        let mut members = store
            .container_ids_of_shipments(account, &shipment_ids)
            .await?;
        for s in store.shipments_by_ids(account, &shipment_ids).await? {
            let ids = members.remove(&s.id).unwrap_or_default();
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

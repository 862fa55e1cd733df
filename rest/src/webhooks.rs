//! `/webhooks`, `/webhooks/events`, `/webhooks/trigger` and `/webhook_notifications`: the
//! webhook half of Terminal49's `/v2` (API reference "Webhooks" and "Webhook Notifications"),
//! over `teu_pipeline::webhooks`. The payloads the delivery workers send are [`crate::payloads`].
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

use axum::body::Bytes;
use axum::extract::{OriginalUri, Path, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde_json::{json, Value};
use teu_pipeline::model::Account;
use teu_pipeline::webhooks::rules::Detail;
use teu_pipeline::webhooks::{
    self, InvalidWebhook, Notification, Webhook, WebhookAttributes, WebhookHeader, CATALOG,
};
use teu_store::{Store, WebhookError};
use uuid::Uuid;

use crate::base::Base;
use crate::error::ApiError;
use crate::pagination::{page_links, PageMeta};
use crate::payloads::{notification_resource, payload};
use crate::query::parse_list;
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
    let now = teu_store::now();
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
        created_at: teu_store::now(),
        updated_at: teu_store::now(),
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

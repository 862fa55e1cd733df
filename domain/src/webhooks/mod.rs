//! Webhooks: endpoints an account registers to be told what changed, the event catalog they
//! subscribe to, and the notifications (an outbox) that teu delivers to them.
//!
//! Names and shapes follow Terminal49's published `/v2` webhooks (API reference "Webhooks" and
//! "Webhook Notifications", the event catalog and the payload guide):
//!
//! - a webhook has `url` (http or https), `active`, `events` (non-empty, unique, each from
//!   [`CATALOG`]), `headers` (extra name/value pairs sent with every delivery) and `secret`
//!   (random, made by teu, the HMAC-SHA256 key of the `X-T49-Webhook-Signature` header);
//! - a notification has `event`, `delivery_status` (`pending`, `succeeded`, `failed`),
//!   `created_at`, and relationships `webhook` and `reference_object`.
//!
//! Which change emits which event is one table, [`rules`]; notifications are written in the same
//! transaction as the derived rows that caused them ([`outbox`]), so a crash between the commit
//! and the delivery loses nothing. Delivery itself (HTTP, signatures, retries) is the web
//! layer's (`teu_rest::delivery`).

pub mod event_rules;
pub mod outbox;
pub mod rules;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// An event category: id, name, and its events with what each means.
pub type Category = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

/// Event categories of `GET /v2/webhooks/events`: `(id, name, events)`, each event with what
/// it means. Every name Terminal49's interface accepts is here, so existing subscriptions are
/// accepted as they are; which of them teu emits, and on what change, is [`rules::RULES`].
pub const CATALOG: &[Category] = &[
    (
        "tracking-request-events",
        "Tracking Request Events",
        &[
            (
                "tracking_request.succeeded",
                "The tracking request found its shipment.",
            ),
            (
                "tracking_request.failed",
                "The tracking request could not be tracked.",
            ),
            (
                "tracking_request.awaiting_manifest",
                "The line knows the number but has no manifest for it yet.",
            ),
            (
                "tracking_request.tracking_stopped",
                "Tracking of the request's shipment stopped.",
            ),
        ],
    ),
    (
        "container-events",
        "Container Events",
        &[
            (
                "container.created",
                "A container was added to a tracked shipment.",
            ),
            (
                "container.updated",
                "Terminal data of a container changed (holds, fees, last free days, appointment, \
                 availability, POD terminal); the event carries a changeset.",
            ),
            (
                "container.pod_terminal_changed",
                "The container's POD terminal changed.",
            ),
            (
                "container.pickup_lfd.changed",
                "The container's last free day changed.",
            ),
            (
                "container.pickup_lfd_line.changed",
                "The shipping line's last free day changed.",
            ),
            (
                "container.pickup_lfd_terminal.changed",
                "The terminal's last free day changed.",
            ),
            (
                "container.pickup_lfd_rail.changed",
                "The rail last free day changed.",
            ),
            (
                "container.pickup_appointment.changed",
                "The container's pickup appointment changed.",
            ),
        ],
    ),
    (
        "container-transport-events",
        "Container Transport Events",
        &[
            (
                "container.transport.empty_out",
                "Empty container picked up for loading.",
            ),
            (
                "container.transport.full_in",
                "Full container gated in at the port of lading.",
            ),
            (
                "container.transport.vessel_loaded",
                "Loaded on the vessel at the port of lading.",
            ),
            (
                "container.transport.vessel_departed",
                "The vessel left the port of lading.",
            ),
            (
                "container.transport.transshipment_arrived",
                "The vessel arrived at a transshipment port.",
            ),
            (
                "container.transport.transshipment_discharged",
                "Discharged at a transshipment port.",
            ),
            (
                "container.transport.transshipment_loaded",
                "Loaded at a transshipment port.",
            ),
            (
                "container.transport.transshipment_departed",
                "The vessel left a transshipment port.",
            ),
            (
                "container.transport.feeder_arrived",
                "The feeder vessel arrived.",
            ),
            (
                "container.transport.feeder_discharged",
                "Discharged from the feeder vessel.",
            ),
            (
                "container.transport.feeder_loaded",
                "Loaded on the feeder vessel.",
            ),
            (
                "container.transport.feeder_departed",
                "The feeder vessel departed.",
            ),
            (
                "container.transport.vessel_arrived",
                "The vessel arrived at the port of discharge.",
            ),
            (
                "container.transport.vessel_berthed",
                "The vessel berthed at the port of discharge.",
            ),
            (
                "container.transport.vessel_discharged",
                "Discharged at the port of discharge.",
            ),
            (
                "container.transport.available",
                "Available for pickup at the POD terminal.",
            ),
            (
                "container.transport.not_available",
                "No longer available for pickup at the POD terminal.",
            ),
            (
                "container.transport.full_out",
                "Picked up full at the POD terminal.",
            ),
            (
                "container.transport.rail_loaded",
                "Loaded on rail at the port of discharge.",
            ),
            (
                "container.transport.rail_departed",
                "The train left the port of discharge.",
            ),
            (
                "container.transport.rail_arrived",
                "The train arrived inland.",
            ),
            (
                "container.transport.rail_unloaded",
                "Unloaded from rail inland.",
            ),
            (
                "container.transport.arrived_at_inland_destination",
                "Arrived at the inland destination.",
            ),
            (
                "container.transport.delivered",
                "Delivered to the consignee.",
            ),
            (
                "container.transport.empty_in",
                "The empty container was returned.",
            ),
            (
                "container.transport.estimated.vessel_departed",
                "The estimated departure from the port of lading changed.",
            ),
            (
                "container.transport.estimated.vessel_arrived",
                "The estimated arrival at the port of discharge changed.",
            ),
            (
                "container.transport.estimated.arrived_at_inland_destination",
                "The estimated arrival at the inland destination changed.",
            ),
        ],
    ),
    (
        "shipment-events",
        "Shipment Events",
        &[(
            "shipment.estimated.arrival",
            "The shipment's estimated arrival at the port of discharge changed.",
        )],
    ),
    (
        "document-events",
        "Document Events",
        &[
            ("document.extracted", "A document's data was extracted."),
            (
                "document.extraction_failed",
                "A document's data could not be extracted.",
            ),
        ],
    ),
];

/// Whether `name` is an event of [`CATALOG`].
pub fn is_event(name: &str) -> bool {
    CATALOG
        .iter()
        .any(|(_, _, events)| events.iter().any(|(n, _)| *n == name))
}

/// On what change teu emits `event` ([`rules::RULES`]); `None` for a catalog event it accepts in
/// subscriptions but does not emit yet.
pub fn emitted_when(event: &str) -> Option<&'static str> {
    rules::RULES
        .iter()
        .find(|(e, _)| *e == event)
        .map(|(_, when)| *when)
}

/// Header names a webhook may not set: teu sets them on every delivery.
pub const RESERVED_HEADERS: &[&str] = &[
    "content-type",
    "content-length",
    "host",
    "x-t49-webhook-signature",
    "transfer-encoding",
    "connection",
];

/// One extra header sent with each delivery of a webhook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebhookHeader {
    /// The header name (an HTTP token).
    pub name: String,
    /// Its value (visible ASCII and spaces).
    pub value: String,
}

/// A stored webhook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Webhook {
    /// Random (UUID v4).
    pub id: Uuid,
    /// The account that owns it.
    pub account_id: Uuid,
    /// Where notifications are POSTed (http or https).
    pub url: String,
    /// Whether notifications are made for it; an inactive webhook gets none.
    pub active: bool,
    /// The event names it subscribes to (catalog order is not kept: the client's order is).
    pub events: Vec<String>,
    /// Extra headers sent with each delivery.
    pub headers: Vec<WebhookHeader>,
    /// The signing key: 64 lowercase hex digits from the operating system's random source.
    pub secret: String,
    /// When it was created (UTC).
    pub created_at: DateTime<Utc>,
    /// When it last changed (UTC).
    pub updated_at: DateTime<Utc>,
}

/// The attributes a client sends on create (all but `url` optional) or update (all optional).
/// Each present one replaces the stored value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WebhookAttributes {
    /// `url`.
    pub url: Option<String>,
    /// `active` (default `true` on create).
    pub active: Option<bool>,
    /// `events` (default on create: every event teu emits).
    pub events: Option<Vec<String>>,
    /// `headers` (`Some(vec![])` clears them).
    pub headers: Option<Vec<WebhookHeader>>,
}

/// A rejected webhook attribute: `attribute` is the member name under `/data/attributes`
/// (with an index for list members: `events/2`, `headers/0/name`), `detail` says what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{detail}")]
pub struct InvalidWebhook {
    /// JSON pointer of the attribute below `/data/attributes` (no leading slash).
    pub attribute: String,
    /// What is wrong, in a sentence.
    pub detail: String,
}

fn invalid(attribute: impl Into<String>, detail: impl Into<String>) -> InvalidWebhook {
    InvalidWebhook {
        attribute: attribute.into(),
        detail: detail.into(),
    }
}

/// The events a webhook made without `events` subscribes to: every event teu emits.
pub fn default_events() -> Vec<String> {
    rules::RULES.iter().map(|(e, _)| e.to_string()).collect()
}

/// Longest accepted webhook URL, in bytes.
pub const MAX_URL_LEN: usize = 2048;
/// Most extra headers per webhook.
pub const MAX_HEADERS: usize = 20;

/// Checks a URL: absolute, `http` or `https`, with a host, no user name or password, at most
/// [`MAX_URL_LEN`] bytes. Returns it as given. Whether its host may be reached (private
/// addresses) is decided at delivery, after DNS resolution.
pub fn check_url(url: &str) -> Result<String, InvalidWebhook> {
    if url.len() > MAX_URL_LEN {
        return Err(invalid(
            "url",
            format!("url is longer than {MAX_URL_LEN} bytes."),
        ));
    }
    let parsed =
        url::Url::parse(url).map_err(|e| invalid("url", format!("url is not a URL: {e}.")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(invalid(
            "url",
            format!("url must be http or https, not {:?}.", parsed.scheme()),
        ));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(invalid("url", "url must name a host."));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(invalid(
            "url",
            "url must not carry a user name or password; send credentials in headers.",
        ));
    }
    Ok(url.to_string())
}

/// Checks an event list: non-empty, each name from [`CATALOG`], no name twice.
pub fn check_events(events: &[String]) -> Result<(), InvalidWebhook> {
    if events.is_empty() {
        return Err(invalid("events", "events must name at least one event."));
    }
    for (i, e) in events.iter().enumerate() {
        if !is_event(e) {
            return Err(invalid(
                format!("events/{i}"),
                format!("{e:?} is not a webhook event (see GET /v2/webhooks/events)."),
            ));
        }
        if events[..i].contains(e) {
            return Err(invalid(
                format!("events/{i}"),
                format!("{e:?} is listed twice."),
            ));
        }
    }
    Ok(())
}

/// Checks extra headers: at most [`MAX_HEADERS`], names HTTP tokens (RFC 9110 §5.6.2) not in
/// [`RESERVED_HEADERS`] and not repeated, values visible ASCII or spaces/tabs.
pub fn check_headers(headers: &[WebhookHeader]) -> Result<(), InvalidWebhook> {
    if headers.len() > MAX_HEADERS {
        return Err(invalid(
            "headers",
            format!("at most {MAX_HEADERS} headers are allowed."),
        ));
    }
    let token = |c: u8| c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c);
    for (i, h) in headers.iter().enumerate() {
        if h.name.is_empty() || !h.name.bytes().all(token) {
            return Err(invalid(
                format!("headers/{i}/name"),
                format!("{:?} is not a header name.", h.name),
            ));
        }
        let lower = h.name.to_ascii_lowercase();
        if RESERVED_HEADERS.contains(&lower.as_str()) {
            return Err(invalid(
                format!("headers/{i}/name"),
                format!("{} is set by teu on every delivery.", h.name),
            ));
        }
        if headers[..i]
            .iter()
            .any(|o| o.name.eq_ignore_ascii_case(&h.name))
        {
            return Err(invalid(
                format!("headers/{i}/name"),
                format!("{} is listed twice.", h.name),
            ));
        }
        if !h
            .value
            .bytes()
            .all(|c| c == b'\t' || (b' '..=b'~').contains(&c))
        {
            return Err(invalid(
                format!("headers/{i}/value"),
                "a header value must be visible ASCII, spaces or tabs.",
            ));
        }
    }
    Ok(())
}

impl WebhookAttributes {
    /// Checks every present attribute ([`check_url`], [`check_events`], [`check_headers`]);
    /// on create, `url` is required.
    pub fn check(&self, create: bool) -> Result<(), InvalidWebhook> {
        match &self.url {
            Some(u) => {
                check_url(u)?;
            }
            None if create => return Err(invalid("url", "url is required.")),
            None => {}
        }
        if let Some(e) = &self.events {
            check_events(e)?;
        }
        if let Some(h) = &self.headers {
            check_headers(h)?;
        }
        Ok(())
    }
}

/// A new signing secret: 32 bytes from the operating system's random source (through
/// `uuid`'s v4 generator, 2 × 122 random bits), as 64 hex digits.
pub fn new_secret() -> String {
    let mut out = String::with_capacity(64);
    for _ in 0..2 {
        out.push_str(&hex::encode(Uuid::new_v4().as_bytes()));
    }
    out
}

/// A notification's delivery state (`delivery_status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryStatus {
    /// Not yet delivered; attempts remain.
    Pending,
    /// The receiver answered 200, 201, 202 or 204.
    Succeeded,
    /// Every attempt failed.
    Failed,
}

impl DeliveryStatus {
    /// The stored and served name.
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryStatus::Pending => "pending",
            DeliveryStatus::Succeeded => "succeeded",
            DeliveryStatus::Failed => "failed",
        }
    }

    /// The status of its stored name ([`DeliveryStatus::as_str`]), `None` for another text.
    pub fn parse(s: &str) -> Option<DeliveryStatus> {
        match s {
            "pending" => Some(DeliveryStatus::Pending),
            "succeeded" => Some(DeliveryStatus::Succeeded),
            "failed" => Some(DeliveryStatus::Failed),
            _ => None,
        }
    }
}

/// A stored notification.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Notification {
    /// The idempotency key (`data.id` of every delivery of it).
    pub id: Uuid,
    /// The account it belongs to.
    pub account_id: Uuid,
    /// The webhook it is for.
    pub webhook_id: Uuid,
    /// The event name.
    pub event: String,
    /// `reference_object` type: `tracking_request`, `transport_event`, `estimated_event`,
    /// `container_updated_event` or `container_created_event`.
    pub reference_type: String,
    /// `reference_object` id.
    pub reference_id: Uuid,
    /// The container it is about, if any.
    pub container_id: Option<Uuid>,
    /// The shipment it is about, if any.
    pub shipment_id: Option<Uuid>,
    /// The tracking request it is about, if any.
    pub tracking_request_id: Option<Uuid>,
    /// What the rule saw ([`rules::Detail`]).
    pub detail: rules::Detail,
    /// The payload as first sent, once rendered.
    pub body: Option<String>,
    /// Delivery state.
    pub delivery_status: DeliveryStatus,
    /// Attempts made so far.
    pub attempts: i64,
    /// When the next attempt is due (UTC).
    pub next_attempt_at: DateTime<Utc>,
    /// HTTP status of the last attempt, when the receiver answered.
    pub last_status_code: Option<i64>,
    /// What went wrong on the last failed attempt.
    pub last_error: Option<String>,
    /// When it was made (UTC).
    pub created_at: DateTime<Utc>,
    /// When it was delivered (UTC).
    pub delivered_at: Option<DateTime<Utc>>,
}

#[cfg(test)]
mod tests;

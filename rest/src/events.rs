//! `GET /containers/{id}/transport_events` and `GET /containers/{id}/raw_events`: a container's
//! stored carrier events, in event order, as Terminal49's `transport_event` and `raw_event`
//! resources (API reference "Get a container's transport events" / "raw events").
//!
//! - transport events: the actual events that have a normalized name
//!   (`teu_pipeline::event_names`), `event` = `container.transport.<name>`;
//! - raw events: every stored event, actual and estimated, with `event` the normalized name
//!   (`null` when it has none), `original_event` the DCSA event type and code
//!   (`EQUIPMENT LOAD`), `estimated` for estimated and planned events, and `index` its place in
//!   the list.
//!
//! Both answer 404 for an unknown, malformed or other account's container id. The ids are those
//! of the container's `transport_events` and `raw_events` relationships.

use axum::extract::{Path, State};
use axum::{Extension, Json};
use serde_json::{json, Value};
use teu_pipeline::event_names::{self, Ends};
use teu_pipeline::ids;
use teu_pipeline::model::{Account, Classifier, TransportEvent};
use uuid::Uuid;

use crate::base::Base;
use crate::error::ApiError;
use crate::resources::timestamp;
use crate::RestState;

fn rel(kind: &str, id: Option<Uuid>) -> Value {
    json!({"data": id.map(|id| json!({"id": id, "type": kind}))})
}

/// The container's events and the ends of its shipment; 404 when the container is not the
/// account's.
async fn events_of(
    state: &RestState,
    account: &Account,
    id: &str,
) -> Result<
    (
        Uuid,
        Uuid,
        Vec<TransportEvent>,
        Option<teu_pipeline::model::Shipment>,
    ),
    ApiError,
> {
    let missing = || ApiError::not_found("Container", id);
    let uuid = Uuid::parse_str(id).map_err(|_| missing())?;
    let container = state
        .store
        .container(account.id, uuid)
        .await?
        .ok_or_else(missing)?;
    let shipment = state
        .store
        .shipment(account.id, container.shipment_id)
        .await?;
    let events = state
        .store
        .events_of_containers(account.id, &[uuid])
        .await?
        .remove(&uuid)
        .unwrap_or_default();
    Ok((uuid, container.shipment_id, events, shipment))
}

/// The `transport_event` resources of one container's `events` (the actual events that have
/// a normalized name), in event order; `ends` tells the POL, POD and transshipment ports apart.
pub(crate) fn transport_event_values(
    events: &[TransportEvent],
    ends: Ends<'_>,
    container: Uuid,
    shipment_id: Uuid,
) -> Vec<Value> {
    events
        .iter()
        .filter_map(|e| {
            let event = event_names::transport_event(&e.event, ends)?;
            Some(json!({
                "id": e.id,
                "type": "transport_event",
                "attributes": {
                    "event": event,
                    "created_at": timestamp(&event_names::created_at(&e.event)),
                    "voyage_number": event_names::voyage(&e.event),
                    "timestamp": timestamp(&e.event.event_at),
                    "timezone": e.timezone,
                    "location_locode": e.event.locode,
                    "data_source": "shipping_line",
                },
                "relationships": {
                    "shipment": rel("shipment", Some(shipment_id)),
                    "container": rel("container", Some(container)),
                    "vessel": rel("vessel", e.event.vessel_imo.as_deref().map(ids::vessel_id)),
                    "location": rel("port", e.event.locode.as_deref().map(ids::port_id)),
                    "terminal": rel("terminal", None),
                }
            }))
        })
        .collect()
}

/// `GET /containers/{id}/transport_events`.
pub(crate) async fn transport_events(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    Path(id): Path<String>,
    base: Base,
) -> Result<Json<Value>, ApiError> {
    let (container, shipment_id, events, shipment) = events_of(&state, &account, &id).await?;
    let ends = shipment.as_ref().map(Ends::of).unwrap_or_default();
    let data = transport_event_values(&events, ends, container, shipment_id);
    Ok(Json(json!({
        "data": data,
        "included": [],
        "links": {"self": base.url(&format!("/containers/{id}/transport_events"))},
    })))
}

/// The `raw_event` resources of one container's `events` (every stored event, actual and
/// estimated), in event order.
pub(crate) fn raw_event_values(events: &[TransportEvent], ends: Ends<'_>) -> Vec<Value> {
    events
        .iter()
        .enumerate()
        .map(|(index, e)| {
            let estimated = e.event.classifier != Classifier::Act;
            let at = timestamp(&e.event.event_at);
            json!({
                "id": e.raw_event_id,
                "type": "raw_event",
                "attributes": {
                    "event": event_names::name(&e.event, ends),
                    "original_event": event_names::original_event(&e.event),
                    "timestamp": at,
                    "estimated": estimated,
                    "actual_on": null,
                    "estimated_on": null,
                    "actual_at": (!estimated).then(|| at.clone()),
                    "estimated_at": estimated.then(|| at.clone()),
                    "index": index,
                    "created_at": timestamp(&event_names::created_at(&e.event)),
                    "voyage_number": event_names::voyage(&e.event),
                    "location_name": e.event.location_name,
                    "location_locode": e.event.locode,
                    "vessel_name": e.event.vessel_name,
                    "vessel_imo": e.event.vessel_imo,
                    "timezone": e.timezone,
                },
                "relationships": {
                    "location": rel("port", e.event.locode.as_deref().map(ids::port_id)),
                    "vessel": rel("vessel", e.event.vessel_imo.as_deref().map(ids::vessel_id)),
                }
            })
        })
        .collect()
}

/// `GET /containers/{id}/raw_events`.
pub(crate) async fn raw_events(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    Path(id): Path<String>,
    base: Base,
) -> Result<Json<Value>, ApiError> {
    let (_, _, events, shipment) = events_of(&state, &account, &id).await?;
    let ends = shipment.as_ref().map(Ends::of).unwrap_or_default();
    let data = raw_event_values(&events, ends);
    Ok(Json(json!({
        "data": data,
        "links": {"self": base.url(&format!("/containers/{id}/raw_events"))},
    })))
}

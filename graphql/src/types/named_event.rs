//! The two Terminal49 views of a container's events that `/v2` serves, with the same values:
//! `Container.transportEvents` ([`ContainerTransportEvent`], `GET
//! /v2/containers/{id}/transport_events`) and `Container.rawEvents` ([`RawEvent`], `GET
//! /v2/containers/{id}/raw_events`).
//!
//! Names, voyages and creation times come from [`teu_pipeline::event_names`], the functions
//! `/v2` calls; the events and the shipment (whose ends name the events) come through the
//! request's data loader, so a page of containers costs one store call per field.

use async_graphql::{ComplexObject, Context, Enum, SimpleObject, ID};
use teu_pipeline::event_names::{self, Ends};
use teu_pipeline::model;
use uuid::Uuid;

use super::event::container_events;
use super::shipment::load_shipment;
use super::{DateTime, Port, Shipment, Vessel};

/// Where a transport event's data came from (`/v2` `data_source`).
#[derive(Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventDataSource {
    /// `shipping_line`: the carrier's event feed.
    ShippingLine,
    /// `terminal`: the terminal's availability data.
    Terminal,
}

/// A container's events and its shipment (whose ends name them), through the data loader.
async fn events_and_shipment(
    ctx: &Context<'_>,
    container: Uuid,
    shipment: Uuid,
) -> async_graphql::Result<(Vec<model::TransportEvent>, Option<model::Shipment>)> {
    let events = container_events(ctx, container).await?;
    let shipment = load_shipment(ctx, shipment).await?;
    Ok((events, shipment))
}

/// `Container.transportEvents`: the actual events of container `container` (of shipment
/// `shipment`) that have a Terminal49 name, in event order, as
/// `/v2/containers/{id}/transport_events` lists them.
///
/// Errors: `UNAUTHENTICATED` without an account, `INTERNAL` when the store fails.
pub(crate) async fn transport_events(
    ctx: &Context<'_>,
    container: Uuid,
    shipment: Uuid,
) -> async_graphql::Result<Vec<ContainerTransportEvent>> {
    let (events, found) = events_and_shipment(ctx, container, shipment).await?;
    let ends = found.as_ref().map(Ends::of).unwrap_or_default();
    Ok(events
        .into_iter()
        .filter_map(|e| {
            let name = event_names::transport_event(&e.event, ends)?;
            Some(ContainerTransportEvent::new(e, name, shipment))
        })
        .collect())
}

/// `Container.rawEvents`: every stored event of container `container` (of shipment
/// `shipment`), actual and estimated, in event order, as `/v2/containers/{id}/raw_events`
/// lists them.
///
/// Errors: `UNAUTHENTICATED` without an account, `INTERNAL` when the store fails.
pub(crate) async fn raw_events(
    ctx: &Context<'_>,
    container: Uuid,
    shipment: Uuid,
) -> async_graphql::Result<Vec<RawEvent>> {
    let (events, found) = events_and_shipment(ctx, container, shipment).await?;
    let ends = found.as_ref().map(Ends::of).unwrap_or_default();
    Ok(events
        .into_iter()
        .enumerate()
        .map(|(index, e)| {
            let name = event_names::name(&e.event, ends);
            RawEvent::new(e, name, index)
        })
        .collect())
}

/// A Terminal49 transport event of a container (`/v2` `transport_event`, same values).
#[derive(SimpleObject, Debug, Clone)]
#[graphql(complex)]
pub struct ContainerTransportEvent {
    /// The event id (UUID), the same as in `/v2`.
    id: ID,
    /// `container.transport.<name>`: `container.transport.vessel_loaded`, ...
    event: String,
    /// When the carrier issued the event (else when it happened).
    created_at: DateTime,
    /// The voyage: the export voyage for what leaves a port, the import one otherwise.
    voyage_number: Option<String>,
    /// When it happened.
    timestamp: DateTime,
    /// IANA time zone of the event's location, when known.
    timezone: Option<String>,
    /// UN/LOCODE of the event's location.
    location_locode: Option<String>,
    /// Where the data came from: the shipping line's feed.
    data_source: EventDataSource,
    // Not fields of the schema: what the nested fields look up.
    #[graphql(skip)]
    named_vessel: Option<Vessel>,
    #[graphql(skip)]
    shipment_id: Uuid,
}

impl ContainerTransportEvent {
    /// The `/v2` transport event of `e`, an actual carrier event named `name`
    /// (`container.transport.<name>`), of a container of shipment `shipment_id`.
    fn new(e: model::TransportEvent, name: String, shipment_id: Uuid) -> Self {
        let row = &e.event;
        ContainerTransportEvent {
            id: ID(e.id.to_string()),
            event: name,
            created_at: DateTime(event_names::created_at(row)),
            voyage_number: event_names::voyage(row).map(str::to_string),
            timestamp: DateTime(row.event_at),
            location_locode: row.locode.as_deref().map(str::to_string),
            data_source: EventDataSource::ShippingLine,
            named_vessel: Vessel::of(row.vessel_imo.as_deref(), row.vessel_name.as_deref()),
            timezone: e.timezone,
            shipment_id,
        }
    }
}

/// The fields of a transport event that are looked up: its port and shipment.
#[ComplexObject]
impl ContainerTransportEvent {
    /// The port of the event's location (reference data), when known.
    async fn location(&self) -> Option<Port> {
        Port::of(self.location_locode.as_deref())
    }

    /// The vessel the event names, when it names one.
    async fn vessel(&self) -> Option<Vessel> {
        self.named_vessel.clone()
    }

    /// The shipment of the container.
    async fn shipment(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<Shipment>> {
        Ok(load_shipment(ctx, self.shipment_id)
            .await?
            .map(Shipment::from))
    }
}

/// A stored carrier event of a container, actual or estimated (`/v2` `raw_event`, same
/// values).
#[derive(SimpleObject, Debug, Clone)]
#[graphql(complex)]
pub struct RawEvent {
    /// Id of the raw event (the original feed JSON), the same as in `/v2`.
    id: ID,
    /// The normalized name (`vessel_loaded`, `full_out`, ...), null when the event has none.
    event: Option<&'static str>,
    /// The DCSA event type and code: `EQUIPMENT LOAD`, `TRANSPORT ARRI`, ...
    original_event: String,
    /// When it happened or is expected to.
    timestamp: DateTime,
    /// Whether it is an estimate or plan (not an actual event).
    estimated: bool,
    /// `timestamp` when the event is actual.
    actual_at: Option<DateTime>,
    /// `timestamp` when the event is estimated or planned.
    estimated_at: Option<DateTime>,
    /// Its place in the container's list, from 0.
    index: i32,
    /// When the carrier issued the event (else when it happened).
    created_at: DateTime,
    /// The voyage: the export voyage for what leaves a port, the import one otherwise.
    voyage_number: Option<String>,
    /// Name of the event's location, as the carrier wrote it.
    location_name: Option<String>,
    /// UN/LOCODE of the event's location.
    location_locode: Option<String>,
    /// Vessel name, as the carrier wrote it.
    vessel_name: Option<String>,
    /// Vessel IMO number, 7 digits.
    vessel_imo: Option<String>,
    /// IANA time zone of the event's location, when known.
    timezone: Option<String>,
}

impl RawEvent {
    /// The `/v2` raw event of `e`, named `name` (none for events Terminal49 does not name),
    /// at place `index` (from 0) of its container's list.
    fn new(e: model::TransportEvent, name: Option<&'static str>, index: usize) -> Self {
        let row = &e.event;
        let estimated = row.classifier != model::Classifier::Act;
        let at = DateTime(row.event_at);
        RawEvent {
            id: ID(e.raw_event_id.to_string()),
            event: name,
            original_event: event_names::original_event(row),
            timestamp: at,
            estimated,
            actual_at: (!estimated).then_some(at),
            estimated_at: estimated.then_some(at),
            index: i32::try_from(index).unwrap_or(i32::MAX),
            created_at: DateTime(event_names::created_at(row)),
            voyage_number: event_names::voyage(row).map(str::to_string),
            location_name: row.location_name.clone(),
            location_locode: row.locode.as_deref().map(str::to_string),
            vessel_name: row.vessel_name.clone(),
            vessel_imo: row.vessel_imo.as_deref().map(str::to_string),
            timezone: e.timezone,
        }
    }
}

/// The field of a raw event that is looked up in the reference data.
#[ComplexObject]
impl RawEvent {
    /// The port of the event's location (reference data), when known.
    async fn location(&self) -> Option<Port> {
        Port::of(self.location_locode.as_deref())
    }
}

//! The two Terminal49 views of a container's events that `/v2` serves, with the same values:
//! `Container.transportEvents` ([`ContainerTransportEvent`], `GET
//! /v2/containers/{id}/transport_events`) and `Container.rawEvents` ([`RawEvent`], `GET
//! /v2/containers/{id}/raw_events`).
//!
//! Names, voyages and creation times come from [`teu_pipeline::event_names`], the functions
//! `/v2` calls; the events and the shipment (whose ends name the events) come through the
//! request's data loader, so a page of containers costs one store call per field.

use async_graphql::{Context, Enum, Object, ID};
use teu_pipeline::event_names::{self, Ends};
use teu_pipeline::model;

use super::{DateTime, Port, Shipment, Vessel};
use crate::context::loader;
use crate::error;
use crate::loaders::{EventsKey, ShipmentKey};

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
    container: &model::Container,
) -> async_graphql::Result<(Vec<model::TransportEvent>, Option<model::Shipment>)> {
    let account = error::account(ctx)?;
    let loader = loader(ctx)?;
    let events = loader
        .load_one(EventsKey {
            account: account.id,
            container: container.id,
        })
        .await
        .map_err(|_| error::internal_opaque())?
        .unwrap_or_default();
    let shipment = loader
        .load_one(ShipmentKey {
            account: account.id,
            shipment: container.shipment_id,
        })
        .await
        .map_err(|_| error::internal_opaque())?;
    Ok((events, shipment))
}

/// `Container.transportEvents`: the container's actual events that have a Terminal49 name, in
/// event order, as `/v2/containers/{id}/transport_events` lists them.
pub(crate) async fn transport_events(
    ctx: &Context<'_>,
    container: &model::Container,
) -> async_graphql::Result<Vec<ContainerTransportEvent>> {
    let (events, shipment) = events_and_shipment(ctx, container).await?;
    let ends = shipment.as_ref().map(Ends::of).unwrap_or_default();
    Ok(events
        .into_iter()
        .filter_map(|e| {
            let name = event_names::transport_event(&e.event, ends)?;
            Some(ContainerTransportEvent {
                name,
                shipment_id: container.shipment_id,
                event: e,
            })
        })
        .collect())
}

/// `Container.rawEvents`: every stored event of the container, actual and estimated, in event
/// order, as `/v2/containers/{id}/raw_events` lists them.
pub(crate) async fn raw_events(
    ctx: &Context<'_>,
    container: &model::Container,
) -> async_graphql::Result<Vec<RawEvent>> {
    let (events, shipment) = events_and_shipment(ctx, container).await?;
    let ends = shipment.as_ref().map(Ends::of).unwrap_or_default();
    Ok(events
        .into_iter()
        .enumerate()
        .map(|(index, e)| RawEvent {
            name: event_names::name(&e.event, ends),
            index,
            event: e,
        })
        .collect())
}

/// A Terminal49 transport event of a container: an actual carrier event with its normalized
/// name (`/v2` `transport_event`).
pub struct ContainerTransportEvent {
    event: model::TransportEvent,
    name: String,
    shipment_id: uuid::Uuid,
}

/// A Terminal49 transport event of a container (`/v2` `transport_event`, same values).
#[Object]
impl ContainerTransportEvent {
    /// The event id (UUID), the same as in `/v2`.
    async fn id(&self) -> ID {
        ID(self.event.id.to_string())
    }

    /// `container.transport.<name>`: `container.transport.vessel_loaded`, ...
    async fn event(&self) -> &str {
        &self.name
    }

    /// When the carrier issued the event (else when it happened).
    async fn created_at(&self) -> DateTime {
        DateTime(event_names::created_at(&self.event.event))
    }

    /// The voyage: the export voyage for what leaves a port, the import one otherwise.
    async fn voyage_number(&self) -> Option<&str> {
        event_names::voyage(&self.event.event)
    }

    /// When it happened.
    async fn timestamp(&self) -> DateTime {
        DateTime(self.event.event.event_at)
    }

    /// IANA time zone of the event's location, when known.
    async fn timezone(&self) -> Option<&str> {
        self.event.timezone.as_deref()
    }

    /// UN/LOCODE of the event's location.
    async fn location_locode(&self) -> Option<&str> {
        self.event.event.locode.as_deref()
    }

    /// Where the data came from: the shipping line's feed.
    async fn data_source(&self) -> EventDataSource {
        EventDataSource::ShippingLine
    }

    /// The port of the event's location (reference data), when known.
    async fn location(&self) -> Option<Port> {
        Port::of(self.event.event.locode.as_deref())
    }

    /// The vessel the event names, when it names one.
    async fn vessel(&self) -> Option<Vessel> {
        Vessel::of(
            self.event.event.vessel_imo.as_deref(),
            self.event.event.vessel_name.as_deref(),
        )
    }

    /// The shipment of the container.
    async fn shipment(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<Shipment>> {
        let account = error::account(ctx)?;
        let found = loader(ctx)?
            .load_one(ShipmentKey {
                account: account.id,
                shipment: self.shipment_id,
            })
            .await
            .map_err(|_| error::internal_opaque())?;
        Ok(found.map(Shipment))
    }
}

/// A stored carrier event of a container as Terminal49 shows it (`/v2` `raw_event`).
pub struct RawEvent {
    event: model::TransportEvent,
    name: Option<&'static str>,
    index: usize,
}

/// A stored carrier event of a container, actual or estimated (`/v2` `raw_event`, same
/// values).
#[Object]
impl RawEvent {
    /// Id of the raw event (the original feed JSON), the same as in `/v2`.
    async fn id(&self) -> ID {
        ID(self.event.raw_event_id.to_string())
    }

    /// The normalized name (`vessel_loaded`, `full_out`, ...), null when the event has none.
    async fn event(&self) -> Option<&str> {
        self.name
    }

    /// The DCSA event type and code: `EQUIPMENT LOAD`, `TRANSPORT ARRI`, ...
    async fn original_event(&self) -> String {
        event_names::original_event(&self.event.event)
    }

    /// When it happened or is expected to.
    async fn timestamp(&self) -> DateTime {
        DateTime(self.event.event.event_at)
    }

    /// Whether it is an estimate or plan (not an actual event).
    async fn estimated(&self) -> bool {
        self.event.event.classifier != model::Classifier::Act
    }

    /// `timestamp` when the event is actual.
    async fn actual_at(&self) -> Option<DateTime> {
        (self.event.event.classifier == model::Classifier::Act)
            .then_some(DateTime(self.event.event.event_at))
    }

    /// `timestamp` when the event is estimated or planned.
    async fn estimated_at(&self) -> Option<DateTime> {
        (self.event.event.classifier != model::Classifier::Act)
            .then_some(DateTime(self.event.event.event_at))
    }

    /// Its place in the container's list, from 0.
    async fn index(&self) -> i32 {
        i32::try_from(self.index).unwrap_or(i32::MAX)
    }

    /// When the carrier issued the event (else when it happened).
    async fn created_at(&self) -> DateTime {
        DateTime(event_names::created_at(&self.event.event))
    }

    /// The voyage: the export voyage for what leaves a port, the import one otherwise.
    async fn voyage_number(&self) -> Option<&str> {
        event_names::voyage(&self.event.event)
    }

    /// Name of the event's location, as the carrier wrote it.
    async fn location_name(&self) -> Option<&str> {
        self.event.event.location_name.as_deref()
    }

    /// UN/LOCODE of the event's location.
    async fn location_locode(&self) -> Option<&str> {
        self.event.event.locode.as_deref()
    }

    /// Vessel name, as the carrier wrote it.
    async fn vessel_name(&self) -> Option<&str> {
        self.event.event.vessel_name.as_deref()
    }

    /// Vessel IMO number, 7 digits.
    async fn vessel_imo(&self) -> Option<&str> {
        self.event.event.vessel_imo.as_deref()
    }

    /// IANA time zone of the event's location, when known.
    async fn timezone(&self) -> Option<&str> {
        self.event.timezone.as_deref()
    }

    /// The port of the event's location (reference data), when known.
    async fn location(&self) -> Option<Port> {
        Port::of(self.event.event.locode.as_deref())
    }
}

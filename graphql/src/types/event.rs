//! A container's DCSA events as stored (`Container.events`, [`TransportEvent`]), with their
//! type and classifier. The Terminal49 views of them are in [`super::named_event`].

use async_graphql::{ComplexObject, Context, Enum, SimpleObject, ID};
use teu_pipeline::model;
use uuid::Uuid;

use super::{dt, DateTime, Port, Vessel};
use crate::context::loader;
use crate::error;
use crate::loaders::EventsKey;

/// DCSA event type.
#[derive(Enum, Debug, Clone, Copy, PartialEq, Eq)]
#[graphql(remote = "model::EventType")]
pub enum EventType {
    /// A vessel (or other means of transport) arrived or departed.
    Transport,
    /// Something happened to the container (load, discharge, gate in/out, ...).
    Equipment,
    /// Something happened to the shipment's documents (booking, bill of lading, ...).
    Shipment,
}

/// DCSA event classifier: whether the event happened or is expected.
#[derive(Enum, Debug, Clone, Copy, PartialEq, Eq)]
#[graphql(remote = "model::Classifier")]
pub enum EventClassifier {
    /// Actual: it happened.
    Act,
    /// Estimated.
    Est,
    /// Planned.
    Pln,
    /// Requested.
    Req,
}

/// A normalized carrier event (DCSA Track & Trace 2.2 or 3.0) of a container.
#[derive(SimpleObject, Debug, Clone)]
#[graphql(complex)]
pub struct TransportEvent {
    /// The event id (UUID), the same as in `/v2` `transport_events` relationships.
    id: ID,
    /// Id of the raw event (the original feed JSON) it came from.
    raw_event_id: ID,
    event_type: EventType,
    classifier: EventClassifier,
    /// Event type code: `ARRI`, `DEPA` (transport); `LOAD`, `DISC`, `GTIN`, `GTOT`, ...
    /// (equipment); `RECE`, `ISSU`, `CONF`, ... (shipment).
    code: String,
    /// When the event happened (or is expected to).
    event_at: DateTime,
    /// When the carrier issued this version of the event.
    event_created_at: Option<DateTime>,
    /// ISO 6346 container number.
    container_number: Option<String>,
    /// Transport document (bill of lading) number.
    bill_of_lading: Option<String>,
    /// Carrier booking reference.
    booking: Option<String>,
    /// UN/LOCODE of the event location.
    locode: Option<String>,
    location_name: Option<String>,
    /// Facility code (SMDG or BIC) of the event location.
    facility_code: Option<String>,
    /// `VESSEL`, `RAIL`, `TRUCK` or `BARGE`.
    mode_of_transport: Option<String>,
    /// IMO number, 7 digits.
    vessel_imo: Option<String>,
    vessel_name: Option<String>,
    /// The import voyage number, or the export one when the import one is unknown.
    voyage: Option<String>,
    delay_reason: Option<String>,
    remark: Option<String>,
    /// IANA time zone of the event's location, when known.
    timezone: Option<String>,
}

impl From<model::TransportEvent> for TransportEvent {
    /// The GraphQL event of a stored one: the first container, bill of lading and booking it
    /// names (`EventRow::container_number`, ...). Every model field is named here, so a field
    /// added to the model does not compile until it is served or left out on purpose.
    fn from(e: model::TransportEvent) -> Self {
        let model::TransportEvent {
            id,
            raw_event_id,
            timezone,
            event,
        } = e;
        let container_number = event.container_number().map(str::to_string);
        let bill_of_lading = event.bill_of_lading().map(str::to_string);
        let booking = event.booking().map(str::to_string);
        let model::EventRow {
            event_id: _,
            event_type,
            classifier,
            code,
            event_at,
            event_created_at,
            containers: _,
            bills_of_lading: _,
            bookings: _,
            references: _,
            transport_call_id: _,
            locode,
            location_name,
            facility_code,
            facility_type: _,
            mode_of_transport,
            transport_call_sequence: _,
            vessel_imo,
            vessel_name,
            export_voyage,
            import_voyage,
            carrier_scac: _,
            iso_equipment_code: _,
            empty: _,
            seal_number: _,
            delay_reason,
            remark,
        } = event;
        TransportEvent {
            id: ID(id.to_string()),
            raw_event_id: ID(raw_event_id.to_string()),
            event_type: event_type.into(),
            classifier: classifier.into(),
            code,
            event_at: DateTime(event_at),
            event_created_at: dt(event_created_at),
            container_number,
            bill_of_lading,
            booking,
            locode: locode.map(String::from),
            location_name,
            facility_code,
            mode_of_transport,
            vessel_imo: vessel_imo.map(String::from),
            vessel_name,
            voyage: import_voyage.or(export_voyage),
            delay_reason,
            remark,
            timezone,
        }
    }
}

/// The fields of an event that are looked up in the reference data.
#[ComplexObject]
impl TransportEvent {
    /// The vessel the event names, when it names one.
    async fn vessel(&self) -> Option<Vessel> {
        Vessel::of(self.vessel_imo.as_deref(), self.vessel_name.as_deref())
    }

    /// The port of the event's location (reference data), when known.
    async fn port(&self) -> Option<Port> {
        Port::of(self.locode.as_deref())
    }
}

/// The account's events of container `container`, oldest first (by event time, then id),
/// through the request's data loader; empty when the account has no such container.
///
/// Errors: `UNAUTHENTICATED` without an account, `INTERNAL` when the store fails.
pub(crate) async fn container_events(
    ctx: &Context<'_>,
    container: Uuid,
) -> async_graphql::Result<Vec<model::TransportEvent>> {
    let account = error::account(ctx)?;
    Ok(loader(ctx)?
        .load_one(EventsKey {
            account: account.id,
            container,
        })
        .await
        .map_err(|_| error::internal_opaque())?
        .unwrap_or_default())
}

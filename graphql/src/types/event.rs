//! A container's DCSA events as stored (`Container.events`, [`TransportEvent`]), with their
//! type and classifier. The Terminal49 views of them are in [`super::named_event`].

use async_graphql::{Enum, Object, ID};
use teu_pipeline::model;

use super::{dt, DateTime, Port, Vessel};

/// DCSA event type.
#[derive(Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    /// A vessel (or other means of transport) arrived or departed.
    Transport,
    /// Something happened to the container (load, discharge, gate in/out, ...).
    Equipment,
    /// Something happened to the shipment's documents (booking, bill of lading, ...).
    Shipment,
}

impl From<model::EventType> for EventType {
    fn from(t: model::EventType) -> Self {
        match t {
            model::EventType::Transport => EventType::Transport,
            model::EventType::Equipment => EventType::Equipment,
            model::EventType::Shipment => EventType::Shipment,
        }
    }
}

/// DCSA event classifier: whether the event happened or is expected.
#[derive(Enum, Debug, Clone, Copy, PartialEq, Eq)]
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

impl From<model::Classifier> for EventClassifier {
    fn from(c: model::Classifier) -> Self {
        match c {
            model::Classifier::Act => EventClassifier::Act,
            model::Classifier::Est => EventClassifier::Est,
            model::Classifier::Pln => EventClassifier::Pln,
            model::Classifier::Req => EventClassifier::Req,
        }
    }
}

/// A normalized carrier event (DCSA Track & Trace 2.2 or 3.0).
pub struct TransportEvent(pub model::TransportEvent);

/// A normalized carrier event (DCSA Track & Trace 2.2 or 3.0) of a container.
#[Object]
impl TransportEvent {
    /// The event id (UUID), the same as in `/v2` `transport_events` relationships.
    async fn id(&self) -> ID {
        ID(self.0.id.to_string())
    }

    /// Id of the raw event (the original feed JSON) it came from.
    async fn raw_event_id(&self) -> ID {
        ID(self.0.raw_event_id.to_string())
    }

    async fn event_type(&self) -> EventType {
        self.0.event.event_type.into()
    }

    async fn classifier(&self) -> EventClassifier {
        self.0.event.classifier.into()
    }

    /// Event type code: `ARRI`, `DEPA` (transport); `LOAD`, `DISC`, `GTIN`, `GTOT`, ...
    /// (equipment); `RECE`, `ISSU`, `CONF`, ... (shipment).
    async fn code(&self) -> &str {
        &self.0.event.code
    }

    /// When the event happened (or is expected to).
    async fn event_at(&self) -> DateTime {
        DateTime(self.0.event.event_at)
    }

    /// When the carrier issued this version of the event.
    async fn event_created_at(&self) -> Option<DateTime> {
        dt(self.0.event.event_created_at)
    }

    /// ISO 6346 container number.
    async fn container_number(&self) -> Option<&str> {
        self.0.event.container_number()
    }

    /// Transport document (bill of lading) number.
    async fn bill_of_lading(&self) -> Option<&str> {
        self.0.event.bill_of_lading()
    }

    /// Carrier booking reference.
    async fn booking(&self) -> Option<&str> {
        self.0.event.booking()
    }

    /// UN/LOCODE of the event location.
    async fn locode(&self) -> Option<&str> {
        self.0.event.locode.as_deref()
    }

    async fn location_name(&self) -> Option<&str> {
        self.0.event.location_name.as_deref()
    }

    /// Facility code (SMDG or BIC) of the event location.
    async fn facility_code(&self) -> Option<&str> {
        self.0.event.facility_code.as_deref()
    }

    /// `VESSEL`, `RAIL`, `TRUCK` or `BARGE`.
    async fn mode_of_transport(&self) -> Option<&str> {
        self.0.event.mode_of_transport.as_deref()
    }

    /// IMO number, 7 digits.
    async fn vessel_imo(&self) -> Option<&str> {
        self.0.event.vessel_imo.as_deref()
    }

    async fn vessel_name(&self) -> Option<&str> {
        self.0.event.vessel_name.as_deref()
    }

    /// The import voyage number, or the export one when the import one is unknown.
    async fn voyage(&self) -> Option<&str> {
        let e = &self.0.event;
        e.import_voyage.as_deref().or(e.export_voyage.as_deref())
    }

    async fn delay_reason(&self) -> Option<&str> {
        self.0.event.delay_reason.as_deref()
    }

    async fn remark(&self) -> Option<&str> {
        self.0.event.remark.as_deref()
    }

    /// IANA time zone of the event's location, when known.
    async fn timezone(&self) -> Option<&str> {
        self.0.timezone.as_deref()
    }

    /// The vessel the event names, when it names one.
    async fn vessel(&self) -> Option<Vessel> {
        Vessel::of(
            self.0.event.vessel_imo.as_deref(),
            self.0.event.vessel_name.as_deref(),
        )
    }

    /// The port of the event's location (reference data), when known.
    async fn port(&self) -> Option<Port> {
        Port::of(self.0.event.locode.as_deref())
    }
}

//! GraphQL object types over the pipeline's domain model ([`teu_pipeline::model`]).
//!
//! Each object wraps the model record the store returned and serves its fields unchanged, so
//! the values are those of the `/v2` API (field names in camelCase). Nested records go through
//! the schema's data loader ([`crate::loaders`]).

use async_graphql::{
    Context, Enum, InputValueError, InputValueResult, Object, Scalar, ScalarType, Value, ID,
};
use chrono::{SecondsFormat, Timelike, Utc};
use teu_pipeline::model;

use crate::error;
use crate::loaders::{ContainersKey, EventsKey, ShipmentKey, StoreDataLoader};

/// The `DateTime` scalar: an instant in UTC, written as RFC 3339 with a `Z` suffix, whole
/// seconds plus milliseconds when not zero (`2025-01-23T01:23:45Z`, `2025-01-23T01:23:45.120Z`):
/// the same text as the `/v2` API. Inputs may carry any offset; they are converted to UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateTime(pub chrono::DateTime<Utc>);

/// An instant in UTC: RFC 3339 with `Z`, whole seconds plus milliseconds when not zero
/// (`2025-01-23T01:23:45Z`, `2025-01-23T01:23:45.120Z`), the same text as in `/v2`.
#[Scalar(
    name = "DateTime",
    specified_by_url = "https://datatracker.ietf.org/doc/html/rfc3339"
)]
impl ScalarType for DateTime {
    fn parse(value: Value) -> InputValueResult<Self> {
        match &value {
            Value::String(s) => Ok(DateTime(
                chrono::DateTime::parse_from_rfc3339(s)?.with_timezone(&Utc),
            )),
            _ => Err(InputValueError::expected_type(value)),
        }
    }

    fn to_value(&self) -> Value {
        Value::String(format_timestamp(&self.0))
    }
}

/// The `/v2` timestamp text: RFC 3339 in UTC with `Z`, whole seconds, plus milliseconds only
/// when they are not zero (the store keeps milliseconds; finer digits are dropped).
fn format_timestamp(t: &chrono::DateTime<Utc>) -> String {
    if t.nanosecond() / 1_000_000 == 0 {
        t.to_rfc3339_opts(SecondsFormat::Secs, true)
    } else {
        t.to_rfc3339_opts(SecondsFormat::Millis, true)
    }
}

fn dt(t: Option<chrono::DateTime<Utc>>) -> Option<DateTime> {
    t.map(DateTime)
}

fn loader<'a>(ctx: &Context<'a>) -> async_graphql::Result<&'a StoreDataLoader> {
    ctx.data_opt::<StoreDataLoader>()
        .ok_or_else(error::internal_opaque)
}

/// Container status (spec: States and transitions); `ON_SHIP` is the `/v2` value `on_ship`.
#[derive(Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContainerStatus {
    /// `new`
    New,
    /// `on_ship`
    OnShip,
    /// `available`
    Available,
    /// `not_available`
    NotAvailable,
    /// `grounded`
    Grounded,
    /// `on_rail`
    OnRail,
    /// `picked_up`
    PickedUp,
    /// `off_dock`
    OffDock,
    /// `delivered`
    Delivered,
    /// `dropped`
    Dropped,
    /// `loaded`
    Loaded,
    /// `empty_returned`
    EmptyReturned,
    /// `awaiting_inland_transfer`
    AwaitingInlandTransfer,
}

impl From<model::ContainerStatus> for ContainerStatus {
    fn from(s: model::ContainerStatus) -> Self {
        use model::ContainerStatus as M;
        match s {
            M::New => ContainerStatus::New,
            M::OnShip => ContainerStatus::OnShip,
            M::Available => ContainerStatus::Available,
            M::NotAvailable => ContainerStatus::NotAvailable,
            M::Grounded => ContainerStatus::Grounded,
            M::OnRail => ContainerStatus::OnRail,
            M::PickedUp => ContainerStatus::PickedUp,
            M::OffDock => ContainerStatus::OffDock,
            M::Delivered => ContainerStatus::Delivered,
            M::Dropped => ContainerStatus::Dropped,
            M::Loaded => ContainerStatus::Loaded,
            M::EmptyReturned => ContainerStatus::EmptyReturned,
            M::AwaitingInlandTransfer => ContainerStatus::AwaitingInlandTransfer,
        }
    }
}

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

/// A hold at the POD terminal.
pub struct TerminalHold(pub model::TerminalHold);

/// A hold at the POD terminal (`/v2` terminal_hold).
#[Object]
impl TerminalHold {
    async fn name(&self) -> &str {
        &self.0.name
    }

    /// `pending` or `hold`.
    async fn status(&self) -> &str {
        &self.0.status
    }

    /// Text from the terminal.
    async fn description(&self) -> Option<&str> {
        self.0.description.as_deref()
    }
}

/// A fee at the POD terminal.
pub struct TerminalFee(pub model::TerminalFee);

/// A fee at the POD terminal (`/v2` terminal_fee).
#[Object]
impl TerminalFee {
    /// `demurrage`, `exam`, `extended_dwell_time`, `other` or `total`.
    #[graphql(name = "type")]
    async fn fee_type(&self) -> &str {
        &self.0.fee_type
    }

    /// Amount in the local currency.
    async fn amount(&self) -> f64 {
        self.0.amount
    }

    /// ISO 4217 code.
    async fn currency_code(&self) -> Option<&str> {
        self.0.currency_code.as_deref()
    }
}

/// Last free days of a container.
pub struct ImportDeadlines(pub model::ImportDeadlines);

/// Last free days of a container, all UTC.
#[Object]
impl ImportDeadlines {
    /// Last free day at the POD terminal (local time zone: the container's `podTimezone`).
    async fn pickup_lfd_terminal(&self) -> Option<DateTime> {
        dt(self.0.pickup_lfd_terminal)
    }

    /// Last free day at the rail terminal (local time zone: `finalDestinationTimezone`).
    async fn pickup_lfd_rail(&self) -> Option<DateTime> {
        dt(self.0.pickup_lfd_rail)
    }

    /// Last free day given by the shipping line (local time zone: `finalDestinationTimezone`
    /// or `podTimezone`).
    async fn pickup_lfd_line(&self) -> Option<DateTime> {
        dt(self.0.pickup_lfd_line)
    }
}

/// A container: one piece of equipment during one journey (one shipment). The attributes are
/// those of the `/v2` container resource, with the same values.
pub struct Container(pub model::Container);

/// A container: one piece of equipment during one journey (one shipment). The attributes
/// are those of the `/v2` container resource, with the same values.
#[Object]
impl Container {
    /// The container id (UUID), the same as in `/v2`.
    async fn id(&self) -> ID {
        ID(self.0.id.to_string())
    }

    /// ISO 6346 container number.
    async fn number(&self) -> &str {
        &self.0.number
    }

    async fn ref_numbers(&self) -> &[String] {
        &self.0.ref_numbers
    }

    async fn seal_number(&self) -> Option<&str> {
        self.0.seal_number.as_deref()
    }

    async fn created_at(&self) -> DateTime {
        DateTime(self.0.created_at)
    }

    /// dry, reefer, open top, flat rack, bulk, tank.
    async fn equipment_type(&self) -> Option<&str> {
        self.0.equipment_type.as_deref()
    }

    /// Feet: 10, 20, 40, 45.
    async fn equipment_length(&self) -> Option<i32> {
        self.0.equipment_length
    }

    /// standard or high_cube.
    async fn equipment_height(&self) -> Option<&str> {
        self.0.equipment_height.as_deref()
    }

    /// Pounds.
    async fn weight_in_lbs(&self) -> Option<f64> {
        self.0.weight_in_lbs
    }

    /// The import deadlines coalesced, preferring `pickupLfdLine`.
    async fn pickup_lfd(&self) -> Option<DateTime> {
        dt(self.0.pickup_lfd)
    }

    /// Terminal pickup appointment (local time zone: `podTimezone`).
    async fn pickup_appointment_at(&self) -> Option<DateTime> {
        dt(self.0.pickup_appointment_at)
    }

    /// Whether availability status is received from the terminal.
    async fn availability_known(&self) -> bool {
        self.0.availability_known
    }

    /// Meaningful when `availabilityKnown` is true.
    async fn available_for_pickup(&self) -> Option<bool> {
        self.0.available_for_pickup
    }

    /// Vessel arrival at the port of discharge (POD).
    async fn pod_arrived_at(&self) -> Option<DateTime> {
        dt(self.0.pod_arrived_at)
    }

    /// Discharge at the POD.
    async fn pod_discharged_at(&self) -> Option<DateTime> {
        dt(self.0.pod_discharged_at)
    }

    /// Full-out at the POD; null for inland moves.
    async fn pod_full_out_at(&self) -> Option<DateTime> {
        dt(self.0.pod_full_out_at)
    }

    /// When the terminal was last checked.
    async fn terminal_checked_at(&self) -> Option<DateTime> {
        dt(self.0.terminal_checked_at)
    }

    /// Chassis used at the POD pickup.
    async fn pod_full_out_chassis_number(&self) -> Option<&str> {
        self.0.pod_full_out_chassis_number.as_deref()
    }

    /// Free text location in the POD terminal.
    async fn location_at_pod_terminal(&self) -> Option<&str> {
        self.0.location_at_pod_terminal.as_deref()
    }

    /// Pickup at the final destination for inland moves.
    async fn final_destination_full_out_at(&self) -> Option<DateTime> {
        dt(self.0.final_destination_full_out_at)
    }

    /// When the empty container was returned.
    async fn empty_terminated_at(&self) -> Option<DateTime> {
        dt(self.0.empty_terminated_at)
    }

    async fn holds_at_pod_terminal(&self) -> Vec<TerminalHold> {
        self.0
            .holds_at_pod_terminal
            .iter()
            .cloned()
            .map(TerminalHold)
            .collect()
    }

    async fn fees_at_pod_terminal(&self) -> Vec<TerminalFee> {
        self.0
            .fees_at_pod_terminal
            .iter()
            .cloned()
            .map(TerminalFee)
            .collect()
    }

    /// IANA time zone of the POD.
    async fn pod_timezone(&self) -> Option<&str> {
        self.0.pod_timezone.as_deref()
    }

    /// IANA time zone of the final destination.
    async fn final_destination_timezone(&self) -> Option<&str> {
        self.0.final_destination_timezone.as_deref()
    }

    /// IANA time zone of the empty return.
    async fn empty_terminated_timezone(&self) -> Option<&str> {
        self.0.empty_terminated_timezone.as_deref()
    }

    /// Rail carrier SCAC for the pickup leg (beta).
    async fn pod_rail_carrier_scac(&self) -> Option<&str> {
        self.0.pod_rail_carrier_scac.as_deref()
    }

    /// Rail carrier SCAC for the delivery leg (beta).
    async fn ind_rail_carrier_scac(&self) -> Option<&str> {
        self.0.ind_rail_carrier_scac.as_deref()
    }

    async fn pod_last_tracking_request_at(&self) -> Option<DateTime> {
        dt(self.0.pod_last_tracking_request_at)
    }

    async fn shipment_last_tracking_request_at(&self) -> Option<DateTime> {
        dt(self.0.shipment_last_tracking_request_at)
    }

    async fn pod_rail_loaded_at(&self) -> Option<DateTime> {
        dt(self.0.pod_rail_loaded_at)
    }

    async fn pod_rail_departed_at(&self) -> Option<DateTime> {
        dt(self.0.pod_rail_departed_at)
    }

    async fn ind_eta_at(&self) -> Option<DateTime> {
        dt(self.0.ind_eta_at)
    }

    async fn ind_ata_at(&self) -> Option<DateTime> {
        dt(self.0.ind_ata_at)
    }

    async fn ind_rail_unloaded_at(&self) -> Option<DateTime> {
        dt(self.0.ind_rail_unloaded_at)
    }

    #[graphql(deprecation = "Use `importDeadlines.pickupLfdRail`.")]
    async fn ind_facility_lfd_on(&self) -> Option<DateTime> {
        dt(self.0.ind_facility_lfd_on)
    }

    async fn import_deadlines(&self) -> Option<ImportDeadlines> {
        self.0.import_deadlines.clone().map(ImportDeadlines)
    }

    async fn current_status(&self) -> ContainerStatus {
        self.0.current_status.into()
    }

    /// The shipment (bill of lading) the container travels under.
    async fn shipment(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<Shipment>> {
        let account = error::account(ctx)?;
        let key = ShipmentKey {
            account: account.id,
            shipment: self.0.shipment_id,
        };
        let shipment = loader(ctx)?
            .load_one(key)
            .await
            .map_err(|_| error::internal_opaque())?;
        Ok(shipment.map(Shipment))
    }

    /// The container's route for maps: ports, vessel position, legs with GeoJSON geometry,
    /// and the same FeatureCollection as `/v2/containers/{id}/map_geojson`. Needs the
    /// Routing Data feature (`FORBIDDEN` error otherwise).
    async fn route(
        &self,
        ctx: &Context<'_>,
    ) -> async_graphql::Result<crate::route::ContainerRoute> {
        let account = error::account(ctx)?;
        if !account.routing_data {
            return Err(error::forbidden(
                "Routing Data is a paid feature that this account does not have",
            ));
        }
        let store = ctx
            .data_opt::<teu_pipeline::store::Store>()
            .ok_or_else(error::internal_opaque)?;
        let route = teu_pipeline::route::container_route(store, account.id, self.0.id)
            .await
            .map_err(|e| error::internal(&e))?
            .unwrap_or_default();
        Ok(crate::route::ContainerRoute(route))
    }

    /// The container's events, oldest first (by event time, then id).
    async fn events(&self, ctx: &Context<'_>) -> async_graphql::Result<Vec<TransportEvent>> {
        let account = error::account(ctx)?;
        let key = EventsKey {
            account: account.id,
            container: self.0.id,
        };
        let events = loader(ctx)?
            .load_one(key)
            .await
            .map_err(|_| error::internal_opaque())?;
        Ok(events
            .unwrap_or_default()
            .into_iter()
            .map(TransportEvent)
            .collect())
    }
}

/// A shipment: one bill of lading (or booking). The attributes are those of the `/v2`
/// shipment resource, with the same values.
pub struct Shipment(pub model::Shipment);

/// A shipment: one bill of lading (or booking). The attributes are those of the `/v2`
/// shipment resource, with the same values.
#[Object]
impl Shipment {
    /// The shipment id (UUID), the same as in `/v2`.
    async fn id(&self) -> ID {
        ID(self.0.id.to_string())
    }

    /// The bill of lading number (or the booking reference when no bill of lading is known).
    async fn bill_of_lading_number(&self) -> &str {
        &self.0.bill_of_lading_number
    }

    /// Normalized shipment number used to query the carrier.
    async fn normalized_number(&self) -> &str {
        &self.0.normalized_number
    }

    async fn ref_numbers(&self) -> &[String] {
        &self.0.ref_numbers
    }

    async fn created_at(&self) -> DateTime {
        DateTime(self.0.created_at)
    }

    async fn tags(&self) -> &[String] {
        &self.0.tags
    }

    /// UN/LOCODE of the port of lading.
    async fn port_of_lading_locode(&self) -> Option<&str> {
        self.0.port_of_lading_locode.as_deref()
    }

    async fn port_of_lading_name(&self) -> Option<&str> {
        self.0.port_of_lading_name.as_deref()
    }

    /// UN/LOCODE of the port of discharge.
    async fn port_of_discharge_locode(&self) -> Option<&str> {
        self.0.port_of_discharge_locode.as_deref()
    }

    async fn port_of_discharge_name(&self) -> Option<&str> {
        self.0.port_of_discharge_name.as_deref()
    }

    /// UN/LOCODE of the destination.
    async fn destination_locode(&self) -> Option<&str> {
        self.0.destination_locode.as_deref()
    }

    async fn destination_name(&self) -> Option<&str> {
        self.0.destination_name.as_deref()
    }

    async fn shipping_line_scac(&self) -> &str {
        &self.0.shipping_line_scac
    }

    async fn shipping_line_name(&self) -> &str {
        &self.0.shipping_line_name
    }

    async fn shipping_line_short_name(&self) -> &str {
        &self.0.shipping_line_short_name
    }

    async fn customer_name(&self) -> Option<&str> {
        self.0.customer_name.as_deref()
    }

    async fn pod_vessel_name(&self) -> Option<&str> {
        self.0.pod_vessel_name.as_deref()
    }

    async fn pod_vessel_imo(&self) -> Option<&str> {
        self.0.pod_vessel_imo.as_deref()
    }

    async fn pod_voyage_number(&self) -> Option<&str> {
        self.0.pod_voyage_number.as_deref()
    }

    /// Estimated departure from the port of lading (local time zone: `polTimezone`).
    async fn pol_etd_at(&self) -> Option<DateTime> {
        dt(self.0.pol_etd_at)
    }

    /// Actual departure from the port of lading.
    async fn pol_atd_at(&self) -> Option<DateTime> {
        dt(self.0.pol_atd_at)
    }

    /// Estimated arrival at the port of discharge (local time zone: `podTimezone`).
    async fn pod_eta_at(&self) -> Option<DateTime> {
        dt(self.0.pod_eta_at)
    }

    /// First estimated arrival at the port of discharge.
    async fn pod_original_eta_at(&self) -> Option<DateTime> {
        dt(self.0.pod_original_eta_at)
    }

    /// Actual arrival at the port of discharge.
    async fn pod_ata_at(&self) -> Option<DateTime> {
        dt(self.0.pod_ata_at)
    }

    /// Estimated arrival at the destination (local time zone: `destinationTimezone`).
    async fn destination_eta_at(&self) -> Option<DateTime> {
        dt(self.0.destination_eta_at)
    }

    /// Actual arrival at the destination.
    async fn destination_ata_at(&self) -> Option<DateTime> {
        dt(self.0.destination_ata_at)
    }

    /// IANA time zone of the port of lading.
    async fn pol_timezone(&self) -> Option<&str> {
        self.0.pol_timezone.as_deref()
    }

    /// IANA time zone of the port of discharge.
    async fn pod_timezone(&self) -> Option<&str> {
        self.0.pod_timezone.as_deref()
    }

    /// IANA time zone of the destination.
    async fn destination_timezone(&self) -> Option<&str> {
        self.0.destination_timezone.as_deref()
    }

    /// Last attempt to update from the shipping line.
    async fn line_tracking_last_attempted_at(&self) -> Option<DateTime> {
        dt(self.0.line_tracking_last_attempted_at)
    }

    /// Last successful update from the shipping line.
    async fn line_tracking_last_succeeded_at(&self) -> Option<DateTime> {
        dt(self.0.line_tracking_last_succeeded_at)
    }

    /// When checking at the shipping line stopped.
    async fn line_tracking_stopped_at(&self) -> Option<DateTime> {
        dt(self.0.line_tracking_stopped_at)
    }

    /// all_containers_terminated, past_arrival_window, past_full_out_window,
    /// no_updates_at_line, cancelled_by_user, booking_cancelled, or null.
    async fn line_tracking_stopped_reason(&self) -> Option<&str> {
        self.0.line_tracking_stopped_reason.as_deref()
    }

    /// The shipment's containers, by container number.
    async fn containers(&self, ctx: &Context<'_>) -> async_graphql::Result<Vec<Container>> {
        let account = error::account(ctx)?;
        let key = ContainersKey {
            account: account.id,
            shipment: self.0.id,
        };
        let containers = loader(ctx)?
            .load_one(key)
            .await
            .map_err(|_| error::internal_opaque())?;
        Ok(containers
            .unwrap_or_default()
            .into_iter()
            .map(Container)
            .collect())
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
        self.0.event.container_number.as_deref()
    }

    /// Transport document (bill of lading) number.
    async fn bill_of_lading(&self) -> Option<&str> {
        self.0.event.bill_of_lading.as_deref()
    }

    /// Carrier booking reference.
    async fn booking(&self) -> Option<&str> {
        self.0.event.booking.as_deref()
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_written_like_v2() {
        let t = |s: &str| s.parse::<chrono::DateTime<Utc>>().unwrap();
        assert_eq!(
            format_timestamp(&t("2025-01-23T01:23:45Z")),
            "2025-01-23T01:23:45Z"
        );
        assert_eq!(
            format_timestamp(&t("2025-01-23T01:23:45.12Z")),
            "2025-01-23T01:23:45.120Z"
        );
        assert_eq!(
            format_timestamp(&t("2025-01-23T02:23:45.123456+01:00")),
            "2025-01-23T01:23:45.123Z"
        );
        assert_eq!(
            format_timestamp(&t("2025-01-23T01:23:45.0004Z")),
            "2025-01-23T01:23:45Z"
        );
        let parsed =
            <DateTime as ScalarType>::parse(Value::String("2025-01-23T02:23:45+01:00".into()));
        assert_eq!(parsed.unwrap().0, t("2025-01-23T01:23:45Z"));
    }
}

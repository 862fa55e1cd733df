//! GraphQL object types over the pipeline's domain model ([`teu_pipeline::model`]).
//!
//! Each object wraps the model record the store returned and serves its fields unchanged, so
//! the values are those of the `/v2` API (field names in camelCase). Nested records go through
//! the schema's data loader ([`crate::loaders`]).

use async_graphql::{
    Context, Enum, InputValueError, InputValueResult, Object, Scalar, ScalarType, SimpleObject,
    Value, ID,
};
use chrono::{SecondsFormat, Timelike, Utc};
use teu_pipeline::model;

use crate::error;
pub use crate::events::TransportEvent;
use crate::events::{ContainerTransportEvent, RawEvent};
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

pub(crate) fn dt(t: Option<chrono::DateTime<Utc>>) -> Option<DateTime> {
    t.map(DateTime)
}

pub(crate) fn loader<'a>(ctx: &Context<'a>) -> async_graphql::Result<&'a StoreDataLoader> {
    ctx.data_opt::<StoreDataLoader>()
        .ok_or_else(error::internal_opaque)
}

/// Container status (interface.md: States and transitions); `ON_SHIP` is the `/v2` value `on_ship`.
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

/// Status of a hold at the POD terminal (`/v2` terminal_hold.status).
#[derive(Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldStatus {
    /// `pending`: the hold may still be placed.
    Pending,
    /// `hold`: the container is held.
    Hold,
}

impl HoldStatus {
    /// The `/v2` value: `pending` is [`HoldStatus::Pending`], anything else (the terminal
    /// feeds only write `hold`) [`HoldStatus::Hold`].
    pub fn from_v2(s: &str) -> Self {
        if s == "pending" {
            HoldStatus::Pending
        } else {
            HoldStatus::Hold
        }
    }
}

/// Type of a fee at the POD terminal (`/v2` terminal_fee.type).
#[derive(Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeeType {
    /// `demurrage`
    Demurrage,
    /// `exam`
    Exam,
    /// `extended_dwell_time`
    ExtendedDwellTime,
    /// `other`
    Other,
    /// `total`
    Total,
}

impl FeeType {
    /// The `/v2` value; anything unknown is [`FeeType::Other`] (the feeds map unknown fee
    /// names to `other` already).
    pub fn from_v2(s: &str) -> Self {
        match s {
            "demurrage" => FeeType::Demurrage,
            "exam" => FeeType::Exam,
            "extended_dwell_time" => FeeType::ExtendedDwellTime,
            "total" => FeeType::Total,
            _ => FeeType::Other,
        }
    }
}

/// Why checking a shipment at the shipping line stopped (`/v2`
/// `line_tracking_stopped_reason`).
#[derive(Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineTrackingStoppedReason {
    /// `all_containers_terminated`
    AllContainersTerminated,
    /// `past_arrival_window`
    PastArrivalWindow,
    /// `past_full_out_window`
    PastFullOutWindow,
    /// `no_updates_at_line`
    NoUpdatesAtLine,
    /// `cancelled_by_user` (the `stopTracking` mutation)
    CancelledByUser,
    /// `booking_cancelled`
    BookingCancelled,
}

impl LineTrackingStoppedReason {
    /// The enum value of a `/v2` value; `None` for an unknown one.
    pub fn from_v2(s: &str) -> Option<Self> {
        Some(match s {
            "all_containers_terminated" => Self::AllContainersTerminated,
            "past_arrival_window" => Self::PastArrivalWindow,
            "past_full_out_window" => Self::PastFullOutWindow,
            "no_updates_at_line" => Self::NoUpdatesAtLine,
            "cancelled_by_user" => Self::CancelledByUser,
            "booking_cancelled" => Self::BookingCancelled,
            _ => return None,
        })
    }
}

/// A hold at the POD terminal (`/v2` terminal_hold).
#[Object]
impl TerminalHold {
    async fn name(&self) -> &str {
        &self.0.name
    }

    /// `PENDING` or `HOLD`.
    async fn status(&self) -> HoldStatus {
        HoldStatus::from_v2(&self.0.status)
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
    /// `DEMURRAGE`, `EXAM`, `EXTENDED_DWELL_TIME`, `OTHER` or `TOTAL`.
    #[graphql(name = "type")]
    async fn fee_type(&self) -> FeeType {
        FeeType::from_v2(&self.0.fee_type)
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

    /// When the container last changed (new feed data): the `/v2` list order and what the
    /// `updatedAfter` filter compares.
    async fn updated_at(&self) -> DateTime {
        DateTime(self.0.refreshed_at)
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

    /// The terminal at the port of discharge, when known (`/v2` relationship `pod_terminal`).
    async fn pod_terminal(&self) -> Option<Terminal> {
        Terminal::of(self.0.pod_terminal_id)
    }

    /// Where the container is to be picked up, when known (`/v2` relationship
    /// `pickup_facility`).
    async fn pickup_facility(&self) -> Option<Terminal> {
        Terminal::of(self.0.pickup_facility_id)
    }

    /// Whether the container has holds at the POD terminal (`holdsAtPodTerminal` not empty).
    async fn has_holds(&self) -> bool {
        !self.0.holds_at_pod_terminal.is_empty()
    }

    /// The vessels the container's events name, in the order first named (by IMO number,
    /// else by name).
    async fn vessels(&self, ctx: &Context<'_>) -> async_graphql::Result<Vec<Vessel>> {
        let account = error::account(ctx)?;
        let key = EventsKey {
            account: account.id,
            container: self.0.id,
        };
        let events = loader(ctx)?
            .load_one(key)
            .await
            .map_err(|_| error::internal_opaque())?
            .unwrap_or_default();
        let mut out: Vec<Vessel> = Vec::new();
        for e in &events {
            if let Some(v) = Vessel::of(
                e.event.vessel_imo.as_deref(),
                e.event.vessel_name.as_deref(),
            ) {
                let same = |o: &Vessel| match (&o.imo, &v.imo) {
                    (Some(a), Some(b)) => a == b,
                    (None, None) => o.name == v.name,
                    _ => false,
                };
                if !out.iter().any(same) {
                    out.push(v);
                }
            }
        }
        Ok(out)
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

    /// The container's actual events that have a Terminal49 name, oldest first: the data of
    /// `/v2/containers/{id}/transport_events`.
    async fn transport_events(
        &self,
        ctx: &Context<'_>,
    ) -> async_graphql::Result<Vec<ContainerTransportEvent>> {
        crate::events::transport_events(ctx, &self.0).await
    }

    /// Every stored event of the container, actual and estimated, oldest first: the data of
    /// `/v2/containers/{id}/raw_events`.
    async fn raw_events(&self, ctx: &Context<'_>) -> async_graphql::Result<Vec<RawEvent>> {
        crate::events::raw_events(ctx, &self.0).await
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

    /// When the shipment last changed (new feed data, tags, tracking stopped or resumed).
    async fn updated_at(&self) -> DateTime {
        DateTime(self.0.refreshed_at)
    }

    /// The shipment's tags, sorted (`addShipmentTags`, `removeShipmentTags`).
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

    /// Why checking at the shipping line stopped; `CANCELLED_BY_USER` after `stopTracking`.
    async fn line_tracking_stopped_reason(&self) -> Option<LineTrackingStoppedReason> {
        self.0
            .line_tracking_stopped_reason
            .as_deref()
            .and_then(LineTrackingStoppedReason::from_v2)
    }

    /// The port of lading (reference data), when its UN/LOCODE is known.
    async fn port_of_lading(&self) -> Option<Port> {
        Port::of(self.0.port_of_lading_locode.as_deref())
    }

    /// The port of discharge (reference data), when its UN/LOCODE is known.
    async fn port_of_discharge(&self) -> Option<Port> {
        Port::of(self.0.port_of_discharge_locode.as_deref())
    }

    /// The destination, when it is a known port (an inland place is not a port: null).
    async fn destination(&self) -> Option<Port> {
        Port::of(self.0.destination_locode.as_deref())
    }

    /// The terminal at the port of discharge that most of the shipment's containers name, when
    /// known (`/v2` relationship `pod_terminal`).
    async fn pod_terminal(&self) -> Option<Terminal> {
        Terminal::of(self.0.pod_terminal_id)
    }

    /// The vessel that brings the shipment to the port of discharge, when known.
    async fn pod_vessel(&self) -> Option<Vessel> {
        Vessel::of(
            self.0.pod_vessel_imo.as_deref(),
            self.0.pod_vessel_name.as_deref(),
        )
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

/// A port (reference data shared by all accounts).
pub struct Port(pub model::Port);

impl Port {
    /// The port with this UN/LOCODE in the bundled reference data.
    pub fn of(locode: Option<&str>) -> Option<Port> {
        let locode = locode?;
        teu_pipeline::reference::bundled()
            .0
            .get(locode)
            .cloned()
            .map(Port)
    }
}

/// A port (UN/LOCODE reference data, the same for every account).
#[Object]
impl Port {
    /// The port id (UUID v5 of the UN/LOCODE), the same as `/v2` `port` relationships.
    async fn id(&self) -> ID {
        ID(teu_pipeline::ids::port_id(&self.0.locode).to_string())
    }

    /// UN/LOCODE.
    async fn locode(&self) -> &str {
        &self.0.locode
    }

    async fn name(&self) -> &str {
        &self.0.name
    }

    /// ISO 3166 country code.
    async fn country_code(&self) -> &str {
        &self.0.country_code
    }

    async fn country(&self) -> Option<&str> {
        self.0.country.as_deref()
    }

    /// State or province, when known.
    async fn state(&self) -> Option<&str> {
        self.0.state.as_deref()
    }

    /// Postal abbreviation of the state or province (US and Canada), when known.
    async fn state_abbr(&self) -> Option<&str> {
        self.0.state_abbr.as_deref()
    }

    /// WGS84 latitude.
    async fn latitude(&self) -> Option<f64> {
        self.0.latitude
    }

    /// WGS84 longitude.
    async fn longitude(&self) -> Option<f64> {
        self.0.longitude
    }

    /// IANA time zone.
    async fn timezone(&self) -> Option<&str> {
        self.0.time_zone.as_deref()
    }
}

/// A container terminal (reference data shared by all accounts).
pub struct Terminal(pub teu_pipeline::terminals::Terminal);

impl Terminal {
    /// The terminal with this id in the bundled reference data.
    pub fn of(id: Option<uuid::Uuid>) -> Option<Terminal> {
        teu_pipeline::terminals::bundled()
            .get(id?)
            .cloned()
            .map(Terminal)
    }
}

/// A container terminal (DCSA facility list and FIRMS codes, the same for every account).
#[Object]
impl Terminal {
    /// The terminal id, the same as `/v2` `terminal` relationships.
    async fn id(&self) -> ID {
        ID(self.0.id.to_string())
    }

    async fn name(&self) -> &str {
        &self.0.name
    }

    /// UN/LOCODE of the terminal's port.
    async fn locode(&self) -> &str {
        &self.0.locode
    }

    /// SMDG terminal code.
    async fn smdg_code(&self) -> Option<&str> {
        self.0.smdg_code.as_deref()
    }

    /// BIC facility code.
    async fn bic_code(&self) -> Option<&str> {
        self.0.bic_code.as_deref()
    }

    /// US CBP FIRMS code or Canadian CBSA sub-location code.
    async fn firms_code(&self) -> Option<&str> {
        self.0.firms_code.as_deref()
    }

    /// IANA time zone of the terminal's port.
    async fn timezone(&self) -> Option<&str> {
        self.0.time_zone.as_deref()
    }

    /// The terminal's port.
    async fn port(&self) -> Option<Port> {
        Port::of(Some(&self.0.locode))
    }
}

/// A vessel as the carrier events name it.
#[derive(SimpleObject, Debug, Clone, PartialEq, Eq)]
pub struct Vessel {
    /// IMO number, 7 digits, when given.
    pub imo: Option<String>,
    /// Vessel name, when given.
    pub name: Option<String>,
}

impl Vessel {
    /// A vessel from an IMO number and a name; `None` when both are missing.
    pub fn of(imo: Option<&str>, name: Option<&str>) -> Option<Vessel> {
        if imo.is_none() && name.is_none() {
            return None;
        }
        Some(Vessel {
            imo: imo.map(str::to_string),
            name: name.map(str::to_string),
        })
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

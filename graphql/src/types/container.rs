//! `Container`: one piece of equipment during one journey, and its status.

use async_graphql::{ComplexObject, Context, Enum, SimpleObject, ID};
use teu_pipeline::model;
use uuid::Uuid;

use super::event::container_events;
use super::named_event::{self, ContainerTransportEvent, RawEvent};
use super::shipment::load_shipment;
use super::{
    dt, ContainerRoute, DateTime, ImportDeadlines, InPlace, Shipment, Terminal, TerminalFee,
    TerminalHold, TransportEvents, Vessel,
};
use crate::context::store;
use crate::error;

/// Container status (interface.md: States and transitions); `ON_SHIP` is the `/v2` value `on_ship`.
#[derive(Enum, Debug, Clone, Copy, PartialEq, Eq)]
#[graphql(remote = "model::ContainerStatus")]
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

/// A container: one piece of equipment during one journey (one shipment). The attributes
/// are those of the `/v2` container resource, with the same values.
// Its fields are resolved one after another (`serial`), not as concurrent futures: nearly
// all are plain values or answered from the page's prefetch, and async-graphql's concurrent
// resolution (a `FuturesUnordered` per object) cost about a tenth of the GraphQL page's CPU
// (docs/NOTES.md, twenty-second session). Lists of containers are still resolved concurrently,
// so the data loaders still batch across the list.
// The queries and `Shipment.containers` serve it through `InPlace`, which awaits each field
// in place without boxing it; `serial` is how a selection `InPlace` hands back resolves.
#[derive(SimpleObject, Debug, Clone, PartialEq)]
#[graphql(complex, serial)]
pub struct Container {
    /// The container id (UUID), the same as in `/v2`.
    id: ID,
    /// ISO 6346 container number.
    number: String,
    ref_numbers: Vec<String>,
    seal_number: Option<String>,
    created_at: DateTime,
    /// When the container last changed (new feed data): the `/v2` list order and what the
    /// `updatedAfter` filter compares.
    updated_at: DateTime,
    /// dry, reefer, open top, flat rack, bulk, tank.
    equipment_type: Option<String>,
    /// Feet: 10, 20, 40, 45.
    equipment_length: Option<i32>,
    /// standard or high_cube.
    equipment_height: Option<String>,
    /// Pounds.
    weight_in_lbs: Option<f64>,
    /// The import deadlines coalesced, preferring `pickupLfdLine`.
    pickup_lfd: Option<DateTime>,
    /// Terminal pickup appointment (local time zone: `podTimezone`).
    pickup_appointment_at: Option<DateTime>,
    /// Whether availability status is received from the terminal.
    availability_known: bool,
    /// Meaningful when `availabilityKnown` is true.
    available_for_pickup: Option<bool>,
    /// Vessel arrival at the port of discharge (POD).
    pod_arrived_at: Option<DateTime>,
    /// Discharge at the POD.
    pod_discharged_at: Option<DateTime>,
    /// Full-out at the POD; null for inland moves.
    pod_full_out_at: Option<DateTime>,
    /// When the terminal was last checked.
    terminal_checked_at: Option<DateTime>,
    /// Chassis used at the POD pickup.
    pod_full_out_chassis_number: Option<String>,
    /// Free text location in the POD terminal.
    location_at_pod_terminal: Option<String>,
    /// Pickup at the final destination for inland moves.
    final_destination_full_out_at: Option<DateTime>,
    /// When the empty container was returned.
    empty_terminated_at: Option<DateTime>,
    holds_at_pod_terminal: Vec<TerminalHold>,
    fees_at_pod_terminal: Vec<TerminalFee>,
    /// IANA time zone of the POD.
    pod_timezone: Option<String>,
    /// IANA time zone of the final destination.
    final_destination_timezone: Option<String>,
    /// IANA time zone of the empty return.
    empty_terminated_timezone: Option<String>,
    /// Rail carrier SCAC for the pickup leg (beta).
    pod_rail_carrier_scac: Option<String>,
    /// Rail carrier SCAC for the delivery leg (beta).
    ind_rail_carrier_scac: Option<String>,
    pod_last_tracking_request_at: Option<DateTime>,
    shipment_last_tracking_request_at: Option<DateTime>,
    pod_rail_loaded_at: Option<DateTime>,
    pod_rail_departed_at: Option<DateTime>,
    ind_eta_at: Option<DateTime>,
    ind_ata_at: Option<DateTime>,
    ind_rail_unloaded_at: Option<DateTime>,
    #[graphql(deprecation = "Use `importDeadlines.pickupLfdRail`.")]
    ind_facility_lfd_on: Option<DateTime>,
    import_deadlines: Option<ImportDeadlines>,
    current_status: ContainerStatus,
    // Not fields of the schema: what the nested fields look up.
    #[graphql(skip)]
    container_id: Uuid,
    #[graphql(skip)]
    shipment_id: Uuid,
    #[graphql(skip)]
    pod_terminal_id: Option<Uuid>,
    #[graphql(skip)]
    pickup_facility_id: Option<Uuid>,
}

// The plain fields (scalars, enums, lists of them) written as JSON text when the object is
// served as text (`super::text`); the others are resolved by async-graphql.
super::text::plain_fields!(Container {
    "id" => id,
    "number" => number,
    "refNumbers" => ref_numbers,
    "sealNumber" => seal_number,
    "createdAt" => created_at,
    "updatedAt" => updated_at,
    "equipmentType" => equipment_type,
    "equipmentLength" => equipment_length,
    "equipmentHeight" => equipment_height,
    "weightInLbs" => weight_in_lbs,
    "pickupLfd" => pickup_lfd,
    "pickupAppointmentAt" => pickup_appointment_at,
    "availabilityKnown" => availability_known,
    "availableForPickup" => available_for_pickup,
    "podArrivedAt" => pod_arrived_at,
    "podDischargedAt" => pod_discharged_at,
    "podFullOutAt" => pod_full_out_at,
    "terminalCheckedAt" => terminal_checked_at,
    "podFullOutChassisNumber" => pod_full_out_chassis_number,
    "locationAtPodTerminal" => location_at_pod_terminal,
    "finalDestinationFullOutAt" => final_destination_full_out_at,
    "emptyTerminatedAt" => empty_terminated_at,
    "podTimezone" => pod_timezone,
    "finalDestinationTimezone" => final_destination_timezone,
    "emptyTerminatedTimezone" => empty_terminated_timezone,
    "podRailCarrierScac" => pod_rail_carrier_scac,
    "indRailCarrierScac" => ind_rail_carrier_scac,
    "podLastTrackingRequestAt" => pod_last_tracking_request_at,
    "shipmentLastTrackingRequestAt" => shipment_last_tracking_request_at,
    "podRailLoadedAt" => pod_rail_loaded_at,
    "podRailDepartedAt" => pod_rail_departed_at,
    "indEtaAt" => ind_eta_at,
    "indAtaAt" => ind_ata_at,
    "indRailUnloadedAt" => ind_rail_unloaded_at,
    "indFacilityLfdOn" => ind_facility_lfd_on,
    "currentStatus" => current_status,
});

impl From<model::Container> for Container {
    /// The GraphQL container of a stored one. Every model field is named here, so a field
    /// added to the model does not compile until it is served or left out on purpose.
    fn from(c: model::Container) -> Self {
        let model::Container {
            id,
            account_id: _,
            shipment_id,
            number,
            ref_numbers,
            seal_number,
            created_at,
            refreshed_at,
            equipment_type,
            equipment_length,
            equipment_height,
            weight_in_lbs,
            pickup_lfd,
            pickup_appointment_at,
            availability_known,
            available_for_pickup,
            pod_arrived_at,
            pod_discharged_at,
            pod_full_out_at,
            terminal_checked_at,
            pod_full_out_chassis_number,
            location_at_pod_terminal,
            final_destination_full_out_at,
            empty_terminated_at,
            holds_at_pod_terminal,
            fees_at_pod_terminal,
            pod_timezone,
            final_destination_timezone,
            empty_terminated_timezone,
            pod_rail_carrier_scac,
            ind_rail_carrier_scac,
            pod_last_tracking_request_at,
            shipment_last_tracking_request_at,
            pod_rail_loaded_at,
            pod_rail_departed_at,
            ind_eta_at,
            ind_ata_at,
            ind_rail_unloaded_at,
            ind_facility_lfd_on,
            import_deadlines,
            current_status,
            pod_locode: _,
            pod_terminal_id,
            pickup_facility_id,
            last_movement_at: _,
        } = c;
        Container {
            id: ID(id.to_string()),
            number: number.into_string(),
            ref_numbers,
            seal_number,
            created_at: DateTime(created_at),
            updated_at: DateTime(refreshed_at),
            equipment_type,
            equipment_length,
            equipment_height,
            weight_in_lbs,
            pickup_lfd: dt(pickup_lfd),
            pickup_appointment_at: dt(pickup_appointment_at),
            availability_known,
            available_for_pickup,
            pod_arrived_at: dt(pod_arrived_at),
            pod_discharged_at: dt(pod_discharged_at),
            pod_full_out_at: dt(pod_full_out_at),
            terminal_checked_at: dt(terminal_checked_at),
            pod_full_out_chassis_number,
            location_at_pod_terminal,
            final_destination_full_out_at: dt(final_destination_full_out_at),
            empty_terminated_at: dt(empty_terminated_at),
            holds_at_pod_terminal: holds_at_pod_terminal.into_iter().map(Into::into).collect(),
            fees_at_pod_terminal: fees_at_pod_terminal.into_iter().map(Into::into).collect(),
            pod_timezone,
            final_destination_timezone,
            empty_terminated_timezone,
            pod_rail_carrier_scac,
            ind_rail_carrier_scac,
            pod_last_tracking_request_at: dt(pod_last_tracking_request_at),
            shipment_last_tracking_request_at: dt(shipment_last_tracking_request_at),
            pod_rail_loaded_at: dt(pod_rail_loaded_at),
            pod_rail_departed_at: dt(pod_rail_departed_at),
            ind_eta_at: dt(ind_eta_at),
            ind_ata_at: dt(ind_ata_at),
            ind_rail_unloaded_at: dt(ind_rail_unloaded_at),
            ind_facility_lfd_on: dt(ind_facility_lfd_on),
            import_deadlines: import_deadlines.map(Into::into),
            current_status: current_status.into(),
            container_id: id,
            shipment_id,
            pod_terminal_id,
            pickup_facility_id,
        }
    }
}

impl Container {
    /// The container `id` of shipment `shipment` when the selection asks for nothing but its
    /// id ([`container_ids_only`](crate::loaders::container_ids_only)): `id` (and
    /// `__typename`) are its only fields with values; the others hold empty values and are
    /// never resolved, as the selection does not ask for them.
    pub(crate) fn id_only(id: Uuid, shipment: Uuid) -> Self {
        Container {
            id: ID(id.to_string()),
            number: String::new(),
            ref_numbers: Vec::new(),
            seal_number: None,
            created_at: DateTime(chrono::DateTime::UNIX_EPOCH),
            updated_at: DateTime(chrono::DateTime::UNIX_EPOCH),
            equipment_type: None,
            equipment_length: None,
            equipment_height: None,
            weight_in_lbs: None,
            pickup_lfd: None,
            pickup_appointment_at: None,
            availability_known: false,
            available_for_pickup: None,
            pod_arrived_at: None,
            pod_discharged_at: None,
            pod_full_out_at: None,
            terminal_checked_at: None,
            pod_full_out_chassis_number: None,
            location_at_pod_terminal: None,
            final_destination_full_out_at: None,
            empty_terminated_at: None,
            holds_at_pod_terminal: Vec::new(),
            fees_at_pod_terminal: Vec::new(),
            pod_timezone: None,
            final_destination_timezone: None,
            empty_terminated_timezone: None,
            pod_rail_carrier_scac: None,
            ind_rail_carrier_scac: None,
            pod_last_tracking_request_at: None,
            shipment_last_tracking_request_at: None,
            pod_rail_loaded_at: None,
            pod_rail_departed_at: None,
            ind_eta_at: None,
            ind_ata_at: None,
            ind_rail_unloaded_at: None,
            ind_facility_lfd_on: None,
            import_deadlines: None,
            current_status: ContainerStatus::New,
            container_id: id,
            shipment_id: shipment,
            pod_terminal_id: None,
            pickup_facility_id: None,
        }
    }
}

/// The fields of a container that are looked up: reference data, the shipment, the events
/// and the route.
#[ComplexObject]
impl Container {
    /// The terminal at the port of discharge, when known (`/v2` relationship `pod_terminal`).
    async fn pod_terminal(&self) -> Option<Terminal> {
        Terminal::of(self.pod_terminal_id)
    }

    /// Where the container is to be picked up, when known (`/v2` relationship
    /// `pickup_facility`).
    async fn pickup_facility(&self) -> Option<Terminal> {
        Terminal::of(self.pickup_facility_id)
    }

    /// Whether the container has holds at the POD terminal (`holdsAtPodTerminal` not empty).
    async fn has_holds(&self) -> bool {
        !self.holds_at_pod_terminal.is_empty()
    }

    /// The vessels the container's events name, in the order first named (by IMO number,
    /// else by name).
    async fn vessels(&self, ctx: &Context<'_>) -> async_graphql::Result<Vec<Vessel>> {
        let events = container_events(ctx, self.container_id).await?;
        Ok(Vessel::distinct(events.iter().map(|e| &e.event)))
    }

    /// The shipment (bill of lading) the container travels under.
    async fn shipment(
        &self,
        ctx: &Context<'_>,
    ) -> async_graphql::Result<Option<InPlace<Shipment>>> {
        Ok(load_shipment(ctx, self.shipment_id)
            .await?
            .map(|s| InPlace(Shipment::from(s))))
    }

    /// The container's route for maps: ports, vessel position, legs with GeoJSON geometry,
    /// and the same FeatureCollection as `/v2/containers/{id}/map_geojson`. Needs the
    /// Routing Data feature (`FORBIDDEN` error otherwise).
    async fn route(&self, ctx: &Context<'_>) -> async_graphql::Result<ContainerRoute> {
        let account = error::account(ctx)?;
        if !account.routing_data {
            return Err(error::forbidden(
                "Routing Data is a paid feature that this account does not have",
            ));
        }
        let route =
            teu_pipeline::route::container_route(store(ctx)?, account.id, self.container_id)
                .await
                .map_err(|e| error::internal(&e))?
                .unwrap_or_default();
        Ok(ContainerRoute(route))
    }

    /// The container's events, oldest first (by event time, then id).
    async fn events(&self, ctx: &Context<'_>) -> async_graphql::Result<TransportEvents> {
        super::event::events_of_container(ctx, self.container_id).await
    }

    /// The container's actual events that have a Terminal49 name, oldest first: the data of
    /// `/v2/containers/{id}/transport_events`.
    async fn transport_events(
        &self,
        ctx: &Context<'_>,
    ) -> async_graphql::Result<Vec<ContainerTransportEvent>> {
        named_event::transport_events(ctx, self.container_id, self.shipment_id).await
    }

    /// Every stored event of the container, actual and estimated, oldest first: the data of
    /// `/v2/containers/{id}/raw_events`.
    async fn raw_events(&self, ctx: &Context<'_>) -> async_graphql::Result<Vec<RawEvent>> {
        named_event::raw_events(ctx, self.container_id, self.shipment_id).await
    }
}

//! `Container`: one piece of equipment during one journey, and its status.

use async_graphql::{Context, Enum, Object, ID};
use teu_pipeline::model;

use super::{
    dt, ContainerRoute, ContainerTransportEvent, DateTime, ImportDeadlines, RawEvent, Shipment,
    Terminal, TerminalFee, TerminalHold, TransportEvent, Vessel,
};
use crate::context::loader;
use crate::error;
use crate::loaders::{EventsKey, ShipmentKey};

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
    async fn route(&self, ctx: &Context<'_>) -> async_graphql::Result<ContainerRoute> {
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
        Ok(ContainerRoute(route))
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
        super::named_event::transport_events(ctx, &self.0).await
    }

    /// Every stored event of the container, actual and estimated, oldest first: the data of
    /// `/v2/containers/{id}/raw_events`.
    async fn raw_events(&self, ctx: &Context<'_>) -> async_graphql::Result<Vec<RawEvent>> {
        super::named_event::raw_events(ctx, &self.0).await
    }
}

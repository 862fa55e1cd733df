//! `Shipment`: one bill of lading (or booking).

use async_graphql::{ComplexObject, Context, Enum, SimpleObject, ID};
use teu_pipeline::model;
use uuid::Uuid;

use super::{dt, Container, DateTime, InPlace, Port, Terminal, Vessel};
use crate::context::loader;
use crate::error;
use crate::loaders::{container_ids_only, ContainerIdsKey, ContainersKey, ShipmentKey};

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

/// A shipment: one bill of lading (or booking). The attributes are those of the `/v2`
/// shipment resource, with the same values.
// Its fields are resolved one after another (`serial`), not as concurrent futures: nearly
// all are plain values or answered from the page's prefetch, and async-graphql's concurrent
// resolution (a `FuturesUnordered` per object) cost about a tenth of the GraphQL page's CPU
// (docs/NOTES.md, twenty-second session). Lists of shipments are still resolved concurrently,
// so the data loaders still batch across the list.
// The queries and `Container.shipment` serve it through `InPlace`, which awaits each field
// in place without boxing it; `serial` is how a selection `InPlace` hands back resolves.
#[derive(SimpleObject, Debug, Clone)]
#[graphql(complex, serial)]
pub struct Shipment {
    /// The shipment id (UUID), the same as in `/v2`.
    id: ID,
    /// The bill of lading number (or the booking reference when no bill of lading is known).
    bill_of_lading_number: String,
    /// Normalized shipment number used to query the carrier.
    normalized_number: String,
    ref_numbers: Vec<String>,
    created_at: DateTime,
    /// When the shipment last changed (new feed data, tags, tracking stopped or resumed).
    updated_at: DateTime,
    /// The shipment's tags, sorted (`addShipmentTags`, `removeShipmentTags`).
    tags: Vec<String>,
    /// UN/LOCODE of the port of lading.
    port_of_lading_locode: Option<String>,
    port_of_lading_name: Option<String>,
    /// UN/LOCODE of the port of discharge.
    port_of_discharge_locode: Option<String>,
    port_of_discharge_name: Option<String>,
    /// UN/LOCODE of the destination.
    destination_locode: Option<String>,
    destination_name: Option<String>,
    shipping_line_scac: String,
    shipping_line_name: String,
    shipping_line_short_name: String,
    customer_name: Option<String>,
    pod_vessel_name: Option<String>,
    pod_vessel_imo: Option<String>,
    pod_voyage_number: Option<String>,
    /// Estimated departure from the port of lading (local time zone: `polTimezone`).
    pol_etd_at: Option<DateTime>,
    /// Actual departure from the port of lading.
    pol_atd_at: Option<DateTime>,
    /// Estimated arrival at the port of discharge (local time zone: `podTimezone`).
    pod_eta_at: Option<DateTime>,
    /// First estimated arrival at the port of discharge.
    pod_original_eta_at: Option<DateTime>,
    /// Actual arrival at the port of discharge.
    pod_ata_at: Option<DateTime>,
    /// Estimated arrival at the destination (local time zone: `destinationTimezone`).
    destination_eta_at: Option<DateTime>,
    /// Actual arrival at the destination.
    destination_ata_at: Option<DateTime>,
    /// IANA time zone of the port of lading.
    pol_timezone: Option<String>,
    /// IANA time zone of the port of discharge.
    pod_timezone: Option<String>,
    /// IANA time zone of the destination.
    destination_timezone: Option<String>,
    /// Last attempt to update from the shipping line.
    line_tracking_last_attempted_at: Option<DateTime>,
    /// Last successful update from the shipping line.
    line_tracking_last_succeeded_at: Option<DateTime>,
    /// When checking at the shipping line stopped.
    line_tracking_stopped_at: Option<DateTime>,
    /// Why checking at the shipping line stopped; `CANCELLED_BY_USER` after `stopTracking`.
    line_tracking_stopped_reason: Option<LineTrackingStoppedReason>,
    // Not fields of the schema: what the nested fields look up.
    #[graphql(skip)]
    shipment_id: Uuid,
    #[graphql(skip)]
    pod_terminal_id: Option<Uuid>,
}

// The plain fields (scalars, enums, lists of them) written as JSON text when the object is
// served as text (`super::text`); the others are resolved by async-graphql.
super::text::plain_fields!(Shipment {
    "id" => id,
    "billOfLadingNumber" => bill_of_lading_number,
    "normalizedNumber" => normalized_number,
    "refNumbers" => ref_numbers,
    "createdAt" => created_at,
    "updatedAt" => updated_at,
    "tags" => tags,
    "portOfLadingLocode" => port_of_lading_locode,
    "portOfLadingName" => port_of_lading_name,
    "portOfDischargeLocode" => port_of_discharge_locode,
    "portOfDischargeName" => port_of_discharge_name,
    "destinationLocode" => destination_locode,
    "destinationName" => destination_name,
    "shippingLineScac" => shipping_line_scac,
    "shippingLineName" => shipping_line_name,
    "shippingLineShortName" => shipping_line_short_name,
    "customerName" => customer_name,
    "podVesselName" => pod_vessel_name,
    "podVesselImo" => pod_vessel_imo,
    "podVoyageNumber" => pod_voyage_number,
    "polEtdAt" => pol_etd_at,
    "polAtdAt" => pol_atd_at,
    "podEtaAt" => pod_eta_at,
    "podOriginalEtaAt" => pod_original_eta_at,
    "podAtaAt" => pod_ata_at,
    "destinationEtaAt" => destination_eta_at,
    "destinationAtaAt" => destination_ata_at,
    "polTimezone" => pol_timezone,
    "podTimezone" => pod_timezone,
    "destinationTimezone" => destination_timezone,
    "lineTrackingLastAttemptedAt" => line_tracking_last_attempted_at,
    "lineTrackingLastSucceededAt" => line_tracking_last_succeeded_at,
    "lineTrackingStoppedAt" => line_tracking_stopped_at,
    "lineTrackingStoppedReason" => line_tracking_stopped_reason,

});

impl From<model::Shipment> for Shipment {
    /// The GraphQL shipment of a stored one. Every model field is named here, so a field
    /// added to the model does not compile until it is served or left out on purpose.
    fn from(s: model::Shipment) -> Self {
        let model::Shipment {
            id,
            account_id: _,
            bill_of_lading_number,
            normalized_number,
            ref_numbers,
            created_at,
            refreshed_at,
            tags,
            port_of_lading_locode,
            port_of_lading_name,
            port_of_discharge_locode,
            port_of_discharge_name,
            destination_locode,
            destination_name,
            shipping_line_scac,
            shipping_line_name,
            shipping_line_short_name,
            customer_name,
            pod_vessel_name,
            pod_vessel_imo,
            pod_voyage_number,
            pol_etd_at,
            pol_atd_at,
            pod_eta_at,
            pod_original_eta_at,
            pod_ata_at,
            destination_eta_at,
            destination_ata_at,
            pol_timezone,
            pod_timezone,
            destination_timezone,
            line_tracking_last_attempted_at,
            line_tracking_last_succeeded_at,
            line_tracking_stopped_at,
            line_tracking_stopped_reason,
            pod_terminal_id,
        } = s;
        Shipment {
            id: ID(id.to_string()),
            bill_of_lading_number,
            normalized_number,
            ref_numbers,
            created_at: DateTime(created_at),
            updated_at: DateTime(refreshed_at),
            tags,
            port_of_lading_locode: port_of_lading_locode.map(String::from),
            port_of_lading_name,
            port_of_discharge_locode: port_of_discharge_locode.map(String::from),
            port_of_discharge_name,
            destination_locode: destination_locode.map(String::from),
            destination_name,
            shipping_line_scac,
            shipping_line_name,
            shipping_line_short_name,
            customer_name,
            pod_vessel_name,
            pod_vessel_imo: pod_vessel_imo.map(String::from),
            pod_voyage_number,
            pol_etd_at: dt(pol_etd_at),
            pol_atd_at: dt(pol_atd_at),
            pod_eta_at: dt(pod_eta_at),
            pod_original_eta_at: dt(pod_original_eta_at),
            pod_ata_at: dt(pod_ata_at),
            destination_eta_at: dt(destination_eta_at),
            destination_ata_at: dt(destination_ata_at),
            pol_timezone,
            pod_timezone,
            destination_timezone,
            line_tracking_last_attempted_at: dt(line_tracking_last_attempted_at),
            line_tracking_last_succeeded_at: dt(line_tracking_last_succeeded_at),
            line_tracking_stopped_at: dt(line_tracking_stopped_at),
            line_tracking_stopped_reason: line_tracking_stopped_reason
                .as_deref()
                .and_then(LineTrackingStoppedReason::from_v2),
            shipment_id: id,
            pod_terminal_id,
        }
    }
}

/// The fields of a shipment that are looked up: reference data and the containers.
#[ComplexObject]
impl Shipment {
    /// The port of lading (reference data), when its UN/LOCODE is known.
    async fn port_of_lading(&self) -> Option<Port> {
        Port::of(self.port_of_lading_locode.as_deref())
    }

    /// The port of discharge (reference data), when its UN/LOCODE is known.
    async fn port_of_discharge(&self) -> Option<Port> {
        Port::of(self.port_of_discharge_locode.as_deref())
    }

    /// The destination, when it is a known port (an inland place is not a port: null).
    async fn destination(&self) -> Option<Port> {
        Port::of(self.destination_locode.as_deref())
    }

    /// The terminal at the port of discharge that most of the shipment's containers name, when
    /// known (`/v2` relationship `pod_terminal`).
    async fn pod_terminal(&self) -> Option<Terminal> {
        Terminal::of(self.pod_terminal_id)
    }

    /// The vessel that brings the shipment to the port of discharge, when known.
    async fn pod_vessel(&self) -> Option<Vessel> {
        Vessel::of(
            self.pod_vessel_imo.as_deref(),
            self.pod_vessel_name.as_deref(),
        )
    }

    /// The shipment's containers, by container number.
    async fn containers(
        &self,
        ctx: &Context<'_>,
    ) -> async_graphql::Result<Vec<InPlace<Container>>> {
        let account = error::account(ctx)?.id;
        let shipment = self.shipment_id;
        // `containers { id }` alone: the ids in number order, no container read.
        if container_ids_only(&[ctx.look_ahead()]) {
            let ids = loader(ctx)?
                .load_one(ContainerIdsKey { account, shipment })
                .await
                .map_err(|_| error::internal_opaque())?;
            return Ok(ids
                .unwrap_or_default()
                .into_iter()
                .map(|id| InPlace(Container::id_only(id, shipment)))
                .collect());
        }
        let containers = loader(ctx)?
            .load_one(ContainersKey { account, shipment })
            .await
            .map_err(|_| error::internal_opaque())?;
        Ok(containers
            .unwrap_or_default()
            .into_iter()
            .map(|c| InPlace(Container::from(c)))
            .collect())
    }
}

/// The account's shipment `shipment`, through the request's data loader; `None` when the
/// account has no such shipment.
///
/// Errors: `UNAUTHENTICATED` without an account, `INTERNAL` when the store fails.
pub(crate) async fn load_shipment(
    ctx: &Context<'_>,
    shipment: Uuid,
) -> async_graphql::Result<Option<model::Shipment>> {
    let account = error::account(ctx)?;
    loader(ctx)?
        .load_one(ShipmentKey {
            account: account.id,
            shipment,
        })
        .await
        .map_err(|_| error::internal_opaque())
}

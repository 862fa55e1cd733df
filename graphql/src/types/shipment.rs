//! `Shipment`: one bill of lading (or booking).

use async_graphql::{Context, Enum, Object, ID};
use teu_pipeline::model;

use super::{dt, Container, DateTime, Port, Terminal, Vessel};
use crate::context::loader;
use crate::error;
use crate::loaders::ContainersKey;

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

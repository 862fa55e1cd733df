//! Normalization: validated events in, container and shipment tables out (polars).
//!
//! 1. **What an event applies to** (DCSA T&T 2.2: an event concerns every container and
//!    document it references). Its shipments: every bill of lading it names (`TRD`), and for
//!    each booking it names the bills of lading any stored event pairs with that booking (a
//!    booking split into several bills reaches each), else the booking itself. An event that
//!    names containers applies to each of them in each of those shipments; an event that names
//!    only documents applies to every container of its shipments, including containers named
//!    only by later files; an event that names only containers joins, per container, the
//!    shipment of the latest event at or before it that names that container with a document
//!    (else the earliest after it). Events with no shipment to attach to are counted in
//!    [`Derived::unattached`]; they stay stored and attach when a later feed names their
//!    shipment. Every choice is made by total orders over the events' contents, so the order
//!    of the input does not matter.
//! 2. **Routes** (per container and per shipment, [`crate::journey`]): the chain of transport
//!    calls the box travels through; the port of lading is where it leaves on its first
//!    vessel, the port of discharge where its last vessel brings it; ports in between are
//!    transshipment ports. The inland destination (polars, per shipment) follows the POD.
//! 3. **Shipment fields** (polars, per shipment): `pol_atd_at` (actual `DEPA` at the POL),
//!    `pol_etd_at` (latest issued estimate of it), `pod_ata_at` (actual `ARRI` at the POD),
//!    `pod_eta_at` / `pod_original_eta_at` (latest / first issued estimate of the arrival),
//!    vessel name, IMO and voyage of the vessel that calls at the POD, carrier SCAC.
//! 4. **Container fields** (polars, per container; shipment-level events such as vessel
//!    arrivals apply to every container of the shipment): `pod_arrived_at`,
//!    `pod_discharged_at`, `pod_full_out_at` (actual laden `GTOT` at the POD),
//!    `empty_terminated_at` (actual empty `GTIN`/`DROP` after discharge at the POD), seal,
//!    ISO size-type, `ref_numbers` (the DCSA `references` FF, SI, PO, CR, AAO of the events that
//!    apply to the box; a shipment's: its bookings other than its key and the references of all
//!    its events), and the latest actual movement for [`crate::status`] (vessel calls count
//!    only while the box is aboard, see there).
//!
//! "Latest" means by `eventDateTime`, ties broken by `eventCreatedDateTime`; estimates are
//! ordered by when they were issued (`eventCreatedDateTime`).
//!
//! Steps 3 and 4 run in polars over two frames built in Rust in event-time order (the
//! `frame` module): one row per event and shipment, one per event and container, grouped by the
//! shipments' and containers' numbers in the derivation.

use chrono::{DateTime, Utc};
use polars::prelude::*;
use uuid::Uuid;

use crate::model::{Container, EventRow, Shipment};
use crate::reference::{CarrierIndex, PortIndex};

mod aggregates;
mod attach;
#[cfg(test)]
mod destination_tests;
mod frame;
mod rows;
#[cfg(test)]
mod tests;

use self::aggregates::{beyond_the_port, container_aggregates, destinations, shipment_aggregates};
use self::attach::{attach, journeys, ref_numbers};
use self::frame::{Frames, Index, KeyPlaces, Order};
use self::rows::{container_rows, shipment_rows};
pub use self::rows::{equipment_from_iso, normalized_number};

/// Normalization failures. Validated input should never produce one; it means a bug or an
/// internal limit, and names the stage.
#[derive(Debug, thiserror::Error)]
pub enum NormalizeError {
    #[error("normalization failed in stage {stage}: {source}")]
    Polars {
        stage: &'static str,
        #[source]
        source: PolarsError,
    },
}

fn stage(stage: &'static str) -> impl FnOnce(PolarsError) -> NormalizeError {
    move |source| NormalizeError::Polars { stage, source }
}

/// Which containers an event applies to: the stored event id and the container ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventLink {
    /// Index of the event in the input slice.
    pub event_index: usize,
    pub container_id: Uuid,
    pub shipment_id: Uuid,
}

/// The result of [`derive()`].
#[derive(Debug, Clone, Default)]
pub struct Derived {
    pub shipments: Vec<Shipment>,
    pub containers: Vec<Container>,
    /// Event → container links (an event without a container applies to all of its shipment's).
    pub links: Vec<EventLink>,
    /// Indexes of events that could not be attached to any shipment yet.
    pub unattached: Vec<usize>,
}

/// Reference data the derivation reads: port names and time zones, carrier names.
pub struct Refs<'a> {
    pub ports: &'a PortIndex,
    pub carriers: &'a CarrierIndex,
}

/// Derives shipments, containers and event links for `account` from `events` (all the events
/// known for the affected shipments, in any order). `now` becomes `created_at`/`refreshed_at`
/// of new rows (the store keeps an existing row's `created_at`).
pub fn derive(
    account: Uuid,
    events: &[EventRow],
    refs: &Refs<'_>,
    now: DateTime<Utc>,
) -> Result<Derived, NormalizeError> {
    let attached = attach(events);
    let journeys = journeys(events, &attached);
    let index = Index::new(account, &journeys, &attached);
    let mut derived = Derived::default();
    let reach = index.reach(&attached);
    let mut links = Vec::new();
    for (i, rows) in reach.iter().enumerate() {
        if rows.is_empty() {
            derived.unattached.push(i);
        }
        for (k, boxes) in rows {
            let shipment_id = index.shipment_ids[*k as usize];
            links.extend(boxes.clone().map(|b| EventLink {
                event_index: i,
                container_id: index.container_ids[b as usize],
                shipment_id,
            }));
        }
        // The event's links by container id, each once.
        links.sort_by_key(|l| l.container_id);
        links.dedup();
        derived.links.append(&mut links);
    }

    let order = Order::new(events);
    let mut places = KeyPlaces::new(&index, &journeys);
    let frames = Frames::new(events, reach, &order).map_err(stage("build frames"))?;
    let mut shipment_frame = frames
        .shipments(&places)
        .map_err(stage("build shipment frame"))?;
    let found = destinations(shipment_frame.clone().lazy())
        .collect()
        .map_err(stage("destinations"))?;
    beyond_the_port(&found, refs, &mut places).map_err(stage("destinations"))?;
    frames
        .mark_destinations(&mut shipment_frame, &places)
        .map_err(stage("destinations"))?;
    let box_frame = frames
        .boxes(&places, index.boxes.len())
        .map_err(stage("build container frame"))?;

    let (facts, estimates) = shipment_aggregates(shipment_frame.lazy());
    let facts = facts.collect().map_err(stage("shipment fields"))?;
    let estimates = estimates.collect().map_err(stage("shipment estimates"))?;
    let (box_facts, ind_eta) = container_aggregates(box_frame.lazy());
    let box_facts = box_facts.collect().map_err(stage("container fields"))?;
    let ind_eta = ind_eta.collect().map_err(stage("container estimates"))?;

    let numbers = ref_numbers(events, &attached);
    derived.shipments = shipment_rows(
        account, &index, &places, &facts, &estimates, refs, &numbers, now,
    )
    .map_err(stage("read shipment fields"))?;
    derived.containers = container_rows(
        account, &index, &places, &box_facts, &ind_eta, refs, &numbers, now,
    )
    .map_err(stage("read container fields"))?;
    journeys.apply(&index, &mut derived.shipments, &mut derived.containers);
    derived
        .shipments
        .sort_by(|a, b| a.bill_of_lading_number.cmp(&b.bill_of_lading_number));
    derived
        .containers
        .sort_by(|a, b| (a.shipment_id, &a.number).cmp(&(b.shipment_id, &b.number)));
    Ok(derived)
}

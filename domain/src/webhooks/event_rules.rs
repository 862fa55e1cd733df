//! Transport notifications made from individual carrier events rather than from derived fields:
//! `vessel_loaded`, the four `transshipment_*` events, `rail_arrived`, `empty_out` and
//! `full_in` ([`EVENT_SOURCED`]; each has its line in [`super::rules::RULES`]).
//!
//! Rules:
//!
//! - **Which events**: actual (`ACT`) events linked to a container by this derivation whose
//!   Terminal49 name ([`crate::event_names::name`], with the ends of the container's shipment as
//!   derived now) is one of [`EVENT_SOURCED`]. The other names that events carry
//!   (`vessel_departed`, `vessel_arrived`, `vessel_discharged`, `full_out`, `rail_loaded`,
//!   `rail_departed`, `rail_unloaded`, `empty_in`) are emitted by the derived-field rules of
//!   [`super::rules::container_emissions`] only, so no milestone is notified twice.
//! - **Once per container per event**: an event is new to a container when its id was not
//!   linked before this derivation to any stored container with the same number (a container
//!   re-keyed from its booking to its bill of lading keeps its number, not its id). Re-ingesting
//!   the same files, or an older version of a stored event (a late file), links nothing new, so
//!   emits nothing.
//! - **Whose vessel**: a vessel arrival or departure (`TRANSPORT ARRI`/`DEPA`) that does not
//!   name the container (it names only its documents) counts for the container only when the
//!   container's journey ([`crate::journey::journey`]) has a leg on that vessel (IMO, else name)
//!   arriving at (`ARRI`) or leaving (`DEPA`) that port, or when the journey has no leg to
//!   contradict it. The connecting vessel a rolled box was planned on, arriving at the hub,
//!   is not the box's `transshipment_arrived` (case `data/dcsa-cases/04-transshipment-rolled`).
//! - **What it says** ([`super::rules::Detail`]): the event's time (UTC), the IANA zone and
//!   UN/LOCODE of its place, its voyage (import voyage for what arrives or is discharged, else
//!   export voyage) and the vessel's IMO. The reference object is the `transport_event` with
//!   the stored event's id, the id `GET /v2/containers/{id}/transport_events` gives it.
//!
//! Not derivable from DCSA Track & Trace data, so not emitted: `feeder_arrived`,
//! `feeder_discharged`, `feeder_loaded`, `feeder_departed` (a DCSA transport call says
//! `VESSEL` or `BARGE`, never whether the vessel is a feeder or a mainline ship; a short first
//! leg is not proof of a feeder), and `vessel_berthed` (T&T transport events are only `ARRI` and
//! `DEPA`; berthing is in DCSA's Just-in-Time port call standard, which teu does not read).
//!
//! A name depends on the ends of the shipment known when the event is first linked: a file
//! that reaches teu before the files of the earlier legs (a load at the hub before the load at
//! the origin) is named from what is known then (`vessel_loaded` at the hub), and is not named
//! again when the origin's events arrive (`docs/NOTES.md`, issue 19).

use std::collections::{HashMap, HashSet};

use uuid::Uuid;

use super::rules::{Detail, Emission};
use crate::event_names::{self, Ends};
use crate::journey;
use crate::model::{Classifier, Container, EventRow, EventType, Shipment, TransportEvent};

/// The `container.transport.*` events emitted from individual carrier events (module
/// documentation). Every other transport event name has a derived-field rule as its one
/// source.
pub const EVENT_SOURCED: &[&str] = &[
    "container.transport.vessel_loaded",
    "container.transport.transshipment_arrived",
    "container.transport.transshipment_discharged",
    "container.transport.transshipment_loaded",
    "container.transport.transshipment_departed",
    "container.transport.rail_arrived",
    "container.transport.empty_out",
    "container.transport.full_in",
];

/// The full event name of a Terminal49 short name when it is one of [`EVENT_SOURCED`].
fn sourced(short: &str) -> Option<&'static str> {
    EVENT_SOURCED
        .iter()
        .copied()
        .find(|full| full.strip_prefix("container.transport.") == Some(short))
}

/// The key of an event's vessel: IMO, else the upper-case name (`None` when it names none).
fn vessel_key(imo: Option<&str>, name: Option<&str>) -> Option<String> {
    imo.map(str::to_string)
        .or_else(|| name.map(str::to_uppercase))
}

/// Whether the vessel event `e`, which does not name the container, belongs to the journey of
/// the container whose events are `history` (module documentation, "Whose vessel").
fn on_the_boxs_vessel(e: &EventRow, history: &[&EventRow]) -> bool {
    let vessel_move = e.event_type == EventType::Transport && journey::is_vessel_call(e);
    if !vessel_move {
        return true;
    }
    let Some(key) = vessel_key(e.vessel_imo.as_deref(), e.vessel_name.as_deref()) else {
        return true;
    };
    let j = journey::journey(history);
    if j.legs.is_empty() {
        return true;
    }
    let arrival = e.code == "ARRI";
    j.legs.iter().any(|leg| {
        let stop = if arrival { leg.to } else { leg.from };
        let here = j
            .stops
            .get(stop)
            .zip(e.locode.as_deref())
            .is_some_and(|(s, at)| s.locode.eq_ignore_ascii_case(at));
        here && vessel_key(leg.vessel.imo.as_deref(), leg.vessel.name.as_deref()).as_ref()
            == Some(&key)
    })
}

/// The voyage of an event: the import voyage for an arrival or discharge, else the export
/// voyage; whichever is known.
fn voyage(e: &EventRow) -> Option<String> {
    let arriving = matches!(e.code.as_str(), "ARRI" | "DISC");
    let (first, second) = if arriving {
        (&e.import_voyage, &e.export_voyage)
    } else {
        (&e.export_voyage, &e.import_voyage)
    };
    first.clone().or_else(|| second.clone())
}

/// The event-sourced emissions of one derivation (module documentation).
///
/// Takes the derived `containers` and `shipments`, the stored `history` the derivation read,
/// its `links` (container id, event id), and `seen`: the (container number, event id) pairs
/// linked before this derivation. Returns one emission per container and new linked actual
/// event whose name is in [`EVENT_SOURCED`], in container then event-time order.
pub fn event_emissions(
    containers: &[Container],
    shipments: &[Shipment],
    history: &[TransportEvent],
    links: &[(Uuid, Uuid)],
    seen: &HashSet<(String, Uuid)>,
) -> Vec<Emission> {
    let events: HashMap<Uuid, &TransportEvent> = history.iter().map(|e| (e.id, e)).collect();
    let shipments: HashMap<Uuid, &Shipment> = shipments.iter().map(|s| (s.id, s)).collect();
    let mut by_container: HashMap<Uuid, Vec<&TransportEvent>> = HashMap::new();
    for (c, e) in links {
        if let Some(e) = events.get(e) {
            by_container.entry(*c).or_default().push(e);
        }
    }
    let mut out = Vec::new();
    for c in containers {
        let Some(linked) = by_container.get_mut(&c.id) else {
            continue;
        };
        linked.sort_by(|a, b| {
            (a.event.event_at, &a.event.event_id).cmp(&(b.event.event_at, &b.event.event_id))
        });
        linked.dedup_by_key(|e| e.id);
        let fresh: Vec<&TransportEvent> = linked
            .iter()
            .copied()
            .filter(|e| e.event.classifier == Classifier::Act)
            .filter(|e| !seen.contains(&(c.number.to_string(), e.id)))
            .collect();
        if fresh.is_empty() {
            continue;
        }
        let ends = shipments
            .get(&c.shipment_id)
            .map(|s| Ends::of(s))
            .unwrap_or_default();
        let rows: Vec<&EventRow> = linked.iter().map(|e| &e.event).collect();
        for e in fresh {
            let Some(event) = event_names::name(&e.event, ends).and_then(sourced) else {
                continue;
            };
            let names_it = e.event.containers.iter().any(|n| c.number == *n);
            if !names_it && !on_the_boxs_vessel(&e.event, &rows) {
                continue;
            }
            out.push(Emission {
                event,
                reference_type: "transport_event",
                reference_id: e.id,
                container_id: Some(c.id),
                shipment_id: Some(c.shipment_id),
                tracking_request_id: None,
                detail: Detail {
                    timestamp: Some(e.event.event_at),
                    timezone: e.timezone.clone(),
                    location_locode: e.event.locode.clone(),
                    voyage_number: voyage(&e.event),
                    vessel_imo: e.event.vessel_imo.clone(),
                    ..Detail::default()
                },
            });
        }
    }
    out
}

//! The work done before polars: what every event applies to (step 1 of the module
//! documentation), the journey of every container and shipment, and their reference numbers.

use std::collections::{BTreeMap, BTreeSet};

// foldhash's map: these maps are keyed by the derivation's own strings and ids, where std's
// SipHash (proof against chosen keys) was about a tenth of a derivation's instructions
// (`docs/NOTES.md`, fifty-ninth session); the order of iteration is no more defined than
// std's, and nothing here depends on it.
use foldhash::HashMap;

use chrono::{DateTime, Utc};

use super::frame::Index;
use crate::journey::{self, Journey};
use crate::model::{Container, EventRow, Shipment};

/// Step 2: the [`journey`] of every container, and the one of each shipment.
pub(super) struct Journeys<'a> {
    /// Per (shipment key, container).
    pub(super) containers: HashMap<(&'a str, &'a str), Journey>,
    /// Per shipment key: the journey most of its containers share (same stops and POD
    /// vessel; ties: the first container by number); for a shipment without containers, the
    /// journey of its events.
    pub(super) shipments: BTreeMap<&'a str, Journey>,
}

/// The journeys of the attached events.
pub(super) fn journeys<'a>(events: &'a [EventRow], attached: &Attached<'a>) -> Journeys<'a> {
    let mut own: HashMap<(&str, &str), Vec<&EventRow>> = HashMap::default();
    let mut shared: BTreeMap<&str, Vec<&EventRow>> = BTreeMap::new();
    for (e, rows) in events.iter().zip(&attached.rows) {
        for (k, c) in rows {
            match c {
                Some(c) => own.entry((k, c)).or_default().push(e),
                None => shared.entry(k).or_default().push(e),
            }
            shared.entry(k).or_default();
        }
    }
    let mut out = Journeys {
        containers: HashMap::default(),
        shipments: BTreeMap::new(),
    };
    for (k, shared_events) in &shared {
        let boxes = attached.containers_of.get(k);
        let mut counts: Vec<(Journey, usize)> = Vec::new();
        for c in boxes.into_iter().flatten() {
            let mut evs = own.get(&(*k, *c)).cloned().unwrap_or_default();
            evs.extend(shared_events.iter().copied());
            let j = journey::journey(&evs);
            fn signature(j: &Journey) -> (Vec<&str>, Option<&journey::Vessel>) {
                let stops = j.stops.iter().map(|s| s.locode.as_str()).collect();
                (stops, j.pod_leg().map(|l| &l.vessel))
            }
            match counts
                .iter_mut()
                .find(|(seen, _)| signature(seen) == signature(&j))
            {
                Some((_, n)) => *n += 1,
                None => counts.push((j.clone(), 1)),
            }
            out.containers.insert((*k, *c), j);
        }
        // `counts` is in container-number order: the first of the most shared wins ties.
        let best = counts
            .iter()
            .enumerate()
            .max_by_key(|(i, (_, n))| (*n, std::cmp::Reverse(*i)))
            .map(|(_, (j, _))| j.clone());
        let j = best.unwrap_or_else(|| journey::journey(shared_events));
        out.shipments.insert(k, j);
    }
    out
}

impl Journeys<'_> {
    /// The journey-derived fields: a shipment's `pol_etd_at`/`pol_atd_at` (departure of the
    /// vessel that took the box on at the POL), `pod_eta_at`/`pod_original_eta_at`/
    /// `pod_ata_at` (arrival of the vessel that brought it to the POD: latest-issued and
    /// first-issued estimate, actual) and the POD vessel (the last leg's); a container's
    /// `pod_arrived_at` (the actual arrival at the POD of the vessel that carried that box).
    ///
    /// `shipments` and `containers` are in the order of `index`'s key and box ids.
    pub(super) fn apply(
        &self,
        index: &Index<'_>,
        shipments: &mut [Shipment],
        containers: &mut [Container],
    ) {
        for (s, j) in shipments.iter_mut().zip(self.shipments.values()) {
            let pol = j.pol();
            s.pol_etd_at = pol.and_then(|p| p.departure.estimated);
            s.pol_atd_at = pol.and_then(|p| p.departure.actual);
            if let Some(pod) = j.pod() {
                s.pod_eta_at = pod.arrival.estimated;
                s.pod_original_eta_at = pod.arrival.original_estimate;
                s.pod_ata_at = pod.arrival.actual;
            }
            if let Some(vessel) = j.pod().and_then(|p| p.arrived_on.as_ref()) {
                s.pod_vessel_name = vessel.name.clone();
                s.pod_vessel_imo = vessel.imo.clone();
                s.pod_voyage_number = vessel.voyage.clone();
            }
        }
        for (c, (key, number)) in containers.iter_mut().zip(&index.boxes) {
            let k = index.keys[*key as usize];
            let Some(j) = self.containers.get(&(k, *number)) else {
                continue;
            };
            let pod = j.pod();
            if pod.map(|p| Some(p.locode.as_str())) == Some(c.pod_locode.as_deref()) {
                c.pod_arrived_at = pod.and_then(|p| p.arrival.actual);
            }
        }
    }
}

/// Step 1: what every event applies to (see the module documentation).
#[derive(Debug, Default)]
pub(super) struct Attached<'a> {
    /// Per event (same index as the input): the (shipment key, container) pairs it applies to;
    /// a `None` container means every container of that shipment. Empty when the event cannot
    /// be attached yet.
    pub(super) rows: Vec<Vec<(&'a str, Option<&'a str>)>>,
    /// Containers of each shipment key (sorted and distinct, for stable output).
    pub(super) containers_of: HashMap<&'a str, Vec<&'a str>>,
}

/// Step 1 (module documentation). Every choice is made by a total order over the events'
/// contents, never by their position in `events`, so any order of the same events gives the
/// same attachment.
pub(super) fn attach(events: &[EventRow]) -> Attached<'_> {
    // Bills of lading of each booking (a booking may be split into several bills).
    let mut bills_of_booking: HashMap<&str, BTreeSet<&str>> = HashMap::default();
    for e in events {
        for b in &e.bookings {
            for bl in &e.bills_of_lading {
                bills_of_booking.entry(b).or_default().insert(bl);
            }
        }
    }
    // The shipment keys an event names through its documents (sorted, distinct).
    let direct: Vec<Vec<&str>> = events
        .iter()
        .map(|e| {
            let mut keys: Vec<&str> = e.bills_of_lading.iter().map(String::as_str).collect();
            for b in &e.bookings {
                match bills_of_booking.get(b.as_str()) {
                    Some(bls) => keys.extend(bls.iter().copied()),
                    None => keys.push(b),
                }
            }
            keys.sort_unstable();
            keys.dedup();
            keys
        })
        .collect();
    // When each container was named together with each shipment key: a container-only event
    // belongs to the journey of the latest such naming at or before it (else the earliest).
    let mut namings: HashMap<&str, Vec<(DateTime<Utc>, &str)>> = HashMap::default();
    for (e, keys) in events.iter().zip(&direct) {
        for c in &e.containers {
            for k in keys {
                namings.entry(c).or_default().push((e.event_at, k));
            }
        }
    }
    for v in namings.values_mut() {
        v.sort_unstable();
        v.dedup();
    }
    let shipment_of = |c: &str, at: DateTime<Utc>| -> Option<&str> {
        let v = namings.get(c)?;
        let before = v.partition_point(|(t, _)| *t <= at);
        let (_, k) = if before > 0 { v[before - 1] } else { v[0] };
        Some(k)
    };
    let mut attached = Attached::default();
    for (e, keys) in events.iter().zip(&direct) {
        let mut rows = Vec::new();
        if e.containers.is_empty() {
            rows.extend(keys.iter().map(|k| (*k, None)));
        } else {
            for c in &e.containers {
                if keys.is_empty() {
                    if let Some(k) = shipment_of(c, e.event_at) {
                        rows.push((k, Some(c.as_str())));
                    }
                } else {
                    rows.extend(keys.iter().map(|k| (*k, Some(c.as_str()))));
                }
            }
        }
        for (k, c) in &rows {
            if let Some(c) = c {
                attached.containers_of.entry(k).or_default().push(c);
            }
        }
        attached.rows.push(rows);
    }
    for cs in attached.containers_of.values_mut() {
        cs.sort_unstable();
        cs.dedup();
    }
    attached
}

/// Reference numbers of shipments and containers (spec `ref_numbers`).
#[derive(Debug, Default)]
pub(super) struct RefNumbers<'a> {
    /// Per shipment key: the bookings that are not the key itself and the DCSA `references`
    /// (FF, SI, PO, CR, AAO) of every event attached to the shipment.
    pub(super) shipments: HashMap<&'a str, BTreeSet<&'a str>>,
    /// Per (shipment key, container): the DCSA `references` of the events that apply to the
    /// container (its own events and the shipment's events that name no container).
    pub(super) containers: HashMap<(&'a str, &'a str), BTreeSet<&'a str>>,
}

/// Collects [`RefNumbers`] from the attached events.
pub(super) fn ref_numbers<'a>(events: &'a [EventRow], attached: &Attached<'a>) -> RefNumbers<'a> {
    let mut out = RefNumbers::default();
    for (e, rows) in events.iter().zip(&attached.rows) {
        let values = e.references.iter().map(|r| r.value.as_str());
        for (k, c) in rows {
            let set = out.shipments.entry(k).or_default();
            set.extend(values.clone());
            set.extend(e.bookings.iter().map(String::as_str).filter(|b| b != k));
            if e.references.is_empty() {
                continue;
            }
            let containers: &[&str] = match c {
                Some(c) => std::slice::from_ref(c),
                None => attached.containers_of.get(k).map_or(&[], Vec::as_slice),
            };
            for c in containers.iter().copied() {
                out.containers
                    .entry((k, c))
                    .or_default()
                    .extend(values.clone());
            }
        }
    }
    out
}

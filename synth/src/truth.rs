//! Ground truth of generated feeds: what the events [`crate::dcsa`] wrote say about each
//! container, recorded by the generator as it writes them (`truth.jsonl` beside the feed), so
//! that teu's derived answers can be judged against it (`tests/truth.rs`).
//!
//! The values come from the generator's own journey and from which events it actually wrote
//! before its fixed "now", never from teu's derivation code. One JSON object per container,
//! with `/v2` attribute names:
//!
//! | field | what the written events imply (DCSA T&T 2.2, Terminal49 definitions) |
//! |---|---|
//! | `number`, `bill_of_lading_number`, `shipping_line_scac` | the box, its transport document, the carrier |
//! | `port_of_lading_locode`, `port_of_discharge_locode`, `route` | the ports of the voyages that carry the box: POL, the transshipment hub when there is one, POD |
//! | `pol_atd_at`, `pod_ata_at` | the vessel's actual departure from the POL and arrival at the POD, when their `ACT` events were written |
//! | `pol_etd_at`, `pod_eta_at` | the latest-issued `EST` of that departure or arrival, else its `PLN` |
//! | `pod_vessel_name`, `pod_vessel_imo`, `pod_voyage_number` | the vessel of the last leg |
//! | `pod_arrived_at` | the vessel's actual arrival at the POD (the event names every box) |
//! | `pod_discharged_at`, `pod_full_out_at`, `empty_terminated_at` | the box's actual `DISC` at the POD, laden `GTOT` there and empty `GTIN` at the depot, when written |
//! | `current_status` | the latest actual movement of the box: empty `GTOT` and laden `GTIN` before loading `new`; a vessel `LOAD`, the vessel's departure with the box and discharges and loads at the hub `on_ship`; the discharge at the POD `grounded` (no terminal feed); the laden `GTOT` `picked_up`; the empty `GTIN` `empty_returned` |
//! | `leg_under_way` | the leg (1-based `ports_sequence` of its departure port) whose vessel has departed with the box (actual departure or load) and not arrived, with the vessel's IMO; null otherwise |
//!
//! Times are RFC 3339 UTC (`Z`), whole seconds.

use chrono::DateTime;
use serde_json::{json, Value};

/// What one transport milestone's written events say: the actual time when its `ACT` event was
/// written, and the latest-issued estimate (else the plan). Unix seconds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Written {
    pub actual: Option<i64>,
    pub estimated: i64,
}

/// One leg of a generated shipment: its departure and arrival milestones and the vessel's IMO.
pub(crate) struct TruthLeg {
    pub departure: Option<Written>,
    pub arrival: Option<Written>,
    pub imo: String,
}

/// The journey of one generated shipment, as the generator wrote it.
pub(crate) struct ShipmentJourney<'a> {
    pub scac: &'a str,
    pub bl: &'a str,
    /// UN/LOCODEs: POL, the hub when there is one, POD.
    pub route: Vec<&'a str>,
    pub legs: Vec<TruthLeg>,
    pub pod_vessel_name: String,
    pub pod_vessel_imo: String,
    pub pod_voyage: String,
}

fn at(secs: Option<i64>) -> Value {
    secs.and_then(|s| DateTime::from_timestamp(s, 0))
        .map(|t| Value::String(t.format("%Y-%m-%dT%H:%M:%SZ").to_string()))
        .unwrap_or(Value::Null)
}

/// The truth record of one container: `number`, its written actual movements `acts` (time,
/// what: `gtot_empty`, `gtin`, `load_pol`, `hub_disc`, `hub_load`, `disc_pod`, `pickup`,
/// `empty_return`), see the module table.
pub(crate) fn container_truth(
    j: &ShipmentJourney<'_>,
    number: &str,
    acts: &[(i64, &str)],
) -> Value {
    let act = |what: &str| acts.iter().find(|(_, w)| *w == what).map(|(t, _)| *t);
    let first = j.legs.first();
    let last = j.legs.last();
    let pol_departure = first.and_then(|l| l.departure);
    let pod_arrival = last.and_then(|l| l.arrival);
    // The box's movements, including the vessel's actual calls while the box is aboard.
    let mut moves: Vec<(i64, &str)> = acts
        .iter()
        .map(|(t, what)| {
            let status = match *what {
                "gtot_empty" | "gtin" => "new",
                "load_pol" | "hub_disc" | "hub_load" => "on_ship",
                "disc_pod" => "grounded",
                "pickup" => "picked_up",
                _ => "empty_returned",
            };
            (*t, status)
        })
        .collect();
    for leg in &j.legs {
        for t in [leg.departure, leg.arrival]
            .into_iter()
            .flatten()
            .filter_map(|w| w.actual)
        {
            // Only while aboard: after the box's POL load or the POL departure, before its
            // discharge at the POD.
            let loaded = act("load_pol").or(pol_departure.and_then(|w| w.actual));
            let discharged = act("disc_pod");
            if loaded.is_some_and(|l| t >= l) && discharged.is_none_or(|d| t <= d) {
                moves.push((t, "on_ship"));
            }
        }
    }
    moves.sort();
    let status = moves.last().map(|(_, s)| *s).unwrap_or("new");
    let mut under_way = Value::Null;
    for (i, leg) in j.legs.iter().enumerate() {
        let departed = leg.departure.and_then(|w| w.actual).is_some()
            || (i == 0 && act("load_pol").is_some())
            || (i == 1 && act("hub_load").is_some());
        let arrived = leg.arrival.and_then(|w| w.actual).is_some()
            || (i + 1 == j.legs.len() && act("disc_pod").is_some())
            || (i + 1 < j.legs.len() && act("hub_disc").is_some());
        if departed && !arrived {
            under_way = json!({"ports_sequence": i + 1, "vessel_imo": leg.imo});
        }
    }
    json!({
        "number": number,
        "bill_of_lading_number": j.bl,
        "shipping_line_scac": j.scac,
        "port_of_lading_locode": j.route.first(),
        "port_of_discharge_locode": j.route.last(),
        "route": j.route,
        "pol_atd_at": at(pol_departure.and_then(|w| w.actual)),
        "pol_etd_at": at(pol_departure.map(|w| w.estimated)),
        "pod_ata_at": at(pod_arrival.and_then(|w| w.actual)),
        "pod_eta_at": at(pod_arrival.map(|w| w.estimated)),
        "pod_vessel_name": j.pod_vessel_name,
        "pod_vessel_imo": j.pod_vessel_imo,
        "pod_voyage_number": j.pod_voyage,
        "pod_arrived_at": at(pod_arrival.and_then(|w| w.actual)),
        "pod_discharged_at": at(act("disc_pod")),
        "pod_full_out_at": at(act("pickup")),
        "empty_terminated_at": at(act("empty_return")),
        "current_status": status,
        "leg_under_way": under_way,
    })
}

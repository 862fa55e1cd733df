//! Terminal49's normalized event names for stored DCSA events: what `GET
//! /v2/containers/{id}/raw_events` calls each event (`event`: `vessel_loaded`, `full_out`, …)
//! and which events `GET /v2/containers/{id}/transport_events` serves
//! (`container.transport.<name>`, actual events only).
//!
//! A name depends on the event and on where it happened relative to the shipment: the port of
//! lading (POL), the port of discharge (POD), a port between them (transshipment), or inland.
//! Rules (DCSA Track & Trace event codes, Terminal49's event catalog):
//!
//! | DCSA event | where / how | name |
//! |---|---|---|
//! | `EQUIPMENT GTOT`, empty | anywhere | `empty_out` |
//! | `EQUIPMENT GTIN`, laden | POL | `full_in` |
//! | `EQUIPMENT LOAD` | by rail | `rail_loaded` |
//! | `EQUIPMENT LOAD` | POL, or no POL known | `vessel_loaded` |
//! | `EQUIPMENT LOAD` | another port | `transshipment_loaded` |
//! | `TRANSPORT DEPA` | by rail | `rail_departed` |
//! | `TRANSPORT DEPA` | POL, or no POL known | `vessel_departed` |
//! | `TRANSPORT DEPA` | another port | `transshipment_departed` |
//! | `TRANSPORT ARRI` | by rail | `rail_arrived` |
//! | `TRANSPORT ARRI` | POD, or no POD known | `vessel_arrived` |
//! | `TRANSPORT ARRI` | the inland destination, not by vessel | `arrived_at_destination` |
//! | `TRANSPORT ARRI` | another port | `transshipment_arrived` |
//! | `EQUIPMENT DISC` | by rail | `rail_unloaded` |
//! | `EQUIPMENT DISC` | POD, or no POD known | `vessel_discharged` |
//! | `EQUIPMENT DISC` | another port | `transshipment_discharged` |
//! | `EQUIPMENT GTOT`, laden | anywhere | `full_out` |
//! | `EQUIPMENT GTIN`, empty | anywhere | `empty_in` |
//! | `EQUIPMENT GTIN`, laden | not the POL | `full_in` |
//!
//! Other events (shipment events, `STUF`, `STRP`, `PICK`, `DROP`, `INSP`, …) have no name.

use chrono::{DateTime, Utc};

use crate::model::{Classifier, EventRow, EventType, Shipment};

/// Where the shipment starts and ends, to tell the POL, the POD and transshipment ports apart.
#[derive(Debug, Clone, Copy, Default)]
pub struct Ends<'a> {
    /// UN/LOCODE of the port of lading.
    pub pol: Option<&'a str>,
    /// UN/LOCODE of the port of discharge.
    pub pod: Option<&'a str>,
    /// UN/LOCODE of the inland destination.
    pub destination: Option<&'a str>,
}

impl<'a> Ends<'a> {
    /// The ends of `shipment`.
    pub fn of(shipment: &'a Shipment) -> Ends<'a> {
        Ends {
            pol: shipment.port_of_lading_locode.as_deref(),
            pod: shipment.port_of_discharge_locode.as_deref(),
            destination: shipment.destination_locode.as_deref(),
        }
    }
}

/// Terminal49's normalized name of `e` (module table), or `None` when it has none.
pub fn name(e: &EventRow, ends: Ends<'_>) -> Option<&'static str> {
    let mode = e
        .mode_of_transport
        .as_deref()
        .unwrap_or("")
        .to_ascii_uppercase();
    let rail = mode == "RAIL";
    let vessel = mode.is_empty() || mode == "VESSEL" || mode == "BARGE";
    let at = |end: Option<&str>| match (end, e.locode.as_deref()) {
        (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
        _ => false,
    };
    // Without a known end or location, an event counts as at that end (no transshipment can be
    // told from it).
    let at_or_unknown = |end: Option<&str>| end.is_none() || e.locode.is_none() || at(end);
    let empty = e.empty == Some(true);
    match (e.event_type, e.code.as_str()) {
        (EventType::Equipment, "GTOT") if empty => Some("empty_out"),
        (EventType::Equipment, "GTOT") => Some("full_out"),
        (EventType::Equipment, "GTIN") if empty => Some("empty_in"),
        (EventType::Equipment, "GTIN") => Some("full_in"),
        (EventType::Equipment, "LOAD") if rail => Some("rail_loaded"),
        (EventType::Equipment, "LOAD") if at_or_unknown(ends.pol) => Some("vessel_loaded"),
        (EventType::Equipment, "LOAD") => Some("transshipment_loaded"),
        (EventType::Equipment, "DISC") if rail => Some("rail_unloaded"),
        (EventType::Equipment, "DISC") if at_or_unknown(ends.pod) => Some("vessel_discharged"),
        (EventType::Equipment, "DISC") => Some("transshipment_discharged"),
        (EventType::Transport, "DEPA") if rail => Some("rail_departed"),
        (EventType::Transport, "DEPA") if at_or_unknown(ends.pol) => Some("vessel_departed"),
        (EventType::Transport, "DEPA") => Some("transshipment_departed"),
        (EventType::Transport, "ARRI") if rail => Some("rail_arrived"),
        (EventType::Transport, "ARRI") if !vessel && at(ends.destination) => {
            Some("arrived_at_destination")
        }
        (EventType::Transport, "ARRI") if at_or_unknown(ends.pod) => Some("vessel_arrived"),
        (EventType::Transport, "ARRI") => Some("transshipment_arrived"),
        _ => None,
    }
}

/// Whether `e` has a name at all, wherever it happened: the ends only choose between names
/// (`vessel_loaded` or `transshipment_loaded`), never between a name and none, so this needs no
/// shipment. What a container's `transport_events` relationship lists: actual events with
/// [`is_named`].
pub fn is_named(e: &EventRow) -> bool {
    name(e, Ends::default()).is_some()
}

/// Whether a container's `transport_events` relationship (`/v2` container resource) lists `e`:
/// an actual (`ACT`) event that has a Terminal49 name wherever it happened ([`is_named`]); the
/// same events [`transport_event`] names. The store keeps it per event
/// (`transport_events.named_actual`) so that a page reads it without the event's body.
pub fn named_actual(e: &EventRow) -> bool {
    e.classifier == Classifier::Act && is_named(e)
}

/// The `event` of a Terminal49 `transport_event` (`GET /v2/containers/{id}/transport_events`,
/// GraphQL `Container.transportEvents`): `container.transport.<name>` for an actual event that
/// has a [`name`], `None` for every other event (estimated, planned, or without a name).
pub fn transport_event(e: &EventRow, ends: Ends<'_>) -> Option<String> {
    if e.classifier != Classifier::Act {
        return None;
    }
    name(e, ends).map(|n| format!("container.transport.{n}"))
}

/// The `voyage_number` served with an event: the export voyage for what leaves a port (`LOAD`,
/// `DEPA`, `GTIN`), the import voyage for the rest, whichever of the two is known.
pub fn voyage(e: &EventRow) -> Option<&str> {
    let leaving = matches!(e.code.as_str(), "LOAD" | "DEPA" | "GTIN");
    let (first, second) = if leaving {
        (&e.export_voyage, &e.import_voyage)
    } else {
        (&e.import_voyage, &e.export_voyage)
    };
    first.as_deref().or(second.as_deref())
}

/// The `created_at` served with an event: when the carrier issued it, else when it happened.
pub fn created_at(e: &EventRow) -> DateTime<Utc> {
    e.event_created_at.unwrap_or(e.event_at)
}

/// The `original_event` of a raw event: the DCSA event type and code (`EQUIPMENT LOAD`).
pub fn original_event(e: &EventRow) -> String {
    format!("{} {}", e.event_type.as_str(), e.code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Classifier;

    fn event(
        kind: EventType,
        code: &str,
        at: &str,
        mode: Option<&str>,
        empty: Option<bool>,
    ) -> EventRow {
        serde_json::from_value(serde_json::json!({
            "event_id": "e", "event_type": kind, "classifier": Classifier::Act, "code": code,
            "event_at": "2026-03-01T00:00:00Z", "containers": ["MSKU1234565"],
            "bills_of_lading": [], "bookings": [], "references": [],
            "locode": at, "mode_of_transport": mode, "empty": empty,
        }))
        .unwrap()
    }

    #[test]
    fn a_transshipped_journey_is_named_leg_by_leg() {
        // Shanghai → Singapore (transshipment) → Rotterdam, then by rail to Duisburg.
        let ends = Ends {
            pol: Some("CNSHA"),
            pod: Some("NLRTM"),
            destination: Some("DEDUI"),
        };
        use EventType::{Equipment as Eq, Transport as Tr};
        let journey = [
            (Eq, "GTOT", "CNSHA", None, Some(true), "empty_out"),
            (Eq, "GTIN", "CNSHA", None, Some(false), "full_in"),
            (
                Eq,
                "LOAD",
                "CNSHA",
                Some("VESSEL"),
                Some(false),
                "vessel_loaded",
            ),
            (Tr, "DEPA", "CNSHA", Some("VESSEL"), None, "vessel_departed"),
            (
                Tr,
                "ARRI",
                "SGSIN",
                Some("VESSEL"),
                None,
                "transshipment_arrived",
            ),
            (
                Eq,
                "DISC",
                "SGSIN",
                Some("VESSEL"),
                Some(false),
                "transshipment_discharged",
            ),
            (
                Eq,
                "LOAD",
                "SGSIN",
                Some("VESSEL"),
                Some(false),
                "transshipment_loaded",
            ),
            (
                Tr,
                "DEPA",
                "SGSIN",
                Some("VESSEL"),
                None,
                "transshipment_departed",
            ),
            (Tr, "ARRI", "NLRTM", Some("VESSEL"), None, "vessel_arrived"),
            (
                Eq,
                "DISC",
                "NLRTM",
                Some("VESSEL"),
                Some(false),
                "vessel_discharged",
            ),
            (
                Eq,
                "LOAD",
                "NLRTM",
                Some("RAIL"),
                Some(false),
                "rail_loaded",
            ),
            (Tr, "DEPA", "NLRTM", Some("RAIL"), None, "rail_departed"),
            (Tr, "ARRI", "DEDUI", Some("RAIL"), None, "rail_arrived"),
            (
                Eq,
                "DISC",
                "DEDUI",
                Some("RAIL"),
                Some(false),
                "rail_unloaded",
            ),
            (Eq, "GTOT", "DEDUI", Some("TRUCK"), Some(false), "full_out"),
            (Eq, "GTIN", "DEDUI", Some("TRUCK"), Some(true), "empty_in"),
        ];
        for (kind, code, at, mode, empty, want) in journey {
            let e = event(kind, code, at, mode, empty);
            assert_eq!(name(&e, ends), Some(want), "{code} at {at} by {mode:?}");
        }
        // A truck arriving at the inland destination.
        let e = event(Tr, "ARRI", "DEDUI", Some("TRUCK"), None);
        assert_eq!(name(&e, ends), Some("arrived_at_destination"));
        // Events without a name.
        for code in ["STUF", "STRP", "INSP"] {
            assert_eq!(name(&event(Eq, code, "NLRTM", None, None), ends), None);
        }
        // Without known ends, a load is a vessel load, not a transshipment.
        let e = event(Eq, "LOAD", "SGSIN", Some("VESSEL"), Some(false));
        assert_eq!(name(&e, Ends::default()), Some("vessel_loaded"));
    }

    #[test]
    fn whether_an_event_has_a_name_does_not_depend_on_the_ends() {
        use EventType::{Equipment as Eq, Shipment as Sh, Transport as Tr};
        let ends = [
            Ends::default(),
            Ends {
                pol: Some("CNSHA"),
                pod: Some("NLRTM"),
                destination: Some("DEDUI"),
            },
            Ends {
                pol: Some("SGSIN"),
                pod: Some("CNSHA"),
                destination: None,
            },
        ];
        for kind in [Eq, Tr, Sh] {
            for code in [
                "GTOT", "GTIN", "LOAD", "DISC", "DEPA", "ARRI", "STUF", "PICK", "RECE",
            ] {
                for mode in [None, Some("VESSEL"), Some("RAIL"), Some("TRUCK")] {
                    for empty in [None, Some(true), Some(false)] {
                        for at in ["CNSHA", "SGSIN", "DEDUI"] {
                            let e = event(kind, code, at, mode, empty);
                            for end in ends {
                                assert_eq!(
                                    name(&e, end).is_some(),
                                    is_named(&e),
                                    "{kind:?} {code} {at} {mode:?} {empty:?}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

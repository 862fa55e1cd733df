//! Unit tests of inland destinations (step 2b).

use super::*;
use crate::model::{Classifier, ContainerStatus, EventType};
use crate::reference;

fn event(code: &str, t: EventType, locode: &str, day: u32, mode: Option<&str>) -> EventRow {
    let at = DateTime::parse_from_rfc3339(&format!("2026-03-{day:02}T08:00:00Z"))
        .unwrap()
        .with_timezone(&Utc);
    EventRow {
        event_id: format!("{code}-{locode}-{day}"),
        event_type: t,
        classifier: Classifier::Act,
        code: code.into(),
        event_at: at,
        event_created_at: Some(at),
        containers: if t == EventType::Equipment {
            vec!["MSKU1234565".to_string()]
        } else {
            Vec::new()
        },
        bills_of_lading: vec!["MAEU123456789".into()],
        bookings: Vec::new(),
        references: Vec::new(),
        transport_call_id: None,
        locode: Some(crate::model::UnLocode::parse(locode).unwrap()),
        location_name: None,
        facility_code: None,
        facility_type: None,
        mode_of_transport: mode.map(str::to_string),
        transport_call_sequence: None,
        vessel_imo: None,
        vessel_name: None,
        export_voyage: None,
        import_voyage: None,
        carrier_scac: Some("MAEU".into()),
        iso_equipment_code: Some("45G1".into()),
        empty: Some(false),
        seal_number: None,
        delay_reason: None,
        remark: None,
    }
}

fn derive_all(events: &[EventRow]) -> Derived {
    let (ports, carriers) = reference::bundled();
    let now = DateTime::from_timestamp(1_800_000_000, 0).unwrap();
    derive(Uuid::from_u128(9), events, &Refs { ports, carriers }, now).unwrap()
}

fn status_of(d: &Derived, number: &str) -> ContainerStatus {
    d.containers
        .iter()
        .find(|c| c.number == number)
        .unwrap_or_else(|| panic!("{number} derived"))
        .current_status
}

/// Terminal49: a box is `on_ship` from its vessel load or departure. A box only gated in
/// at the POL stays `new` when its vessel arrives there; a box discharged at the POD does
/// not go back on the ship when the vessel leaves the POD.
#[test]
fn vessel_calls_move_only_a_box_that_is_aboard() {
    use EventType::*;
    let mut gate_in = event("GTIN", Equipment, "NLRTM", 1, Some("TRUCK"));
    gate_in.mode_of_transport = None;
    let arrival_at_pol = event("ARRI", Transport, "NLRTM", 2, Some("VESSEL"));
    let d = derive_all(&[gate_in.clone(), arrival_at_pol.clone()]);
    assert_eq!(status_of(&d, "MSKU1234565"), ContainerStatus::New);
    let load = event("LOAD", Equipment, "NLRTM", 3, Some("VESSEL"));
    let d = derive_all(&[gate_in.clone(), arrival_at_pol.clone(), load.clone()]);
    assert_eq!(status_of(&d, "MSKU1234565"), ContainerStatus::OnShip);
    // A departure alone (no LOAD event in the feed) puts the box on the ship.
    let departure = event("DEPA", Transport, "NLRTM", 3, Some("VESSEL"));
    let d = derive_all(&[gate_in, arrival_at_pol, departure.clone()]);
    assert_eq!(status_of(&d, "MSKU1234565"), ContainerStatus::OnShip);

    let journey = vec![
        load,
        departure,
        event("ARRI", Transport, "USNYC", 10, Some("VESSEL")),
        event("DISC", Equipment, "USNYC", 11, Some("VESSEL")),
        event("DEPA", Transport, "USNYC", 12, Some("VESSEL")),
    ];
    let d = derive_all(&journey);
    assert_eq!(status_of(&d, "MSKU1234565"), ContainerStatus::Grounded);
}

/// DCSA: an event applies to every container it names (each `EQ` reference), and an
/// event that names only the bill of lading to every container of that bill.
#[test]
fn an_event_reaches_every_container_it_names() {
    use EventType::*;
    let boxes = ["MSKU1234565", "MSKU2935385", "MSKU3517815"];
    let mut events = Vec::new();
    for b in boxes {
        let mut load = event("LOAD", Equipment, "NLRTM", 1, Some("VESSEL"));
        load.event_id = format!("load-{b}");
        load.containers = vec![b.to_string()];
        events.push(load);
    }
    let mut arrival = event("ARRI", Transport, "USNYC", 10, Some("VESSEL"));
    arrival.containers = boxes[..2].iter().map(|b| b.to_string()).collect();
    events.push(arrival.clone());
    let mut departure = event("DEPA", Transport, "NLRTM", 1, Some("VESSEL"));
    departure.bills_of_lading = vec!["MAEU123456789".into()];
    events.push(departure);
    let d = derive_all(&events);
    assert_eq!(d.containers.len(), 3);
    for c in &d.containers {
        let named = arrival.containers.iter().any(|n| c.number == *n);
        assert_eq!(
            c.pod_arrived_at.is_some(),
            named,
            "{}: the arrival names {:?}",
            c.number,
            arrival.containers
        );
    }
    // The departure names only the bill: it is linked to all three containers.
    let depa = events.len() - 1;
    assert_eq!(d.links.iter().filter(|l| l.event_index == depa).count(), 3);
    // The arrival, to the two it names.
    assert_eq!(d.links.iter().filter(|l| l.event_index == 3).count(), 2);
}

/// A booking-only event attaches to the bill of lading that a later event pairs it with,
/// whatever the order of the events.
#[test]
fn a_booking_only_event_joins_its_bill_of_lading_in_any_order() {
    use EventType::*;
    let mut gate_out = event("GTOT", Equipment, "NLRTM", 1, Some("TRUCK"));
    gate_out.bills_of_lading = Vec::new();
    gate_out.bookings = vec!["BKG1".into()];
    let mut load = event("LOAD", Equipment, "NLRTM", 2, Some("VESSEL"));
    load.bookings = vec!["BKG1".into()];
    let a = derive_all(&[gate_out.clone(), load.clone()]);
    let b = derive_all(&[load, gate_out]);
    assert_eq!(a.shipments.len(), 1);
    assert_eq!(a.shipments[0].bill_of_lading_number, "MAEU123456789");
    assert_eq!(a.shipments[0].ref_numbers, ["BKG1"]);
    assert_eq!(a.shipments, b.shipments);
    assert_eq!(a.containers, b.containers);
}

#[test]
fn an_inland_move_after_the_pod_names_the_destination() {
    use EventType::*;
    let events = vec![
        event("LOAD", Equipment, "NLRTM", 1, Some("VESSEL")),
        event("DEPA", Transport, "NLRTM", 1, Some("VESSEL")),
        event("ARRI", Transport, "USNYC", 10, Some("VESSEL")),
        event("DISC", Equipment, "USNYC", 11, Some("VESSEL")),
        event("LOAD", Equipment, "USNYC", 12, Some("RAIL")),
        event("DEPA", Transport, "USNYC", 12, Some("RAIL")),
        event("ARRI", Transport, "USCHI", 14, Some("RAIL")),
        event("DISC", Equipment, "USCHI", 14, Some("RAIL")),
        event("GTOT", Equipment, "USCHI", 15, Some("TRUCK")),
    ];
    let mut events = events;
    for e in events
        .iter_mut()
        .filter(|e| e.mode_of_transport.as_deref() == Some("RAIL"))
    {
        e.carrier_scac = Some("CSXT".into());
    }
    let mut eta = events[6].clone();
    eta.event_id = "rail-eta".into();
    eta.classifier = Classifier::Est;
    eta.event_created_at = Some(events[4].event_at);
    events.push(eta);
    let (ports, carriers) = reference::bundled();
    let d = derive(
        Uuid::from_u128(9),
        &events,
        &Refs { ports, carriers },
        Utc::now(),
    )
    .unwrap();
    let s = &d.shipments[0];
    assert_eq!(s.port_of_discharge_locode.as_deref(), Some("USNYC"));
    assert_eq!(s.destination_locode.as_deref(), Some("USCHI"));
    assert_eq!(s.destination_timezone.as_deref(), Some("America/Chicago"));
    assert_eq!(s.destination_ata_at, Some(events[6].event_at));
    let c = &d.containers[0];
    assert_eq!(c.final_destination_full_out_at, Some(events[8].event_at));
    assert_eq!(c.pod_rail_loaded_at, Some(events[4].event_at));
    assert_eq!(c.pod_rail_departed_at, Some(events[5].event_at));
    assert_eq!(c.ind_ata_at, Some(events[6].event_at));
    assert_eq!(c.ind_eta_at, Some(events[6].event_at));
    assert_eq!(c.ind_rail_unloaded_at, Some(events[7].event_at));
    assert_eq!(c.pod_rail_carrier_scac.as_deref(), Some("CSXT"));
    assert_eq!(c.ind_rail_carrier_scac.as_deref(), Some("CSXT"));
    assert_eq!(c.current_status, ContainerStatus::PickedUp);
    // The same journey seen up to each step: the status follows the latest movement.
    let expect = [
        (3, ContainerStatus::OnShip),
        (4, ContainerStatus::AwaitingInlandTransfer),
        (5, ContainerStatus::OnRail),
        (8, ContainerStatus::Grounded),
    ];
    for (n, status) in expect {
        // What the carrier had sent by then: the actual events so far and the rail plan.
        let mut seen = events[..n].to_vec();
        seen.push(events[9].clone());
        let d = derive(
            Uuid::from_u128(9),
            &seen,
            &Refs { ports, carriers },
            Utc::now(),
        )
        .unwrap();
        assert_eq!(d.containers[0].current_status, status, "after {n} events");
    }
    assert_eq!(
        c.final_destination_timezone.as_deref(),
        Some("America/Chicago")
    );
    assert_eq!(
        c.pod_full_out_at, None,
        "no full-out at the POD on an inland move"
    );
}

//! Unit tests of normalization.

use super::rows::{equipment_from_iso, normalized_number};
use super::*;
use crate::feeds;
use crate::reference;

fn refs() -> Refs<'static> {
    let (ports, carriers) = reference::bundled();
    Refs { ports, carriers }
}

fn sample(name: &str) -> Vec<EventRow> {
    let path = format!("{}/../data/dcsa/{name}", env!("CARGO_MANIFEST_DIR"));
    feeds::read_file(std::path::Path::new(&path))
        .expect(name)
        .events
        .into_iter()
        .map(|e| e.row)
        .collect()
}

#[test]
fn the_dcsa_22_sample_becomes_one_shipment_and_one_container() {
    let account = Uuid::from_u128(1);
    let now = Utc::now();
    let d = derive(account, &sample("tnt-220-response.json"), &refs(), now).unwrap();
    assert_eq!(d.shipments.len(), 1);
    assert_eq!(d.containers.len(), 1);
    assert!(d.unattached.is_empty());
    let s = &d.shipments[0];
    assert_eq!(s.bill_of_lading_number, "reserved-HHL123");
    // The booking and the values of the sample's FF (freight forwarder's) references: the
    // DCSA sample gives "string" on most events and "APZU4812090" on its last LOAD.
    assert_eq!(s.ref_numbers, ["ABC123123123", "APZU4812090", "string"]);
    assert_eq!(s.shipping_line_scac, "MAEU");
    // The sample's events: King of the Seas arrives at Paris (ACT) and the box is to be
    // loaded onto it there (LOAD, EST). By the DCSA definitions Paris is where the box
    // leaves from, the port of lading; no later call is given, so there is no POD yet,
    // and the vessel's arrival before the load is not the box's.
    assert_eq!(s.port_of_lading_locode.as_deref(), Some("FRPAR"));
    assert_eq!(s.pol_timezone.as_deref(), Some("Europe/Paris"));
    assert_eq!(s.port_of_discharge_locode, None);
    assert_eq!(s.pod_vessel_name, None);
    assert_eq!(s.pod_ata_at, None);
    let c = &d.containers[0];
    assert_eq!(c.number, "APZU4812090");
    assert_eq!(c.shipment_id, s.id);
    assert_eq!(c.pod_arrived_at, None);
    assert_eq!(c.current_status, crate::model::ContainerStatus::New);
    assert_eq!(
        (c.equipment_length, c.equipment_type.as_deref()),
        (Some(20), Some("dry"))
    );
    // Every event applies to the one container.
    assert_eq!(d.links.len(), 7);
}

#[test]
fn iso_size_type_codes() {
    assert_eq!(
        equipment_from_iso("45G1"),
        (Some("dry".into()), Some(40), Some("high_cube".into()))
    );
    assert_eq!(
        equipment_from_iso("22R1"),
        (Some("reefer".into()), Some(20), Some("standard".into()))
    );
    assert_eq!(equipment_from_iso("L5G1").1, Some(45));
    assert_eq!(equipment_from_iso("22UT").0.as_deref(), Some("open top"));
    assert_eq!(equipment_from_iso("x"), (None, None, None));
    assert_eq!(
        normalized_number("MEDU 1234567", "MSCU", Some("MEDU")),
        "1234567"
    );
}

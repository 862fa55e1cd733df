//! Derivation over generated feeds: the same events in any order give the same records, and
//! every generated journey derives milestones in a consistent order
//! (`teu_pipeline::normalize::derive`).

use chrono::Utc;
use teu_pipeline::feeds;
use teu_pipeline::model::{ContainerStatus, EventRow};
use teu_pipeline::normalize::{derive, Refs};
use teu_pipeline::reference;
use teu_synth::dcsa::{self, GenOptions};
use uuid::Uuid;

fn refs() -> Refs<'static> {
    let (ports, carriers) = reference::bundled();
    Refs { ports, carriers }
}

fn generated(shipments: usize, seed: u64) -> Vec<EventRow> {
    let files = dcsa::generate(&GenOptions {
        shipments,
        seed,
        events_per_file: 0,
    });
    files
        .into_iter()
        .flat_map(|f| {
            feeds::dcsa::read_value(serde_json::Value::Array(f.events), "gen")
                .expect("generated feed reads")
                .events
        })
        .map(|e| e.row)
        .collect()
}

#[test]
fn event_order_does_not_matter() {
    let account = Uuid::from_u128(2);
    let now = Utc::now();
    let mut events = generated(25, 9);
    let a = derive(account, &events, &refs(), now).unwrap();
    events.reverse();
    let b = derive(account, &events, &refs(), now).unwrap();
    assert_eq!(a.shipments, b.shipments);
    assert_eq!(a.containers, b.containers);
    assert_eq!(a.shipments.len(), 25);
}

#[test]
fn generated_journeys_derive_consistent_milestones() {
    let d = derive(Uuid::from_u128(3), &generated(60, 4), &refs(), Utc::now()).unwrap();
    let mut statuses = std::collections::HashSet::new();
    for c in &d.containers {
        statuses.insert(c.current_status);
        if let (Some(arr), Some(disc)) = (c.pod_arrived_at, c.pod_discharged_at) {
            assert!(arr <= disc, "{}: arrival before discharge", c.number);
        }
        if let (Some(disc), Some(out)) = (c.pod_discharged_at, c.pod_full_out_at) {
            assert!(disc <= out, "{}: discharge before full-out", c.number);
        }
        match c.current_status {
            ContainerStatus::EmptyReturned => {
                assert!(c.empty_terminated_at.is_some() && c.empty_terminated_timezone.is_some())
            }
            ContainerStatus::PickedUp => {
                assert!(c.pod_full_out_at.is_some() && c.empty_terminated_at.is_none())
            }
            ContainerStatus::Grounded => {
                assert!(c.pod_discharged_at.is_some() && c.pod_full_out_at.is_none())
            }
            ContainerStatus::OnShip => assert!(c.pod_discharged_at.is_none()),
            _ => {}
        }
        assert!(
            c.pod_timezone.is_some(),
            "{}: POD {:?} has a zone",
            c.number,
            c.pod_locode
        );
    }
    for s in &d.shipments {
        assert_ne!(
            s.port_of_lading_locode, s.port_of_discharge_locode,
            "{}",
            s.bill_of_lading_number
        );
        assert!(!s.shipping_line_name.is_empty());
        if let (Some(etd), Some(eta)) = (s.pol_atd_at.or(s.pol_etd_at), s.pod_eta_at) {
            assert!(
                etd < eta,
                "{}: departs before it arrives",
                s.bill_of_lading_number
            );
        }
    }
    assert!(statuses.len() >= 4, "{statuses:?}");
}

//! What terminals and shipping lines say about a container, applied on top of what its events
//! say ([`crate::normalize`]).
//!
//! | field | rule |
//! |---|---|
//! | `availability_known` | a terminal feed has checked the container at its POD terminal (this journey) |
//! | `available_for_pickup`, `holds_at_pod_terminal`, `fees_at_pod_terminal`, `location_at_pod_terminal`, `terminal_checked_at`, `pickup_appointment_at` | the latest POD check (by `checked_at`) |
//! | `pod_full_out_at` | the events' laden `GTOT`; else the earliest full-out a POD check reports |
//! | `pod_full_out_chassis_number` | the chassis of the latest POD check that names one |
//! | `import_deadlines.pickup_lfd_terminal` | the last free day of the latest POD check that gives one |
//! | `import_deadlines.pickup_lfd_rail`, `ind_facility_lfd_on` | the same at the destination (inland rail) terminal |
//! | `import_deadlines.pickup_lfd_line` | the latest-issued line deadline for the container, else for its bill of lading |
//! | `pickup_lfd` | `pickup_lfd_line`, else `pickup_lfd_rail` on inland moves, else `pickup_lfd_terminal` (interface.md: coalesce preferring the line) |
//! | `pod_terminal` | the terminal of the events' POD call, else of the latest POD check |
//!
//! A check belongs to this journey when it is at the POD's UN/LOCODE and not older than two days
//! before the vessel's arrival there (when the arrival is known).
//!
//! Status (refines [`crate::status`]): when the latest POD check is newer than the latest actual
//! movement and the container sits at the POD (`grounded` or `awaiting_inland_transfer`), a
//! reported full-out makes it `picked_up`; otherwise a hold (status `hold`) or
//! `available_for_pickup = false` makes it `not_available`, and `available_for_pickup = true`
//! makes it `available`. A check older than the latest movement changes nothing, so a late file
//! cannot undo newer facts.

use chrono::Duration;

use std::collections::HashMap;

use uuid::Uuid;

use crate::model::{
    Container, ContainerNumber, ContainerStatus, ImportDeadlines, LineDeadline, Shipment,
    TerminalCheck,
};

/// How long before the vessel's arrival a check may be and still belong to this journey.
const JOURNEY_SLACK_DAYS: i64 = 2;

/// Applies `checks` and `deadlines` (any order; those of other containers are ignored) to
/// `container` of `shipment` (rules in the module documentation).
pub fn apply(
    container: &mut Container,
    shipment: Option<&Shipment>,
    checks: &[TerminalCheck],
    deadlines: &[LineDeadline],
) {
    let checks: Vec<&TerminalCheck> = checks.iter().collect();
    let deadlines: Vec<&LineDeadline> = deadlines.iter().collect();
    apply_own(container, shipment, &checks, &deadlines);
}

/// [`apply`] to every container of a derivation, each of the shipment `shipments` maps its
/// `shipment_id` to. The checks are grouped by container number, and the line deadlines by
/// container number and (those naming none) by bill of lading, once: each container then reads
/// its own facts instead of every fact of the derivation (a group of 2,000 containers and 3,600
/// checks compared every pair).
pub fn apply_all(
    containers: &mut [Container],
    shipments: &HashMap<Uuid, Shipment>,
    checks: &[TerminalCheck],
    deadlines: &[LineDeadline],
) {
    let mut checks_of: HashMap<&ContainerNumber, Vec<&TerminalCheck>> = HashMap::new();
    for c in checks {
        checks_of.entry(&c.container_number).or_default().push(c);
    }
    let mut deadlines_of: HashMap<&ContainerNumber, Vec<&LineDeadline>> = HashMap::new();
    let mut deadlines_of_bill: HashMap<&str, Vec<&LineDeadline>> = HashMap::new();
    for d in deadlines {
        match (&d.container_number, d.bill_of_lading.as_deref()) {
            (Some(number), _) => deadlines_of.entry(number).or_default().push(d),
            (None, Some(bill)) => deadlines_of_bill.entry(bill).or_default().push(d),
            (None, None) => {}
        }
    }
    for container in containers {
        let shipment = shipments.get(&container.shipment_id);
        let own_checks = checks_of
            .get(&container.number)
            .map_or(&[][..], Vec::as_slice);
        let mut own_deadlines = deadlines_of
            .get(&container.number)
            .cloned()
            .unwrap_or_default();
        if let Some(of_bill) =
            shipment.and_then(|s| deadlines_of_bill.get(s.bill_of_lading_number.as_str()))
        {
            own_deadlines.extend(of_bill);
        }
        apply_own(container, shipment, own_checks, &own_deadlines);
    }
}

/// [`apply`] over borrowed facts.
fn apply_own(
    container: &mut Container,
    shipment: Option<&Shipment>,
    checks: &[&TerminalCheck],
    deadlines: &[&LineDeadline],
) {
    let arrived = container.pod_arrived_at.or(container.pod_discharged_at);
    let in_journey = |c: &&TerminalCheck| {
        c.container_number == container.number
            && arrived.is_none_or(|a| c.checked_at >= a - Duration::days(JOURNEY_SLACK_DAYS))
    };
    let mut at_pod: Vec<&TerminalCheck> = checks
        .iter()
        .copied()
        .filter(in_journey)
        .filter(|c| container.pod_locode.as_deref() == Some(c.terminal_locode.as_str()))
        .collect();
    at_pod.sort_by_key(|c| c.checked_at);
    let destination = shipment.and_then(|s| s.destination_locode.as_deref());
    let mut at_destination: Vec<&TerminalCheck> = checks
        .iter()
        .copied()
        .filter(in_journey)
        .filter(|c| destination.is_some() && destination == Some(c.terminal_locode.as_str()))
        .collect();
    at_destination.sort_by_key(|c| c.checked_at);

    if let Some(latest) = at_pod.last() {
        container.availability_known = true;
        container.available_for_pickup = latest.available_for_pickup;
        container.holds_at_pod_terminal = latest.holds.clone();
        container.fees_at_pod_terminal = latest.fees.clone();
        container.location_at_pod_terminal = latest.location.clone();
        container.terminal_checked_at = Some(latest.checked_at);
        container.pickup_appointment_at = latest.pickup_appointment_at;
        if container.pod_terminal_id.is_none() {
            container.pod_terminal_id = Some(latest.terminal_id);
        }
    }
    if container.pod_full_out_at.is_none() {
        container.pod_full_out_at = at_pod.iter().filter_map(|c| c.full_out_at).min();
    }
    container.pod_full_out_chassis_number =
        at_pod.iter().rev().find_map(|c| c.chassis_number.clone());
    let terminal_lfd = at_pod.iter().rev().find_map(|c| c.last_free_day);
    let rail_lfd = at_destination.iter().rev().find_map(|c| c.last_free_day);
    let bl = shipment.map(|s| s.bill_of_lading_number.as_str());
    let line_lfd = latest_deadline(deadlines, |d| {
        d.container_number.as_deref() == Some(container.number.as_str())
    })
    .or_else(|| {
        latest_deadline(deadlines, |d| {
            d.container_number.is_none() && bl.is_some() && d.bill_of_lading.as_deref() == bl
        })
    });
    container.import_deadlines = (terminal_lfd.is_some()
        || rail_lfd.is_some()
        || line_lfd.is_some())
    .then_some(ImportDeadlines {
        pickup_lfd_terminal: terminal_lfd,
        pickup_lfd_rail: rail_lfd,
        pickup_lfd_line: line_lfd,
    });
    container.ind_facility_lfd_on = rail_lfd;
    container.pickup_lfd = line_lfd.or(if destination.is_some() {
        rail_lfd.or(terminal_lfd)
    } else {
        terminal_lfd
    });

    if let Some(latest) = at_pod.last() {
        let newer = container
            .last_movement_at
            .is_none_or(|m| latest.checked_at >= m);
        let at_terminal = matches!(
            container.current_status,
            ContainerStatus::Grounded
                | ContainerStatus::AwaitingInlandTransfer
                | ContainerStatus::Available
                | ContainerStatus::NotAvailable
        );
        if newer && at_terminal {
            container.current_status = if latest.full_out_at.is_some() {
                ContainerStatus::PickedUp
            } else if latest.holds.iter().any(|h| h.status == "hold")
                || latest.available_for_pickup == Some(false)
            {
                ContainerStatus::NotAvailable
            } else if latest.available_for_pickup == Some(true) {
                ContainerStatus::Available
            } else {
                container.current_status
            };
        }
    }
}

fn latest_deadline(
    deadlines: &[&LineDeadline],
    matches: impl Fn(&LineDeadline) -> bool,
) -> Option<chrono::DateTime<chrono::Utc>> {
    deadlines
        .iter()
        .filter(|d| matches(d))
        .max_by_key(|d| (d.issued_at, d.pickup_lfd_line))
        .map(|d| d.pickup_lfd_line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{TerminalFee, TerminalHold};
    use chrono::{DateTime, Utc};
    use uuid::Uuid;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn container() -> Container {
        let json = r#"{
            "id": "00000000-0000-0000-0000-000000000001", "account_id": "00000000-0000-0000-0000-000000000002", "shipment_id": "00000000-0000-0000-0000-000000000003",
            "number": "MSKU1234565", "ref_numbers": [], "seal_number": null,
            "created_at": "2026-03-01T00:00:00Z", "refreshed_at": "2026-03-01T00:00:00Z",
            "equipment_type": null, "equipment_length": null, "equipment_height": null, "weight_in_lbs": null,
            "pickup_lfd": null, "pickup_appointment_at": null, "availability_known": false, "available_for_pickup": null,
            "pod_arrived_at": "2026-03-09T10:00:00Z", "pod_discharged_at": "2026-03-10T02:00:00Z", "pod_full_out_at": null,
            "terminal_checked_at": null, "pod_full_out_chassis_number": null, "location_at_pod_terminal": null,
            "final_destination_full_out_at": null, "empty_terminated_at": null, "holds_at_pod_terminal": [],
            "fees_at_pod_terminal": [], "pod_timezone": "America/Los_Angeles", "final_destination_timezone": null,
            "empty_terminated_timezone": null, "pod_rail_carrier_scac": null, "ind_rail_carrier_scac": null,
            "pod_last_tracking_request_at": null, "shipment_last_tracking_request_at": null, "pod_rail_loaded_at": null,
            "pod_rail_departed_at": null, "ind_eta_at": null, "ind_ata_at": null, "ind_rail_unloaded_at": null,
            "ind_facility_lfd_on": null, "import_deadlines": null, "current_status": "grounded", "pod_locode": "USLAX",
            "pod_terminal_id": null, "pickup_facility_id": null, "last_movement_at": "2026-03-10T02:00:00Z"
        }"#;
        serde_json::from_str(json).unwrap()
    }

    fn check(at: &str, available: Option<bool>, holds: Vec<TerminalHold>) -> TerminalCheck {
        TerminalCheck {
            terminal_id: Uuid::from_u128(7),
            terminal_locode: crate::model::UnLocode::parse("USLAX").unwrap(),
            container_number: crate::model::ContainerNumber::parse("MSKU1234565").unwrap(),
            checked_at: t(at),
            available_for_pickup: available,
            location: Some("B12".into()),
            holds,
            fees: vec![TerminalFee {
                fee_type: "demurrage".into(),
                amount: 100.0,
                currency_code: Some("USD".into()),
            }],
            last_free_day: Some(t("2026-03-13T07:00:00Z")),
            pickup_appointment_at: None,
            full_out_at: None,
            chassis_number: None,
        }
    }

    fn shipment() -> Shipment {
        serde_json::from_str(r#"{
            "id": "00000000-0000-0000-0000-000000000003", "account_id": "00000000-0000-0000-0000-000000000002", "bill_of_lading_number": "MAEU1",
            "normalized_number": "1", "ref_numbers": [], "created_at": "2026-03-01T00:00:00Z", "refreshed_at": "2026-03-01T00:00:00Z",
            "tags": [], "port_of_lading_locode": null, "port_of_lading_name": null, "port_of_discharge_locode": "USLAX",
            "port_of_discharge_name": null, "destination_locode": null, "destination_name": null, "shipping_line_scac": "MAEU",
            "shipping_line_name": "Maersk", "shipping_line_short_name": "Maersk", "customer_name": null, "pod_vessel_name": null,
            "pod_vessel_imo": null, "pod_voyage_number": null, "pol_etd_at": null, "pol_atd_at": null, "pod_eta_at": null,
            "pod_original_eta_at": null, "pod_ata_at": null, "destination_eta_at": null, "destination_ata_at": null,
            "pol_timezone": null, "pod_timezone": null, "destination_timezone": null, "line_tracking_last_attempted_at": null,
            "line_tracking_last_succeeded_at": null, "line_tracking_stopped_at": null, "line_tracking_stopped_reason": null
        }"#)
        .unwrap()
    }

    fn customs() -> Vec<TerminalHold> {
        vec![TerminalHold {
            name: "CUSTOMS".into(),
            status: "hold".into(),
            description: None,
        }]
    }

    #[test]
    fn each_status_rule() {
        let mut c = container();
        apply(
            &mut c,
            None,
            &[check("2026-03-10T08:00:00Z", Some(false), customs())],
            &[],
        );
        assert_eq!(c.current_status, ContainerStatus::NotAvailable);
        assert!(c.availability_known);
        assert_eq!(c.holds_at_pod_terminal.len(), 1);

        let mut c = container();
        apply(
            &mut c,
            None,
            &[check("2026-03-10T08:00:00Z", Some(true), vec![])],
            &[],
        );
        assert_eq!(c.current_status, ContainerStatus::Available);
        assert_eq!(c.pickup_lfd, Some(t("2026-03-13T07:00:00Z")));

        let mut c = container();
        let mut out = check("2026-03-11T08:00:00Z", Some(true), vec![]);
        out.full_out_at = Some(t("2026-03-11T07:30:00Z"));
        out.chassis_number = Some("ZCSU123".into());
        apply(&mut c, None, &[out], &[]);
        assert_eq!(c.current_status, ContainerStatus::PickedUp);
        assert_eq!(c.pod_full_out_at, Some(t("2026-03-11T07:30:00Z")));
        assert_eq!(c.pod_full_out_chassis_number.as_deref(), Some("ZCSU123"));

        // Unknown availability and no holds leave the event status alone.
        let mut c = container();
        apply(
            &mut c,
            None,
            &[check("2026-03-10T08:00:00Z", None, vec![])],
            &[],
        );
        assert_eq!(c.current_status, ContainerStatus::Grounded);
    }

    #[test]
    fn out_of_order_checks_and_stale_checks() {
        // An older check arriving later does not undo the newer one.
        let newer = check("2026-03-11T08:00:00Z", Some(true), vec![]);
        let older = check("2026-03-10T08:00:00Z", Some(false), customs());
        let mut c = container();
        apply(&mut c, None, &[newer.clone(), older.clone()], &[]);
        assert_eq!(c.current_status, ContainerStatus::Available);
        assert_eq!(c.terminal_checked_at, Some(newer.checked_at));
        // A check older than the latest movement does not change the status.
        let mut c = container();
        c.last_movement_at = Some(t("2026-03-12T00:00:00Z"));
        apply(&mut c, None, &[newer], &[]);
        assert_eq!(c.current_status, ContainerStatus::Grounded);
        // A check from a previous journey (long before this arrival) is ignored.
        let mut c = container();
        apply(
            &mut c,
            None,
            &[check("2025-11-01T08:00:00Z", Some(false), customs())],
            &[],
        );
        assert!(!c.availability_known);
    }

    #[test]
    fn deadlines_coalesce_preferring_the_line() {
        let mut c = container();
        let line_old = LineDeadline {
            container_number: None,
            bill_of_lading: Some("MAEU1".into()),
            pickup_lfd_line: t("2026-03-12T07:00:00Z"),
            issued_at: t("2026-03-08T00:00:00Z"),
        };
        let line_new = LineDeadline {
            pickup_lfd_line: t("2026-03-15T07:00:00Z"),
            issued_at: t("2026-03-09T00:00:00Z"),
            ..line_old.clone()
        };
        let shipment = shipment();
        apply(
            &mut c,
            Some(&shipment),
            &[check("2026-03-10T08:00:00Z", Some(true), vec![])],
            &[line_new, line_old],
        );
        let d = c.import_deadlines.clone().unwrap();
        assert_eq!(d.pickup_lfd_terminal, Some(t("2026-03-13T07:00:00Z")));
        assert_eq!(
            d.pickup_lfd_line,
            Some(t("2026-03-15T07:00:00Z")),
            "the latest issued wins"
        );
        assert_eq!(c.pickup_lfd, d.pickup_lfd_line);
        assert_eq!(d.pickup_lfd_rail, None);
    }
    /// Each container of a derivation gets from [`apply_all`] what [`apply`] gives it with
    /// every fact of the derivation: its own checks, its own line deadline, its bill of
    /// lading's, none of another container's or bill's.
    #[test]
    fn apply_all_gives_each_container_what_apply_gives() {
        let number = |n: &str| crate::model::ContainerNumber::parse(n).unwrap();
        let shipment = shipment();
        let mut other_shipment = shipment.clone();
        other_shipment.id = Uuid::from_u128(4);
        other_shipment.bill_of_lading_number = "MAEU2".into();
        let mut containers = vec![container(), container(), container()];
        containers[1].number = number("TTNU3575223");
        containers[2].number = number("MSKU2935385");
        containers[2].shipment_id = other_shipment.id;
        let mut second = check("2026-03-11T08:00:00Z", Some(false), customs());
        second.container_number = containers[1].number.clone();
        second.last_free_day = Some(t("2026-03-16T07:00:00Z"));
        let checks = vec![
            check("2026-03-10T08:00:00Z", Some(true), vec![]),
            second,
            check("2026-03-12T08:00:00Z", Some(true), vec![]),
        ];
        let deadline = |container: Option<&str>, bill: Option<&str>, lfd: &str| LineDeadline {
            container_number: container.map(number),
            bill_of_lading: bill.map(str::to_string),
            pickup_lfd_line: t(lfd),
            issued_at: t("2026-03-08T00:00:00Z"),
        };
        let deadlines = vec![
            deadline(None, Some("MAEU1"), "2026-03-14T07:00:00Z"),
            deadline(Some("TTNU3575223"), None, "2026-03-17T07:00:00Z"),
            deadline(None, Some("MAEU2"), "2026-03-18T07:00:00Z"),
            deadline(None, None, "2026-03-19T07:00:00Z"),
        ];
        let shipments: HashMap<Uuid, Shipment> = [shipment, other_shipment]
            .into_iter()
            .map(|s| (s.id, s))
            .collect();
        let mut each = containers.clone();
        for c in &mut each {
            apply(c, shipments.get(&c.shipment_id), &checks, &deadlines);
        }
        apply_all(&mut containers, &shipments, &checks, &deadlines);
        for (all, one) in containers.iter().zip(&each) {
            assert_eq!(
                serde_json::to_value(all).unwrap(),
                serde_json::to_value(one).unwrap(),
                "{}",
                one.number
            );
        }
        let lfds: Vec<_> = containers.iter().map(|c| c.pickup_lfd).collect();
        assert_eq!(
            lfds,
            [
                Some(t("2026-03-14T07:00:00Z")),
                Some(t("2026-03-17T07:00:00Z")),
                Some(t("2026-03-18T07:00:00Z"))
            ]
        );
        assert_eq!(containers[1].available_for_pickup, Some(false));
        assert_eq!(containers[2].available_for_pickup, None);
    }
}

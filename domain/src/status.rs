//! `current_status` rules: which event moves a container to which status.
//!
//! The status is decided by the container's **latest actual movement**: the `ACT` event with the
//! latest `eventDateTime` among the movement events below (ties: the later `eventCreatedDateTime`).
//! Estimated and planned events never move a container; shipment (document) events and
//! equipment events that do not move the box (`INSP`, `RSEA`, `RMVD`) keep the
//! status it had. Because the rule looks at event time, not arrival order, a late file with an
//! older event cannot undo a newer one.
//!
//! | latest actual movement | where | status |
//! |---|---|---|
//! | none | | `new` |
//! | equipment `STUF` (cargo stuffed into the box) | before the vessel load | `loaded` |
//! | equipment `GTOT` empty, `GTIN` laden | before the vessel load, box already stuffed | `loaded` |
//! | equipment `GTOT` empty, `GTIN` laden | before the vessel load | `new` |
//! | equipment `LOAD` (vessel, or mode not given) | any port | `on_ship` |
//! | transport `DEPA`, `ARRI` (vessel) | while the box is aboard: an `ARRI` only after the box's first vessel `LOAD`/`DEPA`, neither after the box's discharge at the POD (Terminal49: `on_ship` from the vessel load or departure). Other vessel calls are not the box's movements | `on_ship` |
//! | equipment `DISC` | a transshipment port (not the POD) | `on_ship` (in transit) |
//! | equipment `DISC` | the POD, journey continues inland | `awaiting_inland_transfer` |
//! | equipment `DISC` | the POD | `grounded` (at the POD terminal; availability unknown without a terminal feed) |
//! | equipment `DISC` with mode `RAIL` | the inland rail ramp | `grounded` |
//! | equipment `LOAD`, transport `DEPA`/`ARRI` with mode `RAIL` | any | `on_rail` |
//! | equipment `GTIN`, `DROP`, `DISC` laden at facility type `OFFD` (off-dock storage, also the deprecated `COYA`) or `COFS` (container freight station), `STRP` at `COFS` | after discharge at the POD | `off_dock` |
//! | equipment `GTIN` laden at facility type `CLOC` (customer location), `STRP` elsewhere (the box emptied of its cargo) | after discharge at the POD | `delivered` |
//! | equipment `GTOT` laden, `PICK` laden | the POD or inland after discharge | `picked_up` |
//! | equipment `DROP` laden | after pickup | `dropped` |
//! | equipment `GTIN` empty, `DROP` empty | after discharge at the POD | `empty_returned` |
//!
//! The facility types are DCSA's `facilityTypeCode` values (T&T 2.2 `facilityTypeCodeTRN`, T&T
//! 3.0 `eventLocation.facilityTypeCode`). `off_dock` follows the spec's meaning "moved to an
//! off-dock yard where it waits for pickup"; `delivered` means the cargo reached the consignee;
//! `loaded` means the box holds its cargo (stuffed) but has not been loaded on a vessel yet.
//!
//! Source: DCSA T&T 2.2 code lists (event type codes) and the spec's status list
//! (`docs/interface.md`, States and transitions).

use crate::model::{ContainerStatus, EventType};

/// Equipment and transport event codes that move a container (the others keep its status).
pub const MOVEMENT_CODES: [&str; 10] = [
    "LOAD", "DISC", "GTIN", "GTOT", "PICK", "DROP", "DEPA", "ARRI", "STUF", "STRP",
];

/// Whether an event of this type and code can change a container's status.
pub fn is_movement(event_type: EventType, code: &str) -> bool {
    event_type != EventType::Shipment && MOVEMENT_CODES.contains(&code)
}

/// The latest actual movement of a container and what is known of its route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LastMovement<'a> {
    pub event_type: EventType,
    pub code: &'a str,
    /// `Some(true)` empty, `Some(false)` laden, `None` not given.
    pub empty: Option<bool>,
    /// `VESSEL`, `RAIL`, `TRUCK`, `BARGE` or `None`.
    pub mode: Option<&'a str>,
    /// DCSA facility type code of the event location (`OFFD`, `COFS`, `CLOC`, `POTE`, ...).
    pub facility_type: Option<&'a str>,
    /// Whether the event happened at the port of discharge.
    pub at_pod: bool,
    /// Whether the container has been discharged at the POD before or at this event.
    pub discharged_at_pod: bool,
    /// Whether the container has been loaded on a vessel before or at this event.
    pub loaded_on_vessel: bool,
    /// Whether the box had been stuffed (`STUF`) before or at this event.
    pub stuffed: bool,
    /// Whether the journey continues inland after the POD (the shipment has a destination).
    pub inland_move: bool,
}

/// Applies the table in the module documentation. `None` means no actual movement yet.
pub fn derive(last: Option<LastMovement<'_>>) -> ContainerStatus {
    let Some(m) = last else {
        return ContainerStatus::New;
    };
    let rail = m.mode == Some("RAIL");
    let laden = m.empty != Some(true);
    let off_dock = matches!(m.facility_type, Some("OFFD" | "COYA" | "COFS"));
    let customer = m.facility_type == Some("CLOC");
    match (m.event_type, m.code) {
        (EventType::Equipment, "STUF" | "GTOT" | "GTIN") if !m.loaded_on_vessel && m.stuffed => {
            ContainerStatus::Loaded
        }
        (EventType::Equipment, "LOAD") if rail => ContainerStatus::OnRail,
        (EventType::Equipment, "LOAD") => ContainerStatus::OnShip,
        (EventType::Transport, "DEPA" | "ARRI") if rail => ContainerStatus::OnRail,
        (EventType::Transport, "DEPA" | "ARRI") => ContainerStatus::OnShip,
        (EventType::Equipment, "GTIN" | "DROP") if laden && off_dock && m.discharged_at_pod => {
            ContainerStatus::OffDock
        }
        (EventType::Equipment, "DISC")
            if laden && off_dock && m.discharged_at_pod && m.mode == Some("TRUCK") =>
        {
            ContainerStatus::OffDock
        }
        (EventType::Equipment, "DISC") if rail => ContainerStatus::Grounded,
        (EventType::Equipment, "DISC") if m.at_pod && m.inland_move => {
            ContainerStatus::AwaitingInlandTransfer
        }
        (EventType::Equipment, "DISC") if m.at_pod => ContainerStatus::Grounded,
        (EventType::Equipment, "DISC") => ContainerStatus::OnShip,
        (EventType::Equipment, "GTIN" | "DROP") if m.empty == Some(true) && m.discharged_at_pod => {
            ContainerStatus::EmptyReturned
        }
        (EventType::Equipment, "STRP") if off_dock && m.discharged_at_pod => {
            ContainerStatus::OffDock
        }
        (EventType::Equipment, "GTIN") if laden && customer && m.discharged_at_pod => {
            ContainerStatus::Delivered
        }
        (EventType::Equipment, "STRP") if m.discharged_at_pod => ContainerStatus::Delivered,
        (EventType::Equipment, "DROP") if m.discharged_at_pod => ContainerStatus::Dropped,
        (EventType::Equipment, "GTOT" | "PICK") if m.empty != Some(true) && m.discharged_at_pod => {
            ContainerStatus::PickedUp
        }
        (EventType::Equipment, "GTIN") if m.discharged_at_pod => ContainerStatus::Grounded,
        _ if !m.loaded_on_vessel => ContainerStatus::New,
        // A movement after loading that the table does not name (e.g. a gate move at a
        // transshipment hub) leaves the box in transit.
        _ => ContainerStatus::OnShip,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ContainerStatus::*;

    fn m(t: EventType, code: &str) -> LastMovement<'_> {
        LastMovement {
            event_type: t,
            code,
            empty: Some(false),
            mode: Some("VESSEL"),
            facility_type: None,
            stuffed: false,
            at_pod: false,
            discharged_at_pod: false,
            loaded_on_vessel: false,
            inland_move: false,
        }
    }

    #[test]
    fn each_rule() {
        use EventType::*;
        assert_eq!(derive(None), New);
        let empty_out = LastMovement {
            empty: Some(true),
            mode: None,
            ..m(Equipment, "GTOT")
        };
        assert_eq!(derive(Some(empty_out)), New);
        assert_eq!(
            derive(Some(LastMovement {
                mode: None,
                ..m(Equipment, "GTIN")
            })),
            New
        );
        assert_eq!(derive(Some(m(Equipment, "LOAD"))), OnShip);
        assert_eq!(
            derive(Some(LastMovement {
                mode: None,
                ..m(Equipment, "LOAD")
            })),
            OnShip
        );
        assert_eq!(derive(Some(m(Transport, "DEPA"))), OnShip);
        assert_eq!(derive(Some(m(Transport, "ARRI"))), OnShip);
        let ts_disc = LastMovement {
            loaded_on_vessel: true,
            ..m(Equipment, "DISC")
        };
        assert_eq!(derive(Some(ts_disc)), OnShip);
        let pod_disc = LastMovement {
            at_pod: true,
            discharged_at_pod: true,
            loaded_on_vessel: true,
            ..m(Equipment, "DISC")
        };
        assert_eq!(derive(Some(pod_disc)), Grounded);
        let inland = LastMovement {
            inland_move: true,
            ..pod_disc
        };
        assert_eq!(derive(Some(inland)), AwaitingInlandTransfer);
        let ramp = LastMovement {
            mode: Some("RAIL"),
            at_pod: false,
            inland_move: true,
            ..pod_disc
        };
        assert_eq!(derive(Some(ramp)), Grounded);
        assert_eq!(
            derive(Some(LastMovement {
                mode: Some("RAIL"),
                ..m(Equipment, "LOAD")
            })),
            OnRail
        );
        let full_out = LastMovement {
            at_pod: true,
            discharged_at_pod: true,
            loaded_on_vessel: true,
            mode: Some("TRUCK"),
            ..m(Equipment, "GTOT")
        };
        assert_eq!(derive(Some(full_out)), PickedUp);
        let dropped = LastMovement {
            discharged_at_pod: true,
            loaded_on_vessel: true,
            ..m(Equipment, "DROP")
        };
        assert_eq!(derive(Some(dropped)), Dropped);
        let empty_in = LastMovement {
            empty: Some(true),
            discharged_at_pod: true,
            loaded_on_vessel: true,
            ..m(Equipment, "GTIN")
        };
        assert_eq!(derive(Some(empty_in)), EmptyReturned);
    }

    #[test]
    fn export_side_loaded() {
        use EventType::*;
        let stuffed = LastMovement {
            mode: None,
            stuffed: true,
            ..m(Equipment, "STUF")
        };
        assert_eq!(derive(Some(stuffed)), Loaded);
        // Gated in at the POL after stuffing: still loaded, not yet on the vessel.
        let gate_in = LastMovement {
            mode: Some("TRUCK"),
            ..stuffed
        };
        assert_eq!(
            derive(Some(LastMovement {
                code: "GTIN",
                ..gate_in
            })),
            Loaded
        );
        // Without a stuffing event a laden gate-in says nothing about the cargo.
        assert_eq!(
            derive(Some(LastMovement {
                stuffed: false,
                code: "GTIN",
                ..gate_in
            })),
            New
        );
        // Once on the vessel the box is on_ship whatever came before.
        let on_board = LastMovement {
            code: "LOAD",
            mode: Some("VESSEL"),
            loaded_on_vessel: true,
            ..stuffed
        };
        assert_eq!(derive(Some(on_board)), OnShip);
    }

    #[test]
    fn import_side_off_dock_delivered_dropped() {
        use EventType::*;
        let after_pod = |code, facility_type| LastMovement {
            mode: Some("TRUCK"),
            facility_type,
            discharged_at_pod: true,
            loaded_on_vessel: true,
            ..m(Equipment, code)
        };
        assert_eq!(derive(Some(after_pod("GTIN", Some("OFFD")))), OffDock);
        assert_eq!(derive(Some(after_pod("GTIN", Some("COFS")))), OffDock);
        assert_eq!(derive(Some(after_pod("DROP", Some("OFFD")))), OffDock);
        assert_eq!(derive(Some(after_pod("DISC", Some("OFFD")))), OffDock);
        assert_eq!(derive(Some(after_pod("STRP", Some("COFS")))), OffDock);
        assert_eq!(derive(Some(after_pod("GTIN", Some("CLOC")))), Delivered);
        assert_eq!(derive(Some(after_pod("STRP", Some("CLOC")))), Delivered);
        assert_eq!(derive(Some(after_pod("STRP", None))), Delivered);
        assert_eq!(derive(Some(after_pod("DROP", Some("CLOC")))), Dropped);
        // Leaving the off-dock yard laden is a pickup.
        assert_eq!(derive(Some(after_pod("GTOT", Some("OFFD")))), PickedUp);
        // An empty box gated in anywhere after discharge is returned, off-dock yard or not.
        let empty_in = LastMovement {
            empty: Some(true),
            ..after_pod("GTIN", Some("OFFD"))
        };
        assert_eq!(derive(Some(empty_in)), EmptyReturned);
        // Before discharge at the POD an off-dock gate-in (a transshipment hub's yard) keeps the
        // box in transit.
        let hub_yard = LastMovement {
            discharged_at_pod: false,
            ..after_pod("GTIN", Some("OFFD"))
        };
        assert_eq!(derive(Some(hub_yard)), OnShip);
        // A vessel discharge reported at an off-dock facility is still a discharge.
        let vessel_disc = LastMovement {
            mode: Some("VESSEL"),
            at_pod: true,
            ..after_pod("DISC", Some("OFFD"))
        };
        assert_eq!(derive(Some(vessel_disc)), Grounded);
    }

    #[test]
    fn shipment_events_and_non_moves_are_not_movements() {
        assert!(!is_movement(EventType::Shipment, "LOAD"));
        assert!(!is_movement(EventType::Equipment, "INSP"));
        assert!(is_movement(EventType::Equipment, "GTOT"));
        assert!(is_movement(EventType::Transport, "ARRI"));
        assert!(is_movement(EventType::Equipment, "STUF"));
        assert!(is_movement(EventType::Equipment, "STRP"));
    }
}

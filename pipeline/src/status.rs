//! `current_status` rules: which event moves a container to which status.
//!
//! The status is decided by the container's **latest actual movement**: the `ACT` event with the
//! latest `eventDateTime` among the movement events below (ties: the later `eventCreatedDateTime`).
//! Estimated and planned events never move a container; shipment (document) events and
//! equipment events that do not move the box (`STUF`, `STRP`, `INSP`, `RSEA`, `RMVD`) keep the
//! status it had. Because the rule looks at event time, not arrival order, a late file with an
//! older event cannot undo a newer one.
//!
//! | latest actual movement | where | status |
//! |---|---|---|
//! | none | | `new` |
//! | equipment `GTOT` empty, `GTIN` laden | before the vessel load at the POL | `new` |
//! | equipment `LOAD` (vessel, or mode not given) | any port | `on_ship` |
//! | transport `DEPA`, `ARRI` (vessel) | any port | `on_ship` |
//! | equipment `DISC` | a transshipment port (not the POD) | `on_ship` (in transit) |
//! | equipment `DISC` | the POD, journey continues inland | `awaiting_inland_transfer` |
//! | equipment `DISC` | the POD | `grounded` (at the POD terminal; availability unknown without a terminal feed) |
//! | equipment `DISC` with mode `RAIL` | the inland rail ramp | `grounded` |
//! | equipment `LOAD`, transport `DEPA`/`ARRI` with mode `RAIL` | any | `on_rail` |
//! | equipment `GTOT` laden, `PICK` laden | the POD or inland after discharge | `picked_up` |
//! | equipment `DROP` laden | after pickup | `dropped` |
//! | equipment `GTIN` empty, `DROP` empty | after discharge at the POD | `empty_returned` |
//!
//! Source: DCSA T&T 2.2 code lists (event type codes) and the spec's status list
//! (`spec/interface.md`, States and transitions).

use crate::model::{ContainerStatus, EventType};

/// Equipment and transport event codes that move a container (the others keep its status).
pub const MOVEMENT_CODES: [&str; 8] = [
    "LOAD", "DISC", "GTIN", "GTOT", "PICK", "DROP", "DEPA", "ARRI",
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
    /// Whether the event happened at the port of discharge.
    pub at_pod: bool,
    /// Whether the container has been discharged at the POD before or at this event.
    pub discharged_at_pod: bool,
    /// Whether the container has been loaded on a vessel before or at this event.
    pub loaded_on_vessel: bool,
    /// Whether the journey continues inland after the POD (the shipment has a destination).
    pub inland_move: bool,
}

/// Applies the table in the module documentation. `None` means no actual movement yet.
pub fn derive(last: Option<LastMovement<'_>>) -> ContainerStatus {
    let Some(m) = last else {
        return ContainerStatus::New;
    };
    let rail = m.mode == Some("RAIL");
    match (m.event_type, m.code) {
        (EventType::Equipment, "LOAD") if rail => ContainerStatus::OnRail,
        (EventType::Equipment, "LOAD") => ContainerStatus::OnShip,
        (EventType::Transport, "DEPA" | "ARRI") if rail => ContainerStatus::OnRail,
        (EventType::Transport, "DEPA" | "ARRI") => ContainerStatus::OnShip,
        (EventType::Equipment, "DISC") if rail => ContainerStatus::Grounded,
        (EventType::Equipment, "DISC") if m.at_pod && m.inland_move => {
            ContainerStatus::AwaitingInlandTransfer
        }
        (EventType::Equipment, "DISC") if m.at_pod => ContainerStatus::Grounded,
        (EventType::Equipment, "DISC") => ContainerStatus::OnShip,
        (EventType::Equipment, "GTIN" | "DROP") if m.empty == Some(true) && m.discharged_at_pod => {
            ContainerStatus::EmptyReturned
        }
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
    fn shipment_events_and_non_moves_are_not_movements() {
        assert!(!is_movement(EventType::Shipment, "LOAD"));
        assert!(!is_movement(EventType::Equipment, "INSP"));
        assert!(is_movement(EventType::Equipment, "GTOT"));
        assert!(is_movement(EventType::Transport, "ARRI"));
    }
}

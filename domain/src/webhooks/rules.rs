//! Which change emits which webhook event: one table ([`RULES`]) and the functions that apply
//! it to a derived record before and after an ingest ([`container_emissions`],
//! [`shipment_emissions`], [`tracking_request_succeeded`]).
//!
//! The rules compare what was stored with what the derivation now produces. A container seen for
//! the first time compares against an empty container (every field null), so a container whose
//! first feed already says it was discharged emits `container.created` and
//! `container.transport.vessel_discharged`. An unchanged re-ingest changes no stored row, so it
//! emits nothing (the store calls these functions only for rows whose content changed).
//!
//! Container events fire once per container (Terminal49's payload guide, "One notification per
//! container"); `shipment.estimated.arrival` once per shipment.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use uuid::Uuid;

use crate::model::{Container, ContainerStatus, Imo, Shipment, UnLocode};

/// Every event teu emits and the change that emits it: one source per event name. Events of
/// the catalog not listed here are accepted in subscriptions but not emitted (`docs/NOTES.md`,
/// issue 19, says why).
///
/// Sources: the `container.transport.*` milestones named in
/// [`super::event_rules::EVENT_SOURCED`] come from individual actual carrier events, new to the
/// container in this ingest ([`super::event_rules`]); the other milestones (`vessel_departed`,
/// `vessel_arrived`, `vessel_discharged`, `full_out`, `rail_loaded`, `rail_departed`,
/// `rail_unloaded`, `arrived_at_inland_destination`, `empty_in`, `delivered`) from a derived
/// container or shipment field that gets a value ([`container_emissions`]), never from both.
/// `tracking_request.*` come from the tracking request's status (`crate::tracking_requests`).
///
/// Not emitted, because teu's data cannot tell them: `container.transport.feeder_*` (DCSA
/// events do not say whether a vessel is a feeder), `container.transport.vessel_berthed`
/// (DCSA Track & Trace has no berthing event), `tracking_request.failed` (teu asks no shipping
/// line, so a number is never "not found", only not in the feeds yet),
/// `tracking_request.awaiting_manifest` (a number any stored event names has its shipment:
/// teu derives one even from events without a container) and `document.*`.
pub const RULES: &[(&str, &str)] = &[
    (
        "tracking_request.succeeded",
        "a pending tracking request finds its shipment (status pending → created)",
    ),
    (
        "container.created",
        "a container is stored for the first time",
    ),
    (
        "container.updated",
        "a stored container's terminal data changes: fees_at_pod_terminal, \
         holds_at_pod_terminal, pickup_lfd, pickup_lfd_line, pickup_lfd_terminal, pickup_lfd_rail, \
         pickup_appointment_at, available_for_pickup or pod_terminal (changeset: each changed \
         attribute → [previous, current])",
    ),
    (
        "container.pod_terminal_changed",
        "a stored container's POD terminal changes from one terminal to another",
    ),
    (
        "container.pickup_lfd.changed",
        "pickup_lfd changes (null → date included)",
    ),
    (
        "container.pickup_lfd_line.changed",
        "import_deadlines.pickup_lfd_line changes",
    ),
    (
        "container.pickup_lfd_terminal.changed",
        "import_deadlines.pickup_lfd_terminal changes",
    ),
    (
        "container.pickup_lfd_rail.changed",
        "import_deadlines.pickup_lfd_rail changes",
    ),
    (
        "container.pickup_appointment.changed",
        "pickup_appointment_at changes",
    ),
    (
        "container.transport.vessel_departed",
        "the shipment's pol_atd_at gets a value (per container)",
    ),
    (
        "container.transport.vessel_arrived",
        "the container's pod_arrived_at gets a value",
    ),
    (
        "container.transport.vessel_discharged",
        "pod_discharged_at gets a value",
    ),
    (
        "container.transport.vessel_loaded",
        "an actual EQUIPMENT LOAD by vessel at the port of lading (or where no POL is known) is \
         linked to the container for the first time (per event; webhooks::event_rules)",
    ),
    (
        "container.transport.transshipment_arrived",
        "an actual TRANSPORT ARRI by vessel at a port between the POL and the POD, of the vessel \
         that brought the box there, is linked to the container for the first time (per event)",
    ),
    (
        "container.transport.transshipment_discharged",
        "an actual EQUIPMENT DISC by vessel at a port other than the POD is linked to the \
         container for the first time (per event)",
    ),
    (
        "container.transport.transshipment_loaded",
        "an actual EQUIPMENT LOAD by vessel at a port other than the POL is linked to the \
         container for the first time (per event)",
    ),
    (
        "container.transport.transshipment_departed",
        "an actual TRANSPORT DEPA by vessel at a port other than the POL, of the vessel that took \
         the box on, is linked to the container for the first time (per event)",
    ),
    (
        "container.transport.rail_arrived",
        "an actual TRANSPORT ARRI by rail is linked to the container for the first time (per \
         event)",
    ),
    (
        "container.transport.empty_out",
        "an actual EQUIPMENT GTOT of the empty box is linked to the container for the first time \
         (per event)",
    ),
    (
        "container.transport.full_in",
        "an actual EQUIPMENT GTIN of the laden box is linked to the container for the first time \
         (per event)",
    ),
    (
        "container.transport.available",
        "available_for_pickup becomes true",
    ),
    (
        "container.transport.not_available",
        "available_for_pickup goes from true to false",
    ),
    (
        "container.transport.full_out",
        "pod_full_out_at gets a value",
    ),
    (
        "container.transport.rail_loaded",
        "pod_rail_loaded_at gets a value",
    ),
    (
        "container.transport.rail_departed",
        "pod_rail_departed_at gets a value",
    ),
    (
        "container.transport.rail_unloaded",
        "ind_rail_unloaded_at gets a value",
    ),
    (
        "container.transport.arrived_at_inland_destination",
        "ind_ata_at gets a value",
    ),
    (
        "container.transport.delivered",
        "current_status becomes delivered",
    ),
    (
        "container.transport.empty_in",
        "empty_terminated_at gets a value",
    ),
    (
        "container.transport.estimated.vessel_departed",
        "a stored shipment's pol_etd_at changes to a new value (per container)",
    ),
    (
        "container.transport.estimated.vessel_arrived",
        "a stored shipment's pod_eta_at changes to a new value (per container)",
    ),
    (
        "container.transport.estimated.arrived_at_inland_destination",
        "a stored container's ind_eta_at changes to a new value",
    ),
    (
        "shipment.estimated.arrival",
        "a stored shipment's pod_eta_at changes to a new value (once per shipment)",
    ),
];

/// What a rule saw: stored with the notification and rendered into its reference object.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Detail {
    /// When the milestone happened, or the new estimate or date (UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<DateTime<Utc>>,
    /// The IANA zone of the place, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    /// UN/LOCODE of the place, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location_locode: Option<UnLocode>,
    /// The voyage, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voyage_number: Option<String>,
    /// The vessel's IMO number, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vessel_imo: Option<Imo>,
    /// The POD terminal the data is about, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal_id: Option<Uuid>,
    /// `container.updated`: each changed attribute → `[previous, current]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changeset: Option<Map<String, Value>>,
}

/// One notification to make, for every webhook subscribed to `event`.
#[derive(Debug, Clone, PartialEq)]
pub struct Emission {
    /// The event name (one of [`RULES`]).
    pub event: &'static str,
    /// `reference_object` type.
    pub reference_type: &'static str,
    /// `reference_object` id: UUID v5 of the record, the event and what changed, so the same
    /// change always has the same reference id.
    pub reference_id: Uuid,
    /// The container, for container events.
    pub container_id: Option<Uuid>,
    /// The shipment.
    pub shipment_id: Option<Uuid>,
    /// The tracking request, for `tracking_request.*`.
    pub tracking_request_id: Option<Uuid>,
    /// What the rule saw.
    pub detail: Detail,
}

/// An event, a date before and after.
type DateChange = (&'static str, Option<DateTime<Utc>>, Option<DateTime<Utc>>);
/// An event, an estimate before and after, and what to say about the new one.
type Estimate = (
    &'static str,
    Option<DateTime<Utc>>,
    Option<DateTime<Utc>>,
    Detail,
);

/// Namespace of reference ids (UUID v5).
const REFERENCE_NAMESPACE: Uuid = Uuid::from_u128(0x5b1f_7c1e_9a3d_4c2b_8e61_0d4f_2a7c_9e13);

fn reference_id(record: Uuid, event: &str, what: &str) -> Uuid {
    let mut name = Vec::with_capacity(16 + event.len() + what.len() + 2);
    name.extend_from_slice(record.as_bytes());
    name.extend_from_slice(event.as_bytes());
    name.push(0);
    name.extend_from_slice(what.as_bytes());
    Uuid::new_v5(&REFERENCE_NAMESPACE, &name)
}

fn stamp(t: Option<DateTime<Utc>>) -> String {
    t.map(|t| t.timestamp_millis().to_string())
        .unwrap_or_default()
}

/// The emissions of one container: `old` is the stored container (`None` when new), `new` what
/// the derivation produced; `old_shipment` and `shipment` the same for its shipment (`None`
/// when the shipment was not stored before, or not derived in this ingest).
pub fn container_emissions(
    old: Option<&Container>,
    new: &Container,
    old_shipment: Option<&Shipment>,
    shipment: Option<&Shipment>,
) -> Vec<Emission> {
    let mut out = Vec::new();
    let base =
        |event: &'static str, reference_type: &'static str, what: String, d: Detail| Emission {
            event,
            reference_type,
            reference_id: reference_id(new.id, event, &what),
            container_id: Some(new.id),
            shipment_id: Some(new.shipment_id),
            tracking_request_id: None,
            detail: d,
        };
    let voyage = shipment.and_then(|s| s.pod_voyage_number.clone());
    let imo = shipment.and_then(|s| s.pod_vessel_imo.clone());
    let at_pod = |t: Option<DateTime<Utc>>| Detail {
        timestamp: t,
        timezone: new.pod_timezone.clone(),
        location_locode: new.pod_locode.clone(),
        voyage_number: voyage.clone(),
        vessel_imo: imo.clone(),
        terminal_id: new.pod_terminal_id,
        changeset: None,
    };
    let inland = |t: Option<DateTime<Utc>>| Detail {
        timestamp: t,
        timezone: new.final_destination_timezone.clone(),
        location_locode: shipment.and_then(|s| s.destination_locode.clone()),
        ..Detail::default()
    };
    if old.is_none() {
        out.push(base(
            "container.created",
            "container_created_event",
            String::new(),
            Detail {
                timestamp: Some(new.created_at),
                ..Detail::default()
            },
        ));
    }

    // Milestones: a field that gets a value (a new container compares against nulls).
    let was = |f: fn(&Container) -> Option<DateTime<Utc>>| old.and_then(f);
    type Field = fn(&Container) -> Option<DateTime<Utc>>;
    let pod_milestones: [(&'static str, Field); 5] = [
        ("container.transport.vessel_arrived", |c| c.pod_arrived_at),
        ("container.transport.vessel_discharged", |c| {
            c.pod_discharged_at
        }),
        ("container.transport.full_out", |c| c.pod_full_out_at),
        ("container.transport.rail_loaded", |c| c.pod_rail_loaded_at),
        ("container.transport.rail_departed", |c| {
            c.pod_rail_departed_at
        }),
    ];
    if let Some(pol) = shipment {
        let before = old.and(old_shipment).and_then(|s| s.pol_atd_at);
        if before.is_none() && pol.pol_atd_at.is_some() {
            let event = "container.transport.vessel_departed";
            out.push(base(
                event,
                "transport_event",
                stamp(pol.pol_atd_at),
                Detail {
                    timestamp: pol.pol_atd_at,
                    timezone: pol.pol_timezone.clone(),
                    location_locode: pol.port_of_lading_locode.clone(),
                    voyage_number: pol.pod_voyage_number.clone(),
                    vessel_imo: pol.pod_vessel_imo.clone(),
                    ..Detail::default()
                },
            ));
        }
    }
    for (event, field) in pod_milestones {
        if was(field).is_none() && field(new).is_some() {
            out.push(base(
                event,
                "transport_event",
                stamp(field(new)),
                at_pod(field(new)),
            ));
        }
    }
    let inland_milestones: [(&'static str, Field); 2] = [
        ("container.transport.rail_unloaded", |c| {
            c.ind_rail_unloaded_at
        }),
        ("container.transport.arrived_at_inland_destination", |c| {
            c.ind_ata_at
        }),
    ];
    for (event, field) in inland_milestones {
        if was(field).is_none() && field(new).is_some() {
            out.push(base(
                event,
                "transport_event",
                stamp(field(new)),
                inland(field(new)),
            ));
        }
    }
    let old_available = old.and_then(|c| c.available_for_pickup);
    if new.available_for_pickup == Some(true) && old_available != Some(true) {
        let t = new.terminal_checked_at;
        out.push(base(
            "container.transport.available",
            "transport_event",
            stamp(t),
            at_pod(t),
        ));
    }
    if new.available_for_pickup == Some(false) && old_available == Some(true) {
        let t = new.terminal_checked_at;
        out.push(base(
            "container.transport.not_available",
            "transport_event",
            stamp(t),
            at_pod(t),
        ));
    }
    if new.current_status == ContainerStatus::Delivered
        && old.is_none_or(|c| c.current_status != ContainerStatus::Delivered)
    {
        let t = new.last_movement_at;
        out.push(base(
            "container.transport.delivered",
            "transport_event",
            stamp(t),
            inland(t),
        ));
    }
    if was(|c| c.empty_terminated_at).is_none() && new.empty_terminated_at.is_some() {
        out.push(base(
            "container.transport.empty_in",
            "transport_event",
            stamp(new.empty_terminated_at),
            Detail {
                timestamp: new.empty_terminated_at,
                timezone: new.empty_terminated_timezone.clone(),
                ..Detail::default()
            },
        ));
    }

    // Dates that change (null → date counts; date → null does not notify).
    let deadlines =
        |c: &Container, pick: fn(&crate::model::ImportDeadlines) -> Option<DateTime<Utc>>| {
            c.import_deadlines.as_ref().and_then(pick)
        };
    let dates: [DateChange; 5] = [
        (
            "container.pickup_lfd.changed",
            old.and_then(|c| c.pickup_lfd),
            new.pickup_lfd,
        ),
        (
            "container.pickup_lfd_line.changed",
            old.and_then(|c| deadlines(c, |d| d.pickup_lfd_line)),
            deadlines(new, |d| d.pickup_lfd_line),
        ),
        (
            "container.pickup_lfd_terminal.changed",
            old.and_then(|c| deadlines(c, |d| d.pickup_lfd_terminal)),
            deadlines(new, |d| d.pickup_lfd_terminal),
        ),
        (
            "container.pickup_lfd_rail.changed",
            old.and_then(|c| deadlines(c, |d| d.pickup_lfd_rail)),
            deadlines(new, |d| d.pickup_lfd_rail),
        ),
        (
            "container.pickup_appointment.changed",
            old.and_then(|c| c.pickup_appointment_at),
            new.pickup_appointment_at,
        ),
    ];
    for (event, before, after) in dates {
        if after.is_some() && before != after {
            out.push(base(event, "transport_event", stamp(after), at_pod(after)));
        }
    }

    if let Some(old) = old {
        if let (Some(a), Some(b)) = (old.pod_terminal_id, new.pod_terminal_id) {
            if a != b {
                let mut d = at_pod(new.terminal_checked_at);
                d.changeset = Some(changeset_of([("pod_terminal", json_id(a), json_id(b))]));
                out.push(base(
                    "container.pod_terminal_changed",
                    "container_pod_terminal_changed_event",
                    b.to_string(),
                    d,
                ));
            }
        }
        let changes = terminal_changeset(old, new);
        if !changes.is_empty() {
            let what = serde_json::to_string(&changes).unwrap_or_default();
            let mut d = at_pod(new.terminal_checked_at.or(Some(new.refreshed_at)));
            d.changeset = Some(changes);
            out.push(base(
                "container.updated",
                "container_updated_event",
                what,
                d,
            ));
        }
        if let (Some(before), Some(after)) = (old.ind_eta_at, new.ind_eta_at) {
            if before != after {
                out.push(base(
                    "container.transport.estimated.arrived_at_inland_destination",
                    "transport_event",
                    stamp(Some(after)),
                    inland(Some(after)),
                ));
            }
        }
    }
    if let (Some(_), Some(before), Some(after)) = (old, old_shipment, shipment) {
        let estimates: [Estimate; 2] = [
            (
                "container.transport.estimated.vessel_departed",
                before.pol_etd_at,
                after.pol_etd_at,
                Detail {
                    timestamp: after.pol_etd_at,
                    timezone: after.pol_timezone.clone(),
                    location_locode: after.port_of_lading_locode.clone(),
                    voyage_number: after.pod_voyage_number.clone(),
                    vessel_imo: after.pod_vessel_imo.clone(),
                    ..Detail::default()
                },
            ),
            (
                "container.transport.estimated.vessel_arrived",
                before.pod_eta_at,
                after.pod_eta_at,
                at_pod(after.pod_eta_at),
            ),
        ];
        for (event, b, a, d) in estimates {
            if a.is_some() && b != a {
                out.push(base(event, "transport_event", stamp(a), d));
            }
        }
    }
    out
}

fn json_id(id: Uuid) -> Value {
    Value::String(id.to_string())
}

fn changeset_of<const N: usize>(entries: [(&str, Value, Value); N]) -> Map<String, Value> {
    entries
        .into_iter()
        .map(|(k, a, b)| (k.to_string(), Value::Array(vec![a, b])))
        .collect()
}

/// The `container.updated` changeset: each watched terminal attribute whose value changed →
/// `[previous, current]`, values as `/v2` serializes them (times RFC 3339 UTC, holds and fees
/// as objects, the POD terminal as its id).
pub fn terminal_changeset(old: &Container, new: &Container) -> Map<String, Value> {
    fn v<T: Serialize>(t: &T) -> Value {
        serde_json::to_value(t).unwrap_or(Value::Null)
    }
    fn time(t: Option<DateTime<Utc>>) -> Value {
        t.map(|t| Value::String(t.to_rfc3339_opts(SecondsFormat::Millis, true)))
            .unwrap_or(Value::Null)
    }
    let dl = |c: &Container, pick: fn(&crate::model::ImportDeadlines) -> Option<DateTime<Utc>>| {
        time(c.import_deadlines.as_ref().and_then(pick))
    };
    let pairs: [(&str, Value, Value); 9] = [
        (
            "fees_at_pod_terminal",
            v(&old.fees_at_pod_terminal),
            v(&new.fees_at_pod_terminal),
        ),
        (
            "holds_at_pod_terminal",
            v(&old.holds_at_pod_terminal),
            v(&new.holds_at_pod_terminal),
        ),
        ("pickup_lfd", time(old.pickup_lfd), time(new.pickup_lfd)),
        (
            "pickup_lfd_line",
            dl(old, |d| d.pickup_lfd_line),
            dl(new, |d| d.pickup_lfd_line),
        ),
        (
            "pickup_lfd_terminal",
            dl(old, |d| d.pickup_lfd_terminal),
            dl(new, |d| d.pickup_lfd_terminal),
        ),
        (
            "pickup_lfd_rail",
            dl(old, |d| d.pickup_lfd_rail),
            dl(new, |d| d.pickup_lfd_rail),
        ),
        (
            "pickup_appointment_at",
            time(old.pickup_appointment_at),
            time(new.pickup_appointment_at),
        ),
        (
            "available_for_pickup",
            v(&old.available_for_pickup),
            v(&new.available_for_pickup),
        ),
        (
            "pod_terminal",
            v(&old.pod_terminal_id),
            v(&new.pod_terminal_id),
        ),
    ];
    pairs
        .into_iter()
        .filter(|(_, a, b)| a != b)
        .map(|(k, a, b)| (k.to_string(), Value::Array(vec![a, b])))
        .collect()
}

/// The emissions of one shipment: `shipment.estimated.arrival` when a stored shipment's
/// `pod_eta_at` changes to a new value.
pub fn shipment_emissions(old: Option<&Shipment>, new: &Shipment) -> Vec<Emission> {
    let Some(old) = old else {
        return Vec::new();
    };
    if new.pod_eta_at.is_none() || old.pod_eta_at == new.pod_eta_at {
        return Vec::new();
    }
    let event = "shipment.estimated.arrival";
    vec![Emission {
        event,
        reference_type: "estimated_event",
        reference_id: reference_id(new.id, event, &stamp(new.pod_eta_at)),
        container_id: None,
        shipment_id: Some(new.id),
        tracking_request_id: None,
        detail: Detail {
            timestamp: new.pod_eta_at,
            timezone: new.pod_timezone.clone(),
            location_locode: new.port_of_discharge_locode.clone(),
            voyage_number: new.pod_voyage_number.clone(),
            vessel_imo: new.pod_vessel_imo.clone(),
            ..Detail::default()
        },
    }]
}

/// `tracking_request.succeeded` for a request that found `shipment`.
pub fn tracking_request_succeeded(
    request: Uuid,
    shipment: Option<Uuid>,
    at: DateTime<Utc>,
) -> Emission {
    let event = "tracking_request.succeeded";
    Emission {
        event,
        reference_type: "tracking_request",
        reference_id: request,
        container_id: None,
        shipment_id: shipment,
        tracking_request_id: Some(request),
        detail: Detail {
            timestamp: Some(at),
            ..Detail::default()
        },
    }
}

/// The emissions of one derivation: for each shipment and container whose stored row changed
/// (ids in `changed_shipments`, `changed_containers`; and each container of a changed
/// shipment), the rules applied to the stored record before (`old_containers`,
/// `old_shipments`, by id) and the derived one after.
pub fn emissions(
    old_containers: &HashMap<Uuid, Container>,
    old_shipments: &HashMap<Uuid, Shipment>,
    shipments: &[Shipment],
    containers: &[Container],
    changed_shipments: &[Uuid],
    changed_containers: &[Uuid],
) -> Vec<Emission> {
    let changed_shipments: HashSet<Uuid> = changed_shipments.iter().copied().collect();
    let changed_containers: HashSet<Uuid> = changed_containers.iter().copied().collect();
    let derived: HashMap<Uuid, &Shipment> = shipments.iter().map(|s| (s.id, s)).collect();
    let mut out = Vec::new();
    for s in shipments
        .iter()
        .filter(|s| changed_shipments.contains(&s.id))
    {
        out.extend(shipment_emissions(old_shipments.get(&s.id), s));
    }
    for c in containers.iter().filter(|c| {
        changed_containers.contains(&c.id) || changed_shipments.contains(&c.shipment_id)
    }) {
        out.extend(container_emissions(
            old_containers.get(&c.id),
            c,
            old_shipments.get(&c.shipment_id),
            derived.get(&c.shipment_id).copied(),
        ));
    }
    out
}

/// `tracking_request.tracking_stopped` for a request whose shipment the user stopped tracking.
pub fn tracking_request_stopped(request: Uuid, shipment: Uuid, at: DateTime<Utc>) -> Emission {
    let event = "tracking_request.tracking_stopped";
    Emission {
        event,
        reference_type: "tracking_request",
        reference_id: request,
        container_id: None,
        shipment_id: Some(shipment),
        tracking_request_id: Some(request),
        detail: Detail {
            timestamp: Some(at),
            ..Detail::default()
        },
    }
}

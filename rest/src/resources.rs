//! The domain model as JSON:API resource objects (interface.md: "Resources and their fields").
//!
//! Nothing is computed here: every attribute is the model's field of the same name, as the
//! pipeline derived it (`docs/DESIGN.md`: neither API computes its own version of a field). Every
//! attribute of the spec's tables is present, nulls included; nothing else is.
//!
//! Encoding rules:
//! - timestamps: ISO 8601 in UTC with `Z`, whole seconds (`2021-01-09T13:12:56Z`); when the
//!   stored value has a non-zero fraction, milliseconds are added (`2021-01-09T13:12:56.250Z`).
//!   The store keeps millisecond precision, so nothing is lost ([`timestamp`]);
//! - `import_deadlines`: `null` when the pipeline has no deadline information for the
//!   container, otherwise an object with exactly the three keys `pickup_lfd_terminal`,
//!   `pickup_lfd_rail`, `pickup_lfd_line` (each a timestamp or null). The spec types it
//!   "object, nullable"; teu mirrors the model's `Option` rather than inventing an all-null object;
//! - `holds_at_pod_terminal` / `fees_at_pod_terminal`: arrays (possibly empty) of
//!   `{name, status, description}` / `{type, amount, currency_code}`;
//! - to-one relationships are `{"data": {"id", "type"}}` or `{"data": null}`; to-many are
//!   `{"data": [...]}`.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::{Serialize, Serializer};
use teu_pipeline::ids::{self, port_id};
use teu_pipeline::model::{
    Container, ImportDeadlines, Shipment, TerminalFee, TerminalHold, UnLocode,
};
use teu_store::EventLink;
use uuid::Uuid;

/// Formats a timestamp as described in the module documentation: seconds, plus milliseconds
/// only when the fraction is non-zero (sub-millisecond digits are dropped).
pub fn timestamp(t: &DateTime<Utc>) -> String {
    teu_pipeline::time::v2_text(t)
}

/// Writes [`timestamp`]'s text without a `String` of its own.
fn ser_ts<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    teu_pipeline::time::with_v2_text(t, |text| s.serialize_str(text))
}

fn ser_opt_ts<S: Serializer>(t: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => ser_ts(t, s),
        None => s.serialize_none(),
    }
}

/// `{"id": ..., "type": ...}`: a resource identifier object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Identifier {
    /// The resource id, serialized as its hyphenated lowercase string (uuid's `Serialize`,
    /// written without an intermediate `String`).
    pub id: Uuid,
    /// The resource type, e.g. `container`.
    #[serde(rename = "type")]
    pub kind: &'static str,
}

impl Identifier {
    /// Identifier of a resource of type `kind` with UUID `id`.
    pub fn new(kind: &'static str, id: Uuid) -> Self {
        Identifier { id, kind }
    }
}

/// A to-one relationship: `{"data": identifier-or-null}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToOne {
    /// The related resource, or null.
    pub data: Option<Identifier>,
}

impl ToOne {
    fn of(kind: &'static str, id: Option<Uuid>) -> Self {
        ToOne {
            data: id.map(|id| Identifier::new(kind, id)),
        }
    }

    fn null() -> Self {
        ToOne { data: None }
    }
}

/// A to-many relationship: `{"data": [identifier, ...]}`.
///
/// Serialized for serde_json (response bodies, `to_raw_value`, `to_value`), as whose
/// `RawValue` it writes its list: a container's `transport_events` and `raw_events` hold some
/// 40 identifiers, a page of 30 containers about 1,300, and writing each through serde's
/// struct and string machinery (the key and value escaped byte by byte) was a fifth of a
/// `/v2` page's instructions (docs/NOTES.md, twenty-fifth session). A serializer that is not
/// human-readable gets the plain sequence of [`Identifier`]s; another human-readable one would
/// see serde_json's private raw-value token (teu serializes resources with serde_json only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToMany {
    /// The related resources (possibly none).
    pub data: Vec<Identifier>,
}

impl Serialize for ToMany {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = s.serialize_struct("ToMany", 1)?;
        out.serialize_field("data", &IdentifierList(&self.data))?;
        out.end()
    }
}

/// The `data` array of a [`ToMany`], written as JSON text up front: `{"id":"<uuid>","type":
/// "<kind>"}` per identifier. Resource type names are ASCII words (`transport_event`,
/// `raw_event`, `container`) and a hyphenated UUID is hex and hyphens, so nothing needs
/// escaping; serde_json checks the text once when it becomes a `RawValue`.
struct IdentifierList<'a>(&'a [Identifier]);

impl Serialize for IdentifierList<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // A kind that would need escaping (none of teu's does) goes through serde.
        if !s.is_human_readable() || !plain_kinds(self.0) {
            return s.collect_seq(self.0);
        }
        let mut json = Vec::new();
        push_identifiers(&mut json, self.0);
        let json = String::from_utf8(json).unwrap_or_default();
        match serde_json::value::RawValue::from_string(json) {
            Ok(raw) => raw.serialize(s),
            Err(_) => s.collect_seq(self.0),
        }
    }
}

/// Appends `[{"id":"<uuid>","type":"<kind>"},…]` for `list` to `out`, without escaping: a
/// hyphenated UUID is hex digits and hyphens, and every resource type name teu has is an ASCII
/// word (`transport_event`, `raw_event`, `container`).
fn push_identifiers(out: &mut Vec<u8>, list: &[Identifier]) {
    const ID: &[u8] = b"{\"id\":\"";
    const KIND: &[u8] = b"\",\"type\":\"";
    let kinds: usize = list.iter().map(|i| i.kind.len()).sum();
    out.reserve(2 + list.len() * (ID.len() + 36 + KIND.len() + 3) + kinds);
    out.push(b'[');
    for (n, identifier) in list.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        out.extend_from_slice(ID);
        ids::push_text(out, &identifier.id);
        out.extend_from_slice(KIND);
        out.extend_from_slice(identifier.kind.as_bytes());
        out.extend_from_slice(b"\"}");
    }
    out.push(b']');
}

/// Whether `kind` may be written into JSON as it is (see [`push_identifiers`]).
fn plain_kind(kind: &str) -> bool {
    kind.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Whether every identifier's kind may be written as it is, each kind checked once where the
/// identifiers before it have the same `&'static str` (a list's identifiers share one kind:
/// checking each byte of the kinds of a page's 1,670 identifiers was 4% of its instructions).
fn plain_kinds(list: &[Identifier]) -> bool {
    let mut checked: Option<&str> = None;
    list.iter().all(|i| {
        if checked.is_some_and(|c| std::ptr::eq(c, i.kind)) {
            return true;
        }
        checked = Some(i.kind);
        plain_kind(i.kind)
    })
}

impl ToMany {
    /// Appends the JSON text serde_json writes for this relationship, `{"data":[…]}`, to
    /// `out`. Its [`Serialize`] hands serde_json the identifiers as a `RawValue`, whose text
    /// serde_json parses again to check it: 14% of a `/v2` page's instructions for a page of
    /// 30 containers (about 1,300 identifiers; docs/NOTES.md, thirtieth session). Written
    /// here, the text needs no check. A kind that would need escaping (none of teu's does)
    /// goes through serde_json.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        if plain_kinds(&self.data) {
            out.extend_from_slice(b"{\"data\":");
            push_identifiers(out, &self.data);
            out.push(b'}');
        } else {
            // Identifiers hold a UUID and a string: writing them cannot fail.
            let _ = serde_json::to_writer(&mut *out, self);
        }
    }
}

/// A container resource: `{"id", "type": "container", "attributes", "relationships"}`
/// (interface.md: container).
#[derive(Debug, Clone, Serialize)]
pub struct ContainerResource<'a> {
    /// The container id.
    pub id: String,
    /// Always `container`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The spec's container attributes.
    pub attributes: ContainerAttributes<'a>,
    /// The spec's container relationships.
    pub relationships: ContainerRelationships,
}

/// Every attribute of the spec's container table, in its order and with its names. Each field
/// is the model field of the same name ([`Container`]); see the spec for its meaning.
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize)]
pub struct ContainerAttributes<'a> {
    pub number: &'a str,
    pub ref_numbers: &'a [String],
    pub seal_number: Option<&'a str>,
    #[serde(serialize_with = "ser_ts")]
    pub created_at: DateTime<Utc>,
    pub equipment_type: Option<&'a str>,
    pub equipment_length: Option<i32>,
    pub equipment_height: Option<&'a str>,
    pub weight_in_lbs: Option<f64>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub pickup_lfd: Option<DateTime<Utc>>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub pickup_appointment_at: Option<DateTime<Utc>>,
    pub availability_known: bool,
    pub available_for_pickup: Option<bool>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub pod_arrived_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub pod_discharged_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub pod_full_out_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub terminal_checked_at: Option<DateTime<Utc>>,
    pub pod_full_out_chassis_number: Option<&'a str>,
    pub location_at_pod_terminal: Option<&'a str>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub final_destination_full_out_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub empty_terminated_at: Option<DateTime<Utc>>,
    pub holds_at_pod_terminal: Vec<Hold<'a>>,
    pub fees_at_pod_terminal: Vec<Fee<'a>>,
    pub pod_timezone: Option<&'a str>,
    pub final_destination_timezone: Option<&'a str>,
    pub empty_terminated_timezone: Option<&'a str>,
    pub pod_rail_carrier_scac: Option<&'a str>,
    pub ind_rail_carrier_scac: Option<&'a str>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub pod_last_tracking_request_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub shipment_last_tracking_request_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub pod_rail_loaded_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub pod_rail_departed_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub ind_eta_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub ind_ata_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub ind_rail_unloaded_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub ind_facility_lfd_on: Option<DateTime<Utc>>,
    pub import_deadlines: Option<Deadlines>,
    pub current_status: &'static str,
}

/// spec: terminal_hold.
#[derive(Debug, Clone, Serialize)]
pub struct Hold<'a> {
    /// Name of the hold.
    pub name: &'a str,
    /// `pending` or `hold`.
    pub status: &'a str,
    /// Text from the terminal.
    pub description: Option<&'a str>,
}

/// spec: terminal_fee. `currency_code` is null when the source gave none.
#[derive(Debug, Clone, Serialize)]
pub struct Fee<'a> {
    /// `demurrage`, `exam`, `extended_dwell_time`, `other` or `total` (`type`).
    #[serde(rename = "type")]
    pub fee_type: &'a str,
    /// Amount in the local currency.
    pub amount: f64,
    /// ISO 4217 code.
    pub currency_code: Option<&'a str>,
}

/// spec: container `import_deadlines` (the object form).
#[derive(Debug, Clone, Serialize)]
pub struct Deadlines {
    /// Last free day at the POD terminal.
    #[serde(serialize_with = "ser_opt_ts")]
    pub pickup_lfd_terminal: Option<DateTime<Utc>>,
    /// Last free day at the rail terminal.
    #[serde(serialize_with = "ser_opt_ts")]
    pub pickup_lfd_rail: Option<DateTime<Utc>>,
    /// Last free day set by the shipping line.
    #[serde(serialize_with = "ser_opt_ts")]
    pub pickup_lfd_line: Option<DateTime<Utc>>,
}

/// Container relationships (interface.md: container relationships table).
#[derive(Debug, Clone, Serialize)]
pub struct ContainerRelationships {
    /// The container's shipment (always present).
    pub shipment: ToOne,
    /// Terminal; null unless a feed told where to pick up.
    pub pickup_facility: ToOne,
    /// Terminal at the port of discharge; null until known.
    pub pod_terminal: ToOne,
    /// The container's normalized events, by event time.
    pub transport_events: ToMany,
    /// The raw events those came from, in the same order.
    pub raw_events: ToMany,
}

impl ContainerResource<'_> {
    /// The resource's JSON text: the bytes `serde_json::to_vec` writes for it, with its
    /// to-many relationships written by [`ToMany::write_json`] (no second parse of their
    /// identifiers). What a `/v2` document of containers splices in.
    pub fn to_json(&self) -> Vec<u8> {
        let events = self.relationships.transport_events.data.len()
            + self.relationships.raw_events.data.len();
        let mut out = Vec::with_capacity(2048 + events * 72);
        put(&mut out, b"{\"id\":", &self.id);
        put(&mut out, b",\"type\":", self.kind);
        put(&mut out, b",\"attributes\":", &self.attributes);
        let r = &self.relationships;
        put(&mut out, b",\"relationships\":{\"shipment\":", &r.shipment);
        put(&mut out, b",\"pickup_facility\":", &r.pickup_facility);
        put(&mut out, b",\"pod_terminal\":", &r.pod_terminal);
        out.extend_from_slice(b",\"transport_events\":");
        r.transport_events.write_json(&mut out);
        out.extend_from_slice(b",\"raw_events\":");
        r.raw_events.write_json(&mut out);
        out.extend_from_slice(b"}}");
        out
    }
}

/// Appends `key` and the JSON text of `value` (serde_json's bytes, written by
/// [`teu_pipeline::json::write`]) to `out`. For members that hold strings, numbers, booleans and
/// nulls, whose writing cannot fail.
fn put<T: Serialize + ?Sized>(out: &mut Vec<u8>, key: &[u8], value: &T) {
    out.extend_from_slice(key);
    let _ = teu_pipeline::json::write(out, value);
}

/// The container resource of `c`, whose event links (from `Store::event_links_of_containers`,
/// in event order) are `events`.
pub fn container<'a>(c: &'a Container, events: &[EventLink]) -> ContainerResource<'a> {
    ContainerResource {
        id: c.id.to_string(),
        kind: "container",
        attributes: ContainerAttributes {
            number: &c.number,
            ref_numbers: &c.ref_numbers,
            seal_number: c.seal_number.as_deref(),
            created_at: c.created_at,
            equipment_type: c.equipment_type.as_deref(),
            equipment_length: c.equipment_length,
            equipment_height: c.equipment_height.as_deref(),
            weight_in_lbs: c.weight_in_lbs,
            pickup_lfd: c.pickup_lfd,
            pickup_appointment_at: c.pickup_appointment_at,
            availability_known: c.availability_known,
            available_for_pickup: c.available_for_pickup,
            pod_arrived_at: c.pod_arrived_at,
            pod_discharged_at: c.pod_discharged_at,
            pod_full_out_at: c.pod_full_out_at,
            terminal_checked_at: c.terminal_checked_at,
            pod_full_out_chassis_number: c.pod_full_out_chassis_number.as_deref(),
            location_at_pod_terminal: c.location_at_pod_terminal.as_deref(),
            final_destination_full_out_at: c.final_destination_full_out_at,
            empty_terminated_at: c.empty_terminated_at,
            holds_at_pod_terminal: c.holds_at_pod_terminal.iter().map(hold).collect(),
            fees_at_pod_terminal: c.fees_at_pod_terminal.iter().map(fee).collect(),
            pod_timezone: c.pod_timezone.as_deref(),
            final_destination_timezone: c.final_destination_timezone.as_deref(),
            empty_terminated_timezone: c.empty_terminated_timezone.as_deref(),
            pod_rail_carrier_scac: c.pod_rail_carrier_scac.as_deref(),
            ind_rail_carrier_scac: c.ind_rail_carrier_scac.as_deref(),
            pod_last_tracking_request_at: c.pod_last_tracking_request_at,
            shipment_last_tracking_request_at: c.shipment_last_tracking_request_at,
            pod_rail_loaded_at: c.pod_rail_loaded_at,
            pod_rail_departed_at: c.pod_rail_departed_at,
            ind_eta_at: c.ind_eta_at,
            ind_ata_at: c.ind_ata_at,
            ind_rail_unloaded_at: c.ind_rail_unloaded_at,
            ind_facility_lfd_on: c.ind_facility_lfd_on,
            import_deadlines: c.import_deadlines.as_ref().map(deadlines),
            current_status: c.current_status.as_str(),
        },
        relationships: ContainerRelationships {
            shipment: ToOne::of("shipment", Some(c.shipment_id)),
            pickup_facility: ToOne::of("terminal", c.pickup_facility_id),
            pod_terminal: ToOne::of("terminal", c.pod_terminal_id),
            // The events `GET /containers/{id}/transport_events` serves: actual, named ones.
            transport_events: ToMany {
                data: events
                    .iter()
                    .filter(|e| e.named_actual)
                    .map(|e| Identifier::new("transport_event", e.id))
                    .collect(),
            },
            raw_events: ToMany {
                data: events
                    .iter()
                    .map(|e| Identifier::new("raw_event", e.raw_event_id))
                    .collect(),
            },
        },
    }
}

/// Container resources for `containers`, taking each one's events from `events` (the map
/// `Store::event_links_of_containers` returns; a container missing from it has no events).
pub fn containers<'a>(
    containers: &'a [Container],
    events: &HashMap<Uuid, Vec<EventLink>>,
) -> Vec<ContainerResource<'a>> {
    containers
        .iter()
        .map(|c| container(c, events.get(&c.id).map(Vec::as_slice).unwrap_or(&[])))
        .collect()
}

fn hold(h: &TerminalHold) -> Hold<'_> {
    Hold {
        name: &h.name,
        status: &h.status,
        description: h.description.as_deref(),
    }
}

fn fee(f: &TerminalFee) -> Fee<'_> {
    Fee {
        fee_type: &f.fee_type,
        amount: f.amount,
        currency_code: f.currency_code.as_deref(),
    }
}

fn deadlines(d: &ImportDeadlines) -> Deadlines {
    Deadlines {
        pickup_lfd_terminal: d.pickup_lfd_terminal,
        pickup_lfd_rail: d.pickup_lfd_rail,
        pickup_lfd_line: d.pickup_lfd_line,
    }
}

/// A shipment resource: `{"id", "type": "shipment", "attributes", "relationships",
/// "links": {"self"}}` (interface.md: shipment; all five members required).
#[derive(Debug, Clone, Serialize)]
pub struct ShipmentResource<'a> {
    /// The shipment id.
    pub id: String,
    /// Always `shipment`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The spec's shipment attributes.
    pub attributes: ShipmentAttributes<'a>,
    /// The spec's shipment relationships.
    pub relationships: ShipmentRelationships,
    /// `{"self": absolute URI of /v2/shipments/{id}}`.
    pub links: SelfLink,
}

impl ShipmentResource<'_> {
    /// The resource's JSON text: the bytes `serde_json::to_vec` writes for it, with its
    /// `containers` relationship written by [`ToMany::write_json`] (no second parse of its
    /// identifiers, which `RawValue` made: 2% of a `/v2` page's instructions). What a `/v2`
    /// document of shipments splices in.
    pub fn to_json(&self) -> Vec<u8> {
        let r = &self.relationships;
        let mut out = Vec::with_capacity(2560 + r.containers.data.len() * 72);
        put(&mut out, b"{\"id\":", &self.id);
        put(&mut out, b",\"type\":", self.kind);
        put(&mut out, b",\"attributes\":", &self.attributes);
        put(
            &mut out,
            b",\"relationships\":{\"destination\":",
            &r.destination,
        );
        put(&mut out, b",\"port_of_lading\":", &r.port_of_lading);
        put(&mut out, b",\"port_of_discharge\":", &r.port_of_discharge);
        out.extend_from_slice(b",\"containers\":");
        r.containers.write_json(&mut out);
        put(&mut out, b",\"pod_terminal\":", &r.pod_terminal);
        put(
            &mut out,
            b",\"destination_terminal\":",
            &r.destination_terminal,
        );
        put(
            &mut out,
            b",\"line_tracking_stopped_by_user\":",
            &r.line_tracking_stopped_by_user,
        );
        put(&mut out, b"},\"links\":", &self.links);
        out.push(b'}');
        out
    }
}

/// `{"self": uri}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SelfLink {
    /// The absolute URI (`self`).
    #[serde(rename = "self")]
    pub self_: String,
}

/// Every attribute of the spec's shipment table, in its order and with its names. Each field
/// is the model field of the same name ([`Shipment`]); see the spec for its meaning.
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize)]
pub struct ShipmentAttributes<'a> {
    pub bill_of_lading_number: &'a str,
    pub normalized_number: &'a str,
    /// Spec: nullable array; teu always has a (possibly empty) list.
    pub ref_numbers: &'a [String],
    #[serde(serialize_with = "ser_ts")]
    pub created_at: DateTime<Utc>,
    pub tags: &'a [String],
    pub port_of_lading_locode: Option<&'a str>,
    pub port_of_discharge_locode: Option<&'a str>,
    pub destination_locode: Option<&'a str>,
    pub port_of_lading_name: Option<&'a str>,
    pub port_of_discharge_name: Option<&'a str>,
    pub destination_name: Option<&'a str>,
    pub shipping_line_scac: &'a str,
    pub shipping_line_name: &'a str,
    pub shipping_line_short_name: &'a str,
    pub customer_name: Option<&'a str>,
    pub pod_vessel_name: Option<&'a str>,
    pub pod_vessel_imo: Option<&'a str>,
    pub pod_voyage_number: Option<&'a str>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub pol_etd_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub pol_atd_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub pod_eta_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub pod_original_eta_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub pod_ata_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub destination_eta_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub destination_ata_at: Option<DateTime<Utc>>,
    pub pol_timezone: Option<&'a str>,
    pub pod_timezone: Option<&'a str>,
    pub destination_timezone: Option<&'a str>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub line_tracking_last_attempted_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub line_tracking_last_succeeded_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "ser_opt_ts")]
    pub line_tracking_stopped_at: Option<DateTime<Utc>>,
    pub line_tracking_stopped_reason: Option<&'a str>,
}

/// Shipment relationships (interface.md: shipment relationships table).
#[derive(Debug, Clone, Serialize)]
pub struct ShipmentRelationships {
    /// `{"type": "port", "id": port_id(destination_locode)}` when the destination's UN/LOCODE is
    /// a port of the bundled port list; null otherwise (no destination, or an inland place teu
    /// has no metro-area record for).
    pub destination: ToOne,
    /// `{"type": "port", "id": port_id(port_of_lading_locode)}`, null without a LOCODE.
    pub port_of_lading: ToOne,
    /// `{"type": "port", "id": port_id(port_of_discharge_locode)}`, null without a LOCODE.
    pub port_of_discharge: ToOne,
    /// The shipment's containers (from `Store::containers_of_shipments`).
    pub containers: ToMany,
    /// `{"type": "terminal", "id": …}`: the POD terminal most of the shipment's containers name
    /// (`teu_pipeline::shipment_facts`); null when none names one.
    pub pod_terminal: ToOne,
    /// Always `{"data": null}`.
    pub destination_terminal: ToOne,
    /// Always `{"data": null}`: teu has no users.
    pub line_tracking_stopped_by_user: ToOne,
}

/// The shipment resource of `s`, whose containers' ids are `container_ids`; `self_url` is the
/// absolute URI of `/v2/shipments/{id}`.
pub fn shipment<'a>(
    s: &'a Shipment,
    container_ids: &[Uuid],
    self_url: String,
) -> ShipmentResource<'a> {
    let port = |locode: &Option<UnLocode>| ToOne::of("port", locode.as_deref().map(port_id));
    ShipmentResource {
        id: s.id.to_string(),
        kind: "shipment",
        attributes: ShipmentAttributes {
            bill_of_lading_number: &s.bill_of_lading_number,
            normalized_number: &s.normalized_number,
            ref_numbers: &s.ref_numbers,
            created_at: s.created_at,
            tags: &s.tags,
            port_of_lading_locode: s.port_of_lading_locode.as_deref(),
            port_of_discharge_locode: s.port_of_discharge_locode.as_deref(),
            destination_locode: s.destination_locode.as_deref(),
            port_of_lading_name: s.port_of_lading_name.as_deref(),
            port_of_discharge_name: s.port_of_discharge_name.as_deref(),
            destination_name: s.destination_name.as_deref(),
            shipping_line_scac: &s.shipping_line_scac,
            shipping_line_name: &s.shipping_line_name,
            shipping_line_short_name: &s.shipping_line_short_name,
            customer_name: s.customer_name.as_deref(),
            pod_vessel_name: s.pod_vessel_name.as_deref(),
            pod_vessel_imo: s.pod_vessel_imo.as_deref(),
            pod_voyage_number: s.pod_voyage_number.as_deref(),
            pol_etd_at: s.pol_etd_at,
            pol_atd_at: s.pol_atd_at,
            pod_eta_at: s.pod_eta_at,
            pod_original_eta_at: s.pod_original_eta_at,
            pod_ata_at: s.pod_ata_at,
            destination_eta_at: s.destination_eta_at,
            destination_ata_at: s.destination_ata_at,
            pol_timezone: s.pol_timezone.as_deref(),
            pod_timezone: s.pod_timezone.as_deref(),
            destination_timezone: s.destination_timezone.as_deref(),
            line_tracking_last_attempted_at: s.line_tracking_last_attempted_at,
            line_tracking_last_succeeded_at: s.line_tracking_last_succeeded_at,
            line_tracking_stopped_at: s.line_tracking_stopped_at,
            line_tracking_stopped_reason: s.line_tracking_stopped_reason.as_deref(),
        },
        relationships: ShipmentRelationships {
            destination: ToOne::of(
                "port",
                s.destination_locode
                    .as_deref()
                    .filter(|l| teu_pipeline::reference::bundled().0.get(l).is_some())
                    .map(port_id),
            ),
            port_of_lading: port(&s.port_of_lading_locode),
            port_of_discharge: port(&s.port_of_discharge_locode),
            containers: ToMany {
                data: container_ids
                    .iter()
                    .map(|id| Identifier::new("container", *id))
                    .collect(),
            },
            pod_terminal: ToOne::of("terminal", s.pod_terminal_id),
            destination_terminal: ToOne::null(),
            line_tracking_stopped_by_user: ToOne::null(),
        },
        links: SelfLink { self_: self_url },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use serde_json::{json, Value};
    use teu_pipeline::model::{Classifier, ContainerStatus, EventRow, EventType, TransportEvent};

    /// A to-many relationship written as raw JSON reads back as the JSON:API identifiers it
    /// holds, in order, through every way the resources are turned into JSON: text (a
    /// response body), a `RawValue` (a page's resources) and a `Value` (webhook payloads).
    #[test]
    fn to_many_writes_every_identifier_in_order() {
        let ids: Vec<Uuid> = (0..41u128)
            .map(|n| Uuid::from_u128(n * 0x1234_5678_9abc_def1))
            .collect();
        let many = ToMany {
            data: ids
                .iter()
                .map(|id| Identifier::new("transport_event", *id))
                .collect(),
        };
        let expected = json!({
            "data": ids
                .iter()
                .map(|id| json!({"id": id.to_string(), "type": "transport_event"}))
                .collect::<Vec<_>>()
        });
        let text = serde_json::to_string(&many).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), expected);
        let raw = serde_json::value::to_raw_value(&many).unwrap();
        assert_eq!(serde_json::from_str::<Value>(raw.get()).unwrap(), expected);
        assert_eq!(serde_json::to_value(&many).unwrap(), expected);
        // A kind that needs escaping (none of teu's does) goes through serde, escaped.
        let odd = ToMany {
            data: vec![Identifier::new("odd\"kind", ids[1])],
        };
        assert_eq!(
            serde_json::to_value(&odd).unwrap(),
            json!({"data": [{"id": ids[1].to_string(), "type": "odd\"kind"}]})
        );
        let none = ToMany { data: vec![] };
        assert_eq!(serde_json::to_value(&none).unwrap(), json!({"data": []}));
        assert_eq!(serde_json::to_string(&none).unwrap(), r#"{"data":[]}"#);
        // Written directly, each of them is the text serde_json writes.
        for m in [&many, &odd, &none] {
            let mut out = Vec::new();
            m.write_json(&mut out);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                serde_json::to_string(m).unwrap()
            );
        }
    }

    /// Attribute names of the spec's container table, in order.
    const CONTAINER_ATTRIBUTES: &[&str] = &[
        "number",
        "ref_numbers",
        "seal_number",
        "created_at",
        "equipment_type",
        "equipment_length",
        "equipment_height",
        "weight_in_lbs",
        "pickup_lfd",
        "pickup_appointment_at",
        "availability_known",
        "available_for_pickup",
        "pod_arrived_at",
        "pod_discharged_at",
        "pod_full_out_at",
        "terminal_checked_at",
        "pod_full_out_chassis_number",
        "location_at_pod_terminal",
        "final_destination_full_out_at",
        "empty_terminated_at",
        "holds_at_pod_terminal",
        "fees_at_pod_terminal",
        "pod_timezone",
        "final_destination_timezone",
        "empty_terminated_timezone",
        "pod_rail_carrier_scac",
        "ind_rail_carrier_scac",
        "pod_last_tracking_request_at",
        "shipment_last_tracking_request_at",
        "pod_rail_loaded_at",
        "pod_rail_departed_at",
        "ind_eta_at",
        "ind_ata_at",
        "ind_rail_unloaded_at",
        "ind_facility_lfd_on",
        "import_deadlines",
        "current_status",
    ];

    /// Attribute names of the spec's shipment table.
    const SHIPMENT_ATTRIBUTES: &[&str] = &[
        "bill_of_lading_number",
        "normalized_number",
        "ref_numbers",
        "created_at",
        "tags",
        "port_of_lading_locode",
        "port_of_discharge_locode",
        "destination_locode",
        "port_of_lading_name",
        "port_of_discharge_name",
        "destination_name",
        "shipping_line_scac",
        "shipping_line_name",
        "shipping_line_short_name",
        "customer_name",
        "pod_vessel_name",
        "pod_vessel_imo",
        "pod_voyage_number",
        "pol_etd_at",
        "pol_atd_at",
        "pod_eta_at",
        "pod_original_eta_at",
        "pod_ata_at",
        "destination_eta_at",
        "destination_ata_at",
        "pol_timezone",
        "pod_timezone",
        "destination_timezone",
        "line_tracking_last_attempted_at",
        "line_tracking_last_succeeded_at",
        "line_tracking_stopped_at",
        "line_tracking_stopped_reason",
    ];

    fn t(s: u32, ms: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2021, 1, 9, 13, 12, s).unwrap()
            + chrono::Duration::milliseconds(ms.into())
    }

    fn sample_container() -> Container {
        Container {
            id: Uuid::from_u128(1),
            account_id: Uuid::from_u128(9),
            shipment_id: Uuid::from_u128(2),
            number: teu_pipeline::model::ContainerNumber::parse("MSCU1234566").unwrap(),
            ref_numbers: vec![],
            seal_number: None,
            created_at: t(56, 0),
            refreshed_at: t(57, 0),
            equipment_type: Some("dry".into()),
            equipment_length: Some(40),
            equipment_height: Some("high_cube".into()),
            weight_in_lbs: None,
            pickup_lfd: None,
            pickup_appointment_at: None,
            availability_known: false,
            available_for_pickup: None,
            pod_arrived_at: Some(t(0, 250)),
            pod_discharged_at: None,
            pod_full_out_at: None,
            terminal_checked_at: None,
            pod_full_out_chassis_number: None,
            location_at_pod_terminal: None,
            final_destination_full_out_at: None,
            empty_terminated_at: None,
            holds_at_pod_terminal: vec![TerminalHold {
                name: "customs".into(),
                status: "hold".into(),
                description: None,
            }],
            fees_at_pod_terminal: vec![TerminalFee {
                fee_type: "demurrage".into(),
                amount: 120.5,
                currency_code: Some("USD".into()),
            }],
            pod_timezone: Some("America/Los_Angeles".into()),
            final_destination_timezone: None,
            empty_terminated_timezone: None,
            pod_rail_carrier_scac: None,
            ind_rail_carrier_scac: None,
            pod_last_tracking_request_at: None,
            shipment_last_tracking_request_at: None,
            pod_rail_loaded_at: None,
            pod_rail_departed_at: None,
            ind_eta_at: None,
            ind_ata_at: None,
            ind_rail_unloaded_at: None,
            ind_facility_lfd_on: None,
            import_deadlines: None,
            current_status: ContainerStatus::OnShip,
            pod_locode: Some(UnLocode::parse("USLAX").unwrap()),
            pod_terminal_id: Some(Uuid::from_u128(7)),
            pickup_facility_id: None,
            last_movement_at: None,
        }
    }

    fn event(n: u128) -> TransportEvent {
        TransportEvent {
            id: Uuid::from_u128(100 + n),
            raw_event_id: Uuid::from_u128(200 + n),
            timezone: None,
            event: EventRow {
                event_id: format!("e{n}"),
                event_type: EventType::Equipment,
                classifier: Classifier::Act,
                code: "LOAD".into(),
                event_at: t(0, 0),
                event_created_at: None,
                containers: Vec::new(),
                bills_of_lading: Vec::new(),
                bookings: Vec::new(),
                references: Vec::new(),
                transport_call_id: None,
                locode: None,
                location_name: None,
                facility_code: None,
                facility_type: None,
                mode_of_transport: None,
                transport_call_sequence: None,
                vessel_imo: None,
                vessel_name: None,
                export_voyage: None,
                import_voyage: None,
                carrier_scac: None,
                iso_equipment_code: None,
                empty: None,
                seal_number: None,
                delay_reason: None,
                remark: None,
            },
        }
    }

    #[test]
    fn timestamps_are_seconds_unless_fractional() {
        assert_eq!(timestamp(&t(56, 0)), "2021-01-09T13:12:56Z");
        assert_eq!(timestamp(&t(56, 250)), "2021-01-09T13:12:56.250Z");
        // sub-millisecond fractions are dropped, never shown as micro/nanoseconds
        let fine = t(56, 0) + chrono::Duration::microseconds(5);
        assert_eq!(timestamp(&fine), "2021-01-09T13:12:56Z");
    }

    #[test]
    fn container_has_exactly_the_spec_attributes() {
        let c = sample_container();
        let v: Value = serde_json::to_value(container(
            &c,
            &[EventLink::of(&event(1)), EventLink::of(&event(2))],
        ))
        .unwrap();
        let keys: Vec<&str> = v["attributes"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut want = CONTAINER_ATTRIBUTES.to_vec();
        want.sort_unstable();
        let mut got = keys.clone();
        got.sort_unstable();
        assert_eq!(got, want);
        assert_eq!(v["type"], "container");
        assert_eq!(v["id"], Uuid::from_u128(1).to_string());
        let a = &v["attributes"];
        assert_eq!(a["created_at"], "2021-01-09T13:12:56Z");
        assert_eq!(a["pod_arrived_at"], "2021-01-09T13:12:00.250Z");
        assert_eq!(a["seal_number"], Value::Null);
        assert_eq!(a["import_deadlines"], Value::Null);
        assert_eq!(a["current_status"], "on_ship");
        assert_eq!(a["equipment_length"], 40);
        assert_eq!(
            a["holds_at_pod_terminal"],
            json!([{"name":"customs","status":"hold","description":null}])
        );
        assert_eq!(
            a["fees_at_pod_terminal"],
            json!([{"type":"demurrage","amount":120.5,"currency_code":"USD"}])
        );
        let r = &v["relationships"];
        assert_eq!(
            r["shipment"],
            json!({"data":{"id":Uuid::from_u128(2).to_string(),"type":"shipment"}})
        );
        assert_eq!(r["pickup_facility"], json!({"data":null}));
        assert_eq!(
            r["pod_terminal"],
            json!({"data":{"id":Uuid::from_u128(7).to_string(),"type":"terminal"}})
        );
        assert_eq!(
            r["transport_events"]["data"][1]["id"],
            Uuid::from_u128(102).to_string()
        );
        assert_eq!(r["transport_events"]["data"][1]["type"], "transport_event");
        assert_eq!(
            r["raw_events"]["data"][0]["id"],
            Uuid::from_u128(201).to_string()
        );
        assert_eq!(r["raw_events"]["data"][0]["type"], "raw_event");
        assert!(v.get("links").is_none());
    }

    #[test]
    fn import_deadlines_object_has_three_keys() {
        let mut c = sample_container();
        c.import_deadlines = Some(ImportDeadlines {
            pickup_lfd_line: Some(t(0, 0)),
            ..Default::default()
        });
        let v: Value = serde_json::to_value(container(&c, &[])).unwrap();
        assert_eq!(
            v["attributes"]["import_deadlines"],
            json!({"pickup_lfd_terminal":null,"pickup_lfd_rail":null,"pickup_lfd_line":"2021-01-09T13:12:00Z"})
        );
        assert_eq!(v["relationships"]["transport_events"], json!({"data":[]}));
    }

    #[test]
    fn shipment_has_exactly_the_spec_attributes_and_relationships() {
        let s = Shipment {
            id: Uuid::from_u128(2),
            account_id: Uuid::from_u128(9),
            bill_of_lading_number: "MEDU1234567".into(),
            normalized_number: "1234567".into(),
            ref_numbers: vec!["BKG1".into()],
            created_at: t(56, 0),
            refreshed_at: t(56, 0),
            tags: vec![],
            port_of_lading_locode: Some(UnLocode::parse("CNSHA").unwrap()),
            port_of_lading_name: Some("Shanghai".into()),
            port_of_discharge_locode: None,
            port_of_discharge_name: None,
            destination_locode: Some(UnLocode::parse("USCHI").unwrap()),
            destination_name: None,
            shipping_line_scac: "MSCU".into(),
            shipping_line_name: "Mediterranean Shipping Company".into(),
            shipping_line_short_name: "MSC".into(),
            customer_name: None,
            pod_vessel_name: None,
            pod_vessel_imo: None,
            pod_voyage_number: None,
            pol_etd_at: None,
            pol_atd_at: Some(t(1, 0)),
            pod_eta_at: None,
            pod_original_eta_at: None,
            pod_ata_at: None,
            destination_eta_at: None,
            destination_ata_at: None,
            pol_timezone: Some("Asia/Shanghai".into()),
            pod_timezone: None,
            destination_timezone: None,
            line_tracking_last_attempted_at: None,
            line_tracking_last_succeeded_at: None,
            line_tracking_stopped_at: None,
            line_tracking_stopped_reason: None,
            pod_terminal_id: None,
        };
        let v: Value = serde_json::to_value(shipment(
            &s,
            &[Uuid::from_u128(1)],
            "http://h/v2/shipments/x".into(),
        ))
        .unwrap();
        let mut got: Vec<&str> = v["attributes"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        got.sort_unstable();
        let mut want = SHIPMENT_ATTRIBUTES.to_vec();
        want.sort_unstable();
        assert_eq!(got, want);
        assert_eq!(v["type"], "shipment");
        assert_eq!(v["links"], json!({"self":"http://h/v2/shipments/x"}));
        assert_eq!(v["attributes"]["pol_atd_at"], "2021-01-09T13:12:01Z");
        let r = &v["relationships"];
        assert_eq!(
            r["port_of_lading"],
            json!({"data":{"id":port_id("CNSHA").to_string(),"type":"port"}})
        );
        assert_eq!(r["port_of_discharge"], json!({"data":null}));
        // A destination that is a known port is the destination relationship.
        assert_eq!(
            r["destination"],
            json!({"data":{"id":port_id(s.destination_locode.as_deref().unwrap()).to_string(),"type":"port"}})
        );
        assert_eq!(
            r["containers"],
            json!({"data":[{"id":Uuid::from_u128(1).to_string(),"type":"container"}]})
        );
        for k in [
            "pod_terminal",
            "destination_terminal",
            "line_tracking_stopped_by_user",
        ] {
            assert_eq!(r[k], json!({"data":null}), "{k}");
        }
        assert_eq!(r.as_object().unwrap().len(), 7);
        // Written directly, the same bytes as serde_json's, with containers or none, and
        // with text to escape.
        let mut odd = s.clone();
        odd.customer_name = Some("\"Quoted\" \\ Co.\n".into());
        odd.tags = vec!["a\u{1}".into(), "é".into()];
        for (s, ids) in [
            (&s, vec![Uuid::from_u128(1), Uuid::from_u128(3)]),
            (&odd, vec![]),
        ] {
            let resource = shipment(s, &ids, "http://h/v2/shipments/x".into());
            assert_eq!(
                String::from_utf8(resource.to_json()).unwrap(),
                serde_json::to_string(&resource).unwrap()
            );
        }
    }
}

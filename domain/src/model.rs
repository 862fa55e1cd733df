//! The domain model shared by the pipeline, the `/v2` REST layer and GraphQL.
//!
//! Field names follow `docs/interface.md` (the `/v2` interface). All timestamps are UTC
//! (`DateTime<Utc>`); the IANA time zone of the place where a timestamp happened is kept in the
//! `*_timezone` field beside it; in JSON they are RFC 3339 text, read through [`crate::time`].
//! Identifiers are UUIDs: v5 of the natural key scoped by account
//! (see [`crate::ids`]), so re-ingesting the same feed yields the same ids.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

pub use crate::codes::{CodeError, ContainerNumber, Imo, Mmsi, Scac, UnLocode};

/// An account: the unit of tenancy. Every stored row belongs to exactly one account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    pub id: Uuid,
    /// Unique short name used on the command line (`teu ingest --account NAME`).
    pub name: String,
    /// Display name, served as `company_name` on included account resources.
    pub company_name: String,
    /// Whether the account has the paid Routing Data feature (`map_geojson`).
    pub routing_data: bool,
    #[serde(with = "crate::time::utc")]
    pub created_at: DateTime<Utc>,
}

/// DCSA event type (`eventType` in T&T 2.2, `eventClassification.eventTypeCode` in 3.0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum EventType {
    Transport,
    Equipment,
    Shipment,
}

impl EventType {
    /// The DCSA code: `TRANSPORT`, `EQUIPMENT` or `SHIPMENT`.
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Transport => "TRANSPORT",
            EventType::Equipment => "EQUIPMENT",
            EventType::Shipment => "SHIPMENT",
        }
    }

    /// Parses a DCSA event type code (exact, upper case). `None` for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "TRANSPORT" => Some(EventType::Transport),
            "EQUIPMENT" => Some(EventType::Equipment),
            "SHIPMENT" => Some(EventType::Shipment),
            _ => None,
        }
    }
}

/// DCSA event classifier: actual, estimated, planned or requested (`eventClassifierCode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Classifier {
    Act,
    Est,
    Pln,
    Req,
}

impl Classifier {
    /// The DCSA code: `ACT`, `EST`, `PLN` or `REQ`.
    pub fn as_str(self) -> &'static str {
        match self {
            Classifier::Act => "ACT",
            Classifier::Est => "EST",
            Classifier::Pln => "PLN",
            Classifier::Req => "REQ",
        }
    }

    /// Parses a DCSA classifier code (exact, upper case). `None` for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "ACT" => Some(Classifier::Act),
            "EST" => Some(Classifier::Est),
            "PLN" => Some(Classifier::Pln),
            "REQ" => Some(Classifier::Req),
            _ => None,
        }
    }
}

/// One validated carrier event, flattened from DCSA Track & Trace 2.2 or 3.0.
///
/// `code` is the event's type code: transport (`ARRI`, `DEPA`), equipment (`LOAD`, `DISC`,
/// `GTIN`, `GTOT`, `STUF`, `STRP`, `PICK`, `DROP`, `INSP`, `RSEA`, `RMVD`) or shipment
/// (`RECE`, `DRFT`, `PENA`, `PENU`, `REJE`, `APPR`, `ISSU`, `SURR`, `SUBM`, `VOID`, `CONF`,
/// `REQS`, `CMPL`, `HOLD`, `RELS`).
///
/// Serialized (as `transport_events.body`) without its absent fields, which read back as
/// `None`: a shipment event has about a third of the fields of an equipment event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventRow {
    /// The feed's own `eventID`.
    pub event_id: String,
    pub event_type: EventType,
    pub classifier: Classifier,
    pub code: String,
    /// `eventDateTime`, converted to UTC.
    #[serde(with = "crate::time::utc")]
    pub event_at: DateTime<Utc>,
    /// `eventCreatedDateTime` (2.2) or `eventUpdatedDateTime` (3.0), UTC: when the carrier
    /// issued this version of the event. Later versions win when estimates change.
    #[serde(
        default,
        with = "crate::time::opt_utc",
        skip_serializing_if = "Option::is_none"
    )]
    pub event_created_at: Option<DateTime<Utc>>,
    /// Every container the event names (ISO 6346 numbers, upper case): the 2.2
    /// `equipmentReference` and every `references[referenceType=EQ]`; 3.0
    /// `equipmentDetails.equipmentReference`. DCSA: an event applies to each container it names.
    /// Stored bodies written before this was a set carry one `container_number`; they read
    /// back as a set of one.
    #[serde(
        default,
        alias = "container_number",
        deserialize_with = "one_or_many",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub containers: Vec<String>,
    /// Every transport document (bill of lading) the event names: `TRD`/`BOL` document
    /// references, or the `documentID` of a shipment event about a `TRD`.
    #[serde(
        default,
        alias = "bill_of_lading",
        deserialize_with = "one_or_many",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub bills_of_lading: Vec<String>,
    /// Every carrier booking reference the event names: `BKG`/`CBR` document references, or
    /// the `documentID` of a shipment event about a `BKG`.
    #[serde(
        default,
        alias = "booking",
        deserialize_with = "one_or_many",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub bookings: Vec<String>,
    /// The other DCSA `references` of the event (2.2 `references`, `referenceType` FF
    /// freight forwarder's, SI shipper's, PO purchase order, CR customer's, AAO consignee's
    /// reference): they become the `ref_numbers` of the containers and shipments it names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<EventReference>,
    /// DCSA `transportCall.transportCallID` (2.2) / `transportCallReference` (3.0): one vessel
    /// at one place on one voyage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport_call_id: Option<String>,
    /// UN/LOCODE of the event location (or of the transport call).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locode: Option<UnLocode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location_name: Option<String>,
    /// Facility code (SMDG or BIC) of the event location.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub facility_code: Option<String>,
    /// DCSA facility type code of the event location (`facilityTypeCode`): `POTE` port
    /// terminal, `OFFD` off-dock storage (`COYA`, deprecated, read as `OFFD`), `COFS` container
    /// freight station, `DEPO` depot, `CLOC` customer location, `INTE` inland terminal, `RAMP`
    /// rail ramp, `BOCR` border crossing. `None` when the feed does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub facility_type: Option<String>,
    /// `VESSEL`, `RAIL`, `TRUCK` or `BARGE`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode_of_transport: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transport_call_sequence: Option<i64>,
    /// IMO number, 7 digits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vessel_imo: Option<Imo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vessel_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub export_voyage: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub import_voyage: Option<String>,
    /// The carrier code the feed gives for the carrier operating the vessel or issuing the
    /// event (DCSA `vesselOperatorCarrierCode`, whose list provider may be SMDG or NMFTA, so it
    /// is kept as given rather than checked as a [`Scac`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub carrier_scac: Option<String>,
    /// ISO 6346 size-type code, e.g. `22GP`, `45G1`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iso_equipment_code: Option<String>,
    /// `true` for `emptyIndicatorCode` EMPTY, `false` for LADEN, `None` when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub empty: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seal_number: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay_reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remark: Option<String>,
}

impl EventRow {
    /// The first container the event names, if any (for single-valued displays such as the
    /// GraphQL `TransportEvent.containerNumber`).
    pub fn container_number(&self) -> Option<&str> {
        self.containers.first().map(String::as_str)
    }

    /// The first bill of lading the event names, if any.
    pub fn bill_of_lading(&self) -> Option<&str> {
        self.bills_of_lading.first().map(String::as_str)
    }

    /// The first booking the event names, if any.
    pub fn booking(&self) -> Option<&str> {
        self.bookings.first().map(String::as_str)
    }

    /// Whether the event names at least one container, bill of lading or booking (an event
    /// that names none cannot be attached to anything).
    pub fn names_anything(&self) -> bool {
        !(self.containers.is_empty() && self.bills_of_lading.is_empty() && self.bookings.is_empty())
    }
}

/// One DCSA `references` entry of an event other than `EQ` (DCSA T&T 2.2 `referenceType`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct EventReference {
    /// `FF`, `SI`, `PO`, `CR` or `AAO`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The reference's value, as the carrier wrote it (trimmed).
    pub value: String,
}

/// Reads a JSON string as a set of one, an array of strings as it is, `null` as empty.
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match Option::<OneOrMany>::deserialize(d)? {
        None => Vec::new(),
        Some(OneOrMany::One(s)) => vec![s],
        Some(OneOrMany::Many(v)) => v,
    })
}

/// Container status (interface.md: States and transitions). The rules that set it are in
/// [`crate::status`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContainerStatus {
    New,
    OnShip,
    Available,
    NotAvailable,
    Grounded,
    OnRail,
    PickedUp,
    OffDock,
    Delivered,
    Dropped,
    Loaded,
    EmptyReturned,
    AwaitingInlandTransfer,
}

impl ContainerStatus {
    /// Every status, in the order the spec lists them.
    pub const ALL: [ContainerStatus; 13] = [
        ContainerStatus::New,
        ContainerStatus::OnShip,
        ContainerStatus::Available,
        ContainerStatus::NotAvailable,
        ContainerStatus::Grounded,
        ContainerStatus::OnRail,
        ContainerStatus::PickedUp,
        ContainerStatus::OffDock,
        ContainerStatus::Delivered,
        ContainerStatus::Dropped,
        ContainerStatus::Loaded,
        ContainerStatus::EmptyReturned,
        ContainerStatus::AwaitingInlandTransfer,
    ];

    /// The spec's snake_case value, e.g. `on_ship`.
    pub fn as_str(self) -> &'static str {
        match self {
            ContainerStatus::New => "new",
            ContainerStatus::OnShip => "on_ship",
            ContainerStatus::Available => "available",
            ContainerStatus::NotAvailable => "not_available",
            ContainerStatus::Grounded => "grounded",
            ContainerStatus::OnRail => "on_rail",
            ContainerStatus::PickedUp => "picked_up",
            ContainerStatus::OffDock => "off_dock",
            ContainerStatus::Delivered => "delivered",
            ContainerStatus::Dropped => "dropped",
            ContainerStatus::Loaded => "loaded",
            ContainerStatus::EmptyReturned => "empty_returned",
            ContainerStatus::AwaitingInlandTransfer => "awaiting_inland_transfer",
        }
    }

    /// Parses the spec's snake_case value. `None` for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == s)
    }
}

/// A hold at the POD terminal (interface.md: terminal_hold).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TerminalHold {
    pub name: String,
    /// `pending` or `hold`.
    pub status: String,
    pub description: Option<String>,
}

/// A fee at the POD terminal (interface.md: terminal_fee).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TerminalFee {
    /// `demurrage`, `exam`, `extended_dwell_time`, `other` or `total`.
    #[serde(rename = "type")]
    pub fee_type: String,
    /// Amount in the local currency.
    pub amount: f64,
    /// ISO 4217 code.
    pub currency_code: Option<String>,
}

/// Last free days (interface.md: container `import_deadlines`), all UTC.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ImportDeadlines {
    #[serde(default, with = "crate::time::opt_utc")]
    pub pickup_lfd_terminal: Option<DateTime<Utc>>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub pickup_lfd_rail: Option<DateTime<Utc>>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub pickup_lfd_line: Option<DateTime<Utc>>,
}

/// A container: one piece of equipment during one journey (one shipment), with every attribute
/// of the spec's container resource.
///
/// The event-derived fields are computed by `teu_pipeline::normalize`; the terminal, rail and deadline
/// fields stay `None` / empty until a feed that carries them is ingested.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Container {
    pub id: Uuid,
    pub account_id: Uuid,
    pub shipment_id: Uuid,
    /// Container number: ISO 6346 (checked) or another equipment reference
    /// ([`ContainerNumber`]).
    pub number: ContainerNumber,
    pub ref_numbers: Vec<String>,
    pub seal_number: Option<String>,
    /// When teu first stored this container (UTC).
    #[serde(with = "crate::time::utc")]
    pub created_at: DateTime<Utc>,
    /// When an ingest last changed this container (UTC); the list is ordered by it.
    #[serde(with = "crate::time::utc")]
    pub refreshed_at: DateTime<Utc>,
    /// dry, reefer, open top, flat rack, bulk, tank (from the ISO 6346 size-type code).
    pub equipment_type: Option<String>,
    /// Feet: 10, 20, 40, 45.
    pub equipment_length: Option<i32>,
    /// standard or high_cube.
    pub equipment_height: Option<String>,
    /// Pounds.
    pub weight_in_lbs: Option<f64>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub pickup_lfd: Option<DateTime<Utc>>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub pickup_appointment_at: Option<DateTime<Utc>>,
    pub availability_known: bool,
    pub available_for_pickup: Option<bool>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub pod_arrived_at: Option<DateTime<Utc>>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub pod_discharged_at: Option<DateTime<Utc>>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub pod_full_out_at: Option<DateTime<Utc>>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub terminal_checked_at: Option<DateTime<Utc>>,
    pub pod_full_out_chassis_number: Option<String>,
    pub location_at_pod_terminal: Option<String>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub final_destination_full_out_at: Option<DateTime<Utc>>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub empty_terminated_at: Option<DateTime<Utc>>,
    pub holds_at_pod_terminal: Vec<TerminalHold>,
    pub fees_at_pod_terminal: Vec<TerminalFee>,
    pub pod_timezone: Option<String>,
    pub final_destination_timezone: Option<String>,
    pub empty_terminated_timezone: Option<String>,
    pub pod_rail_carrier_scac: Option<String>,
    pub ind_rail_carrier_scac: Option<String>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub pod_last_tracking_request_at: Option<DateTime<Utc>>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub shipment_last_tracking_request_at: Option<DateTime<Utc>>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub pod_rail_loaded_at: Option<DateTime<Utc>>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub pod_rail_departed_at: Option<DateTime<Utc>>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub ind_eta_at: Option<DateTime<Utc>>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub ind_ata_at: Option<DateTime<Utc>>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub ind_rail_unloaded_at: Option<DateTime<Utc>>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub ind_facility_lfd_on: Option<DateTime<Utc>>,
    pub import_deadlines: Option<ImportDeadlines>,
    pub current_status: ContainerStatus,
    /// UN/LOCODE of the port of discharge (for the `pod_terminal` relationship and filters).
    pub pod_locode: Option<UnLocode>,
    /// Terminal (facility) id at the POD, when known.
    pub pod_terminal_id: Option<Uuid>,
    /// Pickup facility id, when known.
    pub pickup_facility_id: Option<Uuid>,
    /// Time of the latest actual movement event (UTC): terminal checks older than it do not
    /// change `current_status`. Internal; not a `/v2` attribute.
    #[serde(default, with = "crate::time::opt_utc")]
    pub last_movement_at: Option<DateTime<Utc>>,
}

/// A shipment: one bill of lading (or, when that is all the feed gives, one booking), with every
/// attribute of the spec's shipment resource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Shipment {
    pub id: Uuid,
    pub account_id: Uuid,
    /// The bill of lading number, or the booking reference when no bill of lading is known.
    pub bill_of_lading_number: String,
    /// Upper case, without spaces, dashes or the carrier's SCAC prefix.
    pub normalized_number: String,
    /// Other references (booking, when the bill of lading is known).
    pub ref_numbers: Vec<String>,
    #[serde(with = "crate::time::utc")]
    pub created_at: DateTime<Utc>,
    #[serde(with = "crate::time::utc")]
    pub refreshed_at: DateTime<Utc>,
    pub tags: Vec<String>,
    pub port_of_lading_locode: Option<UnLocode>,
    pub port_of_lading_name: Option<String>,
    pub port_of_discharge_locode: Option<UnLocode>,
    pub port_of_discharge_name: Option<String>,
    pub destination_locode: Option<UnLocode>,
    pub destination_name: Option<String>,
    pub shipping_line_scac: String,
    pub shipping_line_name: String,
    pub shipping_line_short_name: String,
    pub customer_name: Option<String>,
    pub pod_vessel_name: Option<String>,
    pub pod_vessel_imo: Option<Imo>,
    pub pod_voyage_number: Option<String>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub pol_etd_at: Option<DateTime<Utc>>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub pol_atd_at: Option<DateTime<Utc>>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub pod_eta_at: Option<DateTime<Utc>>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub pod_original_eta_at: Option<DateTime<Utc>>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub pod_ata_at: Option<DateTime<Utc>>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub destination_eta_at: Option<DateTime<Utc>>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub destination_ata_at: Option<DateTime<Utc>>,
    pub pol_timezone: Option<String>,
    pub pod_timezone: Option<String>,
    pub destination_timezone: Option<String>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub line_tracking_last_attempted_at: Option<DateTime<Utc>>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub line_tracking_last_succeeded_at: Option<DateTime<Utc>>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub line_tracking_stopped_at: Option<DateTime<Utc>>,
    pub line_tracking_stopped_reason: Option<String>,
    /// The POD terminal of the shipment's containers (the one most of them name; spec
    /// relationship `pod_terminal`), when known. Rows stored before it existed read as `None`.
    #[serde(default)]
    pub pod_terminal_id: Option<Uuid>,
}

/// A stored, normalized event (spec relationship `transport_events`), with the id of the raw
/// event it came from (spec relationship `raw_events`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TransportEvent {
    pub id: Uuid,
    pub raw_event_id: Uuid,
    /// IANA time zone of the event's UN/LOCODE, when the port is known.
    pub timezone: Option<String>,
    #[serde(flatten)]
    pub event: EventRow,
}

/// A port from the reference data: UN/LOCODE, name, country, coordinates (degrees, WGS84) and
/// IANA time zone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Port {
    pub locode: UnLocode,
    pub name: String,
    /// ISO 3166-1 alpha-2, the first two letters of the UN/LOCODE.
    pub country_code: String,
    pub country: Option<String>,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub time_zone: Option<String>,
    /// State or province of the port (`province` of the bundled port list), when known.
    #[serde(default)]
    pub state: Option<String>,
    /// The state's or province's postal abbreviation (US states and territories, Canadian
    /// provinces and territories: USPS and Canada Post codes), when known.
    #[serde(default)]
    pub state_abbr: Option<String>,
}

/// An ocean carrier from the reference data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Carrier {
    /// The line's SCAC (NMFTA).
    pub scac: Scac,
    /// Short name, e.g. `MSC`.
    pub short_name: String,
    /// Legal name, e.g. `Mediterranean Shipping Company`.
    pub name: String,
    /// Other SCACs the line uses (merged lines, subsidiaries' codes).
    pub alternative_scacs: Vec<Scac>,
    pub bill_of_lading_prefix: Option<String>,
    /// Shapes of the line's numbers that carry no prefix (bare bills of lading, bookings), as
    /// [`crate::reference::NumberShape`] patterns: `9d` is nine digits, `EBKG8d` is `EBKG` and
    /// eight digits (`ocean-carriers.csv` column `number_shapes`, separated by spaces).
    #[serde(default)]
    pub number_shapes: Vec<String>,
}

/// One terminal availability check of one container (a row of a terminal availability file),
/// with every time in UTC.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TerminalCheck {
    /// [`crate::terminals::Terminal`] id.
    pub terminal_id: Uuid,
    /// UN/LOCODE of the terminal's port.
    pub terminal_locode: UnLocode,
    /// ISO 6346 container number.
    pub container_number: ContainerNumber,
    /// When the terminal reported this state (UTC).
    #[serde(with = "crate::time::utc")]
    pub checked_at: DateTime<Utc>,
    /// `Some(true)` available for pickup, `Some(false)` not, `None` not reported.
    pub available_for_pickup: Option<bool>,
    /// Free text location in the terminal (yard block, row, tier).
    pub location: Option<String>,
    pub holds: Vec<TerminalHold>,
    pub fees: Vec<TerminalFee>,
    /// Last free day at the terminal: start of that day in the terminal's zone, as UTC.
    #[serde(default, with = "crate::time::opt_utc")]
    pub last_free_day: Option<DateTime<Utc>>,
    #[serde(default, with = "crate::time::opt_utc")]
    pub pickup_appointment_at: Option<DateTime<Utc>>,
    /// Full-out (laden gate-out) time reported by the terminal.
    #[serde(default, with = "crate::time::opt_utc")]
    pub full_out_at: Option<DateTime<Utc>>,
    pub chassis_number: Option<String>,
}

/// A last free day given by the shipping line (`import_deadlines.pickup_lfd_line`), for a
/// container or for every container of a bill of lading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LineDeadline {
    /// The container the deadline is for, or `None` when it is for every container of
    /// `bill_of_lading`.
    pub container_number: Option<ContainerNumber>,
    pub bill_of_lading: Option<String>,
    /// Start of the last free day in the POD's zone (or the destination's), as UTC.
    #[serde(with = "crate::time::utc")]
    pub pickup_lfd_line: DateTime<Utc>,
    /// When the line issued it (UTC); a later issue replaces an earlier one.
    #[serde(with = "crate::time::utc")]
    pub issued_at: DateTime<Utc>,
}

/// One AIS position report of a vessel, as read by `teu_pipeline::feeds::ais`.
///
/// AIS is public broadcast data about vessels, not about an account's cargo: positions are
/// stored once for everyone (table `vessel_positions`, no `account_id`) and reach an account
/// only through the route of one of its own containers (`map_geojson`, Routing Data feature).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VesselPosition {
    /// Maritime Mobile Service Identity (ITU-R M.585, 9 digits); `None` for anonymised tracks.
    pub mmsi: Option<Mmsi>,
    /// For files without an MMSI: `<file stem>:<vessel id of the file>`.
    pub track: Option<String>,
    /// IMO number (7 digits, without the `IMO` prefix), when the report carries one.
    pub imo: Option<Imo>,
    pub vessel_name: Option<String>,
    /// When the position was observed (UTC).
    #[serde(with = "crate::time::utc")]
    pub observed_at: DateTime<Utc>,
    /// Degrees, WGS84, in [-90, 90].
    pub latitude: f64,
    /// Degrees, WGS84, in [-180, 180].
    pub longitude: f64,
    /// Speed over ground, knots; `None` when not available (102.3).
    pub speed_knots: Option<f64>,
    /// Course over ground, degrees clockwise from true north in [0, 360); `None` when not
    /// available (360).
    pub course_deg: Option<f64>,
    /// True heading, degrees in [0, 360); `None` when not available (511).
    pub heading_deg: Option<f64>,
}

impl VesselPosition {
    /// The transmitter this report came from: the MMSI, else the track id.
    pub fn vessel_key(&self) -> &str {
        self.mmsi
            .as_ref()
            .map(Mmsi::as_str)
            .or(self.track.as_deref())
            .unwrap_or_default()
    }
}

/// Kind of number (interface.md: `number_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NumberType {
    /// An ISO 6346 container number.
    Container,
    /// A bill of lading number.
    BillOfLading,
    /// A carrier booking number.
    Booking,
}

impl NumberType {
    /// `container`, `bill_of_lading` or `booking`.
    pub fn as_str(self) -> &'static str {
        match self {
            NumberType::Container => "container",
            NumberType::BillOfLading => "bill_of_lading",
            NumberType::Booking => "booking",
        }
    }

    /// Parses `container`, `bill_of_lading` or `booking`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "container" => Some(NumberType::Container),
            "bill_of_lading" => Some(NumberType::BillOfLading),
            "booking" => Some(NumberType::Booking),
            _ => None,
        }
    }

    /// `validation.type`: `container` for containers, `shipment` for bills of lading and
    /// bookings.
    pub fn validation_type(self) -> &'static str {
        match self {
            NumberType::Container => "container",
            NumberType::BillOfLading | NumberType::Booking => "shipment",
        }
    }
}

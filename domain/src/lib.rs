//! teu-domain: the records teu derives and serves, and the reference data and rules that give
//! them meaning, shared by every other crate (feeds → pipeline → store → APIs).
//!
//! | module | what it holds |
//! |---|---|
//! | [`model`] | containers, shipments, transport events, ports, carriers, vessel positions (field names of Terminal49's `/v2`) |
//! | [`codes`] | container numbers, SCACs, UN/LOCODEs, IMO numbers and MMSIs as checked types |
//! | [`geodesy`] | the great-circle distance (nautical miles) |
//! | [`ids`] | deterministic ids: UUID v5 of a natural key, scoped by account |
//! | [`iso6346`] | container numbers: owner code, serial, check digit (ISO 6346) |
//! | [`status`] | the container status table: which movement gives which `current_status` |
//! | [`event_names`] | Terminal49's transport event names of DCSA events |
//! | [`reference`] | bundled reference data: UN/LOCODE ports, carriers (SCAC, BL prefixes, number shapes) |
//! | [`terminals`] | bundled terminals (SMDG codes, firms codes) and their ids |
//! | [`journey`] | a container's transport calls, legs and stops from its events (DCSA T&T 2.2) |
//! | [`history`] | an account's SCAC frequencies per number prefix (carrier inference evidence) |
//! | [`listing`] | list filters, orders and tags of the container and shipment lists |
//! | [`shipment_edits`] | what a user may change on a shipment (reference numbers, tags) |
//! | [`tracking_requests`] | tracking requests: their states, validation and the shipments they find |
//! | [`vessels`] | vessels and their latest AIS fix |
//! | [`document_schemas`] | the bundled JSON Schemas of email documents (`schemas/`) |
//! | [`time`] | timestamps in JSON: written as chrono writes them, read by a direct parse of that form first |
//! | [`json`] | JSON text as serde_json writes it, strings checked eight bytes at a time: both APIs' answers and the store's bodies |
//! | [`webhooks`] | webhooks, their event catalog, which change emits which notification, the outbox's types |
//!
//! It knows nothing of feeds' formats, SQL or HTTP.

pub mod codes;
pub mod document_schemas;
pub mod event_names;
pub mod geodesy;
pub mod history;
pub mod ids;
pub mod iso6346;
pub mod journey;
pub mod json;
pub mod listing;
pub mod model;
pub mod reference;
pub mod shipment_edits;
pub mod status;
pub mod terminals;
pub mod time;
pub mod tracking_requests;
pub mod vessels;
pub mod webhooks;

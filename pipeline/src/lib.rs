//! teu-pipeline: the domain model, feed readers, normalization, derivation and the store.
//!
//! Data flows `feeds` (readers, quarantine) → `normalize` (polars: events → containers and
//! shipments, with `status` rules) → `store` (sqlx, SQLite or PostgreSQL). The crate knows
//! nothing of HTTP.

pub mod derive_lock;
pub mod document_schemas;
pub mod email;
pub mod event_names;
pub mod feeds;
pub mod ids;
pub mod infer;
pub mod ingest;
pub mod iso6346;
pub mod journey;
pub mod listing;
pub mod model;
pub mod normalize;
pub mod notify;
pub mod rederive;
pub mod reference;
pub mod route;
pub mod shipment_edits;
pub mod shipment_facts;
pub mod status;
pub mod store;
pub mod terminal_facts;
pub mod terminals;
pub mod tracking_requests;
pub mod vessels;
pub mod webhooks;

//! teu-pipeline: ingest, normalization, derivation, routes, carrier inference and the store.
//!
//! Data flows `feeds` (teu-feeds: readers, quarantine) → `ingest` → `normalize` (polars: events
//! → containers and shipments, with `teu_domain::status` rules) → `store` (sqlx, SQLite or
//! PostgreSQL). The crate knows nothing of HTTP.

// The domain model and reference data live in teu-domain; re-exported so that
// `teu_pipeline::model` and `crate::model` keep naming them.
pub use teu_domain::{event_names, geodesy, ids, iso6346, model, reference, status, terminals};
// The feed readers and the email parser live in teu-feeds; re-exported so that
// `teu_pipeline::feeds` and `crate::email` keep naming them.
pub use teu_feeds as feeds;
pub use teu_feeds::email;

pub mod document_schemas;
pub mod infer;
pub mod ingest;
pub mod journey;
pub mod listing;
pub mod normalize;
pub mod rederive;
pub mod route;
pub mod shipment_edits;
pub mod shipment_facts;
pub mod store;
pub mod terminal_facts;
pub mod tracking_requests;
pub mod vessels;
pub mod webhooks;

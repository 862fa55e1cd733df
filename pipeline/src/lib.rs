//! teu-pipeline: ingest, normalization, derivation, routes and carrier inference.
//!
//! Data flows `feeds` (teu-feeds: readers, quarantine) → `ingest` → `normalize` (polars: events
//! → containers and shipments, with `teu_domain::status` rules) → `store` (teu-store: sqlx,
//! SQLite or PostgreSQL). The crate knows nothing of HTTP or SQL text.

// The domain model and reference data live in teu-domain; re-exported so that
// `teu_pipeline::model` and `crate::model` keep naming them.
pub use teu_domain::{
    document_schemas, event_names, geodesy, ids, iso6346, journey, json, listing, model, reference,
    shipment_edits, status, terminals, time, tracking_requests, vessels, webhooks,
};
// The feed readers and the email parser live in teu-feeds; re-exported so that
// `teu_pipeline::feeds` and `crate::email` keep naming them.
pub use teu_feeds as feeds;
pub use teu_feeds::email;
// The store is its own crate (teu-store); re-exported so that `teu_pipeline::store` keeps
// naming it.
pub use teu_store as store;

pub mod infer;
pub mod ingest;
pub mod normalize;
pub mod rederive;
pub mod route;
pub mod shipment_facts;
pub mod terminal_facts;

//! GraphQL object types over the pipeline's domain model ([`teu_pipeline::model`]), one
//! module per resource:
//!
//! | types | module |
//! |---|---|
//! | `DateTime` (the scalar) | `scalars` |
//! | `Container`, `ContainerStatus` | `container` |
//! | `TerminalHold`, `TerminalFee`, `ImportDeadlines` (what the POD terminal says) | `terminal_facts` |
//! | `Shipment`, `LineTrackingStoppedReason` | `shipment` |
//! | `TransportEvent`, `EventType`, `EventClassifier` (`Container.events`) | `event` |
//! | `ContainerTransportEvent`, `RawEvent` (`Container.transportEvents`, `Container.rawEvents`) | `named_event` |
//! | `ContainerRoute` and its ports, vessel and legs (`Container.route`) | `route` |
//! | `EmailSubmission`, `Document`, `DocumentRepresentation`, `DocumentSchema` | `email` |
//! | `Port`, `Terminal` (reference data) | `reference` |
//! | `Vessel` | `vessel` |
//! | `InPlace` (an object's fields resolved one after another, in place) | `in_place` |
//! | `PlainFields` (the fields an object writes as JSON text itself) | `text` |
//!
//! Each object serves the fields of the model record the store returned unchanged, so the
//! values are those of the `/v2` API (field names in camelCase). An object is a
//! `SimpleObject` built by a `From` conversion of its model record that names every model
//! field (a field added to the model does not compile until it is served or left out on
//! purpose); the fields it looks up (reference data, nested records) are its `ComplexObject`
//! part. Nested records go through the request's data loader ([`crate::loaders`]). Enums that
//! mirror a domain enum derive both conversions with `#[graphql(remote = ...)]`; those over
//! `/v2` text values (`HoldStatus`, `FeeType`, `LineTrackingStoppedReason`) keep a parser
//! until the model types them.

mod container;
mod email;
mod event;
mod in_place;
mod named_event;
mod reference;
mod route;
mod scalars;
mod shipment;
mod terminal_facts;
mod text;
mod vessel;

pub use container::{Container, ContainerStatus};
pub use email::{DocumentSchema, EmailSubmission};
pub use event::TransportEvents;
#[cfg(test)]
pub(crate) use in_place::Plainly;
pub use in_place::{InPlace, KeysCounted};
pub use reference::{Port, Terminal};
pub use route::ContainerRoute;
pub(crate) use scalars::dt;
pub use scalars::DateTime;
pub(crate) use shipment::load_shipment;
pub use shipment::Shipment;
pub use terminal_facts::{ImportDeadlines, TerminalFee, TerminalHold};
pub use vessel::Vessel;

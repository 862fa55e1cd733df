//! A container's DCSA events as stored (`Container.events`, [`TransportEvent`]), with their
//! type and classifier. The Terminal49 views of them are in [`super::named_event`].

use std::borrow::Cow;

use async_graphql::parser::types::{Field, Selection, SelectionSet};
use async_graphql::{
    indexmap::IndexMap, registry, Context, ContextSelectionSet, Enum, Name, Object, OutputType,
    Positioned, ServerResult, Value, ID,
};
use teu_pipeline::model;
use uuid::Uuid;

use super::{dt, DateTime, Port, Vessel};
use crate::context::loader;
use crate::error;
use crate::loaders::{ids_only, EventLinksKey, EventsKey, IdField, EVENT_ID_FIELDS};
use teu_store::EventLink;

/// DCSA event type.
#[derive(Enum, Debug, Clone, Copy, PartialEq, Eq)]
#[graphql(remote = "model::EventType")]
pub enum EventType {
    /// A vessel (or other means of transport) arrived or departed.
    Transport,
    /// Something happened to the container (load, discharge, gate in/out, ...).
    Equipment,
    /// Something happened to the shipment's documents (booking, bill of lading, ...).
    Shipment,
}

/// DCSA event classifier: whether the event happened or is expected.
#[derive(Enum, Debug, Clone, Copy, PartialEq, Eq)]
#[graphql(remote = "model::Classifier")]
pub enum EventClassifier {
    /// Actual: it happened.
    Act,
    /// Estimated.
    Est,
    /// Planned.
    Pln,
    /// Requested.
    Req,
}

/// A normalized carrier event (DCSA Track & Trace 2.2 or 3.0) of a container.
///
/// Read whole, or from the container's event links when a selection asks for its ids alone
/// ([`ids_only`]); the other fields of a linked event are then read through the request's
/// events loader when asked for.
#[derive(Debug, Clone)]
pub struct TransportEvent {
    id: Uuid,
    raw_event_id: Uuid,
    body: Body,
}

/// What of an event is at hand.
#[derive(Debug, Clone)]
enum Body {
    /// The event was read whole.
    Read(Box<EventFields>),
    /// Only its link was read: the event is one of container `container`'s.
    Link { account: Uuid, container: Uuid },
}

/// The fields of a stored event other than its ids, as GraphQL serves them.
#[derive(Debug, Clone)]
struct EventFields {
    event_type: EventType,
    classifier: EventClassifier,
    code: String,
    event_at: DateTime,
    event_created_at: Option<DateTime>,
    container_number: Option<String>,
    bill_of_lading: Option<String>,
    booking: Option<String>,
    locode: Option<String>,
    location_name: Option<String>,
    facility_code: Option<String>,
    mode_of_transport: Option<String>,
    vessel_imo: Option<String>,
    vessel_name: Option<String>,
    voyage: Option<String>,
    delay_reason: Option<String>,
    remark: Option<String>,
    timezone: Option<String>,
}

impl From<model::TransportEvent> for TransportEvent {
    /// The GraphQL event of a stored one, read whole.
    fn from(e: model::TransportEvent) -> Self {
        TransportEvent {
            id: e.id,
            raw_event_id: e.raw_event_id,
            body: Body::Read(Box::new(EventFields::from(e))),
        }
    }
}

impl From<model::TransportEvent> for EventFields {
    /// The fields of a stored event but its ids: the first container, bill of lading and
    /// booking it names (`EventRow::container_number`, ...). Every model field is named here,
    /// so a field added to the model does not compile until it is served or left out on purpose.
    fn from(e: model::TransportEvent) -> Self {
        let model::TransportEvent {
            id: _,
            raw_event_id: _,
            timezone,
            event,
        } = e;
        let container_number = event.container_number().map(str::to_string);
        let bill_of_lading = event.bill_of_lading().map(str::to_string);
        let booking = event.booking().map(str::to_string);
        let model::EventRow {
            event_id: _,
            event_type,
            classifier,
            code,
            event_at,
            event_created_at,
            containers: _,
            bills_of_lading: _,
            bookings: _,
            references: _,
            transport_call_id: _,
            locode,
            location_name,
            facility_code,
            facility_type: _,
            mode_of_transport,
            transport_call_sequence: _,
            vessel_imo,
            vessel_name,
            export_voyage,
            import_voyage,
            carrier_scac: _,
            iso_equipment_code: _,
            empty: _,
            seal_number: _,
            delay_reason,
            remark,
        } = event;
        EventFields {
            event_type: event_type.into(),
            classifier: classifier.into(),
            code,
            event_at: DateTime(event_at),
            event_created_at: dt(event_created_at),
            container_number,
            bill_of_lading,
            booking,
            locode: locode.map(String::from),
            location_name,
            facility_code,
            mode_of_transport,
            vessel_imo: vessel_imo.map(String::from),
            vessel_name,
            voyage: import_voyage.or(export_voyage),
            delay_reason,
            remark,
            timezone,
        }
    }
}

impl TransportEvent {
    /// The event of a link of container `container` of `account`, its other fields read on
    /// demand.
    pub(crate) fn of_link(account: Uuid, container: Uuid, link: &EventLink) -> Self {
        TransportEvent {
            id: link.id,
            raw_event_id: link.raw_event_id,
            body: Body::Link { account, container },
        }
    }

    /// The event's fields: as read, or the container's events through the request's loader.
    ///
    /// Errors: `INTERNAL` when the store fails or no longer holds the event.
    async fn fields(&self, ctx: &Context<'_>) -> async_graphql::Result<Cow<'_, EventFields>> {
        match &self.body {
            Body::Read(fields) => Ok(Cow::Borrowed(fields)),
            Body::Link { account, container } => {
                let events = loader(ctx)?
                    .load_one(EventsKey {
                        account: *account,
                        container: *container,
                    })
                    .await
                    .map_err(|_| error::internal_opaque())?
                    .unwrap_or_default();
                let event = events
                    .into_iter()
                    .find(|e| e.id == self.id)
                    .ok_or_else(error::internal_opaque)?;
                Ok(Cow::Owned(EventFields::from(event)))
            }
        }
    }
}

/// A normalized carrier event (DCSA Track & Trace 2.2 or 3.0) of a container.
#[Object]
impl TransportEvent {
    /// The event id (UUID), the same as in `/v2` `transport_events` relationships.
    async fn id(&self) -> ID {
        ID(self.id.to_string())
    }

    /// Id of the raw event (the original feed JSON) it came from.
    async fn raw_event_id(&self) -> ID {
        ID(self.raw_event_id.to_string())
    }

    async fn event_type(&self, ctx: &Context<'_>) -> async_graphql::Result<EventType> {
        Ok(self.fields(ctx).await?.event_type)
    }

    async fn classifier(&self, ctx: &Context<'_>) -> async_graphql::Result<EventClassifier> {
        Ok(self.fields(ctx).await?.classifier)
    }

    /// Event type code: `ARRI`, `DEPA` (transport); `LOAD`, `DISC`, `GTIN`, `GTOT`, ...
    /// (equipment); `RECE`, `ISSU`, `CONF`, ... (shipment).
    async fn code(&self, ctx: &Context<'_>) -> async_graphql::Result<String> {
        Ok(self.fields(ctx).await?.code.clone())
    }

    /// When the event happened (or is expected to).
    async fn event_at(&self, ctx: &Context<'_>) -> async_graphql::Result<DateTime> {
        Ok(self.fields(ctx).await?.event_at)
    }

    /// When the carrier issued this version of the event.
    async fn event_created_at(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<DateTime>> {
        Ok(self.fields(ctx).await?.event_created_at)
    }

    /// ISO 6346 container number.
    async fn container_number(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<String>> {
        Ok(self.fields(ctx).await?.container_number.clone())
    }

    /// Transport document (bill of lading) number.
    async fn bill_of_lading(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<String>> {
        Ok(self.fields(ctx).await?.bill_of_lading.clone())
    }

    /// Carrier booking reference.
    async fn booking(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<String>> {
        Ok(self.fields(ctx).await?.booking.clone())
    }

    /// UN/LOCODE of the event location.
    async fn locode(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<String>> {
        Ok(self.fields(ctx).await?.locode.clone())
    }

    async fn location_name(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<String>> {
        Ok(self.fields(ctx).await?.location_name.clone())
    }

    /// Facility code (SMDG or BIC) of the event location.
    async fn facility_code(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<String>> {
        Ok(self.fields(ctx).await?.facility_code.clone())
    }

    /// `VESSEL`, `RAIL`, `TRUCK` or `BARGE`.
    async fn mode_of_transport(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<String>> {
        Ok(self.fields(ctx).await?.mode_of_transport.clone())
    }

    /// IMO number, 7 digits.
    async fn vessel_imo(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<String>> {
        Ok(self.fields(ctx).await?.vessel_imo.clone())
    }

    async fn vessel_name(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<String>> {
        Ok(self.fields(ctx).await?.vessel_name.clone())
    }

    /// The import voyage number, or the export one when the import one is unknown.
    async fn voyage(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<String>> {
        Ok(self.fields(ctx).await?.voyage.clone())
    }

    async fn delay_reason(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<String>> {
        Ok(self.fields(ctx).await?.delay_reason.clone())
    }

    async fn remark(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<String>> {
        Ok(self.fields(ctx).await?.remark.clone())
    }

    /// IANA time zone of the event's location, when known.
    async fn timezone(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<String>> {
        Ok(self.fields(ctx).await?.timezone.clone())
    }

    /// The vessel the event names, when it names one.
    async fn vessel(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<Vessel>> {
        let f = self.fields(ctx).await?;
        Ok(Vessel::of(
            f.vessel_imo.as_deref(),
            f.vessel_name.as_deref(),
        ))
    }

    /// The port of the event's location (reference data), when known.
    async fn port(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<Port>> {
        Ok(Port::of(self.fields(ctx).await?.locode.as_deref()))
    }
}

/// The account's events of container `container`, oldest first (by event time, then id),
/// through the request's data loader; empty when the account has no such container.
///
/// Errors: `UNAUTHENTICATED` without an account, `INTERNAL` when the store fails.
pub(crate) async fn container_events(
    ctx: &Context<'_>,
    container: Uuid,
) -> async_graphql::Result<Vec<model::TransportEvent>> {
    let account = error::account(ctx)?;
    Ok(loader(ctx)?
        .load_one(EventsKey {
            account: account.id,
            container,
        })
        .await
        .map_err(|_| error::internal_opaque())?
        .unwrap_or_default())
}

/// The events of container `container` as `Container.events` serves them: from the
/// container's event links when the selection asks for ids alone ([`ids_only`]), else read
/// whole ([`container_events`]); oldest first either way (by event time, then id).
///
/// Errors: `UNAUTHENTICATED` without an account, `INTERNAL` when the store fails.
pub(crate) async fn events_of_container(
    ctx: &Context<'_>,
    container: Uuid,
) -> async_graphql::Result<TransportEvents> {
    if !ids_only(&[ctx.look_ahead()]) {
        let events = container_events(ctx, container).await?;
        return Ok(TransportEvents(
            events.into_iter().map(TransportEvent::from).collect(),
        ));
    }
    let account = error::account(ctx)?.id;
    let links = loader(ctx)?
        .load_one(EventLinksKey { account, container })
        .await
        .map_err(|_| error::internal_opaque())?
        .unwrap_or_default();
    Ok(TransportEvents(
        links
            .iter()
            .map(|l| TransportEvent::of_link(account, container, l))
            .collect(),
    ))
}

/// A list of events as `Container.events` serves it: the GraphQL type `[TransportEvent!]!`.
///
/// A selection of nothing but `id`, `rawEventId` and `__typename` (under aliases, in fragments
/// on `TransportEvent`, without directives) is answered by building each event's object
/// directly, in the selection's order with its response keys ([`IdSelection`]), instead of
/// resolving every field of every event as a future of its own (a page of 30 containers has
/// about 1,200 events; their resolution was a fifth of the GraphQL page's CPU). Any other
/// selection is resolved as `Vec<TransportEvent>` is. The shortcut bypasses per-field
/// extension hooks; teu's schema registers no extension (see [`crate::persisted`]).
#[derive(Debug)]
pub struct TransportEvents(pub(crate) Vec<TransportEvent>);

impl OutputType for TransportEvents {
    fn type_name() -> Cow<'static, str> {
        <Vec<TransportEvent> as OutputType>::type_name()
    }

    fn qualified_type_name() -> String {
        <Vec<TransportEvent> as OutputType>::qualified_type_name()
    }

    fn create_type_info(registry: &mut registry::Registry) -> String {
        <Vec<TransportEvent> as OutputType>::create_type_info(registry)
    }

    async fn resolve(
        &self,
        ctx: &ContextSelectionSet<'_>,
        field: &Positioned<Field>,
    ) -> ServerResult<Value> {
        match IdSelection::of(ctx, &ctx.item.node) {
            // As JSON text when no other field of the document has this response key, so
            // that no merge of two selections under it can meet the text (field merging,
            // `in_place::only_field_with_key`); else as objects.
            Some(selection) => Ok(
                match super::in_place::only_field_with_key(ctx, field)
                    .then(|| selection.json(&self.0))
                    .flatten()
                {
                    Some(text) => crate::response::raw_json(text),
                    None => Value::List(selection.objects(&self.0)),
                },
            ),
            None => OutputType::resolve(&self.0, ctx, field).await,
        }
    }
}

/// The response keys and fields of a `TransportEvent` selection that asks for ids alone, in
/// the order the response lists them (each response key once, as GraphQL's field merging
/// makes them: validation has made sure two fields under one key are the same field).
#[derive(Debug, Default)]
struct IdSelection(Vec<(Name, IdField)>);

impl IdSelection {
    /// The id fields of `set` (a selection on `TransportEvent`, `@skip`/`@include` already
    /// applied by async-graphql), or `None` when it selects anything else, carries a
    /// directive, or spreads a fragment that is unknown or on another type.
    fn of(ctx: &ContextSelectionSet<'_>, set: &SelectionSet) -> Option<Self> {
        let mut selection = IdSelection::default();
        selection.add(ctx, set)?;
        (!selection.0.is_empty()).then_some(selection)
    }

    fn add(&mut self, ctx: &ContextSelectionSet<'_>, set: &SelectionSet) -> Option<()> {
        for item in &set.items {
            let (on, inner) = match &item.node {
                Selection::Field(f) => {
                    let f = &f.node;
                    if !f.directives.is_empty() || !f.arguments.is_empty() {
                        return None;
                    }
                    let (_, field) = EVENT_ID_FIELDS
                        .iter()
                        .find(|(name, _)| *name == f.name.node.as_str())?;
                    let key = &f.response_key().node;
                    if !self.0.iter().any(|(k, _)| k == key) {
                        self.0.push((key.clone(), *field));
                    }
                    continue;
                }
                Selection::FragmentSpread(spread) => {
                    let spread = &spread.node;
                    if !spread.directives.is_empty() {
                        return None;
                    }
                    let fragment = &ctx
                        .query_env
                        .fragments
                        .get(&spread.fragment_name.node)?
                        .node;
                    if !fragment.directives.is_empty() {
                        return None;
                    }
                    (Some(&fragment.type_condition), &fragment.selection_set.node)
                }
                Selection::InlineFragment(fragment) => {
                    let fragment = &fragment.node;
                    if !fragment.directives.is_empty() {
                        return None;
                    }
                    (
                        fragment.type_condition.as_ref(),
                        &fragment.selection_set.node,
                    )
                }
            };
            if on.is_some_and(|c| c.node.on.node != "TransportEvent") {
                return None;
            }
            self.add(ctx, inner)?;
        }
        Some(())
    }

    /// The response objects of `events` for this selection, in their order. Each is a copy
    /// of one object made here with the selection's keys, its values replaced: a copy keeps
    /// the hashes of the keys (std's SipHash, which async-graphql's objects use), where an
    /// object built key by key hashed them again for each of a page's 1,300 events.
    fn objects(&self, events: &[TransportEvent]) -> Vec<Value> {
        let template: IndexMap<Name, Value> = self
            .0
            .iter()
            .map(|(key, _)| (key.clone(), Value::Null))
            .collect();
        events
            .iter()
            .map(|e| {
                let values = self.0.iter().map(|(_, field)| {
                    let mut text = Vec::with_capacity(36);
                    push_field_text(*field, e, &mut text);
                    // ASCII: taken as it is (the lossy copy is never made).
                    Value::String(
                        String::from_utf8(text)
                            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
                    )
                });
                filled(&template, values)
            })
            .collect()
    }

    /// The JSON text of the list of `events` for this selection: the text serde_json
    /// writes for the objects of [`IdSelection::objects`] (keys in the selection's order,
    /// each value a JSON string), `[]` for no events. `None` only if the text were not
    /// UTF-8, which `push_str` and `push_text` never write (the caller then builds the
    /// objects).
    fn json(&self, events: &[TransportEvent]) -> Option<String> {
        // Each key written once as `"key":`, as serde_json writes a string (`push_str`).
        let keys: Vec<Vec<u8>> = self
            .0
            .iter()
            .map(|(key, _)| {
                let mut k = Vec::with_capacity(key.len() + 3);
                teu_domain::json::push_str(&mut k, key);
                k.push(b':');
                k
            })
            .collect();
        // A value is a quoted hyphenated UUID (38 bytes) or `"TransportEvent"` (16).
        let per_event: usize = keys.iter().map(|k| k.len() + 39).sum::<usize>() + 2;
        let mut out = Vec::with_capacity(2 + events.len() * per_event);
        out.push(b'[');
        for (i, e) in events.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.push(b'{');
            for (j, ((_, field), key)) in self.0.iter().zip(&keys).enumerate() {
                if j > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(key);
                out.push(b'"');
                push_field_text(*field, e, &mut out);
                out.push(b'"');
            }
            out.push(b'}');
        }
        out.push(b']');
        // One UTF-8 check for the whole list, not one an id.
        String::from_utf8(out).ok()
    }
}

/// A copy of `template` (a response object whose keys are a selection's response keys, in
/// order) with its values replaced by `values`, one per key in order: the copy keeps the
/// template's key hashes, so no key is hashed again ([`IdSelection::objects`]).
fn filled(template: &IndexMap<Name, Value>, values: impl IntoIterator<Item = Value>) -> Value {
    let mut object = template.clone();
    for (slot, value) in object.values_mut().zip(values) {
        *slot = value;
    }
    Value::Object(object)
}

/// Appends the text of id field `field` of event `e` to `out`, ASCII: its id or its raw
/// event's id ([`teu_domain::ids::push_text`]), or its type name. One source for both forms
/// of an ids-only selection ([`IdSelection::objects`], [`IdSelection::json`]).
fn push_field_text(field: IdField, e: &TransportEvent, out: &mut Vec<u8>) {
    match field {
        IdField::Id => teu_domain::ids::push_text(out, &e.id),
        IdField::RawEventId => teu_domain::ids::push_text(out, &e.raw_event_id),
        IdField::Typename => out.extend_from_slice(b"TransportEvent"),
    }
}

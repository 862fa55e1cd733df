//! Batch loading of the nested fields (`Container.shipment`, `Container.events`,
//! `Shipment.containers`, `TrackingRequest.shipment`, `EmailSubmission.documents`,
//! `WebhookNotification.webhook`,
//! `Document.lastDocumentRepresentation`), so that a page of 100 containers costs one store
//! call per field, not one per container.
//!
//! Every request gets its own [`DataLoader`] with a cache ([`request_loader`], which
//! [`TeuSchema`](crate::TeuSchema) adds to the request data), so within one request a record
//! is loaded once, and no request sees rows cached by another. Every key carries the account id next to the record
//! id, and a batch is answered with one store call per account in it (in practice one),
//! always scoped by that account.
//!
//! Batching by time alone (the loader's 1 ms window) splits a page in two when the machine is
//! busy, so the list resolvers do not rely on it: they look ahead at the selection and load
//! the nested records of the whole page with one store call per field ([`prefetch`]), feeding
//! them into the request's loader; the nested resolvers then find them in its cache.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use async_graphql::dataloader::{DataLoader, HashMapCache, Loader};
use async_graphql::{Context, Lookahead};
use futures_util::future::BoxFuture;
use teu_pipeline::email::{Document, DocumentRepresentation};
use teu_pipeline::model;
use teu_store::{EventLink, Store, StoreError};
use uuid::Uuid;

/// A request's data loader (with a cache that lives as long as the request).
pub(crate) type StoreDataLoader = DataLoader<StoreLoader, HashMapCache>;

/// Store calls made by the loaders of all requests (schema data, for tests and debugging).
#[derive(Debug, Default, Clone)]
pub(crate) struct LoaderStats(pub Arc<LoaderCalls>);

/// A new [`StoreDataLoader`] over `store`, for one request: its cache lives as long as the
/// request. `calls` counts its store calls ([`LoaderStats`]).
pub(crate) fn request_loader(store: Store, calls: Arc<LoaderCalls>) -> StoreDataLoader {
    DataLoader::with_cache(
        StoreLoader { store, calls },
        tokio::spawn,
        HashMapCache::default(),
    )
}

/// A failed batch. The store error was logged when it happened; resolvers answer `INTERNAL`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LoadFailed;

/// Key of `Container.shipment`: a shipment of an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ShipmentKey {
    pub account: Uuid,
    pub shipment: Uuid,
}

/// Key of `Container.events`: the events of a container of an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct EventsKey {
    pub account: Uuid,
    pub container: Uuid,
}

/// Key of `Container.events` when only the events' ids are selected: the event links (ids,
/// no bodies) of a container of an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct EventLinksKey {
    pub account: Uuid,
    pub container: Uuid,
}

/// Key of `Shipment.containers`: the containers of a shipment of an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ContainersKey {
    pub account: Uuid,
    pub shipment: Uuid,
}

/// Key of `Shipment.containers` when only the containers' ids are selected
/// ([`container_ids_only`]): the ids of the containers of a shipment of an account, in number
/// order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ContainerIdsKey {
    pub account: Uuid,
    pub shipment: Uuid,
}

/// Key of `EmailSubmission.documents`: a document of an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct DocumentKey {
    pub account: Uuid,
    pub document: Uuid,
}

/// Key of `Document.lastDocumentRepresentation`: a representation of an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct RepresentationKey {
    pub account: Uuid,
    pub representation: Uuid,
}

/// Key of `WebhookNotification.webhook`: a webhook of an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct WebhookKey {
    pub account: Uuid,
    pub webhook: Uuid,
}

/// Store calls made by each loader (for tests and debugging).
#[derive(Debug, Default)]
pub(crate) struct LoaderCalls {
    pub shipments_by_ids: AtomicUsize,
    pub events_of_containers: AtomicUsize,
    pub event_links_of_containers: AtomicUsize,
    pub containers_of_shipments: AtomicUsize,
    pub container_ids_of_shipments: AtomicUsize,
    pub shipments_with_members: AtomicUsize,
    /// Pages of containers read with their shipments in one statement (by the `containers`
    /// field itself, `Store::list_containers_reading`).
    pub container_pages_with_shipments: AtomicUsize,
    pub documents_by_ids: AtomicUsize,
    pub document_representations_by_ids: AtomicUsize,
    pub webhooks_by_ids: AtomicUsize,
}

/// Loads shipments, events and containers in batches from the store.
pub(crate) struct StoreLoader {
    store: Store,
    pub(crate) calls: Arc<LoaderCalls>,
}

/// Groups `(account, id)` keys by account, deduplicating ids.
fn by_account<K>(keys: &[K], split: impl Fn(&K) -> (Uuid, Uuid)) -> BTreeMap<Uuid, Vec<Uuid>> {
    let mut out: BTreeMap<Uuid, Vec<Uuid>> = BTreeMap::new();
    for key in keys {
        let (account, id) = split(key);
        let ids = out.entry(account).or_default();
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    out
}

fn logged(what: &'static str) -> impl Fn(StoreError) -> LoadFailed {
    move |err| {
        tracing::error!(error = %err, loader = what, "graphql: batch load failed");
        LoadFailed
    }
}

impl Loader<ShipmentKey> for StoreLoader {
    type Value = model::Shipment;
    type Error = LoadFailed;

    async fn load(
        &self,
        keys: &[ShipmentKey],
    ) -> Result<HashMap<ShipmentKey, Self::Value>, Self::Error> {
        let mut out = HashMap::with_capacity(keys.len());
        for (account, ids) in by_account(keys, |k| (k.account, k.shipment)) {
            self.calls.shipments_by_ids.fetch_add(1, Ordering::Relaxed);
            let shipments = self
                .store
                .shipments_by_ids(account, &ids)
                .await
                .map_err(logged("shipments_by_ids"))?;
            for s in shipments {
                if s.account_id == account {
                    out.insert(
                        ShipmentKey {
                            account,
                            shipment: s.id,
                        },
                        s,
                    );
                }
            }
        }
        Ok(out)
    }
}

impl Loader<EventsKey> for StoreLoader {
    type Value = Vec<model::TransportEvent>;
    type Error = LoadFailed;

    async fn load(
        &self,
        keys: &[EventsKey],
    ) -> Result<HashMap<EventsKey, Self::Value>, Self::Error> {
        let mut out = HashMap::with_capacity(keys.len());
        for (account, ids) in by_account(keys, |k| (k.account, k.container)) {
            self.calls
                .events_of_containers
                .fetch_add(1, Ordering::Relaxed);
            let mut events = self
                .store
                .events_of_containers(account, &ids)
                .await
                .map_err(logged("events_of_containers"))?;
            for container in ids {
                let list = events.remove(&container).unwrap_or_default();
                out.insert(EventsKey { account, container }, list);
            }
        }
        Ok(out)
    }
}

impl Loader<EventLinksKey> for StoreLoader {
    type Value = Vec<EventLink>;
    type Error = LoadFailed;

    async fn load(
        &self,
        keys: &[EventLinksKey],
    ) -> Result<HashMap<EventLinksKey, Self::Value>, Self::Error> {
        let mut out = HashMap::with_capacity(keys.len());
        for (account, ids) in by_account(keys, |k| (k.account, k.container)) {
            self.calls
                .event_links_of_containers
                .fetch_add(1, Ordering::Relaxed);
            let mut links = self
                .store
                .event_links_of_containers(account, &ids)
                .await
                .map_err(logged("event_links_of_containers"))?;
            for container in ids {
                let list = links.remove(&container).unwrap_or_default();
                out.insert(EventLinksKey { account, container }, list);
            }
        }
        Ok(out)
    }
}

impl Loader<ContainersKey> for StoreLoader {
    type Value = Vec<model::Container>;
    type Error = LoadFailed;

    async fn load(
        &self,
        keys: &[ContainersKey],
    ) -> Result<HashMap<ContainersKey, Self::Value>, Self::Error> {
        let mut out = HashMap::with_capacity(keys.len());
        for (account, ids) in by_account(keys, |k| (k.account, k.shipment)) {
            self.calls
                .containers_of_shipments
                .fetch_add(1, Ordering::Relaxed);
            let containers = self
                .store
                .containers_of_shipments(account, &ids)
                .await
                .map_err(logged("containers_of_shipments"))?;
            for shipment in ids {
                out.insert(ContainersKey { account, shipment }, Vec::new());
            }
            // The store orders by shipment, then number; pushing keeps that order per shipment.
            for c in containers {
                if c.account_id != account {
                    continue;
                }
                if let Some(list) = out.get_mut(&ContainersKey {
                    account,
                    shipment: c.shipment_id,
                }) {
                    list.push(c);
                }
            }
        }
        Ok(out)
    }
}

impl Loader<ContainerIdsKey> for StoreLoader {
    type Value = Vec<Uuid>;
    type Error = LoadFailed;

    async fn load(
        &self,
        keys: &[ContainerIdsKey],
    ) -> Result<HashMap<ContainerIdsKey, Self::Value>, Self::Error> {
        let mut out = HashMap::with_capacity(keys.len());
        for (account, ids) in by_account(keys, |k| (k.account, k.shipment)) {
            self.calls
                .container_ids_of_shipments
                .fetch_add(1, Ordering::Relaxed);
            let mut found = self
                .store
                .container_ids_of_shipments(account, &ids)
                .await
                .map_err(logged("container_ids_of_shipments"))?;
            for shipment in ids {
                let list = found.remove(&shipment).unwrap_or_default();
                out.insert(ContainerIdsKey { account, shipment }, list);
            }
        }
        Ok(out)
    }
}

impl Loader<DocumentKey> for StoreLoader {
    type Value = Document;
    type Error = LoadFailed;

    async fn load(
        &self,
        keys: &[DocumentKey],
    ) -> Result<HashMap<DocumentKey, Self::Value>, Self::Error> {
        let mut out = HashMap::with_capacity(keys.len());
        for (account, ids) in by_account(keys, |k| (k.account, k.document)) {
            self.calls.documents_by_ids.fetch_add(1, Ordering::Relaxed);
            let documents = self
                .store
                .documents_by_ids(account, &ids)
                .await
                .map_err(logged("documents_by_ids"))?;
            for d in documents {
                if d.account_id == account {
                    out.insert(
                        DocumentKey {
                            account,
                            document: d.id,
                        },
                        d,
                    );
                }
            }
        }
        Ok(out)
    }
}

impl Loader<RepresentationKey> for StoreLoader {
    type Value = DocumentRepresentation;
    type Error = LoadFailed;

    async fn load(
        &self,
        keys: &[RepresentationKey],
    ) -> Result<HashMap<RepresentationKey, Self::Value>, Self::Error> {
        let mut out = HashMap::with_capacity(keys.len());
        for (account, ids) in by_account(keys, |k| (k.account, k.representation)) {
            self.calls
                .document_representations_by_ids
                .fetch_add(1, Ordering::Relaxed);
            // The store scopes the query by account; every row it returns is the account's.
            let representations = self
                .store
                .document_representations_by_ids(account, &ids)
                .await
                .map_err(logged("document_representations_by_ids"))?;
            for r in representations {
                out.insert(
                    RepresentationKey {
                        account,
                        representation: r.id,
                    },
                    r,
                );
            }
        }
        Ok(out)
    }
}

impl Loader<WebhookKey> for StoreLoader {
    type Value = teu_pipeline::webhooks::Webhook;
    type Error = LoadFailed;

    async fn load(
        &self,
        keys: &[WebhookKey],
    ) -> Result<HashMap<WebhookKey, Self::Value>, Self::Error> {
        let mut out = HashMap::with_capacity(keys.len());
        for (account, ids) in by_account(keys, |k| (k.account, k.webhook)) {
            self.calls.webhooks_by_ids.fetch_add(1, Ordering::Relaxed);
            let hooks = self
                .store
                .webhooks_by_ids(account, &ids)
                .await
                .map_err(logged("webhooks_by_ids"))?;
            for w in hooks {
                if w.account_id == account {
                    out.insert(
                        WebhookKey {
                            account,
                            webhook: w.id,
                        },
                        w,
                    );
                }
            }
        }
        Ok(out)
    }
}

/// The sub-selections named `name` of the selections in `looks` that exist.
pub(crate) fn sub<'a>(looks: &[Lookahead<'a>], name: &str) -> Vec<Lookahead<'a>> {
    looks
        .iter()
        .map(|l| l.field(name))
        .filter(Lookahead::exists)
        .collect()
}

/// One of the `TransportEvent` fields an event's link answers without its body
/// ([`EVENT_ID_FIELDS`]).
#[derive(Debug, Clone, Copy)]
pub(crate) enum IdField {
    Id,
    RawEventId,
    Typename,
}

/// The `TransportEvent` fields an event's link answers (its id, its raw event's id, the type
/// name), by GraphQL name: the selections [`ids_only`] reads from the links
/// and `types::event::IdSelection` builds directly.
pub(crate) const EVENT_ID_FIELDS: [(&str, IdField); 3] = [
    ("id", IdField::Id),
    ("rawEventId", IdField::RawEventId),
    ("__typename", IdField::Typename),
];

/// Whether the selections `looks` of `Container.events` ask for nothing but the events' ids
/// (`id`, `rawEventId`, `__typename`, through fragments too): then the containers' event links
/// answer them without reading an event body. `false` when nothing is selected.
pub(crate) fn ids_only(looks: &[Lookahead<'_>]) -> bool {
    selects_only(looks, &EVENT_ID_FIELDS.map(|(name, _)| name))
}

/// Whether the selections `looks` of `Shipment.containers` ask for nothing but the containers'
/// ids (`id`, `__typename`, through fragments too): then the ids in number order answer them
/// without reading a container. `false` when nothing is selected.
pub(crate) fn container_ids_only(looks: &[Lookahead<'_>]) -> bool {
    selects_only(looks, &["id", "__typename"])
}

/// Whether the selections `looks` select at least one field and none but `names`.
fn selects_only(looks: &[Lookahead<'_>], names: &[&str]) -> bool {
    let fields: Vec<_> = looks.iter().flat_map(Lookahead::selection_fields).collect();
    !fields.is_empty()
        && fields
            .iter()
            .all(|f| f.selection_set().all(|c| names.contains(&c.name())))
}

/// Loading ahead what a page's nested fields will ask for.
pub(crate) mod prefetch {
    use super::*;
    use crate::error;

    /// The node selections of a connection field (`nodes`, `edges.node`).
    pub(crate) fn nodes<'a>(ctx: &'a Context<'a>) -> Vec<Lookahead<'a>> {
        let look = ctx.look_ahead();
        [look.field("nodes"), look.field("edges").field("node")]
            .into_iter()
            .filter(Lookahead::exists)
            .collect()
    }

    pub(crate) fn unique<T: Copy + PartialEq>(items: impl Iterator<Item = T>) -> Vec<T> {
        let mut out: Vec<T> = Vec::new();
        for i in items {
            if !out.contains(&i) {
                out.push(i);
            }
        }
        out
    }

    /// Whether containers selected with `looks` need their event links and no event bodies
    /// (`events { id rawEventId }` alone, no named events or vessels): a page can then read
    /// the links with its rows (`Store::list_containers_reading`) and hand them
    /// to [`containers`].
    pub(crate) fn links_only(looks: &[Lookahead<'_>]) -> bool {
        !sub(looks, "events").is_empty() && !event_bodies(looks)
    }

    /// Whether containers selected with `looks` need their events whole: named events
    /// (`transportEvents`, `rawEvents`, which need the shipment's ends too), `vessels`, or
    /// `events` asking more than their ids.
    fn event_bodies(looks: &[Lookahead<'_>]) -> bool {
        let events = sub(looks, "events");
        named_events(looks)
            || !sub(looks, "vessels").is_empty()
            || (!events.is_empty() && !ids_only(&events))
    }

    /// Whether containers selected with `looks` select their `shipment`.
    fn shipment_selected(looks: &[Lookahead<'_>]) -> bool {
        !sub(looks, "shipment").is_empty()
    }

    /// Whether containers selected with `looks` need their shipments: `shipment` is
    /// selected, or named events, which are named by the shipment's ends.
    pub(crate) fn shipments_needed(looks: &[Lookahead<'_>]) -> bool {
        shipment_selected(looks) || named_events(looks)
    }

    /// Whether `transportEvents` or `rawEvents` is selected.
    fn named_events(looks: &[Lookahead<'_>]) -> bool {
        !sub(looks, "transportEvents").is_empty() || !sub(looks, "rawEvents").is_empty()
    }

    /// Loads, for `containers` selected with `looks`, their shipments (`shipment`) and
    /// events (`events`, `vessels`) with one store call each, and so on down the selection.
    /// `links` are the containers' event links when the page read them already, `read` their
    /// shipments with their container ids when the page read those too
    /// (`Store::list_containers_reading`).
    pub(crate) fn containers<'a>(
        loader: &'a StoreDataLoader,
        store: &'a Store,
        account: Uuid,
        looks: Vec<Lookahead<'a>>,
        containers: &'a [model::Container],
        links: Option<HashMap<Uuid, Vec<EventLink>>>,
        read: Option<Vec<(model::Shipment, Vec<Uuid>)>>,
    ) -> BoxFuture<'a, async_graphql::Result<()>> {
        Box::pin(async move {
            if looks.is_empty() || containers.is_empty() {
                return Ok(());
            }
            let ids = unique(containers.iter().map(|c| c.id));
            if event_bodies(&looks) {
                loader
                    .loader()
                    .calls
                    .events_of_containers
                    .fetch_add(1, Ordering::Relaxed);
                let mut events = store
                    .events_of_containers(account, &ids)
                    .await
                    .map_err(|e| error::internal(&e))?;
                loader
                    .feed_many(ids.iter().map(|&container| {
                        (
                            EventsKey { account, container },
                            events.remove(&container).unwrap_or_default(),
                        )
                    }))
                    .await;
            } else if links_only(&looks) {
                let mut links = match links {
                    Some(links) => links,
                    None => {
                        loader
                            .loader()
                            .calls
                            .event_links_of_containers
                            .fetch_add(1, Ordering::Relaxed);
                        store
                            .event_links_of_containers(account, &ids)
                            .await
                            .map_err(|e| error::internal(&e))?
                    }
                };
                loader
                    .feed_many(ids.iter().map(|&container| {
                        (
                            EventLinksKey { account, container },
                            links.remove(&container).unwrap_or_default(),
                        )
                    }))
                    .await;
            }
            // `transportEvents` and `rawEvents` name events by the shipment's ends.
            let ship_looks = sub(&looks, "shipment");
            if shipments_needed(&looks) {
                let ship_ids = unique(containers.iter().map(|c| c.shipment_id));
                let member_looks = sub(&ship_looks, "containers");
                // `shipment { containers { id } }`: the shipments and their member ids in one
                // statement, unless the page's own brought them.
                let read = match read {
                    Some(read) => Some(read),
                    None if !member_looks.is_empty() && container_ids_only(&member_looks) => {
                        loader
                            .loader()
                            .calls
                            .shipments_with_members
                            .fetch_add(1, Ordering::Relaxed);
                        Some(
                            store
                                .shipments_with_members(account, &ship_ids)
                                .await
                                .map_err(|e| error::internal(&e))?,
                        )
                    }
                    None => None,
                };
                let (shipments, members) = match read {
                    Some(read) => {
                        let (shipments, members): (Vec<_>, HashMap<_, _>) = read
                            .into_iter()
                            .map(|(s, ids)| {
                                let id = s.id;
                                (s, (id, ids))
                            })
                            .unzip();
                        (shipments, Some(members))
                    }
                    None => {
                        loader
                            .loader()
                            .calls
                            .shipments_by_ids
                            .fetch_add(1, Ordering::Relaxed);
                        let shipments = store
                            .shipments_by_ids(account, &ship_ids)
                            .await
                            .map_err(|e| error::internal(&e))?;
                        (shipments, None)
                    }
                };
                self::shipments(
                    loader,
                    store,
                    account,
                    ship_looks,
                    Cow::Owned(shipments),
                    members,
                )
                .await?;
            }
            Ok(())
        })
    }

    /// Feeds `shipments` to the loader and loads, for those selected with `looks`, their
    /// containers (`containers`) with one store call, and so on down the selection.
    /// `members` are the shipments' container ids when they were read with the shipments.
    pub(crate) fn shipments<'a>(
        loader: &'a StoreDataLoader,
        store: &'a Store,
        account: Uuid,
        looks: Vec<Lookahead<'a>>,
        shipments: Cow<'a, [model::Shipment]>,
        members: Option<HashMap<Uuid, Vec<Uuid>>>,
    ) -> BoxFuture<'a, async_graphql::Result<()>> {
        Box::pin(async move {
            let ids = unique(shipments.iter().map(|s| s.id));
            let keyed = |s: model::Shipment| {
                (
                    ShipmentKey {
                        account,
                        shipment: s.id,
                    },
                    s,
                )
            };
            // Shipments read for this prefetch alone are moved into the loader, not copied.
            match shipments {
                Cow::Borrowed(list) => loader.feed_many(list.iter().cloned().map(keyed)).await,
                Cow::Owned(list) => loader.feed_many(list.into_iter().map(keyed)).await,
            }
            let cont_looks = sub(&looks, "containers");
            if cont_looks.is_empty() || ids.is_empty() {
                return Ok(());
            }
            // `containers { id }` alone needs the ids, not the containers.
            if container_ids_only(&cont_looks) {
                let mut found = match members {
                    Some(members) => members,
                    None => {
                        loader
                            .loader()
                            .calls
                            .container_ids_of_shipments
                            .fetch_add(1, Ordering::Relaxed);
                        store
                            .container_ids_of_shipments(account, &ids)
                            .await
                            .map_err(|e| error::internal(&e))?
                    }
                };
                loader
                    .feed_many(ids.iter().map(|&shipment| {
                        (
                            ContainerIdsKey { account, shipment },
                            found.remove(&shipment).unwrap_or_default(),
                        )
                    }))
                    .await;
                return Ok(());
            }
            loader
                .loader()
                .calls
                .containers_of_shipments
                .fetch_add(1, Ordering::Relaxed);
            let containers = store
                .containers_of_shipments(account, &ids)
                .await
                .map_err(|e| error::internal(&e))?;
            let mut by_shipment: HashMap<Uuid, Vec<model::Container>> =
                ids.iter().map(|&id| (id, Vec::new())).collect();
            for c in &containers {
                if let Some(list) = by_shipment.get_mut(&c.shipment_id) {
                    list.push(c.clone());
                }
            }
            loader
                .feed_many(
                    by_shipment
                        .into_iter()
                        .map(|(shipment, list)| (ContainersKey { account, shipment }, list)),
                )
                .await;
            self::containers(loader, store, account, cont_looks, &containers, None, None).await
        })
    }
}

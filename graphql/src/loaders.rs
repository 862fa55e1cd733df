//! Batch loading of the nested fields (`Container.shipment`, `Container.events`,
//! `Shipment.containers`, `TrackingRequest.shipment`, `EmailSubmission.documents`,
//! `Document.lastDocumentRepresentation`), so that a page of 100 containers costs one store
//! call per field, not one per container.
//!
//! One [`DataLoader`] lives in the schema data and is shared by all requests. Every key carries
//! the account id next to the record id, and a batch is answered with one store call per
//! account in it (in practice one), always scoped by that account: keys of two accounts that
//! land in the same batch never see each other's rows. The loader keeps no cache between
//! batches, so a request never sees rows older than the store's.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};

use async_graphql::dataloader::{DataLoader, Loader};
use teu_pipeline::email::{Document, DocumentRepresentation};
use teu_pipeline::model;
use teu_pipeline::store::{Store, StoreError};
use uuid::Uuid;

/// The schema's data loader.
pub(crate) type StoreDataLoader = DataLoader<StoreLoader>;

/// Builds the schema's data loader over `store`.
pub(crate) fn data_loader(store: Store) -> StoreDataLoader {
    DataLoader::new(StoreLoader::new(store), tokio::spawn)
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

/// Key of `Shipment.containers`: the containers of a shipment of an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ContainersKey {
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

/// Store calls made by each loader (for tests and debugging).
#[derive(Debug, Default)]
pub(crate) struct LoaderCalls {
    pub shipments_by_ids: AtomicUsize,
    pub events_of_containers: AtomicUsize,
    pub containers_of_shipments: AtomicUsize,
    pub documents_by_ids: AtomicUsize,
    pub document_representations_by_ids: AtomicUsize,
}

/// Loads shipments, events and containers in batches from the store.
pub(crate) struct StoreLoader {
    store: Store,
    pub calls: LoaderCalls,
}

impl StoreLoader {
    fn new(store: Store) -> Self {
        StoreLoader {
            store,
            calls: LoaderCalls::default(),
        }
    }
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

//! Handlers of the `/v2` container and shipment routes, and the fallbacks (404, 405).
//!
//! Each handler reads a bounded number of store queries per request, whatever the page size
//! (no N+1): the page itself, `events_of_containers` once for all containers shown, and, with an
//! include, `shipments_by_ids` / `containers_of_shipments` once each.
//!
//! Documents:
//! - lists: `{"data": [...], "included": [...], "links": {first, prev, next, last, self, current},
//!   "meta": {size, total}}`; `included` is always present (the spec lists it in the 200
//!   response) and empty unless an include was requested;
//! - single resources: `{"data": {...}, "included": [...], "links": {"self"}}`.
//!
//! Included resources appear once each, in the order of first reference from `data`.

use std::collections::{HashMap, HashSet};

use axum::extract::{OriginalUri, Path, State};
use axum::http::Method;
use axum::response::{IntoResponse, Response};
use axum::Extension;
use serde::Serialize;
use teu_pipeline::model::{Account, Container, Shipment};
use teu_store::{EventLink, PageReads};
use uuid::Uuid;

use crate::base::Base;
use crate::error::ApiError;
use crate::list_filters::{list_filter, CONTAINER_FILTERS, SHIPMENT_FILTERS};
use crate::pagination::{page_links, PageMeta};
use crate::query::{parse_list_filtered, parse_single};
use crate::resources::{self, SelfLink};
use crate::RestState;

/// Relationship names `include` accepts on container endpoints (Terminal49's container
/// relationships).
pub(crate) const CONTAINER_INCLUDES: &[&str] =
    &["shipment", "pod_terminal", "transport_events", "raw_events"];
/// Relationship names `include` accepts on shipment endpoints.
pub(crate) const SHIPMENT_INCLUDES: &[&str] = &["containers"];

/// One resource of a document as its JSON text, written once (serde_json's bytes, by
/// [`teu_pipeline::json`]) straight from its struct (no `Value` tree in between, which cost a fifth
/// of a page's time in allocation and map inserts) and spliced into the document as it is by
/// [`document`]. Not a serde_json `RawValue`: that copied each resource into a box of its
/// own, and a text that is not serde_json's own output becomes one only through a parse that
/// checks it. Container and shipment resources are written by
/// [`resources::ContainerResource::to_json`] and [`resources::ShipmentResource::to_json`],
/// whose identifiers need no such check (docs/NOTES.md, thirtieth and forty-seventh sessions).
struct Resource(Vec<u8>);

/// The `data` of a document: one resource (or `null`) or a list.
enum Data {
    One(Resource),
    Many(Vec<Resource>),
}

/// The JSON:API document `{"data", "included", "links"[, "meta"]}` (members in that order)
/// as a `200 application/json` response: `data` and `included` spliced from their resources'
/// text, `links` and `meta` written by serde_json. The same bytes serde_json writes for the
/// document's struct with `RawValue` resources (the unit test below compares both).
fn document(
    data: Data,
    included: Vec<Resource>,
    links: &impl Serialize,
    meta: Option<&PageMeta>,
) -> Response {
    fn push_list(out: &mut Vec<u8>, list: &[Resource]) {
        out.push(b'[');
        for (n, r) in list.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            out.extend_from_slice(&r.0);
        }
        out.push(b']');
    }
    let text = |r: &Resource| r.0.len() + 1;
    let size = match &data {
        Data::One(r) => text(r),
        Data::Many(list) => list.iter().map(text).sum(),
    } + included.iter().map(text).sum::<usize>()
        + 1024;
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(b"{\"data\":");
    match &data {
        Data::One(r) => out.extend_from_slice(&r.0),
        Data::Many(list) => push_list(&mut out, list),
    }
    out.extend_from_slice(b",\"included\":");
    push_list(&mut out, &included);
    // Links and meta hold only strings and numbers: writing them cannot fail.
    out.extend_from_slice(b",\"links\":");
    let _ = teu_pipeline::json::write(&mut out, links);
    if let Some(meta) = meta {
        out.extend_from_slice(b",\"meta\":");
        let _ = teu_pipeline::json::write(&mut out, meta);
    }
    out.push(b'}');
    (
        [(
            axum::http::header::CONTENT_TYPE,
            axum::http::HeaderValue::from_static("application/json"),
        )],
        out,
    )
        .into_response()
}

/// Ids in order of first appearance, each once.
fn unique<I: IntoIterator<Item = Uuid>>(ids: I) -> Vec<Uuid> {
    let mut seen = HashSet::new();
    ids.into_iter().filter(|id| seen.insert(*id)).collect()
}

fn to_resource<T: Serialize>(v: T) -> Resource {
    // Resource structs hold only strings, numbers, booleans and nulls, and maps with string
    // keys: this cannot fail.
    Resource(teu_pipeline::json::to_vec(&v).unwrap_or_else(|_| b"null".to_vec()))
}

/// JSON `null`, the `data` of a document whose resource went missing.
fn null() -> Resource {
    Resource(b"null".to_vec())
}

/// Container ids per shipment, from `Store::containers_of_shipments` output.
fn ids_by_shipment(containers: &[Container]) -> HashMap<Uuid, Vec<Uuid>> {
    let mut map: HashMap<Uuid, Vec<Uuid>> = HashMap::new();
    for c in containers {
        map.entry(c.shipment_id).or_default().push(c.id);
    }
    map
}

/// Shipment resources of `shipment_ids` (in that order; ids the store does not return are
/// skipped) as JSON values, with their `containers` relationships. One store call.
async fn shipment_values(
    state: &RestState,
    account: &Account,
    base: &Base,
    shipment_ids: &[Uuid],
) -> Result<Vec<Resource>, ApiError> {
    if shipment_ids.is_empty() {
        return Ok(Vec::new());
    }
    let shipments = state
        .store
        .shipments_with_members(account.id, shipment_ids)
        .await?;
    Ok(shipment_resources(base, shipment_ids, shipments))
}

/// Shipment resources of `shipment_ids` (in that order; ids `shipments` lacks are skipped)
/// from `shipments`, each with its container ids.
fn shipment_resources(
    base: &Base,
    shipment_ids: &[Uuid],
    shipments: Vec<(Shipment, Vec<Uuid>)>,
) -> Vec<Resource> {
    let mut shipments: HashMap<Uuid, (Shipment, Vec<Uuid>)> = shipments
        .into_iter()
        .map(|(s, members)| (s.id, (s, members)))
        .collect();
    shipment_ids
        .iter()
        .filter_map(|id| shipments.remove(id))
        .map(|(s, members)| {
            Resource(resources::shipment(&s, &members, base.shipment_url(s.id)).to_json())
        })
        .collect()
}

/// Container resources of `containers` as JSON values. One store call.
async fn container_values(
    state: &RestState,
    account: &Account,
    containers: &[Container],
) -> Result<Vec<Resource>, ApiError> {
    if containers.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<Uuid> = containers.iter().map(|c| c.id).collect();
    let events = state
        .store
        .event_links_of_containers(account.id, &ids)
        .await?;
    Ok(container_resources(containers, &events))
}

/// Container resources of `containers` with their event links (`events`, by container id)
/// as JSON values.
fn container_resources(
    containers: &[Container],
    events: &HashMap<Uuid, Vec<EventLink>>,
) -> Vec<Resource> {
    resources::containers(containers, events)
        .iter()
        .map(|c| Resource(c.to_json()))
        .collect()
}

/// The `included` resources of `containers` for the relationships in `include` (each
/// resource once): shipments, POD terminals, then each container's transport events and raw
/// events. Store calls: one for shipments unless `shipments` holds them already (read with
/// the page, `Store::list_containers_reading`), one more for the events when they are
/// asked for.
async fn container_includes(
    state: &RestState,
    account: &Account,
    base: &Base,
    containers: &[Container],
    include: &[&str],
    shipments: Option<Vec<(Shipment, Vec<Uuid>)>>,
) -> Result<Vec<Resource>, ApiError> {
    let mut included = Vec::new();
    if include.contains(&"shipment") {
        let ids = unique(containers.iter().map(|c| c.shipment_id));
        included.extend(match shipments {
            Some(read) => shipment_resources(base, &ids, read),
            None => shipment_values(state, account, base, &ids).await?,
        });
    }
    if include.contains(&"pod_terminal") {
        let terminals = teu_pipeline::terminals::bundled();
        for id in unique(containers.iter().filter_map(|c| c.pod_terminal_id)) {
            if let Some(t) = terminals.get(id) {
                included.push(to_resource(crate::reference::terminal_resource(t)));
            }
        }
    }
    let transport = include.contains(&"transport_events");
    let raw = include.contains(&"raw_events");
    if transport || raw {
        let ids: Vec<Uuid> = containers.iter().map(|c| c.id).collect();
        let mut events = state.store.events_of_containers(account.id, &ids).await?;
        let shipment_ids = unique(containers.iter().map(|c| c.shipment_id));
        let shipments: HashMap<Uuid, Shipment> = state
            .store
            .shipments_by_ids(account.id, &shipment_ids)
            .await?
            .into_iter()
            .map(|s| (s.id, s))
            .collect();
        for c in containers {
            let list = events.remove(&c.id).unwrap_or_default();
            let ends = shipments
                .get(&c.shipment_id)
                .map(teu_pipeline::event_names::Ends::of)
                .unwrap_or_default();
            if transport {
                included.extend(
                    crate::events::transport_event_values(&list, ends, c.id, c.shipment_id)
                        .into_iter()
                        .map(to_resource),
                );
            }
            if raw {
                included.extend(
                    crate::events::raw_event_values(&list, ends)
                        .into_iter()
                        .map(to_resource),
                );
            }
        }
    }
    Ok(included)
}

/// Parses a path id; anything that is not a UUID is a 404, like an unknown id.
pub(crate) fn path_id(id: &str, kind: &str) -> Result<Uuid, ApiError> {
    Uuid::parse_str(id).map_err(|_| ApiError::not_found(kind, id))
}

/// `GET /containers`: the account's containers, in `Store::list_containers` order.
pub(crate) async fn list_containers(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    base: Base,
    OriginalUri(uri): OriginalUri,
) -> Result<Response, ApiError> {
    let q = parse_list_filtered(uri.query(), CONTAINER_INCLUDES, CONTAINER_FILTERS)?;
    let filter = list_filter(&q)?;
    // The links, and with `include=shipment` the shipments, come in the page's statement.
    let page = state
        .store
        .list_containers_reading(
            account.id,
            &filter,
            Default::default(),
            (q.page.offset(), q.page.limit()),
            PageReads {
                links: true,
                shipments: q.include.contains(&"shipment"),
            },
        )
        .await?;
    let (containers, events) = (page.containers, page.links.unwrap_or_default());
    let data = container_resources(&containers, &events);
    let included = container_includes(
        &state,
        &account,
        &base,
        &containers,
        &q.include,
        page.shipments,
    )
    .await?;
    let total = u64::try_from(page.total).unwrap_or(0);
    let links = page_links(&base.url("/containers"), &q.link_suffix(), q.page, total);
    let meta = PageMeta {
        size: q.page.size,
        total,
    };
    Ok(document(Data::Many(data), included, &links, Some(&meta)))
}

/// `GET /containers/{id}`: one of the account's containers, else 404.
pub(crate) async fn get_container(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    base: Base,
    OriginalUri(uri): OriginalUri,
    id: Result<Path<String>, axum::extract::rejection::PathRejection>,
) -> Result<Response, ApiError> {
    let raw = id.map(|Path(id)| id).unwrap_or_default();
    let include = parse_single(uri.query(), CONTAINER_INCLUDES)?;
    let id = path_id(&raw, "Container")?;
    let container = state
        .store
        .container(account.id, id)
        .await?
        .ok_or_else(|| ApiError::not_found("Container", &raw))?;
    let containers = [container];
    let data = container_values(&state, &account, &containers)
        .await?
        .pop()
        .unwrap_or_else(null);
    let included = container_includes(&state, &account, &base, &containers, &include, None).await?;
    let links = SelfLink {
        self_: base.url(&format!("/containers/{id}")),
    };
    Ok(document(Data::One(data), included, &links, None))
}

/// `GET /shipments`: the account's shipments, in `Store::list_shipments` order.
pub(crate) async fn list_shipments(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    base: Base,
    OriginalUri(uri): OriginalUri,
) -> Result<Response, ApiError> {
    let q = parse_list_filtered(uri.query(), SHIPMENT_INCLUDES, SHIPMENT_FILTERS)?;
    let filter = list_filter(&q)?;
    let (shipments, total) = state
        .store
        .list_shipments_filtered(
            account.id,
            &filter,
            Default::default(),
            q.page.offset(),
            q.page.limit(),
        )
        .await?;
    let ids: Vec<Uuid> = shipments.iter().map(|s| s.id).collect();
    let (data, included) = shipments_with_containers(
        &state,
        &account,
        &base,
        &shipments,
        &ids,
        q.includes("containers"),
    )
    .await?;
    let total = u64::try_from(total).unwrap_or(0);
    let links = page_links(&base.url("/shipments"), &q.link_suffix(), q.page, total);
    let meta = PageMeta {
        size: q.page.size,
        total,
    };
    Ok(document(Data::Many(data), included, &links, Some(&meta)))
}

/// Shipment resources of `shipments` and, when `include_containers`, their containers as
/// included resources. One `containers_of_shipments` call, plus one `events_of_containers`
/// call when including.
async fn shipments_with_containers(
    state: &RestState,
    account: &Account,
    base: &Base,
    shipments: &[Shipment],
    ids: &[Uuid],
    include_containers: bool,
) -> Result<(Vec<Resource>, Vec<Resource>), ApiError> {
    if shipments.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let containers = state.store.containers_of_shipments(account.id, ids).await?;
    let members = ids_by_shipment(&containers);
    let data = shipments
        .iter()
        .map(|s| {
            let ids = members.get(&s.id).map(Vec::as_slice).unwrap_or(&[]);
            Resource(resources::shipment(s, ids, base.shipment_url(s.id)).to_json())
        })
        .collect();
    let included = if include_containers {
        // Order by the shipments of `data`, then the store's order within a shipment.
        let position: HashMap<Uuid, usize> =
            ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();
        let mut ordered = containers;
        ordered.sort_by_key(|c| position.get(&c.shipment_id).copied().unwrap_or(usize::MAX));
        container_values(state, account, &ordered).await?
    } else {
        Vec::new()
    };
    Ok((data, included))
}

/// `GET /shipments/{id}`: one of the account's shipments, else 404.
pub(crate) async fn get_shipment(
    State(state): State<RestState>,
    Extension(account): Extension<Account>,
    base: Base,
    OriginalUri(uri): OriginalUri,
    id: Result<Path<String>, axum::extract::rejection::PathRejection>,
) -> Result<Response, ApiError> {
    let raw = id.map(|Path(id)| id).unwrap_or_default();
    let include = parse_single(uri.query(), SHIPMENT_INCLUDES)?;
    let id = path_id(&raw, "Shipment")?;
    let shipment = state
        .store
        .shipment(account.id, id)
        .await?
        .ok_or_else(|| ApiError::not_found("Shipment", &raw))?;
    shipment_document(
        &state,
        &account,
        &base,
        shipment,
        include.contains(&"containers"),
    )
    .await
}

/// The single-resource document of `shipment` (with its containers included when asked):
/// what `GET /shipments/{id}` and the shipment edits answer.
pub(crate) async fn shipment_document(
    state: &RestState,
    account: &Account,
    base: &Base,
    shipment: Shipment,
    include_containers: bool,
) -> Result<Response, ApiError> {
    let id = shipment.id;
    let (mut data, included) = shipments_with_containers(
        state,
        account,
        base,
        std::slice::from_ref(&shipment),
        &[id],
        include_containers,
    )
    .await?;
    let links = SelfLink {
        self_: base.shipment_url(id),
    };
    Ok(document(
        Data::One(data.pop().unwrap_or_else(null)),
        included,
        &links,
        None,
    ))
}

/// Fallback for paths under `/v2` that match no route: 404 JSON:API error.
pub(crate) async fn not_found(OriginalUri(uri): OriginalUri) -> ApiError {
    ApiError::NotFound {
        detail: format!("No resource exists at {}.", uri.path()),
    }
}

/// Fallback for a known path with a method it does not serve: 405 JSON:API error (axum adds
/// the `Allow` header).
pub(crate) async fn method_not_allowed(method: Method) -> ApiError {
    ApiError::MethodNotAllowed {
        method: method.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// The document serde_json writes for the struct of its members, resources as `RawValue`s.
    fn reference(
        data: Value,
        included: &[Value],
        links: &impl Serialize,
        meta: Option<&PageMeta>,
    ) -> String {
        #[derive(Serialize)]
        struct Doc<'a, L: Serialize> {
            data: Box<serde_json::value::RawValue>,
            included: Vec<Box<serde_json::value::RawValue>>,
            links: &'a L,
            #[serde(skip_serializing_if = "Option::is_none")]
            meta: Option<&'a PageMeta>,
        }
        let raw = |v: &Value| serde_json::value::to_raw_value(v).unwrap();
        serde_json::to_string(&Doc {
            data: raw(&data),
            included: included.iter().map(raw).collect(),
            links,
            meta,
        })
        .unwrap()
    }

    async fn body(response: Response) -> String {
        assert_eq!(response.status(), 200);
        assert_eq!(
            response.headers()[axum::http::header::CONTENT_TYPE],
            "application/json"
        );
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    /// Resources of the interface's own shapes, with strings that need escaping.
    fn resources() -> Vec<Value> {
        vec![
            json!({"id": "c5d3a2b0-1111-4222-8333-944455556666", "type": "container",
                   "attributes": {"number": "MSCU1234565", "ref_numbers": ["PO \"7\"\n", "é/€"],
                                  "weight_in_lbs": 44_000.5, "pickup_lfd": null, "holds_at_pod_terminal": []},
                   "relationships": {"shipment": {"data": {"id": "s", "type": "shipment"}},
                                     "raw_events": {"data": []}}}),
            json!({"id": "s", "type": "shipment", "attributes": {"tags": ["\u{1}"]},
                   "links": {"self": "http://h/v2/shipments/s"}}),
        ]
    }

    #[tokio::test]
    async fn documents_are_what_serde_json_writes() {
        let values = resources();
        let res = |v: &Value| to_resource(v);
        let links = page_links(
            "http://h/v2/containers",
            "&include=shipment",
            crate::pagination::Page {
                number: 1,
                size: 30,
            },
            31,
        );
        let meta = PageMeta {
            size: 30,
            total: 31,
        };
        for included in [&values[..0], &values[1..], &values[..]] {
            let got = body(document(
                Data::Many(values.iter().map(res).collect()),
                included.iter().map(res).collect(),
                &links,
                Some(&meta),
            ))
            .await;
            assert_eq!(
                got,
                reference(Value::Array(values.clone()), included, &links, Some(&meta))
            );
            let links = SelfLink {
                self_: "http://h/v2/containers/c".into(),
            };
            let got = body(document(
                Data::One(res(&values[0])),
                included.iter().map(res).collect(),
                &links,
                None,
            ))
            .await;
            assert_eq!(got, reference(values[0].clone(), included, &links, None));
            let got = body(document(Data::One(null()), Vec::new(), &links, None)).await;
            assert_eq!(got, reference(Value::Null, &[], &links, None));
            let got = body(document(Data::Many(Vec::new()), Vec::new(), &links, None)).await;
            assert_eq!(got, reference(json!([]), &[], &links, None));
        }
    }

    #[test]
    fn unique_keeps_first_order() {
        let a = Uuid::from_u128(1);
        let b = Uuid::from_u128(2);
        assert_eq!(unique([b, a, b, a]), vec![b, a]);
    }
}

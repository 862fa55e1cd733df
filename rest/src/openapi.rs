//! The OpenAPI 3.1 document of `/v2`, served at `GET /v2/openapi.json` without an API key.
//!
//! One source of truth: [`ROUTES`] lists every operation of [`crate::router`] (method, path,
//! tag, summary, query parameters, request body, success status, extra error statuses) and
//! [`document`] turns it into the document with utoipa's builder API (no derive macros). The
//! query parameter names come from the handlers' own lists ([`crate::query`],
//! `list_filters`, the tracking request filters, the include lists), so a filter added there is
//! documented here too.
//!
//! Derived for each operation: an `id` path parameter for every `{id}` in the path; 400 when
//! it takes query parameters or a body; 401 unless it is public; 404 when the path has an
//! `{id}`; 413 and 422 when it takes a body. Every error answers the shared `Errors` schema
//! (JSON:API `errors`). The security scheme `api_key` is `Authorization: Token <API_KEY>`.
//!
//! A unit test compares the set of (method, path) here with the `.route(…)` registrations in
//! the source of `lib.rs`, so a route added there without a row here fails CI.

use std::sync::OnceLock;

use axum::Json;
use utoipa::openapi::path::{
    HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn, PathItem,
};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::{
    ArrayBuilder, ComponentsBuilder, ObjectBuilder, Ref, SchemaType, Type,
};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{
    ContentBuilder, InfoBuilder, OpenApi, OpenApiBuilder, Required, ResponseBuilder, ServerBuilder,
};

use crate::query::{INCLUDE, MAX_PAGE_SIZE, PAGE_NUMBER, PAGE_SIZE};

/// Title of the document (`info.title`).
pub const TITLE: &str = "teu /v2 (Terminal49-compatible)";
/// Name of the security scheme in `components.securitySchemes`.
pub const SECURITY_SCHEME: &str = "api_key";
/// Name of the shared JSON:API error document schema in `components.schemas`.
pub const ERRORS_SCHEMA: &str = "Errors";
/// Name of the (loose) JSON:API document schema of successful answers.
pub const DOCUMENT_SCHEMA: &str = "Document";

/// The query string an operation documents.
#[derive(Debug, Clone, Copy)]
pub enum Query {
    /// None.
    None,
    /// A page: `page[number]`, `page[size]`, `include` with these names (none: no `include`)
    /// and these filters.
    List {
        /// Relationship names `include` accepts.
        include: &'static [&'static str],
        /// Filter names as written in the query (`filter[status]`, `number`).
        filters: &'static [&'static str],
    },
    /// One resource: `include` with these names.
    Single {
        /// Relationship names `include` accepts.
        include: &'static [&'static str],
    },
    /// Named parameters with their descriptions.
    Named(&'static [(&'static str, &'static str)]),
}

/// One operation of `/v2`: a row of [`ROUTES`].
#[derive(Debug, Clone, Copy)]
pub struct Route {
    /// Lower-case HTTP method: `get`, `post`, `patch` or `delete`.
    pub method: &'static str,
    /// Path under `/v2`, with `{id}` as axum writes it.
    pub path: &'static str,
    /// Tag grouping the operation (the resource).
    pub tag: &'static str,
    /// One-line summary.
    pub summary: &'static str,
    /// What `{id}` may be, when the path has one.
    pub id: &'static str,
    /// Query parameters.
    pub query: Query,
    /// The JSON request body, described loosely; `None` when the operation reads no body.
    pub body: Option<&'static str>,
    /// Success status and what it answers.
    pub ok: (u16, &'static str),
    /// Error statuses beyond the derived ones (module documentation), e.g. 403, 429.
    pub extra_errors: &'static [u16],
    /// Whether the operation needs no API key.
    pub public: bool,
    /// Whether the success body is a JSON:API document (`Document`); else any JSON object
    /// (GeoJSON, this document).
    pub json_api: bool,
}

/// What `{id}` is for resources addressed by their teu id.
const UUID_ID: &str = "The resource's id (a UUID); another account's id is a 404.";

/// A row with the common defaults: authenticated, no query, no body, 200 with a document.
const fn route(
    method: &'static str,
    path: &'static str,
    tag: &'static str,
    summary: &'static str,
) -> Route {
    Route {
        method,
        path,
        tag,
        summary,
        id: UUID_ID,
        query: Query::None,
        body: None,
        ok: (200, "A JSON:API document."),
        extra_errors: &[],
        public: false,
        json_api: true,
    }
}

impl Route {
    const fn query(mut self, query: Query) -> Route {
        self.query = query;
        self
    }
    const fn body(mut self, body: &'static str) -> Route {
        self.body = Some(body);
        self
    }
    const fn ok(mut self, status: u16, description: &'static str) -> Route {
        self.ok = (status, description);
        self
    }
    const fn id(mut self, id: &'static str) -> Route {
        self.id = id;
        self
    }
    const fn errors(mut self, extra: &'static [u16]) -> Route {
        self.extra_errors = extra;
        self
    }
    const fn public(mut self) -> Route {
        self.public = true;
        self
    }
    const fn not_json_api(mut self) -> Route {
        self.json_api = false;
        self
    }
}

/// A page with no `include` and no filters.
const PAGE: Query = Query::List {
    include: &[],
    filters: &[],
};

/// Every operation of [`crate::router`] (checked against its source by a test).
pub const ROUTES: &[Route] = &[
    route(
        "get",
        "/openapi.json",
        "meta",
        "This OpenAPI document (no API key needed)",
    )
    .ok(200, "The OpenAPI 3.1 document.")
    .not_json_api()
    .public(),
    route(
        "get",
        "/containers",
        "containers",
        "List the account's containers",
    )
    .query(Query::List {
        include: crate::routes::CONTAINER_INCLUDES,
        filters: crate::list_filters::CONTAINER_FILTERS,
    }),
    route("get", "/containers/{id}", "containers", "Get a container").query(Query::Single {
        include: crate::routes::CONTAINER_INCLUDES,
    }),
    route(
        "get",
        "/containers/{id}/map_geojson",
        "containers",
        "The container's route as a GeoJSON FeatureCollection (Routing Data)",
    )
    .ok(200, "A GeoJSON FeatureCollection.")
    .not_json_api()
    .errors(&[403]),
    route(
        "get",
        "/containers/{id}/transport_events",
        "containers",
        "The container's transport events, named as Terminal49 names them",
    ),
    route(
        "get",
        "/containers/{id}/raw_events",
        "containers",
        "Every stored carrier event of the container",
    ),
    route(
        "get",
        "/shipments",
        "shipments",
        "List the account's shipments",
    )
    .query(Query::List {
        include: crate::routes::SHIPMENT_INCLUDES,
        filters: crate::list_filters::SHIPMENT_FILTERS,
    }),
    route("get", "/shipments/{id}", "shipments", "Get a shipment").query(Query::Single {
        include: crate::routes::SHIPMENT_INCLUDES,
    }),
    route(
        "patch",
        "/shipments/{id}",
        "shipments",
        "Set the user's ref_numbers and tags",
    )
    .body(
        "`{\"data\":{\"attributes\":{\"ref_numbers\":[…],\"tags\":[…]}}}`; each list given \
         replaces the user's.",
    ),
    route(
        "patch",
        "/shipments/{id}/stop_tracking",
        "shipments",
        "Stop tracking the shipment",
    ),
    route(
        "patch",
        "/shipments/{id}/resume_tracking",
        "shipments",
        "Resume tracking the shipment",
    ),
    route(
        "post",
        "/tracking_requests/infer_number",
        "tracking_requests",
        "Infer the carrier and kind of a number (200 per minute per account)",
    )
    .body("`{\"number\": \"…\"}`.")
    .errors(&[429]),
    route(
        "post",
        "/tracking_requests",
        "tracking_requests",
        "Create a tracking request",
    )
    .body(
        "`{\"data\":{\"type\":\"tracking_request\",\"attributes\":{\"request_type\",\
             \"request_number\",\"scac\",\"ref_numbers\"?,\"shipment_tags\"?}}}`.",
    )
    .ok(201, "The stored tracking request."),
    route(
        "get",
        "/tracking_requests",
        "tracking_requests",
        "List the account's tracking requests",
    )
    .query(Query::List {
        include: &[],
        filters: crate::tracking_requests::FILTERS,
    }),
    route(
        "get",
        "/tracking_requests/{id}",
        "tracking_requests",
        "Get a tracking request",
    ),
    route(
        "patch",
        "/tracking_requests/{id}",
        "tracking_requests",
        "Set a tracking request's ref_numbers and shipment_tags",
    )
    .body("`{\"data\":{\"attributes\":{\"ref_number\"?,\"ref_numbers\"?,\"shipment_tags\"?}}}`."),
    route(
        "get",
        "/email_submissions",
        "email_submissions",
        "List the account's email submissions",
    )
    .query(Query::List {
        include: crate::email::EMAIL_INCLUDES,
        filters: &[],
    }),
    route(
        "get",
        "/email_submissions/{id}",
        "email_submissions",
        "Get an email submission",
    )
    .query(Query::Single {
        include: crate::email::EMAIL_INCLUDES,
    }),
    route(
        "get",
        "/document_schemas/{id}",
        "document_schemas",
        "Get a document schema",
    )
    .id("`<document_type>@<version>`, e.g. `bill_of_lading@1.0`."),
    route(
        "get",
        "/shipping_lines",
        "reference",
        "List the shipping lines (not paginated)",
    ),
    route(
        "get",
        "/shipping_lines/{id}",
        "reference",
        "Get a shipping line",
    )
    .id("The shipping line's id, its SCAC or an alternative SCAC."),
    route("get", "/ports/{id}", "reference", "Get a port").id("The port's id or UN/LOCODE."),
    route("get", "/terminals/{id}", "reference", "Get a terminal")
        .id("The terminal's id or FIRMS code."),
    route(
        "get",
        "/vessels/{id}",
        "vessels",
        "Get a vessel with its latest AIS position (Routing Data)",
    )
    .id("The vessel's id or IMO number.")
    .query(Query::Named(&[
        (
            crate::vessels::FROM,
            "Adds `positions` from this time (RFC 3339 or `YYYY-MM-DD`, UTC).",
        ),
        (
            crate::vessels::TO,
            "Adds `positions` up to this time (RFC 3339 or `YYYY-MM-DD`, UTC).",
        ),
    ]))
    .errors(&[403]),
    route("post", "/webhooks", "webhooks", "Create a webhook")
        .body(
            "`{\"data\":{\"type\":\"webhook\",\"attributes\":{\"url\",\"events\"?,\"active\"?,\
             \"headers\"?}}}`.",
        )
        .ok(201, "The stored webhook."),
    route(
        "get",
        "/webhooks",
        "webhooks",
        "List the account's webhooks",
    )
    .query(PAGE),
    route(
        "get",
        "/webhooks/events",
        "webhooks",
        "The webhook event catalog",
    ),
    route(
        "post",
        "/webhooks/trigger",
        "webhooks",
        "Send one test delivery",
    )
    .body("`{\"url\", \"event\", \"secret\"?}`."),
    route("get", "/webhooks/{id}", "webhooks", "Get a webhook"),
    route("patch", "/webhooks/{id}", "webhooks", "Update a webhook")
        .body("`{\"data\":{\"attributes\":{…}}}`; the attributes given replace the stored ones."),
    route("delete", "/webhooks/{id}", "webhooks", "Delete a webhook")
        .ok(200, "Deleted; the body is empty."),
    route(
        "get",
        "/webhook_notifications",
        "webhooks",
        "List the account's webhook notifications and their delivery status",
    )
    .query(PAGE),
    route(
        "get",
        "/webhook_notifications/examples",
        "webhooks",
        "The payload an event would send",
    )
    .query(Query::Named(&[(
        "event",
        "The event, e.g. `container.transport.vessel_loaded`.",
    )])),
    route(
        "get",
        "/webhook_notifications/{id}",
        "webhooks",
        "Get a webhook notification",
    ),
];

/// The document, built once (see [`document`]).
pub fn cached() -> &'static OpenApi {
    static DOC: OnceLock<OpenApi> = OnceLock::new();
    DOC.get_or_init(document)
}

/// `GET /openapi.json`: the document as JSON; public (see [`crate::router`]).
pub(crate) async fn serve() -> Json<&'static OpenApi> {
    Json(cached())
}

/// The OpenAPI 3.1 document of every row of [`ROUTES`], paths relative to the server `/v2`.
pub fn document() -> OpenApi {
    // A path item per path; a second method on a path adds its operation to the item.
    let mut merged = utoipa::openapi::Paths::new();
    for r in ROUTES {
        let item = PathItem::new(http_method(r.method), operation(r));
        match merged.paths.get_mut(r.path) {
            Some(existing) => existing.merge_operations(item),
            None => {
                merged.paths.insert(r.path.to_string(), item);
            }
        }
    }
    OpenApiBuilder::new()
        .info(
            InfoBuilder::new()
                .title(TITLE)
                .version(env!("CARGO_PKG_VERSION"))
                .description(Some(
                    "teu's Terminal49-compatible JSON:API. Every operation but this document \
                     needs `Authorization: Token <API_KEY>`. Bodies are `application/json`.",
                ))
                .build(),
        )
        .servers(Some([ServerBuilder::new().url("/v2").build()]))
        .paths(merged)
        .components(Some(components()))
        .security(Some([SecurityRequirement::new(
            SECURITY_SCHEME,
            Vec::<String>::new(),
        )]))
        .build()
}

/// The method of a row (`get`, `post`, `patch`, `delete`, `put`).
fn http_method(method: &str) -> HttpMethod {
    match method {
        "post" => HttpMethod::Post,
        "patch" => HttpMethod::Patch,
        "delete" => HttpMethod::Delete,
        "put" => HttpMethod::Put,
        _ => HttpMethod::Get,
    }
}

/// `get_containers_id_map_geojson` for `GET /containers/{id}/map_geojson`.
fn operation_id(r: &Route) -> String {
    let mut id = r.method.to_string();
    for word in r
        .path
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
    {
        id.push('_');
        id.push_str(word);
    }
    id
}

/// Reason phrase of the statuses the document uses.
fn reason(status: u16) -> &'static str {
    match status {
        400 => "Bad request: an invalid or unsupported query parameter, or a malformed body.",
        401 => "No valid `Authorization: Token <API_KEY>` header.",
        403 => "The account has no Routing Data.",
        404 => "No such resource for this account.",
        413 => "The request body is larger than 1 MiB.",
        422 => "An invalid attribute (`source.pointer` names it).",
        429 => "Too many requests; `Retry-After` gives the seconds to wait.",
        _ => "Error.",
    }
}

/// A string schema.
fn string() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String)
}

/// The operation of one row.
fn operation(r: &Route) -> utoipa::openapi::path::Operation {
    let mut op = OperationBuilder::new()
        .tag(r.tag)
        .summary(Some(r.summary))
        .operation_id(Some(operation_id(r)));
    for name in path_params(r.path) {
        op = op.parameter(
            ParameterBuilder::new()
                .name(name)
                .parameter_in(ParameterIn::Path)
                .required(Required::True)
                .description(Some(r.id))
                .schema(Some(string())),
        );
    }
    for p in query_params(r.query) {
        op = op.parameter(p);
    }
    if let Some(body) = r.body {
        op = op.request_body(Some(
            RequestBodyBuilder::new()
                .description(Some(body))
                .required(Some(Required::True))
                .content(
                    "application/json",
                    ContentBuilder::new()
                        .schema(Some(
                            ObjectBuilder::new()
                                .schema_type(Type::Object)
                                .description(Some(body)),
                        ))
                        .build(),
                )
                .build(),
        ));
    }
    let (status, description) = r.ok;
    let ok = if r.method == "delete" {
        ResponseBuilder::new().description(description).build()
    } else {
        ResponseBuilder::new()
            .description(description)
            .content(
                "application/json",
                if r.json_api {
                    ContentBuilder::new()
                        .schema(Some(Ref::from_schema_name(DOCUMENT_SCHEMA)))
                        .build()
                } else {
                    ContentBuilder::new()
                        .schema(Some(ObjectBuilder::new().schema_type(Type::Object)))
                        .build()
                },
            )
            .build()
    };
    op = op.response(status.to_string(), ok);
    for status in error_statuses(r) {
        op = op.response(
            status.to_string(),
            ResponseBuilder::new()
                .description(reason(status))
                .content(
                    "application/json",
                    ContentBuilder::new()
                        .schema(Some(Ref::from_schema_name(ERRORS_SCHEMA)))
                        .build(),
                )
                .build(),
        );
    }
    if r.public {
        // An empty list overrides the document's requirement: no key needed.
        op = op.securities(Some(Vec::<SecurityRequirement>::new()));
    }
    op.build()
}

/// The names in braces of a path: `["id"]` for `/containers/{id}`.
fn path_params(path: &str) -> Vec<&str> {
    path.split('/')
        .filter_map(|seg| seg.strip_prefix('{')?.strip_suffix('}'))
        .collect()
}

/// The error statuses of a row: derived ones (module documentation) and its extra ones, sorted.
pub fn error_statuses(r: &Route) -> Vec<u16> {
    let mut out: Vec<u16> = r.extra_errors.to_vec();
    if !matches!(r.query, Query::None) || r.body.is_some() {
        out.push(400);
    }
    if !r.public {
        out.push(401);
    }
    if r.path.contains('{') {
        out.push(404);
    }
    if r.body.is_some() {
        out.extend([413, 422]);
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// A query parameter.
fn query_param(name: &str, description: String, schema: ObjectBuilder) -> ParameterBuilder {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Query)
        .required(Required::False)
        .description(Some(description))
        .schema(Some(schema))
}

/// The query parameters of a row.
fn query_params(q: Query) -> Vec<ParameterBuilder> {
    let include = |names: &[&str]| {
        query_param(
            INCLUDE,
            format!(
                "Comma-separated relationships to include: {}.",
                names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            string(),
        )
    };
    match q {
        Query::None => Vec::new(),
        Query::Single { include: names } => vec![include(names)],
        Query::Named(params) => params
            .iter()
            .map(|(name, description)| query_param(name, description.to_string(), string()))
            .collect(),
        Query::List {
            include: names,
            filters,
        } => {
            let mut out = vec![
                query_param(
                    PAGE_NUMBER,
                    "Page number, from 1 (default 1).".into(),
                    ObjectBuilder::new()
                        .schema_type(Type::Integer)
                        .minimum(Some(1)),
                ),
                query_param(
                    PAGE_SIZE,
                    format!(
                        "Page size, 1 to {MAX_PAGE_SIZE} (default {}).",
                        crate::query::DEFAULT_PAGE_SIZE
                    ),
                    ObjectBuilder::new()
                        .schema_type(Type::Integer)
                        .minimum(Some(1))
                        .maximum(Some(MAX_PAGE_SIZE)),
                ),
            ];
            if !names.is_empty() {
                out.push(include(names));
            }
            out.extend(filters.iter().map(|f| {
                query_param(
                    f,
                    "Filter; a bad value or a filter this list does not serve is a 400.".into(),
                    string(),
                )
            }));
            out
        }
    }
}

/// `components`: the `Errors` and `Document` schemas and the `api_key` security scheme.
fn components() -> utoipa::openapi::Components {
    let source = ObjectBuilder::new()
        .schema_type(Type::Object)
        .property("parameter", string())
        .property("pointer", string());
    let error = ObjectBuilder::new()
        .schema_type(Type::Object)
        .property(
            "status",
            string().description(Some("The HTTP status, as text.")),
        )
        .property("title", string())
        .property("detail", string())
        .property("code", string().description(Some("e.g. `not_found`.")))
        .property("source", source)
        .required("status")
        .required("title");
    let errors = ObjectBuilder::new()
        .schema_type(Type::Object)
        .description(Some("A JSON:API error document."))
        .property("errors", ArrayBuilder::new().items(error))
        .required("errors");
    let any = || ObjectBuilder::new().schema_type(SchemaType::AnyValue);
    let document = ObjectBuilder::new()
        .schema_type(Type::Object)
        .description(Some(
            "A JSON:API document: `data` (a resource object or a list of them), `included`, \
             `links`, `meta`.",
        ))
        .property("data", any())
        .property("included", ArrayBuilder::new().items(any()))
        .property("links", ObjectBuilder::new().schema_type(Type::Object))
        .property("meta", ObjectBuilder::new().schema_type(Type::Object));
    ComponentsBuilder::new()
        .schema(ERRORS_SCHEMA, errors)
        .schema(DOCUMENT_SCHEMA, document)
        .security_scheme(
            SECURITY_SCHEME,
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "Authorization",
                "`Token <API_KEY>`: the word Token, a space, the account's API key.",
            ))),
        )
        .build()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use serde_json::Value;

    use super::*;

    /// The methods a `.route(…)` may register.
    const METHODS: &[&str] = &["get", "post", "put", "patch", "delete"];

    /// (method, path) of every `.route("PATH", get(…).patch(…)…)` in the body of
    /// `pub fn router(` in `src`. Panics on a registration it cannot read (another method
    /// router such as `any(…)`, a `.nest(…)`), so a route cannot slip past the comparison.
    fn registered_routes(src: &str) -> BTreeSet<(String, String)> {
        let start = src
            .find("pub fn router(")
            .expect("lib.rs defines pub fn router(");
        let body = &src[start..];
        let body = &body[..body
            .find("\n}\n")
            .expect("router() ends with a closing brace")];
        for unsupported in [".nest(", ".nest_service(", ".route_service("] {
            assert!(
                !body.contains(unsupported),
                "router() uses {unsupported}: teach this test to read it"
            );
        }
        let mut out = BTreeSet::new();
        let mut rest = body;
        while let Some(i) = rest.find(".route(") {
            rest = &rest[i + ".route(".len()..];
            let open = rest
                .find('"')
                .expect("a .route( starts with a path literal");
            assert!(
                rest[..open].trim().is_empty(),
                "a .route( whose path is not a literal: {}",
                &rest[..open]
            );
            let len = rest[open + 1..].find('"').expect("the path literal ends");
            let path = &rest[open + 1..open + 1 + len];
            let args = &rest[open + 1 + len + 1..];
            // Identifiers directly inside `.route(…)` followed by `(` are method routers
            // (`get(`, `.patch(`); handler paths sit one level deeper.
            let (mut depth, mut ident, mut found) = (1usize, String::new(), 0);
            for c in args.chars() {
                match c {
                    '(' => {
                        if depth == 1 && !ident.is_empty() {
                            let method = ident.rsplit("::").next().unwrap_or_default();
                            assert!(
                                METHODS.contains(&method),
                                "{path}: unrecognised method router {ident}("
                            );
                            out.insert((method.to_string(), path.to_string()));
                            found += 1;
                        }
                        depth += 1;
                        ident.clear();
                    }
                    ')' => {
                        depth -= 1;
                        ident.clear();
                        if depth == 0 {
                            break;
                        }
                    }
                    c if c.is_ascii_alphanumeric() || c == '_' || c == ':' => ident.push(c),
                    _ => ident.clear(),
                }
            }
            assert!(found > 0, "{path}: no method found in its .route(…)");
        }
        out
    }

    /// (method, path) of every operation of the served document.
    fn documented_routes(doc: &Value) -> BTreeSet<(String, String)> {
        let paths = doc["paths"].as_object().expect("paths is an object");
        let mut out = BTreeSet::new();
        for (path, item) in paths {
            let item = item.as_object().expect("a path item is an object");
            for method in item.keys().filter(|k| METHODS.contains(&k.as_str())) {
                out.insert((method.clone(), path.clone()));
            }
        }
        out
    }

    fn doc() -> Value {
        serde_json::to_value(document()).expect("the document serializes")
    }

    #[test]
    fn parser_reads_chained_and_nested_registrations() {
        let src = r#"
pub fn router(state: RestState) -> Router {
    let a = Router::new()
        .route("/a", get(m::list))
        .route(
            "/a/{id}",
            get(m::get_one)
                .patch(m::update)
                .delete(wrap(m::delete)),
        )
        .route("/b", axum::routing::post(m::create).get(m::list))
        .layer(from_fn_with_state(state.clone(), require_account));
    Router::new().route("/c", patch(m::c)).merge(a)
}
"#;
        let got: Vec<_> = registered_routes(src).into_iter().collect();
        let want: Vec<(String, String)> = [
            ("delete", "/a/{id}"),
            ("get", "/a"),
            ("get", "/a/{id}"),
            ("get", "/b"),
            ("patch", "/a/{id}"),
            ("patch", "/c"),
            ("post", "/b"),
        ]
        .iter()
        .map(|(m, p)| (m.to_string(), p.to_string()))
        .collect();
        assert_eq!(got, want);
    }

    #[test]
    #[should_panic(expected = "unrecognised method router")]
    fn parser_refuses_unknown_method_routers() {
        registered_routes("pub fn router() {\n    Router::new().route(\"/x\", any(h))\n}\n");
    }

    #[test]
    fn document_matches_router_registrations() {
        let registered = registered_routes(include_str!("lib.rs"));
        let documented = documented_routes(&doc());
        assert!(
            registered.len() >= 30,
            "too few routes read: {registered:?}"
        );
        let missing: Vec<_> = registered.difference(&documented).collect();
        let extra: Vec<_> = documented.difference(&registered).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "routes not documented: {missing:?}; documented but not routed: {extra:?}"
        );
        // One row per operation.
        assert_eq!(
            ROUTES.len(),
            documented.len(),
            "a (method, path) is listed twice"
        );
    }

    #[test]
    fn document_shape() {
        let d = doc();
        assert!(
            d["openapi"].as_str().is_some_and(|v| v.starts_with("3.1")),
            "{}",
            d["openapi"]
        );
        assert_eq!(d["info"]["title"], TITLE);
        assert_eq!(d["info"]["version"], env!("CARGO_PKG_VERSION"));
        assert_eq!(d["servers"][0]["url"], "/v2");
        let scheme = &d["components"]["securitySchemes"][SECURITY_SCHEME];
        assert_eq!(scheme["type"], "apiKey");
        assert_eq!(scheme["in"], "header");
        assert_eq!(scheme["name"], "Authorization");
        assert_eq!(d["security"][0][SECURITY_SCHEME], serde_json::json!([]));
        assert!(d["components"]["schemas"][ERRORS_SCHEMA]["properties"]["errors"].is_object());
        let errors_ref = format!("#/components/schemas/{ERRORS_SCHEMA}");
        for (path, item) in d["paths"].as_object().expect("paths") {
            for (method, op) in item.as_object().expect("path item") {
                let at = format!("{method} {path}");
                assert!(
                    op["summary"].as_str().is_some_and(|s| !s.is_empty()),
                    "{at}"
                );
                let params = op["parameters"].as_array().cloned().unwrap_or_default();
                let in_path: Vec<_> = params
                    .iter()
                    .filter(|p| p["in"] == "path")
                    .map(|p| p["name"].as_str().unwrap_or_default().to_string())
                    .collect();
                let braces: Vec<_> = path_params(path).iter().map(|s| s.to_string()).collect();
                assert_eq!(in_path, braces, "{at}: path parameters");
                let responses = op["responses"].as_object().expect("responses");
                assert!(
                    responses.keys().any(|s| s == "200" || s == "201"),
                    "{at}: no success response"
                );
                for (status, resp) in responses {
                    if status.starts_with('4') {
                        assert_eq!(
                            resp["content"]["application/json"]["schema"]["$ref"], errors_ref,
                            "{at} {status}"
                        );
                    }
                }
                let public = path == "/openapi.json";
                assert_eq!(responses.contains_key("401"), !public, "{at}: 401");
                if public {
                    assert_eq!(op["security"], serde_json::json!([]), "{at}");
                }
                if op.get("requestBody").is_some() {
                    assert!(
                        op["requestBody"]["content"]["application/json"].is_object(),
                        "{at}"
                    );
                    for s in ["400", "413", "422"] {
                        assert!(responses.contains_key(s), "{at}: {s}");
                    }
                }
            }
        }
        let containers = &d["paths"]["/containers"]["get"]["parameters"];
        let names: Vec<_> = containers
            .as_array()
            .expect("parameters")
            .iter()
            .filter_map(|p| p["name"].as_str())
            .collect();
        for n in [PAGE_NUMBER, PAGE_SIZE, INCLUDE, "filter[status]"] {
            assert!(names.contains(&n), "GET /containers lacks {n}: {names:?}");
        }
        let infer = &d["paths"]["/tracking_requests/infer_number"]["post"]["responses"];
        assert!(infer["429"].is_object());
        assert!(d["paths"]["/vessels/{id}"]["get"]["responses"]["403"].is_object());
        assert!(d["paths"]["/tracking_requests"]["post"]["responses"]["201"].is_object());
        let document_ref = format!("#/components/schemas/{DOCUMENT_SCHEMA}");
        let ok_schema = |path: &str| {
            d["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
                ["$ref"]
                .clone()
        };
        assert_eq!(ok_schema("/containers"), document_ref.as_str());
        assert_eq!(ok_schema("/openapi.json"), Value::Null);
        assert_eq!(ok_schema("/containers/{id}/map_geojson"), Value::Null);
    }
}

//! The map page: `GET /map/{container_id}` draws one container's route with Leaflet over the
//! bundled Natural Earth land outline (no tile server). The page and its assets are compiled
//! into the binary (`web/`, see `web/package.json` for the vendored npm versions).
//!
//! The page itself holds no data and needs no key; its script reads the API key from the URL
//! fragment (`/map/ID#key=teu_…`), the query (`?key=`) or a prompt, and fetches
//! `/v2/containers/{id}/map_geojson` with it (see `web/map.js`).

use axum::extract::Path;
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;

const PAGE: &str = include_str!("../web/map.html");
const MAP_JS: &str = include_str!("../web/map.js");
const LEAFLET_JS: &str = include_str!("../web/vendor/leaflet/leaflet.js");
const LEAFLET_CSS: &str = include_str!("../web/vendor/leaflet/leaflet.css");
const TOPOJSON_JS: &str = include_str!("../web/vendor/topojson-client/topojson-client.min.js");
const LAND: &str = include_str!("../web/vendor/world-atlas/land-110m.json");

/// Routes of the map page and its assets.
pub fn router() -> Router {
    Router::new()
        .route("/map/{container_id}", get(page))
        .route("/map/assets/{file}", get(asset))
}

async fn page(Path(id): Path<String>) -> Html<String> {
    // The id goes into an attribute: keep only characters a UUID can have.
    let safe: String = id
        .chars()
        .filter(|c| c.is_ascii_hexdigit() || *c == '-')
        .take(36)
        .collect();
    Html(PAGE.replace("{{CONTAINER_ID}}", &safe))
}

async fn asset(Path(file): Path<String>) -> Response {
    let (body, mime) = match file.as_str() {
        "map.js" => (MAP_JS, "text/javascript; charset=utf-8"),
        "leaflet.js" => (LEAFLET_JS, "text/javascript; charset=utf-8"),
        "leaflet.css" => (LEAFLET_CSS, "text/css; charset=utf-8"),
        "topojson-client.min.js" => (TOPOJSON_JS, "text/javascript; charset=utf-8"),
        "land-110m.json" => (LAND, "application/json"),
        _ => {
            return teu_rest::error_response(
                axum::http::StatusCode::NOT_FOUND,
                "Not Found",
                &format!("No map asset {file:?}."),
            )
        }
    };
    (
        [
            (header::CONTENT_TYPE, mime),
            (header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        body,
    )
        .into_response()
}

//! Reference resources, the same for every account: `GET /shipping_lines`,
//! `GET /shipping_lines/{id}` (the bundled carrier reference, `data/reference/ocean-carriers.csv`),
//! `GET /ports/{id}` (the bundled port list) and `GET /terminals/{id}` (the DCSA facility list
//! and the FIRMS codes, `teu_pipeline::terminals`), with Terminal49's names (API reference
//! "Shipping Lines", "Ports" and "Terminals").
//!
//! Ids are UUID v5 of the SCAC or the UN/LOCODE (`teu_pipeline::ids`), so they are the same on
//! every teu; `{id}` also accepts the SCAC (any of a line's SCACs) or the UN/LOCODE itself.
//! The list of shipping lines is not paginated (Terminal49: "There is no pagination for this
//! endpoint").

use std::collections::HashMap;
use std::sync::OnceLock;

use axum::extract::Path;
use axum::Json;
use serde_json::{json, Value};
use teu_pipeline::ids;
use teu_pipeline::model::{Carrier, Port, UnLocode};
use teu_pipeline::reference::bundled;
use teu_pipeline::terminals::Terminal;
use uuid::Uuid;

use crate::base::Base;
use crate::error::ApiError;

/// The id of a shipping line: UUID v5 of its SCAC.
pub fn shipping_line_id(scac: &str) -> Uuid {
    ids::scoped(Uuid::nil(), "shipping_line", &[scac])
}

/// The resource object of a shipping line. teu links a tracking request of any number type to
/// whatever feeds deliver for it, so every `*_tracking_support` is true.
pub fn shipping_line_resource(c: &Carrier) -> Value {
    json!({
        "id": shipping_line_id(&c.scac),
        "type": "shipping_line",
        "attributes": {
            "scac": c.scac,
            "name": c.name,
            "alternative_scacs": c.alternative_scacs,
            "short_name": c.short_name,
            "bill_of_lading_tracking_support": true,
            "booking_number_tracking_support": true,
            "container_number_tracking_support": true,
        }
    })
}

/// The resource object of a port (`city` is not in the bundled list, so null).
pub fn port_resource(p: &Port) -> Value {
    json!({
        "id": ids::port_id(&p.locode),
        "type": "port",
        "attributes": {
            "name": p.name,
            "code": p.locode,
            "state_abbr": p.state_abbr,
            "city": null,
            "country_code": p.country_code,
            "time_zone": p.time_zone,
            "latitude": p.latitude,
            "longitude": p.longitude,
        }
    })
}

/// The resource object of a terminal (Terminal49's `terminal`): codes from the DCSA facility
/// list and the FIRMS list; the address fields, which neither source gives, are null.
pub fn terminal_resource(t: &Terminal) -> Value {
    json!({
        "id": t.id,
        "type": "terminal",
        "attributes": {
            "name": t.name,
            "nickname": null,
            "firms_code": t.firms_code,
            "smdg_code": t.smdg_code,
            "bic_facility_code": t.bic_code,
            "street": null,
            "city": null,
            "state": null,
            "state_abbr": null,
            "zip": null,
            "country": t.locode.get(..2),
        },
        "relationships": {
            "port": { "data": { "id": ids::port_id(&t.locode), "type": "port" } },
        }
    })
}

/// `GET /terminals/{id}`: by id, or by FIRMS code; 404 otherwise.
pub(crate) async fn get_terminal(Path(id): Path<String>) -> Result<Json<Value>, ApiError> {
    let index = teu_pipeline::terminals::bundled();
    let found = match Uuid::parse_str(&id) {
        Ok(uuid) => index.get(uuid),
        Err(_) => {
            let code = id.trim().to_ascii_uppercase();
            index
                .resolve(None, &code)
                .ok()
                .filter(|t| t.firms_code.as_deref() == Some(code.as_str()))
        }
    };
    let t = found.ok_or_else(|| ApiError::not_found("Terminal", &id))?;
    Ok(Json(json!({ "data": terminal_resource(t) })))
}

/// `GET /shipping_lines`: every line of the bundled reference, in file order.
pub(crate) async fn list_shipping_lines(base: Base) -> Json<Value> {
    let data: Vec<Value> = bundled().1.iter().map(shipping_line_resource).collect();
    Json(json!({ "data": data, "links": { "self": base.url("/shipping_lines") } }))
}

/// `GET /shipping_lines/{id}`: by id or SCAC; 404 otherwise.
pub(crate) async fn get_shipping_line(Path(id): Path<String>) -> Result<Json<Value>, ApiError> {
    let carriers = &bundled().1;
    let found = match Uuid::parse_str(&id) {
        Ok(uuid) => carriers.iter().find(|c| shipping_line_id(&c.scac) == uuid),
        Err(_) => carriers.get(&id.to_ascii_uppercase()),
    };
    let c = found.ok_or_else(|| ApiError::not_found("ShippingLine", &id))?;
    Ok(Json(json!({ "data": shipping_line_resource(c) })))
}

/// `GET /ports/{id}`: by id or UN/LOCODE; 404 otherwise.
pub(crate) async fn get_port(Path(id): Path<String>) -> Result<Json<Value>, ApiError> {
    static BY_ID: OnceLock<HashMap<Uuid, UnLocode>> = OnceLock::new();
    let ports = &bundled().0;
    let port = match Uuid::parse_str(&id) {
        Ok(uuid) => BY_ID
            .get_or_init(|| {
                ports
                    .iter()
                    .map(|p| (ids::port_id(&p.locode), p.locode.clone()))
                    .collect()
            })
            .get(&uuid)
            .and_then(|l| ports.get(l)),
        Err(_) => ports.get(&id.to_ascii_uppercase()),
    };
    let p = port.ok_or_else(|| ApiError::not_found("Port", &id))?;
    Ok(Json(json!({ "data": port_resource(p) })))
}

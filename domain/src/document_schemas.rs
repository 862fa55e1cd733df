//! The registry of document schemas (interface.md: document_schema): JSON Schemas (draft 2020-12) of the
//! fields teu extracts from each document type, written by us from the fields those documents
//! carry. The files are `domain/schemas/<document_type>@<version>.json`, embedded at build
//! time; [`REGISTRY`] adds the registry facts (current, draft, active_at). `label` is the
//! schema's `title` and `description` its `description`.
//!
//! [`bundled`] checks each file against the JSON Schema meta-schema with the `jsonschema` crate
//! (an invalid file is a [`SchemaError`]); `teu_store::Store::upsert_document_schemas` writes them at
//! start-up (`Store::connect`), so the table always matches the files of the running build.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One registry entry: `(document_type, schema_version, current, draft, active_at, file text)`.
type Entry = (
    &'static str,
    &'static str,
    bool,
    bool,
    &'static str,
    &'static str,
);

/// The bundled schemas. `active_at` is when the version became the one to extract into.
pub const REGISTRY: &[Entry] = &[
    (
        "bill_of_lading",
        "1.0",
        true,
        false,
        "2026-11-21T00:00:00Z",
        include_str!("../schemas/bill_of_lading@1.0.json"),
    ),
    (
        "arrival_notice",
        "1.0",
        true,
        false,
        "2026-11-21T00:00:00Z",
        include_str!("../schemas/arrival_notice@1.0.json"),
    ),
    (
        "commercial_invoice",
        "1.0",
        true,
        false,
        "2026-11-21T00:00:00Z",
        include_str!("../schemas/commercial_invoice@1.0.json"),
    ),
    (
        "packing_list",
        "1.0",
        true,
        false,
        "2026-11-21T00:00:00Z",
        include_str!("../schemas/packing_list@1.0.json"),
    ),
    (
        "delivery_order",
        "1.0",
        true,
        false,
        "2026-11-21T00:00:00Z",
        include_str!("../schemas/delivery_order@1.0.json"),
    ),
];

/// Value of `schema_format` for every bundled schema.
pub const JSON_SCHEMA: &str = "json_schema";

/// A versioned document schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocumentSchema {
    /// `<document_type>@<schema_version>`; also the id.
    pub full_version: String,
    pub document_type: String,
    pub schema_version: String,
    pub label: String,
    pub description: String,
    /// The version documents of this type are extracted into now (one per type).
    pub current: bool,
    /// Not yet in use.
    pub draft: bool,
    pub active_at: Option<DateTime<Utc>>,
    /// Always [`JSON_SCHEMA`].
    pub schema_format: String,
    /// The JSON Schema itself.
    pub schema_payload: Value,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A bundled schema file that is not a valid schema.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    #[error("schemas/{full_version}.json is not JSON: {message}")]
    Json {
        full_version: String,
        message: String,
    },
    #[error("schemas/{full_version}.json is not a valid JSON Schema: {message}")]
    Invalid {
        full_version: String,
        message: String,
    },
    #[error("schemas/{full_version}.json: {message}")]
    Registry {
        full_version: String,
        message: String,
    },
}

/// The bundled schemas, each checked to be a valid JSON Schema (meta-schema validation and
/// compilation by `jsonschema`) and to carry `title` and `description`. Timestamps are `at`.
pub fn bundled(at: DateTime<Utc>) -> std::result::Result<Vec<DocumentSchema>, SchemaError> {
    REGISTRY
        .iter()
        .map(
            |&(document_type, version, current, draft, active_at, text)| {
                let full_version = format!("{document_type}@{version}");
                let payload: Value = serde_json::from_str(text).map_err(|e| SchemaError::Json {
                    full_version: full_version.clone(),
                    message: e.to_string(),
                })?;
                jsonschema::meta::validate(&payload).map_err(|e| SchemaError::Invalid {
                    full_version: full_version.clone(),
                    message: e.to_string(),
                })?;
                jsonschema::validator_for(&payload).map_err(|e| SchemaError::Invalid {
                    full_version: full_version.clone(),
                    message: e.to_string(),
                })?;
                let text_of = |key: &str| {
                    payload
                        .get(key)
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .ok_or_else(|| SchemaError::Registry {
                            full_version: full_version.clone(),
                            message: format!("missing string \"{key}\""),
                        })
                };
                let active_at = DateTime::parse_from_rfc3339(active_at)
                    .map(|d| d.with_timezone(&Utc))
                    .map_err(|e| SchemaError::Registry {
                        full_version: full_version.clone(),
                        message: format!("active_at: {e}"),
                    })?;
                Ok(DocumentSchema {
                    label: text_of("title")?,
                    description: text_of("description")?,
                    full_version: full_version.clone(),
                    document_type: document_type.to_string(),
                    schema_version: version.to_string(),
                    current,
                    draft,
                    active_at: Some(active_at),
                    schema_format: JSON_SCHEMA.to_string(),
                    schema_payload: payload,
                    created_at: at,
                    updated_at: at,
                })
            },
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_schemas_are_valid_json_schemas() {
        let schemas = bundled(Utc::now()).unwrap();
        assert_eq!(schemas.len(), 5);
        for t in [
            "bill_of_lading",
            "arrival_notice",
            "commercial_invoice",
            "packing_list",
            "delivery_order",
        ] {
            let s = schemas.iter().find(|s| s.document_type == t).unwrap();
            assert_eq!(s.full_version, format!("{t}@1.0"));
            assert!(s.current && !s.draft);
            assert_eq!(s.schema_format, "json_schema");
            assert!(!s.label.is_empty() && !s.description.is_empty());
        }
    }

    #[test]
    fn schemas_accept_and_refuse_documents() {
        let schemas = bundled(Utc::now()).unwrap();
        let bl = &schemas[0].schema_payload;
        let v = jsonschema::validator_for(bl).unwrap();
        assert!(v.is_valid(&serde_json::json!({
            "bill_of_lading_number": "MEDU1234567",
            "port_of_loading": "CNSHA",
            "containers": [{"number": "MSCU1234565", "size_type": "45G1"}]
        })));
        assert!(!v.is_valid(&serde_json::json!({"port_of_loading": "CNSHA"})));
        assert!(!v.is_valid(&serde_json::json!({
            "bill_of_lading_number": "X", "containers": [{"number": "bad"}]
        })));
    }

    #[test]
    fn an_invalid_schema_is_refused() {
        let bad = serde_json::json!({"type": 12});
        assert!(jsonschema::meta::validate(&bad).is_err());
    }
}

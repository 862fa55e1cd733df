//! The SQL of the document schema registry ([`teu_domain::document_schemas`]: the files and the
//! registry facts).

use crate::db::{DbRow, RecordTime};

use super::{now, Result, Store, StoreError};
use teu_domain::document_schemas::{bundled, DocumentSchema};

const COLUMNS: &str =
    "id, document_type, schema_version, label, description, current_flag, draft, \
                       active_at, schema_format, schema_payload, created_at, updated_at";

impl Store {
    /// Writes `schemas`; rows whose content is unchanged keep their timestamps.
    pub async fn upsert_document_schemas(&self, schemas: &[DocumentSchema]) -> Result<()> {
        let mut tx = self.writer().begin().await?;
        for s in schemas {
            crate::db::query(&format!(
                "INSERT INTO document_schemas ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) \
                 ON CONFLICT (id) DO UPDATE SET label = excluded.label, description = excluded.description, \
                 current_flag = excluded.current_flag, draft = excluded.draft, active_at = excluded.active_at, \
                 schema_payload = excluded.schema_payload, updated_at = excluded.updated_at \
                 WHERE document_schemas.schema_payload <> excluded.schema_payload \
                 OR document_schemas.label <> excluded.label OR document_schemas.description <> excluded.description \
                 OR document_schemas.current_flag <> excluded.current_flag OR document_schemas.draft <> excluded.draft"
            ))
            .bind(&s.full_version)
            .bind(&s.document_type)
            .bind(&s.schema_version)
            .bind(&s.label)
            .bind(&s.description)
            .bind(i64::from(s.current))
            .bind(i64::from(s.draft))
            .bind(s.active_at.map(RecordTime))
            .bind(&s.schema_format)
            .bind(s.schema_payload.to_string())
            .bind(RecordTime(s.created_at))
            .bind(RecordTime(s.updated_at))
            .execute(self.counted(&mut tx))
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Loads the bundled schemas into the store (called by `Store::connect`).
    pub async fn load_document_schemas(&self) -> Result<()> {
        let schemas = bundled(now()).map_err(|e| StoreError::Corrupt {
            what: "document schema",
            id: "bundled".into(),
            detail: e.to_string(),
        })?;
        self.upsert_document_schemas(&schemas).await
    }

    /// The schema with id `full_version` (`<document_type>@<version>`).
    pub async fn document_schema(&self, full_version: &str) -> Result<Option<DocumentSchema>> {
        let row = crate::db::query(&format!(
            "SELECT {COLUMNS} FROM document_schemas WHERE id = $1"
        ))
        .bind(full_version)
        .fetch_optional(self.pool())
        .await?;
        row.as_ref().map(schema_row).transpose()
    }

    /// All schemas, or those of one document type, by type then version.
    pub async fn document_schemas(
        &self,
        document_type: Option<&str>,
    ) -> Result<Vec<DocumentSchema>> {
        let rows = match document_type {
            Some(t) => {
                crate::db::query(&format!(
                    "SELECT {COLUMNS} FROM document_schemas WHERE document_type = $1 ORDER BY document_type, schema_version"
                ))
                .bind(t)
                .fetch_all(self.pool())
                .await?
            }
            None => {
                crate::db::query(&format!(
                    "SELECT {COLUMNS} FROM document_schemas ORDER BY document_type, schema_version"
                ))
                .fetch_all(self.pool())
                .await?
            }
        };
        rows.iter().map(schema_row).collect()
    }
}

fn schema_row(r: &DbRow) -> Result<DocumentSchema> {
    let id: String = r.try_get("id")?;
    let corrupt = |detail: String| StoreError::Corrupt {
        what: "document schema",
        id: id.clone(),
        detail,
    };
    let payload: String = r.try_get("schema_payload")?;
    Ok(DocumentSchema {
        document_type: r.try_get("document_type")?,
        schema_version: r.try_get("schema_version")?,
        label: r.try_get("label")?,
        description: r.try_get("description")?,
        current: r.try_get::<i64, _>("current_flag")? != 0,
        draft: r.try_get::<i64, _>("draft")? != 0,
        active_at: r.record_time_or_null("active_at")?,
        schema_format: r.try_get("schema_format")?,
        schema_payload: serde_json::from_str(&payload).map_err(|e| corrupt(e.to_string()))?,
        created_at: r.record_time("created_at")?,
        updated_at: r.record_time("updated_at")?,
        full_version: id.clone(),
    })
}

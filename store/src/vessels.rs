//! The SQL of vessels as an account sees them ([`teu_domain::vessels`]: the rules and types).

use uuid::Uuid;

use super::{body_bytes, event_body, uuid_of_bytes, Result, Store, StoreError};
use teu_domain::ids;
use teu_domain::model::Imo;
use teu_domain::vessels::{Fix, Vessel};

impl Store {
    /// IMO numbers the account's stored events name, each once (unordered).
    async fn event_imos(&self, account: Uuid) -> Result<Vec<String>> {
        crate::db::query(
            "SELECT DISTINCT vessel_imo AS imo FROM transport_events WHERE account_id = $1 \
             AND vessel_imo IS NOT NULL",
        )
        .bind(account.as_bytes().as_slice())
        .fetch_all(self.pool())
        .await?
        .iter()
        .map(|r| Ok(r.try_get::<String, _>("imo")?))
        .collect()
    }

    /// The vessel `key` names for the account: a UUID (the id of a vessel the account's events
    /// or AIS know) or an IMO number (7 digits, an `IMO` prefix allowed). `None` when neither
    /// source knows it.
    ///
    /// # Errors
    ///
    /// [`crate::StoreError::Sql`] when a query fails.
    pub async fn vessel(&self, account: Uuid, key: &str) -> Result<Option<Vessel>> {
        let imo = match Uuid::parse_str(key) {
            Ok(id) => {
                let mut candidates = self.event_imos(account).await?;
                candidates.extend(
                    crate::db::query(
                        "SELECT DISTINCT imo FROM vessel_positions WHERE imo IS NOT NULL",
                    )
                    .fetch_all(self.pool())
                    .await?
                    .iter()
                    .map(|r| r.try_get::<String, _>("imo"))
                    .collect::<Result<Vec<_>, _>>()?,
                );
                match candidates.into_iter().find(|imo| ids::vessel_id(imo) == id) {
                    Some(imo) => Imo::parse(&imo).map_err(|e| StoreError::Corrupt {
                        what: "stored IMO number",
                        id: imo.clone(),
                        detail: e.to_string(),
                    })?,
                    None => return Ok(None),
                }
            }
            Err(_) => match Imo::parse(key.trim()) {
                Ok(imo) => imo,
                Err(_) => return Ok(None),
            },
        };
        // The name the account's carrier uses, from its latest event naming the vessel.
        let sql = format!(
            "SELECT id, {} FROM transport_events WHERE account_id = $1 AND vessel_imo = $2 \
             ORDER BY issued_at DESC LIMIT 1",
            body_bytes(self.backend(), "body")
        );
        let event_name: Option<String> = match crate::db::query(&sql)
            .bind(account.as_bytes().as_slice())
            .bind(imo.as_str())
            .fetch_optional(self.pool())
            .await?
        {
            Some(row) => {
                let id = uuid_of_bytes(&row.try_get::<Vec<u8>, _>("id")?, "transport event id")?;
                let body = event_body(&row, id)?;
                serde_json::from_str::<serde_json::Value>(&body)
                    .ok()
                    .and_then(|v| v["vessel_name"].as_str().map(str::to_string))
                    .or(Some(String::new()))
            }
            None => None,
        };
        let latest = crate::db::query(&format!(
            "SELECT {} FROM vessel_positions WHERE imo = $1 ORDER BY observed_at DESC LIMIT 1",
            super::facts::POSITION_READ
        ))
        .bind(imo.as_str())
        .fetch_optional(self.pool())
        .await?
        .as_ref()
        .map(super::facts::position_row)
        .transpose()?;
        if event_name.is_none() && latest.is_none() {
            return Ok(None);
        }
        let (mmsi, ais_name, position) = match latest {
            Some(p) => {
                let fix = Fix {
                    latitude: p.latitude,
                    longitude: p.longitude,
                    speed_knots: p.speed_knots,
                    heading_deg: p.heading_deg.or(p.course_deg),
                    observed_at: p.observed_at,
                };
                (p.mmsi, p.vessel_name, Some(fix))
            }
            None => (None, None, None),
        };
        let name = event_name.filter(|n| !n.is_empty()).or(ais_name);
        Ok(Some(Vessel {
            id: ids::vessel_id(&imo),
            imo,
            name,
            mmsi,
            position,
        }))
    }
}

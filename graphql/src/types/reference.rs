//! Reference data shared by all accounts: ports (UN/LOCODE) and container terminals.

use async_graphql::{ComplexObject, SimpleObject, ID};
use teu_pipeline::model;
use teu_pipeline::terminals;
use uuid::Uuid;

/// A port (UN/LOCODE reference data, the same for every account).
#[derive(SimpleObject, Debug, Clone, PartialEq)]
pub struct Port {
    /// The port id (UUID v5 of the UN/LOCODE), the same as `/v2` `port` relationships.
    id: ID,
    /// UN/LOCODE.
    locode: String,
    name: String,
    /// ISO 3166 country code.
    country_code: String,
    country: Option<String>,
    /// State or province, when known.
    state: Option<String>,
    /// Postal abbreviation of the state or province (US and Canada), when known.
    state_abbr: Option<String>,
    /// WGS84 latitude.
    latitude: Option<f64>,
    /// WGS84 longitude.
    longitude: Option<f64>,
    /// IANA time zone.
    timezone: Option<String>,
}

impl Port {
    /// The port with UN/LOCODE `locode` (exact, upper case) in the bundled reference data;
    /// `None` when `locode` is `None` or not a known port.
    pub fn of(locode: Option<&str>) -> Option<Port> {
        let locode = locode?;
        teu_pipeline::reference::bundled()
            .0
            .get(locode)
            .cloned()
            .map(Port::from)
    }
}

impl From<model::Port> for Port {
    /// The GraphQL port of a reference-data port, with its id (`ids::port_id`).
    fn from(p: model::Port) -> Self {
        let model::Port {
            locode,
            name,
            country_code,
            country,
            latitude,
            longitude,
            time_zone,
            state,
            state_abbr,
        } = p;
        Port {
            id: ID(teu_pipeline::ids::port_id(&locode).to_string()),
            locode: locode.into(),
            name,
            country_code,
            country,
            state,
            state_abbr,
            latitude,
            longitude,
            timezone: time_zone,
        }
    }
}

/// A container terminal (DCSA facility list and FIRMS codes, the same for every account).
#[derive(SimpleObject, Debug, Clone, PartialEq)]
#[graphql(complex)]
pub struct Terminal {
    /// The terminal id, the same as `/v2` `terminal` relationships.
    id: ID,
    name: String,
    /// UN/LOCODE of the terminal's port.
    locode: String,
    /// SMDG terminal code.
    smdg_code: Option<String>,
    /// BIC facility code.
    bic_code: Option<String>,
    /// US CBP FIRMS code or Canadian CBSA sub-location code.
    firms_code: Option<String>,
    /// IANA time zone of the terminal's port.
    timezone: Option<String>,
}

impl Terminal {
    /// The terminal with id `id` in the bundled reference data; `None` when `id` is `None` or
    /// not a known terminal.
    pub fn of(id: Option<Uuid>) -> Option<Terminal> {
        terminals::bundled().get(id?).cloned().map(Terminal::from)
    }
}

impl From<terminals::Terminal> for Terminal {
    /// The GraphQL terminal of a reference-data terminal.
    fn from(t: terminals::Terminal) -> Self {
        let terminals::Terminal {
            id,
            name,
            locode,
            smdg_code,
            bic_code,
            firms_code,
            time_zone,
        } = t;
        Terminal {
            id: ID(id.to_string()),
            name,
            locode: locode.into(),
            smdg_code,
            bic_code,
            firms_code,
            timezone: time_zone,
        }
    }
}

/// The field of a terminal that is looked up in the reference data.
#[ComplexObject]
impl Terminal {
    /// The terminal's port.
    async fn port(&self) -> Option<Port> {
        Port::of(Some(&self.locode))
    }
}

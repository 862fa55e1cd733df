//! Reference data shared by all accounts: ports (UN/LOCODE) and container terminals.

use async_graphql::{Object, ID};
use teu_pipeline::model;

/// A port (reference data shared by all accounts).
pub struct Port(pub model::Port);

impl Port {
    /// The port with this UN/LOCODE in the bundled reference data.
    pub fn of(locode: Option<&str>) -> Option<Port> {
        let locode = locode?;
        teu_pipeline::reference::bundled()
            .0
            .get(locode)
            .cloned()
            .map(Port)
    }
}

/// A port (UN/LOCODE reference data, the same for every account).
#[Object]
impl Port {
    /// The port id (UUID v5 of the UN/LOCODE), the same as `/v2` `port` relationships.
    async fn id(&self) -> ID {
        ID(teu_pipeline::ids::port_id(&self.0.locode).to_string())
    }

    /// UN/LOCODE.
    async fn locode(&self) -> &str {
        &self.0.locode
    }

    async fn name(&self) -> &str {
        &self.0.name
    }

    /// ISO 3166 country code.
    async fn country_code(&self) -> &str {
        &self.0.country_code
    }

    async fn country(&self) -> Option<&str> {
        self.0.country.as_deref()
    }

    /// State or province, when known.
    async fn state(&self) -> Option<&str> {
        self.0.state.as_deref()
    }

    /// Postal abbreviation of the state or province (US and Canada), when known.
    async fn state_abbr(&self) -> Option<&str> {
        self.0.state_abbr.as_deref()
    }

    /// WGS84 latitude.
    async fn latitude(&self) -> Option<f64> {
        self.0.latitude
    }

    /// WGS84 longitude.
    async fn longitude(&self) -> Option<f64> {
        self.0.longitude
    }

    /// IANA time zone.
    async fn timezone(&self) -> Option<&str> {
        self.0.time_zone.as_deref()
    }
}

/// A container terminal (reference data shared by all accounts).
pub struct Terminal(pub teu_pipeline::terminals::Terminal);

impl Terminal {
    /// The terminal with this id in the bundled reference data.
    pub fn of(id: Option<uuid::Uuid>) -> Option<Terminal> {
        teu_pipeline::terminals::bundled()
            .get(id?)
            .cloned()
            .map(Terminal)
    }
}

/// A container terminal (DCSA facility list and FIRMS codes, the same for every account).
#[Object]
impl Terminal {
    /// The terminal id, the same as `/v2` `terminal` relationships.
    async fn id(&self) -> ID {
        ID(self.0.id.to_string())
    }

    async fn name(&self) -> &str {
        &self.0.name
    }

    /// UN/LOCODE of the terminal's port.
    async fn locode(&self) -> &str {
        &self.0.locode
    }

    /// SMDG terminal code.
    async fn smdg_code(&self) -> Option<&str> {
        self.0.smdg_code.as_deref()
    }

    /// BIC facility code.
    async fn bic_code(&self) -> Option<&str> {
        self.0.bic_code.as_deref()
    }

    /// US CBP FIRMS code or Canadian CBSA sub-location code.
    async fn firms_code(&self) -> Option<&str> {
        self.0.firms_code.as_deref()
    }

    /// IANA time zone of the terminal's port.
    async fn timezone(&self) -> Option<&str> {
        self.0.time_zone.as_deref()
    }

    /// The terminal's port.
    async fn port(&self) -> Option<Port> {
        Port::of(Some(&self.0.locode))
    }
}

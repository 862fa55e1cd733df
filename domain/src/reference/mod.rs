//! Reference data: sea ports (UN/LOCODE, name, country, coordinates, IANA time zone) and ocean
//! carriers (SCAC, names, alternative SCACs, bill-of-lading prefix).
//!
//! The data comes from four files in `data/reference/`, which are also embedded in the binary so
//! that [`bundled`], [`bundled_ports`] and [`bundled_carriers`] work from any working directory:
//!
//! | file | content |
//! |---|---|
//! | `sea-ports.json` | npm `sea-ports` 0.0.9 (MIT): object keyed by UN/LOCODE with `name`, `country`, `coordinates` `[lon, lat]`, `timezone` |
//! | `searoute-ports.geojson` | PyPI `searoute` 1.6 (Apache-2.0): Point features, `properties.port` = UN/LOCODE, `name`, `cty` |
//! | `ocean-carriers.csv` | `scac,name,legal_name,alternative_scacs,bill_of_lading_prefix,...,number_shapes,source` (lists separated by spaces; `number_shapes` optional, see [`NumberShape`]; sources in `docs/sources-carriers.md`) |
//! | `dcsa-carriers.csv` | DCSA Information Model (Apache-2.0): `Carrier Name,SMDG Code,NMFTA Code` |
//!
//! # How ports are merged
//!
//! Ports are the union of both port files, keyed by UN/LOCODE (entries whose key is not a
//! UN/LOCODE by [`UnLocode::parse`] are skipped: the searoute feature with `port` = `"EG"`, the
//! searoute codes with a `0` in the location part such as `AUTR0`, and `ANGSB`, whose country
//! `AN` left ISO 3166-1 in 2010).
//!
//! * **Name and time zone**: sea-ports wins; searoute fills ports that sea-ports lacks.
//! * **Country**: `country_code` is the first two letters of the UN/LOCODE; `country` (the
//!   country name) comes from sea-ports, else from searoute's `cty` with `_` read as a space.
//! * **Coordinates** (degrees, WGS84): searoute's point is preferred (it is a port position for
//!   sea routing, while sea-ports often gives the city centre), then sea-ports'. Both files
//!   contain wrong points (swapped pairs, wrong signs), so each candidate is checked: it must be
//!   in range, lie within 1,000 km of another port of the same country (unless the country has
//!   no other port), and lie on or within 0.5° of a land time zone. When neither candidate
//!   passes, each is tried with the longitude negated, with longitude and latitude swapped, and
//!   with the latitude negated; the first variant that passes with 150 km instead of 1,000 km is
//!   used. This repairs `ARDDC`, `CLJRL`, `CLPGO`, `CLPPD`, `ISESK`, `TNJAR`, `VCCRP`
//!   and takes sea-ports' point for `CRSJO` (searoute's longitude has the wrong sign). When
//!   nothing passes, the preferred point is kept as it is (remote islands, offshore terminals, a
//!   few mis-coded entries such as `ZAPOR`). When searoute lists the same UN/LOCODE twice, the
//!   feature nearest to sea-ports' point is used (the first one when sea-ports has no point).
//! * **Time zone**: sea-ports' `timezone` when it parses as an IANA name with [`chrono_tz`];
//!   otherwise (missing, or invalid such as `"America/Argentina"`) it is looked up from the
//!   coordinates with `tzf-rs`. A valid sea-ports zone is also replaced by the zone at the
//!   port's coordinates when the two keep different clocks (UTC offsets in January or July 2025)
//!   and sea-ports' own point does not support its zone either: this fixes entries such as
//!   `THBKK` (Bangkok) = `Asia/Tehran` or `BRMAO` (Manaus) = `Europe/Stockholm`, 24 in all.
//!   When a point falls outside every land zone (tzf answers an ocean `Etc/GMT±N` zone or
//!   nothing), points up to 0.5° around it are probed and the nearest land zone found is used;
//!   the ocean zone is kept only when there is none (4 offshore terminals). A port without any
//!   coordinates gets its country's zone when at least 90% of the country's other ports with a
//!   land zone share it (e.g. `BHAHD` → `Asia/Bahrain`, `CNSTG` → `Asia/Shanghai`); otherwise its
//!   time zone stays `None` (8 ports, e.g. `USRNO`). Points on a border river may get the
//!   neighbour's zone (tzf's lite polygons are simplified), e.g. `CNHEK` → `Asia/Yakutsk`.
//!
//! The tzf-rs finder (about 0.15–0.25 s to build in a debug test) is built once per process, on
//! first use, and shared by every load.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::model::{Carrier, Port, UnLocode};

mod carriers;
mod number_shapes;
mod port_files;
mod ports;
#[cfg(test)]
mod tests;

use self::carriers::build_carriers;
pub use self::number_shapes::NumberShape;
use self::ports::build_ports;

/// File name of the sea-ports (npm) port list inside a reference data directory.
pub const SEA_PORTS_FILE: &str = "sea-ports.json";
/// File name of the searoute port GeoJSON inside a reference data directory.
pub const SEAROUTE_PORTS_FILE: &str = "searoute-ports.geojson";
/// File name of the ocean carrier list inside a reference data directory.
pub const OCEAN_CARRIERS_FILE: &str = "ocean-carriers.csv";
/// File name of the DCSA carrier list (SMDG and NMFTA codes) inside a reference data directory.
pub const DCSA_CARRIERS_FILE: &str = "dcsa-carriers.csv";

const BUNDLED_SEA_PORTS: &str = include_str!("../../../data/reference/sea-ports.json");
const BUNDLED_SEAROUTE_PORTS: &str = include_str!("../../../data/reference/searoute-ports.geojson");
const BUNDLED_OCEAN_CARRIERS: &str = include_str!("../../../data/reference/ocean-carriers.csv");
const BUNDLED_DCSA_CARRIERS: &str = include_str!("../../../data/reference/dcsa-carriers.csv");

/// An error reading the reference data. Every variant names the file; data errors also name the
/// entry (JSON key, GeoJSON feature, CSV row) and the field.
#[derive(Debug, thiserror::Error)]
pub enum ReferenceError {
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid JSON (the message carries line and column).
    #[error("{file}: invalid JSON: {source}")]
    Json {
        file: String,
        #[source]
        source: serde_json::Error,
    },
    /// The CSV reader failed (malformed quoting, invalid UTF-8, wrong field count).
    #[error("{file}: row {row}: {source}")]
    Csv {
        file: String,
        /// 1-based record number, the header being row 1.
        row: u64,
        #[source]
        source: csv::Error,
    },
    /// An entry has a missing or malformed field.
    #[error("{file}: {at}: field `{field}`: {message}")]
    Invalid {
        file: String,
        /// Which entry: `key "AEAJM"`, `feature 17 (port "ALDRZ")`, `row 5`, `header`.
        at: String,
        field: String,
        message: String,
    },
}

fn invalid(
    file: &str,
    at: impl fmt::Display,
    field: &str,
    message: impl Into<String>,
) -> ReferenceError {
    ReferenceError::Invalid {
        file: file.to_owned(),
        at: at.to_string(),
        field: field.to_owned(),
        message: message.into(),
    }
}

fn read_file(dir: &Path, name: &str) -> Result<(String, String), ReferenceError> {
    let path = dir.join(name);
    let text = std::fs::read_to_string(&path).map_err(|source| ReferenceError::Io {
        path: path.clone(),
        source,
    })?;
    Ok((path.display().to_string(), text))
}

/// Loads all ports from `dir/sea-ports.json` and `dir/searoute-ports.geojson` (see the module
/// documentation for how the two are merged).
///
/// Returns one [`Port`] per UN/LOCODE, sorted by UN/LOCODE, with `latitude`/`longitude` in
/// degrees (WGS84) and `time_zone` an IANA name that parses with [`chrono_tz`] (or `None` when
/// neither file, the coordinates nor the country give one).
///
/// # Errors
///
/// [`ReferenceError::Io`] when a file cannot be read, [`ReferenceError::Json`] when it is not
/// JSON, [`ReferenceError::Invalid`] (file, key or feature, field) when an entry has the wrong
/// shape, e.g. a `name` that is not a string or `coordinates` that are not two numbers.
pub fn load_ports(dir: &Path) -> Result<Vec<Port>, ReferenceError> {
    let (sea_name, sea_text) = read_file(dir, SEA_PORTS_FILE)?;
    let (route_name, route_text) = read_file(dir, SEAROUTE_PORTS_FILE)?;
    Ok(build_ports(&sea_name, &sea_text, &route_name, &route_text)?.0)
}

/// Same as [`load_ports`], from the copies of `data/reference/sea-ports.json` and
/// `data/reference/searoute-ports.geojson` embedded in the binary.
///
/// # Errors
///
/// As [`load_ports`]; the embedded files are checked by this module's tests, so an error means a
/// broken build.
pub fn bundled_ports() -> Result<Vec<Port>, ReferenceError> {
    Ok(build_ports(
        "bundled data/reference/sea-ports.json",
        BUNDLED_SEA_PORTS,
        "bundled data/reference/searoute-ports.geojson",
        BUNDLED_SEAROUTE_PORTS,
    )?
    .0)
}

/// Loads the carriers from `dir/ocean-carriers.csv`, then adds the `dir/dcsa-carriers.csv`
/// entries whose NMFTA code (SCAC) is not already a SCAC or alternative SCAC of a listed carrier.
///
/// From `ocean-carriers.csv`: `scac` → [`Carrier::scac`], `name` → [`Carrier::short_name`],
/// `legal_name` → [`Carrier::name`] (the short name when empty), `alternative_scacs` (separated
/// by spaces; commas, semicolons and `|` are accepted too) → [`Carrier::alternative_scacs`],
/// `bill_of_lading_prefix` → [`Carrier::bill_of_lading_prefix`]. A DCSA entry becomes a carrier
/// with `scac` = NMFTA code and both names = `Carrier Name` (the SMDG code is not a name, and not
/// kept); DCSA rows without an NMFTA code are skipped. Codes are upper-cased. The order is that
/// of the files.
///
/// # Errors
///
/// [`ReferenceError::Io`] when a file cannot be read, [`ReferenceError::Csv`] (file, row) when
/// the CSV is malformed, [`ReferenceError::Invalid`] (file, row, field) when a column is missing,
/// a SCAC is not 2–4 letters, a name is empty or a bill-of-lading prefix is not 2–8 letters or
/// digits.
pub fn load_carriers(dir: &Path) -> Result<Vec<Carrier>, ReferenceError> {
    let (ocean_name, ocean_text) = read_file(dir, OCEAN_CARRIERS_FILE)?;
    let (dcsa_name, dcsa_text) = read_file(dir, DCSA_CARRIERS_FILE)?;
    build_carriers(&ocean_name, &ocean_text, &dcsa_name, &dcsa_text)
}

/// Same as [`load_carriers`], from the copies of `data/reference/ocean-carriers.csv` and
/// `data/reference/dcsa-carriers.csv` embedded in the binary.
///
/// # Errors
///
/// As [`load_carriers`]; the embedded files are checked by this module's tests.
pub fn bundled_carriers() -> Result<Vec<Carrier>, ReferenceError> {
    build_carriers(
        "bundled data/reference/ocean-carriers.csv",
        BUNDLED_OCEAN_CARRIERS,
        "bundled data/reference/dcsa-carriers.csv",
        BUNDLED_DCSA_CARRIERS,
    )
}

/// Both indexes, built once per process from the embedded files ([`bundled_ports`],
/// [`bundled_carriers`]) and shared; later calls only read a [`OnceLock`].
///
/// # Panics
///
/// Only if the embedded reference files are broken, which this module's tests rule out.
pub fn bundled() -> &'static (PortIndex, CarrierIndex) {
    static BUNDLED: OnceLock<(PortIndex, CarrierIndex)> = OnceLock::new();
    BUNDLED.get_or_init(|| {
        let ports = bundled_ports().unwrap_or_else(|e| panic!("bundled port data is broken: {e}"));
        let carriers =
            bundled_carriers().unwrap_or_else(|e| panic!("bundled carrier data is broken: {e}"));
        (PortIndex::new(ports), CarrierIndex::new(carriers))
    })
}

// ---------------------------------------------------------------------------------------------
// Indexes
// ---------------------------------------------------------------------------------------------

/// Ports by UN/LOCODE.
#[derive(Debug, Clone, Default)]
pub struct PortIndex {
    /// Sorted by UN/LOCODE, one per UN/LOCODE.
    ports: Vec<Port>,
    by_locode: HashMap<UnLocode, usize>,
}

impl PortIndex {
    /// Indexes `ports` by [`Port::locode`]. When a UN/LOCODE occurs more than once, the first
    /// port wins and the others are dropped.
    pub fn new(mut ports: Vec<Port>) -> Self {
        ports.sort_by(|a, b| a.locode.cmp(&b.locode)); // stable: the first duplicate stays first
        ports.dedup_by(|later, earlier| later.locode == earlier.locode);
        let by_locode = ports
            .iter()
            .enumerate()
            .map(|(i, p)| (p.locode.clone(), i))
            .collect();
        PortIndex { ports, by_locode }
    }

    /// The port with this UN/LOCODE. Case and spaces are ignored, so `"NLRTM"`, `"nlrtm"` and
    /// `"NL RTM"` find the same port.
    pub fn get(&self, locode: &str) -> Option<&Port> {
        let i = match self.by_locode.get(locode) {
            Some(&i) => i,
            None => {
                let normalized: String = locode
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .map(|c| c.to_ascii_uppercase())
                    .collect();
                *self.by_locode.get(normalized.as_str())?
            }
        };
        Some(&self.ports[i])
    }

    /// Number of ports.
    pub fn len(&self) -> usize {
        self.ports.len()
    }

    /// Whether there are no ports.
    pub fn is_empty(&self) -> bool {
        self.ports.is_empty()
    }

    /// All ports, sorted by UN/LOCODE.
    pub fn iter(&self) -> impl Iterator<Item = &Port> {
        self.ports.iter()
    }
}

/// Carriers by SCAC, alternative SCAC and bill-of-lading prefix.
#[derive(Debug, Clone, Default)]
pub struct CarrierIndex {
    /// In input order, one per SCAC.
    carriers: Vec<Carrier>,
    by_code: HashMap<String, usize>,
}

impl CarrierIndex {
    /// Indexes `carriers`. A code resolves, in this order of precedence, to the carrier whose
    /// SCAC it is, then to the carrier listing it as an alternative SCAC, then to the carrier
    /// using it as bill-of-lading prefix; within one kind the first carrier wins. A carrier
    /// whose SCAC repeats an earlier carrier's SCAC is dropped.
    pub fn new(carriers: Vec<Carrier>) -> Self {
        let mut kept: Vec<Carrier> = Vec::with_capacity(carriers.len());
        let mut by_code: HashMap<String, usize> = HashMap::new();
        for carrier in carriers {
            let scac = carrier.scac.trim().to_ascii_uppercase();
            if by_code.contains_key(&scac) {
                tracing::debug!(scac, "duplicate carrier SCAC dropped");
                continue;
            }
            by_code.insert(scac, kept.len());
            kept.push(carrier);
        }
        for (i, carrier) in kept.iter().enumerate() {
            for alt in &carrier.alternative_scacs {
                by_code.entry(alt.trim().to_ascii_uppercase()).or_insert(i);
            }
        }
        for (i, carrier) in kept.iter().enumerate() {
            if let Some(prefix) = &carrier.bill_of_lading_prefix {
                by_code
                    .entry(prefix.trim().to_ascii_uppercase())
                    .or_insert(i);
            }
        }
        CarrierIndex {
            carriers: kept,
            by_code,
        }
    }

    /// The carrier with this SCAC, alternative SCAC or bill-of-lading prefix (e.g. `MEDU` → the
    /// MSC record, SCAC `MSCU`). Case and surrounding spaces are ignored.
    pub fn get(&self, code: &str) -> Option<&Carrier> {
        let i = match self.by_code.get(code) {
            Some(&i) => i,
            None => *self.by_code.get(&code.trim().to_ascii_uppercase())?,
        };
        Some(&self.carriers[i])
    }

    /// Number of carriers.
    pub fn len(&self) -> usize {
        self.carriers.len()
    }

    /// Whether there are no carriers.
    pub fn is_empty(&self) -> bool {
        self.carriers.is_empty()
    }

    /// All carriers, in input order.
    pub fn iter(&self) -> impl Iterator<Item = &Carrier> {
        self.carriers.iter()
    }
}

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
//! well-formed UN/LOCODE, such as the searoute feature with `port` = `"EG"`, are skipped).
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
//!   used. This repairs `ANGSB`, `ARDDC`, `CLJRL`, `CLPGO`, `CLPPD`, `ISESK`, `TNJAR`, `VCCRP`
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

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

use crate::model::{Carrier, Port};

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

/// A coordinate candidate is plausible when another port of the same country lies this close.
const PLAUSIBLE_KM: f64 = 1_000.0;
/// A repaired coordinate (negated or swapped) must lie this close to another port of the country.
const REPAIRED_KM: f64 = 150.0;
/// Radii (degrees) probed around a point that tzf places at sea.
const PROBE_RADII_DEG: [f64; 6] = [0.02, 0.05, 0.1, 0.2, 0.35, 0.5];
/// Directions probed at each radius: N, NE, E, SE, S, SW, W, NW.
const PROBE_DIRECTIONS: [(f64, f64); 8] = [
    (0.0, 1.0),
    (1.0, 1.0),
    (1.0, 0.0),
    (1.0, -1.0),
    (0.0, -1.0),
    (-1.0, -1.0),
    (-1.0, 0.0),
    (-1.0, 1.0),
];

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
    by_locode: HashMap<String, usize>,
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
                *self.by_locode.get(&normalized)?
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

// ---------------------------------------------------------------------------------------------
// Ports: parsing
// ---------------------------------------------------------------------------------------------

/// A longitude/latitude pair in degrees, as read (not necessarily in range).
#[derive(Debug, Clone, Copy, PartialEq)]
struct LonLat {
    lon: f64,
    lat: f64,
}

impl LonLat {
    fn in_range(self) -> bool {
        (-180.0..=180.0).contains(&self.lon) && (-90.0..=90.0).contains(&self.lat)
    }

    /// Great-circle distance in km (haversine, mean Earth radius).
    fn km_to(self, other: LonLat) -> f64 {
        let (la1, la2) = (self.lat.to_radians(), other.lat.to_radians());
        let dla = la2 - la1;
        let dlo = (other.lon - self.lon).to_radians();
        let h = (dla / 2.0).sin().powi(2) + la1.cos() * la2.cos() * (dlo / 2.0).sin().powi(2);
        2.0 * 6_371.0 * h.sqrt().min(1.0).asin()
    }
}

/// Postal abbreviations of US states, districts and territories (USPS) and of Canadian
/// provinces and territories (Canada Post), by the names the bundled port list uses.
const STATE_ABBREVIATIONS: [(&str, &str, &str); 69] = [
    ("US", "Alabama", "AL"),
    ("US", "Alaska", "AK"),
    ("US", "Arizona", "AZ"),
    ("US", "Arkansas", "AR"),
    ("US", "California", "CA"),
    ("US", "Colorado", "CO"),
    ("US", "Connecticut", "CT"),
    ("US", "Delaware", "DE"),
    ("US", "District of Columbia", "DC"),
    ("US", "Florida", "FL"),
    ("US", "Georgia", "GA"),
    ("US", "Hawaii", "HI"),
    ("US", "Idaho", "ID"),
    ("US", "Illinois", "IL"),
    ("US", "Indiana", "IN"),
    ("US", "Iowa", "IA"),
    ("US", "Kansas", "KS"),
    ("US", "Kentucky", "KY"),
    ("US", "Louisiana", "LA"),
    ("US", "Maine", "ME"),
    ("US", "Maryland", "MD"),
    ("US", "Massachusetts", "MA"),
    ("US", "Michigan", "MI"),
    ("US", "Minnesota", "MN"),
    ("US", "Mississippi", "MS"),
    ("US", "Missouri", "MO"),
    ("US", "Montana", "MT"),
    ("US", "Nebraska", "NE"),
    ("US", "Nevada", "NV"),
    ("US", "New Hampshire", "NH"),
    ("US", "New Jersey", "NJ"),
    ("US", "New Mexico", "NM"),
    ("US", "New York", "NY"),
    ("US", "North Carolina", "NC"),
    ("US", "North Dakota", "ND"),
    ("US", "Ohio", "OH"),
    ("US", "Oklahoma", "OK"),
    ("US", "Oregon", "OR"),
    ("US", "Pennsylvania", "PA"),
    ("US", "Rhode Island", "RI"),
    ("US", "South Carolina", "SC"),
    ("US", "South Dakota", "SD"),
    ("US", "Tennessee", "TN"),
    ("US", "Texas", "TX"),
    ("US", "Utah", "UT"),
    ("US", "Vermont", "VT"),
    ("US", "Virginia", "VA"),
    ("US", "Washington", "WA"),
    ("US", "West Virginia", "WV"),
    ("US", "Wisconsin", "WI"),
    ("US", "Wyoming", "WY"),
    ("US", "Puerto Rico", "PR"),
    ("US", "Guam", "GU"),
    ("US", "American Samoa", "AS"),
    ("US", "Northern Mariana Islands", "MP"),
    ("US", "U.S. Virgin Islands", "VI"),
    ("CA", "Alberta", "AB"),
    ("CA", "British Columbia", "BC"),
    ("CA", "Manitoba", "MB"),
    ("CA", "New Brunswick", "NB"),
    ("CA", "Newfoundland and Labrador", "NL"),
    ("CA", "Nova Scotia", "NS"),
    ("CA", "Ontario", "ON"),
    ("CA", "Prince Edward Island", "PE"),
    ("CA", "Quebec", "QC"),
    ("CA", "Saskatchewan", "SK"),
    ("CA", "Northwest Territories", "NT"),
    ("CA", "Nunavut", "NU"),
    ("CA", "Yukon", "YT"),
];

/// The postal abbreviation of `state` in `country` (ISO 3166-1 alpha-2), for the US and Canada
/// ([`STATE_ABBREVIATIONS`]); names compare without case, accents (`Québec`) or a leading
/// "State of"; `None` elsewhere.
fn state_abbreviation(country: &str, state: &str) -> Option<&'static str> {
    let fold = |s: &str| -> String {
        s.trim()
            .trim_start_matches("State of ")
            .chars()
            .map(|c| match c {
                'é' | 'è' | 'É' => 'e',
                c => c.to_ascii_lowercase(),
            })
            .collect()
    };
    let wanted = fold(state);
    STATE_ABBREVIATIONS
        .iter()
        .find(|(c, name, _)| *c == country && fold(name) == wanted)
        .map(|(_, _, abbr)| *abbr)
}

struct SeaPortEntry {
    locode: String,
    name: String,
    country: Option<String>,
    /// `province`: the state or province.
    province: Option<String>,
    point: Option<LonLat>,
    /// The `timezone` value when it parses as an IANA name.
    zone: Option<String>,
}

struct SearouteEntry {
    locode: String,
    name: Option<String>,
    country: Option<String>,
    point: Option<LonLat>,
}

/// Whether `s` is a well-formed UN/LOCODE: two letters (country) and three letters or digits.
fn is_locode(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 5
        && b[..2].iter().all(u8::is_ascii_uppercase)
        && b[2..]
            .iter()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
}

fn is_valid_zone(name: &str) -> bool {
    name.parse::<chrono_tz::Tz>().is_ok()
}

/// An optional string field: missing or `null` → `None`; blank → `None`; other types → error.
fn opt_str(
    obj: &serde_json::Map<String, Value>,
    field: &str,
    file: &str,
    at: &dyn fmt::Display,
) -> Result<Option<String>, ReferenceError> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => {
            let s = s.trim();
            Ok((!s.is_empty()).then(|| s.to_owned()))
        }
        Some(other) => Err(invalid(
            file,
            at,
            field,
            format!("expected a string, found {}", json_kind(other)),
        )),
    }
}

/// Optional `[longitude, latitude]`: missing, `null` or `[]` → `None`; otherwise two finite
/// numbers.
fn opt_lon_lat(
    value: Option<&Value>,
    file: &str,
    at: &dyn fmt::Display,
    field: &str,
) -> Result<Option<LonLat>, ReferenceError> {
    let items = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(items)) if items.is_empty() => return Ok(None),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(invalid(
                file,
                at,
                field,
                format!("expected [longitude, latitude], found {}", json_kind(other)),
            ))
        }
    };
    match (
        items.len(),
        items.first().and_then(Value::as_f64),
        items.get(1).and_then(Value::as_f64),
    ) {
        (2, Some(lon), Some(lat)) if lon.is_finite() && lat.is_finite() => {
            Ok(Some(LonLat { lon, lat }))
        }
        _ => Err(invalid(
            file,
            at,
            field,
            format!("expected [longitude, latitude] as two numbers, found {value:?}"),
        )),
    }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

struct KeyAt<'a>(&'a str);

impl fmt::Display for KeyAt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "key {:?}", self.0)
    }
}

fn parse_sea_ports(file: &str, text: &str) -> Result<Vec<SeaPortEntry>, ReferenceError> {
    let root: Value = serde_json::from_str(text).map_err(|source| ReferenceError::Json {
        file: file.to_owned(),
        source,
    })?;
    let Value::Object(root) = root else {
        return Err(invalid(
            file,
            "top level",
            "(root)",
            "expected an object keyed by UN/LOCODE",
        ));
    };
    let mut entries = Vec::with_capacity(root.len());
    for (key, value) in &root {
        let at = KeyAt(key);
        let Value::Object(obj) = value else {
            return Err(invalid(
                file,
                &at,
                "(entry)",
                format!("expected an object, found {}", json_kind(value)),
            ));
        };
        let locode = key.trim();
        if !is_locode(locode) {
            tracing::debug!(file, key, "skipping entry: key is not a UN/LOCODE");
            continue;
        }
        let name = opt_str(obj, "name", file, &at)?
            .ok_or_else(|| invalid(file, &at, "name", "missing or empty"))?;
        let country = opt_str(obj, "country", file, &at)?;
        let province = opt_str(obj, "province", file, &at)?;
        let point = opt_lon_lat(obj.get("coordinates"), file, &at, "coordinates")?;
        let zone = match opt_str(obj, "timezone", file, &at)? {
            Some(zone) if is_valid_zone(&zone) => Some(zone),
            Some(zone) => {
                tracing::debug!(file, key, zone, "time zone is not an IANA name; ignored");
                None
            }
            None => None,
        };
        entries.push(SeaPortEntry {
            province,
            locode: locode.to_owned(),
            name,
            country,
            point,
            zone,
        });
    }
    Ok(entries)
}

struct FeatureAt<'a>(usize, Option<&'a str>);

impl fmt::Display for FeatureAt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1 {
            Some(port) => write!(f, "feature {} (port {port:?})", self.0),
            None => write!(f, "feature {}", self.0),
        }
    }
}

fn parse_searoute(file: &str, text: &str) -> Result<Vec<SearouteEntry>, ReferenceError> {
    let root: Value = serde_json::from_str(text).map_err(|source| ReferenceError::Json {
        file: file.to_owned(),
        source,
    })?;
    let features = root
        .get("features")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            invalid(
                file,
                "top level",
                "features",
                "expected a GeoJSON FeatureCollection with a `features` array",
            )
        })?;
    let mut entries = Vec::with_capacity(features.len());
    for (n, feature) in features.iter().enumerate() {
        let props = feature
            .get("properties")
            .and_then(Value::as_object)
            .ok_or_else(|| {
                invalid(
                    file,
                    FeatureAt(n, None),
                    "properties",
                    "missing or not an object",
                )
            })?;
        let locode = match props.get("port") {
            Some(Value::String(s)) => s.trim(),
            _ => {
                return Err(invalid(
                    file,
                    FeatureAt(n, None),
                    "properties.port",
                    "missing or not a string",
                ))
            }
        };
        let at = FeatureAt(n, Some(locode));
        if !is_locode(locode) {
            tracing::debug!(
                file,
                feature = n,
                locode,
                "skipping feature: not a UN/LOCODE"
            );
            continue;
        }
        let name = opt_str(props, "name", file, &at)?;
        let country = opt_str(props, "cty", file, &at)?.map(|c| c.replace('_', " "));
        let point = match feature.get("geometry") {
            None | Some(Value::Null) => None,
            Some(geometry) => {
                match geometry.get("type").and_then(Value::as_str) {
                    Some("Point") => {}
                    other => {
                        return Err(invalid(
                            file,
                            &at,
                            "geometry.type",
                            format!("expected \"Point\", found {other:?}"),
                        ))
                    }
                }
                opt_lon_lat(
                    geometry.get("coordinates"),
                    file,
                    &at,
                    "geometry.coordinates",
                )?
            }
        };
        entries.push(SearouteEntry {
            locode: locode.to_owned(),
            name,
            country,
            point,
        });
    }
    Ok(entries)
}

// ---------------------------------------------------------------------------------------------
// Ports: merging, coordinates, time zones
// ---------------------------------------------------------------------------------------------

/// Where a port's time zone came from (for the tests' report).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ZoneSource {
    SeaPorts,
    Coordinates,
    Country,
    Missing,
}

/// Counts from one merge, for the tests.
#[derive(Debug, Default)]
struct PortReport {
    /// UN/LOCODE → where its time zone came from.
    zone_source: BTreeMap<String, ZoneSource>,
    /// Ports whose coordinates were repaired (negated or swapped) or taken from sea-ports
    /// because searoute's point failed the country check.
    repaired: Vec<String>,
    /// Ports whose coordinates failed the country check and were kept as they are.
    implausible: Vec<String>,
    /// (UN/LOCODE, sea-ports zone, zone used instead) where sea-ports' zone was contradicted by
    /// the coordinates.
    zone_replaced: Vec<(String, String, String)>,
}

#[derive(Default)]
struct Draft {
    sea: Option<SeaPortEntry>,
    routes: Vec<SearouteEntry>,
}

/// The tzf-rs finder, built on first use and shared by every load in the process.
fn tz_finder() -> &'static tzf_rs::DefaultFinder {
    static FINDER: OnceLock<tzf_rs::DefaultFinder> = OnceLock::new();
    FINDER.get_or_init(tzf_rs::DefaultFinder::new)
}

/// Whether two IANA zones keep the same clock: equal UTC offsets in mid-January and mid-July
/// 2025 (so `Asia/Calcutta` and `Asia/Kolkata` agree, `Asia/Bangkok` and `Asia/Tehran` do not).
fn same_clock(a: &str, b: &str) -> bool {
    use chrono::{Offset, TimeZone};
    if a == b {
        return true;
    }
    let (Ok(a), Ok(b)) = (a.parse::<chrono_tz::Tz>(), b.parse::<chrono_tz::Tz>()) else {
        return false;
    };
    [(2025, 1, 15), (2025, 7, 15)].into_iter().all(|(y, m, d)| {
        let Some(at) =
            chrono::NaiveDate::from_ymd_opt(y, m, d).and_then(|d| d.and_hms_opt(12, 0, 0))
        else {
            return false;
        };
        a.offset_from_utc_datetime(&at).fix() == b.offset_from_utc_datetime(&at).fix()
    })
}

fn is_land_zone(name: &str) -> bool {
    !name.is_empty() && !name.starts_with("Etc/") && is_valid_zone(name)
}

/// The IANA time zone at `p` (see the module documentation), or `None`.
fn zone_at(p: LonLat) -> Option<String> {
    let finder = tz_finder();
    let here = finder.get_tz_name(p.lon, p.lat);
    if is_land_zone(here) {
        return Some(here.to_owned());
    }
    for radius in PROBE_RADII_DEG {
        for (dx, dy) in PROBE_DIRECTIONS {
            let lat = (p.lat + dy * radius).clamp(-90.0, 90.0);
            let mut lon = p.lon + dx * radius;
            if lon > 180.0 {
                lon -= 360.0;
            } else if lon < -180.0 {
                lon += 360.0;
            }
            let name = finder.get_tz_name(lon, lat);
            if is_land_zone(name) {
                return Some(name.to_owned());
            }
        }
    }
    (!here.is_empty() && is_valid_zone(here)).then(|| here.to_owned())
}

/// Whether another port of the same country (per `refs`, excluding `me`) lies within `km` of
/// `p`; `None` when the country has no other port with coordinates.
fn near_other_port(refs: &[(usize, LonLat)], me: usize, p: LonLat, km: f64) -> Option<bool> {
    let mut any = false;
    for &(id, q) in refs {
        if id == me {
            continue;
        }
        any = true;
        if p.km_to(q) <= km {
            return Some(true);
        }
    }
    any.then_some(false)
}

fn build_ports(
    sea_file: &str,
    sea_text: &str,
    route_file: &str,
    route_text: &str,
) -> Result<(Vec<Port>, PortReport), ReferenceError> {
    let sea = parse_sea_ports(sea_file, sea_text)?;
    let routes = parse_searoute(route_file, route_text)?;

    let mut drafts: BTreeMap<String, Draft> = BTreeMap::new();
    for entry in sea {
        let key = entry.locode.clone();
        drafts.entry(key).or_default().sea = Some(entry);
    }
    for entry in routes {
        drafts
            .entry(entry.locode.clone())
            .or_default()
            .routes
            .push(entry);
    }
    let drafts: Vec<(String, Draft)> = drafts.into_iter().collect();

    // Reference points per country: every in-range candidate point of every port.
    let mut refs: HashMap<&str, Vec<(usize, LonLat)>> = HashMap::new();
    for (id, (locode, draft)) in drafts.iter().enumerate() {
        let points = draft
            .sea
            .iter()
            .filter_map(|s| s.point)
            .chain(draft.routes.iter().filter_map(|r| r.point));
        for p in points.filter(|p| p.in_range()) {
            refs.entry(&locode[..2]).or_default().push((id, p));
        }
    }

    let mut report = PortReport::default();
    let mut ports: Vec<Port> = Vec::with_capacity(drafts.len());
    let mut sources: Vec<ZoneSource> = Vec::with_capacity(drafts.len());
    for (id, (locode, draft)) in drafts.iter().enumerate() {
        let sea_point = draft.sea.as_ref().and_then(|s| s.point);
        // The searoute feature to use: the one nearest sea-ports' point, else the first.
        let route = match sea_point.filter(|p| p.in_range()) {
            Some(sp) => draft
                .routes
                .iter()
                .filter(|r| r.point.is_some_and(LonLat::in_range))
                .min_by(|a, b| {
                    let da = a.point.map_or(f64::MAX, |p| p.km_to(sp));
                    let db = b.point.map_or(f64::MAX, |p| p.km_to(sp));
                    da.total_cmp(&db)
                })
                .or(draft.routes.first()),
            None => draft.routes.first(),
        };

        let country_refs = refs.get(&locode[..2]).map_or(&[][..], Vec::as_slice);
        let candidates: Vec<LonLat> = route
            .and_then(|r| r.point)
            .into_iter()
            .chain(sea_point)
            .collect();
        let plausible = |p: LonLat, km: f64| {
            p.in_range()
                && near_other_port(country_refs, id, p, km).unwrap_or(true)
                && zone_at(p).is_some_and(|zone| is_land_zone(&zone))
        };
        let mut point = candidates
            .iter()
            .copied()
            .find(|&p| plausible(p, PLAUSIBLE_KM));
        if point.is_none() {
            point = candidates
                .iter()
                .flat_map(|&LonLat { lon, lat }| {
                    [
                        LonLat { lon: -lon, lat },
                        LonLat { lon: lat, lat: lon },
                        LonLat { lon, lat: -lat },
                    ]
                })
                .find(|&p| plausible(p, REPAIRED_KM));
            match point {
                Some(_) => report.repaired.push(locode.clone()),
                None if !candidates.is_empty() => {
                    report.implausible.push(locode.clone());
                    point = candidates.iter().copied().find(|p| p.in_range());
                }
                None => {}
            }
        } else if point != candidates.first().copied() {
            report.repaired.push(locode.clone());
        }

        let sea_zone = draft.sea.as_ref().and_then(|s| s.zone.clone());
        let here = point.and_then(zone_at);
        let (time_zone, source) = match (sea_zone, here) {
            (Some(zone), Some(here)) if is_land_zone(&here) && !same_clock(&zone, &here) => {
                // sea-ports' zone keeps a different clock from the one at the port's point. Ask
                // sea-ports' own point too: when it agrees with the zone, the point is the
                // suspect (e.g. USSTP); when it does not, the zone is wrong (THBKK).
                let own = sea_point.filter(|p| p.in_range()).and_then(zone_at);
                if own.is_some_and(|own| same_clock(&zone, &own)) {
                    (Some(zone), ZoneSource::SeaPorts)
                } else {
                    report
                        .zone_replaced
                        .push((locode.clone(), zone, here.clone()));
                    (Some(here), ZoneSource::Coordinates)
                }
            }
            (Some(zone), _) => (Some(zone), ZoneSource::SeaPorts),
            (None, Some(here)) => (Some(here), ZoneSource::Coordinates),
            (None, None) => (None, ZoneSource::Missing),
        };

        let name = draft
            .sea
            .as_ref()
            .map(|s| s.name.clone())
            .or_else(|| route.and_then(|r| r.name.clone()))
            .or_else(|| draft.routes.iter().find_map(|r| r.name.clone()))
            .unwrap_or_else(|| locode.clone());
        let country = draft
            .sea
            .as_ref()
            .and_then(|s| s.country.clone())
            .or_else(|| draft.routes.iter().find_map(|r| r.country.clone()));

        let state = draft.sea.as_ref().and_then(|s| s.province.clone());
        let state_abbr = state
            .as_deref()
            .and_then(|st| state_abbreviation(&locode[..2], st))
            .map(str::to_owned);
        ports.push(Port {
            locode: locode.clone(),
            name,
            country_code: locode[..2].to_owned(),
            country,
            latitude: point.map(|p| p.lat),
            longitude: point.map(|p| p.lon),
            time_zone,
            state,
            state_abbr,
        });
        sources.push(source);
    }

    // Ports without a zone (and without coordinates): the zone of at least 90% of the other
    // ports of the country that have a land zone.
    let mut country_zones: HashMap<&str, HashMap<&str, usize>> = HashMap::new();
    for port in &ports {
        if let Some(zone) = port.time_zone.as_deref().filter(|z| !z.starts_with("Etc/")) {
            *country_zones
                .entry(&port.country_code)
                .or_default()
                .entry(zone)
                .or_default() += 1;
        }
    }
    let dominant = |country: &str| -> Option<String> {
        let zones = country_zones.get(country)?;
        let total: usize = zones.values().sum();
        let (zone, count) = zones
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))?;
        (*count * 10 >= total * 9).then(|| (*zone).to_owned())
    };
    let fills: Vec<(usize, String)> = ports
        .iter()
        .enumerate()
        .filter(|(_, p)| p.time_zone.is_none() && p.latitude.is_none())
        .filter_map(|(i, p)| Some((i, dominant(&p.country_code)?)))
        .collect();
    for (i, zone) in fills {
        ports[i].time_zone = Some(zone);
        sources[i] = ZoneSource::Country;
    }

    for (port, source) in ports.iter().zip(sources) {
        report.zone_source.insert(port.locode.clone(), source);
    }
    if !report.implausible.is_empty() {
        tracing::debug!(
            ports = ?report.implausible,
            "coordinates far from every other port of their country, kept as they are"
        );
    }
    Ok((ports, report))
}

// ---------------------------------------------------------------------------------------------
// Carriers
// ---------------------------------------------------------------------------------------------

/// Whether `s` looks like a SCAC: 2–4 ASCII letters or digits, at least one a letter. NMFTA
/// gives some foreign carriers codes that start with digits (Pan Continental `15AC`, Heung-A
/// `11QU`).
fn is_scac(s: &str) -> bool {
    (2..=4).contains(&s.len())
        && s.bytes().all(|c| c.is_ascii_alphanumeric())
        && s.bytes().any(|c| c.is_ascii_alphabetic())
}

/// One element of a [`NumberShape`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum ShapePart {
    /// This exact upper-case text.
    Literal(String),
    /// This many ASCII digits.
    Digits(usize),
    /// This many ASCII upper-case letters.
    Letters(usize),
    /// This many ASCII upper-case letters or digits.
    Either(usize),
}

/// The shape of a carrier's bare numbers (`ocean-carriers.csv` column `number_shapes`): upper-case
/// letters stand for themselves, `<n>d` for n digits, `<n>a` for n letters, `<n>x` for n letters
/// or digits. `9d` is Maersk's nine-digit numbers, `EBKG8d` MSC's bookings, `3a7d` three letters
/// and seven digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumberShape(Vec<ShapePart>);

impl NumberShape {
    /// Parses a pattern; `None` when it is empty or not of the grammar above.
    pub fn parse(pattern: &str) -> Option<NumberShape> {
        let mut parts = Vec::new();
        let mut count = 0usize;
        for c in pattern.chars() {
            match c {
                '0'..='9' => {
                    count = count
                        .checked_mul(10)?
                        .checked_add(c as usize - '0' as usize)?
                }
                'd' | 'a' | 'x' if count > 0 => {
                    parts.push(match c {
                        'd' => ShapePart::Digits(count),
                        'a' => ShapePart::Letters(count),
                        _ => ShapePart::Either(count),
                    });
                    count = 0;
                }
                'A'..='Z' if count == 0 => match parts.last_mut() {
                    Some(ShapePart::Literal(l)) => l.push(c),
                    _ => parts.push(ShapePart::Literal(c.to_string())),
                },
                _ => return None,
            }
        }
        (count == 0 && !parts.is_empty()).then_some(NumberShape(parts))
    }

    /// How specific the shape is: the number of literal characters (`EBKG8d` is 4, `9d` 0).
    /// Where shapes of several lines match, only the most specific count.
    pub fn specificity(&self) -> usize {
        self.0
            .iter()
            .map(|p| match p {
                ShapePart::Literal(l) => l.len(),
                _ => 0,
            })
            .sum()
    }

    /// Whether the normalized number `s` (upper case, letters and digits) has this shape.
    pub fn matches(&self, s: &str) -> bool {
        let mut rest = s.as_bytes();
        for part in &self.0 {
            let (n, ok): (usize, fn(&u8) -> bool) = match part {
                ShapePart::Literal(l) => {
                    let Some(tail) = rest.strip_prefix(l.as_bytes()) else {
                        return false;
                    };
                    rest = tail;
                    continue;
                }
                ShapePart::Digits(n) => (*n, u8::is_ascii_digit),
                ShapePart::Letters(n) => (*n, u8::is_ascii_uppercase),
                ShapePart::Either(n) => (*n, |b: &u8| b.is_ascii_digit() || b.is_ascii_uppercase()),
            };
            if rest.len() < n || !rest[..n].iter().all(ok) {
                return false;
            }
            rest = &rest[n..];
        }
        rest.is_empty()
    }
}

fn csv_reader(text: &str) -> csv::Reader<&[u8]> {
    csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes())
}

/// Column positions of `names` in the header, or an error naming the missing column.
fn columns<const N: usize>(
    file: &str,
    reader: &mut csv::Reader<&[u8]>,
    names: [&str; N],
) -> Result<[usize; N], ReferenceError> {
    let headers = reader.headers().map_err(|source| ReferenceError::Csv {
        file: file.to_owned(),
        row: 1,
        source,
    })?;
    let mut out = [0; N];
    for (slot, name) in out.iter_mut().zip(names) {
        *slot = headers
            .iter()
            .position(|h| h.trim_start_matches('\u{feff}').eq_ignore_ascii_case(name))
            .ok_or_else(|| invalid(file, "header", name, "column missing"))?;
    }
    Ok(out)
}

fn build_carriers(
    ocean_file: &str,
    ocean_text: &str,
    dcsa_file: &str,
    dcsa_text: &str,
) -> Result<Vec<Carrier>, ReferenceError> {
    let mut carriers: Vec<Carrier> = Vec::new();

    let mut reader = csv_reader(ocean_text);
    let [c_scac, c_name, c_legal, c_alt, c_prefix] = columns(
        ocean_file,
        &mut reader,
        [
            "scac",
            "name",
            "legal_name",
            "alternative_scacs",
            "bill_of_lading_prefix",
        ],
    )?;
    // Optional: files written before the column existed still load.
    let c_shapes = reader.headers().ok().and_then(|h| {
        h.iter()
            .position(|h| h.eq_ignore_ascii_case("number_shapes"))
    });
    for (n, record) in reader.records().enumerate() {
        let row = n as u64 + 2;
        let record = record.map_err(|source| ReferenceError::Csv {
            file: ocean_file.to_owned(),
            row,
            source,
        })?;
        let at = format!("row {row}");
        let field = |i: usize| record.get(i).unwrap_or("");
        let mut number_shapes = Vec::new();
        for shape in c_shapes.map(field).unwrap_or("").split_whitespace() {
            if NumberShape::parse(shape).is_none() {
                return Err(invalid(
                    ocean_file,
                    &at,
                    "number_shapes",
                    format!("{shape:?} is not a number shape (e.g. 9d, EBKG8d, 3a7d)"),
                ));
            }
            number_shapes.push(shape.to_string());
        }
        let scac = field(c_scac).to_ascii_uppercase();
        if !is_scac(&scac) {
            return Err(invalid(
                ocean_file,
                &at,
                "scac",
                format!("{scac:?} is not a SCAC (2-4 letters or digits)"),
            ));
        }
        let short_name = field(c_name).to_owned();
        if short_name.is_empty() {
            return Err(invalid(ocean_file, &at, "name", "empty"));
        }
        let legal = field(c_legal);
        let name = if legal.is_empty() {
            short_name.clone()
        } else {
            legal.to_owned()
        };
        let mut alternative_scacs = Vec::new();
        for alt in field(c_alt)
            .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '|'))
            .filter(|s| !s.is_empty())
        {
            let alt = alt.to_ascii_uppercase();
            if !is_scac(&alt) {
                return Err(invalid(
                    ocean_file,
                    &at,
                    "alternative_scacs",
                    format!("{alt:?} is not a SCAC (2-4 letters or digits)"),
                ));
            }
            alternative_scacs.push(alt);
        }
        let prefix = field(c_prefix).to_ascii_uppercase();
        let bill_of_lading_prefix = if prefix.is_empty() {
            None
        } else if (2..=8).contains(&prefix.len())
            && prefix.bytes().all(|c| c.is_ascii_alphanumeric())
        {
            Some(prefix)
        } else {
            return Err(invalid(
                ocean_file,
                &at,
                "bill_of_lading_prefix",
                format!("{prefix:?} is not 2-8 letters or digits"),
            ));
        };
        carriers.push(Carrier {
            scac,
            short_name,
            name,
            alternative_scacs,
            bill_of_lading_prefix,
            number_shapes,
        });
    }

    let mut reader = csv_reader(dcsa_text);
    let [d_name, d_nmfta] = columns(dcsa_file, &mut reader, ["Carrier Name", "NMFTA Code"])?;
    for (n, record) in reader.records().enumerate() {
        let row = n as u64 + 2;
        let record = record.map_err(|source| ReferenceError::Csv {
            file: dcsa_file.to_owned(),
            row,
            source,
        })?;
        let at = format!("row {row}");
        let scac = record.get(d_nmfta).unwrap_or("").to_ascii_uppercase();
        if scac.is_empty() {
            tracing::debug!(file = dcsa_file, row, "carrier without NMFTA code skipped");
            continue;
        }
        if !is_scac(&scac) {
            return Err(invalid(
                dcsa_file,
                &at,
                "NMFTA Code",
                format!("{scac:?} is not a SCAC (2-4 letters or digits)"),
            ));
        }
        let known = carriers
            .iter()
            .any(|c| c.scac == scac || c.alternative_scacs.contains(&scac));
        if known {
            continue;
        }
        let name = record.get(d_name).unwrap_or("").to_owned();
        if name.is_empty() {
            return Err(invalid(dcsa_file, &at, "Carrier Name", "empty"));
        }
        carriers.push(Carrier {
            scac,
            short_name: name.clone(),
            name,
            alternative_scacs: Vec::new(),
            bill_of_lading_prefix: None,
            number_shapes: Vec::new(),
        });
    }
    Ok(carriers)
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {

    #[test]
    fn number_shapes_match_what_they_say() {
        let shape = |p: &str| NumberShape::parse(p).unwrap();
        assert!(shape("9d").matches("914595688"));
        assert!(!shape("9d").matches("91459568"));
        assert!(!shape("9d").matches("91459568A"));
        assert!(shape("EBKG8d").matches("EBKG10391083"));
        assert!(!shape("EBKG8d").matches("EBKX10391083"));
        assert!(shape("2a8d").matches("ID00784886"));
        assert!(shape("3a7d").matches("JKT4165031"));
        assert!(shape("12x").matches("A1B2C3D4E5F6"));
        for bad in [
            "",
            "9",
            "d",
            "9q",
            "ebkg8d",
            "EBKG8",
            "99999999999999999999999d",
        ] {
            assert_eq!(NumberShape::parse(bad), None, "{bad:?}");
        }
        // Every bundled shape parses, and SCACs with digits load.
        let (_, carriers) = bundled();
        assert!(carriers.get("15AC").is_some());
        assert!(carriers.iter().flat_map(|c| &c.number_shapes).count() >= 10);
    }

    use super::*;
    use std::time::Instant;

    fn bundled_report() -> (Vec<Port>, PortReport) {
        build_ports(
            "sea-ports.json",
            BUNDLED_SEA_PORTS,
            "searoute-ports.geojson",
            BUNDLED_SEAROUTE_PORTS,
        )
        .expect("bundled port files load")
    }

    fn port<'a>(index: &'a PortIndex, locode: &str) -> &'a Port {
        index
            .get(locode)
            .unwrap_or_else(|| panic!("{locode} missing"))
    }

    #[test]
    fn bundled_builds_once_and_is_fast() {
        let start = Instant::now();
        let first = bundled();
        let first_call = start.elapsed();
        let start = Instant::now();
        let second = bundled();
        let second_call = start.elapsed();
        assert!(std::ptr::eq(first, second));
        // Measured separately: the finder and a full rebuild (finder already cached).
        let start = Instant::now();
        let _finder = tzf_rs::DefaultFinder::new();
        let finder_new = start.elapsed();
        let start = Instant::now();
        let ports = bundled_ports().unwrap();
        let carriers = bundled_carriers().unwrap();
        let rebuild = start.elapsed();
        eprintln!(
            "bundled(): first call {first_call:?}, second call {second_call:?}; \
             DefaultFinder::new() {finder_new:?}; bundled_ports()+bundled_carriers() with \
             the finder cached {rebuild:?} ({} ports, {} carriers)",
            ports.len(),
            carriers.len()
        );
        assert!(second_call.as_millis() < 5);
    }

    #[test]
    fn port_count_and_order() {
        let (ports, _) = bundled();
        assert!(ports.len() >= 3_962, "only {} ports", ports.len());
        let locodes: Vec<&str> = ports.iter().map(|p| p.locode.as_str()).collect();
        assert!(locodes.windows(2).all(|w| w[0] < w[1]), "not sorted/unique");
        assert!(ports
            .iter()
            .all(|p| is_locode(&p.locode) && p.country_code == p.locode[..2]));
        // Every port of both files is there (the searoute feature `EG` is not a UN/LOCODE).
        assert!(ports.get("EG").is_none());
        for locode in ["ALDRZ", "AEAJM", "USVN3", "BHAHD"] {
            port(ports, locode);
        }
        // Coordinates, when present, are in range.
        assert!(ports.iter().all(|p| {
            p.latitude.is_none_or(|lat| (-90.0..=90.0).contains(&lat))
                && p.longitude
                    .is_none_or(|lon| (-180.0..=180.0).contains(&lon))
        }));
    }

    #[test]
    fn known_ports() {
        let (ports, _) = bundled();
        let rtm = port(ports, "NLRTM");
        assert_eq!(rtm.name, "Rotterdam");
        assert_eq!(rtm.country_code, "NL");
        assert_eq!(rtm.country.as_deref(), Some("Netherlands"));
        assert_eq!(rtm.time_zone.as_deref(), Some("Europe/Amsterdam"));
        let (lon, lat) = (rtm.longitude.unwrap(), rtm.latitude.unwrap());
        assert!(
            (4.0..5.0).contains(&lon) && (51.8..52.0).contains(&lat),
            "{lon} {lat}"
        );

        let sin = port(ports, "SGSIN");
        assert_eq!(sin.time_zone.as_deref(), Some("Asia/Singapore"));
        assert!((sin.latitude.unwrap() - 1.27).abs() < 0.2);
        assert!((sin.longitude.unwrap() - 103.8).abs() < 0.3);

        let lax = port(ports, "USLAX");
        assert_eq!(lax.name, "Los Angeles");
        assert_eq!(lax.time_zone.as_deref(), Some("America/Los_Angeles"));
        assert!((lax.latitude.unwrap() - 33.7).abs() < 0.5);
        assert!((lax.longitude.unwrap() + 118.27).abs() < 0.5);

        // Lookups ignore case and the space of the printed form.
        assert_eq!(
            ports.get("nl rtm").map(|p| p.locode.as_str()),
            Some("NLRTM")
        );
        assert!(ports.get("XXXXX").is_none());
    }

    #[test]
    fn zones_from_coordinates_and_country() {
        let (ports, report) = bundled_report();
        let index = PortIndex::new(ports);
        let check = |locode: &str, zone: &str, source: ZoneSource| {
            let p = port(&index, locode);
            assert_eq!(p.time_zone.as_deref(), Some(zone), "{locode}");
            assert_eq!(report.zone_source[locode], source, "{locode}");
        };
        // sea-ports has no `timezone` (and no coordinates) for Fuzhou; searoute's point gives it.
        check("CNFOC", "Asia/Shanghai", ZoneSource::Coordinates);
        // sea-ports has no `timezone` for Veracruz.
        check("MXVER", "America/Mexico_City", ZoneSource::Coordinates);
        // sea-ports says "America/Argentina", which is not an IANA zone.
        assert!(!is_valid_zone("America/Argentina"));
        let ric = port(&index, "ARRIC");
        assert!(
            ric.time_zone
                .as_deref()
                .is_some_and(|z| z.starts_with("America/Argentina/")),
            "{ric:?}"
        );
        // Only in searoute: Sarande, Albania.
        check("ALSAR", "Europe/Tirane", ZoneSource::Coordinates);
        // sea-ports' pair for Eskifjordur is [lat, lon]; repaired, so the zone is Iceland's.
        let esk = port(&index, "ISESK");
        assert!((esk.latitude.unwrap() - 65.07).abs() < 0.01, "{esk:?}");
        assert!(esk.longitude.unwrap() < -13.0, "{esk:?}");
        check("ISESK", "Atlantic/Reykjavik", ZoneSource::Coordinates);
        // Jarjis (Tunisia): sea-ports' longitude has the wrong sign; Punta Chungo (Chile):
        // swapped; San Jose (Costa Rica): searoute's longitude has the wrong sign.
        assert!(port(&index, "TNJAR").longitude.unwrap() > 10.0);
        check("TNJAR", "Africa/Tunis", ZoneSource::Coordinates);
        assert!((port(&index, "CLPGO").longitude.unwrap() + 71.5).abs() < 0.1);
        check("CLPGO", "America/Santiago", ZoneSource::Coordinates);
        assert!(port(&index, "CRSJO").longitude.unwrap() < -80.0);
        for locode in [
            "ANGSB", "ARDDC", "CLJRL", "CLPGO", "CLPPD", "CRSJO", "ISESK", "TNJAR",
        ] {
            assert!(
                report.repaired.iter().any(|r| r == locode),
                "{locode} not repaired"
            );
        }
        // Al Hidd has neither a zone nor coordinates; Bahrain has a single zone. Shantou: China's
        // ports are nearly all Asia/Shanghai (a few border towns get a neighbour's zone).
        check("BHAHD", "Asia/Bahrain", ZoneSource::Country);
        check("CNSTG", "Asia/Shanghai", ZoneSource::Country);
        // sea-ports gives Bangkok "Asia/Tehran" and Manaus "Europe/Stockholm": both its own point
        // and searoute's say otherwise.
        check("THBKK", "Asia/Bangkok", ZoneSource::Coordinates);
        check("BRMAO", "America/Manaus", ZoneSource::Coordinates);
        // Saint Paul (Minnesota): searoute's point is St. Paul Island, Alaska, but sea-ports' own
        // point agrees with its zone, which is kept.
        check("USSTP", "America/Chicago", ZoneSource::SeaPorts);
        assert!(same_clock("Asia/Calcutta", "Asia/Kolkata"));
        assert!(!same_clock("Asia/Bangkok", "Asia/Tehran"));

        let ocean: Vec<&str> = index
            .iter()
            .filter(|p| {
                p.time_zone
                    .as_deref()
                    .is_some_and(|z| z.starts_with("Etc/"))
            })
            .map(|p| p.locode.as_str())
            .collect();
        eprintln!("ports with an ocean (Etc/) zone: {ocean:?}");
        let count = |s: ZoneSource| report.zone_source.values().filter(|&&v| v == s).count();
        eprintln!(
            "ports {}: zone from sea-ports {}, from coordinates (tzf) {}, from country {}, \
             none {}; coordinates repaired {:?}; implausible kept {:?}; sea-ports zones \
             replaced {:?}",
            index.len(),
            count(ZoneSource::SeaPorts),
            count(ZoneSource::Coordinates),
            count(ZoneSource::Country),
            count(ZoneSource::Missing),
            report.repaired,
            report.implausible,
            report.zone_replaced,
        );
    }

    #[test]
    fn every_zone_is_iana() {
        let (ports, _) = bundled();
        let bad: Vec<(&str, &str)> = ports
            .iter()
            .filter_map(|p| Some((p.locode.as_str(), p.time_zone.as_deref()?)))
            .filter(|(_, z)| !is_valid_zone(z))
            .collect();
        assert!(bad.is_empty(), "invalid zones: {bad:?}");
        let missing: Vec<&str> = ports
            .iter()
            .filter(|p| p.time_zone.is_none())
            .map(|p| p.locode.as_str())
            .collect();
        // Neither file gives these a usable zone or coordinates, and no single zone covers 90%
        // of the other ports of their country.
        assert_eq!(
            missing,
            ["ESEBO", "USCBF", "USCPF", "USGBO", "USGSP", "USJOT", "USRNO", "USSXT"],
            "ports without a time zone"
        );
    }

    #[test]
    fn carriers() {
        // Every data row of the bundled file is loaded, none twice.
        let rows = BUNDLED_OCEAN_CARRIERS
            .lines()
            .skip(1)
            .filter(|l| !l.trim().is_empty())
            .count();
        assert!(rows > 100, "{rows}");
        let carriers = bundled_carriers().unwrap();
        assert_eq!(carriers.len(), rows);
        let (_, index) = bundled();
        assert_eq!(index.len(), rows);
        let msc = index.get("MEDU").expect("MEDU");
        assert_eq!(msc.scac, "MSCU");
        assert_eq!(msc.short_name, "MSC");
        assert_eq!(msc.name, "Mediterranean Shipping Company");
        assert_eq!(index.get("mscu").map(|c| c.scac.as_str()), Some("MSCU"));
        let maersk = index.get("MAEU").expect("MAEU");
        assert_eq!(maersk.short_name, "Maersk");
        assert_eq!(maersk.name, "Maersk");
        for (code, scac) in [
            ("CWLQ", "CLAM"),
            ("QWJA", "CHVW"),
            ("PLLU", "CHVW"),
            ("YMPR", "YMLU"),
            ("YMSG", "YMLU"),
            ("YMJA", "YMLU"),
            ("SEAL", "SEAU"),
            ("WWSU", "SSBF"),
            ("CCMJ", "COSU"),
            ("EISU", "EGLV"),
            ("ANLC", "ANNU"),
            ("PABV", "PCIU"),
        ] {
            assert_eq!(
                index.get(code).map(|c| c.scac.as_str()),
                Some(scac),
                "{code}"
            );
        }
        assert_eq!(
            index.get("YMLU").unwrap().alternative_scacs,
            ["YMPR", "YMSG", "YMJA"]
        );
        assert!(index.get("XXXX").is_none());
    }

    #[test]
    fn dcsa_carriers_fill_gaps_only() {
        let ocean = "scac,name,legal_name,alternative_scacs,bill_of_lading_prefix\n\
                     MSCU,MSC,Mediterranean Shipping Company,MEDU,MEDU\n";
        let dcsa = "Carrier Name,SMDG Code,NMFTA Code\n\
                    \"Mediterranean Shipping Company\",MSC,MSCU\n\
                    \"Maersk\",MSK,MAEU\n\
                    \"No code\",NOC,\n";
        let carriers = build_carriers("o.csv", ocean, "d.csv", dcsa).unwrap();
        assert_eq!(carriers.len(), 2);
        assert_eq!(carriers[1].scac, "MAEU");
        assert_eq!(carriers[1].short_name, "Maersk");
        assert_eq!(carriers[1].bill_of_lading_prefix, None);
    }

    #[test]
    fn errors_name_file_entry_and_field() {
        let geo = r#"{"features": []}"#;
        let err = build_ports("s.json", r#"{"NLRTM": {"name": 3}}"#, "g.json", geo).unwrap_err();
        assert_eq!(
            err.to_string(),
            "s.json: key \"NLRTM\": field `name`: expected a string, found a number"
        );
        let err = build_ports(
            "s.json",
            r#"{"NLRTM": {"name": "Rotterdam", "coordinates": [4.5]}}"#,
            "g.json",
            geo,
        )
        .unwrap_err();
        assert!(
            matches!(&err, ReferenceError::Invalid { file, at, field, .. }
                if file == "s.json" && at == "key \"NLRTM\"" && field == "coordinates"),
            "{err}"
        );
        let geo_bad = r#"{"features": [{"geometry": {"type": "Point", "coordinates": [1, "x"]},
                                        "properties": {"port": "FRPAR", "name": "Paris"}}]}"#;
        let err = build_ports("s.json", "{}", "g.json", geo_bad).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("g.json: feature 0 (port \"FRPAR\"): field `geometry.coordinates`"),
            "{err}"
        );
        let err = build_ports("s.json", "{", "g.json", geo).unwrap_err();
        assert!(matches!(err, ReferenceError::Json { .. }), "{err}");

        let dcsa = "Carrier Name,SMDG Code,NMFTA Code\n";
        let err = build_carriers(
            "o.csv",
            "scac,name,legal_name,alternative_scacs,bill_of_lading_prefix\nMSCU,MSC,,ME-DU,\n",
            "d.csv",
            dcsa,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "o.csv: row 2: field `alternative_scacs`: \"ME-DU\" is not a SCAC (2-4 letters or digits)"
        );
        let err = build_carriers(
            "o.csv",
            "scac,name,legal_name,alternative_scacs,bill_of_lading_prefix,number_shapes\nMAEU,Maersk,,,,9d\nMSCU,MSC,,,,EBKG8\n",
            "d.csv",
            dcsa,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "o.csv: row 3: field `number_shapes`: \"EBKG8\" is not a number shape (e.g. 9d, EBKG8d, 3a7d)"
        );
        let err = build_carriers("o.csv", "scac,name\nMSCU,MSC\n", "d.csv", dcsa).unwrap_err();
        assert_eq!(
            err.to_string(),
            "o.csv: header: field `legal_name`: column missing"
        );
        let err = load_ports(Path::new("/nonexistent/reference")).unwrap_err();
        assert!(matches!(err, ReferenceError::Io { .. }), "{err}");
    }

    #[test]
    fn load_from_directory_matches_bundled() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/reference");
        let loaded = load_ports(&dir).unwrap();
        let (ports, carriers) = bundled();
        assert_eq!(loaded.len(), ports.len());
        assert!(loaded.iter().zip(ports.iter()).all(|(a, b)| a == b));
        let loaded = load_carriers(&dir).unwrap();
        assert!(loaded.iter().zip(carriers.iter()).all(|(a, b)| a == b));
    }

    #[test]
    fn index_dedup_and_precedence() {
        let p = |locode: &str, name: &str| Port {
            locode: locode.into(),
            name: name.into(),
            country_code: locode[..2].into(),
            country: None,
            latitude: None,
            longitude: None,
            time_zone: None,
            state: None,
            state_abbr: None,
        };
        let index = PortIndex::new(vec![p("NLRTM", "first"), p("BEANR", "x"), p("NLRTM", "2")]);
        assert_eq!(index.len(), 2);
        assert!(!index.is_empty());
        assert_eq!(index.get("NLRTM").unwrap().name, "first");
        assert_eq!(index.iter().next().unwrap().locode, "BEANR");

        let c = |scac: &str, alt: &[&str], prefix: Option<&str>| Carrier {
            scac: scac.into(),
            short_name: scac.into(),
            name: scac.into(),
            alternative_scacs: alt.iter().map(|s| s.to_string()).collect(),
            bill_of_lading_prefix: prefix.map(Into::into),
            number_shapes: Vec::new(),
        };
        // A SCAC beats another carrier's alternative SCAC and BL prefix.
        let index = CarrierIndex::new(vec![
            c("AAAA", &["BBBB"], Some("CCCC")),
            c("BBBB", &[], None),
        ]);
        assert_eq!(index.get("BBBB").unwrap().scac, "BBBB");
        assert_eq!(index.get("CCCC").unwrap().scac, "AAAA");
        assert_eq!(index.iter().count(), 2);
    }
}

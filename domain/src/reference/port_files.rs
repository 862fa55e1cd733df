//! Reading the two port files: `sea-ports.json` (an object keyed by UN/LOCODE) and
//! `searoute-ports.geojson` (Point features), with errors that name the file, the entry and the
//! field; US and Canadian state abbreviations.

use std::fmt;

use serde_json::Value;

use super::{invalid, ReferenceError};
use crate::codes::UnLocode;

/// A longitude/latitude pair in degrees, as read (not necessarily in range).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct LonLat {
    pub(super) lon: f64,
    pub(super) lat: f64,
}

impl LonLat {
    pub(super) fn in_range(self) -> bool {
        (-180.0..=180.0).contains(&self.lon) && (-90.0..=90.0).contains(&self.lat)
    }

    /// Great-circle distance in km (haversine, mean Earth radius).
    pub(super) fn km_to(self, other: LonLat) -> f64 {
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
pub(super) fn state_abbreviation(country: &str, state: &str) -> Option<&'static str> {
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

pub(super) struct SeaPortEntry {
    pub(super) locode: UnLocode,
    pub(super) name: String,
    pub(super) country: Option<String>,
    /// `province`: the state or province.
    pub(super) province: Option<String>,
    pub(super) point: Option<LonLat>,
    /// The `timezone` value when it parses as an IANA name.
    pub(super) zone: Option<String>,
}

pub(super) struct SearouteEntry {
    pub(super) locode: UnLocode,
    pub(super) name: Option<String>,
    pub(super) country: Option<String>,
    pub(super) point: Option<LonLat>,
}

pub(super) fn is_valid_zone(name: &str) -> bool {
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

pub(super) fn parse_sea_ports(file: &str, text: &str) -> Result<Vec<SeaPortEntry>, ReferenceError> {
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
        let Ok(locode) = UnLocode::parse(key.trim()) else {
            tracing::debug!(file, key, "skipping entry: key is not a UN/LOCODE");
            continue;
        };
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
            locode,
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

pub(super) fn parse_searoute(file: &str, text: &str) -> Result<Vec<SearouteEntry>, ReferenceError> {
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
        let Ok(locode) = UnLocode::parse(locode) else {
            tracing::debug!(
                file,
                feature = n,
                locode,
                "skipping feature: not a UN/LOCODE"
            );
            continue;
        };
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
            locode,
            name,
            country,
            point,
        });
    }
    Ok(entries)
}

//! Every vessel track of an AIS file as one GeoJSON FeatureCollection of simplified
//! LineStrings: the end of the AIS path that `benches/simplify.rs` measures (CSV → per-vessel
//! tracks → simplified lines → GeoJSON).
//!
//! The text is the same, byte for byte, as building a `geojson::FeatureCollection` of
//! `Feature`s with a `LineString` geometry and one `vessel` property each and calling
//! `to_string()` (tested): `{"type":"FeatureCollection","features":[{"type":"Feature",
//! "geometry":{"type":"LineString","coordinates":[[lon,lat],…]},"properties":{"vessel":…}},…]}`,
//! numbers as serde_json writes them (and, as that crate does for an empty collection,
//! `"bbox":[]` after an empty `features`). It is written by serde from borrowed slices, without a
//! `Vec` per point or a JSON map per feature, and the tracks are simplified in parallel.

use serde::Serialize;

use super::simplify::simplify_track;
use crate::feeds::ais::AisTracks;

#[derive(Serialize)]
struct Collection<'a> {
    r#type: &'static str,
    features: Vec<Feature<'a>>,
    /// `Some([])` for an empty collection: `geojson`'s `FromIterator` leaves an empty
    /// bounding box there (and none once a feature without one is seen).
    #[serde(skip_serializing_if = "Option::is_none")]
    bbox: Option<[f64; 0]>,
}

#[derive(Serialize)]
struct Feature<'a> {
    r#type: &'static str,
    geometry: LineString,
    properties: Properties<'a>,
}

#[derive(Serialize)]
struct LineString {
    r#type: &'static str,
    coordinates: Vec<[f64; 2]>,
}

#[derive(Serialize)]
struct Properties<'a> {
    vessel: &'a str,
}

/// The GeoJSON FeatureCollection (RFC 7946) of `tracks`: one `LineString` feature per vessel,
/// in the order of `tracks.vessels` (by vessel key), its coordinates the vessel's `[longitude,
/// latitude]` (degrees) simplified by [`simplify_track`] (per-track tolerance), its properties
/// `{"vessel": <MMSI or track id>}`. A vessel whose simplified track has fewer than two points
/// still gets its feature, as given. Never fails.
pub fn ais_geojson(tracks: &AisTracks) -> String {
    use rayon::prelude::*;
    let lines: Vec<Vec<[f64; 2]>> = tracks
        .vessels
        .par_iter()
        .map(|v| simplify_track(&v.coords))
        .collect();
    let collection = Collection {
        r#type: "FeatureCollection",
        features: tracks
            .vessels
            .iter()
            .zip(lines)
            .map(|(v, coordinates)| Feature {
                r#type: "Feature",
                geometry: LineString {
                    r#type: "LineString",
                    coordinates,
                },
                properties: Properties { vessel: v.key() },
            })
            .collect(),
        bbox: tracks.vessels.is_empty().then_some([]),
    };
    // Serializing plain structs, strings and finite numbers cannot fail.
    serde_json::to_string(&collection).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::feeds::ais::read_tracks;

    /// What the bench built before: the `geojson` crate's types.
    fn with_geojson_crate(tracks: &AisTracks) -> String {
        let collection: geojson::FeatureCollection = tracks
            .vessels
            .iter()
            .map(|v| {
                let line: Vec<Vec<f64>> = simplify_track(&v.coords)
                    .iter()
                    .map(|p| vec![p[0], p[1]])
                    .collect();
                let mut f = geojson::Feature::from(geojson::Geometry::new(
                    geojson::Value::LineString(line),
                ));
                f.set_property("vessel", v.key());
                f
            })
            .collect();
        collection.to_string()
    }

    #[test]
    fn the_same_bytes_as_the_geojson_crate() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/ais");
        for name in [
            "suez-2021-boat-positions.csv",
            "marinecadastre-ten.csv",
            "marinecadastre-track.csv",
        ] {
            let bytes = std::fs::read(root.join(name)).unwrap();
            let tracks = read_tracks(&bytes, name).unwrap();
            let text = ais_geojson(&tracks);
            assert_eq!(text, with_geojson_crate(&tracks), "{name}");
            assert!(text.starts_with(r#"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"LineString","coordinates":[["#), "{name}");
        }
        // A vessel key that needs escaping, a one-point track, an empty file.
        let csv = "ID,time,longitude,latitude\n\"a\"\"b\\c\",2021-03-20T00:00:00Z,1.5,2.25\n";
        let tracks = read_tracks(csv.as_bytes(), "q.csv").unwrap();
        assert_eq!(tracks.vessels.len(), 1);
        assert_eq!(tracks.vessels[0].key(), "q:a\"b\\c");
        assert_eq!(ais_geojson(&tracks), with_geojson_crate(&tracks));
        let tracks = read_tracks(b"ID,time,longitude,latitude\n", "e.csv").unwrap();
        assert_eq!(ais_geojson(&tracks), with_geojson_crate(&tracks));
    }
}

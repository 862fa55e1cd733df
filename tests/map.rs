//! End-to-end tests of vessel tracks and route maps (issue 4): the real `teu` binary, real
//! databases (SQLite; PostgreSQL with `TEU_TEST_POSTGRES_URL`), the real AIS samples of
//! `data/ais/`, and generated voyages with generated AIS (`teu generate --ais`).

#[macro_use]
mod common;

use common::{data, summaries, Server, TestDb};
use serde_json::Value;

on_both_backends!(
    real_ais_samples_are_read_and_quarantined,
    map_geojson_of_generated_voyages,
    map_geojson_access_rules,
    graphql_route_matches_rest,
    kept_tracks_follow_new_positions,
);

/// Every property of each feature type in docs/interface.md, with the JSON kinds it may take.
fn spec_properties(feature_type: &str) -> Vec<(&'static str, &'static [&'static str])> {
    const S: &[&str] = &["string"];
    const SN: &[&str] = &["string", "null"];
    const I: &[&str] = &["integer"];
    const NN: &[&str] = &["number", "null"];
    match feature_type {
        "port" => vec![
            ("feature_type", S),
            ("ports_sequence", I),
            ("ports_total", I),
            ("location_id", S),
            ("location_type", S),
            ("name", S),
            ("state_abbr", SN),
            ("state", SN),
            ("country_code", S),
            ("country", S),
            ("time_zone", S),
            ("label", S),
            ("inbound_eta_at", SN),
            ("inbound_ata_at", SN),
            ("outbound_etd_at", SN),
            ("outbound_atd_at", SN),
            ("updated_at", SN),
        ],
        "current_vessel" => vec![
            ("feature_type", S),
            ("ports_sequence", I),
            ("vessel_id", S),
            ("vessel_name", S),
            ("vessel_imo", S),
            ("voyage_number", SN),
            ("vessel_location_timestamp", S),
            ("vessel_location_heading", NN),
            ("vessel_location_speed", NN),
            ("departure_port_id", S),
            ("departure_port_name", S),
            ("departure_port_country_code", S),
            ("departure_port_country", S),
            ("departure_port_label", S),
            ("departure_port_time_zone", S),
            ("departure_port_state_abbr", SN),
            ("departure_port_state", SN),
            ("departure_port_atd", SN),
            ("arrival_port_id", SN),
            ("arrival_port_name", SN),
            ("arrival_port_state_abbr", SN),
            ("arrival_port_state", SN),
            ("arrival_port_country_code", SN),
            ("arrival_port_country", SN),
            ("arrival_port_label", SN),
            ("arrival_port_eta", SN),
            ("arrival_port_time_zone", SN),
        ],
        "past_vessel_locations" => vec![
            ("feature_type", S),
            ("ports_sequence", I),
            ("vessel_id", S),
            ("start_time", S),
            ("end_time", S),
            ("point_count", I),
            ("outbound_atd_at", SN),
            ("inbound_ata_at", SN),
            ("inbound_eta_at", SN),
        ],
        "estimated_full_legs" => vec![
            ("feature_type", S),
            ("ports_sequence", I),
            ("previous_port_id", S),
            ("next_port_id", S),
            ("point_count", I),
        ],
        "estimated_partial_leg" => vec![
            ("feature_type", S),
            ("ports_sequence", I),
            ("current_port_id", S),
            ("next_port_id", S),
            ("point_count", I),
        ],
        other => panic!("unexpected feature_type {other}"),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Checks one FeatureCollection against the spec; returns its feature types in order.
fn check_collection(fc: &Value) -> Vec<String> {
    assert_eq!(fc["type"], "FeatureCollection");
    let features = fc["features"].as_array().expect("features array");
    let mut types = Vec::new();
    for f in features {
        assert_eq!(f["type"], "Feature");
        let p = f["properties"].as_object().expect("properties");
        let ft = p["feature_type"]
            .as_str()
            .expect("feature_type")
            .to_string();
        let spec = spec_properties(&ft);
        for (name, kinds) in &spec {
            let v = p
                .get(*name)
                .unwrap_or_else(|| panic!("{ft}: missing {name}"));
            let k = kind(v);
            // An integer is a number too.
            assert!(
                kinds.contains(&k) || (k == "integer" && kinds.contains(&"number")),
                "{ft}.{name}: {k} not in {kinds:?}"
            );
        }
        assert_eq!(p.len(), spec.len(), "{ft}: extra properties {p:?}");
        let geometry = &f["geometry"];
        let coords = &geometry["coordinates"];
        match ft.as_str() {
            "port" | "current_vessel" => {
                assert_eq!(geometry["type"], "Point");
                let lat = coords[1].as_f64().unwrap();
                assert!((-90.0..=90.0).contains(&lat));
            }
            _ => {
                assert_eq!(geometry["type"], "LineString");
                let n = coords.as_array().unwrap().len();
                assert_eq!(p["point_count"].as_u64().unwrap() as usize, n);
                assert!(n >= 1);
            }
        }
        types.push(ft);
    }
    types
}

async fn real_ais_samples_are_read_and_quarantined(db: &TestDb) {
    db.create_account_with("ais", true);
    let paths = [
        data("ais/marinecadastre-ten.csv"),
        data("ais/marinecadastre-track.csv"),
        data("ais/suez-2021-boat-positions.csv"),
    ];
    let out = db.ingest("ais", &paths);
    let s = summaries(&out);
    assert_eq!(s[0], ("marinecadastre-ten.csv".into(), 10, 10, 0), "{out}");
    // The track file repeats FIRST with 0.1° steps one minute apart: 6.5 nm/min is 390 knots.
    assert_eq!(s[1].1, 12, "{out}");
    assert_eq!(s[1].2 + s[1].3, 12);
    assert!(s[1].3 >= 1, "{out}");
    assert_eq!(s[2].1, 22_287);
    assert_eq!(s[2].2 + s[2].3, 22_287);
    assert!(out.contains("AIS track"), "{out}");
    // Re-ingesting changes nothing and quarantines the same rows.
    let again = summaries(&db.ingest("ais", &paths));
    assert_eq!(again, s);
}

/// Generated voyages with generated AIS: arrived, at-sea and not-yet-departed containers.
async fn map_geojson_of_generated_voyages(db: &TestDb) {
    let key = db.create_account_with("maps", true);
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(common::TEU)
        .args(["generate", "--shipments", "40", "--seed", "4", "--ais"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    db.ingest("maps", &[dir.path().to_path_buf()]);
    let server = Server::start(db, &[]);
    let (status, list) = server
        .get("/v2/containers?page[size]=100", Some(&key))
        .await;
    assert_eq!(status, 200);
    let ids: Vec<String> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect();
    assert!(ids.len() > 40);
    let (mut past, mut at_sea, mut planned) = (0, 0, 0);
    for id in &ids {
        let (status, fc) = server
            .get(&format!("/v2/containers/{id}/map_geojson"), Some(&key))
            .await;
        assert_eq!(status, 200, "{fc}");
        let types = check_collection(&fc);
        let features = fc["features"].as_array().unwrap();
        if types.iter().any(|t| t == "past_vessel_locations") {
            past += 1;
        }
        if types.iter().any(|t| t == "estimated_full_legs") {
            planned += 1;
        }
        let vessel = features
            .iter()
            .find(|f| f["properties"]["feature_type"] == "current_vessel");
        let partial = features
            .iter()
            .find(|f| f["properties"]["feature_type"] == "estimated_partial_leg");
        if let Some(v) = vessel {
            at_sea += 1;
            let partial = partial.expect("a partial leg with the current vessel");
            assert_eq!(
                partial["geometry"]["coordinates"][0], v["geometry"]["coordinates"],
                "the partial leg starts at the vessel"
            );
            assert!(v["properties"]["departure_port_atd"].is_string());
        } else {
            assert!(partial.is_none());
        }
        // Ports are numbered 1..=ports_total with POL first and POD last.
        let ports: Vec<&Value> = features
            .iter()
            .filter(|f| f["properties"]["feature_type"] == "port")
            .collect();
        if let Some(first) = ports.first() {
            assert_eq!(first["properties"]["label"], "POL");
            assert_eq!(first["properties"]["ports_sequence"], 1);
        }
        if ports.len() > 1 {
            assert_eq!(ports.last().unwrap()["properties"]["label"], "POD");
        }
    }
    assert!(past > 0, "some containers have actual tracks");
    assert!(at_sea > 0, "some containers are at sea");
    assert!(planned > 0, "some containers have predicted legs");
}

/// The map of every container of `key`'s account, by container number (ids are scoped by
/// the account, numbers are not).
async fn every_map(server: &Server, key: &str) -> std::collections::BTreeMap<String, Value> {
    let (status, list) = server.get("/v2/containers?page[size]=100", Some(key)).await;
    assert_eq!(status, 200, "{list}");
    let mut maps = std::collections::BTreeMap::new();
    for c in list["data"].as_array().expect("data") {
        let id = c["id"].as_str().expect("id");
        let (status, fc) = server
            .get(&format!("/v2/containers/{id}/map_geojson"), Some(key))
            .await;
        assert_eq!(status, 200, "{fc}");
        let number = c["attributes"]["number"]
            .as_str()
            .expect("number")
            .to_string();
        maps.insert(number, fc);
    }
    maps
}

/// Issue 16: a map reads each leg's track as derived once (`leg_tracks`), and AIS positions
/// that arrive later make the vessel's kept tracks stale. The generated AIS file is split in
/// two (alternate rows, so every vessel's track gains points): one database ingests the first
/// half, serves every map twice (the second time from the kept tracks: the same answers), then
/// ingests the second half; its maps must then be those of a database that ingested the whole
/// file at once, and differ from before.
async fn kept_tracks_follow_new_positions(db: &TestDb) {
    let dir = common::teu_into_temp_dir(&["generate", "--shipments", "12", "--seed", "4", "--ais"]);
    let ais = std::fs::read_to_string(dir.path().join("ais-generated.csv")).unwrap();
    std::fs::remove_file(dir.path().join("ais-generated.csv")).unwrap();
    let mut lines = ais.lines();
    let header = lines.next().unwrap();
    let (mut first, mut second) = (vec![header], vec![header]);
    for (i, line) in lines.enumerate() {
        if i % 2 == 0 {
            first.push(line)
        } else {
            second.push(line)
        }
    }
    let halves = tempfile::tempdir().unwrap();
    let (a, b) = (
        halves.path().join("ais-a.csv"),
        halves.path().join("ais-b.csv"),
    );
    std::fs::write(&a, first.join("\n")).unwrap();
    std::fs::write(&b, second.join("\n")).unwrap();

    let key = db.create_account_with("kept", true);
    db.ingest("kept", &[dir.path().to_path_buf(), a.clone()]);
    let server = Server::start(db, &[]);
    let before = every_map(&server, &key).await;
    assert_eq!(
        every_map(&server, &key).await,
        before,
        "maps read from the kept tracks"
    );
    db.ingest("kept", std::slice::from_ref(&b));
    let after = every_map(&server, &key).await;
    drop(server);

    let fresh = match db.url.starts_with("sqlite:") {
        true => TestDb::sqlite(),
        false => TestDb::postgres().await.expect("PostgreSQL is set"),
    };
    let fresh_key = fresh.create_account_with("kept", true);
    fresh.ingest("kept", &[dir.path().to_path_buf(), a, b]);
    let fresh_server = Server::start(&fresh, &[]);
    let want = every_map(&fresh_server, &fresh_key).await;
    drop(fresh_server);
    fresh.cleanup().await;

    let tracks = |maps: &std::collections::BTreeMap<String, Value>| {
        maps.values()
            .flat_map(|fc| fc["features"].as_array().cloned().unwrap_or_default())
            .filter(|f| f["properties"]["feature_type"] == "past_vessel_locations")
            .count()
    };
    assert!(
        tracks(&want) > 5,
        "the feed has vessel tracks: {}",
        tracks(&want)
    );
    assert_eq!(after.len(), want.len());
    for (number, fc) in &want {
        assert_eq!(
            after.get(number),
            Some(fc),
            "container {number}: map after the second AIS half"
        );
    }
    assert_ne!(before, after, "the second half changed the maps");
}

async fn map_geojson_access_rules(db: &TestDb) {
    let with = db.create_account_with("with", true);
    let without = db.create_account_with("without", false);
    db.ingest("with", &[data("dcsa/tnt-220-response.json")]);
    db.ingest("without", &[data("dcsa/tnt-220-response.json")]);
    let server = Server::start(db, &[]);
    let (_, list) = server.get("/v2/containers", Some(&with)).await;
    let id = list["data"][0]["id"].as_str().unwrap().to_string();
    let (_, other) = server.get("/v2/containers", Some(&without)).await;
    let other_id = other["data"][0]["id"].as_str().unwrap().to_string();

    let (status, body) = server
        .get(
            &format!("/v2/containers/{other_id}/map_geojson"),
            Some(&without),
        )
        .await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["errors"][0]["status"], "403");
    assert_eq!(body["errors"][0]["title"], "Forbidden");

    let (status, fc) = server
        .get(&format!("/v2/containers/{id}/map_geojson"), Some(&with))
        .await;
    assert_eq!(status, 200, "{fc}");
    let types = check_collection(&fc);
    // The 2.2 sample calls at one port (FRPAR) and has no AIS: one port, no legs.
    assert!(types.iter().all(|t| t == "port"), "{types:?}");

    for bad in [
        other_id.as_str(),
        "00000000-0000-0000-0000-000000000000",
        "nope",
    ] {
        let (status, body) = server
            .get(&format!("/v2/containers/{bad}/map_geojson"), Some(&with))
            .await;
        assert_eq!(status, 404, "{bad}: {body}");
        assert_eq!(body["errors"][0]["status"], "404");
    }
    let (status, _) = server
        .get(&format!("/v2/containers/{id}/map_geojson"), None)
        .await;
    assert_eq!(status, 401);
}

async fn graphql_route_matches_rest(db: &TestDb) {
    let key = db.create_account_with("gql", true);
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(common::TEU)
        .args(["generate", "--shipments", "12", "--seed", "9", "--ais"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    db.ingest("gql", &[dir.path().to_path_buf()]);
    let server = Server::start(db, &[]);
    let query = "{ containers(first: 100) { edges { node { id route { featureCollection \
                 ports { label locode longitude } currentVessel { vesselImo longitude latitude } \
                 legs { kind pointCount geometry } } } } } }";
    let (status, body) = server.graphql(Some(&key), query, Value::Null).await;
    assert_eq!(status, 200);
    assert!(body["errors"].is_null(), "{body}");
    let edges = body["data"]["containers"]["edges"].as_array().unwrap();
    let mut legs = 0;
    for e in edges {
        let node = &e["node"];
        let id = node["id"].as_str().unwrap();
        let (_, rest) = server
            .get(&format!("/v2/containers/{id}/map_geojson"), Some(&key))
            .await;
        assert_eq!(node["route"]["featureCollection"], rest);
        for leg in node["route"]["legs"].as_array().unwrap() {
            legs += 1;
            assert_eq!(leg["geometry"]["type"], "LineString");
            assert_eq!(
                leg["geometry"]["coordinates"].as_array().unwrap().len() as u64,
                leg["pointCount"].as_u64().unwrap()
            );
        }
    }
    assert!(legs > 0);
    // Without Routing Data the field is a FORBIDDEN error.
    let other = db.create_account_with("gql-plain", false);
    db.ingest("gql-plain", &[data("dcsa/tnt-220-response.json")]);
    let (_, body) = server
        .graphql(
            Some(&other),
            "{ containers(first: 1) { edges { node { route { featureCollection } } } } }",
            Value::Null,
        )
        .await;
    assert_eq!(
        body["errors"][0]["extensions"]["code"], "FORBIDDEN",
        "{body}"
    );
}

/// The demo account has the Routing Data feature, and `serve --demo` gives its containers maps
/// at every stage (issue 4): at sea (current vessel and a partial leg from it), arrived (actual
/// tracks and nothing predicted) and not yet departed (predicted legs only).
#[tokio::test(flavor = "multi_thread")]
async fn demo_containers_have_maps_at_every_stage() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &["--demo"]);
    let key = server.demo_key();
    let mut ids = Vec::new();
    for page in 1.. {
        let (status, list) = server
            .get(
                &format!("/v2/containers?page[size]=100&page[number]={page}"),
                Some(&key),
            )
            .await;
        assert_eq!(status, 200, "{list}");
        let data = list["data"].as_array().unwrap();
        if data.is_empty() {
            break;
        }
        ids.extend(data.iter().map(|c| c["id"].as_str().unwrap().to_string()));
    }
    let (mut at_sea, mut arrived, mut not_departed) = (0, 0, 0);
    for id in &ids {
        let (status, fc) = server
            .get(&format!("/v2/containers/{id}/map_geojson"), Some(&key))
            .await;
        assert_eq!(status, 200, "the demo account has routing data: {fc}");
        let types = check_collection(&fc);
        let has = |t: &str| types.iter().any(|x| x == t);
        if has("current_vessel") && has("estimated_partial_leg") {
            at_sea += 1;
        } else if has("past_vessel_locations")
            && !has("estimated_full_legs")
            && !has("estimated_partial_leg")
        {
            arrived += 1;
        } else if has("estimated_full_legs") && !has("past_vessel_locations") {
            not_departed += 1;
        }
    }
    assert!(
        at_sea > 0 && arrived > 0 && not_departed > 0,
        "of {} demo containers: {at_sea} at sea, {arrived} arrived, {not_departed} not departed",
        ids.len()
    );
}

//! `/v2/shipping_lines` and `/v2/ports/{id}` against the bundled reference files, read here
//! independently of teu's own reader: the real binary, SQLite (and PostgreSQL when
//! `TEU_TEST_POSTGRES_URL` is set).

#[macro_use]
mod common;

use common::{data, Server, TestDb};
use serde_json::Value;

on_both_backends!(shipping_lines_and_ports_serve_the_reference);

/// (SCAC, alternative SCACs, legal name or name) of every row of `ocean-carriers.csv`.
fn carriers_csv() -> Vec<(String, Vec<String>, String)> {
    let mut reader = csv::Reader::from_path(data("reference/ocean-carriers.csv")).unwrap();
    let headers = reader.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (scac, alt, name, legal) = (
        col("scac"),
        col("alternative_scacs"),
        col("name"),
        col("legal_name"),
    );
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            let alts = r[alt]
                .split([';', ' ', '|', ','])
                .filter(|s| !s.is_empty())
                .map(str::to_ascii_uppercase)
                .collect();
            let n = if r[legal].is_empty() {
                &r[name]
            } else {
                &r[legal]
            };
            (r[scac].to_ascii_uppercase(), alts, n.to_string())
        })
        .collect()
}

async fn shipping_lines_and_ports_serve_the_reference(db: &TestDb) {
    let key = db.create_account("acme");
    let server = Server::start(db, &["--no-webhook-delivery"]);

    let (status, _) = server.get("/v2/shipping_lines", None).await;
    assert_eq!(status, 401);
    let (status, list) = server.get("/v2/shipping_lines", Some(&key)).await;
    assert_eq!(status, 200, "{list}");
    let lines = list["data"].as_array().unwrap();
    let csv = carriers_csv();
    assert_eq!(lines.len(), csv.len());
    for ((scac, alts, name), line) in csv.iter().zip(lines) {
        assert_eq!(line["type"], "shipping_line");
        let a = &line["attributes"];
        assert_eq!(a["scac"], scac.as_str());
        assert_eq!(a["name"], name.as_str(), "{scac}");
        let served: Vec<&str> = a["alternative_scacs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(
            served,
            alts.iter().map(String::as_str).collect::<Vec<_>>(),
            "{scac}"
        );
        for flag in [
            "bill_of_lading_tracking_support",
            "booking_number_tracking_support",
            "container_number_tracking_support",
        ] {
            assert_eq!(a[flag], true);
        }
        // The same line by id and by SCAC.
        let id = line["id"].as_str().unwrap();
        for path in [
            format!("/v2/shipping_lines/{id}"),
            format!("/v2/shipping_lines/{}", scac.to_lowercase()),
        ] {
            let (status, one) = server.get(&path, Some(&key)).await;
            assert_eq!(status, 200, "{path}: {one}");
            assert_eq!(&one["data"], line, "{path}");
        }
    }
    // An alternative SCAC finds its line; an unknown code is a JSON:API 404.
    let (status, msc) = server.get("/v2/shipping_lines/MEDU", Some(&key)).await;
    assert_eq!(status, 200);
    assert_eq!(msc["data"]["attributes"]["scac"], "MSCU");
    let (status, missing) = server.get("/v2/shipping_lines/ZZZZ", Some(&key)).await;
    assert_eq!(status, 404);
    assert_eq!(missing["errors"][0]["status"], "404");

    // Ports by UN/LOCODE and by id; the bundled list says Los Angeles is in California.
    let (status, la) = server.get("/v2/ports/uslax", Some(&key)).await;
    assert_eq!(status, 200, "{la}");
    let a = &la["data"]["attributes"];
    assert_eq!(a["code"], "USLAX");
    assert_eq!(a["country_code"], "US");
    assert_eq!(a["time_zone"], "America/Los_Angeles");
    assert_eq!(a["state_abbr"], "CA");
    assert!(a["latitude"].as_f64().unwrap() > 33.0 && a["latitude"].as_f64().unwrap() < 34.5);
    let id = la["data"]["id"].as_str().unwrap();
    let (status, by_id) = server.get(&format!("/v2/ports/{id}"), Some(&key)).await;
    assert_eq!(status, 200);
    assert_eq!(by_id["data"], la["data"]);
    let (status, missing) = server.get("/v2/ports/XXXXX", Some(&key)).await;
    assert_eq!(status, 404);
    assert_eq!(missing["errors"][0]["status"], "404", "{missing}");
    let _: Value = missing;
}

//! Unit tests of the reference data: number shapes, the bundled ports (count, known ports, time
//! zones), carriers, error messages and loading from a directory.

use super::carriers::build_carriers;
use super::number_shapes::NumberShape;
use super::port_files::is_valid_zone;
use super::ports::{build_ports, same_clock, PortReport, ZoneSource};

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
    assert!(ports.iter().all(|p| p.country_code == p.locode.country()));
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
    // ANGSB is not a port: AN (Netherlands Antilles) left ISO 3166-1 in 2010, so it is no
    // UN/LOCODE by `UnLocode::parse`, and the DCSA reader refuses it as well.
    assert!(index.get("ANGSB").is_none());
    for locode in [
        "ARDDC", "CLJRL", "CLPGO", "CLPPD", "CRSJO", "ISESK", "TNJAR",
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
    // 38 Terminal49 lines, 93 regional and feeder lines, 3 added from two-origin code lists.
    assert!(rows >= 134, "{rows}");
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
        ("UFEE", "UFEE"),
        ("IRSU", "IRSU"),
        ("TSGL", "TSCW"),
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
        "o.csv: row 2: field `alternative_scacs`: SCAC \"ME-DU\" must be 2 to 4 letters A-Z or digits, at least one a letter"
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
        locode: crate::codes::UnLocode::parse(locode).unwrap(),
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
        scac: crate::codes::Scac::parse(scac).unwrap(),
        short_name: scac.into(),
        name: scac.into(),
        alternative_scacs: alt
            .iter()
            .map(|s| crate::codes::Scac::parse(s).unwrap())
            .collect(),
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

//! Terminal, line-deadline and rail feeds that go with a generated DCSA feed
//! ([`crate::dcsa`]), so that demo containers have holds, fees, last free days and rail legs.
//!
//! From the containers the generated events derive to (same seed, same output):
//! - **Terminal availability** checks at the POD terminal for every discharged container: a
//!   first check a few hours after discharge (not available; a customs or freight hold on some),
//!   a second a day later (available; an exam fee on some), and a check reporting the full-out
//!   with its chassis when the container left. Half the rows are written as a US-style CSV
//!   (`Container #`, local `MM/DD/YYYY HH:MM` times, a hold column per hold), the other half as
//!   JSON lines with RFC 3339 times and structured holds and fees. Last free day: the fourth
//!   day after discharge, a date in the terminal's zone.
//! - **Line deadlines**: the line's last free day (fifth day after the vessel's arrival) per
//!   bill of lading, as a CSV.
//! - **Rail legs**: for containers bound for or discharged at a US port and not picked up, most
//!   continue by rail to an inland ramp (Chicago, Dallas, Memphis, Atlanta, Kansas City,
//!   Columbus) with a real rail carrier SCAC (UPRR, BNSF, CSXT, NSRR), as DCSA T&T 2.2 rail
//!   events (`modeOfTransport` RAIL; the rail carrier in `vesselOperatorCarrierCode`); legs
//!   not yet run are estimates.
//!
//! Only checks and actual events up to the generator's "now" are written.

use chrono::{DateTime, Duration, Utc};
use chrono_tz::Tz;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::dcsa::{generator_now, GeneratedFile};
use teu_pipeline::model::{Container, Shipment};
use teu_pipeline::normalize::{self, Refs};
use teu_pipeline::{feeds, reference, terminals};

/// The extra feeds, as file name and content.
pub struct ExtraFeeds {
    /// `terminal-checks.csv`, `terminal-checks.jsonl`, `line-deadlines.csv`, `rail-events.json`;
    /// a file that would have no rows is left out.
    pub files: Vec<(String, String)>,
}

const RAIL: &[(&str, &[&str], &[&str])] = &[
    (
        "west",
        &["USLAX", "USLGB", "USOAK", "USSEA", "USTIW"],
        &["USCHI", "USDAL", "USKCK", "USMEM"],
    ),
    (
        "east",
        &["USNYC", "USSAV", "USCHS", "USORF", "USBAL", "USHOU"],
        &["USCHI", "USATL", "USCMH", "USMEM"],
    ),
];

/// Builds the extra feeds for `files` (the output of [`crate::dcsa::generate`] with `seed`).
pub fn extra_feeds(files: &[GeneratedFile], seed: u64) -> ExtraFeeds {
    let now = generator_now();
    let rows: Vec<_> = files
        .iter()
        .filter_map(|f| {
            feeds::dcsa::read_value_at(Value::Array(f.events.clone()), &f.name, now).ok()
        })
        .flat_map(|b| b.events.into_iter().map(|e| e.row))
        .collect();
    let (ports, carriers) = reference::bundled();
    let derived = match normalize::derive(Uuid::nil(), &rows, &Refs { ports, carriers }, now) {
        Ok(d) => d,
        Err(_) => return ExtraFeeds { files: Vec::new() },
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x7465_726d);
    let mut csv = String::from("Container #,Terminal,Port,Last Checked,Available,Yard Location,Customs Hold,Freight Hold,Exam Fee,Currency,LFD,Gate Out,Chassis No\n");
    let mut jsonl = String::new();
    let mut rail = Vec::new();
    let shipment_of = |c: &Container| derived.shipments.iter().find(|s| s.id == c.shipment_id);
    for (i, c) in derived.containers.iter().enumerate() {
        // Rail legs for boxes bound for (or waiting at) a US port that have not left it by truck.
        if let (None, Some(s), Some(pod)) =
            (c.pod_full_out_at, shipment_of(c), c.pod_locode.as_deref())
        {
            let base = c
                .pod_discharged_at
                .or(s.pod_eta_at.map(|eta| eta + Duration::hours(12)));
            if let Some(base) = base.filter(|_| rng.random_bool(0.6)) {
                rail.extend(rail_leg(c, s, pod, base, &mut rng, now));
            }
        }
        let (Some(disc), Some(tid), Some(pod)) = (
            c.pod_discharged_at,
            c.pod_terminal_id,
            c.pod_locode.as_deref(),
        ) else {
            continue;
        };
        let Some(t) = terminals::bundled().get(tid) else {
            continue;
        };
        let Some(tz) = t.time_zone.as_deref().and_then(|z| z.parse::<Tz>().ok()) else {
            continue;
        };
        let code = t
            .smdg_code
            .clone()
            .or(t.bic_code.clone())
            .unwrap_or_default();
        let lfd = (disc.with_timezone(&tz) + Duration::days(4)).date_naive();
        let hold = rng.random_range(0..10);
        let exam = rng.random_bool(0.1);
        let location = format!(
            "{}{}-{:02}-{}",
            ["A", "B", "C", "D"][rng.random_range(0..4)],
            rng.random_range(1..40),
            rng.random_range(1..30),
            rng.random_range(1..6)
        );
        let chassis = format!("ZCSU{:06}", rng.random_range(0..1_000_000));
        let mut checks = vec![(
            disc + Duration::hours(3),
            false,
            hold < 3,
            hold == 3,
            false,
            None,
        )];
        checks.push((disc + Duration::hours(30), true, false, false, exam, None));
        if let Some(out) = c.pod_full_out_at {
            checks.push((
                out + Duration::minutes(10),
                true,
                false,
                false,
                exam,
                Some(out),
            ));
        }
        for (at, available, customs, freight, exam_fee, out) in
            checks.into_iter().filter(|x| x.0 <= now)
        {
            if i % 2 == 0 {
                let local =
                    |t: DateTime<Utc>| t.with_timezone(&tz).format("%m/%d/%Y %H:%M").to_string();
                csv.push_str(&format!(
                    "{},{},{},{},{},{},{},{},{},USD,{},{},{}\n",
                    c.number,
                    code,
                    pod,
                    local(at),
                    if available { "Yes" } else { "No" },
                    location,
                    if customs { "HOLD" } else { "RELEASED" },
                    if freight { "PENDING" } else { "RELEASED" },
                    if exam_fee { "325.00" } else { "" },
                    lfd.format("%m/%d/%Y"),
                    out.map(local).unwrap_or_default(),
                    if out.is_some() { chassis.as_str() } else { "" },
                ));
            } else {
                let mut holds = Vec::new();
                if customs {
                    holds.push(json!({"name": "CUSTOMS", "status": "hold", "description": "Customs exam ordered"}));
                }
                if freight {
                    holds.push(json!({"name": "FREIGHT", "status": "pending", "description": "Freight not yet paid"}));
                }
                let fees: Vec<Value> = if exam_fee {
                    vec![json!({"type": "Customs Exam", "amount": 325.0, "currency": "USD"})]
                } else {
                    vec![]
                };
                let line = json!({
                    "container_number": c.number, "terminal_code": code, "locode": pod,
                    "checked_at": at.with_timezone(&tz).to_rfc3339(), "available_for_pickup": available,
                    "yard_location": location, "holds": holds, "fees": fees,
                    "last_free_day": lfd.format("%Y-%m-%d").to_string(),
                    "gate_out": out.map(|o| o.with_timezone(&tz).to_rfc3339()),
                    "chassis_number": out.map(|_| chassis.clone()),
                });
                jsonl.push_str(&line.to_string());
                jsonl.push('\n');
            }
        }
    }
    let mut line = String::from("bill_of_lading,port,pickup_lfd_line,issued_at\n");
    for s in &derived.shipments {
        if let (Some(ata), Some(pod), Some(zone)) = (
            s.pod_ata_at,
            &s.port_of_discharge_locode,
            s.pod_timezone.as_deref().and_then(|z| z.parse::<Tz>().ok()),
        ) {
            let issued = ata + Duration::hours(1);
            if issued <= now {
                let lfd = (ata.with_timezone(&zone) + Duration::days(5)).date_naive();
                line.push_str(&format!(
                    "{},{},{},{}\n",
                    s.bill_of_lading_number,
                    pod,
                    lfd.format("%Y-%m-%d"),
                    issued.to_rfc3339()
                ));
            }
        }
    }
    let files = vec![
        (
            "terminal-checks.csv".to_string(),
            csv.lines().count() > 1,
            csv,
        ),
        (
            "terminal-checks.jsonl".to_string(),
            !jsonl.is_empty(),
            jsonl,
        ),
        (
            "line-deadlines.csv".to_string(),
            line.lines().count() > 1,
            line,
        ),
        (
            "rail-events.json".to_string(),
            !rail.is_empty(),
            Value::Array(rail).to_string(),
        ),
    ];
    // Files with no rows are left out.
    ExtraFeeds {
        files: files
            .into_iter()
            .filter(|(_, has_rows, _)| *has_rows)
            .map(|(name, _, content)| (name, content))
            .collect(),
    }
}

/// DCSA rail events for one container: load and departure at the POD, arrival and unload at
/// an inland ramp, pickup there.
fn rail_leg(
    c: &Container,
    s: &Shipment,
    pod: &str,
    disc: DateTime<Utc>,
    rng: &mut ChaCha8Rng,
    now: DateTime<Utc>,
) -> Vec<Value> {
    let Some((coast, _, ramps)) = RAIL.iter().find(|(_, ports, _)| ports.contains(&pod)) else {
        return Vec::new();
    };
    // One inland ramp and rail carrier per bill of lading: the rail leg is the shipment's.
    let bl_hash = s
        .bill_of_lading_number
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
    let mut per_bl = ChaCha8Rng::seed_from_u64(bl_hash);
    let ramp = ramps[per_bl.random_range(0..ramps.len())];
    let scac = if *coast == "west" {
        ["UPRR", "BNSF"][per_bl.random_range(0..2)]
    } else {
        ["CSXT", "NSRR"][per_bl.random_range(0..2)]
    };
    let load = disc + Duration::hours(rng.random_range(20..60));
    let steps = [
        ("EQUIPMENT", "LOAD", pod, load),
        ("TRANSPORT", "DEPA", pod, load + Duration::hours(6)),
        (
            "TRANSPORT",
            "ARRI",
            ramp,
            load + Duration::hours(rng.random_range(70..140)),
        ),
    ];
    let arri = steps[2].3;
    let all = [
        steps[0],
        steps[1],
        steps[2],
        ("EQUIPMENT", "DISC", ramp, arri + Duration::hours(5)),
        (
            "EQUIPMENT",
            "GTOT",
            ramp,
            arri + Duration::hours(rng.random_range(20..72)),
        ),
    ];
    let mut out = Vec::new();
    for (etype, code, locode, at) in all {
        let actual = at <= now;
        let created = if actual {
            at + Duration::minutes(15)
        } else {
            load.min(now)
        };
        let id = Uuid::new_v5(
            &Uuid::NAMESPACE_OID,
            format!(
                "rail/{}/{}/{code}/{locode}",
                s.bill_of_lading_number, c.number
            )
            .as_bytes(),
        );
        let mode = if code == "GTOT" { "TRUCK" } else { "RAIL" };
        let mut e = json!({
            "eventID": id.to_string(),
            "eventCreatedDateTime": created.to_rfc3339(),
            "eventType": etype,
            "eventClassifierCode": if actual { "ACT" } else { "EST" },
            "eventDateTime": at.to_rfc3339(),
            "transportCall": {
                "UNLocationCode": locode,
                "modeOfTransport": mode,
                "vessel": {"vesselOperatorCarrierCode": scac, "vesselOperatorCarrierCodeListProvider": "NMFTA"}
            },
            "documentReferences": [{"documentReferenceType": "TRD", "documentReferenceValue": s.bill_of_lading_number}],
            "references": [{"referenceType": "EQ", "referenceValue": c.number}],
        });
        if etype == "EQUIPMENT" {
            e["equipmentEventTypeCode"] = code.into();
            e["equipmentReference"] = c.number.to_string().into();
            e["emptyIndicatorCode"] = "LADEN".into();
        } else {
            e["transportEventTypeCode"] = code.into();
        }
        out.push(e);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dcsa::{generate, GenOptions};

    #[test]
    fn extra_feeds_read_back_cleanly() {
        let files = generate(&GenOptions {
            shipments: 60,
            seed: 2026,
            events_per_file: 0,
        });
        let extra = extra_feeds(&files, 2026);
        let mut checks = 0;
        for (name, content) in &extra.files {
            let b = feeds::read_bytes(content.as_bytes(), name).unwrap();
            assert!(
                b.quarantined.is_empty(),
                "{name}: {:?}",
                b.quarantined.first()
            );
            checks += b.checks.len();
            if name.ends_with(".json") {
                assert!(b
                    .events
                    .iter()
                    .any(|e| e.row.mode_of_transport.as_deref() == Some("RAIL")));
            }
        }
        assert!(checks > 20, "{checks}");
        let again = extra_feeds(&files, 2026);
        assert_eq!(extra.files, again.files, "deterministic");
    }
}

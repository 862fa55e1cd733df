//! Makes a generated feed as awkward as carriers' feeds are (`teu generate --awkward`), keeping
//! its ground truth ([`crate::truth`]) true:
//!
//! - a quarter of the shipments that departed lose the vessel's actual departure from the POL
//!   (carriers miss events): their truth loses `pol_atd_at`;
//! - three in ten equipment events name only the booking (their `TRD` reference dropped), one in
//!   ten no document at all (only the container);
//! - the events of all shipments are shuffled and split over files, so a shipment's events
//!   arrive in several files in any order, and the first file is delivered again, last
//!   (`…-redelivery.json`).
//!
//! What the generator already does stays: vessel events name every container of the shipment
//! as `EQ` references, a plan and several estimate revisions precede each actual, a third of
//! the shipments transship onto another vessel.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

use crate::dcsa::GeneratedFile;

/// The awkward version of `files` (module documentation), split into `parts` files (at least
/// one) plus the redelivery; `truth` (the generator's records of the same feed) is changed
/// where the feed no longer says a thing. The same inputs and `seed` give the same output.
pub fn awkward(
    files: Vec<GeneratedFile>,
    truth: &mut [Value],
    seed: u64,
    parts: usize,
) -> Vec<GeneratedFile> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xA3C5_0D1E_2B4F_6789);
    let mut bls: Vec<(String, String)> = truth
        .iter()
        .filter(|t| !t["pol_atd_at"].is_null())
        .map(|t| {
            let field = |k: &str| t[k].as_str().unwrap_or_default().to_string();
            (
                field("bill_of_lading_number"),
                field("port_of_lading_locode"),
            )
        })
        .collect();
    bls.sort();
    bls.dedup();
    let no_departure: Vec<(String, String)> = bls
        .into_iter()
        .filter(|_| rng.random_range(0..4) == 0)
        .collect();
    for t in truth.iter_mut() {
        let bl = t["bill_of_lading_number"].as_str().unwrap_or_default();
        if no_departure.iter().any(|(b, _)| b == bl) {
            t["pol_atd_at"] = Value::Null;
        }
    }
    let mut events: Vec<Value> = files.into_iter().flat_map(|f| f.events).collect();
    events.retain(|e| {
        let departure = e["eventType"] == "TRANSPORT"
            && e["transportEventTypeCode"] == "DEPA"
            && e["eventClassifierCode"] == "ACT";
        if !departure {
            return true;
        }
        let bl = e["documentReferences"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|r| r["documentReferenceType"] == "TRD")
            .and_then(|r| r["documentReferenceValue"].as_str());
        let at = e["transportCall"]["UNLocationCode"].as_str();
        !no_departure
            .iter()
            .any(|(b, pol)| Some(b.as_str()) == bl && Some(pol.as_str()) == at)
    });
    for e in &mut events {
        if e["eventType"] != "EQUIPMENT" {
            continue;
        }
        let draw = rng.random_range(0..10);
        if let Some(refs) = e
            .get_mut("documentReferences")
            .and_then(Value::as_array_mut)
        {
            match draw {
                0..=2 => refs.retain(|r| r["documentReferenceType"] != "TRD"),
                3 => refs.clear(),
                _ => {}
            }
        }
    }
    for i in (1..events.len()).rev() {
        events.swap(i, rng.random_range(0..=i));
    }
    let parts = parts.max(1);
    let per = events.len().div_ceil(parts).max(1);
    let mut out: Vec<GeneratedFile> = events
        .chunks(per)
        .enumerate()
        .map(|(i, chunk)| GeneratedFile {
            name: format!("awkward-{:04}.json", i + 1),
            events: chunk.to_vec(),
        })
        .collect();
    if let Some(first) = out.first() {
        out.push(GeneratedFile {
            name: "awkward-9999-redelivery.json".to_string(),
            events: first.events.clone(),
        });
    }
    out
}

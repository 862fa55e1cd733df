//! The event frame (one row per event and shipment or container it applies to) and the polars
//! expression helpers the aggregations are written with.

use std::collections::BTreeSet;

use foldhash::HashMap;

use chrono::{DateTime, Utc};
use polars::prelude::*;

use crate::model::{Classifier, EventRow, EventType};
use crate::status;

/// Milliseconds since the Unix epoch (UTC), the time unit of the event frame.
fn millis(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

pub(super) fn from_millis(ms: Option<i64>) -> Option<DateTime<Utc>> {
    ms.and_then(DateTime::from_timestamp_millis)
}

/// The event frame: one row per (event, shipment key, container) the event applies to (a null
/// container: every container of the shipment); booleans that classify the event are computed
/// here once so that the polars stages stay simple.
pub(super) fn event_frame(
    events: &[EventRow],
    attached: &[Vec<(&str, Option<&str>)>],
) -> PolarsResult<DataFrame> {
    let n: usize = attached.iter().map(Vec::len).sum();
    let mut key = Vec::with_capacity(n);
    let mut container = Vec::with_capacity(n);
    let mut etype = Vec::with_capacity(n);
    let mut code = Vec::with_capacity(n);
    let mut act = Vec::with_capacity(n);
    let mut at = Vec::with_capacity(n);
    let mut created = Vec::with_capacity(n);
    let mut locode = Vec::with_capacity(n);
    let mut mode = Vec::with_capacity(n);
    let mut imo = Vec::with_capacity(n);
    let mut vessel = Vec::with_capacity(n);
    let mut voyage = Vec::with_capacity(n);
    let mut carrier = Vec::with_capacity(n);
    let mut iso = Vec::with_capacity(n);
    let mut empty = Vec::with_capacity(n);
    let mut seal = Vec::with_capacity(n);
    let mut moves = Vec::with_capacity(n);
    let mut departure_call = Vec::with_capacity(n);
    let mut arrival_call = Vec::with_capacity(n);
    let mut facility = Vec::with_capacity(n);
    let mut facility_type = Vec::with_capacity(n);
    let mut time_rank = Vec::with_capacity(n);
    let mut issue_rank = Vec::with_capacity(n);
    // Ranks of the events by (event time, issue time, id) and (issue time, event time, id):
    // total orders over the events' contents, so the input order does not matter.
    let issued = |e: &EventRow| e.event_created_at.unwrap_or(e.event_at);
    let rank_by = |cmp: &dyn Fn(&EventRow, &EventRow) -> std::cmp::Ordering| {
        let mut order: Vec<usize> = (0..events.len()).collect();
        order.sort_unstable_by(|&a, &b| cmp(&events[a], &events[b]));
        let mut rank = vec![0_i64; events.len()];
        for (r, i) in order.into_iter().enumerate() {
            rank[i] = r as i64;
        }
        rank
    };
    let by_time = rank_by(&|a, b| {
        (a.event_at, issued(a), &a.event_id).cmp(&(b.event_at, issued(b), &b.event_id))
    });
    let by_issue = rank_by(&|a, b| {
        (issued(a), a.event_at, &a.event_id).cmp(&(issued(b), b.event_at, &b.event_id))
    });
    for (i, (e, rows)) in events.iter().zip(attached).enumerate() {
        let vessel_mode = matches!(
            e.mode_of_transport.as_deref(),
            None | Some("VESSEL") | Some("BARGE")
        );
        let vessel_call = e.locode.is_some()
            && vessel_mode
            && match e.event_type {
                EventType::Transport => true,
                EventType::Equipment => matches!(e.code.as_str(), "LOAD" | "DISC"),
                EventType::Shipment => false,
            };
        for (k, c) in rows {
            key.push(*k);
            container.push(*c);
            time_rank.push(by_time[i]);
            issue_rank.push(by_issue[i]);
            etype.push(e.event_type.as_str());
            code.push(e.code.as_str());
            act.push(e.classifier == Classifier::Act);
            at.push(millis(e.event_at));
            created.push(millis(issued(e)));
            locode.push(e.locode.as_deref());
            mode.push(e.mode_of_transport.as_deref());
            imo.push(e.vessel_imo.as_deref());
            vessel.push(e.vessel_name.as_deref());
            voyage.push(e.import_voyage.as_deref().or(e.export_voyage.as_deref()));
            carrier.push(e.carrier_scac.as_deref());
            iso.push(e.iso_equipment_code.as_deref());
            empty.push(e.empty);
            seal.push(e.seal_number.as_deref());
            moves.push(status::is_movement(e.event_type, &e.code));
            departure_call.push(vessel_call && matches!(e.code.as_str(), "LOAD" | "DEPA"));
            arrival_call.push(vessel_call && matches!(e.code.as_str(), "DISC" | "ARRI"));
            facility.push(e.facility_code.as_deref());
            facility_type.push(e.facility_type.as_deref());
        }
    }
    df!(
        "time_rank" => time_rank,
        "issue_rank" => issue_rank,
        "key" => key,
        "etype" => etype,
        "code" => code,
        "act" => act,
        "at" => at,
        "created" => created,
        "locode" => locode,
        "mode" => mode,
        "imo" => imo,
        "vessel" => vessel,
        "voyage" => voyage,
        "carrier" => carrier,
        "iso" => iso,
        "empty" => empty,
        "seal" => seal,
        "moves" => moves,
        "departure_call" => departure_call,
        "arrival_call" => arrival_call,
        "facility" => facility,
        "facility_type" => facility_type,
        "container" => container,
    )
}

pub(super) fn container_pairs(
    containers_of: &HashMap<&str, BTreeSet<&str>>,
) -> PolarsResult<DataFrame> {
    let mut keys = Vec::new();
    let mut numbers = Vec::new();
    for (k, cs) in containers_of {
        for c in cs {
            keys.push(*k);
            numbers.push(*c);
        }
    }
    df!("key" => keys, "container" => numbers)
}

/// The value of `name` in the last row matching `mask`. Frames are sorted before grouping and
/// polars keeps the row order within each group, so "last" is the latest by the sort keys.
pub(super) fn last_where(name: &str, mask: Expr) -> Expr {
    col(name).filter(mask).last()
}

/// The value of `name` in the first row matching `mask` (see [`last_where`]).
pub(super) fn first_where(name: &str, mask: Expr) -> Expr {
    col(name).filter(mask).first()
}

/// Sort key for "by event time": the event's rank by event time, then issue time, then event
/// id (computed once in Rust, so polars sorts one integer column instead of three).
pub(super) const BY_EVENT_TIME: &str = "time_rank";
/// Sort key for "by issue time": rank by when the carrier issued the event, then event time and id.
pub(super) const BY_ISSUE_TIME: &str = "issue_rank";

pub(super) fn sorted(frame: LazyFrame, key: &str) -> LazyFrame {
    frame.sort(
        [key],
        SortMultipleOptions::default().with_maintain_order(true),
    )
}

pub(super) fn is(name: &str, value: &str) -> Expr {
    col(name).eq(lit(value))
}

pub(super) fn transport(code: &str) -> Expr {
    is("etype", "TRANSPORT").and(is("code", code))
}

pub(super) fn equipment(code: &str) -> Expr {
    is("etype", "EQUIPMENT").and(is("code", code))
}

pub(super) fn estimate() -> Expr {
    col("act").not()
}

pub(super) fn rail() -> Expr {
    col("mode").eq(lit("RAIL")).fill_null(lit(false))
}

pub(super) fn laden() -> Expr {
    col("empty").fill_null(lit(false)).not()
}

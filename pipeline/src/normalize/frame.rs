//! The event frames the polars stages aggregate, and the expression helpers they are written
//! with.
//!
//! Two frames, both built here in Rust and both in event-time order (the events' total order
//! by event time, issue time and id), so that polars groups them without sorting:
//! - the **shipment frame**: one row per (event, shipment key) the event applies to;
//! - the **box frame**: one row per (event, container of a shipment) the event applies to, an
//!   event that names no container reaching every container of its shipment.
//!
//! Shipment keys and containers are numbered ([`Index`]): the frames group by those `u32`
//! numbers, not by text. What depends only on the key (its POL, POD and inland destination,
//! the first discharge of each box at the POD) is looked up in Rust while the rows are made.

use std::ops::Range;

use foldhash::HashMap;

use chrono::{DateTime, Utc};
use polars::prelude::*;
use uuid::Uuid;

use super::attach::{Attached, Journeys};
use crate::ids;
use crate::model::{Classifier, EventRow, EventType};
use crate::status;

/// Milliseconds since the Unix epoch (UTC), the time unit of the event frames.
fn millis(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

pub(super) fn from_millis(ms: Option<i64>) -> Option<DateTime<Utc>> {
    ms.and_then(DateTime::from_timestamp_millis)
}

/// The shipment keys and the containers of a derivation, numbered: key ids in key order, box
/// ids by key, then container number, so the boxes of one key are consecutive.
pub(super) struct Index<'a> {
    /// Key id → shipment key.
    pub(super) keys: Vec<&'a str>,
    key_of: HashMap<&'a str, u32>,
    /// Box id → (key id, container number).
    pub(super) boxes: Vec<(u32, &'a str)>,
    box_of: HashMap<(&'a str, &'a str), u32>,
    /// Key id → its box ids.
    boxes_of_key: Vec<Range<u32>>,
    /// Key id → the shipment's id ([`ids::shipment_id`]).
    pub(super) shipment_ids: Vec<Uuid>,
    /// Box id → the container's id ([`ids::container_id`]).
    pub(super) container_ids: Vec<Uuid>,
}

impl<'a> Index<'a> {
    /// Numbers the keys of `journeys` (every key an event is attached to) and the containers
    /// of each, and computes their ids in `account` once.
    pub(super) fn new(account: Uuid, journeys: &Journeys<'a>, attached: &Attached<'a>) -> Self {
        let keys: Vec<&'a str> = journeys.shipments.keys().copied().collect();
        let key_of = keys
            .iter()
            .enumerate()
            .map(|(i, k)| (*k, i as u32))
            .collect();
        let mut boxes = Vec::new();
        let mut box_of = HashMap::default();
        let mut boxes_of_key = Vec::with_capacity(keys.len());
        for (i, k) in keys.iter().enumerate() {
            let start = boxes.len() as u32;
            for c in attached.containers_of.get(k).into_iter().flatten() {
                box_of.insert((*k, *c), boxes.len() as u32);
                boxes.push((i as u32, *c));
            }
            boxes_of_key.push(start..boxes.len() as u32);
        }
        let shipment_ids = keys.iter().map(|k| ids::shipment_id(account, k)).collect();
        let container_ids = boxes
            .iter()
            .map(|(k, c)| ids::container_id(account, keys[*k as usize], c))
            .collect();
        Self {
            keys,
            key_of,
            boxes,
            box_of,
            boxes_of_key,
            shipment_ids,
            container_ids,
        }
    }

    /// The id of shipment key `k`, which must be one of the derivation's.
    pub(super) fn key(&self, k: &str) -> u32 {
        self.key_of[k]
    }

    /// Per event of `attached` (input order): the key id of each of its attached rows, with the
    /// box ids that row reaches.
    pub(super) fn reach(&self, attached: &Attached<'_>) -> Vec<Reach> {
        attached
            .rows
            .iter()
            .map(|rows| {
                rows.iter()
                    .map(|(k, c)| (self.key(k), self.boxes_of(k, *c)))
                    .collect()
            })
            .collect()
    }

    /// The box ids an attached row (shipment key, container or every container) reaches.
    pub(super) fn boxes_of(&self, k: &str, c: Option<&str>) -> Range<u32> {
        match c {
            Some(c) => {
                let b = self.box_of[&(k, c)];
                b..b + 1
            }
            None => self.boxes_of_key[self.key(k) as usize].clone(),
        }
    }
}

/// What one event reaches: per attached row, the key id and the box ids.
pub(super) type Reach = Vec<(u32, Range<u32>)>;

/// Per key id: the POL and POD (from the journeys) and, once known, the inland destination.
pub(super) struct KeyPlaces<'a> {
    pub(super) pol: Vec<Option<&'a str>>,
    pub(super) pod: Vec<Option<&'a str>>,
    pub(super) destination: Vec<Option<&'a str>>,
}

impl<'a> KeyPlaces<'a> {
    /// The POL and POD of each key of `index` (its shipment journey's); no destinations yet.
    pub(super) fn new(index: &Index<'a>, journeys: &'a Journeys<'a>) -> Self {
        let stop = |f: fn(&'a crate::journey::Journey) -> Option<&'a crate::journey::Stop>| {
            journeys
                .shipments
                .values()
                .map(|j| f(j).map(|s| s.locode.as_str()))
                .collect::<Vec<_>>()
        };
        let places = Self {
            pol: stop(crate::journey::Journey::pol),
            pod: stop(crate::journey::Journey::pod),
            destination: vec![None; index.keys.len()],
        };
        debug_assert_eq!(places.pol.len(), index.keys.len());
        places
    }
}

/// The events in time order (by event time, issue time, then event id: a total order over
/// their contents, so the input order does not matter) and, per event, its rank by issue time
/// (issue time, event time, id), the sort key of "latest issued".
pub(super) struct Order {
    pub(super) by_time: Vec<usize>,
    pub(super) issue_rank: Vec<i64>,
}

impl Order {
    /// The order of `events`.
    pub(super) fn new(events: &[EventRow]) -> Self {
        // The sort keys side by side (not read through the events while sorting).
        let issued = |e: &EventRow| e.event_created_at.unwrap_or(e.event_at);
        let mut keys: Vec<_> = events
            .iter()
            .enumerate()
            .map(|(i, e)| (e.event_at, issued(e), e.event_id.as_str(), i))
            .collect();
        keys.sort_unstable();
        let by_time: Vec<usize> = keys.iter().map(|k| k.3).collect();
        for k in &mut keys {
            std::mem::swap(&mut k.0, &mut k.1);
        }
        keys.sort_unstable();
        let by_issue = keys.iter().map(|k| k.3);
        let mut issue_rank = vec![0_i64; events.len()];
        for (r, i) in by_issue.enumerate() {
            issue_rank[i] = r as i64;
        }
        Self {
            by_time,
            issue_rank,
        }
    }
}

/// Whether event `e` is a vessel call (a transport event, or a vessel load or discharge, at a
/// place, by vessel or barge or by an unnamed mode).
fn vessel_call(e: &EventRow) -> bool {
    let vessel_mode = matches!(
        e.mode_of_transport.as_deref(),
        None | Some("VESSEL") | Some("BARGE")
    );
    e.locode.is_some()
        && vessel_mode
        && match e.event_type {
            EventType::Transport => true,
            EventType::Equipment => matches!(e.code.as_str(), "LOAD" | "DISC"),
            EventType::Shipment => false,
        }
}

/// What the box frame's per-box columns are computed from, per event in time order.
struct Moves {
    /// Event time (milliseconds, UTC).
    at: Vec<i64>,
    /// An actual vessel load or departure.
    departs: Vec<bool>,
    /// An actual equipment discharge (`DISC`): at the POD, the box's discharge there.
    discharges: Vec<bool>,
}

/// The events' columns, in time order: one row per event.
fn event_columns(events: &[EventRow], order: &Order) -> PolarsResult<(DataFrame, Moves)> {
    let n = events.len();
    let mut issue_rank = Vec::with_capacity(n);
    let mut etype = Vec::with_capacity(n);
    let mut code = Vec::with_capacity(n);
    let mut act = Vec::with_capacity(n);
    let mut at = Vec::with_capacity(n);
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
    let mut departs = Vec::with_capacity(n);
    let mut discharges = Vec::with_capacity(n);
    for &i in &order.by_time {
        let e = &events[i];
        let call = vessel_call(e);
        let is_act = e.classifier == Classifier::Act;
        departs.push(is_act && call && matches!(e.code.as_str(), "LOAD" | "DEPA"));
        discharges.push(is_act && e.event_type == EventType::Equipment && e.code == "DISC");
        issue_rank.push(order.issue_rank[i]);
        etype.push(e.event_type.as_str());
        code.push(e.code.as_str());
        act.push(e.classifier == Classifier::Act);
        at.push(millis(e.event_at));
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
        departure_call.push(call && matches!(e.code.as_str(), "LOAD" | "DEPA"));
        arrival_call.push(call && matches!(e.code.as_str(), "DISC" | "ARRI"));
        facility.push(e.facility_code.as_deref());
        facility_type.push(e.facility_type.as_deref());
    }
    let columns = vec![
        Column::new("issue_rank".into(), issue_rank),
        Column::new("etype".into(), etype),
        Column::new("code".into(), code),
        Column::new("act".into(), act),
        Column::new("at".into(), at.clone()),
        Column::new("locode".into(), locode),
        Column::new("mode".into(), mode),
        Column::new("imo".into(), imo),
        Column::new("vessel".into(), vessel),
        Column::new("voyage".into(), voyage),
        Column::new("carrier".into(), carrier),
        Column::new("iso".into(), iso),
        Column::new("empty".into(), empty),
        Column::new("seal".into(), seal),
        Column::new("moves".into(), moves),
        Column::new("departure_call".into(), departure_call),
        Column::new("arrival_call".into(), arrival_call),
        Column::new("facility".into(), facility),
        Column::new("facility_type".into(), facility_type),
    ];
    let moves = Moves {
        at,
        departs,
        discharges,
    };
    Ok((DataFrame::new(n, columns)?, moves))
}

/// Per event in time order (`by_time`: input indexes): its time position and what it reaches
/// (`reach`, by input index).
fn in_time_order<'r>(
    by_time: &'r [usize],
    reach: &'r [Reach],
) -> impl Iterator<Item = (usize, &'r Reach)> {
    by_time.iter().map(|&i| &reach[i]).enumerate()
}

/// The shipment frame's rows, computed once by [`Frames::new`]: per row, the event's time
/// position and the key id; an event's rows are its distinct keys (its attached rows repeat a
/// key per container).
fn shipment_rows(by_time: &[usize], reach: &[Reach]) -> (Vec<IdxSize>, Vec<u32>) {
    let (mut rows, mut ids) = (Vec::new(), Vec::new());
    let mut keys: Vec<u32> = Vec::new();
    for (p, reach) in in_time_order(by_time, reach) {
        keys.clear();
        keys.extend(reach.iter().map(|(k, _)| *k));
        keys.sort_unstable();
        keys.dedup();
        for &k in &keys {
            rows.push(p as IdxSize);
            ids.push(k);
        }
    }
    (rows, ids)
}

/// The rows of `events` (by position in time order) with the columns `extra` added.
fn frame_of(events: &DataFrame, rows: Vec<IdxSize>, extra: Vec<Column>) -> PolarsResult<DataFrame> {
    let mut frame = events.take(&IdxCa::from_vec("row".into(), rows))?;
    for column in extra {
        frame.with_column(column)?;
    }
    Ok(frame)
}

/// The frames of [`super::aggregates`]: the shipment frame (one row per event and shipment key
/// it applies to) and the box frame (one row per event and box it applies to).
pub(super) struct Frames<'a> {
    /// The events, one row each, in time order.
    events: DataFrame,
    /// Per event in time order: its index in the input.
    by_time: Vec<usize>,
    /// Per event (input order): what it reaches.
    reach: Vec<Reach>,
    /// Per event in time order: its place.
    locode: Vec<Option<&'a str>>,
    /// Per event in time order: what the box frame's per-box columns need.
    moves: Moves,
    /// The shipment frame's rows: per row, the event's time position and the key id.
    shipment_rows: Vec<IdxSize>,
    shipment_keys: Vec<u32>,
}

impl<'a> Frames<'a> {
    /// The events' columns in `order`, with what each reaches (from [`Index::reach`]).
    pub(super) fn new(
        events: &'a [EventRow],
        reach: Vec<Reach>,
        order: &Order,
    ) -> PolarsResult<Self> {
        let locode = order
            .by_time
            .iter()
            .map(|&i| events[i].locode.as_deref())
            .collect();
        let (frame, moves) = event_columns(events, order)?;
        let (shipment_rows, shipment_keys) = shipment_rows(&order.by_time, &reach);
        Ok(Self {
            events: frame,
            by_time: order.by_time.clone(),
            reach,
            locode,
            moves,
            shipment_rows,
            shipment_keys,
        })
    }

    /// Per event in time order: its position and what it reaches.
    fn in_time_order(&self) -> impl Iterator<Item = (usize, &Reach)> {
        in_time_order(&self.by_time, &self.reach)
    }

    /// Whether the event at time position `p` is at `place`.
    fn at(&self, p: usize, place: Option<&str>) -> bool {
        self.locode[p].is_some() && self.locode[p] == place
    }

    /// Per row of the shipment frame, whether the event is at its key's `place`.
    fn at_key_place(&self, rows: &[IdxSize], ids: &[u32], place: &[Option<&str>]) -> Vec<bool> {
        rows.iter()
            .zip(ids)
            .map(|(p, k)| self.at(*p as usize, place[*k as usize]))
            .collect()
    }

    /// The shipment frame: `key` (u32), the event's columns, `at_pol`, `at_pod` and
    /// `at_destination` (at the key's places in `places`; false while the destinations are
    /// not known, see [`Self::mark_destinations`]).
    pub(super) fn shipments(&self, places: &KeyPlaces<'_>) -> PolarsResult<DataFrame> {
        let (rows, ids) = (&self.shipment_rows, &self.shipment_keys);
        let at_pol = self.at_key_place(rows, ids, &places.pol);
        let at_pod = self.at_key_place(rows, ids, &places.pod);
        let at_destination = self.at_key_place(rows, ids, &places.destination);
        frame_of(
            &self.events,
            rows.clone(),
            vec![
                Column::new("key".into(), ids.as_slice()),
                Column::new("at_pol".into(), at_pol),
                Column::new("at_pod".into(), at_pod),
                Column::new("at_destination".into(), at_destination),
            ],
        )
    }

    /// Sets the shipment frame's `at_destination` from `places`, once the destinations are
    /// known ([`super::aggregates::destinations`] reads the frame without them).
    pub(super) fn mark_destinations(
        &self,
        frame: &mut DataFrame,
        places: &KeyPlaces<'_>,
    ) -> PolarsResult<()> {
        let at_destination = self.at_key_place(
            &self.shipment_rows,
            &self.shipment_keys,
            &places.destination,
        );
        frame.with_column(Column::new("at_destination".into(), at_destination))?;
        Ok(())
    }

    /// The box frame: `box` (u32), the event's columns, `at_pod`, `at_destination`, and two
    /// per-box columns that decide whether a vessel call moves the box: `box_pod_discharge`
    /// (its first actual discharge at the POD) and `box_first_departure` (its first actual
    /// vessel load or departure).
    pub(super) fn boxes(&self, places: &KeyPlaces<'_>, n_boxes: usize) -> PolarsResult<DataFrame> {
        let mut rows = Vec::new();
        let mut ids = Vec::new();
        let (mut at_pod, mut at_destination) = (Vec::new(), Vec::new());
        let mut pod_discharge: Vec<Option<i64>> = vec![None; n_boxes];
        let mut first_departure: Vec<Option<i64>> = vec![None; n_boxes];
        for (p, reach) in self.in_time_order() {
            let (at, departs) = (self.moves.at[p], self.moves.departs[p]);
            for (k, boxes) in reach {
                let k = *k as usize;
                let (here_pod, here_destination) =
                    (self.at(p, places.pod[k]), self.at(p, places.destination[k]));
                let discharges = here_pod && self.moves.discharges[p];
                for b in boxes.clone() {
                    rows.push(p as IdxSize);
                    ids.push(b);
                    at_pod.push(here_pod);
                    at_destination.push(here_destination);
                    // Rows are in time order: the first seen is the earliest.
                    if discharges {
                        pod_discharge[b as usize].get_or_insert(at);
                    }
                    if departs {
                        first_departure[b as usize].get_or_insert(at);
                    }
                }
            }
        }
        let per_row = |per_box: &[Option<i64>]| -> Vec<Option<i64>> {
            ids.iter().map(|b| per_box[*b as usize]).collect()
        };
        let discharge = Column::new("box_pod_discharge".into(), per_row(&pod_discharge));
        let departure = Column::new("box_first_departure".into(), per_row(&first_departure));
        frame_of(
            &self.events,
            rows,
            vec![
                Column::new("box".into(), ids),
                Column::new("at_pod".into(), at_pod),
                Column::new("at_destination".into(), at_destination),
                discharge,
                departure,
            ],
        )
    }
}

/// The value of `name` in the last row matching `mask`. The frames are in time order and
/// polars keeps the row order within each group, so "last" is the latest.
pub(super) fn last_where(name: &str, mask: Expr) -> Expr {
    col(name).filter(mask).last()
}

/// The value of `name` in the first row matching `mask` (see [`last_where`]).
pub(super) fn first_where(name: &str, mask: Expr) -> Expr {
    col(name).filter(mask).first()
}

/// Sort key for "by issue time": rank by when the carrier issued the event, then event time
/// and id.
pub(super) const BY_ISSUE_TIME: &str = "issue_rank";

/// `frame` in issue-time order (the frames are built in event-time order).
pub(super) fn by_issue_time(frame: LazyFrame) -> LazyFrame {
    frame.sort(
        [BY_ISSUE_TIME],
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

//! Normalization: validated events in, container and shipment tables out (polars).
//!
//! 1. **What an event applies to** (DCSA T&T 2.2: an event concerns every container and
//!    document it references). Its shipments: every bill of lading it names (`TRD`), and for
//!    each booking it names the bills of lading any stored event pairs with that booking (a
//!    booking split into several bills reaches each), else the booking itself. An event that
//!    names containers applies to each of them in each of those shipments; an event that names
//!    only documents applies to every container of its shipments, including containers named
//!    only by later files; an event that names only containers joins, per container, the
//!    shipment of the latest event at or before it that names that container with a document
//!    (else the earliest after it). Events with no shipment to attach to are counted in
//!    [`Derived::unattached`]; they stay stored and attach when a later feed names their
//!    shipment. Every choice is made by total orders over the events' contents, so the order
//!    of the input does not matter.
//! 2. **Routes** (polars, per shipment): port of lading = the first vessel load/departure
//!    port, port of discharge = the last vessel discharge/arrival port (by event time); ports in
//!    between are transshipment ports.
//! 3. **Shipment fields** (polars, per shipment): `pol_atd_at` (actual `DEPA` at the POL),
//!    `pol_etd_at` (latest issued estimate of it), `pod_ata_at` (actual `ARRI` at the POD),
//!    `pod_eta_at` / `pod_original_eta_at` (latest / first issued estimate of the arrival),
//!    vessel name, IMO and voyage of the vessel that calls at the POD, carrier SCAC.
//! 4. **Container fields** (polars, per container; shipment-level events such as vessel
//!    arrivals apply to every container of the shipment): `pod_arrived_at`,
//!    `pod_discharged_at`, `pod_full_out_at` (actual laden `GTOT` at the POD),
//!    `empty_terminated_at` (actual empty `GTIN`/`DROP` after discharge at the POD), seal,
//!    ISO size-type, `ref_numbers` (the DCSA `references` FF, SI, PO, CR, AAO of the events that
//!    apply to the box; a shipment's: its bookings other than its key and the references of all
//!    its events), and the latest actual movement for [`crate::status`] (vessel calls count
//!    only while the box is aboard, see there).
//!
//! "Latest" means by `eventDateTime`, ties broken by `eventCreatedDateTime`; estimates are
//! ordered by when they were issued (`eventCreatedDateTime`).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::{DateTime, Utc};
use polars::prelude::*;
use uuid::Uuid;

use crate::ids;
use crate::journey::{self, Journey};
use crate::model::{Classifier, Container, EventRow, EventType, Shipment};
use crate::reference::{CarrierIndex, PortIndex};
use crate::status::{self, LastMovement};

/// Normalization failures. Validated input should never produce one; it means a bug or an
/// internal limit, and names the stage.
#[derive(Debug, thiserror::Error)]
pub enum NormalizeError {
    #[error("normalization failed in stage {stage}: {source}")]
    Polars {
        stage: &'static str,
        #[source]
        source: PolarsError,
    },
}

fn stage(stage: &'static str) -> impl FnOnce(PolarsError) -> NormalizeError {
    move |source| NormalizeError::Polars { stage, source }
}

/// Which containers an event applies to: the stored event id and the container ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventLink {
    /// Index of the event in the input slice.
    pub event_index: usize,
    pub container_id: Uuid,
    pub shipment_id: Uuid,
}

/// The result of [`derive()`].
#[derive(Debug, Clone, Default)]
pub struct Derived {
    pub shipments: Vec<Shipment>,
    pub containers: Vec<Container>,
    /// Event → container links (an event without a container applies to all of its shipment's).
    pub links: Vec<EventLink>,
    /// Indexes of events that could not be attached to any shipment yet.
    pub unattached: Vec<usize>,
}

/// Reference data the derivation reads: port names and time zones, carrier names.
pub struct Refs<'a> {
    pub ports: &'a PortIndex,
    pub carriers: &'a CarrierIndex,
}

/// Derives shipments, containers and event links for `account` from `events` (all the events
/// known for the affected shipments, in any order). `now` becomes `created_at`/`refreshed_at`
/// of new rows (the store keeps an existing row's `created_at`).
pub fn derive(
    account: Uuid,
    events: &[EventRow],
    refs: &Refs<'_>,
    now: DateTime<Utc>,
) -> Result<Derived, NormalizeError> {
    let attached = attach(events);
    let mut derived = Derived::default();
    for (i, rows) in attached.rows.iter().enumerate() {
        if rows.is_empty() {
            derived.unattached.push(i);
        }
    }
    let containers_of = &attached.containers_of;
    for (i, rows) in attached.rows.iter().enumerate() {
        for (k, c) in rows {
            let shipment_id = ids::shipment_id(account, k);
            let own = c.map(|c| vec![c]);
            let named = own.unwrap_or_else(|| {
                containers_of
                    .get(k)
                    .map(|cs| cs.iter().copied().collect())
                    .unwrap_or_default()
            });
            for c in named {
                derived.links.push(EventLink {
                    event_index: i,
                    container_id: ids::container_id(account, k, c),
                    shipment_id,
                });
            }
        }
    }
    derived
        .links
        .sort_by_key(|l| (l.event_index, l.container_id));
    derived.links.dedup();

    let frame = event_frame(events, &attached.rows).map_err(stage("build event frame"))?;
    let pairs = container_pairs(containers_of).map_err(stage("build container list"))?;
    let journeys = journeys(events, &attached);
    let routes = journeys.route_frame().map_err(stage("routes"))?.lazy();
    let with_ports = frame
        .lazy()
        .join(
            routes,
            [col("key")],
            [col("key")],
            JoinArgs::new(JoinType::Left),
        )
        .with_columns([
            col("locode")
                .eq(col("pol"))
                .fill_null(lit(false))
                .alias("at_pol"),
            col("locode")
                .eq(col("pod"))
                .fill_null(lit(false))
                .alias("at_pod"),
        ]);
    let with_route = with_ports
        .clone()
        .join(
            beyond_the_port(
                destinations(with_ports)
                    .collect()
                    .map_err(stage("destinations"))?,
                refs,
            )
            .map_err(stage("destinations"))?
            .lazy(),
            [col("key")],
            [col("key")],
            JoinArgs::new(JoinType::Left),
        )
        .with_columns([col("locode")
            .eq(col("destination"))
            .fill_null(lit(false))
            .alias("at_destination")]);
    let shipments = shipment_aggregates(with_route.clone())
        .collect()
        .map_err(stage("shipment fields"))?;
    let containers = container_aggregates(with_route, pairs)
        .map_err(stage("expand shipment events to containers"))?
        .collect()
        .map_err(stage("container fields"))?;

    let numbers = ref_numbers(events, &attached);
    derived.shipments = shipment_rows(account, &shipments, refs, &numbers, now)
        .map_err(stage("read shipment fields"))?;
    derived.containers = container_rows(account, &containers, refs, &numbers, now)
        .map_err(stage("read container fields"))?;
    journeys.apply(account, &mut derived.shipments, &mut derived.containers);
    Ok(derived)
}

/// Step 2: the [`journey`] of every container, and the one of each shipment.
struct Journeys<'a> {
    /// Per (shipment key, container).
    containers: HashMap<(&'a str, &'a str), Journey>,
    /// Per shipment key: the journey most of its containers share (same stops and POD
    /// vessel; ties: the first container by number); for a shipment without containers, the
    /// journey of its events.
    shipments: BTreeMap<&'a str, Journey>,
}

/// The journeys of the attached events.
fn journeys<'a>(events: &'a [EventRow], attached: &Attached<'a>) -> Journeys<'a> {
    let mut own: HashMap<(&str, &str), Vec<&EventRow>> = HashMap::new();
    let mut shared: BTreeMap<&str, Vec<&EventRow>> = BTreeMap::new();
    for (e, rows) in events.iter().zip(&attached.rows) {
        for (k, c) in rows {
            match c {
                Some(c) => own.entry((k, c)).or_default().push(e),
                None => shared.entry(k).or_default().push(e),
            }
            shared.entry(k).or_default();
        }
    }
    let mut out = Journeys {
        containers: HashMap::new(),
        shipments: BTreeMap::new(),
    };
    for (k, shared_events) in &shared {
        let boxes = attached.containers_of.get(k);
        let mut counts: Vec<(Journey, usize)> = Vec::new();
        for c in boxes.into_iter().flatten() {
            let mut evs = own.get(&(*k, *c)).cloned().unwrap_or_default();
            evs.extend(shared_events.iter().copied());
            let j = journey::journey(&evs);
            fn signature(j: &Journey) -> (Vec<&str>, Option<&journey::Vessel>) {
                let stops = j.stops.iter().map(|s| s.locode.as_str()).collect();
                (stops, j.pod_leg().map(|l| &l.vessel))
            }
            match counts
                .iter_mut()
                .find(|(seen, _)| signature(seen) == signature(&j))
            {
                Some((_, n)) => *n += 1,
                None => counts.push((j.clone(), 1)),
            }
            out.containers.insert((*k, *c), j);
        }
        // `counts` is in container-number order: the first of the most shared wins ties.
        let best = counts
            .iter()
            .enumerate()
            .max_by_key(|(i, (_, n))| (*n, std::cmp::Reverse(*i)))
            .map(|(_, (j, _))| j.clone());
        let j = best.unwrap_or_else(|| journey::journey(shared_events));
        out.shipments.insert(k, j);
    }
    out
}

impl Journeys<'_> {
    /// Per shipment key, the POL and POD (`key`, `pol`, `pod`) for the polars stages.
    fn route_frame(&self) -> PolarsResult<DataFrame> {
        let keys: Vec<&str> = self.shipments.keys().copied().collect();
        let pol: Vec<Option<&str>> = self
            .shipments
            .values()
            .map(|j| j.pol().map(|s| s.locode.as_str()))
            .collect();
        let pod: Vec<Option<&str>> = self
            .shipments
            .values()
            .map(|j| j.pod().map(|s| s.locode.as_str()))
            .collect();
        df!("key" => keys, "pol" => pol, "pod" => pod)
    }

    /// The journey-derived fields: a shipment's `pol_etd_at`/`pol_atd_at` (departure of the
    /// vessel that took the box on at the POL), `pod_eta_at`/`pod_original_eta_at`/
    /// `pod_ata_at` (arrival of the vessel that brought it to the POD: latest-issued and
    /// first-issued estimate, actual) and the POD vessel (the last leg's); a container's
    /// `pod_arrived_at` (the actual arrival at the POD of the vessel that carried that box).
    fn apply(&self, account: Uuid, shipments: &mut [Shipment], containers: &mut [Container]) {
        for s in shipments.iter_mut() {
            let Some(j) = self.shipments.get(s.bill_of_lading_number.as_str()) else {
                continue;
            };
            let pol = j.pol();
            s.pol_etd_at = pol.and_then(|p| p.departure.estimated);
            s.pol_atd_at = pol.and_then(|p| p.departure.actual);
            if let Some(pod) = j.pod() {
                s.pod_eta_at = pod.arrival.estimated;
                s.pod_original_eta_at = pod.arrival.original_estimate;
                s.pod_ata_at = pod.arrival.actual;
            }
            if let Some(vessel) = j.pod().and_then(|p| p.arrived_on.as_ref()) {
                s.pod_vessel_name = vessel.name.clone();
                s.pod_vessel_imo = vessel.imo.clone();
                s.pod_voyage_number = vessel.voyage.clone();
            }
        }
        let key_of: HashMap<Uuid, &str> = self
            .shipments
            .keys()
            .map(|k| (ids::shipment_id(account, k), *k))
            .collect();
        for c in containers.iter_mut() {
            let Some(k) = key_of.get(&c.shipment_id) else {
                continue;
            };
            let Some(j) = self.containers.get(&(*k, c.number.as_str())) else {
                continue;
            };
            let pod = j.pod();
            if pod.map(|p| Some(p.locode.as_str())) == Some(c.pod_locode.as_deref()) {
                c.pod_arrived_at = pod.and_then(|p| p.arrival.actual);
            }
        }
    }
}

/// Step 1: what every event applies to (see the module documentation).
#[derive(Debug, Default)]
struct Attached<'a> {
    /// Per event (same index as the input): the (shipment key, container) pairs it applies to;
    /// a `None` container means every container of that shipment. Empty when the event cannot
    /// be attached yet.
    rows: Vec<Vec<(&'a str, Option<&'a str>)>>,
    /// Containers of each shipment key (sorted, for stable output).
    containers_of: HashMap<&'a str, BTreeSet<&'a str>>,
}

/// Step 1 (module documentation). Every choice is made by a total order over the events'
/// contents, never by their position in `events`, so any order of the same events gives the
/// same attachment.
fn attach(events: &[EventRow]) -> Attached<'_> {
    // Bills of lading of each booking (a booking may be split into several bills).
    let mut bills_of_booking: HashMap<&str, BTreeSet<&str>> = HashMap::new();
    for e in events {
        for b in &e.bookings {
            for bl in &e.bills_of_lading {
                bills_of_booking.entry(b).or_default().insert(bl);
            }
        }
    }
    // The shipment keys an event names through its documents.
    let direct: Vec<BTreeSet<&str>> = events
        .iter()
        .map(|e| {
            let mut keys: BTreeSet<&str> = e.bills_of_lading.iter().map(String::as_str).collect();
            for b in &e.bookings {
                match bills_of_booking.get(b.as_str()) {
                    Some(bls) => keys.extend(bls.iter().copied()),
                    None => {
                        keys.insert(b);
                    }
                }
            }
            keys
        })
        .collect();
    // When each container was named together with each shipment key: a container-only event
    // belongs to the journey of the latest such naming at or before it (else the earliest).
    let mut namings: HashMap<&str, Vec<(DateTime<Utc>, &str)>> = HashMap::new();
    for (e, keys) in events.iter().zip(&direct) {
        for c in &e.containers {
            for k in keys {
                namings.entry(c).or_default().push((e.event_at, k));
            }
        }
    }
    for v in namings.values_mut() {
        v.sort_unstable();
        v.dedup();
    }
    let shipment_of = |c: &str, at: DateTime<Utc>| -> Option<&str> {
        let v = namings.get(c)?;
        let before = v.partition_point(|(t, _)| *t <= at);
        let (_, k) = if before > 0 { v[before - 1] } else { v[0] };
        Some(k)
    };
    let mut attached = Attached::default();
    for (e, keys) in events.iter().zip(&direct) {
        let mut rows = Vec::new();
        if e.containers.is_empty() {
            rows.extend(keys.iter().map(|k| (*k, None)));
        } else {
            for c in &e.containers {
                if keys.is_empty() {
                    if let Some(k) = shipment_of(c, e.event_at) {
                        rows.push((k, Some(c.as_str())));
                    }
                } else {
                    rows.extend(keys.iter().map(|k| (*k, Some(c.as_str()))));
                }
            }
        }
        for (k, c) in &rows {
            if let Some(c) = c {
                attached.containers_of.entry(k).or_default().insert(c);
            }
        }
        attached.rows.push(rows);
    }
    attached
}

/// Reference numbers of shipments and containers (spec `ref_numbers`).
#[derive(Debug, Default)]
struct RefNumbers<'a> {
    /// Per shipment key: the bookings that are not the key itself and the DCSA `references`
    /// (FF, SI, PO, CR, AAO) of every event attached to the shipment.
    shipments: HashMap<&'a str, BTreeSet<&'a str>>,
    /// Per (shipment key, container): the DCSA `references` of the events that apply to the
    /// container (its own events and the shipment's events that name no container).
    containers: HashMap<(&'a str, &'a str), BTreeSet<&'a str>>,
}

/// Collects [`RefNumbers`] from the attached events.
fn ref_numbers<'a>(events: &'a [EventRow], attached: &Attached<'a>) -> RefNumbers<'a> {
    let mut out = RefNumbers::default();
    for (e, rows) in events.iter().zip(&attached.rows) {
        let values = e.references.iter().map(|r| r.value.as_str());
        for (k, c) in rows {
            let set = out.shipments.entry(k).or_default();
            set.extend(values.clone());
            set.extend(e.bookings.iter().map(String::as_str).filter(|b| b != k));
            let containers: Vec<&str> = match c {
                Some(c) => vec![c],
                None => attached
                    .containers_of
                    .get(k)
                    .map(|cs| cs.iter().copied().collect())
                    .unwrap_or_default(),
            };
            for c in containers {
                out.containers
                    .entry((k, c))
                    .or_default()
                    .extend(values.clone());
            }
        }
    }
    out
}

/// Milliseconds since the Unix epoch (UTC), the time unit of the event frame.
fn millis(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

fn from_millis(ms: Option<i64>) -> Option<DateTime<Utc>> {
    ms.and_then(DateTime::from_timestamp_millis)
}

/// The event frame: one row per (event, shipment key, container) the event applies to (a null
/// container: every container of the shipment); booleans that classify the event are computed
/// here once so that the polars stages stay simple.
fn event_frame(
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

fn container_pairs(containers_of: &HashMap<&str, BTreeSet<&str>>) -> PolarsResult<DataFrame> {
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
fn last_where(name: &str, mask: Expr) -> Expr {
    col(name).filter(mask).last()
}

/// The value of `name` in the first row matching `mask` (see [`last_where`]).
fn first_where(name: &str, mask: Expr) -> Expr {
    col(name).filter(mask).first()
}

/// Sort key for "by event time": the event's rank by event time, then issue time, then event
/// id (computed once in Rust, so polars sorts one integer column instead of three).
const BY_EVENT_TIME: &str = "time_rank";
/// Sort key for "by issue time": rank by when the carrier issued the event, then event time and id.
const BY_ISSUE_TIME: &str = "issue_rank";

fn sorted(frame: LazyFrame, key: &str) -> LazyFrame {
    frame.sort(
        [key],
        SortMultipleOptions::default().with_maintain_order(true),
    )
}

fn is(name: &str, value: &str) -> Expr {
    col(name).eq(lit(value))
}

fn transport(code: &str) -> Expr {
    is("etype", "TRANSPORT").and(is("code", code))
}

fn equipment(code: &str) -> Expr {
    is("etype", "EQUIPMENT").and(is("code", code))
}

fn estimate() -> Expr {
    col("act").not()
}

fn rail() -> Expr {
    col("mode").eq(lit("RAIL")).fill_null(lit(false))
}

fn laden() -> Expr {
    col("empty").fill_null(lit(false)).not()
}

/// Step 2b: the inland destination per shipment key: the place of the last laden equipment or
/// transport event (actual or planned, not a vessel call) after the vessel's arrival at the POD
/// that is neither the POD nor the POL (a rail ramp, an inland depot or the consignee). `null`
/// for port-to-port moves.
fn destinations(frame: LazyFrame) -> LazyFrame {
    let after_pod_arrival = col("at").gt(col("at")
        .filter(col("arrival_call").and(col("at_pod")))
        .min());
    let inland = is("etype", "SHIPMENT")
        .not()
        .and(col("arrival_call").not())
        .and(col("departure_call").not())
        .and(laden())
        .and(col("locode").is_not_null())
        .and(col("at_pod").not())
        .and(col("at_pol").not())
        .and(after_pod_arrival);
    sorted(frame, BY_EVENT_TIME).group_by([col("key")]).agg([
        col("pod").first(),
        last_where("locode", inland).alias("destination"),
    ])
}

/// How far from the POD a place must be to count as an inland destination: closer places
/// (another UN/LOCODE of the same port area, such as Newark for New York) are the port itself.
const INLAND_KM: f64 = 50.0;

/// Drops destinations within [`INLAND_KM`] of the POD (great-circle distance between the ports'
/// coordinates; a place without coordinates is kept).
fn beyond_the_port(df: DataFrame, refs: &Refs<'_>) -> PolarsResult<DataFrame> {
    let c = Cols(&df);
    let (keys, pods, dests) = (c.str("key")?, c.str("pod")?, c.str("destination")?);
    let coords = |l: Option<&str>| {
        l.and_then(|l| refs.ports.get(l))
            .and_then(|p| Some((p.latitude?, p.longitude?)))
    };
    let kept: Vec<Option<&str>> = pods
        .iter()
        .zip(&dests)
        .map(|(pod, dest)| match (coords(*pod), coords(*dest)) {
            (Some(a), Some(b)) if haversine_km(a, b) < INLAND_KM => None,
            _ => *dest,
        })
        .collect();
    df!("key" => keys, "destination" => kept)
}

/// Great-circle distance in kilometres between two (latitude, longitude) points in degrees
/// ([`crate::feeds::ais::distance_nm`], 1.852 km per nautical mile).
fn haversine_km((lat1, lon1): (f64, f64), (lat2, lon2): (f64, f64)) -> f64 {
    crate::feeds::ais::distance_nm(lat1, lon1, lat2, lon2) * 1.852
}

/// Step 3: shipment fields.
fn shipment_aggregates(frame: LazyFrame) -> LazyFrame {
    let pod_call = col("arrival_call").and(col("at_pod"));
    let pod_vessel = pod_call.and(col("vessel").is_not_null());
    let facts = sorted(frame.clone(), BY_EVENT_TIME)
        .group_by([col("key")])
        .agg([
            col("pol").first(),
            col("pod").first(),
            col("destination").first(),
            first_where("at", col("at_destination").and(col("act"))).alias("destination_ata_at"),
            last_where("at", transport("DEPA").and(col("act")).and(col("at_pol")))
                .alias("pol_atd_at"),
            last_where("at", transport("ARRI").and(col("act")).and(col("at_pod")))
                .alias("pod_ata_at"),
            last_where("vessel", pod_vessel.clone()).alias("pod_vessel_name"),
            last_where("imo", pod_vessel.clone()).alias("pod_vessel_imo"),
            last_where("voyage", pod_vessel).alias("pod_voyage_number"),
            last_where("carrier", col("carrier").is_not_null()).alias("carrier"),
            col("created").max().alias("updated"),
        ]);
    let eta = transport("ARRI").and(estimate()).and(col("at_pod"));
    let estimates = sorted(frame, BY_ISSUE_TIME).group_by([col("key")]).agg([
        last_where("at", transport("DEPA").and(estimate()).and(col("at_pol"))).alias("pol_etd_at"),
        last_where("at", eta.clone()).alias("pod_eta_at"),
        first_where("at", eta).alias("pod_original_eta_at"),
        last_where("at", col("at_destination").and(estimate())).alias("destination_eta_at"),
    ]);
    facts.join(
        estimates,
        [col("key")],
        [col("key")],
        JoinArgs::new(JoinType::Left),
    )
}

/// Step 4: container fields. Events without a container apply to all of the shipment's.
fn container_aggregates(frame: LazyFrame, pairs: DataFrame) -> PolarsResult<LazyFrame> {
    // Both halves end with the container column, so their schemas line up for the union.
    let own = frame
        .clone()
        .filter(col("container").is_not_null())
        .select([
            all().exclude_cols(["container"]).as_expr(),
            col("container"),
        ]);
    let shared = frame
        .filter(col("container").is_null())
        .select([all().exclude_cols(["container"]).as_expr()])
        .join(
            pairs.lazy(),
            [col("key")],
            [col("key")],
            JoinArgs::new(JoinType::Inner),
        );
    let all_events = concat([own, shared], UnionArgs::default())?;
    let disc_at_pod = equipment("DISC").and(col("act")).and(col("at_pod"));
    // A vessel's arrival or departure moves the box only while it is aboard (Terminal49
    // `on_ship`: from the vessel load or departure): an arrival before the box's first vessel
    // load or departure (a box gated in at the POL when its vessel arrives), and any vessel
    // event after the box was discharged at the POD (the vessel leaving the POD), are not
    // the box's movements.
    let per_box = [col("key"), col("container")];
    let all_events = all_events.with_columns([
        col("at")
            .filter(disc_at_pod.clone())
            .min()
            .over(per_box.clone())?
            .alias("box_pod_discharge"),
        col("at")
            .filter(col("act").and(col("departure_call")))
            .min()
            .over(per_box)?
            .alias("box_first_departure"),
    ]);
    let vessel_move = is("etype", "TRANSPORT").and(rail().not());
    let not_aboard = col("at")
        .gt(col("box_pod_discharge"))
        .fill_null(lit(false))
        .or(is("code", "ARRI").and(
            col("box_first_departure")
                .is_null()
                .or(col("at").lt(col("box_first_departure"))),
        ));
    let act_move = col("act")
        .and(col("moves"))
        .and(vessel_move.and(not_aboard).not());
    let discharged_before = col("at").gt_eq(col("at").filter(disc_at_pod.clone()).min());
    let empty_return = col("act")
        .and(equipment("GTIN").or(equipment("DROP")))
        .and(col("empty").fill_null(lit(false)))
        .and(discharged_before);
    let ind_eta = sorted(all_events.clone(), BY_ISSUE_TIME)
        .group_by([col("key"), col("container")])
        .agg([last_where(
            "at",
            transport("ARRI")
                .and(rail())
                .and(estimate())
                .and(col("at_destination")),
        )
        .alias("ind_eta_at")]);
    let all_events = sorted(all_events, BY_EVENT_TIME);
    Ok(all_events
        .group_by([col("key"), col("container")])
        .agg([
            col("pod").first(),
            col("destination").first(),
            last_where(
                "facility",
                col("arrival_call")
                    .and(col("at_pod"))
                    .and(col("facility").is_not_null()),
            )
            .alias("pod_facility"),
            last_where(
                "at",
                equipment("GTOT")
                    .and(col("act"))
                    .and(col("at_destination"))
                    .and(laden()),
            )
            .alias("final_destination_full_out_at"),
            last_where("at", transport("ARRI").and(col("act")).and(col("at_pod")))
                .alias("pod_arrived_at"),
            last_where("at", disc_at_pod.clone()).alias("pod_discharged_at"),
            last_where(
                "at",
                equipment("GTOT")
                    .and(col("act"))
                    .and(col("at_pod"))
                    .and(laden()),
            )
            .alias("pod_full_out_at"),
            last_where("at", empty_return.clone()).alias("empty_terminated_at"),
            last_where("locode", empty_return).alias("empty_terminated_locode"),
            last_where("seal", col("seal").is_not_null()).alias("seal"),
            last_where("iso", col("iso").is_not_null()).alias("iso"),
            last_where("etype", act_move.clone()).alias("last_type"),
            last_where("code", act_move.clone()).alias("last_code"),
            last_where("empty", act_move.clone()).alias("last_empty"),
            last_where("mode", act_move.clone()).alias("last_mode"),
            last_where("at_pod", act_move.clone()).alias("last_at_pod"),
            last_where("facility_type", act_move.clone()).alias("last_facility_type"),
            last_where("at", act_move).alias("last_at"),
            col("at")
                .filter(disc_at_pod)
                .min()
                .alias("first_pod_discharge"),
            last_where(
                "at",
                equipment("LOAD")
                    .and(rail())
                    .and(col("act"))
                    .and(col("at_pod")),
            )
            .alias("pod_rail_loaded_at"),
            last_where(
                "at",
                transport("DEPA")
                    .and(rail())
                    .and(col("act"))
                    .and(col("at_pod")),
            )
            .alias("pod_rail_departed_at"),
            last_where(
                "carrier",
                rail().and(col("at_pod")).and(col("carrier").is_not_null()),
            )
            .alias("pod_rail_carrier_scac"),
            last_where(
                "at",
                transport("ARRI")
                    .and(rail())
                    .and(col("act"))
                    .and(col("at_destination")),
            )
            .alias("ind_ata_at"),
            last_where(
                "at",
                equipment("DISC")
                    .and(rail())
                    .and(col("act"))
                    .and(col("at_destination")),
            )
            .alias("ind_rail_unloaded_at"),
            last_where(
                "carrier",
                rail()
                    .and(col("at_destination"))
                    .and(col("carrier").is_not_null()),
            )
            .alias("ind_rail_carrier_scac"),
            col("at")
                .filter(col("act").and(col("departure_call")))
                .min()
                .alias("first_vessel_load"),
            col("at")
                .filter(equipment("STUF").and(col("act")))
                .min()
                .alias("first_stuffed"),
            col("created").max().alias("updated"),
        ])
        .join(
            ind_eta,
            [col("key"), col("container")],
            [col("key"), col("container")],
            JoinArgs::new(JoinType::Left),
        ))
}

/// Typed column readers over a collected frame.
struct Cols<'a>(&'a DataFrame);

impl<'a> Cols<'a> {
    fn str(&self, name: &str) -> PolarsResult<Vec<Option<&'a str>>> {
        Ok(self.0.column(name)?.str()?.iter().collect())
    }
    fn i64(&self, name: &str) -> PolarsResult<Vec<Option<i64>>> {
        Ok(self.0.column(name)?.i64()?.iter().collect())
    }
    fn bool(&self, name: &str) -> PolarsResult<Vec<Option<bool>>> {
        Ok(self.0.column(name)?.bool()?.iter().collect())
    }
    fn time(&self, name: &str) -> PolarsResult<Vec<Option<DateTime<Utc>>>> {
        Ok(self.i64(name)?.into_iter().map(from_millis).collect())
    }
}

fn owned(s: Option<&str>) -> Option<String> {
    s.map(str::to_string)
}

fn shipment_rows(
    account: Uuid,
    df: &DataFrame,
    refs: &Refs<'_>,
    numbers: &RefNumbers<'_>,
    now: DateTime<Utc>,
) -> PolarsResult<Vec<Shipment>> {
    let c = Cols(df);
    let (key, pol, pod) = (c.str("key")?, c.str("pol")?, c.str("pod")?);
    let (pol_atd, pol_etd, pod_ata) = (
        c.time("pol_atd_at")?,
        c.time("pol_etd_at")?,
        c.time("pod_ata_at")?,
    );
    let (pod_eta, pod_oeta) = (c.time("pod_eta_at")?, c.time("pod_original_eta_at")?);
    let (vessel, imo, voyage) = (
        c.str("pod_vessel_name")?,
        c.str("pod_vessel_imo")?,
        c.str("pod_voyage_number")?,
    );
    let carrier = c.str("carrier")?;
    let destination = c.str("destination")?;
    let (dest_eta, dest_ata) = (c.time("destination_eta_at")?, c.time("destination_ata_at")?);
    let mut out = Vec::with_capacity(df.height());
    for i in 0..df.height() {
        let Some(k) = key[i] else { continue };
        let port = |code: Option<&str>| code.and_then(|p| refs.ports.get(p));
        let line = carrier[i]
            .and_then(|s| refs.carriers.get(s))
            .or_else(|| k.get(..4).and_then(|p| refs.carriers.get(p)));
        let scac = line
            .map(|l| l.scac.clone())
            .or_else(|| owned(carrier[i]))
            .unwrap_or_default();
        let ref_numbers = numbers
            .shipments
            .get(k)
            .map(|set| set.iter().map(|r| r.to_string()).collect())
            .unwrap_or_default();
        out.push(Shipment {
            id: ids::shipment_id(account, k),
            account_id: account,
            bill_of_lading_number: k.to_string(),
            normalized_number: normalized_number(
                k,
                &scac,
                line.and_then(|l| l.bill_of_lading_prefix.as_deref()),
            ),
            ref_numbers,
            created_at: now,
            refreshed_at: now,
            tags: Vec::new(),
            port_of_lading_locode: owned(pol[i]),
            port_of_lading_name: port(pol[i]).map(|p| p.name.clone()),
            port_of_discharge_locode: owned(pod[i]),
            port_of_discharge_name: port(pod[i]).map(|p| p.name.clone()),
            destination_locode: owned(destination[i]),
            destination_name: port(destination[i]).map(|p| p.name.clone()),
            shipping_line_name: line.map(|l| l.name.clone()).unwrap_or_else(|| scac.clone()),
            shipping_line_short_name: line
                .map(|l| l.short_name.clone())
                .unwrap_or_else(|| scac.clone()),
            shipping_line_scac: scac,
            customer_name: None,
            pod_vessel_name: owned(vessel[i]),
            pod_vessel_imo: owned(imo[i]),
            pod_voyage_number: owned(voyage[i]),
            pol_etd_at: pol_etd[i],
            pol_atd_at: pol_atd[i],
            pod_eta_at: pod_eta[i],
            pod_original_eta_at: pod_oeta[i],
            pod_ata_at: pod_ata[i],
            destination_eta_at: dest_eta[i],
            destination_ata_at: dest_ata[i],
            pol_timezone: port(pol[i]).and_then(|p| p.time_zone.clone()),
            pod_timezone: port(pod[i]).and_then(|p| p.time_zone.clone()),
            destination_timezone: port(destination[i]).and_then(|p| p.time_zone.clone()),
            line_tracking_last_attempted_at: None,
            line_tracking_last_succeeded_at: None,
            line_tracking_stopped_at: None,
            line_tracking_stopped_reason: None,
            pod_terminal_id: None,
        });
    }
    out.sort_by(|a, b| a.bill_of_lading_number.cmp(&b.bill_of_lading_number));
    Ok(out)
}

/// The number to query the carrier with: upper case, no spaces or dashes, without the carrier's
/// SCAC or bill-of-lading prefix (e.g. `MEDU1234567` → `1234567`).
pub fn normalized_number(number: &str, scac: &str, bl_prefix: Option<&str>) -> String {
    let n: String = number
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_uppercase())
        .collect();
    for prefix in [Some(scac), bl_prefix].into_iter().flatten() {
        if !prefix.is_empty() && n.len() > prefix.len() && n.starts_with(prefix) {
            return n[prefix.len()..].to_string();
        }
    }
    n
}

/// Equipment type, length (feet) and height from an ISO 6346 size-type code such as `45G1`
/// (ISO 6346:1995 §4: first character length, second height, last two type group).
pub fn equipment_from_iso(code: &str) -> (Option<String>, Option<i32>, Option<String>) {
    let b = code.as_bytes();
    if b.len() != 4 {
        return (None, None, None);
    }
    let length = match b[0] {
        b'1' => Some(10),
        b'2' => Some(20),
        b'3' => Some(30),
        b'4' => Some(40),
        b'L' | b'M' => Some(45),
        _ => None,
    };
    let height = match b[1] {
        b'0' | b'2' | b'4' => Some("standard"),
        b'5' | b'6' | b'E' | b'F' => Some("high_cube"),
        _ => None,
    };
    let kind = match b[2] {
        b'G' | b'V' | b'S' => Some("dry"),
        b'R' | b'H' => Some("reefer"),
        b'U' => Some("open top"),
        b'P' => Some("flat rack"),
        b'B' => Some("bulk"),
        b'T' => Some("tank"),
        _ => None,
    };
    (kind.map(str::to_string), length, height.map(str::to_string))
}

fn container_rows(
    account: Uuid,
    df: &DataFrame,
    refs: &Refs<'_>,
    numbers: &RefNumbers<'_>,
    now: DateTime<Utc>,
) -> PolarsResult<Vec<Container>> {
    let c = Cols(df);
    let (key, number, pod) = (c.str("key")?, c.str("container")?, c.str("pod")?);
    let (arrived, discharged) = (c.time("pod_arrived_at")?, c.time("pod_discharged_at")?);
    let (full_out, empty_at) = (c.time("pod_full_out_at")?, c.time("empty_terminated_at")?);
    let empty_locode = c.str("empty_terminated_locode")?;
    let pod_facility = c.str("pod_facility")?;
    let (destination, dest_full_out) = (
        c.str("destination")?,
        c.time("final_destination_full_out_at")?,
    );
    let (seal, iso) = (c.str("seal")?, c.str("iso")?);
    let (l_type, l_code, l_mode) = (
        c.str("last_type")?,
        c.str("last_code")?,
        c.str("last_mode")?,
    );
    let (l_empty, l_at_pod, l_at) = (
        c.bool("last_empty")?,
        c.bool("last_at_pod")?,
        c.i64("last_at")?,
    );
    let (first_disc, first_load) = (c.i64("first_pod_discharge")?, c.i64("first_vessel_load")?);
    let (l_facility_type, first_stuffed) = (c.str("last_facility_type")?, c.i64("first_stuffed")?);
    let (rail_loaded, rail_departed) = (
        c.time("pod_rail_loaded_at")?,
        c.time("pod_rail_departed_at")?,
    );
    let (ind_eta, ind_ata) = (c.time("ind_eta_at")?, c.time("ind_ata_at")?);
    let ind_unloaded = c.time("ind_rail_unloaded_at")?;
    let (pod_rail_scac, ind_rail_scac) = (
        c.str("pod_rail_carrier_scac")?,
        c.str("ind_rail_carrier_scac")?,
    );
    let mut out = Vec::with_capacity(df.height());
    for i in 0..df.height() {
        let (Some(k), Some(n)) = (key[i], number[i]) else {
            continue;
        };
        let tz = |code: Option<&str>| {
            code.and_then(|p| refs.ports.get(p))
                .and_then(|p| p.time_zone.clone())
        };
        let last = match (l_type[i].and_then(EventType::parse), l_code[i], l_at[i]) {
            (Some(event_type), Some(code), Some(at)) => Some(LastMovement {
                event_type,
                code,
                empty: l_empty[i],
                mode: l_mode[i],
                facility_type: l_facility_type[i],
                at_pod: l_at_pod[i].unwrap_or(false),
                discharged_at_pod: first_disc[i].is_some_and(|d| d <= at),
                loaded_on_vessel: first_load[i].is_some_and(|d| d <= at),
                stuffed: first_stuffed[i].is_some_and(|d| d <= at),
                inland_move: destination[i].is_some(),
            }),
            _ => None,
        };
        let (equipment_type, equipment_length, equipment_height) =
            iso[i].map(equipment_from_iso).unwrap_or((None, None, None));
        out.push(Container {
            id: ids::container_id(account, k, n),
            account_id: account,
            shipment_id: ids::shipment_id(account, k),
            number: n.to_string(),
            ref_numbers: numbers
                .containers
                .get(&(k, n))
                .map(|set| set.iter().map(|r| r.to_string()).collect())
                .unwrap_or_default(),
            seal_number: owned(seal[i]),
            created_at: now,
            refreshed_at: now,
            equipment_type,
            equipment_length,
            equipment_height,
            weight_in_lbs: None,
            pickup_lfd: None,
            pickup_appointment_at: None,
            availability_known: false,
            available_for_pickup: None,
            pod_arrived_at: arrived[i],
            pod_discharged_at: discharged[i],
            pod_full_out_at: full_out[i],
            terminal_checked_at: None,
            pod_full_out_chassis_number: None,
            location_at_pod_terminal: None,
            final_destination_full_out_at: dest_full_out[i],
            empty_terminated_at: empty_at[i],
            holds_at_pod_terminal: Vec::new(),
            fees_at_pod_terminal: Vec::new(),
            pod_timezone: tz(pod[i]),
            final_destination_timezone: tz(destination[i]),
            empty_terminated_timezone: tz(empty_locode[i]),
            pod_rail_carrier_scac: owned(pod_rail_scac[i]),
            ind_rail_carrier_scac: owned(ind_rail_scac[i]),
            pod_last_tracking_request_at: None,
            shipment_last_tracking_request_at: None,
            pod_rail_loaded_at: rail_loaded[i],
            pod_rail_departed_at: rail_departed[i],
            ind_eta_at: ind_eta[i],
            ind_ata_at: ind_ata[i],
            ind_rail_unloaded_at: ind_unloaded[i],
            ind_facility_lfd_on: None,
            import_deadlines: None,
            current_status: status::derive(last),
            pod_locode: owned(pod[i]),
            pod_terminal_id: pod_facility[i].and_then(|code| {
                crate::terminals::bundled()
                    .resolve(pod[i], code)
                    .ok()
                    .map(|t| t.id)
            }),
            pickup_facility_id: None,
            last_movement_at: from_millis(l_at[i]),
        });
    }
    out.sort_by(|a, b| (a.shipment_id, &a.number).cmp(&(b.shipment_id, &b.number)));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::feeds;
    use crate::reference;

    fn refs() -> Refs<'static> {
        let (ports, carriers) = reference::bundled();
        Refs { ports, carriers }
    }

    fn sample(name: &str) -> Vec<EventRow> {
        let path = format!("{}/../data/dcsa/{name}", env!("CARGO_MANIFEST_DIR"));
        feeds::read_file(std::path::Path::new(&path))
            .expect(name)
            .events
            .into_iter()
            .map(|e| e.row)
            .collect()
    }

    #[test]
    fn the_dcsa_22_sample_becomes_one_shipment_and_one_container() {
        let account = Uuid::from_u128(1);
        let now = Utc::now();
        let d = derive(account, &sample("tnt-220-response.json"), &refs(), now).unwrap();
        assert_eq!(d.shipments.len(), 1);
        assert_eq!(d.containers.len(), 1);
        assert!(d.unattached.is_empty());
        let s = &d.shipments[0];
        assert_eq!(s.bill_of_lading_number, "reserved-HHL123");
        // The booking and the values of the sample's FF (freight forwarder's) references: the
        // DCSA sample gives "string" on most events and "APZU4812090" on its last LOAD.
        assert_eq!(s.ref_numbers, ["ABC123123123", "APZU4812090", "string"]);
        assert_eq!(s.shipping_line_scac, "MAEU");
        // The sample's events: King of the Seas arrives at Paris (ACT) and the box is to be
        // loaded onto it there (LOAD, EST). By the DCSA definitions Paris is where the box
        // leaves from, the port of lading; no later call is given, so there is no POD yet,
        // and the vessel's arrival before the load is not the box's.
        assert_eq!(s.port_of_lading_locode.as_deref(), Some("FRPAR"));
        assert_eq!(s.pol_timezone.as_deref(), Some("Europe/Paris"));
        assert_eq!(s.port_of_discharge_locode, None);
        assert_eq!(s.pod_vessel_name, None);
        assert_eq!(s.pod_ata_at, None);
        let c = &d.containers[0];
        assert_eq!(c.number, "APZU4812090");
        assert_eq!(c.shipment_id, s.id);
        assert_eq!(c.pod_arrived_at, None);
        assert_eq!(c.current_status, crate::model::ContainerStatus::New);
        assert_eq!(
            (c.equipment_length, c.equipment_type.as_deref()),
            (Some(20), Some("dry"))
        );
        // Every event applies to the one container.
        assert_eq!(d.links.len(), 7);
    }

    #[test]
    fn iso_size_type_codes() {
        assert_eq!(
            equipment_from_iso("45G1"),
            (Some("dry".into()), Some(40), Some("high_cube".into()))
        );
        assert_eq!(
            equipment_from_iso("22R1"),
            (Some("reefer".into()), Some(20), Some("standard".into()))
        );
        assert_eq!(equipment_from_iso("L5G1").1, Some(45));
        assert_eq!(equipment_from_iso("22UT").0.as_deref(), Some("open top"));
        assert_eq!(equipment_from_iso("x"), (None, None, None));
        assert_eq!(
            normalized_number("MEDU 1234567", "MSCU", Some("MEDU")),
            "1234567"
        );
    }
}

#[cfg(test)]
mod destination_tests {
    use super::*;
    use crate::model::ContainerStatus;
    use crate::reference;

    fn event(code: &str, t: EventType, locode: &str, day: u32, mode: Option<&str>) -> EventRow {
        let at = DateTime::parse_from_rfc3339(&format!("2026-03-{day:02}T08:00:00Z"))
            .unwrap()
            .with_timezone(&Utc);
        EventRow {
            event_id: format!("{code}-{locode}-{day}"),
            event_type: t,
            classifier: Classifier::Act,
            code: code.into(),
            event_at: at,
            event_created_at: Some(at),
            containers: if t == EventType::Equipment {
                vec!["MSKU1234565".to_string()]
            } else {
                Vec::new()
            },
            bills_of_lading: vec!["MAEU123456789".into()],
            bookings: Vec::new(),
            references: Vec::new(),
            transport_call_id: None,
            locode: Some(locode.into()),
            location_name: None,
            facility_code: None,
            facility_type: None,
            mode_of_transport: mode.map(str::to_string),
            transport_call_sequence: None,
            vessel_imo: None,
            vessel_name: None,
            export_voyage: None,
            import_voyage: None,
            carrier_scac: Some("MAEU".into()),
            iso_equipment_code: Some("45G1".into()),
            empty: Some(false),
            seal_number: None,
            delay_reason: None,
            remark: None,
        }
    }

    fn derive_all(events: &[EventRow]) -> Derived {
        let (ports, carriers) = reference::bundled();
        let now = DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        derive(Uuid::from_u128(9), events, &Refs { ports, carriers }, now).unwrap()
    }

    fn status_of(d: &Derived, number: &str) -> ContainerStatus {
        d.containers
            .iter()
            .find(|c| c.number == number)
            .unwrap_or_else(|| panic!("{number} derived"))
            .current_status
    }

    /// Terminal49: a box is `on_ship` from its vessel load or departure. A box only gated in
    /// at the POL stays `new` when its vessel arrives there; a box discharged at the POD does
    /// not go back on the ship when the vessel leaves the POD.
    #[test]
    fn vessel_calls_move_only_a_box_that_is_aboard() {
        use EventType::*;
        let mut gate_in = event("GTIN", Equipment, "NLRTM", 1, Some("TRUCK"));
        gate_in.mode_of_transport = None;
        let arrival_at_pol = event("ARRI", Transport, "NLRTM", 2, Some("VESSEL"));
        let d = derive_all(&[gate_in.clone(), arrival_at_pol.clone()]);
        assert_eq!(status_of(&d, "MSKU1234565"), ContainerStatus::New);
        let load = event("LOAD", Equipment, "NLRTM", 3, Some("VESSEL"));
        let d = derive_all(&[gate_in.clone(), arrival_at_pol.clone(), load.clone()]);
        assert_eq!(status_of(&d, "MSKU1234565"), ContainerStatus::OnShip);
        // A departure alone (no LOAD event in the feed) puts the box on the ship.
        let departure = event("DEPA", Transport, "NLRTM", 3, Some("VESSEL"));
        let d = derive_all(&[gate_in, arrival_at_pol, departure.clone()]);
        assert_eq!(status_of(&d, "MSKU1234565"), ContainerStatus::OnShip);

        let journey = vec![
            load,
            departure,
            event("ARRI", Transport, "USNYC", 10, Some("VESSEL")),
            event("DISC", Equipment, "USNYC", 11, Some("VESSEL")),
            event("DEPA", Transport, "USNYC", 12, Some("VESSEL")),
        ];
        let d = derive_all(&journey);
        assert_eq!(status_of(&d, "MSKU1234565"), ContainerStatus::Grounded);
    }

    /// DCSA: an event applies to every container it names (each `EQ` reference), and an
    /// event that names only the bill of lading to every container of that bill.
    #[test]
    fn an_event_reaches_every_container_it_names() {
        use EventType::*;
        let boxes = ["MSKU1234565", "MSKU2935385", "MSKU3517815"];
        let mut events = Vec::new();
        for b in boxes {
            let mut load = event("LOAD", Equipment, "NLRTM", 1, Some("VESSEL"));
            load.event_id = format!("load-{b}");
            load.containers = vec![b.to_string()];
            events.push(load);
        }
        let mut arrival = event("ARRI", Transport, "USNYC", 10, Some("VESSEL"));
        arrival.containers = boxes[..2].iter().map(|b| b.to_string()).collect();
        events.push(arrival.clone());
        let mut departure = event("DEPA", Transport, "NLRTM", 1, Some("VESSEL"));
        departure.bills_of_lading = vec!["MAEU123456789".into()];
        events.push(departure);
        let d = derive_all(&events);
        assert_eq!(d.containers.len(), 3);
        for c in &d.containers {
            let named = arrival.containers.contains(&c.number);
            assert_eq!(
                c.pod_arrived_at.is_some(),
                named,
                "{}: the arrival names {:?}",
                c.number,
                arrival.containers
            );
        }
        // The departure names only the bill: it is linked to all three containers.
        let depa = events.len() - 1;
        assert_eq!(d.links.iter().filter(|l| l.event_index == depa).count(), 3);
        // The arrival, to the two it names.
        assert_eq!(d.links.iter().filter(|l| l.event_index == 3).count(), 2);
    }

    /// A booking-only event attaches to the bill of lading that a later event pairs it with,
    /// whatever the order of the events.
    #[test]
    fn a_booking_only_event_joins_its_bill_of_lading_in_any_order() {
        use EventType::*;
        let mut gate_out = event("GTOT", Equipment, "NLRTM", 1, Some("TRUCK"));
        gate_out.bills_of_lading = Vec::new();
        gate_out.bookings = vec!["BKG1".into()];
        let mut load = event("LOAD", Equipment, "NLRTM", 2, Some("VESSEL"));
        load.bookings = vec!["BKG1".into()];
        let a = derive_all(&[gate_out.clone(), load.clone()]);
        let b = derive_all(&[load, gate_out]);
        assert_eq!(a.shipments.len(), 1);
        assert_eq!(a.shipments[0].bill_of_lading_number, "MAEU123456789");
        assert_eq!(a.shipments[0].ref_numbers, ["BKG1"]);
        assert_eq!(a.shipments, b.shipments);
        assert_eq!(a.containers, b.containers);
    }

    #[test]
    fn an_inland_move_after_the_pod_names_the_destination() {
        use EventType::*;
        let events = vec![
            event("LOAD", Equipment, "NLRTM", 1, Some("VESSEL")),
            event("DEPA", Transport, "NLRTM", 1, Some("VESSEL")),
            event("ARRI", Transport, "USNYC", 10, Some("VESSEL")),
            event("DISC", Equipment, "USNYC", 11, Some("VESSEL")),
            event("LOAD", Equipment, "USNYC", 12, Some("RAIL")),
            event("DEPA", Transport, "USNYC", 12, Some("RAIL")),
            event("ARRI", Transport, "USCHI", 14, Some("RAIL")),
            event("DISC", Equipment, "USCHI", 14, Some("RAIL")),
            event("GTOT", Equipment, "USCHI", 15, Some("TRUCK")),
        ];
        let mut events = events;
        for e in events
            .iter_mut()
            .filter(|e| e.mode_of_transport.as_deref() == Some("RAIL"))
        {
            e.carrier_scac = Some("CSXT".into());
        }
        let mut eta = events[6].clone();
        eta.event_id = "rail-eta".into();
        eta.classifier = Classifier::Est;
        eta.event_created_at = Some(events[4].event_at);
        events.push(eta);
        let (ports, carriers) = reference::bundled();
        let d = derive(
            Uuid::from_u128(9),
            &events,
            &Refs { ports, carriers },
            Utc::now(),
        )
        .unwrap();
        let s = &d.shipments[0];
        assert_eq!(s.port_of_discharge_locode.as_deref(), Some("USNYC"));
        assert_eq!(s.destination_locode.as_deref(), Some("USCHI"));
        assert_eq!(s.destination_timezone.as_deref(), Some("America/Chicago"));
        assert_eq!(s.destination_ata_at, Some(events[6].event_at));
        let c = &d.containers[0];
        assert_eq!(c.final_destination_full_out_at, Some(events[8].event_at));
        assert_eq!(c.pod_rail_loaded_at, Some(events[4].event_at));
        assert_eq!(c.pod_rail_departed_at, Some(events[5].event_at));
        assert_eq!(c.ind_ata_at, Some(events[6].event_at));
        assert_eq!(c.ind_eta_at, Some(events[6].event_at));
        assert_eq!(c.ind_rail_unloaded_at, Some(events[7].event_at));
        assert_eq!(c.pod_rail_carrier_scac.as_deref(), Some("CSXT"));
        assert_eq!(c.ind_rail_carrier_scac.as_deref(), Some("CSXT"));
        assert_eq!(c.current_status, ContainerStatus::PickedUp);
        // The same journey seen up to each step: the status follows the latest movement.
        let expect = [
            (3, ContainerStatus::OnShip),
            (4, ContainerStatus::AwaitingInlandTransfer),
            (5, ContainerStatus::OnRail),
            (8, ContainerStatus::Grounded),
        ];
        for (n, status) in expect {
            // What the carrier had sent by then: the actual events so far and the rail plan.
            let mut seen = events[..n].to_vec();
            seen.push(events[9].clone());
            let d = derive(
                Uuid::from_u128(9),
                &seen,
                &Refs { ports, carriers },
                Utc::now(),
            )
            .unwrap();
            assert_eq!(d.containers[0].current_status, status, "after {n} events");
        }
        assert_eq!(
            c.final_destination_timezone.as_deref(),
            Some("America/Chicago")
        );
        assert_eq!(
            c.pod_full_out_at, None,
            "no full-out at the POD on an inland move"
        );
    }
}

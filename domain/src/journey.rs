//! A container's journey by sea: its transport calls, its legs and its stops (POL, each
//! transshipment port, POD), from the events that apply to it. One pure function
//! ([`journey`]) that both the tables (`teu_pipeline::normalize`: POL, POD, ETD/ATD, ETA/ATA, the
//! POD vessel, `pod_arrived_at`) and the maps (`teu_pipeline::route`) read, so they agree.
//!
//! Rules (DCSA T&T 2.2 definitions; issue "Derived data that is right", item 3):
//!
//! - **Vessel events**: transport `ARRI`/`DEPA` and equipment `LOAD`/`DISC` with a UN/LOCODE,
//!   by vessel or barge (mode absent, `VESSEL`, `BARGE`). Rail and truck moves are not sea legs.
//! - **A transport call** is one vessel at one place on one voyage. Its key is the vessel (IMO,
//!   else name) and the UN/LOCODE: a box does not call twice at one port on one vessel
//!   voyage, and carriers do not give the DCSA `transportCallID` or both voyage numbers on
//!   every event, so those would split one call. Events that name no vessel join the one call
//!   at their UN/LOCODE when there is exactly one, else a call of their own.
//! - **Milestones**: per call, the arrival (`ARRI`), departure (`DEPA`), load (`LOAD`) and
//!   discharge (`DISC`) times. For each, an actual (`ACT`) version supersedes estimates
//!   (`EST`), which supersede plans (`PLN`); among versions of one classifier the
//!   later-issued (`eventCreatedDateTime`) wins. A revised estimate changes a time, never adds
//!   a call, so never adds a port.
//! - **Legs**: the box's route is a chain of vessel voyages. It starts at the port of the
//!   box's earliest departure-side event (`LOAD`/`DEPA`). At each port the box leaves on the
//!   vessel it actually left on (an `ACT` load or departure there, the latest if several),
//!   else on the vessel of the latest-issued plan or estimate: a rolled box (planned on one
//!   vessel, loaded on another) shows the vessel that loaded it, and the other vessel's calls
//!   drop out. The leg ends at that vessel's first later call with a discharge of the box
//!   (any classifier), else at its last later call among the box's events; calls in between
//!   are ports the vessel called at with the box aboard, not transshipments.
//! - **Stops**: the legs' ends, each once, in voyage order: POL, TS1, …, POD. A stop's arrival
//!   is the arrival of the vessel that brought the box there; its departure that of the
//!   vessel that took it on (so a transshipment port's ATA is the feeder's, not the connecting
//!   vessel's).
//! - **Leg state**: completed when the vessel arrived at the leg's end (`ACT` arrival or
//!   discharge there) or a later leg has started; in progress when it departed (`ACT`
//!   departure or load at the start) and not completed; else not started.
//!
//! Every choice uses total orders over the events' contents (times, then event ids), so the
//! order of the input does not change the result.

use chrono::{DateTime, Utc};

use crate::model::{Classifier, EventRow, EventType, Imo, UnLocode};

/// One of a call's times (arrival, departure, load or discharge), all UTC.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Milestone {
    /// The actual time (`ACT`), latest-issued version.
    pub actual: Option<DateTime<Utc>>,
    /// The latest-issued estimate (`EST`), else the latest-issued plan (`PLN`).
    pub estimated: Option<DateTime<Utc>>,
    /// The first-issued estimate or plan.
    pub original_estimate: Option<DateTime<Utc>>,
    /// When the latest version used here was issued.
    pub updated_at: Option<DateTime<Utc>>,
}

impl Milestone {
    /// The actual time, else the estimate.
    pub fn best(&self) -> Option<DateTime<Utc>> {
        self.actual.or(self.estimated)
    }

    fn is_empty(&self) -> bool {
        self.actual.is_none() && self.estimated.is_none()
    }
}

/// The vessel of a leg, as the events name it.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Vessel {
    /// IMO number, 7 digits.
    pub imo: Option<Imo>,
    pub name: Option<String>,
    /// The voyage number (export voyage, else import voyage).
    pub voyage: Option<String>,
}

/// One transport call: one vessel at one port (module documentation).
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// UN/LOCODE of the port.
    pub locode: UnLocode,
    /// Facility (terminal) code of the call, SMDG or BIC, when an event gives one.
    pub facility_code: Option<String>,
    /// The vessel, with its (export, else import) voyage.
    pub vessel: Vessel,
    /// The import voyage (else export), the voyage the vessel arrived on.
    pub arrival_voyage: Option<String>,
    pub arrival: Milestone,
    pub departure: Milestone,
    pub load: Milestone,
    pub discharge: Milestone,
}

impl Call {
    /// The vessel as it arrived here (its import voyage).
    fn arriving_vessel(&self) -> Vessel {
        Vessel {
            voyage: self.arrival_voyage.clone().or(self.vessel.voyage.clone()),
            ..self.vessel.clone()
        }
    }
}

impl Call {
    /// When the call happens, for ordering: arrival, else departure, else discharge, else load
    /// (actual, else estimated).
    fn time(&self) -> Option<DateTime<Utc>> {
        self.arrival
            .best()
            .or(self.departure.best())
            .or(self.discharge.best())
            .or(self.load.best())
    }

    /// When the box left on this call's vessel: the departure, else the load.
    fn leave_time(&self) -> Option<DateTime<Utc>> {
        self.departure.best().or(self.load.best())
    }

    fn has_departure_side(&self) -> bool {
        !(self.departure.is_empty() && self.load.is_empty())
    }
}

/// A stop of the box: POL, a transshipment port or the POD.
#[derive(Debug, Clone, PartialEq)]
pub struct Stop {
    /// UN/LOCODE.
    pub locode: UnLocode,
    /// The facility code of the calls there, when an event gives one.
    pub facility_code: Option<String>,
    /// Arrival of the vessel that brought the box (empty at the POL).
    pub arrival: Milestone,
    /// Departure of the vessel that took the box on (empty at the POD).
    pub departure: Milestone,
    /// Latest issue time of the events of the calls used here.
    pub updated_at: Option<DateTime<Utc>>,
    /// The vessel that brought the box here (`None` at the POL).
    pub arrived_on: Option<Vessel>,
}

/// Where a leg stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LegState {
    NotStarted,
    InProgress,
    Completed,
}

/// One vessel voyage of the box between two stops.
#[derive(Debug, Clone, PartialEq)]
pub struct Leg {
    /// Indexes into [`Journey::stops`].
    pub from: usize,
    pub to: usize,
    pub vessel: Vessel,
    /// The load of the box at `from` and its discharge at `to`.
    pub load: Milestone,
    pub discharge: Milestone,
    pub state: LegState,
}

impl Leg {
    /// When the leg began for tracks: the actual departure, else the actual load.
    pub fn started_at(&self, journey: &Journey) -> Option<DateTime<Utc>> {
        journey.stops[self.from]
            .departure
            .actual
            .or(self.load.actual)
    }

    /// When it ended: the actual arrival, else the actual discharge.
    pub fn ended_at(&self, journey: &Journey) -> Option<DateTime<Utc>> {
        journey.stops[self.to]
            .arrival
            .actual
            .or(self.discharge.actual)
    }
}

/// A box's journey by sea (module documentation).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Journey {
    /// POL, TS1, …, POD, each once, in voyage order; the POL alone when the box is to leave
    /// it but no later call is known; empty when the events give no departure.
    pub stops: Vec<Stop>,
    pub legs: Vec<Leg>,
    /// When the events give no departure at all (only arrivals or discharges, as the DCSA 3.0
    /// sample), the port of the latest arrival or discharge: the POD as far as the feed tells.
    pub arrival_only: Option<Stop>,
}

impl Journey {
    /// The port of lading: the first stop (the port of the box's earliest departure-side
    /// event), when the events give one.
    pub fn pol(&self) -> Option<&Stop> {
        self.stops.first()
    }

    /// The port of discharge: the last stop when a leg is known, else the arrival-only port.
    pub fn pod(&self) -> Option<&Stop> {
        if self.legs.is_empty() {
            self.arrival_only.as_ref()
        } else {
            self.stops.last()
        }
    }

    /// The last leg (the one that reaches the POD).
    pub fn pod_leg(&self) -> Option<&Leg> {
        self.legs.last()
    }
}

/// Whether `e` is a vessel event of a transport call (module documentation).
pub fn is_vessel_call(e: &EventRow) -> bool {
    let sea = matches!(
        e.mode_of_transport.as_deref(),
        None | Some("VESSEL") | Some("BARGE")
    );
    let code = match e.event_type {
        EventType::Transport => matches!(e.code.as_str(), "ARRI" | "DEPA"),
        EventType::Equipment => matches!(e.code.as_str(), "LOAD" | "DISC"),
        EventType::Shipment => false,
    };
    sea && code && e.locode.is_some()
}

fn issued(e: &EventRow) -> DateTime<Utc> {
    e.event_created_at.unwrap_or(e.event_at)
}

/// The milestone of `events` (all of one kind at one call).
fn milestone(events: &[&EventRow]) -> Milestone {
    let latest = |classifiers: &[Classifier]| {
        events
            .iter()
            .filter(|e| classifiers.contains(&e.classifier))
            .max_by(|a, b| {
                (issued(a), a.event_at, &a.event_id).cmp(&(issued(b), b.event_at, &b.event_id))
            })
    };
    let actual = latest(&[Classifier::Act]);
    let estimate = latest(&[Classifier::Est]).or_else(|| latest(&[Classifier::Pln]));
    let original = events
        .iter()
        .filter(|e| matches!(e.classifier, Classifier::Est | Classifier::Pln))
        .min_by(|a, b| {
            (issued(a), a.event_at, &a.event_id).cmp(&(issued(b), b.event_at, &b.event_id))
        });
    Milestone {
        actual: actual.map(|e| e.event_at),
        estimated: estimate.map(|e| e.event_at),
        original_estimate: original.map(|e| e.event_at),
        updated_at: events.iter().map(|e| issued(e)).max(),
    }
}

/// The vessel an event names.
fn vessel_of(e: &EventRow) -> Vessel {
    Vessel {
        imo: e.vessel_imo.clone(),
        name: e.vessel_name.clone(),
        voyage: e.export_voyage.clone().or_else(|| e.import_voyage.clone()),
    }
}

/// The key that identifies a vessel (IMO, else upper-case name); empty when none.
fn vessel_key(e: &EventRow) -> String {
    e.vessel_imo
        .as_deref()
        .map(str::to_string)
        .or_else(|| e.vessel_name.as_deref().map(str::to_uppercase))
        .unwrap_or_default()
}

/// The transport calls of `events` (module documentation), in time order.
pub fn calls(events: &[&EventRow]) -> Vec<Call> {
    let mut vessel_events: Vec<&EventRow> = events
        .iter()
        .copied()
        .filter(|e| is_vessel_call(e))
        .collect();
    vessel_events.sort_by(|a, b| (a.event_at, &a.event_id).cmp(&(b.event_at, &b.event_id)));
    // Group by (vessel, UN/LOCODE); events without a vessel join the only call at their port.
    let mut groups: Vec<((String, UnLocode), Vec<&EventRow>)> = Vec::new();
    let mut anonymous: Vec<(&EventRow, UnLocode)> = Vec::new();
    for e in vessel_events {
        // A vessel call always has a UN/LOCODE (`is_vessel_call`).
        let Some(locode) = e.locode.clone() else {
            continue;
        };
        let key = (vessel_key(e), locode);
        if key.0.is_empty() {
            anonymous.push((e, key.1));
            continue;
        }
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, evs)) => evs.push(e),
            None => groups.push((key, vec![e])),
        }
    }
    for (e, locode) in anonymous {
        let at_port: Vec<usize> = (0..groups.len())
            .filter(|&i| groups[i].0 .1 == locode)
            .collect();
        match at_port.as_slice() {
            [only] => groups[*only].1.push(e),
            _ => match groups
                .iter_mut()
                .find(|(k, _)| k.0.is_empty() && k.1 == locode)
            {
                Some((_, evs)) => evs.push(e),
                None => groups.push(((String::new(), locode), vec![e])),
            },
        }
    }
    let mut calls: Vec<Call> = groups
        .into_iter()
        .map(|((_, locode), evs)| {
            let of = |t: EventType, code: &str| -> Vec<&EventRow> {
                evs.iter()
                    .copied()
                    .filter(|e| e.event_type == t && e.code == code)
                    .collect()
            };
            // The vessel as the latest-issued event naming one says.
            let named = evs
                .iter()
                .filter(|e| e.vessel_imo.is_some() || e.vessel_name.is_some())
                .max_by(|a, b| (issued(a), &a.event_id).cmp(&(issued(b), &b.event_id)));
            let vessel = named.map(|e| vessel_of(e)).unwrap_or_default();
            let arrival_voyage =
                named.and_then(|e| e.import_voyage.clone().or_else(|| e.export_voyage.clone()));
            let facility_code = evs.iter().filter_map(|e| e.facility_code.clone()).min();
            Call {
                locode,
                facility_code,
                vessel,
                arrival_voyage,
                arrival: milestone(&of(EventType::Transport, "ARRI")),
                departure: milestone(&of(EventType::Transport, "DEPA")),
                load: milestone(&of(EventType::Equipment, "LOAD")),
                discharge: milestone(&of(EventType::Equipment, "DISC")),
            }
        })
        .collect();
    calls.sort_by(|a, b| (a.time(), &a.locode, &a.vessel).cmp(&(b.time(), &b.locode, &b.vessel)));
    calls
}

/// The port of the latest call with an arrival or discharge, as a stop (for events that give
/// no departure).
fn arrival_only(calls: &[Call]) -> Option<Stop> {
    calls
        .iter()
        .filter(|c| !(c.arrival.is_empty() && c.discharge.is_empty()))
        .max_by_key(|c| (c.arrival.best().or(c.discharge.best()), c.locode.clone()))
        .map(|c| Stop {
            locode: c.locode.clone(),
            facility_code: c.facility_code.clone(),
            arrival: c.arrival,
            departure: Milestone::default(),
            updated_at: [c.arrival.updated_at, c.discharge.updated_at]
                .into_iter()
                .flatten()
                .max(),
            arrived_on: Some(c.arriving_vessel()),
        })
}

/// The journey of one container from the events that apply to it (module documentation).
pub fn journey(events: &[&EventRow]) -> Journey {
    let calls = calls(events);
    let same_vessel =
        |a: &Call, b: &Call| a.vessel.imo == b.vessel.imo && a.vessel.name == b.vessel.name;
    let mut journey = Journey::default();
    // The first port: where the earliest departure-side event is.
    let Some(first) = calls
        .iter()
        .filter(|c| c.has_departure_side())
        .min_by(|a, b| (a.leave_time(), &a.locode).cmp(&(b.leave_time(), &b.locode)))
    else {
        journey.arrival_only = arrival_only(&calls);
        return journey;
    };
    let mut port = first.locode.clone();
    let mut arrived_at: Option<DateTime<Utc>> = None;
    let mut used = vec![false; calls.len()];
    journey.stops.push(Stop {
        locode: port.clone(),
        facility_code: None,
        arrival: Milestone::default(),
        departure: Milestone::default(),
        updated_at: None,
        arrived_on: None,
    });
    for _ in 0..calls.len() {
        // The vessels the box may leave `port` on.
        let candidates: Vec<usize> = (0..calls.len())
            .filter(|&i| {
                !used[i]
                    && calls[i].locode == port
                    && calls[i].has_departure_side()
                    && match (arrived_at, calls[i].leave_time()) {
                        (Some(a), Some(l)) => l >= a,
                        _ => true,
                    }
            })
            .collect();
        let actual = candidates
            .iter()
            .copied()
            .filter(|&i| calls[i].departure.actual.or(calls[i].load.actual).is_some())
            .max_by_key(|&i| (calls[i].departure.actual.or(calls[i].load.actual), i));
        let planned = || {
            candidates.iter().copied().max_by_key(|&i| {
                let c = &calls[i];
                (
                    [c.departure.updated_at, c.load.updated_at]
                        .into_iter()
                        .max(),
                    std::cmp::Reverse(i),
                )
            })
        };
        let Some(start) = actual.or_else(planned) else {
            break;
        };
        // Every call at this port is settled: the chosen one and the rolled alternatives.
        for &i in &candidates {
            used[i] = true;
        }
        let start_time = calls[start].leave_time().or(calls[start].time());
        let later: Vec<usize> = (0..calls.len())
            .filter(|&i| {
                !used[i]
                    && i != start
                    && same_vessel(&calls[i], &calls[start])
                    && calls[i].locode != port
                    && match (start_time, calls[i].time()) {
                        (Some(s), Some(t)) => t >= s,
                        _ => true,
                    }
            })
            .collect();
        let end = later
            .iter()
            .copied()
            .find(|&i| !calls[i].discharge.is_empty())
            .or_else(|| later.last().copied());
        let Some(end) = end else { break };
        for &i in &later {
            if i <= end || calls[i].time() <= calls[end].time() {
                used[i] = true;
            }
        }
        used[start] = true;
        let (s, e) = (&calls[start], &calls[end]);
        let from = journey.stops.len() - 1;
        {
            let stop = &mut journey.stops[from];
            stop.departure = s.departure;
            stop.facility_code = stop.facility_code.clone().or(s.facility_code.clone());
            stop.updated_at = [stop.updated_at, s.departure.updated_at, s.load.updated_at]
                .into_iter()
                .flatten()
                .max();
        }
        journey.stops.push(Stop {
            locode: e.locode.clone(),
            facility_code: e.facility_code.clone(),
            arrival: e.arrival,
            departure: Milestone::default(),
            updated_at: [e.arrival.updated_at, e.discharge.updated_at]
                .into_iter()
                .flatten()
                .max(),
            arrived_on: Some(e.arriving_vessel()),
        });
        journey.legs.push(Leg {
            from,
            to: from + 1,
            vessel: s.vessel.clone(),
            load: s.load,
            discharge: e.discharge,
            state: LegState::NotStarted,
        });
        port = e.locode.clone();
        arrived_at = e.arrival.best().or(e.discharge.best());
        if journey.stops.iter().filter(|st| st.locode == port).count() > 1 {
            // Back at a port it already left (a round trip): end the chain here.
            break;
        }
    }
    if journey.legs.is_empty() {
        // The box is to leave its first port but no later call is known: that port is the
        // POL (its departure as far as known), and there is no POD yet.
        if let Some(stop) = journey.stops.first_mut() {
            stop.departure = first.departure;
            stop.updated_at = [first.departure.updated_at, first.load.updated_at]
                .into_iter()
                .flatten()
                .max();
        }
        return journey;
    }
    // Leg states, from the last leg back: a leg is completed once a later leg has started.
    let mut later_started = false;
    for i in (0..journey.legs.len()).rev() {
        let leg = &journey.legs[i];
        let ended = leg.ended_at(&journey).is_some();
        let started = leg.started_at(&journey).is_some();
        let state = if ended || later_started {
            LegState::Completed
        } else if started {
            LegState::InProgress
        } else {
            LegState::NotStarted
        };
        later_started |= started || ended;
        journey.legs[i].state = state;
    }
    journey
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::EventType::{Equipment, Transport};

    /// A DCSA-shaped vessel event: `code` at `locode` on vessel `imo`, `day` of March 2026
    /// (hour `hour`), classifier `cls`, issued on `issued_day`.
    fn ev(
        code: &str,
        locode: &str,
        imo: &str,
        day: u32,
        cls: Classifier,
        issued_day: u32,
    ) -> EventRow {
        let t = |d: u32| {
            DateTime::parse_from_rfc3339(&format!("2026-03-{d:02}T08:00:00Z"))
                .unwrap()
                .with_timezone(&Utc)
        };
        EventRow {
            event_id: format!("{code}-{locode}-{imo}-{day}-{}-{issued_day}", cls.as_str()),
            event_type: if matches!(code, "ARRI" | "DEPA") {
                Transport
            } else {
                Equipment
            },
            classifier: cls,
            code: code.into(),
            event_at: t(day),
            event_created_at: Some(t(issued_day)),
            containers: vec!["MSKU1234565".into()],
            bills_of_lading: vec!["BL1".into()],
            bookings: Vec::new(),
            references: Vec::new(),
            transport_call_id: None,
            locode: Some(UnLocode::parse(locode).unwrap()),
            location_name: None,
            facility_code: None,
            facility_type: None,
            mode_of_transport: Some("VESSEL".into()),
            transport_call_sequence: None,
            vessel_imo: Some(Imo::parse(imo).unwrap()),
            vessel_name: None,
            export_voyage: Some(format!("V{imo}")),
            import_voyage: None,
            carrier_scac: None,
            iso_equipment_code: None,
            empty: Some(false),
            seal_number: None,
            delay_reason: None,
            remark: None,
        }
    }

    use Classifier::{Act, Est, Pln};

    fn run(events: &[EventRow]) -> Journey {
        let refs: Vec<&EventRow> = events.iter().collect();
        let j = journey(&refs);
        // The same events in reverse give the same journey.
        let rev: Vec<&EventRow> = events.iter().rev().collect();
        assert_eq!(journey(&rev), j, "order of the input");
        j
    }

    fn ports(j: &Journey) -> Vec<&str> {
        j.stops.iter().map(|s| s.locode.as_str()).collect()
    }

    #[test]
    fn revised_estimates_never_add_a_port() {
        // Tokyo to Yantian: a plan, three revisions of the estimates, then the actuals.
        let mut events = vec![
            ev("DEPA", "JPTYO", "9000001", 2, Pln, 1),
            ev("ARRI", "CNYTN", "9000001", 9, Pln, 1),
        ];
        for (rev, shift) in [(3, 1), (4, 2), (5, 0)] {
            events.push(ev("DEPA", "JPTYO", "9000001", 2 + shift, Est, rev));
            events.push(ev("ARRI", "CNYTN", "9000001", 9 + shift, Est, rev));
        }
        events.push(ev("LOAD", "JPTYO", "9000001", 2, Act, 6));
        events.push(ev("DEPA", "JPTYO", "9000001", 3, Act, 6));
        let j = run(&events);
        assert_eq!(ports(&j), ["JPTYO", "CNYTN"]);
        let pod = j.pod().unwrap();
        // The latest-issued estimate (issued on day 5), not the latest in time.
        assert_eq!(
            pod.arrival.estimated.unwrap().format("%d").to_string(),
            "09"
        );
        assert_eq!(
            pod.arrival
                .original_estimate
                .unwrap()
                .format("%d")
                .to_string(),
            "09"
        );
        assert_eq!(j.legs[0].state, LegState::InProgress);
        assert_eq!(
            j.pol()
                .unwrap()
                .departure
                .actual
                .unwrap()
                .format("%d")
                .to_string(),
            "03"
        );
    }

    #[test]
    fn transshipment_times_come_from_the_vessel_that_carried_the_box() {
        // Feeder 9000001 Busan -> Shanghai, then mother vessel 9000002 Shanghai -> Rotterdam.
        let events = vec![
            ev("LOAD", "KRPUS", "9000001", 1, Act, 1),
            ev("DEPA", "KRPUS", "9000001", 1, Act, 1),
            ev("ARRI", "CNSHA", "9000001", 3, Act, 3),
            ev("DISC", "CNSHA", "9000001", 3, Act, 3),
            ev("ARRI", "CNSHA", "9000002", 2, Act, 2),
            ev("LOAD", "CNSHA", "9000002", 5, Act, 5),
            ev("DEPA", "CNSHA", "9000002", 5, Act, 5),
            ev("ARRI", "NLRTM", "9000002", 28, Est, 5),
        ];
        let j = run(&events);
        assert_eq!(ports(&j), ["KRPUS", "CNSHA", "NLRTM"]);
        let ts = &j.stops[1];
        assert_eq!(ts.arrival.actual.unwrap().format("%d").to_string(), "03");
        assert_eq!(ts.departure.actual.unwrap().format("%d").to_string(), "05");
        assert_eq!(j.legs[0].vessel.imo.as_deref(), Some("9000001"));
        assert_eq!(j.legs[1].vessel.imo.as_deref(), Some("9000002"));
        assert_eq!(j.legs[0].state, LegState::Completed);
        assert_eq!(j.legs[1].state, LegState::InProgress);
    }

    #[test]
    fn a_rolled_box_shows_the_vessel_that_loaded_it() {
        let events = vec![
            ev("LOAD", "KRPUS", "9000001", 1, Act, 1),
            ev("DISC", "SGSIN", "9000001", 8, Act, 8),
            ev("ARRI", "SGSIN", "9000001", 8, Act, 8),
            // Planned on 9000002 from Singapore...
            ev("LOAD", "SGSIN", "9000002", 10, Pln, 2),
            ev("DEPA", "SGSIN", "9000002", 10, Pln, 2),
            ev("ARRI", "NLRTM", "9000002", 30, Pln, 2),
            // ...rolled to 9000003.
            ev("LOAD", "SGSIN", "9000003", 12, Act, 12),
            ev("DEPA", "SGSIN", "9000003", 12, Act, 12),
            ev("ARRI", "NLRTM", "9000003", 31, Est, 12),
        ];
        let j = run(&events);
        assert_eq!(ports(&j), ["KRPUS", "SGSIN", "NLRTM"]);
        assert_eq!(j.legs[1].vessel.imo.as_deref(), Some("9000003"));
        assert_eq!(
            j.pod()
                .unwrap()
                .arrival
                .estimated
                .unwrap()
                .format("%d")
                .to_string(),
            "31"
        );
    }

    #[test]
    fn a_missing_departure_still_makes_the_leg_and_intermediate_calls_are_not_transshipments() {
        let events = vec![
            ev("LOAD", "CNSHA", "9000001", 1, Act, 1),
            // The vessel calls at Singapore with the box aboard.
            ev("ARRI", "SGSIN", "9000001", 7, Act, 7),
            ev("DEPA", "SGSIN", "9000001", 8, Act, 8),
            ev("ARRI", "NLRTM", "9000001", 28, Act, 28),
            ev("DISC", "NLRTM", "9000001", 28, Act, 28),
        ];
        let j = run(&events);
        assert_eq!(ports(&j), ["CNSHA", "NLRTM"]);
        assert_eq!(j.legs.len(), 1);
        assert_eq!(j.legs[0].state, LegState::Completed);
        assert_eq!(j.pol().unwrap().departure.actual, None);
        assert!(
            j.legs[0].started_at(&j).is_some(),
            "the load starts the track"
        );
    }

    #[test]
    fn only_arrivals_give_a_pod_without_a_pol() {
        let events = vec![ev("DISC", "NLRTM", "9000001", 28, Act, 28)];
        let j = run(&events);
        assert!(j.pol().is_none());
        assert_eq!(j.pod().unwrap().locode, "NLRTM");
        assert!(j.legs.is_empty());
    }
}

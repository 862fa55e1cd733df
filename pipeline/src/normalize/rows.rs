//! Collected frames into [`Shipment`] and [`Container`] records, with the number and
//! equipment-code helpers they use.

use chrono::{DateTime, Utc};
use polars::prelude::*;
use uuid::Uuid;

use super::attach::RefNumbers;
use super::frame::{from_millis, Index, KeyPlaces};
use super::Refs;
use crate::model::{CodeError, Container, ContainerNumber, EventType, Imo, Shipment, UnLocode};
use crate::status::{self, LastMovement};

/// Typed column readers over a collected frame.
pub(super) struct Cols<'a>(pub(super) &'a DataFrame);

impl<'a> Cols<'a> {
    pub(super) fn str(&self, name: &str) -> PolarsResult<Vec<Option<&'a str>>> {
        Ok(self.0.column(name)?.str()?.iter().collect())
    }
    pub(super) fn u32(&self, name: &str) -> PolarsResult<Vec<Option<u32>>> {
        Ok(self.0.column(name)?.u32()?.iter().collect())
    }
    fn i64(&self, name: &str) -> PolarsResult<Vec<Option<i64>>> {
        Ok(self.0.column(name)?.i64()?.iter().collect())
    }
    fn bool(&self, name: &str) -> PolarsResult<Vec<Option<bool>>> {
        Ok(self.0.column(name)?.bool()?.iter().collect())
    }
}

/// A frame grouped by an id column (`key` or `box`), read by id: value `i` of a column is the
/// one of the group of id `i`, `None` when the frame has no group for it.
pub(super) struct Grouped<'a> {
    cols: Cols<'a>,
    row: Vec<Option<usize>>,
}

impl<'a> Grouped<'a> {
    /// `df` grouped by its column `id`, for ids `0..n`.
    pub(super) fn new(df: &'a DataFrame, id: &str, n: usize) -> PolarsResult<Self> {
        let cols = Cols(df);
        let mut row = vec![None; n];
        for (r, i) in cols.u32(id)?.into_iter().enumerate() {
            if let Some(slot) = i.and_then(|i| row.get_mut(i as usize)) {
                *slot = Some(r);
            }
        }
        Ok(Self { cols, row })
    }
    fn by_id<T: Copy>(&self, values: Vec<Option<T>>) -> Vec<Option<T>> {
        self.row.iter().map(|r| r.and_then(|r| values[r])).collect()
    }
    pub(super) fn str(&self, name: &str) -> PolarsResult<Vec<Option<&'a str>>> {
        Ok(self.by_id(self.cols.str(name)?))
    }
    pub(super) fn i64(&self, name: &str) -> PolarsResult<Vec<Option<i64>>> {
        Ok(self.by_id(self.cols.i64(name)?))
    }
    fn bool(&self, name: &str) -> PolarsResult<Vec<Option<bool>>> {
        Ok(self.by_id(self.cols.bool(name)?))
    }
    pub(super) fn time(&self, name: &str) -> PolarsResult<Vec<Option<DateTime<Utc>>>> {
        Ok(self.i64(name)?.into_iter().map(from_millis).collect())
    }
}

fn owned(s: Option<&str>) -> Option<String> {
    s.map(str::to_string)
}

/// A code column's value as its code type. The values were checked when their events were
/// read; a stored event of an older reader may not be, so a failure is an error, not a panic.
fn code<T>(
    what: &str,
    s: Option<&str>,
    parse: fn(&str) -> Result<T, CodeError>,
) -> PolarsResult<Option<T>> {
    s.map(|v| {
        parse(v).map_err(|e| PolarsError::ComputeError(format!("derived {what}: {e}").into()))
    })
    .transpose()
}

/// The shipments, one per key id of `index`, from the grouped frames of
/// [`super::aggregates::shipment_aggregates`] (`facts`, `estimates`).
#[allow(clippy::too_many_arguments)]
pub(super) fn shipment_rows(
    account: Uuid,
    index: &Index<'_>,
    places: &KeyPlaces<'_>,
    facts: &DataFrame,
    estimates: &DataFrame,
    refs: &Refs<'_>,
    numbers: &RefNumbers<'_>,
    now: DateTime<Utc>,
) -> PolarsResult<Vec<Shipment>> {
    let n = index.keys.len();
    let (c, e) = (
        Grouped::new(facts, "key", n)?,
        Grouped::new(estimates, "key", n)?,
    );
    let (pol, pod) = (&places.pol, &places.pod);
    let (pol_atd, pod_ata) = (c.time("pol_atd_at")?, c.time("pod_ata_at")?);
    let (pol_etd, pod_eta, pod_oeta) = (
        e.time("pol_etd_at")?,
        e.time("pod_eta_at")?,
        e.time("pod_original_eta_at")?,
    );
    let (vessel, imo, voyage) = (
        c.str("pod_vessel_name")?,
        c.str("pod_vessel_imo")?,
        c.str("pod_voyage_number")?,
    );
    let carrier = c.str("carrier")?;
    let destination = &places.destination;
    let (dest_eta, dest_ata) = (e.time("destination_eta_at")?, c.time("destination_ata_at")?);
    let mut out = Vec::with_capacity(n);
    for (i, k) in index.keys.iter().copied().enumerate() {
        let port = |code: Option<&str>| code.and_then(|p| refs.ports.get(p));
        let line = carrier[i]
            .and_then(|s| refs.carriers.get(s))
            .or_else(|| k.get(..4).and_then(|p| refs.carriers.get(p)));
        let scac = line
            .map(|l| l.scac.to_string())
            .or_else(|| owned(carrier[i]))
            .unwrap_or_default();
        let ref_numbers = numbers
            .shipments
            .get(k)
            .map(|set| set.iter().map(|r| r.to_string()).collect())
            .unwrap_or_default();
        out.push(Shipment {
            id: index.shipment_ids[i],
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
            port_of_lading_locode: code("port of lading", pol[i], UnLocode::parse)?,
            port_of_lading_name: port(pol[i]).map(|p| p.name.clone()),
            port_of_discharge_locode: code("port of discharge", pod[i], UnLocode::parse)?,
            port_of_discharge_name: port(pod[i]).map(|p| p.name.clone()),
            destination_locode: code("destination", destination[i], UnLocode::parse)?,
            destination_name: port(destination[i]).map(|p| p.name.clone()),
            shipping_line_name: line.map(|l| l.name.clone()).unwrap_or_else(|| scac.clone()),
            shipping_line_short_name: line
                .map(|l| l.short_name.clone())
                .unwrap_or_else(|| scac.clone()),
            shipping_line_scac: scac,
            customer_name: None,
            pod_vessel_name: owned(vessel[i]),
            pod_vessel_imo: code("POD vessel IMO", imo[i], Imo::parse)?,
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

/// The containers, one per box id of `index`, from the grouped frames of
/// [`super::aggregates::container_aggregates`] (`facts`, `ind_eta`).
#[allow(clippy::too_many_arguments)]
pub(super) fn container_rows(
    account: Uuid,
    index: &Index<'_>,
    places: &KeyPlaces<'_>,
    facts: &DataFrame,
    ind_eta: &DataFrame,
    refs: &Refs<'_>,
    numbers: &RefNumbers<'_>,
    now: DateTime<Utc>,
) -> PolarsResult<Vec<Container>> {
    let n = index.boxes.len();
    let c = Grouped::new(facts, "box", n)?;
    let (arrived, discharged) = (c.time("pod_arrived_at")?, c.time("pod_discharged_at")?);
    let (full_out, empty_at) = (c.time("pod_full_out_at")?, c.time("empty_terminated_at")?);
    let empty_locode = c.str("empty_terminated_locode")?;
    let pod_facility = c.str("pod_facility")?;
    let dest_full_out = c.time("final_destination_full_out_at")?;
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
    let ind_eta = Grouped::new(ind_eta, "box", n)?.time("ind_eta_at")?;
    let ind_ata = c.time("ind_ata_at")?;
    let ind_unloaded = c.time("ind_rail_unloaded_at")?;
    let (pod_rail_scac, ind_rail_scac) = (
        c.str("pod_rail_carrier_scac")?,
        c.str("ind_rail_carrier_scac")?,
    );
    let mut out = Vec::with_capacity(n);
    for (i, (key, number)) in index.boxes.iter().copied().enumerate() {
        let (k, n) = (index.keys[key as usize], number);
        let (pod, destination) = (places.pod[key as usize], places.destination[key as usize]);
        // Checked when its events were read; a stored event of an older reader may not be.
        let container_number = ContainerNumber::parse(n).map_err(|e| {
            PolarsError::ComputeError(format!("derived container number: {e}").into())
        })?;
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
                inland_move: destination.is_some(),
            }),
            _ => None,
        };
        let (equipment_type, equipment_length, equipment_height) =
            iso[i].map(equipment_from_iso).unwrap_or((None, None, None));
        out.push(Container {
            id: index.container_ids[i],
            account_id: account,
            shipment_id: index.shipment_ids[key as usize],
            number: container_number,
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
            pod_timezone: tz(pod),
            final_destination_timezone: tz(destination),
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
            pod_locode: code("port of discharge", pod, UnLocode::parse)?,
            pod_terminal_id: pod_facility[i].and_then(|code| {
                crate::terminals::bundled()
                    .resolve(pod, code)
                    .ok()
                    .map(|t| t.id)
            }),
            pickup_facility_id: None,
            last_movement_at: from_millis(l_at[i]),
        });
    }
    Ok(out)
}

//! The polars aggregations: inland destinations, shipment fields and container fields (steps 2
//! to 4 of the module documentation), over the frames of [`super::frame`]: each in event-time
//! order, so a group's rows are too; "latest issued" sorts a filtered frame by issue time.

use polars::prelude::*;

use super::frame::{
    by_issue_time, equipment, estimate, first_where, is, laden, last_where, rail, transport,
    KeyPlaces,
};
use super::rows::Cols;
use super::Refs;

/// Step 2b: the inland destination per shipment key (`key`, `destination`): the place of the
/// last laden equipment or transport event (actual or planned, not a vessel call) after the
/// vessel's arrival at the POD that is neither the POD nor the POL (a rail ramp, an inland
/// depot or the consignee). `null` for port-to-port moves.
pub(super) fn destinations(frame: LazyFrame) -> LazyFrame {
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
    frame
        .group_by([col("key")])
        .agg([last_where("locode", inland).alias("destination")])
}

/// How far from the POD a place must be to count as an inland destination: closer places
/// (another UN/LOCODE of the same port area, such as Newark for New York) are the port itself.
const INLAND_KM: f64 = 50.0;

/// Keeps as `places.destination` the destinations of `df` (from [`destinations`]) that are
/// at least [`INLAND_KM`] from their key's POD (great-circle distance between the ports'
/// coordinates; a place without coordinates is kept).
pub(super) fn beyond_the_port<'a>(
    df: &'a DataFrame,
    refs: &Refs<'_>,
    places: &mut KeyPlaces<'a>,
) -> PolarsResult<()> {
    let c = Cols(df);
    let (keys, dests) = (c.u32("key")?, c.str("destination")?);
    let coords = |l: Option<&str>| {
        l.and_then(|l| refs.ports.get(l))
            .and_then(|p| Some((p.latitude?, p.longitude?)))
    };
    for (k, dest) in keys.iter().zip(dests) {
        let Some(k) = k else { continue };
        let pod = places.pod[*k as usize];
        places.destination[*k as usize] = match (coords(pod), coords(dest)) {
            (Some(a), Some(b)) if haversine_km(a, b) < INLAND_KM => None,
            _ => dest,
        };
    }
    Ok(())
}

/// Great-circle distance in kilometres between two (latitude, longitude) points in degrees
/// ([`crate::geodesy::distance_nm`], teu's one distance function; 1.852 km per nautical mile).
fn haversine_km((lat1, lon1): (f64, f64), (lat2, lon2): (f64, f64)) -> f64 {
    crate::geodesy::distance_nm(lat1, lon1, lat2, lon2) * 1.852
}

/// Step 3: shipment fields, per `key`: the facts by event time, and the estimates by issue
/// time (`pol_etd_at`, `pod_eta_at`, `pod_original_eta_at`, `destination_eta_at`).
pub(super) fn shipment_aggregates(frame: LazyFrame) -> (LazyFrame, LazyFrame) {
    let pod_call = col("arrival_call").and(col("at_pod"));
    let pod_vessel = pod_call.and(col("vessel").is_not_null());
    let facts = frame.clone().group_by([col("key")]).agg([
        first_where("at", col("at_destination").and(col("act"))).alias("destination_ata_at"),
        last_where("at", transport("DEPA").and(col("act")).and(col("at_pol"))).alias("pol_atd_at"),
        last_where("at", transport("ARRI").and(col("act")).and(col("at_pod"))).alias("pod_ata_at"),
        last_where("vessel", pod_vessel.clone()).alias("pod_vessel_name"),
        last_where("imo", pod_vessel.clone()).alias("pod_vessel_imo"),
        last_where("voyage", pod_vessel).alias("pod_voyage_number"),
        last_where("carrier", col("carrier").is_not_null()).alias("carrier"),
    ]);
    let eta = transport("ARRI").and(col("at_pod"));
    let estimates = by_issue_time(frame.filter(estimate()))
        .group_by([col("key")])
        .agg([
            last_where("at", transport("DEPA").and(col("at_pol"))).alias("pol_etd_at"),
            last_where("at", eta.clone()).alias("pod_eta_at"),
            first_where("at", eta).alias("pod_original_eta_at"),
            last_where("at", col("at_destination")).alias("destination_eta_at"),
        ]);
    (facts, estimates)
}

/// Step 4: container fields per `box` (events without a container are already repeated for
/// every container of their shipment in the box frame), and the inland estimate of arrival by
/// issue time (`ind_eta_at`).
pub(super) fn container_aggregates(frame: LazyFrame) -> (LazyFrame, LazyFrame) {
    let disc_at_pod = equipment("DISC").and(col("act")).and(col("at_pod"));
    // A vessel's arrival or departure moves the box only while it is aboard (Terminal49
    // `on_ship`: from the vessel load or departure): an arrival before the box's first vessel
    // load or departure (a box gated in at the POL when its vessel arrives), and any vessel
    // event after the box was discharged at the POD (the vessel leaving the POD), are not
    // the box's movements.
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
    let discharged_before = col("at").gt_eq(col("box_pod_discharge"));
    let empty_return = col("act")
        .and(equipment("GTIN").or(equipment("DROP")))
        .and(col("empty").fill_null(lit(false)))
        .and(discharged_before);
    let ind_eta = by_issue_time(
        frame.clone().filter(
            transport("ARRI")
                .and(rail())
                .and(estimate())
                .and(col("at_destination")),
        ),
    )
    .group_by([col("box")])
    .agg([col("at").last().alias("ind_eta_at")]);
    let facts = frame.group_by([col("box")]).agg([
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
        last_where("at", disc_at_pod).alias("pod_discharged_at"),
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
        col("box_pod_discharge")
            .first()
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
        col("box_first_departure")
            .first()
            .alias("first_vessel_load"),
        col("at")
            .filter(equipment("STUF").and(col("act")))
            .min()
            .alias("first_stuffed"),
    ]);
    (facts, ind_eta)
}

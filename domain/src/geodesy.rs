//! Distances on the Earth: the one great-circle distance of teu (AIS speed checks, sea-lane
//! weights, the inland-destination rule, the generators' voyages), from the `geo` crate.

/// Great-circle distance in nautical miles between two points given as latitude and longitude in
/// degrees: `geo`'s haversine on the mean Earth radius (6,371,008.8 m), divided by 1,852 m per
/// nautical mile.
pub fn distance_nm(lat1: f64, lon1: f64, lat2: f64, lon2: f64) -> f64 {
    use geo::{Distance, Haversine, Point};
    Haversine.distance(Point::new(lon1, lat1), Point::new(lon2, lat2)) / 1_852.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_degree_of_latitude_is_sixty_nautical_miles() {
        // On a sphere of the mean radius, one degree of arc is 6,371,008.8 m × π / 180 =
        // 111,195 m = 60.04 nm.
        let nm = distance_nm(0.0, 10.0, 1.0, 10.0);
        assert!((nm - 60.04).abs() < 0.01, "{nm}");
        assert_eq!(distance_nm(51.9, 4.1, 51.9, 4.1), 0.0);
    }
}

//! Track simplification: Ramer–Douglas–Peucker (`geo`'s [`Simplify`]) with a tolerance chosen
//! per line, made safe for any input.
//!
//! Why RDP and not Visvalingam–Whyatt: RDP bounds the distance of every dropped point from the
//! kept line by the tolerance, which is the guarantee a map needs ("no point moves more than
//! half a pixel"); Visvalingam bounds triangle areas, which lets a long, thin excursion (a
//! vessel turning into a port) vanish.
//!
//! Tolerance ([`tolerance_deg`]): the diagonal of the line's bounding box divided by
//! [`PIXELS_PER_EXTENT`] (2,000): when the leg fills a map about 1,000 pixels wide, no dropped
//! point lies more than half a pixel from the drawn line, so the leg keeps its shape at map
//! scale. It is clamped to [`MIN_TOLERANCE_DEG`] (about 10 m) and [`MAX_TOLERANCE_DEG`].
//!
//! Safety ([`simplify_track`]): non-finite points are dropped, consecutive duplicates removed
//! first (100,000 identical points become one), longitudes unwrapped across the antimeridian
//! (see [`super::sealanes::unwrap_lons`]), and `geo`'s RDP, which recurses once per kept point
//! and is quadratic in the worst case, runs on chunks of at most [`CHUNK`] points whose end
//! points are always kept: recursion depth and work per chunk stay bounded (no stack overflow
//! on a worst-case zigzag, even on a 2 MiB tokio worker stack). Long tracks (from
//! [`PARALLEL_FROM`] points) simplify their chunks in parallel.

use geo::{Coord, LineString, Simplify};

use super::sealanes::unwrap_lons;

/// Map pixels per bounding-box diagonal assumed when choosing a tolerance (half a pixel on a
/// map about 1,000 pixels across).
pub const PIXELS_PER_EXTENT: f64 = 2_000.0;
/// Smallest tolerance, degrees (about 11 m of latitude).
pub const MIN_TOLERANCE_DEG: f64 = 1e-4;
/// Largest tolerance, degrees (about 5.5 km).
pub const MAX_TOLERANCE_DEG: f64 = 0.05;
/// Largest number of points simplified in one RDP call.
pub const CHUNK: usize = 1_000;

/// Removes non-finite points and consecutive duplicates, and unwraps longitudes.
pub fn clean(points: &[[f64; 2]]) -> Vec<[f64; 2]> {
    let mut out: Vec<[f64; 2]> = points
        .iter()
        .copied()
        .filter(|p| p[0].is_finite() && p[1].is_finite())
        .collect();
    unwrap_lons(&mut out);
    out.dedup();
    out
}

/// The tolerance for a line (degrees): its bounding-box diagonal / [`PIXELS_PER_EXTENT`],
/// clamped to [[`MIN_TOLERANCE_DEG`], [`MAX_TOLERANCE_DEG`]].
pub fn tolerance_deg(points: &[[f64; 2]]) -> f64 {
    let mut min = [f64::INFINITY; 2];
    let mut max = [f64::NEG_INFINITY; 2];
    for p in points {
        for i in 0..2 {
            min[i] = min[i].min(p[i]);
            max[i] = max[i].max(p[i]);
        }
    }
    let diag = ((max[0] - min[0]).powi(2) + (max[1] - min[1]).powi(2)).sqrt();
    if !diag.is_finite() {
        return MIN_TOLERANCE_DEG;
    }
    (diag / PIXELS_PER_EXTENT).clamp(MIN_TOLERANCE_DEG, MAX_TOLERANCE_DEG)
}

/// Simplifies a track of `[lon, lat]` points with the per-line tolerance (module
/// documentation). The first and last points are kept; never panics.
pub fn simplify_track(points: &[[f64; 2]]) -> Vec<[f64; 2]> {
    let clean = clean(points);
    let eps = tolerance_deg(&clean);
    simplify_with(&clean, eps)
}

/// Tracks of at least this many points are simplified on all cores (rayon), chunk by chunk.
pub const PARALLEL_FROM: usize = 16 * CHUNK;

/// RDP with tolerance `eps` (degrees) on already cleaned points, chunk by chunk: chunk `k`
/// covers points `k·CHUNK ..= (k+1)·CHUNK`, so neighbouring chunks share their end point and
/// every chunk end is kept. Tracks of [`PARALLEL_FROM`] points or more run their chunks in
/// parallel (rayon); the result is the same either way.
pub fn simplify_with(points: &[[f64; 2]], eps: f64) -> Vec<[f64; 2]> {
    use rayon::prelude::*;
    if points.len() < 3 || !eps.is_finite() || eps <= 0.0 {
        return points.to_vec();
    }
    let chunks = (points.len() - 1).div_ceil(CHUNK);
    let one = |k: usize| -> Vec<[f64; 2]> {
        let start = k * CHUNK;
        let end = (start + CHUNK).min(points.len() - 1);
        let line: LineString<f64> = points[start..=end]
            .iter()
            .map(|p| Coord { x: p[0], y: p[1] })
            .collect();
        let simple = line.simplify(eps);
        // The chunk's first point is the previous chunk's last: skip it after the first chunk.
        simple
            .0
            .iter()
            .skip(usize::from(k > 0))
            .map(|c| [c.x, c.y])
            .collect()
    };
    let parts: Vec<Vec<[f64; 2]>> = if points.len() >= PARALLEL_FROM {
        (0..chunks).into_par_iter().map(one).collect()
    } else {
        (0..chunks).map(one).collect()
    };
    let mut out = Vec::with_capacity(parts.iter().map(Vec::len).sum());
    for p in parts {
        out.extend(p);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn identical_points_become_one() {
        let pts = vec![[10.0, 20.0]; 100_000];
        assert_eq!(simplify_track(&pts), vec![[10.0, 20.0]]);
    }

    #[test]
    fn worst_case_zigzag_does_not_overflow() {
        // Every point is a vertex RDP must keep: the deepest recursion geo can be driven into.
        let pts: Vec<[f64; 2]> = (0..200_000)
            .map(|i| [i as f64 * 1e-3, if i % 2 == 0 { 0.0 } else { 1.0 }])
            .collect();
        // Run on a small stack, as a tokio worker would.
        let out = std::thread::Builder::new()
            .stack_size(1024 * 1024)
            .spawn(move || simplify_track(&pts))
            .unwrap()
            .join()
            .unwrap();
        // Points closer than the tolerance to a steep zig may go; most must stay.
        assert!(out.len() > 150_000, "{}", out.len());
        let spiral: Vec<[f64; 2]> = (0..100_000)
            .map(|i| {
                let t = i as f64 * 0.01;
                [t.cos() * t * 1e-3, t.sin() * t * 1e-3]
            })
            .collect();
        let out = simplify_track(&spiral);
        assert!(out.len() > 10 && out.len() < 100_000);
    }

    #[test]
    fn antimeridian_crossing_stays_continuous() {
        let pts: Vec<[f64; 2]> = (0..1000)
            .map(|i| {
                [
                    wrap(170.0 + i as f64 * 0.02),
                    30.0 + (i as f64 * 0.01).sin(),
                ]
            })
            .collect();
        let out = simplify_track(&pts);
        assert!(out.len() < 1000);
        assert!(out.windows(2).all(|w| (w[1][0] - w[0][0]).abs() < 5.0));
        assert_eq!(out.first().unwrap()[0], 170.0);
        assert!((out.last().unwrap()[0] - 189.98).abs() < 1e-9);
    }

    fn wrap(lon: f64) -> f64 {
        super::super::sealanes::wrap_lon(lon)
    }

    #[test]
    fn straight_line_keeps_its_ends() {
        let pts: Vec<[f64; 2]> = (0..=100).map(|i| [i as f64, i as f64 * 0.5]).collect();
        assert_eq!(simplify_track(&pts), vec![[0.0, 0.0], [100.0, 50.0]]);
    }

    #[test]
    fn parallel_chunks_give_the_sequential_result() {
        let pts: Vec<[f64; 2]> = (0..PARALLEL_FROM * 3 + 17)
            .map(|i| [i as f64 * 1e-3, (i as f64 * 0.013).sin() * 0.2])
            .collect();
        let parallel = simplify_with(&pts, 0.001);
        let mut sequential: Vec<[f64; 2]> = Vec::new();
        for (k, window) in pts.chunks(CHUNK).enumerate() {
            let start = k * CHUNK;
            let end = (start + window.len()).min(pts.len() - 1);
            if start >= end {
                break;
            }
            let part = simplify_with(&pts[start..=end], 0.001);
            sequential.extend(part.into_iter().skip(usize::from(k > 0)));
        }
        assert_eq!(parallel, sequential);
        assert_eq!(parallel.first(), pts.first());
        assert_eq!(parallel.last(), pts.last());
    }

    #[test]
    fn chunks_agree_with_the_tolerance() {
        let pts: Vec<[f64; 2]> = (0..5_000)
            .map(|i| [i as f64 * 0.01, (i as f64 * 0.05).sin()])
            .collect();
        let out = simplify_with(&pts, 0.01);
        assert_eq!(out.first(), pts.first());
        assert_eq!(out.last(), pts.last());
        assert!(out.len() < pts.len() / 2);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn never_panics_and_keeps_the_ends(
            pts in proptest::collection::vec(
                (prop_oneof![Just(f64::NAN), Just(f64::INFINITY), -400.0..400.0f64],
                 prop_oneof![Just(91.0), -90.0..90.0f64]),
                0..3000)
        ) {
            let pts: Vec<[f64; 2]> = pts.into_iter().map(|(a, b)| [a, b]).collect();
            let clean = clean(&pts);
            let out = simplify_track(&pts);
            prop_assert!(out.len() <= clean.len());
            prop_assert_eq!(out.first(), clean.first());
            prop_assert_eq!(out.last(), clean.last());
            prop_assert!(out.iter().all(|p| p[0].is_finite() && p[1].is_finite()));
        }
    }
}

//! Track simplification: Ramer–Douglas–Peucker with a tolerance chosen per line, giving the
//! same kept points as GEOS's `DouglasPeuckerLineSimplifier` (what shapely's
//! `simplify(tolerance, preserve_topology=False)` runs), made safe and fast for any input.
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
//! # The algorithm ([`simplify_with`]), as GEOS defines it
//!
//! A section `i..=j` keeps its interior when the largest distance of an interior point from the
//! segment `p[i]–p[j]` is at most the tolerance; otherwise it is split at the *first* point with
//! that largest distance and both halves are simplified. The distance is GEOS's
//! `Distance::pointToSegment` (planar, degrees): to `A` when the projection parameter
//! `r = (AP·AB)/|AB|² ≤ 0`, to `B` when `r ≥ 1`, else `|s|·|AB|` with
//! `s = ((A.y−P.y)(B.x−A.x) − (A.x−P.x)(B.y−A.y)) / |AB|²`; a zero-length segment measures to
//! `A`. The kept points are the two ends and every split point, in order; a kept point equal to
//! the one before it is not repeated (GEOS's coordinate list refuses repeated points).
//!
//! Speed without changing the answer: the scan over a section computes, per point, a key with
//! no division or square root (the squared distance times `|AB|²`, written so the compiler
//! vectorizes it) and only the points whose key is within a relative 10⁻⁷ of the largest are
//! measured again with GEOS's exact formula, which picks the split point and decides against
//! the tolerance. A section whose largest key is clearly below the tolerance is dropped without
//! that second look.
//!
//! Safety: there is no recursion. Sections wait on an explicit stack, so a worst-case zigzag
//! (every point kept) or 100,000 identical points cannot overflow any stack (GEOS's recursive
//! version can, GEOS issue #1515). A split of a long section into two long halves (each at
//! least [`PARALLEL_HALF`] points) runs the halves on two cores (rayon `join`); since each such
//! half is at least [`PARALLEL_HALF`] points shorter than its parent, that nesting is at most
//! `n / PARALLEL_HALF` deep.
//!
//! [`simplify_track`] also cleans the input first ([`clean`]): non-finite points are dropped,
//! longitudes unwrapped across the antimeridian (see [`super::sealanes::unwrap_lons`]; one pass) and
//! consecutive duplicates removed.

use super::sealanes::unwrap_lon;

/// Map pixels per bounding-box diagonal assumed when choosing a tolerance (half a pixel on a
/// map about 1,000 pixels across).
pub const PIXELS_PER_EXTENT: f64 = 2_000.0;
/// Smallest tolerance, degrees (about 11 m of latitude).
pub const MIN_TOLERANCE_DEG: f64 = 1e-4;
/// Largest tolerance, degrees (about 5.5 km).
pub const MAX_TOLERANCE_DEG: f64 = 0.05;
/// A split whose two halves both have at least this many points runs them in parallel.
pub const PARALLEL_HALF: usize = 16_384;
/// Relative margin within which a point's key counts as tied with the largest key, so that
/// GEOS's exact distance decides between them (the keys' own relative rounding error stays
/// below 10⁻⁹ for degree coordinates and the tolerances teu uses).
const KEY_MARGIN: f64 = 1e-7;

/// Removes non-finite points and consecutive duplicates, and unwraps longitudes.
pub fn clean(points: &[[f64; 2]]) -> Vec<[f64; 2]> {
    clean_with_bounds(points).0
}

/// [`clean`] in one pass, with the bounding box (`[min lon, min lat]`, `[max lon, max lat]`)
/// of what it keeps.
fn clean_with_bounds(points: &[[f64; 2]]) -> (Vec<[f64; 2]>, [f64; 2], [f64; 2]) {
    let mut out: Vec<[f64; 2]> = Vec::with_capacity(points.len());
    let mut min = [f64::INFINITY; 2];
    let mut max = [f64::NEG_INFINITY; 2];
    let mut prev: Option<[f64; 2]> = None;
    for p in points {
        if !(p[0].is_finite() && p[1].is_finite()) {
            continue;
        }
        let q = [unwrap_lon(prev.map(|q| q[0]), p[0]), p[1]];
        if prev != Some(q) {
            out.push(q);
            for i in 0..2 {
                min[i] = min[i].min(q[i]);
                max[i] = max[i].max(q[i]);
            }
        }
        prev = Some(q);
    }
    (out, min, max)
}

/// The tolerance for a bounding box: its diagonal / [`PIXELS_PER_EXTENT`], clamped.
fn tolerance_of(min: [f64; 2], max: [f64; 2]) -> f64 {
    let diag = ((max[0] - min[0]).powi(2) + (max[1] - min[1]).powi(2)).sqrt();
    if !diag.is_finite() {
        return MIN_TOLERANCE_DEG;
    }
    (diag / PIXELS_PER_EXTENT).clamp(MIN_TOLERANCE_DEG, MAX_TOLERANCE_DEG)
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
    tolerance_of(min, max)
}

/// Simplifies a track of `[lon, lat]` points (degrees) with the per-line tolerance: [`clean`],
/// then [`simplify_with`] at [`tolerance_deg`]. The first and last clean points are kept; never
/// panics. A track that is already clean (the common case) is simplified in place, without a
/// copy.
pub fn simplify_track(points: &[[f64; 2]]) -> Vec<[f64; 2]> {
    if let Some((min, max)) = clean_bounds(points) {
        return simplify_with(points, tolerance_of(min, max));
    }
    let (clean, min, max) = clean_with_bounds(points);
    simplify_with(&clean, tolerance_of(min, max))
}

/// The bounding box of `points` when [`clean`] would leave them as they are (all finite, no
/// longitude to unwrap, no consecutive duplicate), else `None`.
fn clean_bounds(points: &[[f64; 2]]) -> Option<([f64; 2], [f64; 2])> {
    let mut min = [f64::INFINITY; 2];
    let mut max = [f64::NEG_INFINITY; 2];
    let mut prev: Option<[f64; 2]> = None;
    for &p in points {
        let unchanged = p[0].is_finite()
            && p[1].is_finite()
            && unwrap_lon(prev.map(|q| q[0]), p[0]).to_bits() == p[0].to_bits()
            && prev != Some(p);
        if !unchanged {
            return None;
        }
        for i in 0..2 {
            min[i] = min[i].min(p[i]);
            max[i] = max[i].max(p[i]);
        }
        prev = Some(p);
    }
    Some((min, max))
}

/// Ramer–Douglas–Peucker with tolerance `eps` (degrees) on `points` as given (no cleaning):
/// the points GEOS's `DouglasPeuckerLineSimplifier` keeps for the same line and tolerance, in
/// order (module documentation). `eps` that is negative or not a number leaves the line as it
/// is. Points must be finite ([`clean`] makes them so); never panics.
pub fn simplify_with(points: &[[f64; 2]], eps: f64) -> Vec<[f64; 2]> {
    if eps.is_nan() || eps < 0.0 {
        return points.to_vec();
    }
    if points.len() < 3 {
        // Nothing to simplify, but two equal points are one, as in GEOS (and as below).
        let mut out: Vec<[f64; 2]> = points.to_vec();
        out.dedup();
        return out;
    }
    let last = points.len() - 1;
    let mut kept = Vec::new();
    sections(points, eps, 0, last, &mut kept);
    let mut out: Vec<[f64; 2]> = Vec::with_capacity(kept.len() + 2);
    out.push(points[0]);
    for p in kept.into_iter().map(|k| points[k]).chain([points[last]]) {
        if out.last() != Some(&p) {
            out.push(p);
        }
    }
    out
}

/// One entry of the explicit stack of [`sections`].
enum Task {
    /// Simplify the section between these two (kept) indices.
    Section(usize, usize),
    /// Emit this split point (after everything left of it).
    Emit(usize),
}

/// Appends to `kept`, in increasing order, the split points of section `i..=j` (its ends are
/// not included).
fn sections(points: &[[f64; 2]], eps: f64, i: usize, j: usize, kept: &mut Vec<usize>) {
    let mut stack = vec![Task::Section(i, j)];
    while let Some(task) = stack.pop() {
        let (i, j) = match task {
            Task::Emit(m) => {
                kept.push(m);
                continue;
            }
            Task::Section(i, j) => (i, j),
        };
        if j - i < 2 {
            continue;
        }
        let Some(m) = split_point(points, eps, i, j) else {
            continue;
        };
        if m - i >= PARALLEL_HALF && j - m >= PARALLEL_HALF {
            let (left, right) = rayon::join(
                || {
                    let mut v = Vec::new();
                    sections(points, eps, i, m, &mut v);
                    v
                },
                || {
                    let mut v = Vec::new();
                    sections(points, eps, m, j, &mut v);
                    v
                },
            );
            kept.extend(left);
            kept.push(m);
            kept.extend(right);
        } else {
            stack.push(Task::Section(m, j));
            stack.push(Task::Emit(m));
            stack.push(Task::Section(i, m));
        }
    }
}

/// GEOS's `Distance::pointToSegment` from `p` to the segment `a`–`b`, operation for operation,
/// so the result is bit-identical.
fn geos_distance(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let to = |q: [f64; 2]| {
        let dx = p[0] - q[0];
        let dy = p[1] - q[1];
        (dx * dx + dy * dy).sqrt()
    };
    if a == b {
        return to(a);
    }
    let len2 = (b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]);
    let r = ((p[0] - a[0]) * (b[0] - a[0]) + (p[1] - a[1]) * (b[1] - a[1])) / len2;
    if r <= 0.0 {
        return to(a);
    }
    if r >= 1.0 {
        return to(b);
    }
    let s = ((a[1] - p[1]) * (b[0] - a[0]) - (a[0] - p[0]) * (b[1] - a[1])) / len2;
    s.abs() * len2.sqrt()
}

/// The segment a section is measured against, with what the key needs.
#[derive(Clone, Copy)]
struct Segment {
    a: [f64; 2],
    ab: [f64; 2],
    len2: f64,
}

impl Segment {
    fn new(a: [f64; 2], b: [f64; 2]) -> Segment {
        let ab = [b[0] - a[0], b[1] - a[1]];
        Segment {
            a,
            ab,
            len2: ab[0] * ab[0] + ab[1] * ab[1],
        }
    }

    /// The squared distance of `p` from the segment times `|AB|²` (for a zero-length segment,
    /// the squared distance to `A`): monotone in GEOS's distance up to rounding, with no
    /// division, square root or branch. By Lagrange's identity `|AP|²·|AB|² = cross² + dot²`
    /// (and the same from `B` with `dot − |AB|²`), so the key is `cross² + e²` where `e` is how
    /// far the projection falls outside the segment (`−dot` before `A`, `dot − |AB|²` after
    /// `B`, else 0).
    #[inline(always)]
    fn key(&self, p: [f64; 2]) -> f64 {
        let dx = p[0] - self.a[0];
        let dy = p[1] - self.a[1];
        let dot = dx * self.ab[0] + dy * self.ab[1];
        let cross = dy * self.ab[0] - dx * self.ab[1];
        let e = max(max(-dot, dot - self.len2), 0.0);
        let key = cross * cross + e * e;
        if self.len2 > 0.0 {
            key
        } else {
            dx * dx + dy * dy
        }
    }
}

/// The largest key of a scan, where it is, and the largest key of every other point.
#[derive(Debug, Clone, Copy)]
struct Scan {
    top: f64,
    at: usize,
    runner_up: f64,
}

impl Scan {
    const EMPTY: Scan = Scan {
        top: f64::NEG_INFINITY,
        at: usize::MAX,
        runner_up: f64::NEG_INFINITY,
    };

    /// Both scans as one (`self` covers points before `other`'s; ties keep the earlier point,
    /// and the other tied key becomes the runner-up, so a tie is never taken for unique).
    fn merge(self, other: Scan) -> Scan {
        let (win, lose) = if other.top > self.top {
            (other, self)
        } else {
            (self, other)
        };
        Scan {
            top: win.top,
            at: win.at,
            runner_up: max(win.runner_up, lose.top),
        }
    }
}

/// `a` or `b`, whichever is larger (`b` when equal): one `maxsd`, no NaN branch (keys are never
/// NaN for finite points).
#[inline(always)]
fn max(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

/// Sections at least this long scan their two halves on two cores.
const PARALLEL_SCAN: usize = 1 << 16;

/// The [`Scan`] of `interior` (whose first point has index `first` in the line): four
/// independent lanes, so the loop pipelines; halves of long sections in parallel.
fn scan(seg: &Segment, interior: &[[f64; 2]], first: usize) -> Scan {
    if interior.len() >= PARALLEL_SCAN {
        let mid = interior.len() / 2;
        let (left, right) = rayon::join(
            || scan(seg, &interior[..mid], first),
            || scan(seg, &interior[mid..], first + mid),
        );
        return left.merge(right);
    }
    lanes(seg, interior, first)
}

/// Lanes of [`lanes_portable`]: eight, so one AVX2 register pair or one AVX-512 register holds
/// them.
const LANES: usize = 8;

/// The [`Scan`] of a section on one core: with AVX2 when the CPU has it (checked once per
/// process by the standard library), else with the baseline instruction set. Both run the same
/// code, so they give the same answer.
fn lanes(seg: &Segment, interior: &[[f64; 2]], first: usize) -> Scan {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked on the line above), which is all
        // `lanes_avx2` requires.
        return unsafe { lanes_avx2(seg, interior, first) };
    }
    lanes_portable(seg, interior, first)
}

/// [`lanes_portable`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn lanes_avx2(seg: &Segment, interior: &[[f64; 2]], first: usize) -> Scan {
    lanes_portable(seg, interior, first)
}

/// The scan proper: [`LANES`] independent lanes, each step a plain operation over the lane
/// arrays (what the compiler's SLP vectorizer turns into vector instructions); per lane the
/// largest key, its index and the second largest.
#[inline(always)]
fn lanes_portable(seg: &Segment, interior: &[[f64; 2]], first: usize) -> Scan {
    let mut top = [f64::NEG_INFINITY; LANES];
    let mut second = [f64::NEG_INFINITY; LANES];
    let mut at = [0u64; LANES];
    let mut blocks = interior.chunks_exact(LANES);
    let mut base = first as u64;
    let (ax, ay, abx, aby, len2) = (seg.a[0], seg.a[1], seg.ab[0], seg.ab[1], seg.len2);
    let degenerate = len2 <= 0.0;
    for block in &mut blocks {
        // A fixed-size view, so the lane loops below have no bounds checks.
        let Ok(block) = <&[[f64; 2]; LANES]>::try_from(block) else {
            continue;
        };
        let mut key = [0.0f64; LANES];
        for l in 0..LANES {
            let dx = block[l][0] - ax;
            let dy = block[l][1] - ay;
            let dot = dx * abx + dy * aby;
            let cross = dy * abx - dx * aby;
            let e = max(max(-dot, dot - len2), 0.0);
            let k = cross * cross + e * e;
            key[l] = if degenerate { dx * dx + dy * dy } else { k };
        }
        for l in 0..LANES {
            let k = key[l];
            second[l] = max(second[l], if k < top[l] { k } else { top[l] });
            at[l] = if k > top[l] { base + l as u64 } else { at[l] };
            top[l] = max(k, top[l]);
        }
        base += LANES as u64;
    }
    let mut out = Scan::EMPTY;
    for l in 0..LANES {
        if top[l] > f64::NEG_INFINITY {
            out = out.merge(Scan {
                top: top[l],
                at: at[l] as usize,
                runner_up: second[l],
            });
        }
    }
    for (k, &p) in blocks.remainder().iter().enumerate() {
        out = out.merge(Scan {
            top: seg.key(p),
            at: base as usize + k,
            runner_up: f64::NEG_INFINITY,
        });
    }
    out
}

/// Where section `i..=j` splits (GEOS: the first interior point at the largest distance from
/// the segment `p[i]`–`p[j]`), or `None` when that largest distance is at most `eps`.
///
/// One scan finds the largest key and the runner-up. When the runner-up is clearly below the
/// largest, the largest key's point is GEOS's split point and its exact distance decides; when
/// several keys are within [`KEY_MARGIN`] of the largest, a second scan measures each of them
/// exactly and keeps the first of the largest exact distances, as GEOS does.
fn split_point(points: &[[f64; 2]], eps: f64, i: usize, j: usize) -> Option<usize> {
    let (a, b) = (points[i], points[j]);
    let seg = Segment::new(a, b);
    let interior = &points[i + 1..j];
    let found = scan(&seg, interior, i + 1);
    let top = found.top;
    let scale = if seg.len2 > 0.0 { seg.len2 } else { 1.0 };
    // Keys at or below this are surely within the tolerance (the margin covers rounding and
    // the points whose side of r = 0 or r = 1 the key and GEOS may see differently).
    let slack = top * KEY_MARGIN + f64::MIN_POSITIVE;
    if top + slack < eps * eps * scale * (1.0 - KEY_MARGIN) {
        return None;
    }
    let floor = top - slack;
    let best = if found.runner_up < floor {
        Some((found.at, geos_distance(points[found.at], a, b)))
    } else {
        let mut best: Option<(usize, f64)> = None;
        for (k, &p) in interior.iter().enumerate() {
            if seg.key(p) >= floor {
                let d = geos_distance(p, a, b);
                if best.is_none_or(|(_, bd)| d > bd) {
                    best = Some((i + 1 + k, d));
                }
            }
        }
        best
    };
    best.filter(|&(_, d)| d > eps).map(|(m, _)| m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// GEOS's `DouglasPeuckerLineSimplifier` written out as GEOS writes it (recursive, one
    /// exact distance per point, first maximum wins): the independent truth the fast version
    /// must equal.
    fn geos_reference(points: &[[f64; 2]], eps: f64) -> Vec<[f64; 2]> {
        fn section(pts: &[[f64; 2]], eps: f64, i: usize, j: usize, keep: &mut [bool]) {
            if i + 1 >= j {
                return;
            }
            let (mut max, mut at) = (-1.0, i);
            for (k, &p) in pts.iter().enumerate().take(j).skip(i + 1) {
                let d = geos_distance(p, pts[i], pts[j]);
                if d > max {
                    max = d;
                    at = k;
                }
            }
            if max <= eps {
                keep[i + 1..j].iter_mut().for_each(|k| *k = false);
            } else {
                section(pts, eps, i, at, keep);
                section(pts, eps, at, j, keep);
            }
        }
        if points.is_empty() {
            return Vec::new();
        }
        let mut keep = vec![true; points.len()];
        section(points, eps, 0, points.len() - 1, &mut keep);
        let mut out: Vec<[f64; 2]> = Vec::new();
        for (p, k) in points.iter().zip(keep) {
            if k && out.last() != Some(p) {
                out.push(*p);
            }
        }
        out
    }

    #[test]
    fn identical_points_become_one() {
        let pts = vec![[10.0, 20.0]; 100_000];
        assert_eq!(simplify_track(&pts), vec![[10.0, 20.0]]);
        // Uncleaned, as GEOS issue #1515 fed them: the two ends, equal, are one point.
        assert_eq!(simplify_with(&pts, 0.001), vec![[10.0, 20.0]]);
        // Two equal points too (found by `equals_geos_on_any_line`).
        let two = [[4.0, 0.0], [4.0, 0.0]];
        assert_eq!(simplify_with(&two, 0.0), geos_reference(&two, 0.0));
        assert_eq!(simplify_with(&two, 0.0), vec![[4.0, 0.0]]);
    }

    #[test]
    fn worst_case_zigzag_does_not_overflow() {
        // A zigzag: GEOS's recursion nests once per kept vertex (about 10,000 deep here, more
        // than a 256 KiB stack holds). RDP is quadratic on it, so it stays at 20,000 points.
        let pts: Vec<[f64; 2]> = (0..20_000)
            .map(|i| [i as f64 * 1e-3, if i % 2 == 0 { 0.0 } else { 1.0 }])
            .collect();
        // Run on a small stack, as a tokio worker would.
        let input = pts.clone();
        let out = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || simplify_track(&input))
            .unwrap()
            .join()
            .unwrap();
        // GEOS's recursion needs a deep stack for the same answer.
        let eps = tolerance_deg(&pts);
        let truth = std::thread::Builder::new()
            .stack_size(1 << 30)
            .spawn(move || geos_reference(&pts, eps))
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(out, truth);
        assert!(out.len() > 10_000, "{}", out.len());
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

    /// A vessel-like random walk (heading changes of a few degrees per report).
    fn walk(n: usize, seed: u64) -> Vec<[f64; 2]> {
        let mut state = seed | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let (mut lon, mut lat, mut heading) = (-30.0f64, 0.0f64, 45.0f64);
        (0..n)
            .map(|_| {
                heading += (next() - 0.5) * 6.0;
                lon += 0.005 * heading.to_radians().sin();
                lat += 0.005 * heading.to_radians().cos();
                [lon, lat]
            })
            .collect()
    }

    #[test]
    fn long_tracks_equal_geos_including_the_parallel_splits() {
        for (n, seed) in [(1_000, 7), (60_000, 11), (200_000, 13)] {
            let pts = walk(n, seed);
            let eps = tolerance_deg(&pts);
            let ours = simplify_with(&pts, eps);
            assert_eq!(ours, geos_reference(&pts, eps), "{n} points");
            assert!(ours.len() > 3 && ours.len() < n / 10, "{n}: {}", ours.len());
        }
    }

    #[test]
    fn ties_go_to_the_first_point_as_in_geos() {
        // A square wave on a grid: many interior points share the largest distance exactly.
        let pts: Vec<[f64; 2]> = (0..400)
            .map(|i| [i as f64, f64::from((i / 3) % 2 == 1) * 2.0])
            .collect();
        for eps in [0.0, 0.5, 1.0, 1.9, 2.0, 3.0] {
            assert_eq!(
                simplify_with(&pts, eps),
                geos_reference(&pts, eps),
                "eps {eps}"
            );
        }
        // A point exactly at the tolerance is dropped (GEOS keeps only distances above it).
        let tri = [[0.0, 0.0], [1.0, 1.0], [2.0, 0.0]];
        assert_eq!(simplify_with(&tri, 1.0), vec![[0.0, 0.0], [2.0, 0.0]]);
        assert_eq!(simplify_with(&tri, 0.999_999), tri.to_vec());
    }

    #[test]
    fn a_closed_loop_keeps_a_point_that_is_not_its_start() {
        let pts: Vec<[f64; 2]> = (0..=360)
            .map(|d| {
                let t = f64::from(d).to_radians();
                [t.cos(), t.sin()]
            })
            .collect();
        let out = simplify_with(&pts, 0.01);
        assert_eq!(out, geos_reference(&pts, 0.01));
        assert!(out.len() > 3);
    }

    fn coords() -> impl Strategy<Value = Vec<[f64; 2]>> {
        // Small integer grids make exact ties and repeated points common; reals make the
        // general case.
        let grid = proptest::collection::vec((0i8..6, 0i8..6), 0..80).prop_map(|v| {
            v.into_iter()
                .map(|(x, y)| [f64::from(x), f64::from(y)])
                .collect()
        });
        let real = proptest::collection::vec((-180.0..180.0f64, -80.0..80.0f64), 0..300)
            .prop_map(|v| v.into_iter().map(|(x, y)| [x, y]).collect());
        prop_oneof![grid, real]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn equals_geos_on_any_line(pts in coords(), eps in prop_oneof![Just(0.0), Just(1.0), 0.0..50.0f64]) {
            prop_assert_eq!(simplify_with(&pts, eps), geos_reference(&pts, eps));
        }

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

#!/usr/bin/env python3
"""teu's track simplification side by side with shapely's (GEOS) on the same points.

Runs `cargo bench --bench simplify` with TEU_SIMPLIFY_EXPORT set (or reads an existing export
with --export-dir), which writes each track (1k, 100k and 1M points, little-endian float64
[lon, lat] pairs), teu's output, the tolerance teu chose and teu's timings. Then, for each size:

- shapely: LineString from the same points, `simplify(tolerance, preserve_topology=False)`
  (GEOS Douglas-Peucker), coordinates back out to a NumPy array: timed end to end, the same
  span as teu's `simplify_track` (points in, simplified points out);
- output point counts of both, and whether the kept points are identical;
- Hausdorff distance (degrees) of each output to the input line (GEOS discrete Hausdorff);
- the time ratio teu/shapely (medians of the same number of runs; < 1 means teu is faster).

Usage: pip install -r benches/compare/requirements.txt && python3 benches/compare/compare.py
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import shapely

ROOT = pathlib.Path(__file__).resolve().parents[2]


def export(directory: pathlib.Path) -> None:
    env = dict(os.environ, TEU_SIMPLIFY_EXPORT=str(directory))
    subprocess.run(["cargo", "bench", "--workspace", "--bench", "simplify"],
                   cwd=ROOT, env=env, check=True)


def load(path: pathlib.Path) -> np.ndarray:
    return np.fromfile(path, dtype="<f8").reshape(-1, 2)


def shapely_simplify(points: np.ndarray, tolerance: float) -> np.ndarray:
    line = shapely.linestrings(points)
    simple = shapely.simplify(line, tolerance, preserve_topology=False)
    return shapely.get_coordinates(simple)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--export-dir", type=pathlib.Path,
                    help="use this existing export instead of running the bench")
    ap.add_argument("--json", type=pathlib.Path, help="also write the results here")
    ap.add_argument("--markdown", action="store_true",
                    help="also print the table in Markdown, as the README has it")
    args = ap.parse_args()
    directory = args.export_dir
    if directory is None:
        directory = pathlib.Path(tempfile.mkdtemp(prefix="teu-simplify-"))
        export(directory)
    meta = json.loads((directory / "teu.json").read_text())
    rows = []
    print(f"shapely {shapely.__version__}, GEOS {shapely.geos_version_string}; "
          f"teu exact RDP, halves of {meta['parallel_half']}+ points in parallel")
    print(f"{'points':>9} {'tolerance°':>11} {'teu pts':>8} {'shapely pts':>11} "
          f"{'teu Hausdorff°':>15} {'shapely Hausdorff°':>18} {'teu ms':>9} {'shapely ms':>10} "
          f"{'teu/shapely':>11} {'same points':>11}")
    for size in meta["sizes"]:
        n, tol = size["points"], size["tolerance_deg"]
        points = load(directory / f"track-{n}.f64")
        ours = load(directory / f"teu-{n}.f64")
        assert len(points) == n and len(ours) == size["teu_points"]
        runs = len(size["teu_seconds"])
        shapely_simplify(points, tol)  # warm-up, as teu's export does
        seconds = []
        for _ in range(runs):
            start = time.perf_counter()
            theirs = shapely_simplify(points, tol)
            seconds.append(time.perf_counter() - start)
        line = shapely.linestrings(points)
        h_teu = shapely.hausdorff_distance(line, shapely.linestrings(ours))
        h_shp = shapely.hausdorff_distance(line, shapely.linestrings(theirs))
        same = theirs.shape == ours.shape and bool(np.array_equal(theirs, ours))
        t_teu = statistics.median(size["teu_seconds"])
        t_shp = statistics.median(seconds)
        rows.append({"points": n, "tolerance_deg": tol, "teu_points": len(ours),
                     "shapely_points": len(theirs), "teu_hausdorff_deg": h_teu,
                     "shapely_hausdorff_deg": h_shp, "teu_median_s": t_teu,
                     "shapely_median_s": t_shp, "runs": runs, "ratio": t_teu / t_shp,
                     "same_points": same})
        print(f"{n:>9} {tol:>11.5f} {len(ours):>8} {len(theirs):>11} {h_teu:>15.6f} "
              f"{h_shp:>18.6f} {t_teu * 1e3:>9.2f} {t_shp * 1e3:>10.2f} {t_teu / t_shp:>11.2f} "
              f"{'yes' if same else 'NO':>11}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    if args.markdown:
        print("\n| points | tolerance | teu points | shapely points | Hausdorff to input, teu "
              "| Hausdorff, shapely | teu | shapely | teu / shapely | same points |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['points']:,} | {r['tolerance_deg']:.5f}° | {r['teu_points']:,} "
                  f"| {r['shapely_points']:,} | {r['teu_hausdorff_deg']:.5f}° "
                  f"| {r['shapely_hausdorff_deg']:.5f}° | {r['teu_median_s'] * 1e3:.3f} ms "
                  f"| {r['shapely_median_s'] * 1e3:.3f} ms | {r['ratio']:.2f} "
                  f"| {'yes' if r['same_points'] else 'no'} |")
    if not all(r["same_points"] for r in rows):
        print("teu and GEOS kept different points", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

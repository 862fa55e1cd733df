#!/usr/bin/env bash
# Regenerates the README's simplification figures in one run (release build, 2 cores):
#   1. criterion: `cargo bench --bench simplify` (RDP on 1k/100k/1M-point tracks and the AIS
#      CSV -> per-vessel tracks -> simplified lines -> GeoJSON path), medians as a Markdown table;
#   2. shapely side by side: `benches/compare/compare.py` (same points, same tolerance; fails
#      when teu and GEOS keep different points).
# Needs python3 with `pip install -r benches/compare/requirements.txt`.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --bench simplify -- --noplot 2>&1 | grep -E "^(simplify|ais_file|AIS file)|time:|thrpt:" || true
python3 - <<'PY'
import json, pathlib
root = pathlib.Path("target/criterion")
rows = [("simplify/1000", "1,000 points", 1_000), ("simplify/100000", "100,000 points", 100_000),
        ("simplify/1000000", "1,000,000 points", 1_000_000)]
print("\n| input | median time | throughput |\n|---|---|---|")
def fmt_time(ns):
    return f"{ns / 1e6:.2f} ms" if ns >= 1e5 else f"{ns / 1e3:.1f} µs"
for path, label, n in rows:
    est = json.loads((root / path / "new/estimates.json").read_text())
    ns = est["median"]["point_estimate"]
    print(f"| {label} | {fmt_time(ns)} | {n / ns * 1e3:.1f} M points/s |")
ais = root / "ais_file_to_geojson/read+simplify+geojson"
bench = json.loads((ais / "new/benchmark.json").read_text())
n = bench["throughput"]["Elements"]
ns = json.loads((ais / "new/estimates.json").read_text())["median"]["point_estimate"]
print(f"| AIS CSV → per-vessel tracks → simplified lines → GeoJSON ({n:,} positions) | "
      f"{fmt_time(ns)} | {n / ns * 1e3:.2f} M positions/s |")
PY
python3 benches/compare/compare.py --markdown

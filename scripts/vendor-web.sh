#!/usr/bin/env bash
# Refreshes web/vendor/ from the npm registry, at the versions web/package-lock.json records.
# The files are committed: teu embeds them (include_str!), so building needs no npm.
set -euo pipefail
cd "$(dirname "$0")/../web"
npm ci --no-audit --no-fund
cp node_modules/leaflet/dist/leaflet.js node_modules/leaflet/dist/leaflet.css node_modules/leaflet/LICENSE vendor/leaflet/
cp node_modules/world-atlas/land-110m.json node_modules/world-atlas/LICENSE vendor/world-atlas/
cp node_modules/topojson-client/dist/topojson-client.min.js node_modules/topojson-client/LICENSE vendor/topojson-client/
rm -rf node_modules

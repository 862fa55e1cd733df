// Draws one container's route (GET /v2/containers/{id}/map_geojson) on a Leaflet map whose
// only base layer is the bundled Natural Earth land outline: no tile server is needed.
//
// The API key is read from the URL fragment (#key=teu_...), else the query (?key=...), else
// sessionStorage, else asked for with a prompt; it is kept in sessionStorage for the tab and
// only ever sent in the Authorization header. After drawing, <body> gets
// data-features="<number of features>" and data-drawn="true" (scripts/check-map.sh reads them
// from the DOM); on failure data-error holds the reason.
(function () {
  "use strict";
  const body = document.body;
  const status = document.getElementById("status");
  const id = body.dataset.containerId;

  function apiKey() {
    const fromHash = new URLSearchParams(location.hash.slice(1)).get("key");
    const fromQuery = new URLSearchParams(location.search).get("key");
    let key = fromHash || fromQuery || sessionStorage.getItem("teu-key");
    if (!key) key = window.prompt("teu API key (teu_…)") || "";
    if (key) sessionStorage.setItem("teu-key", key);
    return key;
  }

  function fail(message) {
    body.dataset.error = message;
    status.textContent = message;
  }

  // Makes a coordinate list continuous: each longitude within 180° of the previous one.
  function unwrap(coords) {
    for (let i = 1; i < coords.length; i++) {
      const d = coords[i][0] - coords[i - 1][0];
      if (d > 180) coords[i][0] -= 360 * Math.round(d / 360);
      else if (d < -180) coords[i][0] += 360 * Math.round(-d / 360);
    }
  }

  // Ports come wrapped into [-180, 180], lines unwrapped (continuous): shift every feature by
  // whole turns so that ports follow each other the short way and each line starts at its port.
  // The API cuts a leg that crosses the antimeridian into pieces that each stay within
  // [-180, 180] (RFC 7946 §3.1.9); join consecutive pieces of the same leg again (one ends at
  // ±180 where the next starts at ∓180) and unwrap them, so a Pacific crossing draws as one line.
  function join(fc) {
    const out = [];
    for (const f of fc.features) {
      const prev = out[out.length - 1];
      const lines = prev && prev.geometry.type === "LineString" && f.geometry.type === "LineString";
      if (lines && prev.properties.feature_type === f.properties.feature_type &&
          prev.properties.ports_sequence === f.properties.ports_sequence) {
        const a = prev.geometry.coordinates[prev.geometry.coordinates.length - 1];
        const b = f.geometry.coordinates[0];
        if (a && b && Math.abs(Math.abs(a[0]) - 180) < 1e-9 && a[0] === -b[0] && a[1] === b[1]) {
          const joined = prev.geometry.coordinates.concat(f.geometry.coordinates.slice(1));
          unwrap(joined);
          prev.geometry.coordinates = joined;
          prev.properties = Object.assign({}, prev.properties, {
            point_count: joined.length,
          });
          continue;
        }
      }
      out.push(f);
    }
    fc.features = out;
    for (const f of out) if (f.geometry.type === "LineString") unwrap(f.geometry.coordinates);
    return fc;
  }

  function align(fc) {
    join(fc);
    const shift = (lon, ref) => lon + 360 * Math.round((ref - lon) / 360);
    const ports = fc.features.filter((f) => f.properties.feature_type === "port")
      .sort((a, b) => a.properties.ports_sequence - b.properties.ports_sequence);
    const portLon = {};
    let prev = null;
    for (const p of ports) {
      const c = p.geometry.coordinates;
      if (prev !== null) c[0] = shift(c[0], prev);
      prev = c[0];
      portLon[p.properties.ports_sequence] = c[0];
    }
    let vesselRef = null;
    for (const f of fc.features) {
      if (f.geometry.type !== "LineString" || f.geometry.coordinates.length === 0) continue;
      const cs = f.geometry.coordinates;
      const ref = portLon[f.properties.ports_sequence];
      if (ref === undefined) continue;
      const d = shift(cs[0][0], ref) - cs[0][0];
      for (const c of cs) c[0] += d;
      if (f.properties.feature_type === "estimated_partial_leg") vesselRef = cs[0][0];
    }
    for (const f of fc.features) {
      if (f.properties.feature_type !== "current_vessel") continue;
      const ref = vesselRef !== null ? vesselRef : portLon[f.properties.ports_sequence];
      if (ref !== undefined) f.geometry.coordinates[0] = shift(f.geometry.coordinates[0], ref);
    }
    return fc;
  }

  const map = L.map("map", { worldCopyJump: false, preferCanvas: false }).setView([20, 0], 2);
  const colors = {
    past_vessel_locations: "#1f6feb",
    estimated_partial_leg: "#d29922",
    estimated_full_legs: "#8957e5",
  };

  const land = fetch("/map/assets/land-110m.json")
    .then((r) => r.json())
    .then((topo) => {
      const geo = topojson.feature(topo, topo.objects.land);
      // Rings that cross the antimeridian (Chukotka, Fiji) jump from +180 to -180: make them
      // continuous so they do not draw bands across the map.
      for (const f of geo.features) {
        const polys = f.geometry.type === "Polygon" ? [f.geometry.coordinates] : f.geometry.coordinates;
        for (const poly of polys) for (const ring of poly) unwrap(ring);
      }
      // Three copies so that routes unwrapped past ±180° still have land under them.
      for (const shift of [-360, 0, 360]) {
        L.geoJSON(geo, {
          coordsToLatLng: (c) => L.latLng(c[1], c[0] + shift),
          style: { color: "#8c8c7a", weight: 0.6, fillColor: "#efeadf", fillOpacity: 1 },
          interactive: false,
        }).addTo(map);
      }
    });

  const key = apiKey();
  const route = fetch(`/v2/containers/${encodeURIComponent(id)}/map_geojson`, {
    headers: { Authorization: `Token ${key}` },
  }).then(async (r) => {
    const doc = await r.json();
    if (!r.ok) {
      const e = (doc.errors && doc.errors[0]) || {};
      throw new Error(`${r.status} ${e.title || ""}: ${e.detail || ""}`);
    }
    return doc;
  });

  Promise.all([land, route])
    .then(([, fc]) => {
      align(fc);
      const layer = L.geoJSON(fc, {
        style: (f) => ({
          color: colors[f.properties.feature_type] || "#333",
          weight: 3,
          dashArray: f.properties.feature_type === "past_vessel_locations" ? null : "6 6",
        }),
        pointToLayer: (f, latlng) =>
          L.circleMarker(latlng, {
            radius: f.properties.feature_type === "current_vessel" ? 7 : 5,
            color: f.properties.feature_type === "current_vessel" ? "#cf222e" : "#1a7f37",
            fillOpacity: 0.9,
          }),
        onEachFeature: (f, l) => {
          const p = f.properties;
          const title = p.feature_type === "port" ? `${p.label} ${p.name}`
            : p.feature_type === "current_vessel" ? `${p.vessel_name} (IMO ${p.vessel_imo})`
            : `${p.feature_type} (${p.point_count} points)`;
          l.bindTooltip(title);
        },
      }).addTo(map);
      const n = fc.features.length;
      if (n > 0) map.fitBounds(layer.getBounds(), { padding: [30, 30] });
      const counts = {};
      for (const f of fc.features) counts[f.properties.feature_type] = (counts[f.properties.feature_type] || 0) + 1;
      status.innerHTML = n === 0 ? "No route data for this container yet." :
        Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(", ") +
        '<div class="legend"><span style="background:#1f6feb"></span>track' +
        '<span style="background:#d29922"></span>to next port<span style="background:#8957e5"></span>planned</div>';
      body.dataset.features = String(n);
      body.dataset.featureTypes = Object.keys(counts).sort().join(",");
      body.dataset.drawn = "true";
    })
    .catch((e) => fail(String(e.message || e)));
})();

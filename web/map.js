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

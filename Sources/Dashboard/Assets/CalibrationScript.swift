/// The calibration page's script: polls `/api/calibration` (the flow the agent's main loop runs)
/// twice a second, posts the buttons' commands to it, and draws the two coverage pictures — the
/// six faces (covered, held now, up now from the live `/events` stream) and the magnetometer's
/// azimuth × elevation map (cells from the agent's latest ellipsoid fit, the live field as a dot).
enum CalibrationScript {
    static let source = #"""
"use strict";
const $ = (id) => document.getElementById(id);
const FACES = ["+x", "−x", "+y", "−y", "+z", "−z"];
const fixed = (v, d) => (v === null || v === undefined || Number.isNaN(v)) ? "–" : Number(v).toFixed(d);
const vec = (v, d) => v ? v.map((x) => fixed(x, d)).join("  ") : "–";
function setText(id, text) { const e = $(id); if (e.textContent !== text) e.textContent = text; }
window.emCal = null;
window.emCalLive = 0;
let live = null;

async function post(action, extra) {
  const body = Object.assign({ action: action }, extra || {});
  try {
    const r = await fetch("/api/calibration", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const j = await r.json();
    if (!j.ok) setText(action === "save" || action === "cancel" ? (window.emCal && window.emCal.active || "gyro") + "-error" : action + "-error", j.error);
  } catch (e) { setText("gyro-error", "the agent does not answer: " + e); }
  poll();
}

// The live stream is in board axes (the mount applied); the steps count chip axes: v_chip = Rᵀ·v_board
// with R the status's row-major mount matrix.
function toChip(v, m) {
  if (!v || !m) return v;
  return [0, 1, 2].map((i) => m[i] * v[0] + m[3 + i] * v[1] + m[6 + i] * v[2]);
}
const mountOf = (kind) => window.emCal && window.emCal.mount ? window.emCal.mount[kind] : null;

// ---- six faces: a cube net, +z in the middle ----
const NET = { "+y": [1, 0], "−x": [0, 1], "+z": [1, 1], "+x": [2, 1], "−z": [3, 1], "−y": [1, 2] };
function upFace(a) {
  // Core Motion acceleration (g) reads −1 on the axis that points up: specific force = −a.
  if (!a) return null;
  const f = [-a[0], -a[1], -a[2]], m = Math.hypot(f[0], f[1], f[2]);
  let i = 0; for (let k = 1; k < 3; k++) if (Math.abs(f[k]) > Math.abs(f[i])) i = k;
  if (m <= 0 || Math.abs(f[i]) < 0.8 * m) return null;
  return FACES[i * 2 + (f[i] > 0 ? 0 : 1)];
}
let accelDraws = 0;
function drawFaces() {
  const c = $("accel-picture"), g = c.getContext("2d"), W = c.width, H = c.height, s = 56, ox = 20, oy = 16;
  g.clearRect(0, 0, W, H);
  const st = window.emCal && window.emCal.accel, a0 = live && toChip(live.accelerometer, mountOf("accel_gyro")), up = upFace(a0);
  const covered = new Set(st ? st.faces.filter((f) => f.covered).map((f) => f.face) : []);
  const hold = st && st.holding;
  for (const [name, [cx, cy]] of Object.entries(NET)) {
    const x = ox + cx * (s + 4), y = oy + cy * (s + 4);
    g.fillStyle = covered.has(name) ? "#1f7a3a" : "#2b3440"; g.fillRect(x, y, s, s);
    if (hold && hold.face === name && !covered.has(name) && st.state === "running") {
      g.fillStyle = "#b7791f"; g.fillRect(x, y + s * (1 - Math.min(1, hold.seconds / hold.needed_s)), s, s * Math.min(1, hold.seconds / hold.needed_s));
    }
    if (up === name) { g.strokeStyle = "#ffffff"; g.lineWidth = 3; g.strokeRect(x + 1.5, y + 1.5, s - 3, s - 3); g.lineWidth = 1; }
    g.fillStyle = "#e8edf2"; g.font = "bold 15px sans-serif"; g.fillText(name, x + s / 2 - 11, y + s / 2 + 5);
  }
  // Gravity now, seen from above the chip (x right, y up the screen), length = horizontal part.
  const gx = 340, gy = 100, r = 60;
  g.strokeStyle = "#3d4f62"; g.beginPath(); g.arc(gx, gy, r, 0, 2 * Math.PI); g.stroke();
  g.fillStyle = "#8a96a3"; g.font = "11px sans-serif"; g.fillText("gravity (x→, y↑)", gx - 45, gy + r + 16);
  if (a0) {
    const a = a0, n = Math.hypot(a[0], a[1], a[2]) || 1;
    g.strokeStyle = "#4da3ff"; g.lineWidth = 3; g.beginPath(); g.moveTo(gx, gy);
    g.lineTo(gx + r * a[0] / n, gy - r * a[1] / n); g.stroke(); g.lineWidth = 1;
    g.fillStyle = "#4da3ff"; g.beginPath(); g.arc(gx + r * a[0] / n, gy - r * a[1] / n, 4, 0, 2 * Math.PI); g.fill();
  }
  c.dataset.covered = Array.from(covered).sort().join(",");
  c.dataset.up = up || "";
  c.dataset.draws = String(++accelDraws);
}

// ---- magnetometer: 4 equal-area bands in z (bottom −1 … top +1) × 8 azimuth sectors ----
let magDraws = 0;
function drawMag() {
  const c = $("mag-picture"), g = c.getContext("2d"), W = c.width, H = c.height - 20;
  g.clearRect(0, 0, c.width, c.height);
  const st = window.emCal && window.emCal.mag, cells = st ? st.cells : [];
  const bands = 4, sectors = 8, cw = W / sectors, ch = H / bands;
  let filled = 0;
  for (let b = 0; b < bands; b++) for (let s = 0; s < sectors; s++) {
    const on = !!cells[b * sectors + s]; if (on) filled++;
    g.fillStyle = on ? "#1f7a3a" : "#2b3440";
    g.fillRect(s * cw + 1, (bands - 1 - b) * ch + 1, cw - 2, ch - 2);
  }
  g.fillStyle = "#8a96a3"; g.font = "11px sans-serif";
  g.fillText("azimuth −180° … 180° →   elevation ↑ (z = −1 … 1)", 4, c.height - 5);
  if (live && live.magnetometer && st) {
    const o = (st.offset || [0, 0, 0]), m = toChip(live.magnetometer, mountOf("magnetometer"));
    const v = [m[0] - o[0], m[1] - o[1], m[2] - o[2]], n = Math.hypot(v[0], v[1], v[2]);
    if (n > 0) {
      const x = (Math.atan2(v[1], v[0]) + Math.PI) / (2 * Math.PI) * W, y = (1 - v[2] / n) / 2 * H;
      g.fillStyle = "#ffffff"; g.beginPath(); g.arc(x, y, 5, 0, 2 * Math.PI); g.fill();
    }
  }
  c.dataset.cells = String(filled);
  c.dataset.draws = String(++magDraws);
}

// ---- the flow's state ----
function show(st) {
  window.emCal = st;
  const busy = st.active !== null;
  const gy = st.gyro, ac = st.accel, mg = st.mag, f = st.file;
  setText("gyro-state", gy.state); $("gyro-progress").value = gy.state === "running" ? Math.min(1, gy.elapsed_s / gy.duration_s) : (gy.state === "done" ? 1 : 0);
  setText("gyro-bias", vec(gy.bias_dps, 4)); setText("gyro-noise", fixed(gy.noise_dps, 4)); setText("gyro-error", gy.error || "");
  $("gyro-start").disabled = busy || !st.sensors.gyroscope;
  setText("accel-state", ac.state + (ac.state === "running" ? " (" + ac.faces.filter((x) => x.covered).length + "/6)" : ""));
  setText("accel-missing", ac.faces.filter((x) => !x.covered).map((x) => x.face).join(", ") || "none");
  setText("accel-offset", vec(ac.offset, 4)); setText("accel-scale", vec(ac.scale, 5)); setText("accel-error", ac.error || "");
  $("accel-start").disabled = busy || !st.sensors.accelerometer; $("accel-save").disabled = st.active !== "accel"; $("accel-cancel").disabled = st.active !== "accel";
  setText("mag-state", mg.state); setText("mag-readings", String(mg.readings)); setText("mag-coverage", fixed(mg.coverage * 100, 0));
  setText("mag-residual", mg.residual === undefined ? "–" : fixed(mg.residual * 100, 2)); setText("mag-verdict", mg.verdict || "–");
  setText("mag-field", fixed(mg.field_strength, 1)); setText("mag-advice", mg.advice || "–"); setText("mag-error", mg.error || "");
  $("mag-start").disabled = busy || !st.sensors.magnetometer; $("mag-save").disabled = st.active !== "mag"; $("mag-cancel").disabled = st.active !== "mag";
  setText("file-path", f.path); setText("file-state", f.calibration);
  const a = f.applied;
  setText("applied-gyro", vec(a.gyro_bias_dps, 4)); setText("applied-accel-offset", vec(a.accel_offset, 4));
  setText("applied-accel-scale", vec(a.accel_scale, 5)); setText("applied-mag-offset", vec(a.mag_offset, 2));
  setText("applied-mag-field", fixed(a.mag_field_strength, 2));
  drawFaces(); drawMag();
}
async function poll() {
  try {
    const r = await fetch("/api/calibration", { cache: "no-store" });
    if (r.ok) show(await r.json());
  } catch (e) { /* the next poll retries */ }
}
function connect() {
  const es = new EventSource("/events");
  es.addEventListener("live", (e) => {
    try { live = JSON.parse(e.data); } catch (err) { return; }
    window.emCalLive++;
    setText("device", live.device_id || "");
    setText("accel-up", upFace(toChip(live.accelerometer, mountOf("accel_gyro"))) || "–");
    if (window.emCal) { drawFaces(); drawMag(); }
  });
  es.onopen = () => { const l = $("link"); l.textContent = "live"; l.className = "pill ok"; };
  es.onerror = () => { const l = $("link"); l.textContent = "reconnecting…"; l.className = "pill bad"; };
}
$("gyro-start").addEventListener("click", () => {
  const d = Number($("gyro-duration").value);
  setText("gyro-error", "");
  post("gyro", { duration_s: d });
});
for (const step of ["accel", "mag"]) {
  $(step + "-start").addEventListener("click", () => { setText(step + "-error", ""); post(step); });
  $(step + "-save").addEventListener("click", () => post("save"));
  $(step + "-cancel").addEventListener("click", () => post("cancel"));
}
connect();
poll();
setInterval(poll, 500);
"""#
}

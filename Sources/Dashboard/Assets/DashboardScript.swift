/// The page's script: one `EventSource` on `/events`, a box drawn by hand on a canvas, scrolling
/// graphs, the hour's activity timeline from `/api/activity`, the configuration from `/api/config`.
enum DashboardScript {
    static let source = #"""
"use strict";
const $ = (id) => document.getElementById(id);
const deg = (r) => (r * 180 / Math.PI);
const COLORS = ["#ff5b5b", "#4cd964", "#4da3ff"];
const ACTIVITY_COLORS = { stationary: "#7f8c8d", walking: "#4cd964", running: "#ff9f1a", cycling: "#4da3ff", automotive: "#b070ff", unknown: "#444c55" };

// ---- the box: device frame (x right along the board, y forward, z out of its face) ----
function rotate(q, v) {
  const [w, x, y, z] = q;
  const ix = w * v[0] + y * v[2] - z * v[1], iy = w * v[1] + z * v[0] - x * v[2];
  const iz = w * v[2] + x * v[1] - y * v[0], iw = -x * v[0] - y * v[1] - z * v[2];
  return [ix * w + iw * -x + iy * -z - iz * -y, iy * w + iw * -y + iz * -x - ix * -z, iz * w + iw * -z + ix * -y - iy * -x];
}
function project(p, cx, cy, s) {
  // A fixed camera: looking at the reference frame from 35° left of -y, 25° above; z up on screen.
  const az = -35 * Math.PI / 180, el = 25 * Math.PI / 180;
  const x1 = p[0] * Math.cos(az) - p[1] * Math.sin(az), y1 = p[0] * Math.sin(az) + p[1] * Math.cos(az);
  const y2 = y1 * Math.cos(el) - p[2] * Math.sin(el), z2 = y1 * Math.sin(el) + p[2] * Math.cos(el);
  return { x: cx + s * x1, y: cy - s * z2, depth: y2 };
}
function drawBox(q) {
  const c = $("box"), g = c.getContext("2d"), W = c.width, H = c.height, cx = W / 2, cy = H / 2 + 10, s = 62;
  g.clearRect(0, 0, W, H);
  // Reference axes on the floor, faint.
  g.strokeStyle = "#2c3640"; g.fillStyle = "#56616c"; g.font = "11px sans-serif";
  for (const [v, name] of [[[1.9, 0, 0], "X ref"], [[0, 1.9, 0], "Y ref"], [[0, 0, 1.7], "Z up"]]) {
    const o = project([0, 0, 0], cx, cy, s), e = project(v, cx, cy, s);
    g.beginPath(); g.moveTo(o.x, o.y); g.lineTo(e.x, e.y); g.stroke(); g.fillText(name, e.x + 3, e.y);
  }
  const hx = 1.3, hy = 0.8, hz = 0.15;
  const corners = [];
  for (const sx of [-1, 1]) for (const sy of [-1, 1]) for (const sz of [-1, 1]) corners.push(rotate(q, [sx * hx, sy * hy, sz * hz]));
  const faces = [[0, 1, 3, 2, "#3a4654"], [4, 5, 7, 6, "#3a4654"], [0, 1, 5, 4, "#2f3a46"], [2, 3, 7, 6, "#2f3a46"], [0, 2, 6, 4, "#34404d"], [1, 3, 7, 5, "#5a6b7d"]];
  const P = corners.map((p) => project(p, cx, cy, s));
  faces.map((f) => ({ f, d: (P[f[0]].depth + P[f[1]].depth + P[f[2]].depth + P[f[3]].depth) / 4 }))
    .sort((a, b) => b.d - a.d)
    .forEach(({ f }) => {
      g.beginPath(); g.moveTo(P[f[0]].x, P[f[0]].y);
      for (let i = 1; i < 4; i++) g.lineTo(P[f[i]].x, P[f[i]].y);
      g.closePath(); g.fillStyle = f[4]; g.globalAlpha = 0.9; g.fill(); g.globalAlpha = 1; g.strokeStyle = "#8a96a3"; g.stroke();
    });
  // The board's own axes, labelled: the user must see which way x points.
  g.font = "bold 14px sans-serif"; g.lineWidth = 3;
  [["x", [2.0, 0, 0]], ["y", [0, 1.5, 0]], ["z", [0, 0, 1.2]]].forEach(([name, v], i) => {
    const o = project([0, 0, 0], cx, cy, s), e = project(rotate(q, v), cx, cy, s);
    g.strokeStyle = COLORS[i]; g.fillStyle = COLORS[i];
    g.beginPath(); g.moveTo(o.x, o.y); g.lineTo(e.x, e.y); g.stroke();
    g.beginPath(); g.arc(e.x, e.y, 3.5, 0, 2 * Math.PI); g.fill();
    g.fillText(name, e.x + 6, e.y - 4);
  });
  g.lineWidth = 1;
}

// ---- scrolling graphs ----
class Graph {
  constructor(id, seconds, rate) { this.c = $(id); this.n = Math.max(10, Math.round(seconds * rate)); this.data = [[], [], []]; this.pushed = 0; }
  push(v) {
    if (!v) return;
    for (let i = 0; i < 3; i++) { this.data[i].push(v[i]); if (this.data[i].length > this.n) this.data[i].shift(); }
    this.pushed++; this.c.dataset.samples = String(this.pushed);
  }
  draw() {
    const g = this.c.getContext("2d"), W = this.c.width, H = this.c.height;
    g.clearRect(0, 0, W, H);
    let m = 1e-3;
    for (const a of this.data) for (const v of a) m = Math.max(m, Math.abs(v));
    m *= 1.15;
    g.strokeStyle = "#26303a"; g.beginPath(); g.moveTo(0, H / 2); g.lineTo(W, H / 2); g.stroke();
    g.fillStyle = "#56616c"; g.font = "10px sans-serif"; g.fillText("±" + m.toPrecision(3), W - 52, 11);
    this.data.forEach((a, i) => {
      g.strokeStyle = COLORS[i]; g.beginPath();
      a.forEach((v, k) => { const x = W - (a.length - 1 - k) * (W / (this.n - 1)), y = H / 2 - (v / m) * (H / 2 - 4); k ? g.lineTo(x, y) : g.moveTo(x, y); });
      g.stroke();
    });
  }
}
let graphs = null;

// ---- activity timeline (last hour) ----
let changes = [];
function drawTimeline() {
  const c = $("timeline"), g = c.getContext("2d"), W = c.width, H = c.height;
  const now = Date.now() / 1000, from = now - 3600;
  g.clearRect(0, 0, W, H);
  const seen = new Set();
  changes.forEach((a, i) => {
    const start = Math.max(from, a.start_utc), end = i + 1 < changes.length ? changes[i + 1].start_utc : now;
    if (end <= from) return;
    seen.add(a.activity);
    g.fillStyle = ACTIVITY_COLORS[a.activity] || "#444c55";
    g.fillRect((start - from) / 3600 * W, 4, Math.max(1, (end - start) / 3600 * W), H - 8);
  });
  $("timeline-legend").textContent = "";
  for (const name of seen) {
    const s = document.createElement("span"); s.textContent = "■ " + name; s.style.color = ACTIVITY_COLORS[name] || "#888";
    $("timeline-legend").appendChild(s);
  }
}
async function loadTimeline() {
  try {
    const r = await fetch("/api/activity", { cache: "no-store" });
    if (r.ok) { changes = (await r.json()).changes || []; drawTimeline(); }
  } catch (e) { /* the next try comes with the next interval */ }
}
async function loadConfig() {
  try {
    const r = await fetch("/api/config", { cache: "no-store" });
    if (r.ok) $("config").textContent = JSON.stringify(await r.json(), null, 2);
  } catch (e) { /* shown as … until the next try */ }
}

// ---- live updates ----
const fixed = (v, d) => (v === null || v === undefined || Number.isNaN(v)) ? "–" : Number(v).toFixed(d);
function setText(id, text) { const e = $(id); if (e.textContent !== text) e.textContent = text; }
function onLive(d) {
  window.emLast = d;
  setText("device", d.device_id || "");
  const h = d.health || {};
  setText("source", h.source || "–"); setText("rate", fixed(h.rate_hz, 0)); setText("achieved", fixed(h.achieved_hz, 1));
  setText("samples", String(h.samples)); setText("drops", String(h.ring_drops)); setText("gaps", String(h.source_gaps));
  setText("errors", String(h.source_errors)); setText("reconnects", String(h.reconnects)); setText("outbox", String(h.outbox_bytes));
  setText("dropped", String(h.outbox_dropped)); setText("spool", String(h.spool_records)); setText("pages", String(h.pages));
  setText("last-error", h.last_error || "none");
  const b = $("broker"); b.textContent = (h.connected ? "broker connected " : "broker disconnected ") + (h.broker || "");
  b.className = "pill " + (h.connected ? "ok" : "bad");
  const m = d.motion;
  if (m) {
    setText("roll", fixed(deg(m.roll), 1)); setText("pitch", fixed(deg(m.pitch), 1)); setText("yaw", fixed(deg(m.yaw), 1));
    setText("heading", m.heading < 0 ? "–" : fixed(m.heading, 1)); setText("frame", m.frame);
    setText("rest", m.rest ? "yes" : "no"); setText("disturbed", m.magnetic_disturbance ? "yes" : "no");
    drawBox(m.quaternion);
  }
  if (!graphs) {
    const rate = Number(d.live_rate_hz || 10);
    graphs = { accel: new Graph("g-accel", 20, rate), gyro: new Graph("g-gyro", 20, rate), mag: new Graph("g-mag", 20, rate), user: new Graph("g-user", 20, rate) };
  }
  graphs.accel.push(d.accelerometer); graphs.gyro.push(d.gyroscope); graphs.mag.push(d.magnetometer); graphs.user.push(m && m.user_acceleration);
  const a = d.activity;
  if (a) {
    setText("activity", a.activity); setText("confidence", a.confidence + " confidence");
    const last = changes[changes.length - 1];
    if (!last || last.activity !== a.activity) { changes.push({ activity: a.activity, confidence: a.confidence, start_utc: a.start_utc }); }
  } else { setText("activity", "off"); setText("confidence", ""); }
  const p = d.pedometer;
  if (p) { setText("steps", String(p.steps)); setText("cadence", fixed(p.cadence * 60, 0)); setText("distance", fixed(p.distance_m, 1)); }
}
let frame = 0;
function render() {
  if (graphs) for (const g of Object.values(graphs)) g.draw();
  if (frame++ % 30 === 0) drawTimeline();
  requestAnimationFrame(render);
}
function connect() {
  const es = new EventSource("/events");
  es.addEventListener("live", (e) => {
    let d;
    try { d = JSON.parse(e.data); } catch (err) { return; }
    onLive(d);
  });
  es.onopen = () => { const l = $("link"); l.textContent = "live"; l.className = "pill ok"; };
  es.onerror = () => { const l = $("link"); l.textContent = "reconnecting…"; l.className = "pill bad"; };
}
drawBox([1, 0, 0, 0]);
connect();
loadConfig();
loadTimeline();
setInterval(loadTimeline, 60000);
setInterval(loadConfig, 30000);
requestAnimationFrame(render);
"""#
}

/// The page's markup and style (see `DashboardScript` for its behaviour).
enum DashboardPage {
    static let html = PageHead.html(title: "EdgeMotion") + #"""
<body>
<header>
  <h1>EdgeMotion <span id="device">…</span></h1>
  <span id="link" class="pill">connecting…</span>
  <span id="broker" class="pill">broker …</span>
  <a class="pill" href="/calibrate">calibrate</a>
</header>
<main>
  <section class="card" id="attitude-card">
    <h2>Attitude</h2>
    <canvas id="box" width="360" height="280" aria-label="the board's attitude: a box with its x, y and z axes"></canvas>
    <table class="numbers">
      <tr><th>roll</th><td><span id="roll">–</span>°</td><th>pitch</th><td><span id="pitch">–</span>°</td></tr>
      <tr><th>yaw</th><td><span id="yaw">–</span>°</td><th>heading</th><td><span id="heading">–</span>°</td></tr>
      <tr><th>frame</th><td colspan="3" id="frame">–</td></tr>
      <tr><th>rest</th><td id="rest">–</td><th>mag. disturbed</th><td id="disturbed">–</td></tr>
    </table>
  </section>
  <section class="card" id="graphs-card">
    <h2>Sensors <small>(last 20 s)</small></h2>
    <div class="graph"><span class="label">accelerometer, g</span><canvas id="g-accel" width="520" height="110"></canvas></div>
    <div class="graph"><span class="label">gyroscope, rad/s</span><canvas id="g-gyro" width="520" height="110"></canvas></div>
    <div class="graph"><span class="label">magnetometer, µT</span><canvas id="g-mag" width="520" height="110"></canvas></div>
    <div class="graph"><span class="label">user acceleration, g</span><canvas id="g-user" width="520" height="110"></canvas></div>
    <p class="legend"><span class="x">x</span> <span class="y">y</span> <span class="z">z</span></p>
  </section>
  <section class="card" id="activity-card">
    <h2>Activity</h2>
    <p class="big"><span id="activity">–</span> <small id="confidence"></small></p>
    <canvas id="timeline" width="520" height="46" aria-label="activity over the last hour"></canvas>
    <p class="axis"><span>−60 min</span><span>now</span></p>
    <p id="timeline-legend" class="legend"></p>
    <table class="numbers">
      <tr><th>steps</th><td id="steps">–</td><th>cadence</th><td><span id="cadence">–</span> steps/min</td></tr>
      <tr><th>distance</th><td><span id="distance">–</span> m</td><td colspan="2"></td></tr>
    </table>
  </section>
  <section class="card" id="health-card">
    <h2>Health</h2>
    <table class="numbers">
      <tr><th>source</th><td id="source">–</td><th>rate</th><td><span id="achieved">–</span> / <span id="rate">–</span> Hz</td></tr>
      <tr><th>samples</th><td id="samples">–</td><th>ring drops</th><td id="drops">–</td></tr>
      <tr><th>source gaps</th><td id="gaps">–</td><th>source errors</th><td id="errors">–</td></tr>
      <tr><th>reconnects</th><td id="reconnects">–</td><th>outbox</th><td><span id="outbox">–</span> B, <span id="dropped">–</span> dropped</td></tr>
      <tr><th>spool</th><td><span id="spool">–</span> events</td><th>pages</th><td id="pages">–</td></tr>
      <tr><th>last error</th><td colspan="3" id="last-error">none</td></tr>
    </table>
  </section>
  <section class="card wide" id="config-card">
    <h2>Effective configuration <small>(secrets masked)</small></h2>
    <pre id="config">…</pre>
  </section>
</main>
<script src="/app.js"></script>
</body>
</html>
"""#

    static let css = #"""
:root { --bg:#0f1419; --card:#1a2129; --fg:#d8dee6; --dim:#8a96a3; --x:#ff5b5b; --y:#4cd964; --z:#4da3ff; }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--fg); font:14px/1.4 system-ui, sans-serif; }
header { display:flex; gap:12px; align-items:center; padding:10px 16px; background:#141a21; border-bottom:1px solid #26303a; }
h1 { font-size:18px; margin:0; flex:1; } h1 span { color:var(--dim); font-weight:normal; }
h2 { font-size:15px; margin:0 0 8px; } h2 small { color:var(--dim); font-weight:normal; }
main { display:grid; grid-template-columns:repeat(auto-fit, minmax(400px, 1fr)); gap:12px; padding:12px; }
.card { background:var(--card); border-radius:8px; padding:12px; min-width:0; }
.wide { grid-column:1 / -1; }
.pill { padding:2px 10px; border-radius:10px; background:#333c46; font-size:12px; }
.pill.ok { background:#1f5130; } .pill.bad { background:#6b2222; }
canvas { display:block; max-width:100%; background:#11171d; border-radius:4px; }
.graph { position:relative; margin-bottom:6px; }
.graph .label { position:absolute; left:6px; top:2px; font-size:11px; color:var(--dim); }
.numbers { border-collapse:collapse; margin-top:8px; width:100%; }
.numbers th { text-align:left; color:var(--dim); font-weight:normal; padding:2px 8px 2px 0; }
.numbers td { font-variant-numeric:tabular-nums; padding:2px 12px 2px 0; }
.big { font-size:26px; margin:4px 0 8px; } .big small { font-size:14px; color:var(--dim); }
.legend span { margin-right:10px; } .legend .x { color:var(--x); } .legend .y { color:var(--y); } .legend .z { color:var(--z); }
.axis { display:flex; justify-content:space-between; color:var(--dim); font-size:11px; margin:2px 0; }
a.pill { color:var(--fg); text-decoration:none; }
button { background:#2b3a4a; color:var(--fg); border:1px solid #3d4f62; border-radius:4px; padding:4px 12px; cursor:pointer; }
button:disabled { opacity:0.4; cursor:default; }
input { background:#11171d; color:var(--fg); border:1px solid #3d4f62; border-radius:4px; width:5em; }
progress { width:100%; }
.error { color:#ff7b7b; min-height:1.2em; margin:4px 0 0; }
pre { max-height:320px; overflow:auto; font-size:12px; background:#11171d; padding:8px; border-radius:4px; }
"""#
}

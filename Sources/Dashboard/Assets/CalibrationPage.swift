/// The calibration page's markup (`/calibrate`; behaviour in `CalibrationScript`, style shared
/// with the live page in `DashboardPage.css`).
enum CalibrationPage {
    static let html = PageHead.html(title: "EdgeMotion calibration") + #"""
<body>
<header>
  <h1>EdgeMotion calibration <span id="device">…</span></h1>
  <a class="pill" href="/">live page</a>
  <span id="link" class="pill">connecting…</span>
</header>
<main>
  <section class="card" id="gyro-card">
    <h2>1 · Gyroscope bias</h2>
    <p>Lay the board on a steady surface and do not touch it. The agent averages the raw rotation
    rate for the time below and refuses the run if the board moved.</p>
    <p><label>seconds <input id="gyro-duration" type="number" min="2" max="120" value="10"></label>
    <button id="gyro-start">Start</button></p>
    <progress id="gyro-progress" max="1" value="0"></progress>
    <table class="numbers">
      <tr><th>state</th><td id="gyro-state">–</td></tr>
      <tr><th>bias</th><td><span id="gyro-bias">–</span> °/s</td></tr>
      <tr><th>noise</th><td><span id="gyro-noise">–</span> °/s</td></tr>
    </table>
    <p class="error" id="gyro-error"></p>
  </section>
  <section class="card" id="accel-card">
    <h2>2 · Accelerometer, six faces</h2>
    <p>Press Start, then rest the board on each of its six faces, still, for 5 s each (any
    order). A face turns green once it counts; the arrow is gravity now.</p>
    <p><button id="accel-start">Start</button> <button id="accel-save">Save</button> <button id="accel-cancel">Cancel</button></p>
    <canvas id="accel-picture" width="420" height="200" aria-label="the six faces: which are covered, which is up now"></canvas>
    <table class="numbers">
      <tr><th>state</th><td id="accel-state">–</td><th>up now</th><td id="accel-up">–</td></tr>
      <tr><th>missing</th><td colspan="3" id="accel-missing">–</td></tr>
      <tr><th>offset</th><td colspan="3"><span id="accel-offset">–</span> m/s²</td></tr>
      <tr><th>scale</th><td colspan="3" id="accel-scale">–</td></tr>
    </table>
    <p class="error" id="accel-error"></p>
  </section>
  <section class="card" id="mag-card">
    <h2>3 · Magnetometer, ellipsoid</h2>
    <p>Away from metal and magnets, press Start and turn the board slowly through every
    orientation. Each cell of the map (azimuth × elevation of the corrected field, equal areas)
    fills when the field has pointed there; the dot is the field now. Save at good coverage.</p>
    <p><button id="mag-start">Start</button> <button id="mag-save">Save</button> <button id="mag-cancel">Cancel</button></p>
    <canvas id="mag-picture" width="420" height="220" aria-label="field directions covered: azimuth across, elevation up"></canvas>
    <table class="numbers">
      <tr><th>state</th><td id="mag-state">–</td><th>readings</th><td id="mag-readings">–</td></tr>
      <tr><th>coverage</th><td><span id="mag-coverage">–</span> %</td><th>residual</th><td><span id="mag-residual">–</span> %</td></tr>
      <tr><th>verdict</th><td id="mag-verdict">–</td><th>field</th><td><span id="mag-field">–</span> µT</td></tr>
      <tr><th>advice</th><td colspan="3" id="mag-advice">–</td></tr>
    </table>
    <p class="error" id="mag-error"></p>
  </section>
  <section class="card" id="file-card">
    <h2>Calibration file</h2>
    <p>Each step that ends well is written (atomically) into the file the agent loads, keeping
    the other parts, and the pipeline restarts to apply it.</p>
    <table class="numbers">
      <tr><th>file</th><td id="file-path">–</td></tr>
      <tr><th>agent</th><td id="file-state">–</td></tr>
      <tr><th>gyro bias</th><td><span id="applied-gyro">–</span> °/s</td></tr>
      <tr><th>accel offset</th><td><span id="applied-accel-offset">–</span> m/s²</td></tr>
      <tr><th>accel scale</th><td id="applied-accel-scale">–</td></tr>
      <tr><th>mag offset</th><td><span id="applied-mag-offset">–</span> µT</td></tr>
      <tr><th>field strength</th><td><span id="applied-mag-field">–</span> µT</td></tr>
    </table>
  </section>
</main>
<script src="/calibrate.js"></script>
</body>
</html>
"""#
}

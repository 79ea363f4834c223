/// The dashboard page's files, compiled into the binary (a board has no network; no CDN, no
/// framework): `index.html`, `style.css`, `app.js`. The page reads `/events` (Server-Sent
/// Events), `/api/activity` and `/api/config`; `calibrate.html` and `calibrate.js` (the
/// calibration page) read `/events` and `/api/calibration` and post to it.
public enum DashboardAssets {
    public static let indexHTML: [UInt8] = Array(DashboardPage.html.utf8)
    public static let styleCSS: [UInt8] = Array(DashboardPage.css.utf8)
    public static let appJS: [UInt8] = Array(DashboardScript.source.utf8)
    public static let calibrateHTML: [UInt8] = Array(CalibrationPage.html.utf8)
    public static let calibrateJS: [UInt8] = Array(CalibrationScript.source.utf8)
}

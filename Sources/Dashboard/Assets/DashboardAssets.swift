/// The dashboard page's files, compiled into the binary (a board has no network; no CDN, no
/// framework): `index.html`, `style.css`, `app.js`. The page reads `/events` (Server-Sent
/// Events), `/api/activity` and `/api/config`.
public enum DashboardAssets {
    public static let indexHTML: [UInt8] = Array(DashboardPage.html.utf8)
    public static let styleCSS: [UInt8] = Array(DashboardPage.css.utf8)
    public static let appJS: [UInt8] = Array(DashboardScript.source.utf8)
}

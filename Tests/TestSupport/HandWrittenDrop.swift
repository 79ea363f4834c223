import Foundation

/// Recordings written out by hand in the shared CSV schema (`t_s,ax,ay,az`, m/s²), for tests of
/// the motion-event detectors through the CLI and the library.
public enum HandWrittenRecording {
    /// A drop, 200 Hz (one row per 5 ms), 5 s: at rest (0, 0, 9.80665) m/s² (1 g up), then
    /// t = 2.000 … 2.345 s (70 rows) zero specific force — falling — then the landing,
    /// t = 2.350 … 2.360 s (3 rows) at (0, 0, 4 g), then rest. Written to `directory/drop.csv`.
    public static func drop(in directory: String) throws -> String {
        let g = 9.80665
        var csv = "t_s,ax,ay,az\n"
        for i in 0..<1000 {
            let z = (400..<470).contains(i) ? 0 : (470..<473).contains(i) ? 4 * g : g
            csv += "\(String(format: "%.3f", Double(i) * 0.005)),0,0,\(z)\n"
        }
        let path = directory + "/drop.csv"
        try csv.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

import Testing
import Foundation
@testable import Sensors
import MotionCore
import TestSupportPaths
import TestSupport

@Suite("RecordingReader")
struct RecordingReaderTests {
    func temporaryFile(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "edgemotion-rec-\(UUID().uuidString).csv"
        TemporaryFiles.removeAtExit(path)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func parsesDecimalNumbersWithoutLocale() {
        #expect(DecimalParser.parse("-1.25") == -1.25)
        #expect(DecimalParser.parse("3e-4") == 3e-4)
        #expect(DecimalParser.parse("9.80665") == 9.80665)
        #expect(DecimalParser.parse("0.0035") == 0.0035)
        #expect(DecimalParser.parse("nan")!.isNaN)
        #expect(DecimalParser.parse("1,5") == nil)
        #expect(DecimalParser.parse("") == nil)
        #expect(DecimalParser.parse("abc") == nil)
    }

    @Test func readsColumnsByHeaderNameInAnyOrder() throws {
        let path = try temporaryFile("label,az,ay,ax,t_s,extra\nwalking,9.8,0.1,-0.2,0.5,x\nwalking,9.7,0,0,0.54,y\n")
        let reader = try RecordingReader(path: path)
        #expect(!reader.hasGyroscope)
        let rows = try reader.readAll()
        #expect(rows.count == 2)
        #expect(rows[0].time == 0.5)
        #expect(rows[0].specificForce == Vector3(-0.2, 0.1, 9.8))
        #expect(rows[0].label == "walking")
        #expect(rows[1].line == 3)
    }

    @Test func emptyGyroscopeFieldsMeanNoGyroscope() throws {
        let path = try temporaryFile("t_s,ax,ay,az,gx,gy,gz,label\n0,0,0,9.8,,,,stationary\n")
        let rows = try RecordingReader(path: path).readAll()
        #expect(rows[0].rotationRate == nil)
    }

    @Test func malformedNumberNamesFileLineAndColumn() throws {
        let path = try temporaryFile("t_s,ax,ay,az\n0,0,0,9.8\n0.01,0,zz,9.8\n")
        let reader = try RecordingReader(path: path)
        _ = try reader.next()
        #expect(throws: SensorError.self) { _ = try reader.next() }
        do {
            _ = try RecordingReader(path: path).readAll()
        } catch {
            #expect(error.subject == "\(path):3")
            #expect(error.detail.contains("'ay'"))
        }
    }

    /// Times every consumer can hold (finite, within ±1e10 s: Unix seconds fit) and finite
    /// accelerations, or an error naming the line and the column. A t_s of 1e300 in a replayed
    /// recording used to stop the agent with a trap (the replay clock's nanoseconds).
    @Test(arguments: [("nan", "0", "'t_s'"), ("inf", "0", "'t_s'"), ("-inf", "0", "'t_s'"), ("1e300", "0", "'t_s'"),
                      ("1.1e10", "0", "'t_s'"), ("0.02", "nan", "'ax,ay,az'"), ("0.02", "inf", "'ax,ay,az'")])
    func aTimeOrAccelerationNoSensorGivesIsAnErrorNamingLineAndColumn(time: String, ax: String, column: String) throws {
        let path = try temporaryFile("t_s,ax,ay,az\n0,0,0,9.8\n\(time),\(ax),0,9.8\n")
        defer { unlink(path) }
        let reader = try RecordingReader(path: path)
        #expect(try reader.next()?.time == 0)
        do {
            _ = try reader.next()
            Issue.record("t_s \(time), ax \(ax) was accepted")
        } catch {
            #expect(error.subject == "\(path):3" && error.detail.contains(column), "\(error)")
        }
    }

    @Test func unixSecondsAreATime() throws {
        let path = try temporaryFile("t_s,ax,ay,az\n1764491436.25,0,0,9.8\n")
        defer { unlink(path) }
        #expect(try RecordingReader(path: path).readAll().map(\.time) == [1764491436.25])
    }

    @Test func missingRequiredColumnIsReported() throws {
        let path = try temporaryFile("time,ax,ay,az\n0,0,0,9.8\n")
        #expect(throws: SensorError.self) { try RecordingReader(path: path) }
    }

    @Test(.enabled(if: SharedDataPath.root != nil, "../shared/data not found next to the package"))
    func readsAGzipBroadTrialFromSharedData() throws {
        let root = try #require(SharedDataPath.root)
        let path = root + "/data/fusion/02_undisturbed_slow_rotation_B.csv.gz"
        let reader = try RecordingReader(path: path)
        #expect(reader.hasGyroscope && reader.hasMagnetometer && reader.hasTruth)
        var count = 0
        var last = -1.0
        var monotonic = true
        while let row = try reader.next() {
            if row.time <= last { monotonic = false }
            last = row.time
            count += 1
        }
        // README: 53240 samples at 285.714 Hz.
        #expect(count == 53240)
        #expect(monotonic)
        #expect(abs(last - Double(count - 1) / 285.714) < 0.01)
    }
}

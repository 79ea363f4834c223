import Testing
import Foundation
import MotionCore
@testable import Sensors
import TestSupportPaths
import TestSupport

@Suite("ReplaySource", .ownThread)
struct ReplaySourceTests {
    func temporaryFile(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "edgemotion-replay-\(UUID().uuidString).csv"
        TemporaryFiles.removeAtExit(path)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Reads everything (or `limit` samples) with a buffer of `capacity`, recording each read's count.
    func drain(_ source: ReplaySource, capacity: Int = 512, limit: Int = .max) throws -> (samples: [IMUSample], reads: [Int]) {
        let buffer = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        var samples: [IMUSample] = []
        var reads: [Int] = []
        while samples.count < limit {
            let slice = UnsafeMutableBufferPointer(rebasing: buffer[0..<min(capacity, limit - samples.count)])
            switch try source.read(into: slice, timeout: .seconds(2)) {
            case .samples(let n):
                reads.append(n)
                samples.append(contentsOf: slice[0..<n])
            case .timeout: continue
            case .endOfStream: return (samples, reads)
            }
        }
        return (samples, reads)
    }

    @Test(.enabled(if: SharedDataPath.root != nil, "../shared/data not found next to the package"))
    func replaysABroadTrialRowForRowWithItsTiming() throws {
        let root = try #require(SharedDataPath.root)
        let path = root + "/data/fusion/02_undisturbed_slow_rotation_B.csv.gz"
        let first = try #require(try RecordingReader(path: path).next())
        let source = try ReplaySource(path: path, speed: .asFastAsPossible)
        #expect(source.capabilities.sensors == .all)
        #expect(abs(source.recordedRate - 285.714) < 0.01)
        #expect(source.hasTruth)
        let config = try source.start(requestedRate: 100)
        #expect(config.timing == .recorded && config.lossless)
        #expect(abs(config.rate - 285.714) < 0.01)
        let (samples, reads) = try drain(source)
        // README: 53240 samples at 285.714 Hz (dt = 3.5 ms).
        #expect(samples.count == 53240)
        #expect(reads.dropLast().allSatisfy { $0 == 512 }, "as fast as possible fills whole buffers")
        #expect(samples.enumerated().allSatisfy { $0.element.sequence == UInt64($0.offset) })
        var worstSpacing = 0.0
        for k in 1..<samples.count {
            let dt = Double(samples[k].timestampNanos - samples[k - 1].timestampNanos)
            worstSpacing = max(worstSpacing, abs(dt - 3_500_000))
        }
        #expect(worstSpacing < 2_000, "timestamps deviate from 3.5 ms by up to \(worstSpacing) ns")
        let s0 = samples[0]
        #expect(s0.specificForce == first.specificForce)
        #expect(s0.rotationRate == first.rotationRate)
        #expect(s0.magneticField == first.magneticField)
        #expect(s0.contents == .all)
        #expect(source.lastRow?.line == 53241)
        #expect(source.samplesDelivered == 53240)
        let buffer = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: 8)
        defer { buffer.deallocate() }
        #expect(try source.read(into: buffer, timeout: .zero) == .endOfStream)
    }

    @Test(.enabled(if: SharedDataPath.root != nil, "../shared/data not found next to the package"))
    func activityRecordingWithoutGyroscopeHasOnlyAccelerometerSamples() throws {
        let root = try #require(SharedDataPath.root)
        let source = try ReplaySource(path: root + "/data/activity/st_har/walking_01.csv", speed: .asFastAsPossible)
        #expect(source.capabilities.sensors == .accelerometer)
        #expect(!source.capabilities.sensors.contains(.gyroscope))
        #expect(source.hasLabels)
        #expect(abs(source.recordedRate - 26) < 0.5)
        _ = try source.start(requestedRate: 50)
        let (samples, _) = try drain(source, limit: 500)
        #expect(!samples.isEmpty)
        #expect(samples.allSatisfy { $0.contents == .accelerometer })
        #expect(source.lastRow?.label == "walking")
        // The driving recordings have a gyroscope (earth-frame axes) at an irregular ~50 Hz.
        let trip = try ReplaySource(path: root + "/data/activity/driver_behavior/trip17.csv")
        #expect(trip.capabilities.sensors == .inertial)
        #expect(trip.recordedRate > 40 && trip.recordedRate < 130)
    }

    @Test func recordedSpeedSleepsUntilEachSampleIsDue() throws {
        var csv = "t_s,ax,ay,az\n"
        for k in 0..<21 { csv += "\(Double(k) * 0.01),0,0,9.8\n" }
        let source = try ReplaySource(path: try temporaryFile(csv), speed: .recorded)
        #expect(abs(source.recordedRate - 100) < 1e-6)
        _ = try source.start(requestedRate: 100)
        let begin = MonotonicClock.nowNanos()
        let (samples, _) = try drain(source)
        let elapsed = Double(MonotonicClock.nowNanos() - begin) * 1e-9
        #expect(samples.count == 21)
        #expect(elapsed >= 0.15, "0.2 s of recording played in \(elapsed) s")
        #expect(samples.allSatisfy { $0.timestampNanos <= MonotonicClock.nowNanos() })
    }

    @Test func recordedSpeedTimesOutBeforeAFarSample() throws {
        let source = try ReplaySource(path: try temporaryFile("t_s,ax,ay,az\n0,0,0,9.8\n30,0,0,9.8\n"))
        _ = try source.start(requestedRate: 1)
        let buffer = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: 8)
        defer { buffer.deallocate() }
        #expect(try source.read(into: buffer, timeout: .milliseconds(100)) == .samples(1))
        #expect(try source.read(into: buffer, timeout: .milliseconds(20)) == .timeout)
    }

    @Test func loopingContinuesTimestampsAndSequenceNumbers() throws {
        let path = try temporaryFile("t_s,ax,ay,az,gx,gy,gz\n0,0,0,9.8,0.1,0,0\n0.01,0,0,9.7,0.2,0,0\n0.02,0,0,9.6,0.3,0,0\n")
        let source = try ReplaySource(path: path, speed: .asFastAsPossible, loop: true)
        _ = try source.start(requestedRate: 100)
        let (samples, _) = try drain(source, capacity: 4, limit: 9)
        #expect(samples.count == 9)
        #expect(samples.map(\.sequence) == Array(0..<9))
        #expect(zip(samples.dropFirst(), samples).allSatisfy { $0.timestampNanos - $1.timestampNanos == 10_000_000 })
        #expect(samples.map(\.rotationRate.x) == [0.1, 0.2, 0.3, 0.1, 0.2, 0.3, 0.1, 0.2, 0.3])
        #expect(source.loopsCompleted == 2)
    }

    @Test func malformedRowSurfacesAsAnErrorNamingFileAndLine() throws {
        // Past the rows `init` reads ahead, the error comes from `read`.
        var csv = "t_s,ax,ay,az\n"
        for k in 0..<99 { csv += "\(Double(k) * 0.01),0,0,9.8\n" }
        csv += "0.99,0,oops,9.8\n"  // line 101
        let path = try temporaryFile(csv)
        let source = try ReplaySource(path: path, speed: .asFastAsPossible)
        _ = try source.start(requestedRate: 100)
        let buffer = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: 256)
        defer { buffer.deallocate() }
        #expect(try source.read(into: buffer, timeout: .zero) == .samples(99))
        let error = #expect(throws: SensorError.self) { try source.read(into: buffer, timeout: .zero) }
        #expect(error?.subject == "\(path):101")
        #expect(error?.detail.contains("'ay'") == true)
        // Within the look-ahead, opening the recording already fails, naming the line.
        let early = try temporaryFile("t_s,ax,ay,az\n0,0,0,9.8\n0.01,0,0,9.8\n0.02,0,oops,9.8\n")
        let openError = #expect(throws: SensorError.self) { try ReplaySource(path: early) }
        #expect(openError?.subject == "\(early):4")
    }

    @Test func headerOnlyOrMissingFilesAreReported() throws {
        #expect(throws: SensorError.self) { try ReplaySource(path: try temporaryFile("t_s,ax,ay,az\n")) }
        #expect(throws: SensorError.self) { try ReplaySource(path: "/nonexistent/recording.csv") }
    }
}

import Testing
import Foundation
@testable import Sensors

/// Host-side parts of combining several IIO devices into one IMU: nearest-timestamp pairing of a
/// secondary buffered stream, and finding sibling devices through sysfs parent links.
@Suite struct IIOMultiDeviceHostTests {
    /// Feeds a secondary stream (timestamps, the first `available[i]` of them visible when primary
    /// sample i is paired) through `NearestTimestampPairing.advance` and returns, per primary
    /// sample, the index of the secondary sample it got (nil: none yet).
    static func pair(primary: [UInt64], secondary: [UInt64], available: [Int]? = nil) throws -> [Int?] {
        var held: UInt64?
        var heldIndex: Int?
        var next = 0
        var out: [Int?] = []
        for (i, t) in primary.enumerated() {
            let limit = available?[i] ?? secondary.count
            try NearestTimestampPairing.advance(held: &held, to: t, peek: { () throws(SensorError) -> UInt64? in
                next < limit ? secondary[next] : nil
            }, take: {
                heldIndex = next
                next += 1
            })
            out.append(heldIndex)
        }
        return out
    }

    static func stream(count: Int, periodNanos: UInt64, startNanos: UInt64) -> [UInt64] {
        (0..<count).map { startNanos + UInt64($0) * periodNanos }
    }

    @Test func sameRateStreamsPairSampleForSampleDespiteASmallOffset() throws {
        // Accel and gyro from one FIFO at 104 Hz; the gyro is stamped 0.3 ms later (or earlier).
        let accel = Self.stream(count: 50, periodNanos: 9_615_385, startNanos: 1_000_000_000)
        let later = accel.map { $0 + 300_000 }
        let earlier = accel.map { $0 - 300_000 }
        #expect(try Self.pair(primary: accel, secondary: later) == (0..<50).map { Optional($0) })
        #expect(try Self.pair(primary: accel, secondary: earlier) == (0..<50).map { Optional($0) })
    }

    @Test func aSlowerSecondaryIsHeldAndReusedUntilANearerSampleExists() throws {
        let primary = Self.stream(count: 8, periodNanos: 10_000_000, startNanos: 0)      // 100 Hz
        let secondary = Self.stream(count: 4, periodNanos: 20_000_000, startNanos: 0)    // 50 Hz
        // t = 0,10,20,…,70 ms against 0,20,40,60 ms: a tie (10 vs 10) keeps the held one.
        #expect(try Self.pair(primary: primary, secondary: secondary) == [0, 0, 1, 1, 2, 2, 3, 3])
    }

    @Test func aFasterSecondarySkipsToItsNearestSample() throws {
        let primary = Self.stream(count: 5, periodNanos: 20_000_000, startNanos: 20_000_000)  // 50 Hz from 20 ms
        let secondary = Self.stream(count: 12, periodNanos: 9_000_000, startNanos: 0)          // ~111 Hz
        // Secondary at 0,9,18,27,36,45,54,63,72,81,90,99 ms; nearest to 20,40,60,80,100 ms.
        #expect(try Self.pair(primary: primary, secondary: secondary) == [2, 4, 7, 9, 11])
    }

    @Test func aSecondarySampleNotYetDeliveredLeavesTheLatestOneHeld() throws {
        let primary = Self.stream(count: 4, periodNanos: 10_000_000, startNanos: 0)
        let secondary = primary
        // The second secondary sample arrives late (visible only from the third primary sample on);
        // nothing before the first one.
        #expect(try Self.pair(primary: primary, secondary: secondary, available: [0, 1, 1, 4]) == [nil, 0, 0, 3])
    }

    @Test func withoutTimestampsTheLatestAvailableSecondaryWins() throws {
        // A secondary without in_timestamp offers 0 for every sample: everything available is taken.
        #expect(try Self.pair(primary: [5, 6, 7], secondary: [0, 0, 0, 0, 0], available: [2, 2, 5]) == [1, 1, 4])
    }

    @Test func siblingDevicesAreThoseWhoseSysfsEntriesResolveToTheSameParent() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("iio-parent-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let fm = FileManager.default
        for dev in ["i2c-1/1-006a/iio:device1", "i2c-1/1-006a/iio:device2", "i2c-1/1-0069/iio:device0"] {
            try fm.createDirectory(atPath: "\(root)/devices/\(dev)", withIntermediateDirectories: true)
        }
        try fm.createDirectory(atPath: "\(root)/bus/iio/devices", withIntermediateDirectories: true)
        for (id, target) in [("iio:device0", "1-0069"), ("iio:device1", "1-006a"), ("iio:device2", "1-006a")] {
            try fm.createSymbolicLink(atPath: "\(root)/bus/iio/devices/\(id)", withDestinationPath: "../../../devices/i2c-1/\(target)/\(id)")
        }
        let bus = "\(root)/bus/iio/devices"
        let accel = IIODeviceParent.path(ofDevice: "iio:device1", root: bus)
        #expect(accel != nil)
        #expect(accel == IIODeviceParent.path(ofDevice: "iio:device2", root: bus))
        #expect(accel != IIODeviceParent.path(ofDevice: "iio:device0", root: bus))
        #expect(IIODeviceParent.name(ofDevice: "iio:device2", root: bus) == "1-006a")
        #expect(IIODeviceParent.path(ofDevice: "iio:device9", root: bus) == nil)
    }
}

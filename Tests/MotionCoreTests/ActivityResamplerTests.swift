import Testing
@testable import MotionCore

/// The resampler every activity detector and pedometer starts with, on time stamps no sensor
/// gives: they must change nothing (a t of 1e300 from a replayed file used to trap computing its
/// bin number).
@Suite("Activity resampler")
struct ActivityResamplerTests {
    /// Bin centres of a 50 Hz source resampled at 25 Hz, with `corrupt` times fed after the 26th sample.
    static func centres(corrupt: [Double]) -> [Double] {
        var r = ActivityResampler(rate: 25, maximumGap: 1)
        var out: [Double] = []
        for i in 0..<100 {
            r.add(time: Double(i) / 50, specificForce: Vector3(0, 0, 9.81), rotationRate: nil) { out.append($0.time) }
            if i == 25 {
                for t in corrupt { r.add(time: t, specificForce: Vector3(1, 2, 3), rotationRate: nil) { out.append($0.time) } }
            }
        }
        return out
    }

    /// Truth by hand: 100 samples at 50 Hz fill 50 bins of 40 ms, and every completed bin is
    /// emitted at its centre (20 ms, 60 ms, …): 49 of them before the last bin closes.
    @Test func aTimeStampFarAheadOrNotANumberIsIgnored() {
        let clean = Self.centres(corrupt: [])
        #expect(clean.count == 49 && abs(clean[0] - 0.02) < 1e-12 && abs(clean[48] - 1.94) < 1e-12)
        for corrupt in [[1e300], [.infinity], [.nan], [1e20, -1e300], [-.infinity, 5e13]] {
            #expect(Self.centres(corrupt: corrupt) == clean, "\(corrupt)")
        }
    }

    @Test func theDetectorAndThePedometerCarryOnAfterACorruptTimeStamp() {
        let detector = ActivityDetector()
        var pedometer = Pedometer()
        for i in 0..<2000 {
            let t = i == 1000 ? 1e300 : Double(i) / 50
            _ = detector.update(time: t, specificForce: Vector3(0, 0, 9.81), rotationRate: nil)
            _ = pedometer.update(time: t, specificForce: Vector3(0, 0, 9.81))
        }
        #expect(detector.currentActivity?.primary == .stationary)
        #expect(pedometer.data.numberOfSteps == 0)
    }
}

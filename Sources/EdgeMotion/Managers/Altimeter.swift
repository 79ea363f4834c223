import Dispatch
import MotionCore
import Sensors

/// One altitude update: Core Motion's `CMAltitudeData`.
public struct AltitudeData: Sendable, Equatable {
    /// Metres climbed since `startRelativeAltitudeUpdates` (positive up), from the international
    /// barometric formula (`BarometricAltitude`).
    public var relativeAltitude: Double
    /// Barometric pressure, kPa.
    public var pressure: Double
    /// When the pressure was read, ns `CLOCK_MONOTONIC`.
    public var timestampNanos: UInt64
}

/// Core Motion's `CMAltimeter` over an IIO barometer (`bmp280`, `lps22hb`, … any device with a
/// `pressure` channel). Reads on its own dispatch queue at `interval`, never on an IMU path.
public final class Altimeter: @unchecked Sendable {
    // @unchecked Sendable: `reader`, `reference` and `timer` are used only on `queue` (serial).
    private let open: @Sendable () throws(SensorError) -> AuxiliarySensorReader
    private let queue = DispatchQueue(label: "edgemotion.altimeter")
    private var timer: (any DispatchSourceTimer)?
    private var reader: AuxiliarySensorReader?
    private var reference: Double?

    /// Seconds between pressure reads (default 1 s; 0.05…3600).
    public var interval: Double = 1

    /// - Parameters:
    ///   - uri: libiio context (`local:`, `ip:host`).
    ///   - device: the barometer's IIO name, label or id.
    public init(uri: String = "local:", device: String) {
        open = { () throws(SensorError) in try AuxiliarySensorReader(uri: uri, devices: [device]) }
    }

    /// Whether `device` exists and has a pressure channel.
    public func isRelativeAltitudeAvailable() -> Bool {
        (try? open())?.kinds.contains(.pressure) ?? false
    }

    /// Starts updates to `handler` on `queue`: the first reading is 0 m (the reference), later ones
    /// the height climbed since. A barometer that cannot be opened gives one `(nil, .notAvailable)`.
    public func startRelativeAltitudeUpdates(to handlerQueue: DispatchQueue,
                                             withHandler handler: @escaping @Sendable (AltitudeData?, MotionError?) -> Void) {
        stopRelativeAltitudeUpdates()
        let period = min(max(interval, 0.05), 3600)
        queue.async { [self] in
            reference = nil
            do {
                let r = try open()
                guard r.kinds.contains(.pressure) else {
                    handlerQueue.async { handler(nil, MotionError(.notAvailable, detail: "\(r.deviceSpecs.joined()) has no pressure channel")) }
                    return
                }
                reader = r
            } catch {
                handlerQueue.async { handler(nil, MotionError(.notAvailable, detail: "no barometer: \(error)")) }
                return
            }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now(), repeating: period)
            timer.setEventHandler { [self] in
                guard let p = reader?.read().first(where: { $0.kind == .pressure }) else { return }
                let ref = reference ?? p.value
                reference = ref
                let data = AltitudeData(relativeAltitude: BarometricAltitude.relativeAltitude(pressureKPa: p.value, referenceKPa: ref),
                                        pressure: p.value, timestampNanos: p.timestampNanos)
                handlerQueue.async { handler(data, nil) }
            }
            self.timer = timer
            timer.resume()
        }
    }

    /// Stops updates; no handler call starts after it returns.
    public func stopRelativeAltitudeUpdates() {
        queue.sync { timer?.cancel(); timer = nil; reader = nil; reference = nil }
    }
}

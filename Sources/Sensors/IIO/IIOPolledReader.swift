#if canImport(Glibc)
import Glibc
#endif
import Platform
import CIIO
import MotionCore

/// Reads an `IIOSource`'s devices without a buffer: every member's `_raw` attributes on a timer at
/// the output rate, each sample stamped when read (`SampleTiming.timer`). Timer overruns count as
/// lost samples and flag the next one as a discontinuity.
///
/// A value owned by the source and used only on its acquisition thread; it keeps its libiio context
/// alive. `attributeBuffer` belongs to the source, which outlives the reader.
struct IIOPolledReader {
    private let context: IIOContext
    private(set) var members: [IIODeviceMember]
    /// Output rate, Hz (the slowest member's read-back `sampling_frequency`).
    let rate: Double
    private let periodNanos: UInt64
    private var nextTick: UInt64
    private var sequence: UInt64 = 0
    /// Samples lost since start (timer overruns).
    private(set) var missed: UInt64 = 0
    private let attributeBuffer: UnsafeMutableBufferPointer<CChar>

    init(context: IIOContext, members: [IIODeviceMember], rate: Double, attributeBuffer: UnsafeMutableBufferPointer<CChar>) {
        self.context = context
        self.members = members
        self.rate = rate
        self.attributeBuffer = attributeBuffer
        periodNanos = UInt64((1e9 / max(rate, 1e-3)).rounded())
        nextTick = MonotonicClock.nowNanos() + periodNanos
    }

    /// Disables the channels. Idempotent.
    mutating func release() {
        for i in members.indices { members[i].release() }
    }

    /// Waits for the next tick (up to `timeout`) and writes one sample. Allocation-free.
    mutating func read(into out: UnsafeMutableBufferPointer<IMUSample>, timeout: Duration) throws(SensorError) -> ReadResult {
        guard TickSleeper.sleep(untilTick: nextTick, timeout: timeout) else { return .timeout }
        let lost = TickSleeper.advance(&nextTick, period: periodNanos, woke: MonotonicClock.nowNanos())
        missed &+= lost
        sequence &+= lost
        var sample = IMUSample(timestampNanos: 0, sequence: 0, contents: [])
        for member in members {
            for sensor in member.sensors {
                let v = Vector3(try value(sensor.axes[0], of: member), try value(sensor.axes[1], of: member),
                                try value(sensor.axes[2], of: member))
                IIOChannelLayout.store(sensor, v, into: &sample)
            }
        }
        sample.timestampNanos = MonotonicClock.nowNanos()
        sample.flags = lost > 0 ? .discontinuity : []
        sample.sequence = sequence
        sequence &+= 1
        out[0] = sample
        return .samples(1)
    }

    /// `(raw + offset) · scale` of one axis from its `_raw` attribute, allocation-free.
    private func value(_ axis: IIOAxis, of member: IIODeviceMember) throws(SensorError) -> Double {
        let n = iio_channel_attr_read(axis.channel, "raw", attributeBuffer.baseAddress, attributeBuffer.count)
        guard n > 0, let raw = IIOSysfsValues.number(cString: UnsafeBufferPointer(attributeBuffer), length: Int(n)) else {
            try member.checkPresent()
            let e = n < 0 ? Int32(-n) : EINVAL
            throw SensorError(.io, subject: "\(member.subject) \(IIOContext.id(axis.channel))_raw",
                              detail: "read failed (\(Errno(e)))" + (e == ENODEV ? "; the device disappeared (unbound or unplugged)" : ""))
        }
        return (raw + axis.offset) * axis.scale
    }
}

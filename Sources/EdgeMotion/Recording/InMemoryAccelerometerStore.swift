import Synchronization

/// A bounded ring of recorded samples in memory: at most `capacity` samples (the recording
/// duration × rate), the oldest overwritten first. Appending copies into the preallocated ring
/// under a lock taken once per batch; nothing is allocated after `reserve`.
public final class InMemoryAccelerometerStore: AccelerometerRecordingStore {
    private struct Ring {
        var storage: [RecordedAccelerometerData] = []
        /// Index of the oldest sample.
        var start = 0
        var count = 0
    }

    private let ring = Mutex(Ring())

    public init() {}

    /// Samples the ring can hold.
    public var capacity: Int { ring.withLock { $0.storage.count } }

    /// Samples currently held.
    public var count: Int { ring.withLock { $0.count } }

    public func reserve(_ count: Int) {
        ring.withLock { r in
            guard count > r.storage.count else { return }
            var grown: [RecordedAccelerometerData] = []
            grown.reserveCapacity(count)
            for i in 0..<r.count { grown.append(r.storage[(r.start + i) % r.storage.count]) }
            let zero = RecordedAccelerometerData(identifier: 0, timestamp: 0, startDate: 0, acceleration: .zero)
            while grown.count < count { grown.append(zero) }
            r.storage = grown
            r.start = 0
        }
    }

    public func append(_ samples: UnsafeBufferPointer<RecordedAccelerometerData>) {
        ring.withLock { r in
            let capacity = r.storage.count
            guard capacity > 0 else { return }
            r.storage.withUnsafeMutableBufferPointer { slots in
                for s in samples {
                    if r.count < capacity {
                        slots[(r.start + r.count) % capacity] = s
                        r.count += 1
                    } else {
                        slots[r.start] = s
                        r.start = (r.start + 1) % capacity
                    }
                }
            }
        }
    }

    public func samples(from: Double, to: Double) -> [RecordedAccelerometerData] {
        samples { $0.timestamp >= from && $0.timestamp < to }
    }

    public func samples(fromUTC from: Double, toUTC to: Double) -> [RecordedAccelerometerData] {
        samples { $0.startDate >= from && $0.startDate < to }
    }

    private func samples(where keep: (RecordedAccelerometerData) -> Bool) -> [RecordedAccelerometerData] {
        ring.withLock { r in
            var out: [RecordedAccelerometerData] = []
            let capacity = r.storage.count
            for i in 0..<r.count {
                let s = r.storage[(r.start + i) % capacity]
                if keep(s) { out.append(s) }
            }
            return out
        }
    }
}

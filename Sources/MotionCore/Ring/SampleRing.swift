import Synchronization

/// A fixed-capacity, single-producer single-consumer ring of plain values, preallocated once.
///
/// - The producer (the acquisition thread) calls `push`; the consumer (the processing thread)
///   calls `pop` or `drain`. Exactly one thread may play each role at a time.
/// - **Overflow policy: drop newest.** When the ring is full, `push` returns `false`, leaves the
///   ring untouched and counts the sample in `droppedCount`. The producer never blocks and never
///   overwrites a slot the consumer might be reading; a source that must not lose samples (a
///   replay) waits and retries instead.
/// - No allocation, locking or logging after `init`: head and tail are `Atomic<Int>` with
///   acquire/release ordering; each side caches the other's index to avoid cache-line traffic.
public final class SampleRing<Element: BitwiseCopyable>: @unchecked Sendable {
    // Producer-owned.
    @usableFromInline let head = Atomic<Int>(0)
    @usableFromInline var cachedTail = 0
    @usableFromInline let dropped = Atomic<UInt64>(0)
    @usableFromInline let _padding0: (Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0)
    // Consumer-owned.
    @usableFromInline let tail = Atomic<Int>(0)
    @usableFromInline var cachedHead = 0
    @usableFromInline let _padding1: (Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0)
    // Shared, immutable after init.
    @usableFromInline let storage: UnsafeMutableBufferPointer<Element>
    @usableFromInline let mask: Int

    /// Creates a ring holding at least `minimumCapacity` elements (rounded up to a power of two).
    public init(minimumCapacity: Int) {
        precondition(minimumCapacity > 0, "SampleRing capacity must be positive")
        var capacity = 1
        while capacity < minimumCapacity { capacity <<= 1 }
        storage = .allocate(capacity: capacity)
        mask = capacity - 1
    }

    deinit { storage.deallocate() }

    /// Number of slots.
    @inlinable public var capacity: Int { mask + 1 }

    /// Elements currently queued (a snapshot; exact only on the consumer or producer thread).
    @inlinable public var count: Int {
        head.load(ordering: .acquiring) &- tail.load(ordering: .acquiring)
    }

    /// Elements refused because the ring was full, since creation.
    @inlinable public var droppedCount: UInt64 { dropped.load(ordering: .relaxed) }

    /// Producer: appends `value`, or counts it as dropped and returns `false` when full.
    @inlinable
    @discardableResult
    public func push(_ value: Element) -> Bool {
        let h = head.load(ordering: .relaxed)
        if h &- cachedTail > mask {
            cachedTail = tail.load(ordering: .acquiring)
            if h &- cachedTail > mask {
                dropped.wrappingAdd(1, ordering: .relaxed)
                return false
            }
        }
        storage[h & mask] = value
        head.store(h &+ 1, ordering: .releasing)
        return true
    }

    /// Producer: appends a burst (a FIFO read) with one release store, so the consumer sees the
    /// whole burst at once. What does not fit is dropped (newest first) and counted. Returns how
    /// many were appended.
    @inlinable
    @discardableResult
    public func push(contentsOf values: UnsafeBufferPointer<Element>) -> Int {
        guard let base = values.baseAddress, values.count > 0 else { return 0 }
        let h = head.load(ordering: .relaxed)
        var free = mask &+ 1 &- (h &- cachedTail)
        if free < values.count {
            cachedTail = tail.load(ordering: .acquiring)
            free = mask &+ 1 &- (h &- cachedTail)
        }
        let n = Swift.min(free, values.count)
        if n < values.count { dropped.wrappingAdd(UInt64(values.count &- n), ordering: .relaxed) }
        guard n > 0 else { return 0 }
        // At most two contiguous runs: up to the end of storage, then from its start.
        let start = h & mask
        let first = Swift.min(n, mask &+ 1 &- start)
        (storage.baseAddress! + start).update(from: base, count: first)
        if first < n { storage.baseAddress!.update(from: base + first, count: n &- first) }
        head.store(h &+ n, ordering: .releasing)
        return n
    }

    /// Producer: how many elements a push could append now.
    @inlinable
    public var freeSpace: Int {
        let h = head.load(ordering: .relaxed)
        cachedTail = tail.load(ordering: .acquiring)
        return mask &+ 1 &- (h &- cachedTail)
    }

    /// Producer: whether a `push` would succeed now.
    @inlinable
    public var hasSpace: Bool {
        let h = head.load(ordering: .relaxed)
        if h &- cachedTail <= mask { return true }
        cachedTail = tail.load(ordering: .acquiring)
        return h &- cachedTail <= mask
    }

    /// Consumer: removes and returns the oldest element, or `nil` when empty.
    @inlinable
    public func pop() -> Element? {
        let t = tail.load(ordering: .relaxed)
        if t == cachedHead {
            cachedHead = head.load(ordering: .acquiring)
            if t == cachedHead { return nil }
        }
        let value = storage[t & mask]
        tail.store(t &+ 1, ordering: .releasing)
        return value
    }

    /// Consumer: hands every queued element to `body`, oldest first, then frees their slots.
    /// Returns how many were consumed.
    @inlinable
    @discardableResult
    public func drain(_ body: (Element) -> Void) -> Int {
        let t = tail.load(ordering: .relaxed)
        cachedHead = head.load(ordering: .acquiring)
        let n = cachedHead &- t
        var i = t
        while i != cachedHead {
            body(storage[i & mask])
            i &+= 1
        }
        tail.store(cachedHead, ordering: .releasing)
        return n
    }
}

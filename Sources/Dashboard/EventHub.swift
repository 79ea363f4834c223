import Platform
import Synchronization


/// Server-Sent Events fan-out: one event is built once and shared by every open page.
///
/// Each client has its own bounded queue (`queueCapacity` events). `broadcast` never blocks and
/// never grows memory: a client whose queue is full (a slow or stuck browser) loses its oldest
/// event, counted in `statistics.dropped`. The producer (the dashboard's timer) only takes each
/// client's lock long enough to append a reference to the shared bytes.
public final class EventHub: Sendable {
    public let queueCapacity: Int
    public let maximumClients: Int
    private let clients = Mutex<[EventClient]>([])
    private let latest = Mutex<[UInt8]?>(nil)
    private let broadcasted = Atomic<Int>(0)
    private let droppedEvents = Atomic<Int>(0)
    private let refusedClients = Atomic<Int>(0)
    private let servedClients = Atomic<Int>(0)

    public struct Statistics: Sendable, Equatable {
        /// Pages connected now.
        public var clients: Int
        /// Pages served since start.
        public var served: Int
        /// Pages refused because `maximumClients` were connected.
        public var refused: Int
        /// Events broadcast.
        public var broadcast: Int
        /// Events a slow client lost (drop-oldest), summed over clients.
        public var dropped: Int
    }

    public init(queueCapacity: Int = 32, maximumClients: Int = 32) {
        self.queueCapacity = max(1, queueCapacity)
        self.maximumClients = max(1, maximumClients)
    }

    public var statistics: Statistics {
        Statistics(clients: clients.withLock { $0.count }, served: servedClients.load(ordering: .relaxed),
                   refused: refusedClients.load(ordering: .relaxed), broadcast: broadcasted.load(ordering: .relaxed),
                   dropped: droppedEvents.load(ordering: .relaxed))
    }

    /// Formats one SSE message: `event: <name>` and one `data:` line (the JSON has no newline).
    public static func message(event: String, data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count + event.utf8.count + 16)
        out += Array("event: \(event)\ndata: ".utf8)
        out += data.lazy.filter { $0 != 10 && $0 != 13 }
        out += [10, 10]
        return out
    }

    /// Queues `message` (a formatted SSE message) for every client.
    public func broadcast(_ message: [UInt8]) {
        latest.withLock { $0 = message }
        broadcasted.add(1, ordering: .relaxed)
        let now = clients.withLock { $0 }
        for c in now where c.push(message) { droppedEvents.add(1, ordering: .relaxed) }
    }

    /// A new client, or nil when `maximumClients` are connected. Starts with the newest event.
    func connect() -> EventClient? {
        let client = EventClient(capacity: queueCapacity)
        let accepted = clients.withLock { list -> Bool in
            guard list.count < maximumClients else { return false }
            list.append(client)
            return true
        }
        guard accepted else { refusedClients.add(1, ordering: .relaxed); return nil }
        servedClients.add(1, ordering: .relaxed)
        _ = client.push(Array("retry: 2000\n\n".utf8))
        if let m = latest.withLock({ $0 }) { _ = client.push(m) }
        return client
    }

    func disconnect(_ client: EventClient) {
        client.close()
        clients.withLock { list in list.removeAll { $0 === client } }
    }

    /// Ends every stream (server stop).
    public func closeAll() {
        let all = clients.withLock { list -> [EventClient] in defer { list.removeAll() }; return list }
        for c in all { c.close() }
    }
}

/// One page's queue of SSE messages, read by its connection's thread in libmicrohttpd.
///
/// `@unchecked Sendable`: every stored var is read and written only inside `condition.withLock`
/// (its mutex), and `condition` is itself `Sendable`.
final class EventClient: @unchecked Sendable {
    private let condition = Condition()
    private var queue: [[UInt8]?]
    private var head = 0
    private var count = 0
    /// Bytes of the head message already handed out (a message larger than one read).
    private var offset = 0
    private var closed = false

    init(capacity: Int) {
        queue = Array(repeating: nil, count: max(2, capacity))
    }

    /// Appends `message`; returns true when the oldest one was dropped to make room.
    func push(_ message: [UInt8]) -> Bool {
        let (accepted, dropped) = condition.withLock { () -> (Bool, Bool) in
            if closed { return (false, false) }
            var dropped = false
            if count == queue.count {
                // Drop-oldest; a message partly on the wire already is kept whole (the next one goes).
                let cap = queue.count
                let victim = offset > 0 ? 1 : 0
                for k in victim..<(count - 1) { queue[(head + k) % cap] = queue[(head + k + 1) % cap] }
                queue[(head + count - 1) % cap] = nil
                count -= 1
                dropped = true
            }
            queue[(head + count) % queue.count] = message
            count += 1
            return (true, dropped)
        }
        if accepted { condition.notifyOne() }
        return dropped
    }

    func close() {
        condition.withLock { closed = true }
        condition.notifyAll()
    }

    /// What one read of the stream gets.
    enum ReadResult { case bytes(Int), idle, closed }

    /// Copies queued bytes into `buffer`, waiting up to `timeoutMilliseconds` for some.
    func read(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int) -> ReadResult {
        let deadline = MonotonicClock.deadline(after: .milliseconds(timeoutMilliseconds))
        return condition.withLock(waitingUntilNanos: deadline, sliceNanos: .max, for: { count > 0 || closed }) { _ in
            if closed { return .closed }
            if count == 0 { return .idle }
            var written = 0
            while count > 0, written < buffer.count {
                let m = queue[head]!
                let n = min(m.count - offset, buffer.count - written)
                m.withUnsafeBytes { src in
                    buffer.baseAddress!.advanced(by: written).copyMemory(from: src.baseAddress!.advanced(by: offset), byteCount: n)
                }
                written += n
                offset += n
                if offset == m.count {
                    queue[head] = nil
                    head = (head + 1) % queue.count
                    count -= 1
                    offset = 0
                }
            }
            return .bytes(written)
        }
    }
}

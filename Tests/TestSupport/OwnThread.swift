import Dispatch
import Glibc
import Platform
import Synchronization
import Testing

/// A task executor with one thread of its own, for test code that blocks (sleeps, waits for a
/// broker, a child process or a thread).
///
/// Swift Testing runs every test function, synchronous ones too, on Swift's global concurrency
/// pool, which on Linux has a few threads only (libdispatch: the core count, at most twice that
/// while its threads sleep). A test that blocks holds one of them for as long as it blocks; with
/// four such tests running, every other test and Swift Testing's own bookkeeping wait: the whole
/// suite then ran one blocking test after another (its wall time was about the sum of the blocking
/// tests, with the CPUs mostly idle, and tests of a second reported 180 s). Run under this executor
/// (`.ownThread`), a test blocks its own thread and the pool stays free.
///
/// Jobs run in the order they were enqueued, one at a time, on the executor's thread.
public final class OwnThreadExecutor: TaskExecutor, Sendable {
    private let jobs = Mutex<[UnownedJob]>([])
    /// Counts enqueued jobs (and the close) for the thread to wait on.
    private let ready = DispatchSemaphore(value: 0)
    /// The thread until `close()` takes it (so a second close does nothing).
    private let thread = Mutex<PlatformThread?>(nil)

    /// Starts the thread; `name` shows in `top -H` and debuggers.
    public init(name: String) throws(ThreadStartError) {
        let started = try PlatformThread.start(name: name) { [self] in run() }
        thread.withLock { $0 = started }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        ready.signal()
    }

    private func run() {
        while true {
            ready.wait()
            let next: UnownedJob? = jobs.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            guard let next else { return }  // signalled with nothing queued: closed
            next.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// Ends the thread once the jobs queued so far have run; joins it unless called on it. A job
    /// enqueued after that would never run: `OwnThreadTrait` closes the executor only after the
    /// test's work under the preference has returned (its child tasks are structured, done too).
    public func close() {
        guard let t = thread.withLock({ t in defer { t = nil }; return t }) else { return }
        ready.signal()
        if t.isCurrent { t.detach() } else { t.join() }
    }
}

/// Runs each test case of the test or suite it is applied to on a thread of its own
/// (`OwnThreadExecutor`), so that a test that blocks does not hold a thread of the concurrency pool.
/// Child tasks and unstructured `Task {}`s the test starts inherit the preference (they share that
/// thread): a test that blocks its thread while waiting for such a task would wait forever; it must
/// `await` it instead (or its suite go without the trait). Work on actors runs where it always does.
public struct OwnThreadTrait: TestTrait, SuiteTrait, TestScoping {
    /// Waits for one of the `TestSlots` first (all but the critical path).
    public var bounded = true

    public var isRecursive: Bool { true }

    /// A scope per test case (every test has at least one), none for the suite itself.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        guard bounded else { return try await Self.onOwnThread(function) }
        await TestSlots.shared.acquire()
        do {
            try await Self.onOwnThread(function)
        } catch {
            await TestSlots.shared.release()
            throw error
        }
        await TestSlots.shared.release()
    }

    private static func onOwnThread(_ function: @Sendable () async throws -> Void) async throws {
        let executor = try OwnThreadExecutor(name: "test-own-thread")
        defer { executor.close() }
        try await withTaskExecutorPreference(executor) { try await function() }
    }
}

/// How many `.ownThread` test cases run at once: `EDGEMOTION_TEST_WIDTH`, else 2 per core. Without
/// a bound Swift Testing started 238 at once (agents, brokers, browsers on two cores), and tests
/// that measure a stop or a real-time wake-up failed under that load; with 3 per core the 1 kHz
/// simulator's burst test still failed once in a clean-clone CI (two late wake-ups in a row). The
/// pool's own threads had bounded it before, at the cost of tests waiting behind each other's sleeps.
actor TestSlots {
    static let shared = TestSlots(limit: TestSlots.configuredWidth())
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { free = Swift.max(1, limit) }

    static func configuredWidth() -> Int {
        if let text = getenv("EDGEMOTION_TEST_WIDTH").map({ String(cString: $0) }), let n = Int(text), n > 0 { return n }
        return 2 * Swift.max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    /// Waits (suspended, no thread held) until a slot is free and takes it.
    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the slot to the longest-waiting test case, or frees it.
    func release() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}

extension Trait where Self == OwnThreadTrait {
    /// Each test case on a thread of its own: for tests that block (see `OwnThreadExecutor`).
    public static var ownThread: Self { OwnThreadTrait() }

    /// On a thread of its own without waiting for a slot: for the one long serialized chain that
    /// sets the suite's wall time (the fault-injection suite, ~210 s alone), so it starts at once
    /// instead of queueing behind the hundreds of tests that start with it.
    public static var ownThreadCriticalPath: Self { OwnThreadTrait(bounded: false) }
}

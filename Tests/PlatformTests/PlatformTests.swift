#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
import Platform

/// The bottom layer's contracts, from first principles and published values.
@Suite struct PlatformTests {
    @Test(arguments: [
        (Duration.zero, UInt64(0)),
        (.nanoseconds(1), 1),
        (.milliseconds(1500), 1_500_000_000),
        (.seconds(-1), 0),
        (.nanoseconds(-5), 0),
        (.seconds(Int64.max), UInt64.max),          // saturates instead of wrapping
    ])
    func durationsBecomeNonNegativeNanoseconds(_ d: Duration, _ nanos: UInt64) {
        #expect(d.nonNegativeNanoseconds == nanos)
    }

    // 1.25 s = 1250 ms; 999 999 ns = 0.999999 ms → 0 whole ms; 2 s + 1 ns = 2000 ms (truncated).
    @Test(arguments: [
        (Duration.milliseconds(1250), Int64(1250)),
        (.nanoseconds(999_999), 0),
        (.seconds(2) + .nanoseconds(1), 2000),
        (.zero, 0),
    ])
    func durationsBecomeWholeMilliseconds(_ d: Duration, _ ms: Int64) {
        #expect(d.milliseconds == ms)
    }

    // 1.5 s → tv_sec 1, tv_nsec 500 000 000; 250 ms → 0 s, 250 000 000 ns.
    @Test func durationsBecomeTimespecs() {
        let a = Duration.milliseconds(1500).timespecValue
        #expect(a.tv_sec == 1 && a.tv_nsec == 500_000_000)
        let b = Duration.milliseconds(250).timespecValue
        #expect(b.tv_sec == 0 && b.tv_nsec == 250_000_000)
    }

    @Test func deadlinesLieAheadOfTheClockAndSaturate() {
        let before = MonotonicClock.nowNanos()
        let d = MonotonicClock.deadline(after: .milliseconds(250))
        #expect(d >= before + 250_000_000)
        #expect(MonotonicClock.deadline(after: .seconds(-3)) >= before)
        #expect(MonotonicClock.deadline(after: .seconds(Int64.max / 1000)) == UInt64.max)
    }

    @Test func sleepingUntilAPastInstantReturnsAtOnce() {
        let start = MonotonicClock.nowNanos()
        MonotonicClock.sleep(untilNanos: 0)
        MonotonicClock.sleep(untilNanos: start &+ 2_000_000)
        #expect(MonotonicClock.nowNanos() >= start + 2_000_000)
    }

    @Test func errnoSaysTheSystemsWordsAndTheNumber() {
        // glibc's texts (strerror(3)); ENOENT is 2 and ENXIO 6 on Linux.
        #expect(Errno(ENOENT).text == "No such file or directory")
        #expect(Errno(ENOENT).description == "No such file or directory (errno 2)")
        #expect(Errno(ENXIO).description == "No such device or address (errno 6)")
    }

    @Test func aFileDescriptorWritesAllAndReadsBack() throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        let write = FileDescriptor(rawValue: fds[1]), read = FileDescriptor(rawValue: fds[0])
        #expect(write.writeAll(Array("hello".utf8)) == nil)
        write.close()
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = try buffer.withUnsafeMutableBytes { (b) throws(Errno) in try read.read(into: b) }
        #expect(Array(buffer[0..<n]) == Array("hello".utf8))
        read.close()
        // A closed descriptor fails with EBADF, named.
        #expect(write.writeAll([1]) == Errno(EBADF))
    }

    @Test func openNamesTheReasonItFailed() {
        #expect(throws: Errno(ENOENT)) { _ = try FileDescriptor.open("/nonexistent/edgemotion-test", O_RDONLY) }
    }

    @Test func aStartedThreadRunsNamedAndIsJoined() throws {
        let seen = Mutex<String?>(nil)
        let thread = try PlatformThread.start(name: "em-platform-test-long-name") {
            var comm = [CChar](repeating: 0, count: 32)
            let fd = open("/proc/thread-self/comm", O_RDONLY)
            _ = read(fd, &comm, 31)
            close(fd)
            seen.withLock { $0 = String(cString: comm).trimmingNewline() }
        }
        thread.join()
        // Linux keeps 15 bytes of a thread's name.
        #expect(seen.withLock { $0 } == "em-platform-tes")
    }

    @Test func crc32IsTheIEEEChecksumAndContinues() {
        // The check value of CRC-32/ISO-HDLC (the zlib / PNG CRC): "123456789" → 0xCBF43926.
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
        let a = Array("1234".utf8), b = Array("56789".utf8)
        let first = CRC32.checksum(a)
        #expect(b.withUnsafeBytes { CRC32.checksum($0, continuing: first) } == 0xCBF4_3926)
    }

    @Test(arguments: [
        (Int64(0), "19700101T000000Z"),
        (1_796_030_100, "20261130T091500Z"),
        (951_782_400, "20000229T000000Z"),          // a leap day of a century leap year
    ])
    func basicStampsAreUTC(_ seconds: Int64, _ text: String) {
        #expect(RFC3339.basicStamp(unixSeconds: seconds) == text)
    }

    @Test func extendedTimesRoundTripThroughTheParser() {
        #expect(RFC3339.format(unixNanos: 1_796_030_100_123_999_999) == "2026-11-30T09:15:00.123Z")
        #expect(abs((RFC3339.parse("2026-11-30T09:15:00.123Z") ?? 0) - 1_796_030_100.123) < 1e-6)
        #expect(RFC3339.parse("2026-11-30T10:15:00+01:00") == 1_796_030_100)
    }

    /// Formatting a time is total: outside years 0001–9999, or not a number, it writes the nearer
    /// end of that range (1e308 s used to trap converting to milliseconds). Truth: the calendar.
    @Test func formattingATimeNoCalendarHoldsWritesTheNearerEndOfTheRange() {
        #expect(RFC3339.format(1e308) == "9999-12-31T23:59:59.999Z")
        #expect(RFC3339.format(.infinity) == "9999-12-31T23:59:59.999Z")
        #expect(RFC3339.format(-1e308) == "0001-01-01T00:00:00.000Z")
        #expect(RFC3339.format(.nan) == "1970-01-01T00:00:00.000Z")
        #expect(RFC3339.parse("9999-12-31T23:59:59.999Z").map { abs($0 - RFC3339.latest) < 1e-3 } == true)
        #expect(RFC3339.parse("0001-01-01T00:00:00Z") == RFC3339.earliest)
    }

    @Test func directoryPathCreatesParentsAndNamesTheComponentThatFails() throws {
        let base = "/tmp/edgemotion-platform-\(getpid())"
        let file = base + "/file"
        defer { unlink(file); rmdir(base + "/a/b"); rmdir(base + "/a"); rmdir(base) }
        try DirectoryPath.create(base + "/a/b")
        var st = stat()
        #expect(stat(base + "/a/b", &st) == 0 && st.st_mode & S_IFMT == S_IFDIR)
        let fd = FileDescriptor(rawValue: creat(file, 0o600))
        #expect(fd.writeAll([1]) == nil)
        fd.close()
        // A file where a directory should be: refused, naming that component.
        do {
            try DirectoryPath.create(file + "/x")
            Issue.record("created a directory below a file")
        } catch {
            #expect(error.path == file)
            #expect(error.description == "cannot create directory \(file): Not a directory (errno 20)")
        }
        #expect(DirectoryPath.parent(of: "/var/lib/x.db") == "/var/lib")
        #expect(DirectoryPath.parent(of: "x.db") == ".")
    }
}

extension String {
    fileprivate func trimmingNewline() -> String { hasSuffix("\n") ? String(dropLast()) : self }
}

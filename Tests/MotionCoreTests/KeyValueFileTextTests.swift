import Testing
@testable import MotionCore

/// The `key = value` + checksum form the mount and calibration files share (one reader).
/// Truth: the FNV-1a 64 test vectors published with the algorithm (Fowler/Noll/Vo:
/// "" → cbf29ce484222325, "a" → af63dc4c8601ec8c) and texts written by hand.
@Suite struct KeyValueFileTextTests {
    @Test func theChecksumIsFNV1a64AsPublished() {
        #expect(KeyValueFileText.checksum(of: "") == "cbf29ce484222325")
        #expect(KeyValueFileText.checksum(of: "a") == "af63dc4c8601ec8c")
    }

    @Test func entriesComeBackInOrderWithLinesAndWithoutSpaces() throws {
        let text = KeyValueFileText.sealed("# comment\nformat = x\n\n  key.two =  1 2 3 \n")
        let entries = try KeyValueFileText.read(text + "\n \n")
        #expect(entries == [.init(line: 2, key: "format", value: "x"), .init(line: 4, key: "key.two", value: "1 2 3")])
    }

    @Test func eachDamageIsNamed() {
        let good = KeyValueFileText.sealed("a = 1\n")
        #expect(throws: KeyValueFileText.Problem.checksumMismatch) { try KeyValueFileText.read(good.replacing("a = 1", with: "a = 2")) }
        #expect(throws: KeyValueFileText.Problem.noChecksum) { try KeyValueFileText.read("a = 1\n") }
        #expect(throws: KeyValueFileText.Problem.textAfterChecksum(line: 3)) { try KeyValueFileText.read(good + "b = 2\n") }
        #expect(throws: KeyValueFileText.Problem.notKeyValue(line: 1)) { try KeyValueFileText.read(KeyValueFileText.sealed("just words\n")) }
    }

    @Test func numbersNameTheFirstWordThatIsNotFinite() {
        #expect(KeyValueFileText.numbers(.init(line: 1, key: "k", value: "1 -2.5 3e2")).numbers == [1, -2.5, 300])
        #expect(KeyValueFileText.numbers(.init(line: 1, key: "k", value: "1 nan 3")).bad == "nan")
    }
}

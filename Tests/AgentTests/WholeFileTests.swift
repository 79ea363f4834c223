import Foundation
import Testing
@testable import Agent

/// `WholeFile.write(atomicallyTo:)`, behind `classify --output` and the calibration file.
@Suite("Whole-file writes")
struct WholeFileTests {
    func temporaryDirectory() throws -> String {
        let dir = NSTemporaryDirectory() + "edgemotion-wholefile-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func aRegularFileIsReplacedWholeAndNoTemporaryIsLeft() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/predictions.csv"
        try WholeFile.write("old contents that are longer\n", atomicallyTo: path)
        try WholeFile.write("new\n", atomicallyTo: path)
        #expect(try WholeFile.text(atPath: path) == "new\n")
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
    }

    /// `--output /dev/null` must not turn the device node into a regular file. Checked through a
    /// symbolic link to `/dev/null`, so a regression replaces the link, never the machine's device.
    @Test func aDeviceTargetIsWrittenInPlaceNotRenamedOver() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let link = dir + "/sink"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/null")
        try WholeFile.write("discarded\n", atomicallyTo: link)
        let attributes = try FileManager.default.attributesOfItem(atPath: link)
        #expect(attributes[.type] as? FileAttributeType == .typeSymbolicLink,
                "the link was replaced by a regular file: a rename went over the device")
        #expect(!FileManager.default.fileExists(atPath: link + ".tmp"))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "/dev/null")
    }
}

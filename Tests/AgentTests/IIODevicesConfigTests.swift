import Foundation
import Testing
@testable import Agent

/// `source.iio.devices`: one IMU read from several IIO devices (st_lsm6dsx's accel + gyro).
@Suite struct IIODevicesConfigTests {
    @Test func theLSM6DSOXExampleListsBothOfTheChipsIIODevices() throws {
        let path = ConfigTestSupport.packageRoot.appendingPathComponent("config/iio-lsm6dsox.yaml").path
        let config = try ConfigurationLoader.load(path: path)
        #expect(config.source.kind == .iio)
        #expect(config.source.iio.devices == ["lsm6dsox_accel", "lsm6dsox_gyro"])
        #expect(config.source.iio.device == nil)
    }

    @Test func devicesDefaultsToEmptyAndAcceptsOneItemPerLine() throws {
        #expect(AgentConfiguration.default.source.iio.devices.isEmpty)
        let config = try ConfigurationLoader.parse(yaml: "source:\n  type: iio\n  iio:\n    devices:\n      - iio:device1\n      - \"2\"\n", fileName: "t.yaml")
        #expect(config.source.iio.devices == ["iio:device1", "2"])
    }

    @Test func deviceAndDevicesTogetherIsAnErrorAtDevices() {
        let problems = ConfigTestSupport.problems("source:\n  type: iio\n  iio:\n    device: bmi160\n    devices: [lsm6dsox_accel, lsm6dsox_gyro]\n")
        #expect(problems.count == 1)
        #expect(problems.first?.contains("source.iio.devices") == true)
        #expect(problems.first?.contains("not both") == true)
    }

    @Test func devicesMustBeAList() {
        let problems = ConfigTestSupport.problems("source:\n  iio:\n    devices: lsm6dsox_accel\n")
        #expect(problems.count == 1)
        #expect(problems.first?.contains("source.iio.devices") == true)
        #expect(problems.first?.contains("expected a list") == true)
    }
}

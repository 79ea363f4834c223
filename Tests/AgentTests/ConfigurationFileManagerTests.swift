import Testing
import EdgeMotion
@testable import Agent
import TestSupport

@Suite("MotionManager from the agent's configuration file", .ownThread)
struct ConfigurationFileManagerTests {
    @Test func theConfiguredSourceAndRateDecideAvailabilityAndCaps() throws {
        let path = try ConfigTestSupport.temporaryFile("""
            source:
              type: simulator
              rate: 100
              simulator:
                scenario: stationary
                gyroscope: false
                magnetometer: false
            """)
        defer { ConfigTestSupport.removeTemporaryFile(path) }
        let manager = try MotionManager(configurationFile: path)
        #expect(manager.service.capabilities.name == "simulator:stationary")
        #expect(manager.isAccelerometerAvailable && !manager.isGyroAvailable && !manager.isMagnetometerAvailable)
        #expect(manager.availableAttitudeReferenceFrames() == [.xArbitraryZVertical])
        manager.accelerometerUpdateInterval = 0.001   // faster than source.rate: capped at 100 Hz
        #expect(abs(manager.accelerometerUpdateInterval - 0.01) < 1e-12)
        #expect(manager.service.configuration.accelerometer.enabled == false)   // no static stream without outputs
    }

    @Test func aBadFileIsAConfigErrorNamingIt() throws {
        let path = try ConfigTestSupport.temporaryFile("source:\n  type: tachyon\n")
        defer { ConfigTestSupport.removeTemporaryFile(path) }
        #expect(throws: ConfigError.self) { try MotionManager(configurationFile: path) }
    }
}

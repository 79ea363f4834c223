import Testing
import Foundation
@testable import Sensors

extension VMTests {
    /// What `edgemotion probe` builds on, and the command itself, against the VM's devices.
    @Suite struct Probe {
        @Test func theI2CScanFindsTheStubChipsAndTheAddressOwnedByTheKernelDriver() throws {
            #expect(I2CProbe.buses().contains(VMFixtures.i2cBus))
            #expect(I2CProbe.adapterName(bus: VMFixtures.i2cBus) == "SMBus stub driver")
            let found = try I2CProbe.scan(bus: VMFixtures.i2cBus)
            let at68 = found.first { $0.address == 0x68 }
            #expect(at68?.chips == [.mpu6050])
            #expect(found.first { $0.address == 0x69 }?.kernelDriver == "bmi160_i2c")
            let at6a = found.first { $0.address == 0x6A }
            #expect(at6a?.chips == [])
            #expect(at6a?.identity.contains("0x75=0x70") == true)
            #expect(at6a?.hint == "mpu6500")
            #expect(found.first { $0.address == 0x6B }?.chips == [.lsm6dsox])
        }

        @Test func theIIOListingShowsChannelsBufferRatesAndTriggers() throws {
            let devices = try IIODeviceInfo.list()
            let bmi = try #require(devices.first { $0.name == "bmi160" })
            #expect(bmi.id == VMFixtures.iioDevice)
            #expect(bmi.bufferCapable)
            #expect(Set(bmi.channels.map(\.id)).isSuperset(of: ["accel_x", "accel_y", "accel_z", "anglvel_x", "anglvel_y", "anglvel_z", "timestamp"]))
            #expect(bmi.availableFrequencies.contains(1600))
            #expect(devices.contains { $0.isTrigger && $0.name == VMFixtures.sysfsTrigger })
        }

        @Test func theProbeCommandPrintsConfigLinesForWhatItFinds() throws {
            let exe = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("edgemotion")
            guard FileManager.default.isExecutableFile(atPath: exe.path) else {
                Issue.record("no edgemotion binary next to the test bundle at \(exe.path)"); return
            }
            // posix_spawn rather than Foundation.Process: in the VM, CFSocket cannot create its wakeup
            // socket pair and Process hangs.
            let outPath = "/tmp/probe-\(getpid()).txt"
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            var pid: pid_t = 0
            let argv: [UnsafeMutablePointer<CChar>?] = [strdup(exe.path), strdup("probe"), nil]
            defer { argv.forEach { free($0) } }
            #expect(posix_spawn(&pid, exe.path, &actions, nil, argv, environ) == 0)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
            print(out)
            #expect(status == 0)
            #expect(out.contains("\(VMFixtures.iioDevice): bmi160 (buffer capable)"))
            #expect(out.contains("\(VMFixtures.gpioChip) [\(VMFixtures.gpioLabel)] (8 lines)"))
            #expect(out.contains("line 3: \"imu-drdy\""))
            #expect(out.contains("0x68: mpu6050 -> source: {type: i2c, i2c: {bus: \(VMFixtures.i2cBus), address: 0x68, chip: mpu6050}}"))
            #expect(out.contains("0x69: bound to kernel driver bmi160_i2c"))
            // st_lsm6dsx's two devices are shown as one chip, with a config line naming both.
            #expect(out.contains("(lsm6dsox_gyro) on \(VMFixtures.i2cBus)-001e"))
            #expect(out.contains("config: source: {type: iio, iio: {devices: [lsm6dsox_accel, lsm6dsox_gyro]}}"))
        }
    }
}

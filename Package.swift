// swift-tools-version:6.0
// EdgeMotion: Core Motion, rebuilt as an open, headless agent for Linux edge boards.
//
// Layers (lower never imports higher), see docs/ARCHITECTURE.md:
//   Platform  →  MotionCore, Logging  →  Sensors, Messaging  →  EdgeMotion  →  Agent  →  edgemotion (CLI)
// C libraries come from Debian's -dev packages through system-library targets.
import PackageDescription

let package = Package(
    name: "EdgeMotion",
    products: [
        .library(name: "EdgeMotion", targets: ["EdgeMotion"]),
        /// The sample and value types (`IMUSample`, `DeviceMotion`, `Attitude`, …) and the sources
        /// (`SimulatedIMU`, `ReplaySource`, `IMUSource`, …) that EdgeMotion's API names; a client
        /// imports them beside EdgeMotion (EdgeMotion does not re-export them).
        .library(name: "MotionCore", targets: ["MotionCore"]),
        .library(name: "Sensors", targets: ["Sensors"]),
        .executable(name: "edgemotion", targets: ["edgemotion"]),
        .executable(name: "periodic-sampling", targets: ["periodic-sampling"]),
        .executable(name: "accelerometer-graph", targets: ["accelerometer-graph"]),
        .executable(name: "butterfly", targets: ["butterfly"]),
        .executable(name: "activity-logger", targets: ["activity-logger"]),
        .executable(name: "edgemotion-bench", targets: ["edgemotion-bench"]),
    ],
    targets: [
        // MARK: C libraries (Debian -dev packages)
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        .systemLibrary(name: "CIIO", pkgConfig: "libiio", providers: [.apt(["libiio-dev"])]),
        .systemLibrary(name: "CGPIOD", pkgConfig: "libgpiod", providers: [.apt(["libgpiod-dev"])]),
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CLinuxI2C"),

        // MARK: Layers
        /// The bottom: clocks and sleeping, `Errno`, file descriptors, the thread starter, UTC time
        /// text (RFC 3339), CRC-32 (zlib). Imports only Glibc and zlib.
        .target(name: "Platform", dependencies: ["CZlib"]),
        .target(name: "MotionCore", dependencies: ["Platform"]),
        /// Structured one-line-per-event logging, shared by every layer above MotionCore.
        .target(name: "Logging", dependencies: ["Platform"]),
        .target(name: "Sensors", dependencies: ["Platform", "MotionCore", "Logging", "CIIO", "CGPIOD", "CLinuxI2C", "CZlib"]),
        .target(name: "Messaging", dependencies: ["Platform", "Logging", "CMosquitto"]),
        .target(name: "EdgeMotion", dependencies: ["Platform", "MotionCore", "Sensors", "Logging", "CSQLite"]),
        .target(name: "Agent", dependencies: ["Platform", "EdgeMotion", "Messaging", "Sensors", "MotionCore", "Logging", "CYAML", "Dashboard"]),
        .executableTarget(name: "edgemotion", dependencies: ["Agent"]),

        // MARK: Examples (Core Motion's classic programs against the EdgeMotion library)
        /// `--duration`, `--scenario`, `--replay` for every example.
        .target(name: "ExampleSupport", dependencies: ["EdgeMotion", "Sensors"], path: "Examples/Support"),
        .executableTarget(name: "periodic-sampling", dependencies: ["EdgeMotion", "ExampleSupport"], path: "Examples/PeriodicSampling"),
        .executableTarget(name: "accelerometer-graph", dependencies: ["EdgeMotion", "ExampleSupport"], path: "Examples/AccelerometerGraph"),
        .executableTarget(name: "butterfly", dependencies: ["EdgeMotion", "MotionCore", "ExampleSupport"], path: "Examples/Butterfly"),
        .executableTarget(name: "activity-logger", dependencies: ["EdgeMotion", "MotionCore", "Sensors", "ExampleSupport"], path: "Examples/ActivityLogger"),

        /// Counts heap allocations per thread by interposing malloc; linked only into the benchmark
        /// and the allocation tests, never into `edgemotion`.
        .target(name: "CMallocCounter"),

        // MARK: Benchmarks (run on demand: scripts/bench-peers, scripts/fleet-sim; see docs/performance.md)
        /// Stage costs, allocation counts and a latency subscriber. Links the malloc interposer, so it
        /// is a separate executable, never part of `edgemotion`. Drives the `package`-visible
        /// MotionProcessor and batch encoders.
        .executableTarget(name: "edgemotion-bench",
                          dependencies: ["Platform", "EdgeMotion", "Agent", "Dashboard", "Messaging", "Sensors", "MotionCore", "CMallocCounter"],
                          path: "Sources/Benchmarks"),

        // MARK: Test support
        /// Shared fixtures: a real mosquitto broker on a free loopback port, paths to ../shared data.
        .target(name: "TestSupport", dependencies: ["Messaging", "Platform", "CMosquitto", "TestSupportPaths"], path: "Tests/TestSupport"),
        /// Where the read-only shared data lives (`../shared`), for tests (the benchmark has its own, `SharedData`).
        .target(name: "TestSupportPaths", path: "Tests/TestSupportPaths"),

        .testTarget(name: "PlatformTests", dependencies: ["Platform"]),
        .testTarget(name: "MotionCoreTests", dependencies: ["MotionCore"]),
        .testTarget(name: "LoggingTests", dependencies: ["Logging"]),
        .testTarget(name: "SensorsTests", dependencies: ["Sensors", "MotionCore", "TestSupport", "TestSupportPaths"]),
        .testTarget(name: "MessagingTests", dependencies: ["Messaging", "Platform", "TestSupport"]),
        .testTarget(name: "EdgeMotionTests", dependencies: ["EdgeMotion", "TestSupport"]),
        .testTarget(name: "AgentTests", dependencies: ["Agent", "Dashboard", "Logging", "Messaging", "Platform", "TestSupport"]),
        .testTarget(name: "AllocationTests", dependencies: ["EdgeMotion", "Messaging", "Agent", "CMallocCounter", "Sensors", "MotionCore", "TestSupportPaths"]),

        // MARK: Dashboard (issue 20): the agent's web page and /metrics over libmicrohttpd
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        /// HTTP server (thin wrapper over libmicrohttpd), Server-Sent Events fan-out, Prometheus
        /// text format, the page's compiled-in assets. Below Agent; knows nothing of motion.
        .target(name: "Dashboard", dependencies: ["Platform", "Logging", "CMicroHTTPD"]),
        .testTarget(name: "DashboardTests", dependencies: ["Dashboard", "Agent", "TestSupport"]),
    ]
)

// MARK: CoreMotion source compatibility (issue 15)
// `CoreMotion`: Core Motion's API over EdgeMotion, so iOS code importing Foundation and
// CoreMotion compiles unchanged (not affiliated with Apple; docs/porting-from-ios.md). The only
// shipped module allowed to import Foundation. It uses Agent for the system configuration file.
// The iOS seed programs (Examples/iOS) build against it unchanged, in Swift 5 and Swift 6 modes.
package.products.append(.library(name: "CoreMotion", targets: ["CoreMotion"]))
package.targets.append(contentsOf: [
    .target(name: "CoreMotion", dependencies: ["EdgeMotion", "MotionCore", "Sensors", "Agent"]),
    .executableTarget(name: "ios-pull-timer", dependencies: ["CoreMotion"], path: "Examples/iOS/PullTimer",
                      swiftSettings: [.swiftLanguageMode(.v5)]),
    .executableTarget(name: "ios-push-handlers", dependencies: ["CoreMotion"], path: "Examples/iOS/PushHandlers"),
    .executableTarget(name: "ios-north-frame", dependencies: ["CoreMotion"], path: "Examples/iOS/NorthFrame",
                      swiftSettings: [.swiftLanguageMode(.v5)]),
    .executableTarget(name: "ios-activity", dependencies: ["CoreMotion"], path: "Examples/iOS/Activity"),
    .executableTarget(name: "ios-recorder-pedometer", dependencies: ["CoreMotion"], path: "Examples/iOS/RecorderPedometer",
                      swiftSettings: [.swiftLanguageMode(.v5)]),
    .testTarget(name: "CoreMotionTests", dependencies: ["CoreMotion", "EdgeMotion", "MotionCore", "Sensors", "TestSupport"]),
])

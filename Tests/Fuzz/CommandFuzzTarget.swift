// libFuzzer target `command`: the run-time command payload parsers (`<prefix>/cmd/stream`, `cmd/events`, `cmd/mount`, `cmd/calibrate`,
// the `cmd/<name>/result` reply the CLI reads
// and the dashboard's POST /api/calibration, the same parser with the page's actions), then
// applying a parsed command against two source rates (every derived size is checked there).
// Built and run by scripts/fuzz (swiftc -sanitize=fuzzer); not part of the package. The normal
// suite replays Tests/Fuzz/corpus/command through the same calls (FuzzCorpusTests).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCommand(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if case .success(let c) = StreamCommand.parse(bytes) {
        for sourceRate in [200.0, 1000] {
            if case .success(let s) = c.applied(to: StreamSettings(), sourceRate: sourceRate) {
                _ = s.samplesPerMessage(sourceRate: sourceRate)
            }
        }
    }
    _ = MotionEventCommand.parse(bytes)   // <prefix>/cmd/events
    if case .success(let m) = MountCommand.parse(bytes) {   // <prefix>/cmd/mount
        precondition(MountCommand.samplesRange.contains(m.samples))
    }
    _ = CalibrationCommand.parse(bytes)   // <prefix>/cmd/calibrate
    _ = AgentCommandReply(bytes)   // <prefix>/cmd/<name>/result, read by `edgemotion events set-level`
    // The dashboard calibration page's POST /api/calibration body: the same parser, more actions.
    if case .success(let c) = CalibrationCommand.parse(bytes, actions: CalibrationCommand.dashboardActions) {
        precondition(CalibrationCommand.dashboardActions.contains(c.action) && CalibrationCommand.durationRange.contains(c.duration))
    }
    return 0
}

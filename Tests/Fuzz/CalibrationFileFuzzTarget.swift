// libFuzzer target `calibration-file`: the sensor calibration read back at start, reload and
// check-config (`fusion.calibration_file`, `<state_directory>/edgemotion-calibration.txt`,
// `CalibrationFile.decode`: lines, keys, checksum, numbers and their bounds) over arbitrary text,
// as it is and resealed with a valid checksum so the fuzzer reaches the value checks. A decoded
// calibration must calibrate every full-scale reading to a finite value and read back unchanged
// through `encode` (`CalibrationFileFuzzCheck`).
// Built and run by scripts/fuzz (swiftc -sanitize=fuzzer, MotionCore compiled in); not part of
// the package. The normal suite replays Tests/Fuzz/corpus/calibration-file through the same check
// (FuzzCorpusTests).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCalibrationFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    CalibrationFileFuzzCheck.check(String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self))
    return 0
}

import Platform

/// `Platform.MonotonicClock` (`CLOCK_MONOTONIC` / `CLOCK_REALTIME` readings), so code that
/// imports only MotionCore reads the sample clock by the same name. The clock lives in Platform.
public typealias MonotonicClock = Platform.MonotonicClock

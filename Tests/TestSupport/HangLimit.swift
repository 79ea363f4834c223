import Testing

extension Trait where Self == TimeLimitTrait {
    /// The time limit for suites whose tests take about a second alone: 5 minutes, not 1.
    ///
    /// In the whole suite on two cores, a test's `await`s can wait behind tests that block the
    /// concurrency pool's two threads (polling, child processes, brokers): seen 170–240 s for a test
    /// of 0.3–1 s alone, which failed a 1-minute limit without hanging. Five minutes still catches a hang.
    public static var hangLimit: Self { .timeLimit(.minutes(5)) }
}

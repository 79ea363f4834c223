import Dispatch

/// How a started stream hands its values to the caller.
enum UpdateDelivery<Element: Sendable>: Sendable {
    /// Nothing is pushed; the caller reads the latest value (`accelerometerData`, …).
    case pull
    /// The handler runs once per value on `queue` (Core Motion's `start…Updates(to:withHandler:)`).
    case each(DispatchQueue, @Sendable (Element?, MotionError?) -> Void)
    /// The handler runs once per batch on `queue` (`CMBatchedSensorManager`).
    case batches(DispatchQueue, @Sendable ([Element], MotionError?) -> Void)
    /// Values are yielded to an `AsyncThrowingStream`.
    case stream(AsyncThrowingStream<Element, any Error>.Continuation)
    /// Batches are yielded to an `AsyncThrowingStream`.
    case batchStream(AsyncThrowingStream<[Element], any Error>.Continuation)

    var pushes: Bool {
        if case .pull = self { return false }
        return true
    }
}

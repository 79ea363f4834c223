/// `source.type`: which kind of IMU source feeds the pipeline.
public enum SourceKind: String, Sendable, Equatable, CaseIterable {
    /// Synthetic motion (`source.simulator`), no hardware needed.
    case simulator
    /// A recorded CSV(.gz) file (`source.replay`).
    case replay
    /// A Linux IIO device through libiio (`source.iio`).
    case iio
    /// An IMU on an I2C bus, driven directly (`source.i2c`).
    case i2c
}

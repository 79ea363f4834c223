/// FIFO mode of a direct-I2C chip (config `source.i2c.fifo`, `source.i2c.fifo_watermark`).
public struct FIFOOptions: Sendable, Hashable {
    /// Samples per burst: the reader wakes after this many data-ready edges (MPU-6050), on the
    /// FIFO watermark interrupt set to this many frames (BMI160, LSM6DSx), or every
    /// `watermark` sample periods on a timer. 1 … 40 (the MPU-9250's 512-byte FIFO holds 42 frames).
    public var watermark: Int

    public init(watermark: Int = 10) {
        self.watermark = max(1, watermark)
    }
}

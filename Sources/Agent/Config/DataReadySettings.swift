/// `source.data_ready:` — the GPIO line wired to the sensor's data-ready (INT) pin.
public struct DataReadySettings: Sendable, Equatable {
    /// `chip`: GPIO chip name or label (`gpiochip0`, `pinctrl-bcm2711`). Required.
    public var chip: String
    /// `line`: line offset (`17`) or line name (`GPIO17`). Required.
    public var line: String

    public init(chip: String, line: String) {
        self.chip = chip
        self.line = line
    }
}

import MotionCore
@testable import Sensors

/// The LSM6DSOX register file as `LSM6DSx.configure` left it over `ScriptedLSM6DSx`, and the
/// fields the engine models read from it besides their own registers (DS13092 register
/// descriptions): the one home of that decoding for the LSM6DSOX comparison suites.
struct LSM6DSOXRegisterFile {
    let r: [UInt8]

    /// The bytes `configure` writes for `engines` at `rate` Hz (`ChipModelReplay.chipSettings`), then `mutate`d.
    init(rate: Double, engines: Set<ChipEngine>, mutate: (inout [UInt8]) -> Void = { _ in }) throws {
        r = try ChipModelReplay.registers(ScriptedLSM6DSx(), address: 0x6B, mutate: mutate) {
            _ = try LSM6DSx(device: $0, model: .lsm6dsox).configure(ChipModelReplay.chipSettings(rate: rate, engines: engines))
        }
    }

    subscript(_ address: UInt8) -> UInt8 { r[Int(address)] }

    /// CTRL1_XL 0x10 FS_XL bits 3:2: 00 ±2 g, 01 ±16 g, 10 ±4 g, 11 ±8 g.
    var fullScaleG: Double { [2.0, 16, 4, 8][Int((self[0x10] >> 2) & 0x03)] }

    /// CTRL1_XL ODR_XL bits 7:4, Hz: 1 12.5, 2 26, 3 52, 4 104, 5 208, 6 416, 7 833, 8 1666 (0: off).
    var odr: Double { [0, 12.5, 26, 52, 104, 208, 416, 833, 1666, 3333, 6666, 1.6, 0, 0, 0, 0][Int(self[0x10] >> 4)] }

    /// The flags of the engines routed to INT1 with TAP_CFG2 0x58 bit 7 INTERRUPTS_ENABLE set: MD1_CFG
    /// 0x5E INT1_WU bit 5, INT1_FF bit 4, INT1_SINGLE_TAP bit 6, INT1_DOUBLE_TAP bit 3, INT1_6D bit 2.
    var routed: IMUSample.Flags {
        guard self[0x58] & 0x80 != 0 else { return [] }
        let md1 = self[0x5E]
        var f = IMUSample.Flags()
        if md1 & 0x20 != 0 { f.insert(.chipMotion) }
        if md1 & 0x10 != 0 { f.insert(.chipFreeFall) }
        if md1 & 0x40 != 0 { f.insert(.chipTap) }
        if md1 & 0x08 != 0 { f.insert(.chipDoubleTap) }
        if md1 & 0x04 != 0 { f.insert(.chipOrientation) }
        return f
    }
}

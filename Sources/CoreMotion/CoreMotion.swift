// CoreMotion: a source-compatibility layer over EdgeMotion, so that iOS code that imports
// Foundation and CoreMotion compiles unchanged on a Linux board and behaves as Core Motion
// documents. Not affiliated with, endorsed by or derived from Apple Inc.; "Core Motion" names the
// API it is compatible with. See docs/porting-from-ios.md and docs/core-motion-mapping.md.
//
// Foundation is allowed in this module only (Date, OperationQueue, NSNumber, NSError are the
// point); EdgeMotion, MotionCore and Sensors are imported internally so none of their names
// (MotionManager, Attitude, …) leak into the client's namespace, where iOS code often has types of those names.
@_exported import Foundation
internal import EdgeMotion
internal import MotionCore
internal import Sensors

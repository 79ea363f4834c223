// The library product `EdgeMotion` is all a client imports: the sample types (MotionCore) and
// the sources (Sensors) come with it.
@_exported import MotionCore
@_exported import Sensors

import MotionCore

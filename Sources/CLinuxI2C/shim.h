#include <linux/i2c.h>
#include <linux/i2c-dev.h>
#include <sys/ioctl.h>

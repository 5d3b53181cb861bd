// SPDX-License-Identifier: GPL-2.0
/* class->devnode takes a const struct device (6.2). */
#include <linux/device.h>

#ifndef PIOC_PROBE_OLD
static char *pioc_probe_devnode(const struct device *dev, umode_t *mode)
#else
static char *pioc_probe_devnode(struct device *dev, umode_t *mode)
#endif
{
	return NULL;
}

struct class pioc_probe = { .devnode = pioc_probe_devnode };

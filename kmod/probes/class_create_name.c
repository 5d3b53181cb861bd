// SPDX-License-Identifier: GPL-2.0
/* class_create(name) (6.4); before, class_create(owner, name). */
#include <linux/device.h>
#include <linux/module.h>

struct class *pioc_probe(void);
struct class *pioc_probe(void)
{
#ifndef PIOC_PROBE_OLD
	return class_create("pioc_probe");
#else
	return class_create(THIS_MODULE, "pioc_probe");
#endif
}

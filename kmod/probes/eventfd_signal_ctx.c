// SPDX-License-Identifier: GPL-2.0
/* eventfd_signal(ctx) adds 1 (6.8); before, eventfd_signal(ctx, n). */
#include <linux/eventfd.h>

void pioc_probe(struct eventfd_ctx *ctx);
void pioc_probe(struct eventfd_ctx *ctx)
{
#ifndef PIOC_PROBE_OLD
	eventfd_signal(ctx);
#else
	eventfd_signal(ctx, 1);
#endif
}

// SPDX-License-Identifier: GPL-2.0
/*
 * What the whole module shares (state.h): the per-namespace id that
 * netns.c registers, and the count of objects ars allocated and did not
 * free yet, which main.c checks at unload.
 */
#include <linux/moduleparam.h>
#include <linux/sysfs.h>

#include "state.h"

unsigned int ars_net_id __read_mostly;
atomic_t ars_objects = ATOMIC_INIT(0);

static int ars_objects_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&ars_objects));
}

static const struct kernel_param_ops ars_objects_ops = {
	.get = ars_objects_get,
};

/* Read-only: what ars holds now, so tests can prove nothing leaks. */
module_param_cb(objects, &ars_objects_ops, NULL, 0444);
MODULE_PARM_DESC(objects, "objects allocated by ars and not yet freed");

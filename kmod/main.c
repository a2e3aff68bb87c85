// SPDX-License-Identifier: GPL-2.0
/*
 * ars: adaptive, flowlet-based multipath routing.
 *
 * This file only orders the subsystems: per-namespace state first, then
 * the ports that follow the devices, the qdisc that measures them, the data
 * plane, and last the netlink family that exposes all and registers the
 * data plane's hooks in a namespace that turns ars on (netns.c unregisters
 * them); unloading goes the other way.
 */
#include <linux/module.h>
#include <net/genetlink.h>

#include "genl.h"
#include "hook.h"
#include "netns.h"
#include "ports.h"
#include "sch_ars.h"
#include "state.h"

static int __init ars_init(void)
{
	int err;

	err = ars_netns_init();
	if (err)
		return err;
	err = ars_ports_init();
	if (err)
		goto err_netns;
	err = ars_qdisc_register();
	if (err)
		goto err_ports;
	ars_hook_init();
	err = ars_genl_init();
	if (err)
		goto err_qdisc;

	pr_info("ars: adaptive flowlet routing loaded\n");
	return 0;

err_qdisc:
	ars_qdisc_unregister();
err_ports:
	ars_ports_uninit();
err_netns:
	ars_netns_uninit();
	return err;
}

static void __exit ars_exit(void)
{
	ars_genl_uninit();
	ars_qdisc_unregister();
	ars_ports_uninit();
	ars_netns_uninit();
	/* Every object was freed with its namespace, port or table. */
	WARN(atomic_read(&ars_objects), "ars: %d objects leaked\n",
	     atomic_read(&ars_objects));
}

module_init(ars_init);
module_exit(ars_exit);
MODULE_LICENSE("GPL");
MODULE_VERSION(ARS_VERSION);
MODULE_INFO(build, ARS_BUILD);
MODULE_DESCRIPTION("Adaptive, flowlet-based multipath routing");
MODULE_AUTHOR("The ars developers");
MODULE_ALIAS_GENL_FAMILY(ARS_GENL_NAME);
/* tc asks for the qdisc kind "ars" by these names (6.1, then 6.12). */
MODULE_ALIAS("sch_ars");
MODULE_ALIAS("net-sch-ars");

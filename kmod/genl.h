/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The generic netlink family ars (genl.c).
 */
#ifndef _ARS_GENL_H
#define _ARS_GENL_H

#include <linux/types.h>
#include <net/genetlink.h>

struct ars_net;

extern struct genl_family ars_genl_family;
extern bool ars_genl_live;
extern bool ars_genl_joined;

int ars_genl_init(void);
void ars_genl_uninit(void);
void ars_genl_notify_assign(struct ars_net *an, u32 flow, int family,
			    int old_ifindex, int new_ifindex, u8 reason);

/*
 * Whether a path assignment event in @net would reach anyone: the data
 * plane asks inline before it calls ars_genl_notify_assign(), so that a
 * flowlet with no listener pays no call but netlink_has_listeners(), and
 * none while no socket has ever joined the monitor group (genl.c).
 */
static inline bool ars_genl_monitored(struct net *net)
{
	return (!ARS_GENL_BIND || READ_ONCE(ars_genl_joined)) &&
	       READ_ONCE(ars_genl_live) &&
	       genl_has_listeners(&ars_genl_family, net, 0);
}

#endif /* _ARS_GENL_H */

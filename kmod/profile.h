/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The profile of a namespace: its configuration that is not an object's
 * (netns.c).
 */
#ifndef _ARS_PROFILE_H
#define _ARS_PROFILE_H

#include <linux/rcupdate.h>
#include <linux/types.h>

struct ars_net;
struct netlink_ext_ack;

/*
 * The configuration of a namespace that is global to it, replaced whole and
 * read under RCU; mode and idle time are those of its objects (objects.h).
 *
 * The figures that follow the fabric's base RTT (ars_profile_derive()) are
 * computed when the profile is replaced, never by a reader: the qdiscs
 * read @sampling_interval and @tau with the rest at every packet, as they
 * read the profile anyway, so that a change reaches them without a walk.
 */
struct ars_profile {
	struct rcu_head	rcu;
	u64		sampling_interval;
	u64		tau;		/* ns, signal v3's of qdiscs without one;
					 * 0: ARS_SIGNAL_TAU_DEFAULT
					 */
	u64		fabric_rtt;	/* ns, 0: not known */
	u8		signal;		/* of qdiscs that name none */
	u64		auto_idle_time;	/* ns, of objects that name none */
	bool		interval_set;	/* @sampling_interval set explicitly */
	bool		window_set;	/* @flowlet_window set explicitly */
	u32		table_size;
	u32		rate_weight;
	u32		ewma_shift;
	u64		flowlet_window;	/* ns, 0: off */
	u64		remote_half_life;	/* ns */
	bool		state;
	bool		ipv4;
	bool		ipv6;
	bool		flowlabel;	/* in the IPv6 flow key */
	bool		remote;		/* remote congestion (feedback.c) */
};

int ars_profile_apply(struct ars_net *an, const struct ars_profile *np,
		      struct netlink_ext_ack *extack);
void ars_profile_derive(struct ars_profile *p);

#endif /* _ARS_PROFILE_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ports (ports.c): one per network device of a namespace, refcounted by the
 * namespace's port table and by the device's ars qdiscs.
 */
#ifndef _ARS_PORTS_H
#define _ARS_PORTS_H

#include <linux/in6.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/refcount.h>
#include <linux/rtnetlink.h>
#include <linux/types.h>

#include "netns.h"

struct ars_port_pcpu {
	u64	packets;
	u64	bytes;
	u64	flowlets;
};

/*
 * A port lives as long as someone holds a reference (@refcnt): the
 * namespace's port table while the port is in it (from the device's
 * NETDEV_REGISTER to its NETDEV_UNREGISTER, or the namespace's exit), and
 * each ars qdisc of the device, from its init to its destroy. A qdisc can
 * outlive the device's unregistration: whoever holds a reference to it
 * (tc filter add takes one without RTNL) destroys it when dropping that,
 * afterwards. The last reference frees the port after a grace period, for
 * the data plane that found it in the table under RCU.
 */
struct ars_port {
	/* Read by the data plane for every packet it steers. */
	struct rcu_head			rcu;
	int				ifindex;
	struct ars_port_pcpu __percpu	*pcpu;
	refcount_t			refcnt;

	/*
	 * Quality, published by the device's ars qdiscs (one per tx queue
	 * under mq, ars_qdisc_port_publish()): the band and what it was
	 * computed from, read as at the time of publication from all of
	 * them, and when; for the data plane, which reads them when a
	 * flowlet starts; dumps read the qdiscs themselves
	 * (ars_port_quality()). On cache lines of their own, since the
	 * qdiscs of other CPUs write them.
	 */
	u64				stamp ____cacheline_aligned_in_smp;
	atomic_t			q_count;	/* ars qdiscs */
	struct hlist_head		qdiscs;		/* them, RTNL and RCU */
	u64				bandwidth;	/* bit/s, their option */
	u64				link_speed;	/* bit/s, ethtool */
	u64				stale_after;	/* ns */
	u64				delay;		/* ns, of the band */
	u32				util;		/* per mille, of it */
	u8				band;
	bool				stalled;	/* a queue stopped */

	/* The gateway of the last flowlet steered to the device, for dumps
	 * of the macro-flow table (one per device on point-to-point links).
	 */
	u8				gw_family;
	struct in6_addr			gw;	/* or the IPv4 one in s6_addr32[0] */

	/* When the data plane last started a flowlet on the port, ns (0:
	 * never); written only while the profile has a flowlet window.
	 */
	u64				flowlet_at;
};

/* A port's figures as a reader sees them. */
struct ars_port_quality {
	u64	rate;
	u64	backlog;
	u64	delay;
	u64	bandwidth;
	u8	band;
	bool	measured;
};

int ars_ports_init(void);
void ars_ports_uninit(void);
void ars_ports_flush(struct ars_net *an);

/*
 * The port of device @ifindex, under RCU or RTNL. Inline: the data plane
 * finds one for every packet it steers. A namespace numbers its own
 * devices from 1, so their ports are mostly in the array: one load, no
 * walk; the xarray's lookup is bounded too, whatever the ifindex.
 */
static inline struct ars_port *ars_port_find(struct ars_net *an, int ifindex)
{
	if (likely((unsigned int)ifindex < ARS_PORTS_DIRECT))
		return rcu_dereference_check(an->ports[ifindex],
					     lockdep_rtnl_is_held());
	return xa_load(&an->ports_far, ifindex);
}

void ars_port_put(struct ars_port *port);

/*
 * Ports whose qdiscs published nothing for a while are idle, unless they
 * hold packets: then none left meanwhile, and the port is stalled.
 */
static inline bool ars_port_stale(const struct ars_port *port, u64 now)
{
	return now - READ_ONCE(port->stamp) > READ_ONCE(port->stale_after);
}

/* The bandwidth a port is measured against: its qdisc's, or ethtool's. */
static inline u64 ars_port_bandwidth(const struct ars_port *port)
{
	return READ_ONCE(port->bandwidth) ?: READ_ONCE(port->link_speed);
}

static inline bool ars_port_measured(const struct ars_port *port)
{
	return atomic_read(&port->q_count) > 0;
}


#endif /* _ARS_PORTS_H */

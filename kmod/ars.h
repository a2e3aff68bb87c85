/* SPDX-License-Identifier: GPL-2.0 */
/*
 * State shared by the files of ars.ko: the per-namespace profile, macro-flow
 * table, counters and port table, and each subsystem's init/uninit.
 */
#ifndef _ARS_H
#define _ARS_H

#include <linux/hash.h>
#include <linux/mutex.h>
#include <linux/netfilter.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/rcupdate.h>
#include <linux/rtnetlink.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <linux/ars.h>

#include "ars_core.h"
#include "ars_remote.h"

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
	u32		table_size;
	u32		rate_weight;
	u32		ewma_shift;
	u64		flowlet_window;	/* ns, 0: off */
	u64		remote_half_life;	/* ns */
	bool		state;
	bool		ipv4;
	bool		ipv6;
	bool		flowlabel;	/* in the IPv6 flow key */
	bool		remote;		/* remote congestion (hook.c) */
};

/* The macro-flow table; replaced whole when its size changes. */
struct ars_table {
	struct rcu_head	rcu;
	u32		mask;
	u32		generation;	/* its ars_net.table_seq, for dumps */
	struct ars_flow	flows[] ____cacheline_aligned;
};

/* Counters, in the order of their ARS_A_STATS_* attributes. */
enum ars_stat {
	ARS_STAT_PACKETS,
	ARS_STAT_STEERED,
	ARS_STAT_UNSTEERED,
	ARS_STAT_FLOWLETS,
	ARS_STAT_REASSIGNMENTS,
	ARS_STAT_FAILOVERS,
	ARS_STAT_SINGLEPATH,
	ARS_STAT_UNKNOWN_QUALITY,
	ARS_STAT_EXEMPT,
	ARS_STAT_ECMP,
	ARS_STAT_DISABLED,
	ARS_STAT_REMOTE_SEEN,
	ARS_STAT_REMOTE_MATCHED,
	ARS_STAT_REMOTE_CREDITED,
	ARS_STAT_REMOTE_MOVED,
	ARS_STAT_NUM
};

struct ars_stats {
	u64	c[ARS_STAT_NUM];
};

/* The counters of each object slot of a namespace, per CPU. */
struct ars_object_stats {
	struct ars_stats	o[ARS_OBJECTS_MAX];
};

/*
 * A binding's counters, per CPU: what looked its object up through it
 * (a flowlet's first packet and its refreshes, per-packet modes, exempt
 * marks) and the flowlets that started so; the continuing fast path
 * counts only in the object's slot.
 */
struct ars_bind_stats {
	u64	packets;
	u64	flowlets;
};

struct ars_binds_stats {
	struct ars_bind_stats	b[ARS_BINDINGS_MAX];
};

struct ars_conf;
struct genl_info;
struct netlink_callback;
struct netlink_range_validation;

/*
 * Ports of devices whose ifindex is below this are found by indexing an
 * array, the others in an xarray (ports.c).
 */
#define ARS_PORTS_DIRECT	64

#define ARS_RCACHE_SLOTS	4	/* per CPU and namespace, a power of 2 */

/* What a cached route holds for (route.c, ars_route_key()). */
struct ars_rkey {
	struct in6_addr	daddr;		/* IPv4's in s6_addr32[0] */
	struct in6_addr	saddr;		/* IPv6 only */
	u8		tos;		/* IPv4 only */
	u8		family;
	u8		pad[2];
};

/*
 * A multipath route that a packet looked up, with its paths' bands, for the
 * next packets to the same destination on this CPU (hook.c), which choose
 * on @route where it is: a whole route (about 800 bytes), so that a hit
 * copies nothing.
 */
struct ars_rcache_slot {
	u64		time;		/* ktime ns of the lookup, 0: empty */
	struct ars_rkey	key;
	u16		gen;		/* the routing generation then */
	bool		bands;		/* path[].band filled */
	bool		known;		/* every usable path's port measured */
	u32		table;		/* the route's, for bindings */
	u32		nhid;
	struct ars_route	route;
};

/*
 * Which buckets of a resilient nexthop group each of its members owns
 * (route.c): up to ARS_RES_PICKS of each, found by one walk of the group's
 * buckets and kept while they stay the member's.
 */
struct nh_group;
struct nh_res_table;

#define ARS_RES_SLOTS	2	/* groups indexed per CPU */
#define ARS_RES_PICKS	4	/* buckets kept per member */

struct ars_res_index {
	const struct nh_res_table	*table;	/* NULL: empty */
	const struct nh_group		*nhg;
	u32				nb;	/* the table's buckets */
	u8				n[ARS_MAX_PATHS];
	u16				bucket[ARS_MAX_PATHS][ARS_RES_PICKS];
};

struct ars_rcache {
	struct ars_rcache_slot	slot[ARS_RCACHE_SLOTS];
	struct ars_res_index	res[ARS_RES_SLOTS];
};

/* The round-robin ticket, written by every CPU: a cache line of its own. */
struct ars_ticket {
	atomic64_t	v;
} ____cacheline_aligned_in_smp;

/*
 * The monitor events' rate limit (genl.c), written by every CPU that
 * starts a flowlet while someone listens: a cache line of its own, apart
 * from the mutex and from what the data plane reads.
 */
struct ars_event_limit {
	u64		stamp;		/* ns, the window's start */
	unsigned int	burst;		/* events in the window */
} ____cacheline_aligned_in_smp;

struct ars_net {
	/* Read on the fast path. */
	struct ars_profile __rcu	*profile;
	struct ars_table __rcu		*table;
	struct ars_stats __percpu	*stats;
	struct ars_rcache __percpu	*rcache;
	struct ars_conf __rcu		*conf;		/* objects.h */
	struct ars_object_stats __percpu *ostats;
	struct ars_binds_stats __percpu	*bstats;	/* objects.c */
	u32				seed;
	struct ars_port __rcu		*ports[ARS_PORTS_DIRECT];
	struct xarray			ports_far;	/* the others */
	struct ars_ticket		ticket;
	struct ars_event_limit		event;
	/*
	 * The remote-congestion scores (ars_remote.h), read and written by
	 * the data plane while the profile's remote is on; the tables come
	 * with the per-CPU state, the half-life with the profile.
	 */
	struct ars_remote		remote;

	/* Control path, under @lock. */
	struct mutex			lock;
	bool				hooked;		/* hooks registered */
	/* The namespace's hooks, whose .priv is this (hook.c). */
	struct nf_hook_ops		nf_ops[2];
	u32				table_seq;	/* table changes */
	u32				ports_seq;	/* port changes, RTNL */
	struct ars_stats		stats_base;
	struct ars_stats		*obase;		/* [ARS_OBJECTS_MAX] */
	struct net			*net;
};

extern unsigned int ars_net_id;

static inline struct ars_net *ars_pernet(const struct net *net)
{
	return net_generic(net, ars_net_id);
}

/*
 * Whether the per-CPU state is there, for readers outside the data plane;
 * it comes when the namespace first turns ars on (netns.c).
 */
static inline bool ars_pcpu_ready(struct ars_net *an)
{
	/* Pairs with ars_pcpu_alloc()'s release: the rest is set. */
	return smp_load_acquire(&an->stats);
}

static inline void ars_stat_inc(struct ars_net *an, enum ars_stat s)
{
	this_cpu_inc(an->stats->c[s]);
}

/*
 * A counter of object @slot. The namespace's counters are its own
 * (@stats: packets no object took) plus every slot's, summed when read,
 * so that a packet costs one increment; ARS_STAT_PACKETS is never
 * incremented: it is steered + unsteered, derived when read.
 */
static inline void ars_ostat_inc(struct ars_net *an, int slot,
				 enum ars_stat s)
{
	this_cpu_inc(an->ostats->o[slot].c[s]);
}

/* Objects ars allocated and not yet freed, for leak checks. */
extern atomic_t ars_objects;

static inline void ars_object_get(void)
{
	atomic_inc(&ars_objects);
}

static inline void ars_object_put(void)
{
	atomic_dec(&ars_objects);
}

/*
 * Per-CPU areas count as objects too: kmemleak does not track them, so
 * without this nothing on a production kernel would see one leak.
 */
#define ars_alloc_percpu_gfp(type, gfp)					\
({									\
	type __percpu *__p = alloc_percpu_gfp(type, gfp);		\
									\
	if (__p)							\
		ars_object_get();					\
	__p;								\
})

static inline void ars_free_percpu(void __percpu *p)
{
	if (p) {
		free_percpu(p);
		ars_object_put();
	}
}

/* netns.c */
int ars_netns_init(void);
void ars_netns_uninit(void);
int ars_profile_apply(struct ars_net *an, const struct ars_profile *np,
		      struct netlink_ext_ack *extack);
void ars_profile_derive(struct ars_profile *p);
void ars_stats_read(struct ars_net *an, struct ars_stats *out);
void ars_stats_derive(struct ars_stats *st);
void ars_stats_reset(struct ars_net *an);

/* genl.c */
int ars_genl_init(void);
void ars_genl_uninit(void);
void ars_genl_notify_assign(struct ars_net *an, u32 flow, int family,
			    int old_ifindex, int new_ifindex, u8 reason);

/* ports.c */
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
	 * under mq, ars_publish()): the band and what it was computed from,
	 * read as at the time of publication from all of them, and when; for
	 * the data plane, which reads them when a flowlet starts; dumps read
	 * the qdiscs themselves (ars_port_quality()). On cache lines of their
	 * own, since the qdiscs of other CPUs write them.
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

	/* When the data plane last started a flowlet on the port, ns;
	 * written only while the profile has a flowlet window.
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
void ars_port_quality(const struct ars_port *port, u64 now,
		      struct ars_port_quality *pq);

/* sch_ars.c: whether a stale port holds packets; under RCU. */
bool ars_qdisc_port_stalled(const struct ars_port *port, u64 now);

/*
 * Ports whose qdiscs published nothing for a while are idle, unless they
 * hold packets: then none left meanwhile, and the port is stalled.
 */
static inline bool ars_port_stale(const struct ars_port *port, u64 now)
{
	return now - READ_ONCE(port->stamp) > READ_ONCE(port->stale_after);
}

/* The band of a measured port, for the data plane; under RCU. */
static inline u8 ars_port_band(const struct ars_port *port, u64 now)
{
	if (!ars_port_stale(port, now))
		return READ_ONCE(port->band);
	return ars_qdisc_port_stalled(port, now) ? 0 : ARS_BAND_BEST;
}

/* The bandwidth a port is measured against: its qdisc's, or ethtool's. */
static inline u64 ars_port_bandwidth(const struct ars_port *port)
{
	return READ_ONCE(port->bandwidth) ?: READ_ONCE(port->link_speed);
}

/* A measured port's load, for ars_path_band(); nothing when it is idle. */
static inline void ars_port_load(const struct ars_port *port, u64 now,
				 struct ars_path_load *pl)
{
	pl->bandwidth = ars_port_bandwidth(port);
	if (ars_port_stale(port, now)) {
		pl->util = 0;
		pl->delay = 0;
		pl->stalled = ars_qdisc_port_stalled(port, now);
	} else {
		pl->util = READ_ONCE(port->util);
		pl->delay = READ_ONCE(port->delay);
		pl->stalled = READ_ONCE(port->stalled);
	}
}

/*
 * ars_port_load(), with the port's newest flowlet counted for @window ns
 * (the profile's flowlet window; 0: not at all).
 */
static inline void ars_path_load(const struct ars_port *port, u64 now,
				 u64 window, struct ars_path_load *pl)
{
	u64 at;

	ars_port_load(port, now, pl);
	if (!window)
		return;
	/* Another CPU may have stamped it after @now was read. */
	at = READ_ONCE(port->flowlet_at);
	ars_path_load_flowlet(pl, now > at ? now - at : 0, window);
}

static inline bool ars_port_measured(const struct ars_port *port)
{
	return atomic_read(&port->q_count) > 0;
}

/* sch_ars.c, also ars_qdisc_port_stalled() above */
int ars_qdisc_register(void);
void ars_qdisc_unregister(void);
/* Add the figures of the port's qdiscs at @now into @pq; under RCU. */
void ars_qdisc_port_read(const struct ars_port *port, u64 now,
			 struct ars_port_quality *pq);

/* hook.c */
void ars_hook_init(void);
int ars_hook_register(struct ars_net *an);
void ars_hook_unregister(struct ars_net *an);

#endif /* _ARS_H */

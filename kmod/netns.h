/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A namespace's state (netns.c): what the data plane reads of it, under
 * RCU, and what the control path changes under its mutex.
 */
#ifndef _ARS_NETNS_H
#define _ARS_NETNS_H

#include <linux/mutex.h>
#include <linux/netfilter.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/types.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "ars_remote.h"
#include "state.h"
#include "stats.h"

struct ars_conf;
struct ars_port;
struct ars_profile;
struct ars_rcache;
struct ars_table;

/*
 * Ports of devices whose ifindex is below this are found by indexing an
 * array, the others in an xarray (ports.c).
 */
#define ARS_PORTS_DIRECT	64

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


int ars_netns_init(void);
void ars_netns_uninit(void);
void ars_stats_read(struct ars_net *an, struct ars_stats *out);
void ars_stats_reset(struct ars_net *an);

#endif /* _ARS_NETNS_H */

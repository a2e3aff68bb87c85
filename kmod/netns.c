// SPDX-License-Identifier: GPL-2.0
/*
 * Per-network-namespace state: the profile, the macro-flow table (table.c),
 * the counters, and the objects and bindings (objects.c).
 *
 * The profile and the table are published with RCU and replaced whole under
 * the namespace's mutex, so the data plane reads them without locks. The
 * table exists only while ars is on.
 *
 * Unprivileged users create namespaces at will, and one that never turns
 * ars on must cost next to nothing: the data plane's per-CPU state (the
 * counters and the route cache, about 9 KiB per possible CPU) and its
 * netfilter hooks come when a namespace first turns ars on, charged to the
 * memory cgroup of whoever did. The hooks go when it turns ars off; the
 * per-CPU state stays until the namespace goes, so that the counters keep
 * adding up over an off and on, and the data plane, which may still be
 * inside a hook after it is unregistered, never sees it go.
 */
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <net/ipv6.h>
#include <net/netns/generic.h>

#include "ars_derive.h"
#include "hook.h"
#include "netns.h"
#include "objects.h"
#include "ports.h"
#include "profile.h"
#include "route.h"
#include "state.h"
#include "stats.h"
#include "table.h"

static const struct ars_profile ars_defaults = {
	.state			= false,
	.table_size		= ARS_TABLE_SIZE_DEFAULT,
	.ipv4			= true,
	.ipv6			= true,
	.sampling_interval	= ARS_SAMPLING_INTERVAL_DEFAULT,
	.auto_idle_time		= ARS_IDLE_TIME_DEFAULT,
	.rate_weight		= ARS_RATE_WEIGHT_DEFAULT,
	.ewma_shift		= ARS_EWMA_SHIFT_DEFAULT,
	.remote_half_life	= ARS_REMOTE_HALF_LIFE_DEFAULT,
};

/*
 * The figures of @p that follow its fabric-rtt: derived from it when it is
 * known (ars_derive()), the built-in defaults when it is not; a
 * sampling-interval or flowlet-window set explicitly stays. The objects'
 * idle times follow @p->auto_idle_time (ars_conf_profile_prepare()). The
 * link speed plays no part here: each qdisc scales its delay by its own
 * port's.
 */
void ars_profile_derive(struct ars_profile *p)
{
	struct ars_derived d = {
		.idle_time		= ARS_IDLE_TIME_DEFAULT,
		.tau			= 0,
		.sampling_interval	= ARS_SAMPLING_INTERVAL_DEFAULT,
		.flowlet_window		= 0,
		.signal			= ARS_SIGNAL_V2,
	};

	if (p->fabric_rtt)
		ars_derive(p->fabric_rtt, 0, &d);
	p->auto_idle_time = d.idle_time;
	p->tau = d.tau;
	p->signal = d.signal;
	if (!p->interval_set)
		p->sampling_interval = d.sampling_interval;
	if (!p->window_set)
		p->flowlet_window = d.flowlet_window;
}

static void ars_profile_free_rcu(struct rcu_head *head)
{
	kfree(container_of(head, struct ars_profile, rcu));
	ars_object_put();
}

/*
 * Steering a family needs its L4 multipath hash policy: checked when a
 * request turns steering on for it (state on, or the family on while on).
 * A policy changed later does not refuse every later change of the
 * profile: arsctl show says so, and the packets count as unsteered.
 */
static bool ars_hash_policy_ok(struct net *net, const struct ars_profile *old,
			       const struct ars_profile *p,
			       struct netlink_ext_ack *extack)
{
	bool was = old->state;

	if (p->ipv4 && !(was && old->ipv4) &&
	    READ_ONCE(net->ipv4.sysctl_fib_multipath_hash_policy) != 1) {
		NL_SET_ERR_MSG_MOD(extack,
				   "steering needs net.ipv4.fib_multipath_hash_policy=1");
		return false;
	}
#if IS_ENABLED(CONFIG_IPV6)
	if (p->ipv6 && !(was && old->ipv6) && ip6_multipath_hash_policy(net) != 1) {
		NL_SET_ERR_MSG_MOD(extack,
				   "steering needs net.ipv6.fib_multipath_hash_policy=1");
		return false;
	}
#endif
	return true;
}

/*
 * The remote-congestion scores: (route, device) pairs in two-way buckets,
 * and the address pairs of RoCEv2 flowlets (ars_remote.h); 22 KiB per
 * namespace that turned ars on.
 */
#define ARS_REMOTE_BUCKETS	512
#define ARS_REMOTE_PAIRS	256

/* A half-life in ns as ars_remote_cfg's shift: the nearest power of two. */
static u8 ars_remote_half_shift(u64 ns)
{
	u8 shift = ilog2(ns);

	if (shift < 63 && (ns >> (shift - 1) & 1))
		shift++;
	return shift;
}

static void ars_remote_setup(struct ars_net *an)
{
	struct ars_remote *rt = &an->remote;

	rt->cfg.half_shift =
		ars_remote_half_shift(ARS_REMOTE_HALF_LIFE_DEFAULT);
	rt->cfg.floor = 0;	/* at the cap, as bad as a busy port */
	rt->cfg.credit = 1 << ARS_REMOTE_BAND_SHIFT;	/* one band */
	rt->cfg.cnp_credit = 0;	/* as much as an ECN-Echo */
	rt->mask = ARS_REMOTE_BUCKETS - 1;
	rt->pair_mask = ARS_REMOTE_PAIRS - 1;
	rt->seed = get_random_u32();
}

static void ars_pcpu_free(struct ars_net *an)
{
	ars_free_percpu(an->stats);
	ars_free_percpu(an->rcache);
	ars_free_percpu(an->ostats);
	ars_free_percpu(an->bstats);
	kfree(an->obase);
	kvfree(an->remote.slot);
	kvfree(an->remote.pairs);
}

/*
 * The data plane's per-CPU state, on the namespace's first turn on; under
 * @an->lock. @an->stats is set last, with release, and says to readers
 * outside the lock that all of it is there (ars_pcpu_ready()); the data
 * plane runs only once the hooks that follow are registered.
 */
static int ars_pcpu_alloc(struct ars_net *an)
{
	struct ars_stats __percpu *stats;
	gfp_t gfp = GFP_KERNEL_ACCOUNT;

	lockdep_assert_held(&an->lock);
	if (an->stats)
		return 0;
	an->rcache = an->rcache ?: ars_rcache_alloc(gfp);
	an->ostats = an->ostats ?: ars_alloc_percpu_gfp(struct ars_object_stats,
							gfp);
	an->bstats = an->bstats ?: ars_alloc_percpu_gfp(struct ars_binds_stats,
							gfp);
	an->obase = an->obase ?: kcalloc(ARS_OBJECTS_MAX, sizeof(*an->obase),
					 gfp);
	an->remote.slot = an->remote.slot ?:
		kvcalloc(2 * ARS_REMOTE_BUCKETS, sizeof(*an->remote.slot), gfp);
	an->remote.pairs = an->remote.pairs ?:
		kvcalloc(ARS_REMOTE_PAIRS, sizeof(*an->remote.pairs), gfp);
	stats = ars_alloc_percpu_gfp(struct ars_stats, gfp);
	if (!an->rcache || !an->ostats || !an->bstats || !an->obase ||
	    !an->remote.slot || !an->remote.pairs || !stats) {
		/* The others are kept for the next try, or freed at exit. */
		ars_free_percpu(stats);
		return -ENOMEM;
	}
	/* Pairs with ars_pcpu_ready(): the others, zeroed, before it. */
	smp_store_release(&an->stats, stats);
	return 0;
}

/**
 * ars_profile_apply() - validate and publish a new profile
 * @an: the namespace
 * @np: the complete new profile (copied)
 * @extack: where to explain a refusal
 *
 * Builds a new table when ars turns on or the table size changes (carrying
 * the old one's entries over), and frees the old one after a grace period;
 * frees the table when ars turns off.
 * Nothing changes when it fails. Caller holds @an->lock.
 *
 * Return: 0 or a negative errno.
 */
int ars_profile_apply(struct ars_net *an, const struct ars_profile *np,
		      struct netlink_ext_ack *extack)
{
	struct ars_profile *old, *p;
	struct ars_table *ot, *nt = NULL;
	int err;

	lockdep_assert_held(&an->lock);
	old = rcu_dereference_protected(an->profile,
					lockdep_is_held(&an->lock));
	ot = rcu_dereference_protected(an->table, lockdep_is_held(&an->lock));

	if (np->state && !ars_hash_policy_ok(an->net, old, np, extack))
		return -EINVAL;
	if (np->state && ars_pcpu_alloc(an)) {
		NL_SET_ERR_MSG_MOD(extack, "no memory for the per-CPU state");
		return -ENOMEM;
	}

	p = kmemdup(np, sizeof(*np), GFP_KERNEL_ACCOUNT);
	if (!p)
		return -ENOMEM;
	ars_object_get();

	if (np->state && (!ot || np->table_size != ot->mask + 1)) {
		nt = ars_table_alloc(np->table_size,
				     (an->table_seq + 1) ?: 1);
		if (!nt) {
			NL_SET_ERR_MSG_MOD(extack,
					   "no memory for the macro-flow table");
			err = -ENOMEM;
			goto err_profile;
		}
	}
	/* Before the profile that turns ars on: its packets find it on. */
	if (np->state && !an->hooked) {
		err = ars_hook_register(an);
		if (err) {
			NL_SET_ERR_MSG_MOD(extack, "cannot register the hooks");
			goto err_table;
		}
		an->hooked = true;
	}
	if (nt && ot)
		ars_table_carry(nt, ot, true);

	if (nt && ot)
		ars_table_carry(nt, ot, false);
	if (nt)
		rcu_assign_pointer(an->table, nt);
	WRITE_ONCE(an->remote.cfg.half_shift,
		   ars_remote_half_shift(np->remote_half_life));
	rcu_assign_pointer(an->profile, p);
	if (!np->state)
		RCU_INIT_POINTER(an->table, NULL);
	/*
	 * A dump of the table that spans a replacement, or an off and on,
	 * is flagged: the counter is the namespace's, as net->nexthop.seq,
	 * not the table's, which would restart with the next table.
	 */
	if (nt)
		WRITE_ONCE(an->table_seq, nt->seq);
	else if (ot && !np->state)
		WRITE_ONCE(an->table_seq, (an->table_seq + 1) ?: 1);
	if (nt || !np->state)
		ars_table_free(ot);
	call_rcu(&old->rcu, ars_profile_free_rcu);
	/* After it: a packet still inside reads ars off, or its state. */
	if (!np->state && an->hooked) {
		ars_hook_unregister(an);
		an->hooked = false;
	}
	return 0;

err_table:
	if (nt)
		ars_table_free(nt);
err_profile:
	kfree(p);
	ars_object_put();
	return err;
}

/* Counters that are only ever incremented: what ARS_STAT_PACKETS is. */
/*
 * The namespace's own counters and every object slot's, as they stand:
 * a slot's per-CPU counters are never cleared, also when its object is
 * deleted, so the sum only grows.
 */
static void ars_stats_sum(struct ars_net *an, struct ars_stats *out)
{
	int cpu, i, slot;

	memset(out, 0, sizeof(*out));
	if (!ars_pcpu_ready(an))
		return;
	for_each_possible_cpu(cpu) {
		const struct ars_stats *s = per_cpu_ptr(an->stats, cpu);
		const struct ars_object_stats *o = per_cpu_ptr(an->ostats, cpu);

		for (i = 0; i < ARS_STAT_NUM; i++)
			out->c[i] += READ_ONCE(s->c[i]);
		for (slot = 0; slot < ARS_OBJECTS_MAX; slot++)
			for (i = 0; i < ARS_STAT_NUM; i++)
				out->c[i] += READ_ONCE(o->o[slot].c[i]);
	}
	ars_stats_derive(out);
}

void ars_stats_read(struct ars_net *an, struct ars_stats *out)
{
	int i;

	ars_stats_sum(an, out);
	/* A reset keeps a baseline rather than racing the writers. */
	mutex_lock(&an->lock);
	for (i = 0; i < ARS_STAT_NUM; i++)
		out->c[i] -= an->stats_base.c[i];
	mutex_unlock(&an->lock);
}

void ars_stats_reset(struct ars_net *an)
{
	struct ars_stats now;
	int slot;

	ars_stats_sum(an, &now);
	mutex_lock(&an->lock);
	an->stats_base = now;
	for (slot = 0; slot < ARS_OBJECTS_MAX; slot++)
		ars_object_stats_reset(an, slot);
	mutex_unlock(&an->lock);
}

static int __net_init ars_net_init(struct net *net)
{
	struct ars_net *an = ars_pernet(net);
	struct ars_profile *p;

	an->net = net;
	mutex_init(&an->lock);
	xa_init(&an->ports_far);
	an->seed = get_random_u32();
	ars_remote_setup(an);

	p = kmemdup(&ars_defaults, sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	ars_object_get();
	RCU_INIT_POINTER(an->profile, p);

	ars_conf_init(an);
	return 0;
}

/*
 * Before .exit, also when the module goes (after the netlink family, so
 * that nothing registers them again): the namespace's core runs
 * synchronize_rcu() between the two, so that no packet is still inside a
 * hook when the namespace's state is freed; nf_unregister_net_hooks()
 * alone does not wait.
 */
static void __net_exit ars_net_pre_exit(struct net *net)
{
	struct ars_net *an = ars_pernet(net);

	mutex_lock(&an->lock);
	if (an->hooked) {
		ars_hook_unregister(an);
		an->hooked = false;
	}
	mutex_unlock(&an->lock);
}

static void __net_exit ars_net_exit(struct net *net)
{
	struct ars_net *an = ars_pernet(net);

	ars_ports_flush(an);

	ars_table_free(rcu_dereference_protected(an->table, true));
	kfree(rcu_dereference_protected(an->profile, true));
	ars_object_put();
	ars_conf_uninit(an);
	ars_pcpu_free(an);
}

static struct pernet_operations ars_net_ops = {
	.init		= ars_net_init,
	.pre_exit	= ars_net_pre_exit,
	.exit		= ars_net_exit,
	.id		= &ars_net_id,
	.size		= sizeof(struct ars_net),
};

int ars_netns_init(void)
{
	ars_conf_setup();
	return register_pernet_subsys(&ars_net_ops);
}

void ars_netns_uninit(void)
{
	unregister_pernet_subsys(&ars_net_ops);
	/* The tables freed above wait for a grace period. */
	rcu_barrier();
}

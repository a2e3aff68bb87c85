// SPDX-License-Identifier: GPL-2.0
/*
 * Per-network-namespace state: the profile, the macro-flow table, the
 * counters, and the objects and bindings (objects.c).
 *
 * The profile and the table are published with RCU and replaced whole under
 * the namespace's mutex, so the data plane reads them without locks. The
 * table exists only while ars is on: a namespace that never turns ars on
 * costs a profile and a few counters.
 */
#include <linux/ktime.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <net/ipv6.h>
#include <net/netns/generic.h>

#include "ars.h"
#include "objects.h"

unsigned int ars_net_id __read_mostly;

static const struct ars_profile ars_defaults = {
	.state			= false,
	.table_size		= ARS_TABLE_SIZE_DEFAULT,
	.ipv4			= true,
	.ipv6			= true,
	.sampling_interval	= ARS_SAMPLING_INTERVAL_DEFAULT,
	.rate_weight		= ARS_RATE_WEIGHT_DEFAULT,
	.ewma_shift		= ARS_EWMA_SHIFT_DEFAULT,
};

static struct ars_table *ars_table_alloc(u32 size, u32 generation)
{
	struct ars_table *t;

	t = kvzalloc(struct_size(t, flows, size), GFP_KERNEL);
	if (!t)
		return NULL;
	t->mask = size - 1;
	t->generation = generation;
	ars_object_get();
	return t;
}

static void ars_flow_copy(struct ars_flow *to, const struct ars_flow *from)
{
	to->state = READ_ONCE(from->state);
	to->tag = READ_ONCE(from->tag);
	to->hash = READ_ONCE(from->hash);
	to->ifindex = READ_ONCE(from->ifindex);
	to->flowlets = READ_ONCE(from->flowlets);
	to->idle = READ_ONCE(from->idle);
	to->object = READ_ONCE(from->object);
}

/*
 * A resized table takes the entries of the old one over, so that no active
 * flowlet moves (as a route change moves none). A flow's entry is its key
 * & mask: when the table grows, entry i holds the flows of old entry i &
 * old mask, and is a copy of it; when it shrinks, entry i holds those of
 * old entries i, i + size, ..., and takes the one seen last, whose flowlet
 * is the likeliest to go on (the others' flows then share it, as flows of
 * a macro flow do). The new table is not published yet: the data plane
 * still writes to the old one, so the caller copies twice, the second time
 * without rescheduling (@resched false) right before it publishes, so that
 * only the writes of that short pass may be lost (that flowlet then starts
 * anew, as all did before). A first pass long enough to outlast idle-time
 * alone would leave every flow's copy idle (seen under TCG).
 */
static void ars_table_carry(struct ars_table *nt, const struct ars_table *ot,
			    bool resched)
{
	u32 i, j, n = nt->mask + 1, on = ot->mask + 1;
	const struct ars_flow *best;
	u64 now = ktime_get_ns();

	for (i = 0; i < n; i++) {
		if (resched && !(i & 4095))
			cond_resched();
		if (n >= on) {
			ars_flow_copy(&nt->flows[i], &ot->flows[i & ot->mask]);
			continue;
		}
		best = NULL;
		for (j = i; j < on; j += n) {
			u64 st = READ_ONCE(ot->flows[j].state);

			if (ars_flow_gen(st) &&
			    (!best || ars_flow_age(st, now) <
				      ars_flow_age(READ_ONCE(best->state), now)))
				best = &ot->flows[j];
		}
		if (best)
			ars_flow_copy(&nt->flows[i], best);
	}
}

static void ars_table_free_rcu(struct rcu_head *head)
{
	kvfree(container_of(head, struct ars_table, rcu));
	ars_object_put();
}

static void ars_table_free(struct ars_table *t)
{
	if (t)
		call_rcu(&t->rcu, ars_table_free_rcu);
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

	lockdep_assert_held(&an->lock);
	old = rcu_dereference_protected(an->profile,
					lockdep_is_held(&an->lock));
	ot = rcu_dereference_protected(an->table, lockdep_is_held(&an->lock));

	if (np->state && !ars_hash_policy_ok(an->net, old, np, extack))
		return -EINVAL;

	p = kmemdup(np, sizeof(*np), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	ars_object_get();

	if (np->state && (!ot || np->table_size != ot->mask + 1)) {
		nt = ars_table_alloc(np->table_size,
				     (an->table_seq + 1) ?: 1);
		if (!nt) {
			kfree(p);
			ars_object_put();
			NL_SET_ERR_MSG_MOD(extack,
					   "no memory for the macro-flow table");
			return -ENOMEM;
		}
		if (ot)
			ars_table_carry(nt, ot, true);
	}

	if (nt && ot)
		ars_table_carry(nt, ot, false);
	if (nt)
		rcu_assign_pointer(an->table, nt);
	rcu_assign_pointer(an->profile, p);
	if (!np->state)
		RCU_INIT_POINTER(an->table, NULL);
	/*
	 * A dump of the table that spans a replacement, or an off and on,
	 * is flagged: the counter is the namespace's, as net->nexthop.seq,
	 * not the table's, which would restart with the next table.
	 */
	if (nt)
		WRITE_ONCE(an->table_seq, nt->generation);
	else if (ot && !np->state)
		WRITE_ONCE(an->table_seq, (an->table_seq + 1) ?: 1);
	if (nt || !np->state)
		ars_table_free(ot);
	call_rcu(&old->rcu, ars_profile_free_rcu);
	return 0;
}

/* Counters that are only ever incremented: what ARS_STAT_PACKETS is. */
void ars_stats_derive(struct ars_stats *st)
{
	st->c[ARS_STAT_PACKETS] = st->c[ARS_STAT_STEERED] +
				  st->c[ARS_STAT_UNSTEERED];
}

/*
 * The namespace's own counters and every object slot's, as they stand:
 * a slot's per-CPU counters are never cleared, also when its object is
 * deleted, so the sum only grows.
 */
static void ars_stats_sum(struct ars_net *an, struct ars_stats *out)
{
	int cpu, i, slot;

	memset(out, 0, sizeof(*out));
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
	int err;

	an->net = net;
	mutex_init(&an->lock);
	an->seed = get_random_u32();

	p = kmemdup(&ars_defaults, sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	ars_object_get();
	RCU_INIT_POINTER(an->profile, p);

	an->stats = alloc_percpu(struct ars_stats);
	if (!an->stats) {
		err = -ENOMEM;
		goto err_profile;
	}
	an->rcache = alloc_percpu(struct ars_rcache);
	if (!an->rcache) {
		err = -ENOMEM;
		goto err_stats;
	}
	err = ars_conf_init(an);
	if (err)
		goto err_rcache;

	return 0;

err_rcache:
	free_percpu(an->rcache);
err_stats:
	free_percpu(an->stats);
err_profile:
	kfree(p);
	ars_object_put();
	return err;
}

static void __net_exit ars_net_exit(struct net *net)
{
	struct ars_net *an = ars_pernet(net);

	/* The hooks (hook.c) are gone and their packets done with. */
	ars_ports_flush(an);

	ars_table_free(rcu_dereference_protected(an->table, true));
	kfree(rcu_dereference_protected(an->profile, true));
	ars_object_put();
	ars_conf_uninit(an);
	free_percpu(an->stats);
	free_percpu(an->rcache);
}

static struct pernet_operations ars_net_ops = {
	.init	= ars_net_init,
	.exit	= ars_net_exit,
	.id	= &ars_net_id,
	.size	= sizeof(struct ars_net),
};

int ars_netns_init(void)
{
	return register_pernet_subsys(&ars_net_ops);
}

void ars_netns_uninit(void)
{
	unregister_pernet_subsys(&ars_net_ops);
	/* The tables freed above wait for a grace period. */
	rcu_barrier();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ARS objects and bindings, as SAI and SONiC model them: an object holds a
 * mode and an idle time; a binding says which packets it steers: a mark
 * (or exempts them), a nexthop group, or a prefix of a routing table. The
 * built-in object "default" steers what no binding selects, unless the
 * profile's default-object says otherwise or none.
 *
 * The objects and bindings of a namespace are one struct ars_conf,
 * replaced whole under the namespace's mutex and published with RCU. The
 * data plane resolves a packet's object only when a flowlet starts (or,
 * in the per-packet modes, for every packet): the macro-flow entry keeps
 * its object's slot and idle time, so a continuing flowlet looks nothing
 * up. Every change moves the configuration's sequence number, which the
 * data plane folds into the routing generation that entries are checked
 * against, so the next packet of each flowlet resolves its object again
 * (and keeps its device, as after a route change).
 *
 * Resolution, most specific first: mark bindings in the order they were
 * made, then the route's nexthop group, then the prefix (of the route's
 * table) that holds the destination (prefixes of a table never overlap),
 * then the default object.
 *
 * Alternates, SAI's primary and alternate paths: an object lists up to
 * ARS_ALTERNATES_MAX next hops, by device or by gateway, that are
 * alternate in every route it steers; the core's ars_route_alternates()
 * says what that does to a new flowlet's choice. An object without
 * alternates costs a new flowlet one test of n_alt.
 *
 * Counters: an object's are per CPU, one slot per object; a binding's
 * (packets that resolved their object through it, flowlets they started)
 * are counted when the object is resolved, never on the continuing fast
 * path. A binding keeps its counter slot for its lifetime, and the
 * counters' values when it was made as its base.
 *
 * Table-size, SAI's MAX_FLOWS: an object shares the namespace's macro-flow
 * table unless it is given a size of its own; it then gets a table of
 * that size, made and carried over here, in the control path, and
 * published with the configuration. The data plane resolves the object
 * only when a flowlet starts, so a continuing packet finds its table by a
 * hint in its entry of the namespace's table (struct ars_flow's @own),
 * which is read only while some object has a table of its own, and
 * written when a flowlet starts (hook.c, ars_flow_hint()): where flows of
 * two tables meet at one index, the later flowlet's table has it, and
 * packets of the other find theirs by their mark's object, if a mark
 * binding or the default object tells it, else by the route. Changing
 * table-size moves the object's entries to the new table, each to the
 * entry its flow's key names, so that no active flowlet moves. A binding
 * made or removed moves flows between tables: their flowlets start anew
 * there, as those of a new flow do.
 *
 * Interfaces, SONiC's ARS_INTERFACES: while no device is listed as enabled,
 * every one is; once some are, a route with a next hop on another device
 * is not steered, its packets counted as disabled. The configuration
 * holds the list, so that enabling a device moves its sequence too.
 */
#include <linux/ars.h>
#include <linux/inetdevice.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/genetlink.h>
#include <net/ipv6.h>
#include <net/netlink.h>

#include "ars_core.h"
#include "netns.h"
#include "objects.h"
#include "state.h"
#include "stats.h"
#include "table.h"

#define ARS_DEFAULT_NAME	"default"

bool ars_prefix_has(const struct ars_bind *b, int family,
		    const struct in6_addr *a)
{
	if (b->family != family)
		return false;
	if (family == AF_INET)
		return !((a->s6_addr32[0] ^ b->addr.s6_addr32[0]) &
			 inet_make_mask(b->plen));
	return ipv6_prefix_equal(a, &b->addr, b->plen);
}

/**
 * ars_conf_route() - the object a packet's route selects
 * @c: the configuration
 * @family: AF_INET or AF_INET6
 * @daddr: the packet's destination (IPv4 in s6_addr32[0])
 * @table: the table the route was found in
 * @nhid: the id of the route's nexthop group, 0 for none
 * @bind: the counter slot of the binding that selected it, or -1
 *
 * Return: an object's slot or ARS_OBJ_NONE.
 */
int ars_conf_route(const struct ars_conf *c, int family,
		   const struct in6_addr *daddr, u32 table, u32 nhid,
		   int *bind)
{
	const struct ars_bind *b, *prefix = NULL;
	unsigned int i;

	for (i = c->n_marks; i < c->n; i++) {
		b = &c->binds[i];
		if (b->kind == ARS_BIND_NH) {
			if (nhid && b->id == nhid) {
				*bind = b->slot;
				return b->object;
			}
		} else if (!prefix && b->id == table &&
			   ars_prefix_has(b, family, daddr)) {
			prefix = b;
		}
	}
	*bind = prefix ? prefix->slot : -1;
	return prefix ? prefix->object : c->default_object;
}

static struct ars_conf *ars_conf_alloc(unsigned int n)
{
	struct ars_conf *c;

	c = kzalloc(struct_size(c, binds, n), GFP_KERNEL_ACCOUNT);
	if (c)
		ars_object_get();
	return c;
}

static void ars_conf_free_rcu(struct rcu_head *head)
{
	kfree(container_of(head, struct ars_conf, rcu));
	ars_object_put();
}

void ars_conf_free(struct ars_conf *c)
{
	kfree(c);
	ars_object_put();
}

/*
 * The configuration of every namespace that changed nothing of it: the
 * default object alone (ars_conf_setup()). Shared, read-only, never freed
 * and not counted; the first change copies it (ars_conf_dup()), so that a
 * namespace where ars is never used costs no configuration of its own.
 */
static struct ars_conf ars_conf_initial;

/* A copy of @old with room for @extra more bindings. */
struct ars_conf *ars_conf_dup(const struct ars_conf *old,
			      unsigned int extra)
{
	struct ars_conf *c = ars_conf_alloc(old->n + extra);

	if (c)
		memcpy(c, old, struct_size(old, binds, old->n));
	return c;
}

/* The derived fields of @c, from its objects and bindings. */
static void ars_conf_derive(struct ars_conf *c)
{
	const struct ars_object *o;
	unsigned int i;
	int slot;

	c->steers = false;
	c->ecmp = false;
	c->flowlets = false;
	c->own_tables = false;
	for (slot = 0; slot < ARS_OBJECTS_MAX; slot++)
		if (c->own[slot])
			c->own_tables = true;
	/* Enabled interfaces need the route too, to know its next hops. */
	c->route_binds = c->n > c->n_marks || c->n_ifaces;
	for (slot = 0; slot < ARS_OBJECTS_MAX; slot++)
		c->obj[slot].bindings = 0;
	for (i = 0; i < c->n; i++)
		if (c->binds[i].object >= 0)
			c->obj[c->binds[i].object].bindings++;
	for (slot = 0; slot < ARS_OBJECTS_MAX; slot++) {
		o = &c->obj[slot];
		if (!o->used || (!o->bindings && slot != c->default_object))
			continue;
		if (o->mode == ARS_MODE_ECMP) {
			c->ecmp = true;
			continue;
		}
		c->steers = true;
		if (ars_mode_flowlet(o->mode))
			c->flowlets = true;
	}
}

/*
 * Publish @nc in place of the namespace's configuration, and free the
 * objects' tables that it no longer holds once no packet reads them. A
 * table made or freed flags the flows dumps that span it.
 */
void ars_conf_publish(struct ars_net *an, struct ars_conf *nc)
{
	struct ars_conf *old = ars_conf_locked(an);
	bool tables = false;
	int slot;

	nc->seq = old->seq + 1;
	ars_conf_derive(nc);
	rcu_assign_pointer(an->conf, nc);
	for (slot = 0; slot < ARS_OBJECTS_MAX; slot++) {
		if (old->own[slot] == nc->own[slot])
			continue;
		ars_table_free(old->own[slot]);
		tables = true;
	}
	if (tables)
		WRITE_ONCE(an->table_seq, (an->table_seq + 1) ?: 1);
	if (old != &ars_conf_initial)
		call_rcu(&old->rcu, ars_conf_free_rcu);
}

int ars_object_find(const struct ars_conf *c, const char *name)
{
	int slot;

	for (slot = 0; slot < ARS_OBJECTS_MAX; slot++)
		if (c->obj[slot].used && !strcmp(c->obj[slot].name, name))
			return slot;
	return ARS_OBJ_NONE;
}

/* What object @slot's per-CPU counters hold, summed. */
static void ars_object_stats_sum(struct ars_net *an, int slot,
				 struct ars_stats *out)
{
	int cpu, i;

	memset(out, 0, sizeof(*out));
	if (!ars_pcpu_ready(an))
		return;
	for_each_possible_cpu(cpu) {
		const struct ars_stats *s = &per_cpu_ptr(an->ostats, cpu)->o[slot];

		for (i = 0; i < ARS_STAT_NUM; i++)
			out->c[i] += READ_ONCE(s->c[i]);
	}
	ars_stats_derive(out);
}

/* Object @slot's counters since it was made or last reset; under the lock. */
void ars_object_stats_read(struct ars_net *an, int slot,
			   struct ars_stats *out)
{
	int i;

	lockdep_assert_held(&an->lock);
	ars_object_stats_sum(an, slot, out);
	if (!an->obase)
		return;
	for (i = 0; i < ARS_STAT_NUM; i++)
		out->c[i] -= an->obase[slot].c[i];
}

/*
 * Start object @slot's counters at 0, as stats-reset does; under the lock.
 * Without the per-CPU state (netns.c) they are 0 and stay so.
 */
void ars_object_stats_reset(struct ars_net *an, int slot)
{
	lockdep_assert_held(&an->lock);
	if (an->obase)
		ars_object_stats_sum(an, slot, &an->obase[slot]);
}

/* A new object's settings, its name aside. */
void ars_object_defaults(struct ars_object *o)
{
	o->mode = ARS_MODE_FLOWLET_QUALITY;
	o->idle_time = ARS_IDLE_TIME_DEFAULT;
	o->idle_auto = true;
	o->alt.threshold = 0;
	o->alt.cost = 0;
	o->alt.bias = ARS_ALTERNATE_BIAS_MAX;
	o->used = true;
}

/* What binding counter slot @slot's per-CPU counters hold, summed. */
void ars_bind_stats_sum(struct ars_net *an, unsigned int slot,
			struct ars_bind_stats *out)
{
	int cpu;

	memset(out, 0, sizeof(*out));
	if (!ars_pcpu_ready(an))
		return;
	for_each_possible_cpu(cpu) {
		const struct ars_bind_stats *s =
			&per_cpu_ptr(an->bstats, cpu)->b[slot];

		out->packets += READ_ONCE(s->packets);
		out->flowlets += READ_ONCE(s->flowlets);
	}
}

/* A binding's counters since it was made. */
void ars_bind_stats_read(struct ars_net *an, const struct ars_bind *b,
			 struct ars_bind_stats *out)
{
	ars_bind_stats_sum(an, b->slot, out);
	out->packets -= b->base.packets;
	out->flowlets -= b->base.flowlets;
}

/* Once, before any namespace. */
void ars_conf_setup(void)
{
	struct ars_conf *c = &ars_conf_initial;

	strscpy(c->obj[0].name, ARS_DEFAULT_NAME, sizeof(c->obj[0].name));
	ars_object_defaults(&c->obj[0]);
	c->default_object = 0;
	ars_conf_derive(c);
}

void ars_conf_init(struct ars_net *an)
{
	RCU_INIT_POINTER(an->conf, &ars_conf_initial);
}

/* After the data plane is gone from the namespace. */
void ars_conf_uninit(struct ars_net *an)
{
	struct ars_conf *c = rcu_dereference_protected(an->conf, true);
	int slot;

	if (c == &ars_conf_initial)
		return;
	for (slot = 0; slot < ARS_OBJECTS_MAX; slot++)
		ars_table_free(c->own[slot]);
	ars_conf_free(c);
}

/* Profile attributes that are the default object's (genl.c). */

/* Whether an object that names no idle time would take another one. */
static bool ars_conf_auto_moves(const struct ars_conf *c, u64 auto_idle_time)
{
	int slot;

	for (slot = 0; slot < ARS_OBJECTS_MAX; slot++)
		if (c->obj[slot].used && c->obj[slot].idle_auto &&
		    c->obj[slot].idle_time != auto_idle_time)
			return true;
	return false;
}

/**
 * ars_conf_profile_prepare() - the configuration a profile-set asks for
 * @an: the namespace, with its lock held
 * @a: the request's attributes
 * @auto_idle_time: the idle time of objects that name none, as the new
 *	profile derives it
 * @extack: where to explain a refusal
 * @out: the new configuration to publish, NULL when nothing of it changes
 *
 * Return: 0 or a negative errno; nothing is published.
 */
int ars_conf_profile_prepare(struct ars_net *an, struct nlattr **a,
			     u64 auto_idle_time,
			     struct netlink_ext_ack *extack,
			     struct ars_conf **out)
{
	const struct ars_conf *old = ars_conf_locked(an);
	struct nlattr *dflt = a[ARS_A_PROFILE_DEFAULT_OBJECT];
	bool idle_auto = a[ARS_A_PROFILE_AUTO] &&
			 (nla_get_u32(a[ARS_A_PROFILE_AUTO]) &
			  ARS_AUTO_IDLE_TIME);
	struct ars_conf *c;
	int slot = old->default_object, i;

	*out = NULL;
	if (!a[ARS_A_PROFILE_MODE] && !a[ARS_A_PROFILE_IDLE_TIME] && !dflt &&
	    !(idle_auto && !old->obj[0].idle_auto) &&
	    !ars_conf_auto_moves(old, auto_idle_time))
		return 0;
	if (dflt && nla_len(dflt) > 1) {
		slot = ars_object_find(old, nla_data(dflt));
		if (slot < 0) {
			NL_SET_ERR_MSG_ATTR(extack, dflt,
					    "default-object: no object of that name");
			return -ENOENT;
		}
	} else if (dflt) {
		slot = ARS_OBJ_NONE;
	}
	c = ars_conf_dup(old, 0);
	if (!c)
		return -ENOMEM;
	c->default_object = slot;
	if (a[ARS_A_PROFILE_MODE])
		c->obj[0].mode = nla_get_u32(a[ARS_A_PROFILE_MODE]);
	if (a[ARS_A_PROFILE_IDLE_TIME]) {
		c->obj[0].idle_time = nla_get_u64(a[ARS_A_PROFILE_IDLE_TIME]);
		c->obj[0].idle_auto = false;
	}
	if (idle_auto)
		c->obj[0].idle_auto = true;
	for (i = 0; i < ARS_OBJECTS_MAX; i++)
		if (c->obj[i].used && c->obj[i].idle_auto)
			c->obj[i].idle_time = auto_idle_time;
	*out = c;
	return 0;
}

/* The enum ars_auto flags of the profile's share; under RCU. */
u32 ars_conf_profile_auto(const struct ars_conf *c)
{
	return c->obj[0].idle_auto ? ARS_AUTO_IDLE_TIME : 0;
}

/* Publish what ars_conf_profile_prepare() made, or drop it (@ok false). */
void ars_conf_profile_commit(struct ars_net *an, struct ars_conf *c, bool ok)
{
	if (!c)
		return;
	if (ok)
		ars_conf_publish(an, c);
	else
		ars_conf_free(c);
}

/* The profile's attributes that the configuration holds; under RCU. */
int ars_conf_profile_fill(struct sk_buff *skb, const struct ars_conf *c)
{
	const char *dflt = c->default_object >= 0 ?
			   c->obj[c->default_object].name : "";

	if (nla_put_u32(skb, ARS_A_PROFILE_MODE, c->obj[0].mode) ||
	    nla_put_u64_64bit(skb, ARS_A_PROFILE_IDLE_TIME, c->obj[0].idle_time,
			      ARS_A_PROFILE_PAD) ||
	    nla_put_string(skb, ARS_A_PROFILE_DEFAULT_OBJECT, dflt))
		return -EMSGSIZE;
	return 0;
}

/* The attribute of each counter (stats-get's and an object's stats). */
static const u16 ars_stat_attr[ARS_STAT_NUM] = {
	[ARS_STAT_PACKETS]		= ARS_A_STATS_PACKETS,
	[ARS_STAT_STEERED]		= ARS_A_STATS_STEERED,
	[ARS_STAT_UNSTEERED]		= ARS_A_STATS_UNSTEERED,
	[ARS_STAT_FLOWLETS]		= ARS_A_STATS_FLOWLETS,
	[ARS_STAT_REASSIGNMENTS]	= ARS_A_STATS_REASSIGNMENTS,
	[ARS_STAT_FAILOVERS]		= ARS_A_STATS_FAILOVERS,
	[ARS_STAT_SINGLEPATH]		= ARS_A_STATS_SINGLEPATH,
	[ARS_STAT_UNKNOWN_QUALITY]	= ARS_A_STATS_UNKNOWN_QUALITY,
	[ARS_STAT_EXEMPT]		= ARS_A_STATS_EXEMPT,
	[ARS_STAT_ECMP]			= ARS_A_STATS_ECMP,
	[ARS_STAT_DISABLED]		= ARS_A_STATS_DISABLED,
	[ARS_STAT_REMOTE_SEEN]		= ARS_A_STATS_REMOTE_SEEN,
	[ARS_STAT_REMOTE_MATCHED]	= ARS_A_STATS_REMOTE_MATCHED,
	[ARS_STAT_REMOTE_CREDITED]	= ARS_A_STATS_REMOTE_CREDITED,
	[ARS_STAT_REMOTE_MOVED]		= ARS_A_STATS_REMOTE_MOVED,
};

int ars_stats_put(struct sk_buff *skb, const struct ars_stats *st)
{
	int i;

	for (i = 0; i < ARS_STAT_NUM; i++)
		if (nla_put_u64_64bit(skb, ars_stat_attr[i], st->c[i],
				      ARS_A_STATS_PAD))
			return -EMSGSIZE;
	return 0;
}

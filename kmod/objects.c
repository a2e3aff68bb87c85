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
 * up. Every change moves the configuration's generation, which the data
 * plane folds into the routing generation that entries are checked
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
 * Max-flows, SAI's MAX_FLOWS: an object shares the namespace's macro-flow
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
 * max-flows moves the object's entries to the new table, each to the
 * entry its flow's key names, so that no active flowlet moves. A binding
 * made or removed moves flows between tables: their flowlets start anew
 * there, as those of a new flow do.
 *
 * Ports, SONiC's ARS_INTERFACES: while no device is listed as enabled,
 * every one is; once some are, a route with a next hop on another device
 * is not steered, its packets counted as disabled. The configuration
 * holds the list, so that enabling a device moves its generation too.
 */
#include <linux/inetdevice.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/genetlink.h>
#include <net/ipv6.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "ars.h"
#include "nl.h"
#include "objects.h"
#include "table.h"

#define ARS_DEFAULT_NAME	"default"

static bool ars_prefix_has(const struct ars_bind *b, int family,
			   const struct in6_addr *a)
{
	if (b->family != family)
		return false;
	if (family == AF_INET)
		return !((a->s6_addr32[0] ^ b->addr.s6_addr32[0]) &
			 inet_make_mask(b->plen));
	return ipv6_prefix_equal(a, &b->addr, b->plen);
}

/* The prefix's address has no bit set past its length. */
static bool ars_prefix_clean(const struct ars_bind *b)
{
	struct in6_addr m;

	if (b->family == AF_INET)
		return !(b->addr.s6_addr32[0] & ~inet_make_mask(b->plen));
	ipv6_addr_prefix(&m, &b->addr, b->plen);
	return ipv6_addr_equal(&m, &b->addr);
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

static void ars_conf_free(struct ars_conf *c)
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
static struct ars_conf *ars_conf_dup(const struct ars_conf *old,
				     unsigned int extra)
{
	struct ars_conf *c = ars_conf_alloc(old->n + extra);

	if (c)
		memcpy(c, old, struct_size(old, binds, old->n));
	return c;
}

static struct ars_conf *ars_conf_locked(struct ars_net *an)
{
	return rcu_dereference_protected(an->conf, lockdep_is_held(&an->lock));
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
	/* Enabled ports need the route too, to know its next hops. */
	c->route_binds = c->n > c->n_marks || c->n_ports;
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
static void ars_conf_publish(struct ars_net *an, struct ars_conf *nc)
{
	struct ars_conf *old = ars_conf_locked(an);
	bool tables = false;
	int slot;

	nc->gen = old->gen + 1;
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

static int ars_object_find(const struct ars_conf *c, const char *name)
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
static void ars_object_stats_read(struct ars_net *an, int slot,
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
static void ars_object_defaults(struct ars_object *o)
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
static void ars_bind_stats_sum(struct ars_net *an, unsigned int slot,
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
static void ars_bind_stats_read(struct ars_net *an, const struct ars_bind *b,
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

/* Objects. */


/*
 * The request lacks attribute @type: the kernel's check reports which (in
 * the extended ACK's missing type), @msg, a literal, says so in words.
 */
#define ars_attr_missing(info, type, msg) ({				\
	bool __missing = GENL_REQ_ATTR_CHECK(info, type);		\
									\
	if (__missing)							\
		NL_SET_ERR_MSG_MOD((info)->extack, msg);		\
	__missing;							\
})

/* Not const: 6.1's policies take a plain pointer. */
struct netlink_range_validation ars_idle_time_range = {
	.min	= ARS_IDLE_TIME_MIN,
	.max	= ARS_IDLE_TIME_MAX,
};

static struct netlink_range_validation ars_max_flows_range = {
	.max	= ARS_TABLE_SIZE_MAX,
};

const struct nla_policy ars_object_policy[ARS_A_OBJECT_MAX + 1] = {
	[ARS_A_OBJECT_NAME]	 = { .type = NLA_NUL_STRING,
				     .len = ARS_OBJECT_NAME_LEN - 1 },
	[ARS_A_OBJECT_MODE]	 = NLA_POLICY_MAX(NLA_U32, ARS_MODE_MAX),
	[ARS_A_OBJECT_IDLE_TIME] = NLA_POLICY_FULL_RANGE(NLA_U64,
							 &ars_idle_time_range),
	[ARS_A_OBJECT_PRIMARY_THRESHOLD] =
		NLA_POLICY_MAX(NLA_U8, ARS_PRIMARY_THRESHOLD_MAX),
	[ARS_A_OBJECT_ALTERNATE_COST] = NLA_POLICY_MAX(NLA_U8, ARS_BAND_BEST),
	[ARS_A_OBJECT_ALTERNATE_BIAS] =
		NLA_POLICY_MAX(NLA_U8, ARS_ALTERNATE_BIAS_MAX),
	[ARS_A_OBJECT_ALTERNATE] = { .type = NLA_REJECT },
	/* 0 or a power of two, which the handlers check. */
	[ARS_A_OBJECT_MAX_FLOWS] = NLA_POLICY_FULL_RANGE(NLA_U32,
							 &ars_max_flows_range),
};

/* The object @info names, with the lock held; says so when there is none. */
static int ars_object_named(const struct ars_conf *c, struct genl_info *info)
{
	struct nlattr *a = info->attrs[ARS_A_OBJECT_NAME];
	int slot;

	if (ars_attr_missing(info, ARS_A_OBJECT_NAME, "name: required"))
		return -EINVAL;
	slot = ars_object_find(c, nla_data(a));
	if (slot < 0) {
		NL_SET_ERR_MSG_ATTR(info->extack, a, "name: no object of that name");
		return -ENOENT;
	}
	return slot;
}

static void ars_object_merge(struct ars_object *o, struct nlattr **a)
{
	if (a[ARS_A_OBJECT_MODE])
		o->mode = nla_get_u32(a[ARS_A_OBJECT_MODE]);
	if (a[ARS_A_OBJECT_IDLE_TIME]) {
		o->idle_time = nla_get_u64(a[ARS_A_OBJECT_IDLE_TIME]);
		o->idle_auto = false;
	}
	if (a[ARS_A_OBJECT_PRIMARY_THRESHOLD])
		o->alt.threshold = nla_get_u8(a[ARS_A_OBJECT_PRIMARY_THRESHOLD]);
	if (a[ARS_A_OBJECT_ALTERNATE_COST])
		o->alt.cost = nla_get_u8(a[ARS_A_OBJECT_ALTERNATE_COST]);
	if (a[ARS_A_OBJECT_ALTERNATE_BIAS])
		o->alt.bias = nla_get_u8(a[ARS_A_OBJECT_ALTERNATE_BIAS]);
	if (a[ARS_A_OBJECT_MAX_FLOWS])
		o->max_flows = nla_get_u32(a[ARS_A_OBJECT_MAX_FLOWS]);
}

/* What the policy's maximum cannot say of max-flows. */
static int ars_object_check(struct genl_info *info)
{
	struct nlattr *a = info->attrs[ARS_A_OBJECT_MAX_FLOWS];
	u32 n = a ? nla_get_u32(a) : 0;

	if (n && (n < ARS_TABLE_SIZE_MIN || !is_power_of_2(n))) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "max-flows: 0, or a power of two from 64 to 1048576");
		return -EINVAL;
	}
	return 0;
}

/*
 * Give object @slot of @c, not yet published, the table its max-flows
 * asks for: a new one when the size changed, none for 0. The only step
 * that may fail, before anything changes.
 */
static int ars_object_table(struct ars_net *an, const struct ars_conf *old,
			    struct ars_conf *c, int slot,
			    struct netlink_ext_ack *extack)
{
	const struct ars_table *ot = old->own[slot];
	u32 size = c->obj[slot].max_flows;

	if (size == (ot ? ot->mask + 1 : 0))
		return 0;
	c->own[slot] = NULL;
	if (!size)
		return 0;
	c->own[slot] = ars_table_alloc(size, (an->table_seq + 1) ?: 1);
	if (!c->own[slot]) {
		NL_SET_ERR_MSG_MOD(extack,
				   "max-flows: no memory for the object's macro-flow table");
		return -ENOMEM;
	}
	return 0;
}

/*
 * Object @slot's flows go from the table of @old to that of @c: its own
 * table, or the entries of its slot in the namespace's (none while ars is
 * off). Twice, as ars_table_carry() explains, the second time with
 * @resched false right before @c is published.
 */
static void ars_object_carry(struct ars_net *an, const struct ars_conf *old,
			     const struct ars_conf *c, int slot, bool resched)
{
	struct ars_table *nst, *from = old->own[slot], *to = c->own[slot];

	if (from == to)
		return;
	if (from && to) {
		ars_table_move(to, from, -1, resched);
		return;
	}
	nst = rcu_dereference_protected(an->table, lockdep_is_held(&an->lock));
	if (!nst)
		return;
	if (from)
		ars_table_move(nst, from, -1, resched);
	else
		ars_table_move(to, nst, slot, resched);
}

int ars_object_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ars_net *an = ars_nl_net(info);
	struct nlattr *a = info->attrs[ARS_A_OBJECT_NAME];
	const struct ars_conf *old = ars_conf_locked(an);
	struct ars_object *o;
	struct ars_conf *c;
	int slot, err;

	if (ars_attr_missing(info, ARS_A_OBJECT_NAME, "name: required"))
		return -EINVAL;
	if (nla_len(a) <= 1 || !strcmp(nla_data(a), "none")) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "name: empty, or the reserved word none");
		return -EINVAL;
	}
	if (ars_object_find(old, nla_data(a)) >= 0) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "name: an object of that name exists");
		return -EEXIST;
	}
	for (slot = 0; slot < ARS_OBJECTS_MAX; slot++)
		if (!old->obj[slot].used)
			break;
	if (slot == ARS_OBJECTS_MAX) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "name: no room, a namespace has at most 16 objects");
		return -ENOSPC;
	}
	err = ars_object_check(info);
	if (err)
		return err;
	c = ars_conf_dup(old, 0);
	if (!c)
		return -ENOMEM;
	o = &c->obj[slot];
	memset(o, 0, sizeof(*o));
	nla_strscpy(o->name, a, sizeof(o->name));
	ars_object_defaults(o);
	/* Without an idle time of its own, the one fabric-rtt derives. */
	o->idle_time = rcu_dereference_protected(an->profile,
				lockdep_is_held(&an->lock))->auto_idle_time;
	ars_object_merge(o, info->attrs);
	err = ars_object_table(an, old, c, slot, info->extack);
	if (err) {
		ars_conf_free(c);
		return err;
	}
	ars_object_stats_reset(an, slot);
	ars_conf_publish(an, c);
	return 0;
}

int ars_object_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ars_net *an = ars_nl_net(info);
	const struct ars_conf *old = ars_conf_locked(an);
	struct ars_conf *c;
	int slot, err;

	slot = ars_object_named(old, info);
	if (slot < 0)
		return slot;
	err = ars_object_check(info);
	if (err)
		return err;
	c = ars_conf_dup(old, 0);
	if (!c)
		return -ENOMEM;
	ars_object_merge(&c->obj[slot], info->attrs);
	err = ars_object_table(an, old, c, slot, info->extack);
	if (err) {
		ars_conf_free(c);
		return err;
	}
	ars_object_carry(an, old, c, slot, true);
	ars_object_carry(an, old, c, slot, false);
	ars_conf_publish(an, c);
	return 0;
}

int ars_object_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ars_net *an = ars_nl_net(info);
	struct nlattr *a = info->attrs[ARS_A_OBJECT_NAME];
	const struct ars_conf *old = ars_conf_locked(an);
	struct ars_conf *c;
	int slot;

	slot = ars_object_named(old, info);
	if (slot < 0)
		return slot;
	if (!slot) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "name: the built-in object default stays (set default-object none instead)");
		return -EBUSY;
	}
	if (old->obj[slot].bindings) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "name: bindings use the object; delete them first");
		return -EBUSY;
	}
	if (old->default_object == slot) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "name: the object is the profile's default-object");
		return -EBUSY;
	}
	c = ars_conf_dup(old, 0);
	if (!c)
		return -ENOMEM;
	memset(&c->obj[slot], 0, sizeof(c->obj[slot]));
	c->own[slot] = NULL;	/* freed once published */
	ars_conf_publish(an, c);
	return 0;
}

static int ars_alt_nh_put(struct sk_buff *skb, const struct ars_alt_nh *nh)
{
	if (nh->ifindex)
		return nla_put_u32(skb, ARS_A_ALTERNATE_IFINDEX, nh->ifindex);
	return nla_put(skb, ARS_A_ALTERNATE_GATEWAY, nh->family == AF_INET ?
		       sizeof(struct in_addr) : sizeof(struct in6_addr),
		       &nh->gw);
}

static int ars_object_fill(struct sk_buff *skb, struct ars_net *an,
			   const struct ars_conf *c, int slot)
{
	const struct ars_object *o = &c->obj[slot];
	struct ars_stats st;
	struct nlattr *nest;
	unsigned int i;

	ars_object_stats_read(an, slot, &st);
	if (nla_put_string(skb, ARS_A_OBJECT_NAME, o->name) ||
	    nla_put_u32(skb, ARS_A_OBJECT_MODE, o->mode) ||
	    nla_put_u64_64bit(skb, ARS_A_OBJECT_IDLE_TIME, o->idle_time,
			      ARS_A_OBJECT_PAD) ||
	    nla_put_u32(skb, ARS_A_OBJECT_BINDINGS, o->bindings) ||
	    nla_put_u8(skb, ARS_A_OBJECT_PRIMARY_THRESHOLD, o->alt.threshold) ||
	    nla_put_u8(skb, ARS_A_OBJECT_ALTERNATE_COST, o->alt.cost) ||
	    nla_put_u8(skb, ARS_A_OBJECT_ALTERNATE_BIAS, o->alt.bias) ||
	    nla_put_u32(skb, ARS_A_OBJECT_MAX_FLOWS, o->max_flows))
		return -EMSGSIZE;
	for (i = 0; i < o->n_alt; i++) {
		nest = nla_nest_start(skb, ARS_A_OBJECT_ALTERNATE);
		if (!nest || ars_alt_nh_put(skb, &o->alts[i]))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	nest = nla_nest_start(skb, ARS_A_OBJECT_STATS);
	if (!nest || ars_stats_put(skb, &st))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

int ars_object_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ars_net *an = ars_pernet(genl_info_net(info));
	struct sk_buff *msg;
	int slot, err;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&an->lock);
	slot = ars_object_named(ars_conf_locked(an), info);
	if (slot < 0) {
		err = slot;
		goto err_unlock;
	}
	err = -EMSGSIZE;
	hdr = ars_nl_reply_put(msg, info, ARS_CMD_OBJECT_GET);
	if (!hdr || ars_object_fill(msg, an, ars_conf_locked(an), slot))
		goto err_unlock;
	mutex_unlock(&an->lock);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_unlock:
	mutex_unlock(&an->lock);
	nlmsg_free(msg);
	return err;
}

/* cb->args[0]: the next slot to look at. */
int ars_object_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ars_net *an = ars_pernet(sock_net(skb->sk));
	const struct ars_conf *c;
	int slot;
	void *hdr;

	mutex_lock(&an->lock);
	c = ars_conf_locked(an);
	for (slot = cb->args[0]; slot < ARS_OBJECTS_MAX; slot++) {
		if (!c->obj[slot].used)
			continue;
		hdr = ars_nl_dump_put(skb, cb, ARS_CMD_OBJECT_GET);
		if (!hdr)
			break;
		if (ars_object_fill(skb, an, c, slot)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	cb->args[0] = slot;
	mutex_unlock(&an->lock);
	return skb->len;
}

/* Bindings. */

const struct nla_policy ars_bind_policy[ARS_A_BIND_MAX + 1] = {
	[ARS_A_BIND_OBJECT]	= { .type = NLA_NUL_STRING,
				    .len = ARS_OBJECT_NAME_LEN - 1 },
	[ARS_A_BIND_EXEMPT]	= { .type = NLA_FLAG },
	[ARS_A_BIND_NHID]	= NLA_POLICY_MIN(NLA_U32, 1),
	[ARS_A_BIND_PREFIX]	= { .type = NLA_BINARY,
				    .len = sizeof(struct in6_addr) },
	[ARS_A_BIND_PREFIX_LEN]	= NLA_POLICY_MAX(NLA_U8, 128),
	[ARS_A_BIND_TABLE]	= NLA_POLICY_MIN(NLA_U32, 1),
	[ARS_A_BIND_MARK]	= { .type = NLA_U32 },
	[ARS_A_BIND_MASK]	= NLA_POLICY_MIN(NLA_U32, 1),
	[ARS_A_BIND_PACKETS]	= { .type = NLA_REJECT },
	[ARS_A_BIND_FLOWLETS]	= { .type = NLA_REJECT },
};

/* The first attribute of @a that @kind does not take, or NULL. */
static struct nlattr *ars_bind_stray(struct nlattr **a, enum ars_bind_kind kind)
{
	static const u8 takes[][ARS_A_BIND_MAX + 1] = {
		[ARS_BIND_MARK]	  = { [ARS_A_BIND_MARK] = 1, [ARS_A_BIND_MASK] = 1 },
		[ARS_BIND_NH]	  = { [ARS_A_BIND_NHID] = 1 },
		[ARS_BIND_PREFIX] = { [ARS_A_BIND_PREFIX] = 1,
				      [ARS_A_BIND_PREFIX_LEN] = 1,
				      [ARS_A_BIND_TABLE] = 1 },
	};
	int type;

	for (type = ARS_A_BIND_NHID; type <= ARS_A_BIND_MAX; type++)
		if (a[type] && !takes[kind][type])
			return a[type];
	return NULL;
}

/* What binding @info describes, in @b (its object aside). */
static int ars_bind_parse(struct genl_info *info, struct ars_bind *b)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **a = info->attrs;
	struct nlattr *stray, *p;
	unsigned int max;

	memset(b, 0, sizeof(*b));
	if (!!a[ARS_A_BIND_NHID] + !!a[ARS_A_BIND_PREFIX] +
	    !!a[ARS_A_BIND_MARK] != 1) {
		NL_SET_ERR_MSG_MOD(extack,
				   "give exactly one of nhid, prefix and mark");
		return -EINVAL;
	}
	if (a[ARS_A_BIND_NHID])
		b->kind = ARS_BIND_NH;
	else if (a[ARS_A_BIND_PREFIX])
		b->kind = ARS_BIND_PREFIX;
	else
		b->kind = ARS_BIND_MARK;
	stray = ars_bind_stray(a, b->kind);
	if (stray) {
		NL_SET_ERR_MSG_ATTR(extack, stray,
				    "attribute does not go with this kind of binding");
		return -EINVAL;
	}

	switch (b->kind) {
	case ARS_BIND_NH:
		b->id = nla_get_u32(a[ARS_A_BIND_NHID]);
		return 0;
	case ARS_BIND_MARK:
		if (!a[ARS_A_BIND_MASK]) {
			NL_SET_ERR_MSG_ATTR(extack, a[ARS_A_BIND_MARK],
					    "mark: needs a mask");
			return -EINVAL;
		}
		b->mark = nla_get_u32(a[ARS_A_BIND_MARK]);
		b->mask = nla_get_u32(a[ARS_A_BIND_MASK]);
		if (b->mark & ~b->mask) {
			NL_SET_ERR_MSG_ATTR(extack, a[ARS_A_BIND_MARK],
					    "mark: has bits outside its mask");
			return -EINVAL;
		}
		return 0;
	case ARS_BIND_PREFIX:
		break;
	}

	p = a[ARS_A_BIND_PREFIX];
	if (nla_len(p) == sizeof(struct in_addr)) {
		b->family = AF_INET;
		max = 32;
	} else if (nla_len(p) == sizeof(struct in6_addr)) {
		b->family = AF_INET6;
		max = 128;
	} else {
		NL_SET_ERR_MSG_ATTR(extack, p,
				    "prefix: must be 4 (IPv4) or 16 (IPv6) bytes");
		return -EINVAL;
	}
	if (ars_attr_missing(info, ARS_A_BIND_PREFIX_LEN,
			     "prefix-len: required with prefix"))
		return -EINVAL;
	b->plen = nla_get_u8(a[ARS_A_BIND_PREFIX_LEN]);
	if (b->plen > max) {
		NL_SET_ERR_MSG_ATTR(extack, a[ARS_A_BIND_PREFIX_LEN],
				    "prefix-len: longer than the address");
		return -EINVAL;
	}
	memcpy(&b->addr, nla_data(p), nla_len(p));
	if (!ars_prefix_clean(b)) {
		NL_SET_ERR_MSG_ATTR(extack, p, "prefix: host bits are set");
		return -EINVAL;
	}
	b->id = a[ARS_A_BIND_TABLE] ? nla_get_u32(a[ARS_A_BIND_TABLE]) :
				      RT_TABLE_MAIN;
	return 0;
}

static bool ars_bind_same(const struct ars_bind *x, const struct ars_bind *y)
{
	if (x->kind != y->kind)
		return false;
	switch (x->kind) {
	case ARS_BIND_MARK:
		return x->mark == y->mark && x->mask == y->mask;
	case ARS_BIND_NH:
		return x->id == y->id;
	}
	return x->family == y->family && x->plen == y->plen &&
	       x->id == y->id && ipv6_addr_equal(&x->addr, &y->addr);
}

static bool ars_bind_overlap(const struct ars_bind *x,
			     const struct ars_bind *y)
{
	return x->kind == ARS_BIND_PREFIX && y->kind == ARS_BIND_PREFIX &&
	       x->id == y->id &&
	       (ars_prefix_has(x, y->family, &y->addr) ||
		ars_prefix_has(y, x->family, &x->addr));
}

/* The attribute that says what a binding binds, for messages. */
static struct nlattr *ars_bind_key_attr(struct nlattr **a)
{
	return a[ARS_A_BIND_NHID] ?: a[ARS_A_BIND_PREFIX] ?: a[ARS_A_BIND_MARK];
}

/* The object of the new binding @b, from @info. */
static int ars_bind_object(const struct ars_conf *c, struct genl_info *info,
			   struct ars_bind *b)
{
	struct nlattr **a = info->attrs;
	int slot;

	if (a[ARS_A_BIND_EXEMPT]) {
		if (b->kind != ARS_BIND_MARK || a[ARS_A_BIND_OBJECT]) {
			NL_SET_ERR_MSG_ATTR(info->extack, a[ARS_A_BIND_EXEMPT],
					    "exempt: for marks only, and instead of an object");
			return -EINVAL;
		}
		b->object = ARS_OBJ_EXEMPT;
		return 0;
	}
	if (!a[ARS_A_BIND_OBJECT]) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "give the object the binding selects (or exempt, for a mark)");
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, ARS_A_BIND_OBJECT);
		return -EINVAL;
	}
	slot = ars_object_find(c, nla_data(a[ARS_A_BIND_OBJECT]));
	if (slot < 0) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[ARS_A_BIND_OBJECT],
				    "object: no object of that name");
		return -ENOENT;
	}
	b->object = slot;
	return 0;
}

/* A counter slot that no binding of @c holds; @c has room for one more. */
static u8 ars_bind_free_slot(const struct ars_conf *c)
{
	DECLARE_BITMAP(used, ARS_BINDINGS_MAX);
	unsigned int i;

	bitmap_zero(used, ARS_BINDINGS_MAX);
	for (i = 0; i < c->n; i++)
		__set_bit(c->binds[i].slot, used);
	return find_first_zero_bit(used, ARS_BINDINGS_MAX);
}

int ars_bind_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ars_net *an = ars_nl_net(info);
	const struct ars_conf *old = ars_conf_locked(an);
	struct nlattr *key = ars_bind_key_attr(info->attrs);
	struct ars_conf *c;
	struct ars_bind b;
	unsigned int i, at;
	int err;

	err = ars_bind_parse(info, &b);
	if (err)
		return err;
	err = ars_bind_object(old, info, &b);
	if (err)
		return err;
	for (i = 0; i < old->n; i++) {
		if (ars_bind_same(&old->binds[i], &b)) {
			NL_SET_ERR_MSG_ATTR(info->extack, key,
					    "the binding exists (delete it first)");
			return -EEXIST;
		}
		if (ars_bind_overlap(&old->binds[i], &b)) {
			NL_SET_ERR_MSG_ATTR(info->extack, key,
					    "prefix: overlaps a bound prefix of the same table");
			return -EEXIST;
		}
	}
	if (old->n >= ARS_BINDINGS_MAX) {
		NL_SET_ERR_MSG_ATTR(info->extack, key,
				    "no room, a namespace has at most 256 bindings");
		return -ENOSPC;
	}

	b.slot = ars_bind_free_slot(old);
	ars_bind_stats_sum(an, b.slot, &b.base);
	c = ars_conf_dup(old, 1);
	if (!c)
		return -ENOMEM;
	/* Marks first, in the order they were made; then the others. */
	at = b.kind == ARS_BIND_MARK ? c->n_marks++ : c->n;
	memmove(&c->binds[at + 1], &c->binds[at],
		(c->n - at) * sizeof(c->binds[0]));
	c->binds[at] = b;
	c->n++;
	ars_conf_publish(an, c);
	return 0;
}

int ars_bind_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ars_net *an = ars_nl_net(info);
	const struct ars_conf *old = ars_conf_locked(an);
	struct ars_conf *c;
	struct ars_bind b;
	unsigned int i;
	int err;

	err = ars_bind_parse(info, &b);
	if (err)
		return err;
	for (i = 0; i < old->n; i++)
		if (ars_bind_same(&old->binds[i], &b))
			break;
	if (i == old->n) {
		NL_SET_ERR_MSG_ATTR(info->extack, ars_bind_key_attr(info->attrs),
				    "no such binding");
		return -ENOENT;
	}
	c = ars_conf_dup(old, 0);
	if (!c)
		return -ENOMEM;
	memmove(&c->binds[i], &c->binds[i + 1],
		(c->n - i - 1) * sizeof(c->binds[0]));
	c->n--;
	if (b.kind == ARS_BIND_MARK)
		c->n_marks--;
	ars_conf_publish(an, c);
	return 0;
}

static int ars_bind_fill(struct sk_buff *skb, struct ars_net *an,
			 const struct ars_conf *c, const struct ars_bind *b)
{
	struct ars_bind_stats st;
	int err;

	ars_bind_stats_read(an, b, &st);
	if (nla_put_u64_64bit(skb, ARS_A_BIND_PACKETS, st.packets,
			      ARS_A_BIND_PAD) ||
	    nla_put_u64_64bit(skb, ARS_A_BIND_FLOWLETS, st.flowlets,
			      ARS_A_BIND_PAD))
		return -EMSGSIZE;
	if (b->object == ARS_OBJ_EXEMPT)
		err = nla_put_flag(skb, ARS_A_BIND_EXEMPT);
	else
		err = nla_put_string(skb, ARS_A_BIND_OBJECT,
				     c->obj[b->object].name);
	if (err)
		return err;
	switch (b->kind) {
	case ARS_BIND_MARK:
		return nla_put_u32(skb, ARS_A_BIND_MARK, b->mark) ?:
		       nla_put_u32(skb, ARS_A_BIND_MASK, b->mask);
	case ARS_BIND_NH:
		return nla_put_u32(skb, ARS_A_BIND_NHID, b->id);
	}
	return nla_put(skb, ARS_A_BIND_PREFIX, b->family == AF_INET ?
		       sizeof(struct in_addr) : sizeof(struct in6_addr),
		       &b->addr) ?:
	       nla_put_u8(skb, ARS_A_BIND_PREFIX_LEN, b->plen) ?:
	       nla_put_u32(skb, ARS_A_BIND_TABLE, b->id);
}

/* cb->args[0]: the next binding to send. */
int ars_bind_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ars_net *an = ars_pernet(sock_net(skb->sk));
	const struct ars_conf *c;
	unsigned int i;
	void *hdr;

	rcu_read_lock();
	c = rcu_dereference(an->conf);
	cb->seq = c->gen + 1;
	for (i = cb->args[0]; i < c->n; i++) {
		hdr = ars_nl_dump_put(skb, cb, ARS_CMD_BIND_GET);
		if (!hdr)
			break;
		genl_dump_check_consistent(cb, hdr);
		if (ars_bind_fill(skb, an, c, &c->binds[i])) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	cb->args[0] = i;
	rcu_read_unlock();
	return skb->len;
}

/* Ports. */

const struct nla_policy ars_port_policy[ARS_A_PORT_MAX + 1] = {
	[ARS_A_PORT_IFINDEX]	= NLA_POLICY_MIN(NLA_U32, 1),
};

static int ars_port_change(struct ars_net *an, struct genl_info *info,
			   bool enable)
{
	const struct ars_conf *old = ars_conf_locked(an);
	struct nlattr *a = info->attrs[ARS_A_PORT_IFINDEX];
	struct ars_conf *c;
	unsigned int i;
	u32 ifindex;

	if (ars_attr_missing(info, ARS_A_PORT_IFINDEX, "ifindex: required"))
		return -EINVAL;
	ifindex = nla_get_u32(a);
	for (i = 0; i < old->n_ports; i++)
		if (old->ports[i] == ifindex)
			break;
	if (enable && i < old->n_ports) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "ifindex: the device is enabled already");
		return -EEXIST;
	}
	if (enable && old->n_ports == ARS_PORTS_MAX) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "ifindex: no room, at most 64 devices are enabled");
		return -ENOSPC;
	}
	if (!enable && i == old->n_ports) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "ifindex: the device is not enabled");
		return -ENOENT;
	}
	c = ars_conf_dup(old, 0);
	if (!c)
		return -ENOMEM;
	if (enable)
		c->ports[c->n_ports++] = ifindex;
	else
		c->ports[i] = c->ports[--c->n_ports];
	ars_conf_publish(an, c);
	return 0;
}

int ars_port_enable_doit(struct sk_buff *skb, struct genl_info *info)
{
	return ars_port_change(ars_nl_net(info), info, true);
}

int ars_port_disable_doit(struct sk_buff *skb, struct genl_info *info)
{
	return ars_port_change(ars_nl_net(info), info, false);
}

/* cb->args[0]: the next port to send. */
int ars_port_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ars_net *an = ars_pernet(sock_net(skb->sk));
	const struct ars_conf *c;
	unsigned int i;
	void *hdr;

	rcu_read_lock();
	c = rcu_dereference(an->conf);
	cb->seq = c->gen + 1;
	for (i = cb->args[0]; i < c->n_ports; i++) {
		hdr = ars_nl_dump_put(skb, cb, ARS_CMD_PORT_GET);
		if (!hdr)
			break;
		genl_dump_check_consistent(cb, hdr);
		if (nla_put_u32(skb, ARS_A_PORT_IFINDEX, c->ports[i])) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	cb->args[0] = i;
	rcu_read_unlock();
	return skb->len;
}

/* Alternates. */

const struct nla_policy ars_alternate_policy[ARS_A_ALTERNATE_MAX + 1] = {
	[ARS_A_ALTERNATE_OBJECT]	= { .type = NLA_NUL_STRING,
					    .len = ARS_OBJECT_NAME_LEN - 1 },
	[ARS_A_ALTERNATE_IFINDEX]	= NLA_POLICY_MIN(NLA_U32, 1),
	[ARS_A_ALTERNATE_GATEWAY]	= { .type = NLA_BINARY,
					    .len = sizeof(struct in6_addr) },
};

/* The alternate next hop @info describes, in @nh. */
static int ars_alt_parse(struct genl_info *info, struct ars_alt_nh *nh)
{
	struct nlattr *ifi = info->attrs[ARS_A_ALTERNATE_IFINDEX];
	struct nlattr *gw = info->attrs[ARS_A_ALTERNATE_GATEWAY];

	memset(nh, 0, sizeof(*nh));
	if (!!ifi + !!gw != 1) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "give exactly one of ifindex and gateway");
		return -EINVAL;
	}
	if (ifi) {
		nh->ifindex = nla_get_u32(ifi);
		return 0;
	}
	if (nla_len(gw) == sizeof(struct in_addr)) {
		nh->family = AF_INET;
	} else if (nla_len(gw) == sizeof(struct in6_addr)) {
		nh->family = AF_INET6;
	} else {
		NL_SET_ERR_MSG_ATTR(info->extack, gw,
				    "gateway: must be 4 (IPv4) or 16 (IPv6) bytes");
		return -EINVAL;
	}
	memcpy(&nh->gw, nla_data(gw), nla_len(gw));
	return 0;
}

static bool ars_alt_nh_same(const struct ars_alt_nh *x,
			    const struct ars_alt_nh *y)
{
	return x->ifindex == y->ifindex && x->family == y->family &&
	       ipv6_addr_equal(&x->gw, &y->gw);
}

/* The object of an alternate request, with the lock held. */
static int ars_alt_object(const struct ars_conf *c, struct genl_info *info)
{
	struct nlattr *a = info->attrs[ARS_A_ALTERNATE_OBJECT];
	int slot;

	if (ars_attr_missing(info, ARS_A_ALTERNATE_OBJECT, "object: required"))
		return -EINVAL;
	slot = ars_object_find(c, nla_data(a));
	if (slot < 0) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "object: no object of that name");
		return -ENOENT;
	}
	return slot;
}

static void ars_object_alt_derive(struct ars_object *o)
{
	unsigned int i;

	o->alt_gw = false;
	for (i = 0; i < o->n_alt; i++)
		if (!o->alts[i].ifindex)
			o->alt_gw = true;
}

static int ars_alternate_change(struct ars_net *an, struct genl_info *info,
				bool add)
{
	const struct ars_conf *old = ars_conf_locked(an);
	struct nlattr *key = info->attrs[ARS_A_ALTERNATE_IFINDEX] ?:
			     info->attrs[ARS_A_ALTERNATE_GATEWAY];
	const struct ars_object *oo;
	struct ars_object *o;
	struct ars_alt_nh nh;
	struct ars_conf *c;
	unsigned int i;
	int slot, err;

	slot = ars_alt_object(old, info);
	if (slot < 0)
		return slot;
	err = ars_alt_parse(info, &nh);
	if (err)
		return err;
	oo = &old->obj[slot];
	for (i = 0; i < oo->n_alt; i++)
		if (ars_alt_nh_same(&oo->alts[i], &nh))
			break;
	if (add && i < oo->n_alt) {
		NL_SET_ERR_MSG_ATTR(info->extack, key,
				    "the next hop is an alternate of the object already");
		return -EEXIST;
	}
	if (add && oo->n_alt == ARS_ALTERNATES_MAX) {
		NL_SET_ERR_MSG_ATTR(info->extack, key,
				    "no room, an object has at most 8 alternates");
		return -ENOSPC;
	}
	if (!add && i == oo->n_alt) {
		NL_SET_ERR_MSG_ATTR(info->extack, key,
				    "the next hop is not an alternate of the object");
		return -ENOENT;
	}
	c = ars_conf_dup(old, 0);
	if (!c)
		return -ENOMEM;
	o = &c->obj[slot];
	if (add)
		o->alts[o->n_alt++] = nh;
	else
		o->alts[i] = o->alts[--o->n_alt];
	ars_object_alt_derive(o);
	ars_conf_publish(an, c);
	return 0;
}

int ars_alternate_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	return ars_alternate_change(ars_nl_net(info), info, true);
}

int ars_alternate_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	return ars_alternate_change(ars_nl_net(info), info, false);
}

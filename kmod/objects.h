/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ARS objects and their bindings: which mode and idle time steer a packet.
 */
#ifndef _ARS_OBJECTS_H
#define _ARS_OBJECTS_H

#include <linux/in6.h>
#include <linux/rcupdate.h>
#include <linux/types.h>
#include <net/genetlink.h>

#include "ars_core.h"
#include "netns.h"

/* What resolution may answer besides an object's slot. */
#define ARS_OBJ_NONE	-1	/* no object: the kernel's own hash */
#define ARS_OBJ_EXEMPT	-2	/* exempt by a mark binding */
#define ARS_OBJ_ROUTE	-3	/* not known without the route */

/* An alternate next hop: by device (@ifindex) or by gateway (@family). */
struct ars_alt_nh {
	u32		ifindex;
	u8		family;		/* of @gw; 0 with @ifindex */
	struct in6_addr	gw;		/* an IPv4 one in s6_addr32[0] */
};

struct ars_object {
	char	name[ARS_OBJECT_NAME_LEN];
	u64	idle_time;
	bool	idle_auto;	/* @idle_time not set: the profile's auto one */
	u32	mode;
	u32	table_size;	/* 0: the namespace's table, else its own */
	u32	bindings;	/* bindings that select it */
	bool	used;
	u8	n_alt;		/* alternates; 0: all next hops primary */
	bool	alt_gw;		/* some alternate is by gateway */
	struct ars_alt	alt;	/* threshold, cost, bias (ars_core.h) */
	struct ars_alt_nh alts[ARS_ALTERNATES_MAX];
};

enum ars_bind_kind {
	ARS_BIND_MARK,
	ARS_BIND_NH,
	ARS_BIND_PREFIX,
};

struct ars_bind {
	u8		kind;		/* enum ars_bind_kind */
	u8		family;		/* prefixes */
	u8		plen;
	s8		object;		/* slot, or ARS_OBJ_EXEMPT */
	u8		slot;		/* of its counters, for its lifetime */
	struct ars_bind_stats base;	/* the counters' values when made */
	u32		id;		/* nexthop group id, or prefix's table */
	u32		mark;
	u32		mask;
	struct in6_addr	addr;		/* an IPv4 prefix in s6_addr32[0] */
};

/*
 * The objects and bindings of a namespace, replaced whole under the
 * namespace's mutex and read under RCU by the data plane when a flowlet
 * starts. binds[] holds the mark bindings first, in the order they were
 * made, then the others. @own[] are the macro-flow tables of objects with
 * a table-size of their own, by slot (table.c): a configuration holds them
 * while it is the namespace's, and the one that replaces it frees those it
 * does not keep, after a grace period (ars_conf_publish()).
 */
struct ars_conf {
	struct rcu_head		rcu;
	u16			seq;		/* moves with every change */
	s8			default_object;	/* slot, or ARS_OBJ_NONE */
	bool			steers;		/* an object may steer */
	bool			ecmp;		/* ... or hash in the ecmp mode */
	bool			flowlets;	/* ... in a flowlet mode */
	bool			own_tables;	/* some @own[] is set */
	bool			route_binds;	/* the route decides */
	struct ars_table	*own[ARS_OBJECTS_MAX];
	unsigned int		n_ifaces;	/* interfaces, 0: all */
	u32			ifaces[ARS_INTERFACES_MAX];
	unsigned int		n_marks;
	unsigned int		n;
	struct ars_object	obj[ARS_OBJECTS_MAX];
	struct ars_bind		binds[];
};

/* Data plane, under RCU; @bind: the binding's counter slot, or -1. */

/*
 * The object a packet's mark selects: a slot, ARS_OBJ_EXEMPT,
 * ARS_OBJ_NONE, or ARS_OBJ_ROUTE when the route decides
 * (ars_conf_route()); @bind as said. Inline: every packet that does not
 * continue a flowlet asks.
 */
static inline int ars_conf_mark(const struct ars_conf *c, u32 mark, int *bind)
{
	unsigned int i;

	for (i = 0; i < c->n_marks; i++) {
		if ((mark & c->binds[i].mask) == c->binds[i].mark) {
			*bind = c->binds[i].slot;
			return c->binds[i].object;
		}
	}
	*bind = -1;
	return c->route_binds ? ARS_OBJ_ROUTE : c->default_object;
}

int ars_conf_route(const struct ars_conf *c, int family,
		   const struct in6_addr *daddr, u32 table, u32 nhid,
		   int *bind);

/* Device @ifindex is ARS-enabled: all are while none is listed. */
static inline bool ars_conf_interface(const struct ars_conf *c, u32 ifindex)
{
	unsigned int i;

	for (i = 0; i < c->n_ifaces; i++)
		if (c->ifaces[i] == ifindex)
			return true;
	return !c->n_ifaces;
}

/* Per namespace (netns.c). */
void ars_conf_setup(void);
void ars_conf_init(struct ars_net *an);
void ars_conf_uninit(struct ars_net *an);
void ars_object_stats_reset(struct ars_net *an, int slot);

/* The profile's share: the default object (genl.c), under the lock. */
int ars_conf_profile_prepare(struct ars_net *an, struct nlattr **a,
			     u64 auto_idle_time,
			     struct netlink_ext_ack *extack,
			     struct ars_conf **out);
u32 ars_conf_profile_auto(const struct ars_conf *c);
void ars_conf_profile_commit(struct ars_net *an, struct ars_conf *c, bool ok);
int ars_conf_profile_fill(struct sk_buff *skb, const struct ars_conf *c);

/* Counters as attributes (stats-get's and an object's). */
int ars_stats_put(struct sk_buff *skb, const struct ars_stats *st);

/*
 * The configuration's API for the commands that change it (nl_objects.c,
 * nl_binds.c), under the namespace's lock: a copy (ars_conf_dup()) is
 * changed and then published whole (ars_conf_publish()) or freed.
 */
static inline struct ars_conf *ars_conf_locked(struct ars_net *an)
{
	return rcu_dereference_protected(an->conf, lockdep_is_held(&an->lock));
}

struct ars_conf *ars_conf_dup(const struct ars_conf *old,
			      unsigned int extra);
void ars_conf_free(struct ars_conf *c);
void ars_conf_publish(struct ars_net *an, struct ars_conf *nc);
int ars_object_find(const struct ars_conf *c, const char *name);
void ars_object_defaults(struct ars_object *o);
void ars_object_stats_read(struct ars_net *an, int slot,
			   struct ars_stats *out);
bool ars_prefix_has(const struct ars_bind *b, int family,
		    const struct in6_addr *a);
void ars_bind_stats_sum(struct ars_net *an, unsigned int slot,
			struct ars_bind_stats *out);
void ars_bind_stats_read(struct ars_net *an, const struct ars_bind *b,
			 struct ars_bind_stats *out);

#endif /* _ARS_OBJECTS_H */

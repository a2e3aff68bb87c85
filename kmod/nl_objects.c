// SPDX-License-Identifier: GPL-2.0
/*
 * object-new, -set, -del and -get: the objects of a namespace's
 * configuration (objects.c), each change made in a copy and published
 * whole. genl.c's family dispatches here.
 */
#include <linux/ars.h>
#include <linux/string.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "netns.h"
#include "nl.h"
#include "objects.h"
#include "profile.h"
#include "stats.h"
#include "table.h"

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
	if (a[ARS_A_OBJECT_TABLE_SIZE])
		o->table_size = nla_get_u32(a[ARS_A_OBJECT_TABLE_SIZE]);
}

/* What the policy's maximum cannot say of table-size. */
static int ars_object_check(struct genl_info *info)
{
	struct nlattr *a = info->attrs[ARS_A_OBJECT_TABLE_SIZE];
	u32 n = a ? nla_get_u32(a) : 0;

	if (n && (n < ARS_TABLE_SIZE_MIN || !is_power_of_2(n))) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "table-size: 0, or a power of two from 64 to 1048576");
		return -EINVAL;
	}
	return 0;
}

/*
 * Give object @slot of @c, not yet published, the table its table-size
 * asks for: a new one when the size changed, none for 0. The only step
 * that may fail, before anything changes.
 */
static int ars_object_table(struct ars_net *an, const struct ars_conf *old,
			    struct ars_conf *c, int slot,
			    struct netlink_ext_ack *extack)
{
	const struct ars_table *ot = old->own[slot];
	u32 size = c->obj[slot].table_size;

	if (size == (ot ? ot->mask + 1 : 0))
		return 0;
	c->own[slot] = NULL;
	if (!size)
		return 0;
	c->own[slot] = ars_table_alloc(size, (an->table_seq + 1) ?: 1);
	if (!c->own[slot]) {
		NL_SET_ERR_MSG_MOD(extack,
				   "table-size: no memory for the object's macro-flow table");
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

/*
 * The end of object-new and -set: @info's settings in object @slot of a
 * copy of the configuration, @fresh (a new object's defaults) or the one
 * there under them, its table, and the copy published. A new object's
 * counters start from zero; a changed one's flows move to its table.
 */
static int ars_object_commit(struct ars_net *an, struct genl_info *info,
			     int slot, const struct ars_object *fresh)
{
	const struct ars_conf *old = ars_conf_locked(an);
	struct ars_conf *c;
	int err;

	err = ars_object_check(info);
	if (err)
		return err;
	c = ars_conf_dup(old, 0);
	if (!c)
		return -ENOMEM;
	if (fresh)
		c->obj[slot] = *fresh;
	ars_object_merge(&c->obj[slot], info->attrs);
	err = ars_object_table(an, old, c, slot, info->extack);
	if (err) {
		ars_conf_free(c);
		return err;
	}
	if (fresh) {
		ars_object_stats_reset(an, slot);
	} else {
		ars_object_carry(an, old, c, slot, true);
		ars_object_carry(an, old, c, slot, false);
	}
	ars_conf_publish(an, c);
	return 0;
}

int ars_object_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ars_net *an = ars_nl_net(info);
	struct nlattr *a = info->attrs[ARS_A_OBJECT_NAME];
	const struct ars_conf *old = ars_conf_locked(an);
	struct ars_object o;
	int slot;

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
	memset(&o, 0, sizeof(o));
	nla_strscpy(o.name, a, sizeof(o.name));
	ars_object_defaults(&o);
	/* Without an idle time of its own, the one fabric-rtt derives. */
	o.idle_time = rcu_dereference_protected(an->profile,
				lockdep_is_held(&an->lock))->auto_idle_time;
	return ars_object_commit(an, info, slot, &o);
}

int ars_object_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ars_net *an = ars_nl_net(info);
	int slot;

	slot = ars_object_named(ars_conf_locked(an), info);
	if (slot < 0)
		return slot;
	return ars_object_commit(an, info, slot, NULL);
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
	    nla_put_u32(skb, ARS_A_OBJECT_TABLE_SIZE, o->table_size))
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

// SPDX-License-Identifier: GPL-2.0
/*
 * bind-new, -del and -get, interface-enable, -disable and -get, alternate-new
 * and -del: which packets the objects of a namespace's configuration
 * (objects.c) steer, on which devices, and their alternate next hops; each
 * change made in a copy and published whole. genl.c's family dispatches
 * here.
 */
#include <linux/ars.h>
#include <linux/err.h>
#include <linux/inetdevice.h>
#include <linux/string.h>
#include <net/genetlink.h>
#include <net/ipv6.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "netns.h"
#include "nl.h"
#include "objects.h"
#include "stats.h"

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

/* The prefix's address has no bit set past its length. */
static bool ars_prefix_clean(const struct ars_bind *b)
{
	struct in6_addr m;

	if (b->family == AF_INET)
		return !(b->addr.s6_addr32[0] & ~inet_make_mask(b->plen));
	ipv6_addr_prefix(&m, &b->addr, b->plen);
	return ipv6_addr_equal(&m, &b->addr);
}

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
	cb->seq = c->seq + 1;
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

/*
 * Adding to or removing from a list of members (the interfaces, an
 * object's alternates) of @count, at most @max, the one looked up found
 * at @found (@count if not there): a copy of @old to make the change in,
 * not yet published, or why not.
 */
static struct ars_conf *__ars_member_change(const struct ars_conf *old,
					    unsigned int found,
					    unsigned int count,
					    unsigned int max, bool add)
{
	if (add && found < count)
		return ERR_PTR(-EEXIST);
	if (add && count == max)
		return ERR_PTR(-ENOSPC);
	if (!add && found == count)
		return ERR_PTR(-ENOENT);
	return ars_conf_dup(old, 0) ?: ERR_PTR(-ENOMEM);
}

/*
 * __ars_member_change() telling a refusal at @attr in the words of
 * @present (adding one that is there), @full or @absent (removing one
 * that is not). A macro because NL_SET_ERR_MSG_ATTR() takes literals.
 */
#define ars_member_change(old, found, count, max, add, extack, attr,	\
			  present, full, absent) ({			\
	struct ars_conf *__c = __ars_member_change(old, found, count,	\
						   max, add);		\
									\
	switch (PTR_ERR_OR_ZERO(__c)) {					\
	case -EEXIST:							\
		NL_SET_ERR_MSG_ATTR(extack, attr, present);		\
		break;							\
	case -ENOSPC:							\
		NL_SET_ERR_MSG_ATTR(extack, attr, full);		\
		break;							\
	case -ENOENT:							\
		NL_SET_ERR_MSG_ATTR(extack, attr, absent);		\
		break;							\
	}								\
	__c;								\
})

/* Interfaces: the ARS-enabled devices. */

static int ars_interface_change(struct ars_net *an, struct genl_info *info,
			   bool enable)
{
	const struct ars_conf *old = ars_conf_locked(an);
	struct nlattr *a = info->attrs[ARS_A_INTERFACE_IFINDEX];
	struct ars_conf *c;
	unsigned int i;
	u32 ifindex;

	if (ars_attr_missing(info, ARS_A_INTERFACE_IFINDEX, "ifindex: required"))
		return -EINVAL;
	ifindex = nla_get_u32(a);
	for (i = 0; i < old->n_ifaces; i++)
		if (old->ifaces[i] == ifindex)
			break;
	c = ars_member_change(old, i, old->n_ifaces, ARS_INTERFACES_MAX,
			      enable, info->extack, a,
			      "ifindex: the device is enabled already",
			      "ifindex: no room, at most 64 devices are enabled",
			      "ifindex: the device is not enabled");
	if (IS_ERR(c))
		return PTR_ERR(c);
	if (enable)
		c->ifaces[c->n_ifaces++] = ifindex;
	else
		c->ifaces[i] = c->ifaces[--c->n_ifaces];
	ars_conf_publish(an, c);
	return 0;
}

int ars_interface_enable_doit(struct sk_buff *skb, struct genl_info *info)
{
	return ars_interface_change(ars_nl_net(info), info, true);
}

int ars_interface_disable_doit(struct sk_buff *skb, struct genl_info *info)
{
	return ars_interface_change(ars_nl_net(info), info, false);
}

/* cb->args[0]: the next interface to send. */
int ars_interface_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ars_net *an = ars_pernet(sock_net(skb->sk));
	const struct ars_conf *c;
	unsigned int i;
	void *hdr;

	rcu_read_lock();
	c = rcu_dereference(an->conf);
	cb->seq = c->seq + 1;
	for (i = cb->args[0]; i < c->n_ifaces; i++) {
		hdr = ars_nl_dump_put(skb, cb, ARS_CMD_INTERFACE_GET);
		if (!hdr)
			break;
		genl_dump_check_consistent(cb, hdr);
		if (nla_put_u32(skb, ARS_A_INTERFACE_IFINDEX, c->ifaces[i])) {
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
	c = ars_member_change(old, i, oo->n_alt, ARS_ALTERNATES_MAX, add,
			      info->extack, key,
			      "the next hop is an alternate of the object already",
			      "no room, an object has at most 8 alternates",
			      "the next hop is not an alternate of the object");
	if (IS_ERR(c))
		return PTR_ERR(c);
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

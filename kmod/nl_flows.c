// SPDX-License-Identifier: GPL-2.0
/*
 * flows-get: the macro-flow table's entries, dumped, or the one entry that
 * holds a flow given by its fields (do). genl.c's family dispatches here.
 */
#include <linux/ars.h>
#include <linux/ktime.h>
#include <linux/netdevice.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "ars_core.h"
#include "key.h"
#include "netns.h"
#include "nl.h"
#include "objects.h"
#include "ports.h"
#include "profile.h"
#include "table.h"

/* The gateway last steered through the entry's device. */
static int ars_flow_put_gateway(struct sk_buff *skb, struct ars_net *an,
				int ifindex)
{
	const struct ars_port *port = ars_port_find(an, ifindex);

	if (!port)
		return 0;
	switch (READ_ONCE(port->gw_family)) {
	case AF_INET:
		return nla_put_in_addr(skb, ARS_A_FLOW_GATEWAY,
				       port->gw.s6_addr32[0]);
	case AF_INET6:
		return nla_put_in6_addr(skb, ARS_A_FLOW_GATEWAY, &port->gw);
	}
	return 0;
}

/* The entry's object, by the configuration's names, and its table. */
static int ars_flow_put_object(struct sk_buff *skb, const struct ars_conf *c,
			       const struct ars_flow *f, bool own)
{
	const struct ars_object *o;

	o = &c->obj[READ_ONCE(f->object) & (ARS_OBJECTS_MAX - 1)];
	if (o->used && nla_put_string(skb, ARS_A_FLOW_OBJECT, o->name))
		return -EMSGSIZE;
	return own ? nla_put_flag(skb, ARS_A_FLOW_OWN_TABLE) : 0;
}

/* Whether the entry's flowlet goes on, by its own idle time. */
static bool ars_flow_active(const struct ars_flow *f, u64 now)
{
	struct ars_ctx c = { .now = now, .idle = READ_ONCE(f->idle) };

	return !ars_flowlet_expired(f, &c);
}

/* The attributes of entry @index of a table (own: an object's). */
static int ars_flow_put(struct sk_buff *skb, struct ars_net *an,
			const struct ars_conf *c, bool own, u32 index,
			const struct ars_flow *f, u64 state, u64 now)
{
	if (nla_put_u32(skb, ARS_A_FLOW_INDEX, index) ||
	    nla_put_u32(skb, ARS_A_FLOW_IFINDEX, READ_ONCE(f->ifindex)) ||
	    (ars_flow_path(state) != ARS_PATH_NONE &&
	     nla_put_u32(skb, ARS_A_FLOW_NEXTHOP, ars_flow_path(state))) ||
	    nla_put_u64_64bit(skb, ARS_A_FLOW_AGE, ars_flow_age(state, now),
			      ARS_A_FLOW_PAD) ||
	    nla_put_u32(skb, ARS_A_FLOW_FLOWLETS, READ_ONCE(f->flowlets)) ||
	    nla_put_u32(skb, ARS_A_FLOW_GENERATION, ars_flow_gen(state)) ||
	    ars_flow_put_gateway(skb, an, READ_ONCE(f->ifindex)) ||
	    ars_flow_put_object(skb, c, f, own) ||
	    (ars_flow_active(f, now) &&
	     nla_put_flag(skb, ARS_A_FLOW_ACTIVE)))
		return -EMSGSIZE;
	return 0;
}

static int ars_flow_fill(struct sk_buff *skb, struct netlink_callback *cb,
			 const struct ars_conf *c, bool own, u32 index,
			 const struct ars_flow *f, u64 state, u64 now)
{
	struct ars_net *an = ars_pernet(sock_net(cb->skb->sk));
	void *hdr;

	hdr = ars_nl_dump_put(skb, cb, ARS_CMD_FLOWS_GET);
	if (!hdr)
		return -EMSGSIZE;
	genl_dump_check_consistent(cb, hdr);
	if (ars_flow_put(skb, an, c, own, index, f, state, now)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* Table @which of a flows dump: 0 the namespace's, 1 + slot an object's. */
static const struct ars_table *ars_flows_table(struct ars_net *an,
					       const struct ars_conf *c,
					       unsigned long which)
{
	return which ? c->own[which - 1] : rcu_dereference(an->table);
}

/*
 * cb->args[0]: the table (ars_flows_table()), cb->args[1]: the next entry
 * to look at in it. A table made, replaced or freed (ars turned off too)
 * moves the namespace's table_seq, and the dump is then flagged.
 */
int ars_flows_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ars_net *an = ars_pernet(sock_net(skb->sk));
	const struct ars_table *t;
	const struct ars_conf *c;
	unsigned long which;
	u32 i = 0;

	cb->seq = READ_ONCE(an->table_seq);
	rcu_read_lock();
	c = rcu_dereference(an->conf);
	for (which = cb->args[0]; which <= ARS_OBJECTS_MAX; which++) {
		t = ars_flows_table(an, c, which);
		for (i = cb->args[1]; t && i <= t->mask; i++) {
			const struct ars_flow *f = &t->flows[i];
			u64 state = READ_ONCE(f->state);

			if (!ars_flow_gen(state))
				continue;
			/*
			 * The clock after the entry: a CPU that forwards
			 * meanwhile writes a later time, which a clock read
			 * before would take for an age of 2^40 units.
			 */
			if (ars_flow_fill(skb, cb, c, which, i, f, state,
					  ktime_get_ns()))
				goto out;
		}
		cb->args[1] = 0;
	}
out:
	cb->args[0] = which;
	cb->args[1] = i;
	rcu_read_unlock();
	return skb->len;
}

/*
 * A flows get request: one flow, as its packets carry it at the end of
 * PRE_ROUTING. The data plane keys packets on the same fields (key.h).
 */
const struct nla_policy ars_flow_policy[ARS_A_FLOW_MAX + 1] = {
	[ARS_A_FLOW_SRC]	= NLA_POLICY_RANGE(NLA_BINARY,
						   sizeof(struct in_addr),
						   sizeof(struct in6_addr)),
	[ARS_A_FLOW_DST]	= NLA_POLICY_RANGE(NLA_BINARY,
						   sizeof(struct in_addr),
						   sizeof(struct in6_addr)),
	[ARS_A_FLOW_PROTO]	= { .type = NLA_U8 },
	[ARS_A_FLOW_SPORT]	= { .type = NLA_U16 },
	[ARS_A_FLOW_DPORT]	= { .type = NLA_U16 },
	[ARS_A_FLOW_MARK]	= { .type = NLA_U32 },
	[ARS_A_FLOW_IIF]	= NLA_POLICY_MIN(NLA_U32, 1),
	[ARS_A_FLOW_TOS]	= { .type = NLA_U8 },
	[ARS_A_FLOW_FLOWLABEL]	= NLA_POLICY_MASK(NLA_U32, 0xfffff),
};

struct ars_flow_req {
	int		family;
	struct in6_addr	src, dst;	/* IPv4's in s6_addr32[0] */
	u32		ports;		/* as in the transport header */
	u32		mark;
	u32		iif;		/* 0: any device */
	__be32		flowlabel;
	u8		proto;
	u8		tos;
};

/* The entry that holds the flow, and the input device it was found for. */
struct ars_flow_hit {
	const struct ars_flow	*f;
	u64			state;
	u32			index;
	u32			iif;
	bool			own;
};

static bool ars_flow_req_missing(struct genl_info *info, int type)
{
	if (info->attrs[type])
		return false;
	NL_SET_ERR_MSG_MOD(info->extack, "src, dst and proto are required");
	NL_SET_ERR_ATTR_MISS(info->extack, NULL, type);
	return true;
}

/* What the policy cannot say: the family, and which fields it has. */
static int ars_flow_req_parse(struct genl_info *info, struct ars_flow_req *r)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **a = info->attrs;
	__be16 ports[2];
	int len;

	if (ars_flow_req_missing(info, ARS_A_FLOW_SRC) ||
	    ars_flow_req_missing(info, ARS_A_FLOW_DST) ||
	    ars_flow_req_missing(info, ARS_A_FLOW_PROTO))
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	len = nla_len(a[ARS_A_FLOW_SRC]);
	if (len != sizeof(struct in_addr) && len != sizeof(struct in6_addr)) {
		NL_SET_ERR_MSG_ATTR(extack, a[ARS_A_FLOW_SRC],
				    "src must be an IPv4 (4 bytes) or IPv6 (16 bytes) address");
		return -EINVAL;
	}
	if (nla_len(a[ARS_A_FLOW_DST]) != len) {
		NL_SET_ERR_MSG_ATTR(extack, a[ARS_A_FLOW_DST],
				    "dst must be of the family of src");
		return -EINVAL;
	}
	r->family = len == sizeof(struct in_addr) ? AF_INET : AF_INET6;
	nla_memcpy(&r->src, a[ARS_A_FLOW_SRC], len);
	nla_memcpy(&r->dst, a[ARS_A_FLOW_DST], len);
	r->proto = nla_get_u8(a[ARS_A_FLOW_PROTO]);
	if ((a[ARS_A_FLOW_SPORT] || a[ARS_A_FLOW_DPORT]) &&
	    !ars_l4_ports(r->proto)) {
		NL_SET_ERR_MSG_ATTR(extack, a[ARS_A_FLOW_SPORT] ?:
					    a[ARS_A_FLOW_DPORT],
				    "ports only with tcp, udp, sctp or udplite: ars keys other protocols by their addresses");
		return -EINVAL;
	}
	if (a[ARS_A_FLOW_TOS] && r->family != AF_INET) {
		NL_SET_ERR_MSG_ATTR(extack, a[ARS_A_FLOW_TOS],
				    "tos only with IPv4 addresses");
		return -EINVAL;
	}
	if (a[ARS_A_FLOW_FLOWLABEL] && r->family != AF_INET6) {
		NL_SET_ERR_MSG_ATTR(extack, a[ARS_A_FLOW_FLOWLABEL],
				    "flowlabel only with IPv6 addresses");
		return -EINVAL;
	}
	/* The ports as the transport header has them: source, destination. */
	ports[0] = a[ARS_A_FLOW_SPORT] ?
		   htons(nla_get_u16(a[ARS_A_FLOW_SPORT])) : 0;
	ports[1] = a[ARS_A_FLOW_DPORT] ?
		   htons(nla_get_u16(a[ARS_A_FLOW_DPORT])) : 0;
	memcpy(&r->ports, ports, sizeof(r->ports));
	if (a[ARS_A_FLOW_MARK])
		r->mark = nla_get_u32(a[ARS_A_FLOW_MARK]);
	if (a[ARS_A_FLOW_IIF])
		r->iif = nla_get_u32(a[ARS_A_FLOW_IIF]);
	if (a[ARS_A_FLOW_TOS])
		r->tos = nla_get_u8(a[ARS_A_FLOW_TOS]);
	if (a[ARS_A_FLOW_FLOWLABEL])
		r->flowlabel = htonl(nla_get_u32(a[ARS_A_FLOW_FLOWLABEL]));
	return 0;
}

/* The flow's key as the data plane computes it for input device @ifindex. */
static void ars_flow_req_key(const struct ars_net *an,
			     const struct ars_profile *p,
			     const struct ars_flow_req *r, int ifindex,
			     struct ars_ctx *k)
{
	if (r->family == AF_INET) {
		ars_flow_key4(an, r->src.s6_addr32[0], r->dst.s6_addr32[0],
			      r->proto, r->ports, r->mark, r->tos, ifindex, k);
		return;
	}
	ars_flow_key6(an, &r->src, &r->dst, r->proto, r->ports, r->mark,
		      ifindex, k);
	if (p->flowlabel)
		ars_flow_key_label(an, r->flowlabel, k);
}

/*
 * The entry of key @k, in whichever table holds it: entries of one tag
 * are in one object's table, so the first that matches is the one. An
 * entry in use that holds another flow sets @other.
 */
static bool ars_flow_find(struct ars_net *an, const struct ars_conf *c,
			  const struct ars_ctx *k, struct ars_flow_hit *hit,
			  bool *other)
{
	const struct ars_table *t;
	const struct ars_flow *f;
	unsigned long which;
	u64 state;

	for (which = 0; which <= ARS_OBJECTS_MAX; which++) {
		t = ars_flows_table(an, c, which);
		if (!t)
			continue;
		f = &t->flows[k->key & t->mask];
		state = READ_ONCE(f->state);
		if (!ars_flow_gen(state))
			continue;
		if (READ_ONCE(f->tag) != k->tag ||
		    READ_ONCE(f->key_hi) != ars_flow_key_hi(k->key)) {
			*other = true;
			continue;
		}
		hit->f = f;
		hit->state = state;
		hit->index = k->key & t->mask;
		hit->own = which;
		return true;
	}
	return false;
}

/*
 * The entry of the request's flow, under RCU. Without an input device,
 * that of every device of the namespace is looked for, and the one that
 * saw a packet last wins: the flow as it arrives now.
 */
static int ars_flow_lookup(struct genl_info *info, struct ars_net *an,
			   const struct ars_conf *c,
			   const struct ars_flow_req *r,
			   struct ars_flow_hit *hit)
{
	const struct ars_profile *p = rcu_dereference(an->profile);
	struct net *net = genl_info_net(info);
	bool other = false, found = false;
	struct ars_flow_hit h;
	struct net_device *dev;
	struct ars_ctx k;

	if (!rcu_dereference(an->table) && !c->own_tables) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "no macro-flow table: ars is off");
		return -ENOENT;
	}
	if (r->iif) {
		if (!dev_get_by_index_rcu(net, r->iif)) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    info->attrs[ARS_A_FLOW_IIF],
					    "iif: no such device");
			return -ENODEV;
		}
		ars_flow_req_key(an, p, r, r->iif, &k);
		if (ars_flow_find(an, c, &k, hit, &other)) {
			hit->iif = r->iif;
			return 0;
		}
		if (other)
			NL_SET_ERR_MSG_MOD(info->extack,
					   "no entry holds the flow: its entry holds another flow");
		else
			NL_SET_ERR_MSG_MOD(info->extack,
					   "no entry holds the flow: its entry is empty");
		return -ENOENT;
	}
	for_each_netdev_rcu(net, dev) {
		u64 now;

		ars_flow_req_key(an, p, r, dev->ifindex, &k);
		if (!ars_flow_find(an, c, &k, &h, &other))
			continue;
		h.iif = dev->ifindex;
		now = ktime_get_ns();	/* after both entries' times */
		if (!found || ars_flow_age(h.state, now) <
			      ars_flow_age(hit->state, now))
			*hit = h;
		found = true;
	}
	if (found)
		return 0;
	NL_SET_ERR_MSG_MOD(info->extack,
			   "no entry holds the flow, from any input device");
	return -ENOENT;
}

int ars_flows_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ars_net *an = ars_nl_net(info);
	const struct ars_conf *c;
	struct ars_flow_hit hit;
	struct ars_flow_req r;
	struct sk_buff *msg;
	void *hdr;
	int err;

	err = ars_flow_req_parse(info, &r);
	if (err)
		return err;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = ars_nl_reply_put(msg, info, ARS_CMD_FLOWS_GET);
	if (!hdr) {
		err = -EMSGSIZE;
		goto err_free;
	}

	rcu_read_lock();
	c = rcu_dereference(an->conf);
	err = ars_flow_lookup(info, an, c, &r, &hit);
	if (!err)
		err = ars_flow_put(msg, an, c, hit.own, hit.index, hit.f,
				   hit.state, ktime_get_ns()) ?:
		      nla_put_u32(msg, ARS_A_FLOW_IIF, hit.iif);
	rcu_read_unlock();
	if (err)
		goto err_free;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free:
	nlmsg_free(msg);
	return err;
}

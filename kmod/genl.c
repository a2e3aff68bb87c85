// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "ars": the profile of a namespace, its
 * counters, dumps of the macro-flow table and of the ports, and path
 * assignment events; the commands of objects and bindings are objects.c's.
 * include/uapi/linux/ars.h is the contract and
 * Documentation/netlink/specs/ars.yaml describes it.
 *
 * Every request is validated whole before anything changes, and every
 * refusal says which attribute was wrong in the extended ACK.
 */
#include <linux/ktime.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "ars.h"
#include "key.h"
#include "objects.h"
#include "table.h"

/* Monitor events: at most this many per namespace per window. */
#define ARS_EVENT_BURST		64
#define ARS_EVENT_WINDOW_NS	(100 * NSEC_PER_MSEC)
/* An event's payload: ars_genl_notify_assign()'s five u32 attributes. */
#define ARS_EVENT_SIZE		(5 * nla_total_size(sizeof(u32)))

static struct genl_family ars_genl_family;

/*
 * The data plane may send events only while the family is registered: its
 * multicast group ids are released, and may be reused, once it is not.
 */
static bool ars_genl_live;

struct netlink_range_validation ars_idle_time_range = {
	.min	= ARS_IDLE_TIME_MIN,
	.max	= ARS_IDLE_TIME_MAX,
};

static struct netlink_range_validation ars_table_size_range = {
	.min	= ARS_TABLE_SIZE_MIN,
	.max	= ARS_TABLE_SIZE_MAX,
};

static struct netlink_range_validation ars_flowlet_window_range = {
	.max	= ARS_FLOWLET_WINDOW_MAX,
};

static struct netlink_range_validation ars_fabric_rtt_range = {
	.max	= ARS_FABRIC_RTT_MAX,
};

static struct netlink_range_validation ars_remote_half_life_range = {
	.min	= ARS_REMOTE_HALF_LIFE_MIN,
	.max	= ARS_REMOTE_HALF_LIFE_MAX,
};

static struct netlink_range_validation ars_sampling_range = {
	.min	= ARS_SAMPLING_INTERVAL_MIN,
	.max	= ARS_SAMPLING_INTERVAL_MAX,
};

/*
 * The ranges are the policy's, so that the kernel's own message and the
 * policy's bounds (NLMSGERR_ATTR_POLICY) point at the attribute, which
 * arsctl names; what a range cannot say is checked in the handlers.
 */
static const struct nla_policy ars_profile_policy[ARS_A_PROFILE_MAX + 1] = {
	[ARS_A_PROFILE_STATE]		= NLA_POLICY_MAX(NLA_U8, 1),
	[ARS_A_PROFILE_MODE]		= NLA_POLICY_MAX(NLA_U32, ARS_MODE_MAX),
	[ARS_A_PROFILE_IDLE_TIME]	=
		NLA_POLICY_FULL_RANGE(NLA_U64, &ars_idle_time_range),
	[ARS_A_PROFILE_TABLE_SIZE]	=
		NLA_POLICY_FULL_RANGE(NLA_U32, &ars_table_size_range),
	[ARS_A_PROFILE_IPV4]		= NLA_POLICY_MAX(NLA_U8, 1),
	[ARS_A_PROFILE_IPV6]		= NLA_POLICY_MAX(NLA_U8, 1),
	[ARS_A_PROFILE_SAMPLING_INTERVAL] =
		NLA_POLICY_FULL_RANGE(NLA_U64, &ars_sampling_range),
	[ARS_A_PROFILE_RATE_WEIGHT]	=
		NLA_POLICY_MAX(NLA_U32, ARS_RATE_WEIGHT_MAX),
	[ARS_A_PROFILE_EWMA_SHIFT]	=
		NLA_POLICY_MAX(NLA_U32, ARS_EWMA_SHIFT_MAX),
	[ARS_A_PROFILE_DEFAULT_OBJECT]	= { .type = NLA_NUL_STRING,
					    .len = ARS_OBJECT_NAME_LEN - 1 },
	[ARS_A_PROFILE_FLOWLABEL]	= NLA_POLICY_MAX(NLA_U8, 1),
	[ARS_A_PROFILE_FLOWLET_WINDOW]	=
		NLA_POLICY_FULL_RANGE(NLA_U64, &ars_flowlet_window_range),
	[ARS_A_PROFILE_FABRIC_RTT]	=
		NLA_POLICY_FULL_RANGE(NLA_U64, &ars_fabric_rtt_range),
	[ARS_A_PROFILE_AUTO]		= NLA_POLICY_MASK(NLA_U32, ARS_AUTO_MASK),
	[ARS_A_PROFILE_REMOTE]		= NLA_POLICY_MAX(NLA_U8, 1),
	[ARS_A_PROFILE_REMOTE_HALF_LIFE] =
		NLA_POLICY_FULL_RANGE(NLA_U64, &ars_remote_half_life_range),
};

static int ars_profile_check(struct nlattr **attrs,
			     struct netlink_ext_ack *extack)
{
	const struct nlattr *a = attrs[ARS_A_PROFILE_TABLE_SIZE];
	const struct nlattr *aa = attrs[ARS_A_PROFILE_AUTO];
	u32 autos = aa ? nla_get_u32(aa) : 0;

	if (a && !is_power_of_2(nla_get_u32(a))) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    "table-size must be a power of two from 64 to 1048576");
		return -EINVAL;
	}
	if (((autos & ARS_AUTO_IDLE_TIME) && attrs[ARS_A_PROFILE_IDLE_TIME]) ||
	    ((autos & ARS_AUTO_SAMPLING_INTERVAL) &&
	     attrs[ARS_A_PROFILE_SAMPLING_INTERVAL])) {
		NL_SET_ERR_MSG_ATTR(extack, aa,
				    "auto: a figure both set and made auto");
		return -EINVAL;
	}
	return 0;
}

static void ars_profile_merge(struct ars_profile *p, struct nlattr **a)
{
	if (a[ARS_A_PROFILE_STATE])
		p->state = nla_get_u8(a[ARS_A_PROFILE_STATE]);
	if (a[ARS_A_PROFILE_TABLE_SIZE])
		p->table_size = nla_get_u32(a[ARS_A_PROFILE_TABLE_SIZE]);
	if (a[ARS_A_PROFILE_IPV4])
		p->ipv4 = nla_get_u8(a[ARS_A_PROFILE_IPV4]);
	if (a[ARS_A_PROFILE_IPV6])
		p->ipv6 = nla_get_u8(a[ARS_A_PROFILE_IPV6]);
	if (a[ARS_A_PROFILE_SAMPLING_INTERVAL]) {
		p->sampling_interval =
			nla_get_u64(a[ARS_A_PROFILE_SAMPLING_INTERVAL]);
		p->interval_set = true;
	}
	if (a[ARS_A_PROFILE_AUTO] &&
	    (nla_get_u32(a[ARS_A_PROFILE_AUTO]) & ARS_AUTO_SAMPLING_INTERVAL))
		p->interval_set = false;
	if (a[ARS_A_PROFILE_FABRIC_RTT])
		p->fabric_rtt = nla_get_u64(a[ARS_A_PROFILE_FABRIC_RTT]);
	ars_profile_derive(p);
	if (a[ARS_A_PROFILE_RATE_WEIGHT])
		p->rate_weight = nla_get_u32(a[ARS_A_PROFILE_RATE_WEIGHT]);
	if (a[ARS_A_PROFILE_EWMA_SHIFT])
		p->ewma_shift = nla_get_u32(a[ARS_A_PROFILE_EWMA_SHIFT]);
	if (a[ARS_A_PROFILE_FLOWLABEL])
		p->flowlabel = nla_get_u8(a[ARS_A_PROFILE_FLOWLABEL]);
	if (a[ARS_A_PROFILE_FLOWLET_WINDOW])
		p->flowlet_window =
			nla_get_u64(a[ARS_A_PROFILE_FLOWLET_WINDOW]);
	if (a[ARS_A_PROFILE_REMOTE])
		p->remote = nla_get_u8(a[ARS_A_PROFILE_REMOTE]);
	if (a[ARS_A_PROFILE_REMOTE_HALF_LIFE])
		p->remote_half_life =
			nla_get_u64(a[ARS_A_PROFILE_REMOTE_HALF_LIFE]);
}

static int ars_profile_fill(struct sk_buff *skb, const struct ars_profile *p,
			    const struct ars_conf *c)
{
	u32 autos = ars_conf_profile_auto(c);

	if (!p->interval_set)
		autos |= ARS_AUTO_SAMPLING_INTERVAL;
	if (nla_put_u8(skb, ARS_A_PROFILE_STATE, p->state) ||
	    ars_conf_profile_fill(skb, c) ||
	    nla_put_u32(skb, ARS_A_PROFILE_TABLE_SIZE, p->table_size) ||
	    nla_put_u8(skb, ARS_A_PROFILE_IPV4, p->ipv4) ||
	    nla_put_u8(skb, ARS_A_PROFILE_IPV6, p->ipv6) ||
	    nla_put_u64_64bit(skb, ARS_A_PROFILE_SAMPLING_INTERVAL,
			      p->sampling_interval, ARS_A_PROFILE_PAD) ||
	    nla_put_u32(skb, ARS_A_PROFILE_RATE_WEIGHT, p->rate_weight) ||
	    nla_put_u32(skb, ARS_A_PROFILE_EWMA_SHIFT, p->ewma_shift) ||
	    nla_put_u8(skb, ARS_A_PROFILE_FLOWLABEL, p->flowlabel) ||
	    nla_put_u64_64bit(skb, ARS_A_PROFILE_FLOWLET_WINDOW,
			      p->flowlet_window, ARS_A_PROFILE_PAD) ||
	    nla_put_u64_64bit(skb, ARS_A_PROFILE_FABRIC_RTT, p->fabric_rtt,
			      ARS_A_PROFILE_PAD) ||
	    nla_put_u32(skb, ARS_A_PROFILE_AUTO, autos) ||
	    nla_put_u64_64bit(skb, ARS_A_PROFILE_SIGNAL_TAU,
			      p->tau ?: ARS_SIGNAL_TAU_DEFAULT,
			      ARS_A_PROFILE_PAD) ||
	    nla_put_u8(skb, ARS_A_PROFILE_REMOTE, p->remote) ||
	    nla_put_u64_64bit(skb, ARS_A_PROFILE_REMOTE_HALF_LIFE,
			      p->remote_half_life, ARS_A_PROFILE_PAD))
		return -EMSGSIZE;
	return 0;
}

static int ars_profile_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ars_net *an = ars_pernet(genl_info_net(info));
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &ars_genl_family, 0,
				ARS_CMD_PROFILE_GET);
	if (!hdr)
		goto err_msgsize;

	rcu_read_lock();
	err = ars_profile_fill(msg, rcu_dereference(an->profile),
			       rcu_dereference(an->conf));
	rcu_read_unlock();
	if (err)
		goto err_msgsize;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_msgsize:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

static int ars_profile_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ars_net *an = ars_pernet(genl_info_net(info));
	struct ars_profile np;
	struct ars_conf *nc;
	int err;

	err = ars_profile_check(info->attrs, info->extack);
	if (err)
		return err;

	mutex_lock(&an->lock);
	np = *rcu_dereference_protected(an->profile,
					lockdep_is_held(&an->lock));
	ars_profile_merge(&np, info->attrs);
	/* The objects' idle times follow the new profile's. */
	err = ars_conf_profile_prepare(an, info->attrs, np.auto_idle_time,
				       info->extack, &nc);
	if (err)
		goto out;
	err = ars_profile_apply(an, &np, info->extack);
	ars_conf_profile_commit(an, nc, !err);
out:
	mutex_unlock(&an->lock);
	return err;
}

/* The attribute of each counter. */
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

void *ars_genl_reply_put(struct sk_buff *msg, struct genl_info *info, u8 cmd)
{
	return genlmsg_put_reply(msg, info, &ars_genl_family, 0, cmd);
}

void *ars_genl_dump_put(struct sk_buff *skb, struct netlink_callback *cb,
			u8 cmd)
{
	return genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			   &ars_genl_family, NLM_F_MULTI, cmd);
}

static int ars_stats_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ars_net *an = ars_pernet(genl_info_net(info));
	struct ars_stats st;
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &ars_genl_family, 0,
				ARS_CMD_STATS_GET);
	if (!hdr)
		goto err_msgsize;

	ars_stats_read(an, &st);
	if (ars_stats_put(msg, &st))
		goto err_msgsize;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_msgsize:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

static int ars_stats_reset_doit(struct sk_buff *skb, struct genl_info *info)
{
	ars_stats_reset(ars_pernet(genl_info_net(info)));
	return 0;
}

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
	    nla_put_u64_64bit(skb, ARS_A_FLOW_IDLE, ars_flow_age(state, now),
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

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &ars_genl_family, NLM_F_MULTI, ARS_CMD_FLOWS_GET);
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
static int ars_flows_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ars_net *an = ars_pernet(sock_net(skb->sk));
	u64 now = ktime_get_ns();
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
			if (ars_flow_fill(skb, cb, c, which, i, f, state, now))
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
static const struct nla_policy ars_flow_policy[ARS_A_FLOW_MAX + 1] = {
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
			   const struct ars_flow_req *r, u64 now,
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
		ars_flow_req_key(an, p, r, dev->ifindex, &k);
		if (!ars_flow_find(an, c, &k, &h, &other))
			continue;
		h.iif = dev->ifindex;
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

static int ars_flows_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ars_net *an = ars_pernet(genl_info_net(info));
	const struct ars_conf *c;
	struct ars_flow_hit hit;
	struct ars_flow_req r;
	struct sk_buff *msg;
	void *hdr;
	u64 now;
	int err;

	err = ars_flow_req_parse(info, &r);
	if (err)
		return err;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &ars_genl_family, 0,
				ARS_CMD_FLOWS_GET);
	if (!hdr) {
		err = -EMSGSIZE;
		goto err_free;
	}

	rcu_read_lock();
	c = rcu_dereference(an->conf);
	now = ktime_get_ns();
	err = ars_flow_lookup(info, an, c, &r, now, &hit);
	if (!err)
		err = ars_flow_put(msg, an, c, hit.own, hit.index, hit.f,
				   hit.state, now) ?:
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

static int ars_path_fill(struct sk_buff *skb, struct netlink_callback *cb,
			 const struct net_device *dev,
			 const struct ars_port *port)
{
	struct ars_port_pcpu sum = {};
	struct ars_port_quality pq;
	void *hdr;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct ars_port_pcpu *pc = per_cpu_ptr(port->pcpu, cpu);

		sum.packets += READ_ONCE(pc->packets);
		sum.bytes += READ_ONCE(pc->bytes);
		sum.flowlets += READ_ONCE(pc->flowlets);
	}
	ars_port_quality(port, ktime_get_ns(), &pq);

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &ars_genl_family, NLM_F_MULTI, ARS_CMD_PATHS_GET);
	if (!hdr)
		return -EMSGSIZE;
	genl_dump_check_consistent(cb, hdr);
	if (nla_put_u32(skb, ARS_A_PATH_IFINDEX, port->ifindex) ||
	    nla_put_string(skb, ARS_A_PATH_IFNAME, dev->name) ||
	    nla_put_u8(skb, ARS_A_PATH_QDISC, pq.measured) ||
	    nla_put_u64_64bit(skb, ARS_A_PATH_BANDWIDTH, pq.bandwidth,
			      ARS_A_PATH_PAD) ||
	    nla_put_u64_64bit(skb, ARS_A_PATH_RATE, pq.rate, ARS_A_PATH_PAD) ||
	    nla_put_u64_64bit(skb, ARS_A_PATH_BACKLOG, pq.backlog,
			      ARS_A_PATH_PAD) ||
	    nla_put_u64_64bit(skb, ARS_A_PATH_DELAY, pq.delay,
			      ARS_A_PATH_PAD) ||
	    nla_put_u32(skb, ARS_A_PATH_UTIL,
			ars_util_permille(pq.rate, pq.bandwidth)) ||
	    nla_put_u32(skb, ARS_A_PATH_BAND, pq.band) ||
	    nla_put_u64_64bit(skb, ARS_A_PATH_PACKETS, sum.packets,
			      ARS_A_PATH_PAD) ||
	    nla_put_u64_64bit(skb, ARS_A_PATH_BYTES, sum.bytes,
			      ARS_A_PATH_PAD) ||
	    nla_put_u64_64bit(skb, ARS_A_PATH_FLOWLETS, sum.flowlets,
			      ARS_A_PATH_PAD)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* One port of a paths dump; false when the message is full. */
static bool ars_path_dump_one(struct sk_buff *skb, struct netlink_callback *cb,
			      struct net *net, struct ars_port *port)
{
	struct net_device *dev = dev_get_by_index_rcu(net, port->ifindex);

	return !dev || (dev->flags & IFF_LOOPBACK) ||
	       !ars_path_fill(skb, cb, dev, port);
}

/*
 * cb->args[0]: the ifindex to go on from. A port added or removed between
 * two passes flags the dump.
 */
static int ars_paths_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	struct ars_net *an = ars_pernet(net);
	unsigned long i = cb->args[0];
	struct ars_port *port;

	cb->seq = READ_ONCE(an->ports_seq);
	rcu_read_lock();
	for (; i < ARRAY_SIZE(an->ports); i++) {
		port = rcu_dereference(an->ports[i]);
		if (port && !ars_path_dump_one(skb, cb, net, port))
			goto out;
	}
	xa_for_each_start(&an->ports_far, i, port, i) {
		if (!ars_path_dump_one(skb, cb, net, port))
			goto out;
	}
	i = ULONG_MAX;
out:
	cb->args[0] = i;
	rcu_read_unlock();
	return skb->len;
}

/*
 * A path assignment event for the "monitor" group. Called from the data
 * plane: nothing is built without a listener, and at most ARS_EVENT_BURST
 * events leave a namespace per ARS_EVENT_WINDOW_NS (racy by design: the
 * limit is approximate across CPUs).
 */
void ars_genl_notify_assign(struct ars_net *an, u32 flow, int family,
			    int old_ifindex, int new_ifindex, u8 reason)
{
	u64 now;
	struct sk_buff *msg;
	void *hdr;

	if (!READ_ONCE(ars_genl_live) ||
	    !genl_has_listeners(&ars_genl_family, an->net, 0))
		return;
	now = ktime_get_ns();
	/* Signed: another CPU may have opened a window after @now. */
	if ((s64)(now - READ_ONCE(an->event.stamp)) > ARS_EVENT_WINDOW_NS) {
		WRITE_ONCE(an->event.stamp, now);
		WRITE_ONCE(an->event.burst, 0);
	}
	if (READ_ONCE(an->event.burst) >= ARS_EVENT_BURST)
		return;
	WRITE_ONCE(an->event.burst, READ_ONCE(an->event.burst) + 1);

	msg = genlmsg_new(ARS_EVENT_SIZE, GFP_ATOMIC);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &ars_genl_family, 0, ARS_CMD_PATH_ASSIGN);
	if (!hdr ||
	    nla_put_u32(msg, ARS_A_EVENT_FLOW, flow) ||
	    nla_put_u32(msg, ARS_A_EVENT_OLD_IFINDEX, old_ifindex) ||
	    nla_put_u32(msg, ARS_A_EVENT_NEW_IFINDEX, new_ifindex) ||
	    nla_put_u32(msg, ARS_A_EVENT_REASON, reason) ||
	    nla_put_u32(msg, ARS_A_EVENT_FAMILY, family)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast_netns(&ars_genl_family, an->net, msg, 0, 0,
				GFP_ATOMIC);
}

static const struct genl_ops ars_genl_ops[] = {
	{
		.cmd	= ARS_CMD_PROFILE_GET,
		.doit	= ars_profile_get_doit,
	},
	{
		.cmd	= ARS_CMD_PROFILE_SET,
		.doit	= ars_profile_set_doit,
		.policy	= ars_profile_policy,
		.maxattr = ARS_A_PROFILE_MAX,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= ARS_CMD_STATS_GET,
		.doit	= ars_stats_get_doit,
	},
	{
		.cmd	= ARS_CMD_STATS_RESET,
		.doit	= ars_stats_reset_doit,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= ARS_CMD_FLOWS_GET,
		.doit	= ars_flows_get_doit,
		.dumpit	= ars_flows_dumpit,
		.policy	= ars_flow_policy,
		.maxattr = ARS_A_FLOW_MAX,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= ARS_CMD_PATHS_GET,
		.dumpit	= ars_paths_dumpit,
	},
	{
		.cmd	= ARS_CMD_OBJECT_NEW,
		.doit	= ars_object_new_doit,
		.policy	= ars_object_policy,
		.maxattr = ARS_A_OBJECT_MAX,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= ARS_CMD_OBJECT_SET,
		.doit	= ars_object_set_doit,
		.policy	= ars_object_policy,
		.maxattr = ARS_A_OBJECT_MAX,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= ARS_CMD_OBJECT_DEL,
		.doit	= ars_object_del_doit,
		.policy	= ars_object_policy,
		.maxattr = ARS_A_OBJECT_MAX,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= ARS_CMD_OBJECT_GET,
		.doit	= ars_object_get_doit,
		.dumpit	= ars_object_get_dumpit,
		.policy	= ars_object_policy,
		.maxattr = ARS_A_OBJECT_MAX,
	},
	{
		.cmd	= ARS_CMD_BIND_NEW,
		.doit	= ars_bind_new_doit,
		.policy	= ars_bind_policy,
		.maxattr = ARS_A_BIND_MAX,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= ARS_CMD_BIND_DEL,
		.doit	= ars_bind_del_doit,
		.policy	= ars_bind_policy,
		.maxattr = ARS_A_BIND_MAX,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= ARS_CMD_BIND_GET,
		.dumpit	= ars_bind_get_dumpit,
		.policy	= ars_bind_policy,
		.maxattr = ARS_A_BIND_MAX,
	},
	{
		.cmd	= ARS_CMD_PORT_ENABLE,
		.doit	= ars_port_enable_doit,
		.policy	= ars_port_policy,
		.maxattr = ARS_A_PORT_MAX,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= ARS_CMD_PORT_DISABLE,
		.doit	= ars_port_disable_doit,
		.policy	= ars_port_policy,
		.maxattr = ARS_A_PORT_MAX,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= ARS_CMD_PORT_GET,
		.dumpit	= ars_port_get_dumpit,
		.policy	= ars_port_policy,
		.maxattr = ARS_A_PORT_MAX,
	},
	{
		.cmd	= ARS_CMD_ALTERNATE_NEW,
		.doit	= ars_alternate_new_doit,
		.policy	= ars_alternate_policy,
		.maxattr = ARS_A_ALTERNATE_MAX,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= ARS_CMD_ALTERNATE_DEL,
		.doit	= ars_alternate_del_doit,
		.policy	= ars_alternate_policy,
		.maxattr = ARS_A_ALTERNATE_MAX,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
};

static const struct genl_multicast_group ars_mcgrps[] = {
	/* Events tell flows and devices, as the flows dump does. */
	{ .name = ARS_MCGRP_MONITOR, .flags = GENL_MCAST_CAP_NET_ADMIN, },
};

static struct genl_family ars_genl_family __ro_after_init = {
	.name		= ARS_GENL_NAME,
	.version	= ARS_GENL_VERSION,
	.netnsok	= true,
	.module		= THIS_MODULE,
	.ops		= ars_genl_ops,
	.n_ops		= ARRAY_SIZE(ars_genl_ops),
	.resv_start_op	= ARS_CMD_PROFILE_GET,
	.mcgrps		= ars_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(ars_mcgrps),
};

int ars_genl_init(void)
{
	int err;

	err = genl_register_family(&ars_genl_family);
	if (!err)
		WRITE_ONCE(ars_genl_live, true);
	return err;
}

void ars_genl_uninit(void)
{
	WRITE_ONCE(ars_genl_live, false);
	/* The hooks run under RCU: none still sees the family live. */
	synchronize_net();
	genl_unregister_family(&ars_genl_family);
}

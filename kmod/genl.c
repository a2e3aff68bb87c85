// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "ars": the profile of a namespace, its
 * counters, dumps of the ports, and path assignment events; flows-get is
 * nl_flows.c's, the commands of objects nl_objects.c's, those of bindings,
 * interfaces and alternates nl_binds.c's.
 * include/uapi/linux/ars.h is the contract and
 * Documentation/netlink/specs/ars.yaml describes it.
 *
 * Every request is validated whole before anything changes, and every
 * refusal says which attribute was wrong in the extended ACK.
 */
#include <linux/ars.h>
#include <linux/ktime.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "ars_core.h"
#include "genl.h"
#include "netns.h"
#include "nl.h"
#include "nl_gen.h"
#include "objects.h"
#include "ports.h"
#include "profile.h"
#include "quality.h"
#include "stats.h"

/* Monitor events: at most this many per namespace per window. */
#define ARS_EVENT_BURST		64
#define ARS_EVENT_WINDOW_NS	(100 * NSEC_PER_MSEC)
/* An event's payload: ars_genl_notify_assign()'s five u32 attributes. */
#define ARS_EVENT_SIZE		(5 * nla_total_size(sizeof(u32)))

/*
 * The data plane may send events only while the family is registered: its
 * multicast group ids are released, and may be reused, once it is not.
 */
bool ars_genl_live;

/*
 * Whether a socket ever joined the monitor group since the module was
 * loaded: set by the group's bind callback, which every subscription runs
 * (bind() or NETLINK_ADD_MEMBERSHIP) before it is made, and never
 * cleared: an unsubscription cannot be counted against the joins (the
 * kernel calls unbind for a group that a socket drops without having
 * joined it). Until then a new flowlet asks no more; after, it asks
 * netlink_has_listeners() as before. Without the callback (6.1), always
 * set, and not read (ars_genl_monitored()).
 */
bool ars_genl_joined = !ARS_GENL_BIND;

#if ARS_GENL_BIND
static int ars_genl_bind(int mcgrp)
{
	if (!READ_ONCE(ars_genl_joined))
		WRITE_ONCE(ars_genl_joined, true);
	return 0;
}
#endif

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
	     attrs[ARS_A_PROFILE_SAMPLING_INTERVAL]) ||
	    ((autos & ARS_AUTO_FLOWLET_WINDOW) &&
	     attrs[ARS_A_PROFILE_FLOWLET_WINDOW])) {
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
	if (a[ARS_A_PROFILE_FLOWLET_WINDOW]) {
		p->flowlet_window =
			nla_get_u64(a[ARS_A_PROFILE_FLOWLET_WINDOW]);
		p->window_set = true;
	}
	if (a[ARS_A_PROFILE_AUTO] &&
	    (nla_get_u32(a[ARS_A_PROFILE_AUTO]) & ARS_AUTO_SAMPLING_INTERVAL))
		p->interval_set = false;
	if (a[ARS_A_PROFILE_AUTO] &&
	    (nla_get_u32(a[ARS_A_PROFILE_AUTO]) & ARS_AUTO_FLOWLET_WINDOW))
		p->window_set = false;
	if (a[ARS_A_PROFILE_FABRIC_RTT])
		p->fabric_rtt = nla_get_u64(a[ARS_A_PROFILE_FABRIC_RTT]);
	ars_profile_derive(p);
	if (a[ARS_A_PROFILE_RATE_WEIGHT])
		p->rate_weight = nla_get_u32(a[ARS_A_PROFILE_RATE_WEIGHT]);
	if (a[ARS_A_PROFILE_EWMA_SHIFT])
		p->ewma_shift = nla_get_u32(a[ARS_A_PROFILE_EWMA_SHIFT]);
	if (a[ARS_A_PROFILE_FLOWLABEL])
		p->flowlabel = nla_get_u8(a[ARS_A_PROFILE_FLOWLABEL]);
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
	if (!p->window_set)
		autos |= ARS_AUTO_FLOWLET_WINDOW;
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
	struct ars_net *an = ars_nl_net(info);
	struct ars_profile np;
	struct ars_conf *nc;
	int err;

	err = ars_profile_check(info->attrs, info->extack);
	if (err)
		return err;

	np = *rcu_dereference_protected(an->profile,
					lockdep_is_held(&an->lock));
	ars_profile_merge(&np, info->attrs);
	/* The objects' idle times follow the new profile's. */
	err = ars_conf_profile_prepare(an, info->attrs, np.auto_idle_time,
				       info->extack, &nc);
	if (err)
		return err;
	err = ars_profile_apply(an, &np, info->extack);
	ars_conf_profile_commit(an, nc, !err);
	return err;
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

static int ars_port_info_fill(struct sk_buff *skb,
			      struct netlink_callback *cb,
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
			  &ars_genl_family, NLM_F_MULTI, ARS_CMD_PORT_INFO_GET);
	if (!hdr)
		return -EMSGSIZE;
	genl_dump_check_consistent(cb, hdr);
	if (nla_put_u32(skb, ARS_A_PORT_INFO_IFINDEX, port->ifindex) ||
	    nla_put_string(skb, ARS_A_PORT_INFO_IFNAME, dev->name) ||
	    nla_put_u8(skb, ARS_A_PORT_INFO_QDISC, pq.measured) ||
	    nla_put_u64_64bit(skb, ARS_A_PORT_INFO_BANDWIDTH, pq.bandwidth,
			      ARS_A_PORT_INFO_PAD) ||
	    nla_put_u64_64bit(skb, ARS_A_PORT_INFO_RATE, pq.rate,
			      ARS_A_PORT_INFO_PAD) ||
	    nla_put_u64_64bit(skb, ARS_A_PORT_INFO_BACKLOG, pq.backlog,
			      ARS_A_PORT_INFO_PAD) ||
	    nla_put_u64_64bit(skb, ARS_A_PORT_INFO_DELAY, pq.delay,
			      ARS_A_PORT_INFO_PAD) ||
	    nla_put_u32(skb, ARS_A_PORT_INFO_UTIL,
			ars_util_permille(pq.rate, pq.bandwidth)) ||
	    nla_put_u32(skb, ARS_A_PORT_INFO_BAND, pq.band) ||
	    nla_put_u64_64bit(skb, ARS_A_PORT_INFO_PACKETS, sum.packets,
			      ARS_A_PORT_INFO_PAD) ||
	    nla_put_u64_64bit(skb, ARS_A_PORT_INFO_BYTES, sum.bytes,
			      ARS_A_PORT_INFO_PAD) ||
	    nla_put_u64_64bit(skb, ARS_A_PORT_INFO_FLOWLETS, sum.flowlets,
			      ARS_A_PORT_INFO_PAD)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* One port of a port-info dump; false when the message is full. */
static bool ars_port_info_dump_one(struct sk_buff *skb,
				   struct netlink_callback *cb,
				   struct net *net, struct ars_port *port)
{
	struct net_device *dev = dev_get_by_index_rcu(net, port->ifindex);

	return !dev || (dev->flags & IFF_LOOPBACK) ||
	       !ars_port_info_fill(skb, cb, dev, port);
}

/*
 * cb->args[0]: the ifindex to go on from. A port added or removed between
 * two passes flags the dump.
 */
static int ars_port_info_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	struct ars_net *an = ars_pernet(net);
	unsigned long i = cb->args[0];
	struct ars_port *port;

	cb->seq = READ_ONCE(an->ports_seq);
	rcu_read_lock();
	for (; i < ARRAY_SIZE(an->ports); i++) {
		port = rcu_dereference(an->ports[i]);
		if (port && !ars_port_info_dump_one(skb, cb, net, port))
			goto out;
	}
	xa_for_each_start(&an->ports_far, i, port, i) {
		if (!ars_port_info_dump_one(skb, cb, net, port))
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
 * plane once ars_genl_monitored() said there is a listener, and at most ARS_EVENT_BURST
 * events leave a namespace per ARS_EVENT_WINDOW_NS (racy by design: the
 * limit is approximate across CPUs).
 */
void ars_genl_notify_assign(struct ars_net *an, u32 flow, int family,
			    int old_ifindex, int new_ifindex, u8 reason)
{
	u64 now;
	struct sk_buff *msg;
	void *hdr;

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

/*
 * The op table is ours, full genl_ops rather than the split ones that
 * YNL's generator writes: 6.1 has no split ops, and ours carry the
 * handlers' lock flag. The policies of profile-set, the object and the
 * interface commands are generated from the spec (nl_gen.c, by
 * scripts/nl-gen.sh); those of flows-get, the bind and the alternate
 * commands are not (the script says why) and stay in nl_flows.c and
 * nl_binds.c. object-del, object-get and interface-get keep the policy of
 * their attribute set's widest request, object-new's and interface-enable's,
 * as they did before the policies were generated: what they accept did
 * not change. A range is the policy's, so that the kernel's own message
 * and the policy's bounds (NLMSGERR_ATTR_POLICY) point at the attribute,
 * which arsctl names; what a range cannot say is checked in the handlers.
 */
static const struct genl_ops ars_genl_ops[] = {
	{
		.cmd	= ARS_CMD_PROFILE_GET,
		.doit	= ars_profile_get_doit,
	},
	{
		.cmd	= ARS_CMD_PROFILE_SET,
		.doit	= ars_profile_set_doit,
		.policy	= ars_profile_set_nl_policy,
		.maxattr = ARRAY_SIZE(ars_profile_set_nl_policy) - 1,
		.flags	= GENL_UNS_ADMIN_PERM,
		.internal_flags = ARS_NL_LOCKED,
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
		.cmd	= ARS_CMD_PORT_INFO_GET,
		.dumpit	= ars_port_info_dumpit,
	},
	{
		.cmd	= ARS_CMD_OBJECT_NEW,
		.doit	= ars_object_new_doit,
		.policy	= ars_object_new_nl_policy,
		.maxattr = ARRAY_SIZE(ars_object_new_nl_policy) - 1,
		.flags	= GENL_UNS_ADMIN_PERM,
		.internal_flags = ARS_NL_LOCKED,
	},
	{
		.cmd	= ARS_CMD_OBJECT_SET,
		.doit	= ars_object_set_doit,
		.policy	= ars_object_set_nl_policy,
		.maxattr = ARRAY_SIZE(ars_object_set_nl_policy) - 1,
		.flags	= GENL_UNS_ADMIN_PERM,
		.internal_flags = ARS_NL_LOCKED,
	},
	{
		.cmd	= ARS_CMD_OBJECT_DEL,
		.doit	= ars_object_del_doit,
		.policy	= ars_object_new_nl_policy,
		.maxattr = ARRAY_SIZE(ars_object_new_nl_policy) - 1,
		.flags	= GENL_UNS_ADMIN_PERM,
		.internal_flags = ARS_NL_LOCKED,
	},
	{
		.cmd	= ARS_CMD_OBJECT_GET,
		.doit	= ars_object_get_doit,
		.dumpit	= ars_object_get_dumpit,
		.policy	= ars_object_new_nl_policy,
		.maxattr = ARRAY_SIZE(ars_object_new_nl_policy) - 1,
	},
	{
		.cmd	= ARS_CMD_BIND_NEW,
		.doit	= ars_bind_new_doit,
		.policy	= ars_bind_policy,
		.maxattr = ARS_A_BIND_MAX,
		.flags	= GENL_UNS_ADMIN_PERM,
		.internal_flags = ARS_NL_LOCKED,
	},
	{
		.cmd	= ARS_CMD_BIND_DEL,
		.doit	= ars_bind_del_doit,
		.policy	= ars_bind_policy,
		.maxattr = ARS_A_BIND_MAX,
		.flags	= GENL_UNS_ADMIN_PERM,
		.internal_flags = ARS_NL_LOCKED,
	},
	{
		.cmd	= ARS_CMD_BIND_GET,
		.dumpit	= ars_bind_get_dumpit,
		.policy	= ars_bind_policy,
		.maxattr = ARS_A_BIND_MAX,
	},
	{
		.cmd	= ARS_CMD_INTERFACE_ENABLE,
		.doit	= ars_interface_enable_doit,
		.policy	= ars_interface_enable_nl_policy,
		.maxattr = ARRAY_SIZE(ars_interface_enable_nl_policy) - 1,
		.flags	= GENL_UNS_ADMIN_PERM,
		.internal_flags = ARS_NL_LOCKED,
	},
	{
		.cmd	= ARS_CMD_INTERFACE_DISABLE,
		.doit	= ars_interface_disable_doit,
		.policy	= ars_interface_disable_nl_policy,
		.maxattr = ARRAY_SIZE(ars_interface_disable_nl_policy) - 1,
		.flags	= GENL_UNS_ADMIN_PERM,
		.internal_flags = ARS_NL_LOCKED,
	},
	{
		.cmd	= ARS_CMD_INTERFACE_GET,
		.dumpit	= ars_interface_get_dumpit,
		.policy	= ars_interface_enable_nl_policy,
		.maxattr = ARRAY_SIZE(ars_interface_enable_nl_policy) - 1,
	},
	{
		.cmd	= ARS_CMD_ALTERNATE_NEW,
		.doit	= ars_alternate_new_doit,
		.policy	= ars_alternate_policy,
		.maxattr = ARS_A_ALTERNATE_MAX,
		.flags	= GENL_UNS_ADMIN_PERM,
		.internal_flags = ARS_NL_LOCKED,
	},
	{
		.cmd	= ARS_CMD_ALTERNATE_DEL,
		.doit	= ars_alternate_del_doit,
		.policy	= ars_alternate_policy,
		.maxattr = ARS_A_ALTERNATE_MAX,
		.flags	= GENL_UNS_ADMIN_PERM,
		.internal_flags = ARS_NL_LOCKED,
	},
};

/*
 * What every handler needs (nl.h): the family, the namespace, and for a
 * change its lock, held from here to ars_nl_post_doit().
 */
static int ars_nl_pre_doit(const struct ars_genl_doit_ops *ops,
			   struct sk_buff *skb, struct genl_info *info)
{
	struct ars_net *an = ars_pernet(genl_info_net(info));

	info->user_ptr[0] = &ars_genl_family;
	info->user_ptr[1] = an;
	if (ops->internal_flags & ARS_NL_LOCKED)
		mutex_lock(&an->lock);
	return 0;
}

static void ars_nl_post_doit(const struct ars_genl_doit_ops *ops,
			     struct sk_buff *skb, struct genl_info *info)
{
	struct ars_net *an = ars_nl_net(info);

	if (ops->internal_flags & ARS_NL_LOCKED)
		mutex_unlock(&an->lock);
}

static const struct genl_multicast_group ars_mcgrps[] = {
	/* Events tell flows and devices, as the flows dump does. */
	{ .name = ARS_MCGRP_MONITOR, .flags = GENL_MCAST_CAP_NET_ADMIN, },
};

struct genl_family ars_genl_family __ro_after_init = {
	.name		= ARS_GENL_NAME,
	.version	= ARS_GENL_VERSION,
	.netnsok	= true,
	.module		= THIS_MODULE,
	.ops		= ars_genl_ops,
	.n_ops		= ARRAY_SIZE(ars_genl_ops),
	.pre_doit	= ars_nl_pre_doit,
	.post_doit	= ars_nl_post_doit,
	.mcgrps		= ars_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(ars_mcgrps),
#if ARS_GENL_BIND
	.bind		= ars_genl_bind,
#endif
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

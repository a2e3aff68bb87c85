// SPDX-License-Identifier: GPL-2.0
/*
 * The data plane: a netfilter hook at the end of PRE_ROUTING, in every
 * namespace, for IPv4 and IPv6.
 *
 * For a forwarded packet whose route is multipath it computes the packet's
 * own flow key (never the incoming skb->hash: a veth carries the previous
 * router's value, and a NIC's RSS hash is the same on every router), finds
 * its macro-flow entry, lets the core choose a next hop by mode, and then
 * steers the kernel's own multipath selection to that next hop by setting an
 * L4 skb hash inside the next hop's range. The kernel's forwarding path does
 * the rest. With net.ipv{4,6}.fib_multipath_hash_policy=1 the kernel uses an
 * L4 skb hash as the multipath hash as it is; with any other policy it
 * ignores it, so such packets are counted as unsteered and pass untouched.
 *
 * No locks, no allocation: the profile and the table are read under RCU
 * (netfilter hooks run inside rcu_read_lock()), counters are per CPU, and
 * entries are written with one WRITE_ONCE().
 */
#include <linux/icmp.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/prandom.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/dst_metadata.h>

#include "ars.h"
#include "route.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

/*
 * Random numbers for the random modes, per CPU: cheap, and the hook runs
 * with bottom halves off, so this CPU's state is ours.
 */
static DEFINE_PER_CPU(struct rnd_state, ars_rnd);

/* Words of an IPv6 key: two addresses, then protocol and ports. */
#define ARS_KEY_WORDS	10

static bool ars_l4_ports(u8 proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
	       proto == IPPROTO_SCTP || proto == IPPROTO_UDPLITE;
}

static u32 ars_key4(const struct ars_net *an, const struct sk_buff *skb)
{
	const struct iphdr *iph = ip_hdr(skb);
	u32 w[4], ports = 0, *pp, _ports;

	w[0] = (__force u32)iph->saddr;
	w[1] = (__force u32)iph->daddr;
	w[2] = iph->protocol;
	if (!ip_is_fragment(iph) && ars_l4_ports(iph->protocol)) {
		pp = skb_header_pointer(skb, skb_network_offset(skb) +
					iph->ihl * 4, sizeof(_ports), &_ports);
		if (pp)
			ports = *pp;
	}
	w[3] = ports;
	return ars_flow_key(w, 4, an->seed);
}

static u32 ars_key6(const struct ars_net *an, const struct sk_buff *skb)
{
	const struct ipv6hdr *iph = ipv6_hdr(skb);
	u32 w[ARS_KEY_WORDS], ports = 0, *pp, _ports;

	memcpy(&w[0], &iph->saddr, sizeof(iph->saddr));
	memcpy(&w[4], &iph->daddr, sizeof(iph->daddr));
	w[8] = iph->nexthdr;
	/* Ports only without extension headers; fragments and the rest hash
	 * by addresses.
	 */
	if (ars_l4_ports(iph->nexthdr)) {
		pp = skb_header_pointer(skb, skb_network_offset(skb) +
					sizeof(*iph), sizeof(_ports), &_ports);
		if (pp)
			ports = *pp;
	}
	w[9] = ports;
	return ars_flow_key(w, ARS_KEY_WORDS, an->seed);
}

static bool ars_hash_policy_l4(const struct net *net, int family)
{
	if (family == AF_INET)
		return READ_ONCE(net->ipv4.sysctl_fib_multipath_hash_policy) == 1;
#if IS_ENABLED(CONFIG_IPV6)
	return ip6_multipath_hash_policy(net) == 1;
#else
	return false;
#endif
}

/* The measured port of usable path @i, or NULL. */
static const struct ars_port *ars_path_port(struct ars_net *an,
					    const struct ars_route *r,
					    const struct ars_route_ctx *rc,
					    unsigned int i)
{
	const struct ars_port *port;

	if (!ars_path_usable(r, i))
		return NULL;
	port = ars_port_find(an, ars_route_ifindex(rc, i));
	return port && ars_port_measured(port) ? port : NULL;
}

/*
 * Fill the paths' bands, each relative to the other usable paths' ports;
 * false when one of the usable ones is not measured. Runs only when a path
 * is to be chosen, so looking the ports up twice costs less than carrying
 * their loads for up to ARS_MAX_PATHS paths on the stack.
 */
static bool ars_fill_bands(struct ars_net *an, struct ars_route *r,
			   const struct ars_route_ctx *rc, u64 now,
			   u32 rate_weight)
{
	struct ars_route_load rl = { .rate_weight = rate_weight };
	const struct ars_port *port;
	struct ars_path_load pl;
	bool known = true;
	unsigned int i;

	for (i = 0; i < r->n; i++) {
		r->path[i].band = ARS_BAND_UNKNOWN;
		port = ars_path_port(an, r, rc, i);
		if (!port) {
			known &= !ars_path_usable(r, i);
			continue;
		}
		ars_port_load(port, now, &pl);
		ars_route_load_add(&rl, &pl);
	}
	for (i = 0; i < r->n; i++) {
		port = ars_path_port(an, r, rc, i);
		if (!port)
			continue;
		ars_port_load(port, now, &pl);
		r->path[i].band = ars_path_band(&pl, &rl);
	}
	return known;
}

static void ars_port_set_gateway(struct ars_port *port,
				 const struct fib_nh_common *nhc)
{
	u8 family = nhc->nhc_gw_family;

	if (family == AF_INET6)
		port->gw = nhc->nhc_gw.ipv6;
	else if (family == AF_INET)
		port->gw.s6_addr32[0] = nhc->nhc_gw.ipv4;
	WRITE_ONCE(port->gw_family, family);
}

/* What ars steered to the egress device of path @i. */
static void ars_account(struct ars_net *an, const struct ars_route_ctx *rc,
			unsigned int i, const struct sk_buff *skb,
			bool flowlet)
{
	struct ars_port *port = ars_port_find(an, ars_route_ifindex(rc, i));
	struct ars_port_pcpu *pc;

	if (!port)
		return;
	pc = this_cpu_ptr(port->pcpu);
	pc->packets++;
	pc->bytes += skb->len;
	if (flowlet) {
		pc->flowlets++;
		/* Once per flowlet; a dump may see a gateway half written. */
		ars_port_set_gateway(port, rc->nhc[i]);
	}
}

static void ars_flowlet_started(struct ars_net *an, struct ars_flow *f,
				u32 index, const struct ars_result *res,
				int new_ifindex, int family)
{
	int old_ifindex = res->old_path == ARS_PATH_NONE ? 0 : f->ifindex;

	ars_stat_inc(an, ARS_STAT_FLOWLETS);
	if (res->reason == ARS_REASON_FAILOVER)
		ars_stat_inc(an, ARS_STAT_FAILOVERS);
	if (old_ifindex && old_ifindex != new_ifindex)
		ars_stat_inc(an, ARS_STAT_REASSIGNMENTS);
	WRITE_ONCE(f->ifindex, new_ifindex);

	trace_ars_path_assign(an->net, index, old_ifindex, new_ifindex,
			      res->reason);
	ars_genl_notify_assign(an, index, family, old_ifindex, new_ifindex,
			       res->reason);
}

/* An active entry of a replaced route keeps its device if it can. */
static bool ars_flowlet_carry(struct ars_flow *f, const struct ars_route *r,
			      const struct ars_route_ctx *rc,
			      const struct ars_ctx *c, struct ars_result *res)
{
	u16 gen = ars_flow_gen(READ_ONCE(f->state));

	if (!gen || gen == r->gen)
		return false;
	return ars_flowlet_adopt(f, r, c,
				 ars_route_find_dev(r, rc, READ_ONCE(f->ifindex)),
				 res);
}

static unsigned int ars_steer(struct ars_net *an, const struct ars_profile *p,
			      struct sk_buff *skb, int family)
{
	struct ars_route_ctx rc;
	struct ars_route r;
	struct ars_result res;
	struct ars_flow *f = NULL;
	struct ars_table *t;
	struct ars_ctx c;
	u32 hash, index = 0;
	bool known = true;
	int err;

	if (family == AF_INET)
		err = ars_route4(an->net, skb, &r, &rc);
	else
		err = ars_route6(an->net, skb, &r, &rc);
	if (err == -ENOENT) {
		ars_stat_inc(an, ARS_STAT_SINGLEPATH);
		return NF_ACCEPT;
	}
	ars_stat_inc(an, ARS_STAT_PACKETS);
	if (err || !ars_hash_policy_l4(an->net, family))
		goto unsteered;

	c.mode = p->mode;
	c.key = family == AF_INET ? ars_key4(an, skb) : ars_key6(an, skb);
	c.now = ktime_get_ns();
	c.idle = p->idle_time;
	c.ticket = c.mode == ARS_MODE_PACKET_ROUNDROBIN ?
		   (u32)atomic_inc_return(&an->ticket) : 0;
	if (c.mode == ARS_MODE_FLOWLET_RANDOM ||
	    c.mode == ARS_MODE_FLOWLET_QUALITY) {
		t = rcu_dereference(an->table);
		if (unlikely(!t))
			goto unsteered;
		index = c.key & t->mask;
		f = &t->flows[index];
	}

	/* Quality and a random number only when a path is to be chosen. */
	if (f && (ars_flowlet_continue(f, &r, &c, &res) ||
		  ars_flowlet_carry(f, &r, &rc, &c, &res)))
		goto steer;
	c.rand = prandom_u32_state(this_cpu_ptr(&ars_rnd));
	if (c.mode == ARS_MODE_PACKET_QUALITY ||
	    c.mode == ARS_MODE_FLOWLET_QUALITY)
		known = ars_fill_bands(an, &r, &rc, c.now,
				       p->rate_weight);
	if (f) {
		ars_flowlet_start(f, &r, &c, &res);
	} else {
		res.path = ars_choose(&r, &c);
		res.assigned = false;
	}

steer:
	if (res.path == ARS_PATH_NONE ||
	    !ars_route_steer_hash(&r, &rc, res.path, c.key, &hash))
		goto unsteered;

	if (res.assigned)
		ars_flowlet_started(an, f, index, &res,
				    ars_route_ifindex(&rc, res.path), family);
	if (!known)
		ars_stat_inc(an, ARS_STAT_UNKNOWN_QUALITY);
	skb_set_hash(skb, hash, PKT_HASH_TYPE_L4);
	ars_stat_inc(an, ARS_STAT_STEERED);
	ars_account(an, &rc, res.path, skb, res.assigned);
	return NF_ACCEPT;

unsteered:
	ars_stat_inc(an, ARS_STAT_UNSTEERED);
	return NF_ACCEPT;
}

static bool ars_forwarded(const struct sk_buff *skb)
{
	/* Only packets for another host are routed as forwarded; a packet
	 * that already has a route (early demux) is delivered locally.
	 */
	return skb->pkt_type == PACKET_HOST && !skb_valid_dst(skb);
}

static unsigned int ars_hook4(void *priv, struct sk_buff *skb,
			      const struct nf_hook_state *state)
{
	struct ars_net *an = ars_pernet(state->net);
	const struct ars_profile *p = rcu_dereference(an->profile);

	if (!p->state || !p->ipv4 || p->mode == ARS_MODE_ECMP ||
	    !ars_forwarded(skb))
		return NF_ACCEPT;
	return ars_steer(an, p, skb, AF_INET);
}

static unsigned int ars_hook6(void *priv, struct sk_buff *skb,
			      const struct nf_hook_state *state)
{
	struct ars_net *an = ars_pernet(state->net);
	const struct ars_profile *p = rcu_dereference(an->profile);

	if (!p->state || !p->ipv6 || p->mode == ARS_MODE_ECMP ||
	    !ars_forwarded(skb))
		return NF_ACCEPT;
	return ars_steer(an, p, skb, AF_INET6);
}

/* Last in PRE_ROUTING: after conntrack, mangle and DNAT have had their say
 * on the addresses and the mark that the route lookup keys on.
 */
static const struct nf_hook_ops ars_nf_ops[] = {
	{
		.hook		= ars_hook4,
		.pf		= NFPROTO_IPV4,
		.hooknum	= NF_INET_PRE_ROUTING,
		.priority	= NF_IP_PRI_LAST,
	},
	{
		.hook		= ars_hook6,
		.pf		= NFPROTO_IPV6,
		.hooknum	= NF_INET_PRE_ROUTING,
		.priority	= NF_IP6_PRI_LAST,
	},
};

void ars_hook_init(void)
{
	prandom_seed_full_state(&ars_rnd);
}

int ars_hook_net_init(struct net *net)
{
	return nf_register_net_hooks(net, ars_nf_ops, ARRAY_SIZE(ars_nf_ops));
}

void ars_hook_net_exit(struct net *net)
{
	nf_unregister_net_hooks(net, ars_nf_ops, ARRAY_SIZE(ars_nf_ops));
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The data plane: a netfilter hook at the end of PRE_ROUTING, in every
 * namespace, for IPv4 and IPv6.
 *
 * For a forwarded packet it computes the packet's own flow key (never the
 * incoming skb->hash: a veth carries the previous router's value, and a
 * NIC's RSS hash is the same on every router), finds its macro-flow entry,
 * lets the core choose a next hop by mode, and then steers the kernel's own
 * multipath selection to that next hop by setting an L4 skb hash inside the
 * next hop's range. The kernel's forwarding path does the rest. With
 * net.ipv{4,6}.fib_multipath_hash_policy=1 the kernel uses an L4 skb hash
 * as the multipath hash as it is; with any other policy it ignores it, so
 * such packets are counted as unsteered and pass untouched.
 *
 * A packet of a flowlet that goes on is steered from its entry alone: the
 * entry keeps the hash and the device of its path and the generation of
 * the namespace's routing state it was checked against (IPv4's rt_genid or
 * IPv6's fib6_sernum, plus the nexthop objects' sequence number), and ars
 * looks the route up only when a flowlet starts, when that generation
 * moved, and once per 1/16 of the idle time while a flowlet goes on, so
 * that what the generations do not cover (a group member's neighbour, a
 * route change racing a lookup) is seen within that time. Meanwhile a
 * stale hash cannot do harm: the kernel never takes a dead next hop for
 * any hash, so it can only put a packet on another usable path.
 *
 * No locks, no allocation: the profile and the table are read under RCU
 * (netfilter hooks run inside rcu_read_lock()), counters are per CPU, and
 * entries are written only when they change.
 */
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/netfilter_bridge.h>

#include "hook.h"
#include "key.h"
#include "steer.h"

static void ars_key4(const struct ars_net *an, const struct sk_buff *skb,
		     const struct net_device *in, struct ars_ctx *c)
{
	const struct iphdr *iph = ip_hdr(skb);
	u32 ports = 0, *pp, _ports;

	if (!ip_is_fragment(iph) && ars_l4_ports(iph->protocol)) {
		pp = skb_header_pointer(skb, skb_network_offset(skb) +
					iph->ihl * 4, sizeof(_ports), &_ports);
		if (pp)
			ports = *pp;
	}
	ars_flow_key4(an, iph->saddr, iph->daddr, iph->protocol, ports,
		      skb->mark, iph->tos, in->ifindex, c);
}

static void ars_key6(const struct ars_net *an, const struct ars_profile *p,
		     const struct sk_buff *skb, const struct net_device *in,
		     struct ars_ctx *c)
{
	const struct ipv6hdr *iph = ipv6_hdr(skb);
	u32 ports = 0, *pp, _ports;

	/* Ports only without extension headers; fragments and the rest hash
	 * by addresses.
	 */
	if (ars_l4_ports(iph->nexthdr)) {
		pp = skb_header_pointer(skb, skb_network_offset(skb) +
					sizeof(*iph), sizeof(_ports), &_ports);
		if (pp)
			ports = *pp;
	}
	ars_flow_key6(an, &iph->saddr, &iph->daddr, iph->nexthdr, ports,
		      skb->mark, in->ifindex, c);
	if (p->flowlabel)
		ars_flow_key_label(an, ip6_flowlabel(iph), c);
}

/*
 * The generation of the namespace's routing state for @family, folded to
 * the entry's 16 bits and never 0. IPv4's rt_genid moves after every route,
 * rule, device and address change and nexthop replacement, IPv6's
 * fib6_sernum with every change of its trees; a group member deleted moves
 * only the nexthop sequence number; @conf_seq, the sequence number of the
 * objects and bindings, with every change of them (objects.c). Each only
 * grows, so their sum changes whenever one does.
 */
static u16 ars_net_gen(const struct net *net, int family, u16 conf_seq)
{
	u32 g = READ_ONCE(net->nexthop.seq) + conf_seq;

	if (family == AF_INET)
		g += atomic_read(&net->ipv4.rt_genid);
#if IS_ENABLED(CONFIG_IPV6)
	else
		g += atomic_read(&net->ipv6.fib6_sernum);
#endif
	return (g & 0x7fff) | 0x8000;
}

/* A packet that some object may steer, or with the ecmp mode hash anew. */
static unsigned int ars_steer_flow(struct ars_net *an,
				   const struct ars_profile *p,
				   const struct ars_conf *conf,
				   struct sk_buff *skb, struct net_device *in,
				   int family)
{
	struct ars_flow *f = NULL, *e;
	struct ars_table *t;
	/*
	 * Not zeroed for every packet under INIT_STACK_ALL_ZERO: the key,
	 * tag, time and generation are set here, the idle time with the
	 * entry, and the rest by ars_ctx_object() and the slow path before
	 * the core reads them.
	 */
	struct ars_ctx c __uninitialized;
	u32 index = 0, own_index;
	int obj, bind;

	if (family == AF_INET)
		ars_key4(an, skb, in, &c);
	else
		ars_key6(an, p, skb, in, &c);
	c.now = ktime_get_ns();
	c.gen = ars_net_gen(an->net, family, conf->seq);

	t = conf->flowlets ? rcu_dereference(an->table) : NULL;
	if (likely(t)) {
		index = c.key & t->mask;
		f = &t->flows[index];
		e = f;
		if (unlikely(conf->own_tables))
			e = ars_flow_hinted(conf, f, skb, &c);
		/*
		 * The common case: no route, no object, nothing written; the
		 * entry knows its object, which the generation says is still
		 * the one its packets resolve to. An entry of another table
		 * than the object's is never the packet's: entries of one tag
		 * are in one object's table (the generation moves with
		 * table-size too).
		 */
		c.idle = READ_ONCE(e->idle);
		if (ars_flowlet_fast(e, &c) &&
		    ars_hash_policy_l4(an->net, family)) {
			obj = READ_ONCE(e->object) & (ARS_OBJECTS_MAX - 1);
			skb_set_hash(skb, READ_ONCE(e->hash), PKT_HASH_TYPE_L4);
			ars_route_input(skb, in, family);
			ars_ostat_inc(an, obj, ARS_STAT_STEERED);
			ars_account(an, READ_ONCE(e->ifindex), skb, NULL);
			return NF_ACCEPT;
		}
	}

	obj = ars_conf_mark(conf, skb->mark, &bind);
	ars_bstat_inc_packets(an, bind);
	if (obj == ARS_OBJ_EXEMPT) {
		ars_stat_inc(an, ARS_STAT_EXEMPT);
		return NF_ACCEPT;
	}
	if (obj >= 0 && conf->obj[obj].mode == ARS_MODE_ECMP)
		return ars_ecmp_input(an, skb, in, family, obj);
	/* Alternates need the route's next hops. */
	if (obj >= 0 && f && !conf->n_ifaces &&
	    conf->obj[obj].mode == ARS_MODE_FLOWLET_RANDOM &&
	    !conf->obj[obj].n_alt) {
		ars_ctx_object(an, &c, &conf->obj[obj]);
		own_index = index;
		e = ars_flow_of(conf, f, obj, c.key, &own_index);
		if (ars_flowlet_expired(e, &c) &&
		    ars_hash_policy_l4(an->net, family)) {
			if (ars_flowlet_random(an, p, skb, in, family, &c, e,
					       own_index, obj, bind) &&
			    unlikely(conf->own_tables))
				ars_flow_hint(an, conf, f, obj, &c, true);
			return NF_ACCEPT;
		}
	}
	return ars_steer_slow(an, p, conf, skb, in, family, &c, f, index, obj,
			      bind);
}

/*
 * Inline into the hooks: where only objects in the ecmp mode may take
 * packets, one that a mark or the default object selects needs no flow
 * key, nor the flow path's stack frame.
 */
static __always_inline unsigned int ars_steer(struct ars_net *an,
					      const struct ars_profile *p,
					      const struct ars_conf *conf,
					      struct sk_buff *skb,
					      struct net_device *in, int family)
{
	int obj, bind;

	if (!conf->steers) {
		obj = ars_conf_mark(conf, skb->mark, &bind);
		if (obj >= 0) {
			ars_bstat_inc_packets(an, bind);
			return ars_ecmp_input(an, skb, in, family, obj);
		}
	}
	return ars_steer_flow(an, p, conf, skb, in, family);
}

/*
 * Only packets for another host are routed as forwarded. Under a VRF,
 * PRE_ROUTING runs twice, first with the enslaved device and again with
 * the VRF's, after which the kernel looks the route up: ars acts in that
 * pass only, so a packet is looked up and counted once (with what the
 * VRF's hooks made of it), and routes it as the kernel does
 * (ars_in_dev()). br_netfilter runs the IPv4 and IPv6 hooks for frames
 * that the bridge switches too, as PACKET_HOST: those it found for
 * another host (pkt_otherhost) are left alone. The frames for the
 * bridge's own address are the ones routed, with the bridge's device as
 * this pass has it; their second pass is skipped (ip_sabotage_in()).
 */
static __always_inline bool ars_forwarded(const struct sk_buff *skb,
					  const struct nf_hook_state *state)
{
#if IS_ENABLED(CONFIG_BRIDGE_NETFILTER)
	const struct nf_bridge_info *nf_bridge;
#endif

	if (skb->pkt_type != PACKET_HOST || skb_valid_dst(skb) ||
	    netif_is_l3_slave(state->in))
		return false;
#if IS_ENABLED(CONFIG_BRIDGE_NETFILTER)
	nf_bridge = nf_bridge_info_get(skb);
	if (unlikely(nf_bridge) && nf_bridge->pkt_otherhost)
		return false;
#endif
	return true;
}

/*
 * The device the kernel routes the packet as received on, which its input
 * route lookup checks rp_filter, forwarding, accept_local and rules' iif
 * against: skb->dev, but for IPv4 under a VRF the enslaved device that
 * ip_rcv_finish() kept from before the VRF's pass (IPCB()->iif, as
 * inet_sdif() reads it). IPv6 routes with the VRF's device
 * (ip6_rcv_finish()). NULL when that device is gone: ars then leaves the
 * packet to the kernel.
 */
static struct net_device *ars_in_dev(struct sk_buff *skb, int family,
				     const struct nf_hook_state *state)
{
	if (family == AF_INET && unlikely(IPCB(skb)->flags & IPSKB_L3SLAVE))
		return dev_get_by_index_rcu(state->net, IPCB(skb)->iif);
	return skb->dev;
}

/*
 * ars is on for @family and some object may take packets (steer them, or
 * hash them anew in the ecmp mode): its configuration.
 */
static const struct ars_conf *ars_steers(struct ars_net *an, int family,
					 const struct ars_profile **p)
{
	const struct ars_conf *conf;

	*p = rcu_dereference(an->profile);
	if (!(*p)->state || !(family == AF_INET ? (*p)->ipv4 : (*p)->ipv6))
		return NULL;
	conf = rcu_dereference(an->conf);
	return conf->steers || conf->ecmp ? conf : NULL;
}

/*
 * The steering uses this CPU's state (the route cache, the random state,
 * counters) as its own for the packet's whole pass. PRE_ROUTING mostly
 * runs in softirq context, but NFQUEUE reinjects a packet from the
 * verdict's process context with bottom halves on (nf_reinject() runs the
 * hooks after the queue's under rcu_read_lock() only): with preemptible RCU
 * (Debian's PREEMPT_DYNAMIC kernels) the task may move to another CPU
 * midway, or a softirq on this one may take the same route cache slot.
 * Where bottom halves are off already (softirq context, the common case;
 * on PREEMPT_RT the softirq thread holds this CPU's BH lock), the pair
 * would be a no-op that costs about 30 instructions a packet on the
 * forwarding bench, so only the others take it.
 *
 * Out of line, with what else the common case does not need: the
 * profile's remote (the packet's feedback, after its own steering) and an
 * IPv4 packet under a VRF (ars_in_dev()). The hooks then make no call of
 * their own before the steering's, and tail-call it without a stack
 * frame.
 */
static noinline unsigned int ars_steer_other(struct ars_net *an,
					     const struct ars_profile *p,
					     const struct ars_conf *conf,
					     struct sk_buff *skb, int family,
					     const struct nf_hook_state *state)
{
	struct net_device *in = ars_in_dev(skb, family, state);
	bool bh = !in_softirq();
	unsigned int verdict;

	if (!in)
		return NF_ACCEPT;
	if (bh)
		local_bh_disable();
	verdict = ars_steer(an, p, conf, skb, in, family);
	if (p->remote)
		ars_feedback(an, p, conf, skb, in, family);
	if (bh)
		local_bh_enable();
	return verdict;
}

static __always_inline unsigned int ars_steer_bh(struct ars_net *an,
						 const struct ars_profile *p,
						 const struct ars_conf *conf,
						 struct sk_buff *skb,
						 int family,
						 const struct nf_hook_state *state)
{
	/* Remote off, no VRF: one test each for every packet. */
	if (likely(in_softirq() && !p->remote) &&
	    likely(family != AF_INET ||
		   !(IPCB(skb)->flags & IPSKB_L3SLAVE)))
		return ars_steer(an, p, conf, skb, skb->dev, family);
	return ars_steer_other(an, p, conf, skb, family, state);
}

static unsigned int ars_hook4(void *priv, struct sk_buff *skb,
			      const struct nf_hook_state *state)
{
	struct ars_net *an = priv;
	const struct ars_profile *p;
	const struct ars_conf *conf = ars_steers(an, AF_INET, &p);

	if (!conf || !ars_forwarded(skb, state))
		return NF_ACCEPT;
	return ars_steer_bh(an, p, conf, skb, AF_INET, state);
}

static unsigned int ars_hook6(void *priv, struct sk_buff *skb,
			      const struct nf_hook_state *state)
{
	struct ars_net *an = priv;
	const struct ars_profile *p;
	const struct ars_conf *conf = ars_steers(an, AF_INET6, &p);

	if (!conf || !ars_forwarded(skb, state))
		return NF_ACCEPT;
	return ars_steer_bh(an, p, conf, skb, AF_INET6, state);
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

/*
 * Only in a namespace where ars is on (netns.c). Each namespace registers
 * hooks of its own, whose .priv is its struct ars_net: the hook then finds
 * it without net_generic(), which takes and drops the RCU read lock, two
 * calls per packet on Debian's preemptible RCU. The ops live in the
 * ars_net, which outlives their registration (ars_net_pre_exit()).
 */
int ars_hook_register(struct ars_net *an)
{
	unsigned int i;

	BUILD_BUG_ON(ARRAY_SIZE(an->nf_ops) != ARRAY_SIZE(ars_nf_ops));
	for (i = 0; i < ARRAY_SIZE(ars_nf_ops); i++) {
		an->nf_ops[i] = ars_nf_ops[i];
		an->nf_ops[i].priv = an;
	}
	return nf_register_net_hooks(an->net, an->nf_ops,
				     ARRAY_SIZE(an->nf_ops));
}

void ars_hook_unregister(struct ars_net *an)
{
	nf_unregister_net_hooks(an->net, an->nf_ops, ARRAY_SIZE(an->nf_ops));
}

/* Before the netlink family, which may turn ars on. */
void ars_hook_init(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		per_cpu(ars_rnd, cpu) = get_random_u64();
}

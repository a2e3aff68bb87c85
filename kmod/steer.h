/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data plane's units and what they share. A packet enters at hook.c,
 * which steers a flowlet that goes on; which macro-flow entry is the
 * packet's, when objects have tables of their own, is flows.c's; a flowlet
 * that starts is steer.c's, or ecmp.c's for the ecmp mode and the
 * flowlet-random shortcut; the remote-congestion feedback that forwarded
 * packets carry is feedback.c's. The calls between them are those that
 * were out of line within one file before; the small helpers they share
 * are inline here, so that the per-packet path pays no call for them.
 */
#ifndef _ARS_STEER_H
#define _ARS_STEER_H

#include <linux/hash.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <net/dst_metadata.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/route.h>

#include "ars_core.h"
#include "ars_step.h"
#include "genl.h"
#include "netns.h"
#include "objects.h"
#include "ports.h"
#include "profile.h"
#include "route.h"
#include "stats.h"
#include "table.h"
#include "trace.h"

/*
 * Random numbers for the random and quality modes, per CPU (steer.c): the
 * steering runs with bottom halves off (ars_steer_bh()), so this CPU's
 * state is ours. A 64-bit counter stepped by an odd constant (a Weyl
 * sequence, whose period is 2^64) and passed through two xorshift-multiply
 * rounds, splitmix64's construction, whose output passes the usual
 * statistical test batteries: about a dozen instructions inline, where
 * prandom_u32_state() is a call of some forty, for every flowlet that
 * starts. The high half is returned, the best mixed. Seeded per CPU from
 * get_random_u64() (ars_hook_init()). Not cryptographic, as prandom is not.
 */
DECLARE_PER_CPU(u64, ars_rnd);

#define ARS_RND_GAMMA	0x9e3779b97f4a7c15ULL	/* 2^64 / golden ratio, odd */

static inline u32 ars_random(void)
{
	u64 *s = this_cpu_ptr(&ars_rnd);
	u64 z = *s + ARS_RND_GAMMA;

	*s = z;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (u32)((z ^ (z >> 31)) >> 32);
}

/* flows.c */
struct ars_flow *ars_flow_hinted(const struct ars_conf *conf,
				 struct ars_flow *f,
				 const struct sk_buff *skb,
				 struct ars_ctx *c);
void ars_flow_hint(struct ars_net *an,
		   const struct ars_conf *conf,
		   struct ars_flow *f, int obj,
		   const struct ars_ctx *c, bool started);
struct ars_flow *ars_flow_own(const struct ars_conf *conf,
			      struct ars_flow *f, int obj,
			      u32 key, u32 *index);

/* feedback.c */
u32 ars_remote_route(const struct ars_net *an, int family,
		     const void *daddr);
void ars_remote_steered(struct ars_net *an,
			const struct sk_buff *skb, int family,
			const struct ars_step *step, u32 dev,
			int obj, u64 now);
void ars_feedback(struct ars_net *an,
		  const struct ars_profile *p,
		  const struct ars_conf *conf,
		  struct sk_buff *skb, struct net_device *in,
		  int family);

/* steer.c */
unsigned int ars_steer_slow(struct ars_net *an,
			    const struct ars_profile *p,
			    const struct ars_conf *conf,
			    struct sk_buff *skb, struct net_device *in,
			    int family, struct ars_ctx *c,
			    struct ars_flow *f, u32 index, int obj,
			    int bind);

/* ecmp.c */
unsigned int ars_ecmp_input(struct ars_net *an, struct sk_buff *skb,
			    struct net_device *in, int family, int obj);
bool ars_flowlet_random(struct ars_net *an,
			const struct ars_profile *p,
			struct sk_buff *skb,
			struct net_device *in,
			int family, struct ars_ctx *c,
			struct ars_flow *f, u32 index,
			int obj, int bind);

/*
 * A flowlet of object @obj started, by binding @bind (-1: none);
 * @old_ifindex: the entry's device before, 0 when it had none. Inline:
 * without a tracer or a listener on the monitor group, a new flowlet
 * pays no call here but netlink_has_listeners(), and not that one before
 * a socket first joins the group (ars_genl_monitored()).
 */
static inline void ars_flowlet_started(struct ars_net *an, int obj, int bind,
				       u32 index, const struct ars_result *res,
				       u32 old_ifindex, u32 new_ifindex,
				       int family)
{
	ars_ostat_inc(an, obj, ARS_STAT_FLOWLETS);
	if (bind >= 0)
		this_cpu_inc(an->bstats->b[bind].flowlets);
	if (res->reason == ARS_REASON_FAILOVER)
		ars_ostat_inc(an, obj, ARS_STAT_FAILOVERS);
	if (old_ifindex && old_ifindex != new_ifindex)
		ars_ostat_inc(an, obj, ARS_STAT_REASSIGNMENTS);

	trace_ars_path_assign(an->net, index, old_ifindex, new_ifindex,
			      res->reason);
	if (ars_genl_monitored(an->net))
		ars_genl_notify_assign(an, index, family, old_ifindex,
				       new_ifindex, res->reason);
}

static inline bool ars_hash_policy_l4(const struct net *net, int family)
{
	if (family == AF_INET)
		return READ_ONCE(net->ipv4.sysctl_fib_multipath_hash_policy) == 1;
#if IS_ENABLED(CONFIG_IPV6)
	return ip6_multipath_hash_policy(net) == 1;
#else
	return false;
#endif
}

static inline const void *ars_saddr(const struct sk_buff *skb, int family)
{
	if (family == AF_INET)
		return &ip_hdr(skb)->saddr;
	return &ipv6_hdr(skb)->saddr;
}

static inline const void *ars_daddr(const struct sk_buff *skb, int family)
{
	if (family == AF_INET)
		return &ip_hdr(skb)->daddr;
	return &ipv6_hdr(skb)->daddr;
}

/* A next hop's gateway: its family (0 for none) and address. */
struct ars_gw {
	u8		family;
	struct in6_addr	addr;	/* or the IPv4 one in s6_addr32[0] */
};

/*
 * What ars steered to device @ifindex; @gw, the path's gateway, when a
 * flowlet starts on it.
 */
static inline void ars_account(struct ars_net *an, u32 ifindex,
			       const struct sk_buff *skb, const struct ars_gw *gw)
{
	struct ars_port *port = ars_port_find(an, ifindex);
	struct ars_port_pcpu *pc;

	if (!port)
		return;
	pc = this_cpu_ptr(port->pcpu);
	pc->packets++;
	pc->bytes += skb->len;
	if (gw) {
		pc->flowlets++;
		/* Once per flowlet; a dump may see a gateway half written. */
		if (gw->family)
			port->gw = gw->addr;
		WRITE_ONCE(port->gw_family, gw->family);
	}
}

/* A counter of the binding in counter slot @bind, if any (objects.c). */
static inline void ars_bstat_inc_packets(struct ars_net *an, int bind)
{
	if (bind >= 0)
		this_cpu_inc(an->bstats->b[bind].packets);
}

static inline int ars_route(struct ars_net *an, struct sk_buff *skb,
			    const struct net_device *in, int family,
			    struct ars_route *r, struct ars_route_ctx *rc)
{
	rc->res = this_cpu_ptr(an->rcache)->res;
	if (family == AF_INET)
		return ars_route4(an->net, skb, in->ifindex, r, rc);
	return ars_route6(an->net, skb, r, rc);
}

/* What object @o says for the packets it steers. */
static inline void ars_ctx_object(struct ars_net *an, struct ars_ctx *c,
				  const struct ars_object *o)
{
	c->mode = o->mode;
	c->idle = o->idle_time;
	c->ticket = 0;
	if (c->mode == ARS_MODE_PACKET_ROUNDROBIN)
		c->ticket = (u64)atomic64_inc_return(&an->ticket.v);
}

/* The entry is about to carry a flowlet of object @obj. */
static inline void ars_flow_object_set(struct ars_flow *f, const struct ars_ctx *c,
				       int obj)
{
	u16 key_hi = ars_flow_key_hi(c->key);

	if (READ_ONCE(f->idle) != c->idle)
		WRITE_ONCE(f->idle, c->idle);
	if (READ_ONCE(f->object) != obj)
		WRITE_ONCE(f->object, obj);
	if (READ_ONCE(f->key_hi) != key_hi)
		WRITE_ONCE(f->key_hi, key_hi);
}

/*
 * The packet's entry in the table of object @obj, and its index there in
 * @index: @f (of the namespace's table, or NULL without one), unless the
 * object has a table of its own.
 */
static inline struct ars_flow *ars_flow_of(const struct ars_conf *conf,
					   struct ars_flow *f, int obj,
					   u32 key, u32 *index)
{
	if (likely(!conf->own_tables) || !f)
		return f;
	return ars_flow_own(conf, f, obj, key, index);
}

/*
 * Run the kernel's own input route lookup now, with the hash ars set, as
 * the kernel would for a packet received on @in (ars_in_dev()); false
 * when it failed. The kernel then takes the packet's dst as it is and skips
 * its own lookup and, for TCP and UDP, its early demultiplexing, a socket
 * lookup that a forwarded packet never matches: so a packet that ars steers
 * costs the kernel no more than one it does not. A failed lookup leaves no
 * dst, and the kernel fails it again and drops the packet.
 */
static __always_inline bool ars_route_input(struct sk_buff *skb,
					    struct net_device *in, int family)
{
	const struct iphdr *iph;

	if (family == AF_INET) {
		iph = ip_hdr(skb);
		return !ip_route_input_noref(skb, iph->daddr, iph->saddr,
					     iph->tos, in);
	}
#if IS_ENABLED(CONFIG_IPV6)
	return !ipv6_stub->ipv6_route_input(skb);
#else
	return false;
#endif
}

/*
 * The route the kernel chose forwards the packet: its dst, with the next
 * hop's gateway in @gw, or NULL.
 */
static inline const struct dst_entry *ars_dst_forwarded(const struct sk_buff *skb,
							int family, struct ars_gw *gw)
{
	const struct dst_entry *dst = skb_dst(skb);
	const struct rtable *rt;
	const struct rt6_info *rt6;

	if (!dst || !dst->dev)
		return NULL;
	if (family == AF_INET) {
		rt = skb_rtable(skb);
		if (rt->rt_type != RTN_UNICAST)
			return NULL;
		gw->family = rt->rt_gw_family;
		if (rt->rt_gw_family == AF_INET)
			gw->addr.s6_addr32[0] = rt->rt_gw4;
		else if (rt->rt_gw_family == AF_INET6)
			gw->addr = rt->rt_gw6;
		return dst;
	}
	rt6 = container_of(dst, struct rt6_info, dst);
	if (rt6->rt6i_flags & (RTF_LOCAL | RTF_ANYCAST | RTF_REJECT) ||
	    dst->error)
		return NULL;
	gw->family = rt6->rt6i_flags & RTF_GATEWAY ? AF_INET6 : 0;
	gw->addr = rt6->rt6i_gateway;
	return dst;
}

/*
 * A forwarded packet of an object in the ecmp mode: the kernel's own
 * multipath selection, with the hash this router computes from the
 * packet's headers (with fib_multipath_hash_policy=1, its 5-tuple), as a
 * router whose packets come from a NIC does. Not the skb's hash as it
 * came, which the kernel would take as it is: a veth carries the sending
 * socket's hash (sk_txhash, which TCP draws anew after a timeout) or the
 * previous router's, so that every router on the way would choose by one
 * host's random draw.
 */
static inline unsigned int ars_ecmp(struct ars_net *an, struct sk_buff *skb, int obj)
{
	skb_clear_hash(skb);
	ars_ostat_inc(an, obj, ARS_STAT_ECMP);
	return NF_ACCEPT;
}

/* An skb's hash as it came, for a packet ars ends up not steering. */
struct ars_skb_hash {
	u32	hash;
	bool	l4;
	bool	sw;
};

static inline void ars_skb_hash_save(const struct sk_buff *skb,
				     struct ars_skb_hash *h)
{
	h->hash = skb->hash;
	h->l4 = skb->l4_hash;
	h->sw = skb->sw_hash;
}

static inline void ars_skb_hash_restore(struct sk_buff *skb,
					const struct ars_skb_hash *h)
{
	skb->hash = h->hash;
	skb->l4_hash = h->l4;
	skb->sw_hash = h->sw;
}

#endif /* _ARS_STEER_H */
